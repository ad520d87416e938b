"""Envs with dynamic agents: per-actor collection, linked GAE, batches per network, PPO learning with per-actor returns."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from maze.env.errors import ConfigurationError
from maze.env.testing.fake_envs import build_dynamic_agents_env
from maze.perception.models.base_model_composer import build_model_composer
from maze.perception.models.spaces_config import SpacesConfig
from maze.train.core.actor_critic import prepare_actor_critic_batch
from maze.train.evaluators import RolloutEvaluator
from maze.train.returns import compute_linked_gae
from maze.train.rollout import ActorRollout, RolloutCollector
from maze.train.rollout.actors import TransitionEnd
from maze.train.trainers import A2C, PPO, A2CAlgorithmConfig, PPOAlgorithmConfig
from train_test_support import ZeroPolicy, packaged_config, small_model_config

SEEDS = [0, 1, 2]


def dynamic_model(shared_critic: bool = False):
    """A small flatten-concat policy per sub-step key with one state critic per key (or a stacked shared one)."""
    config = small_model_config("flatten_concat", "dummy", hidden=16)
    if shared_critic:
        config.update(packaged_config("critic", "flatten_concat_shared"))
        config["critic"]["networks"][0]["hidden_units"] = [8]
        config["critic"]["stack_observations"] = True
    return build_model_composer(config, SpacesConfig.from_env(build_dynamic_agents_env())).torch_actor_critic()


def test_collector_records_actor_trajectories_and_carries_open_transitions(vector_env) -> None:
    env = vector_env(build_dynamic_agents_env, n_envs=3)
    collector = RolloutCollector(env, n_steps=9, seeds=SEEDS)
    policy = ZeroPolicy(env.action_spaces_dict)

    rollout = collector.collect(policy)

    assert isinstance(rollout, ActorRollout)
    assert rollout.rewards.shape == (9, 3) and collector.env_steps == 27
    assert len(rollout.samples) == 27  # one decision per env and call
    assert {actor_id[0] for actor_id in policy.actor_ids} == {"spawn", "work"}
    # the envs drift apart: at some call they wait for actors of different sub-steps
    per_call = [rollout.samples[3 * call : 3 * call + 3] for call in range(9)]
    assert any(len({sample.actor_id[0] for sample in call}) > 1 for call in per_call)
    for sample in rollout.samples:
        if sample.end == TransitionEnd.NEXT:  # linked to the same actor's next decision in the same env
            assert (sample.next.actor_id, sample.next.env) == (sample.actor_id, sample.env)
        if sample.actor_id[0] == "work" and sample.end == TransitionEnd.DONE:
            assert sample.reward in (0.0, 1.0)  # a worker's last transition holds its own last reward only
    # a spawner transition collects the rewards of the worker it created (every call of the env until it acts again)
    spawner = next(s for s in rollout.samples if s.actor_id[0] == "spawn" and s.end == TransitionEnd.NEXT)
    first = rollout.samples.index(spawner)
    calls = (rollout.samples.index(spawner.next) - first) // 3
    assert spawner.reward == pytest.approx(rollout.rewards[first // 3 : first // 3 + calls, spawner.env].sum())
    still_open = [sample for sample in rollout.samples if sample.end == TransitionEnd.OPEN]
    assert still_open and len(still_open) <= 6  # at most a spawner and a worker per env

    following = collector.collect(policy)

    assert following.samples[: len(still_open)] == still_open  # carried into the next rollout
    assert all(sample.end != TransitionEnd.OPEN for sample in still_open)


def test_linked_gae_follows_each_trajectory() -> None:
    # trajectory A: samples 0 -> 2 (2 ends the actor); trajectory B: sample 1 -> 3 (3 still open, bootstrapped only)
    rewards = np.array([1.0, 2.0, 3.0, 0.0])
    values = np.array([0.5, 1.0, 0.25, 4.0])
    next_values = np.array([0.25, 4.0, 0.0, 0.0])
    next_index = np.array([2, -1, -1, -1])

    advantages, targets = compute_linked_gae(rewards, values, next_values, next_index, gamma=0.5, gae_lambda=0.5)

    delta_2 = 3.0 - 0.25
    delta_0 = 1.0 + 0.5 * 0.25 - 0.5
    delta_1 = 2.0 + 0.5 * 4.0 - 1.0
    assert advantages[:3] == pytest.approx([delta_0 + 0.25 * delta_2, delta_1, delta_2])
    assert targets == pytest.approx(advantages + values)


def test_batch_has_one_group_per_network_with_the_closed_transitions(vector_env) -> None:
    torch.manual_seed(0)
    model = dynamic_model()
    env = vector_env(build_dynamic_agents_env, n_envs=3)
    rollout = RolloutCollector(env, n_steps=9, seeds=SEEDS).collect(model.policy)

    batch = prepare_actor_critic_batch(rollout, model, gamma=0.9, gae_lambda=0.95)

    closed = [sample for sample in rollout.samples if sample.end != TransitionEnd.OPEN]
    assert [actor_id[0] for actor_id in batch.actor_ids] == ["spawn", "work"]  # the policy's network order
    assert batch.n_rows == len(closed)
    for actor_id, observations in zip(batch.actor_ids, batch.observations, strict=True):
        expected = sum(sample.actor_id[0] == actor_id[0] for sample in closed)
        assert len(next(iter(observations.values()))) == expected
    rows = torch.arange(batch.n_rows)[: batch.n_rows // 2 + 1]
    record = batch.record(rows)
    assert sum(len(next(iter(substep.observation.values()))) for substep in record.substep_records) == len(rows)
    assert [len(values) for values in batch.rows("advantages", rows)] == [
        len(next(iter(substep.observation.values()))) for substep in record.substep_records
    ]


def test_rejects_critics_and_consumers_that_need_fixed_slots(vector_env) -> None:
    model = dynamic_model(shared_critic=True)
    rollout = RolloutCollector(vector_env(build_dynamic_agents_env), n_steps=6, seeds=SEEDS[:2]).collect(model.policy)

    with pytest.raises(ConfigurationError, match="stack_observations: false"):
        prepare_actor_critic_batch(rollout, model, gamma=0.9, gae_lambda=0.95)
    with pytest.raises(ConfigurationError, match="Only A2C and PPO"):
        _ = rollout.n_slots
    config = small_model_config("flatten_concat", "dummy")
    config["policy"]["substeps_with_separate_agent_nets"] = ["work"]
    with pytest.raises(ConfigurationError, match=r"agent count is dynamic \(-1\)"):
        build_model_composer(config, SpacesConfig.from_env(build_dynamic_agents_env())).torch_actor_critic()


def test_ppo_learns_the_dynamic_agents_env_and_reports_both_actors_returns(vector_env, recorder, single_thread) -> None:
    """Random play: spawner return ~5 (0.5 per decision of the episode), worker return ~0.75; best ~10 and 1.5."""
    torch.manual_seed(0)
    config = PPOAlgorithmConfig(
        n_epochs=3,
        epoch_length=5,
        n_rollout_steps=20,
        lr=0.003,
        batch_size=20,
        n_optimization_epochs=4,
        gamma=0.9,
        gae_lambda=0.95,
        entropy_coef=0.0,
        patience=0,
    )
    collector = RolloutCollector(vector_env(build_dynamic_agents_env, n_envs=4), config.n_rollout_steps, SEEDS + [3])
    evaluator = RolloutEvaluator(vector_env(build_dynamic_agents_env), n_episodes=10, seeds=[7, 8])

    PPO(config, collector, evaluator, dynamic_model()).train()

    spawn = recorder.values("train", "ActorEvents", "actor_return", "mean", groups=("spawn",))
    work = recorder.values("train", "ActorEvents", "actor_return", "mean", groups=("work",))
    assert len(spawn) == len(work) == 3
    assert spawn[-1] >= 8.0 and work[-1] >= 1.3, (spawn, work)
    assert recorder.values("train", "ActorEvents", "actor_return", "actor_count", groups=("work",))[-1] > 100
    assert recorder.values("eval", "ActorEvents", "actor_return", "mean", groups=("spawn",))[-1] >= 9.0
    assert recorder.values("eval", "ActorEvents", "actor_return", "mean", groups=("work",))[-1] >= 1.4


def test_a2c_trains_on_the_dynamic_agents_env(vector_env, recorder) -> None:
    torch.manual_seed(0)
    config = A2CAlgorithmConfig(n_epochs=1, epoch_length=2, n_rollout_steps=12, patience=0)
    model = dynamic_model()
    before = [parameter.detach().clone() for parameter in model.parameters()]
    collector = RolloutCollector(vector_env(build_dynamic_agents_env), config.n_rollout_steps, SEEDS[:2])

    result = A2C(config, collector, None, model).train()

    assert (result.env_steps, result.sub_steps) == (48, 48)  # every call counts as an env step
    assert not all(torch.equal(old, new) for old, new in zip(before, model.parameters(), strict=True))
    for group in (0, 1):  # one statistic per policy network
        losses = recorder.values("train", "ActorCriticEvents", "policy_loss", groups=(group,))
        assert len(losses) == 1 and np.isfinite(losses).all()
    assert recorder.values("train", "ActorEvents", "actor_return", "actor_count", groups=("work",))
