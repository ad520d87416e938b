"""SubStepTransitions: per-sub-step transitions of structured envs, each ending where its actor acts again."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np
import pytest
from maze.env.agent.random_policy import RandomPolicy
from maze.env.errors import ConfigurationError
from maze.env.testing.fake_envs import build_dynamic_agents_env, build_multi_step_env
from maze.env.vector.sequential import SequentialVectorEnv
from maze.env.wrappers.log_stats_wrapper import LogStatsWrapper
from maze.train.replay.substep_transitions import SubStepTransitions
from maze.train.replay.workers import BatchedPolicy
from maze.train.rollout.collector import RolloutCollector


def multi_step_env() -> Any:
    return LogStatsWrapper.wrap(build_multi_step_env(max_steps=12, end_between_sub_steps=False))


def collect(n_steps: int, n_rollouts: int) -> tuple[dict[Any, dict[str, Any]], list[Any]]:
    """Transitions by sub-step key (fields joined over the rollouts) and the rollouts of 2 seeded envs."""
    env = SequentialVectorEnv([multi_step_env] * 2)
    collector = RolloutCollector(env, n_steps, seeds=[0, 1])
    policy = BatchedPolicy(RandomPolicy(env.action_spaces_dict, seed=0), 2)
    assemble = SubStepTransitions()
    parts: dict[Any, list[Any]] = defaultdict(list)
    rollouts = []
    for _ in range(n_rollouts):
        rollout = collector.collect(policy)
        rollouts.append(rollout)
        for key, batch in assemble(rollout).items():
            parts[key].append(batch)
    env.close()
    joined = {
        key: {
            "observations": {k: np.concatenate([b.observations[k] for b in batches]) for k in batches[0].observations},
            "next_observations": {
                k: np.concatenate([b.next_observations[k] for b in batches]) for k in batches[0].next_observations
            },
            "actions": {k: np.concatenate([b.actions[k] for b in batches]) for k in batches[0].actions},
            "rewards": np.concatenate([b.rewards for b in batches]),
            "dones": np.concatenate([b.dones for b in batches]),
        }
        for key, batches in parts.items()
    }
    return joined, rollouts


def test_transitions_do_not_depend_on_where_rollouts_are_cut() -> None:
    one_step, _ = collect(1, 60)
    four_steps, _ = collect(4, 15)
    assert set(one_step) == set(four_steps) == {0, 1}
    for key in (0, 1):
        for field in ("observations", "next_observations", "actions"):
            for name, value in one_step[key][field].items():
                np.testing.assert_array_equal(value, four_steps[key][field][name])
        np.testing.assert_array_equal(one_step[key]["rewards"], four_steps[key]["rewards"])
        np.testing.assert_array_equal(one_step[key]["dones"], four_steps[key]["dones"])


def test_each_actor_gets_its_own_next_observation_reward_and_episode_end() -> None:
    transitions, rollouts = collect(1, 60)
    rewards = np.concatenate([rollout.rewards for rollout in rollouts])  # [120 calls, 2 envs]
    terminated = np.concatenate([rollout.terminated for rollout in rollouts])
    truncated = np.concatenate([rollout.truncated for rollout in rollouts])
    pick, place = transitions[0], transitions[1]
    # Sub-step 0 (pick): one transition per env step; its reward is that of the env step (paid at sub-step 1).
    assert len(pick["rewards"]) == 60 * 2
    np.testing.assert_array_equal(pick["rewards"], rewards[1::2].reshape(-1))
    np.testing.assert_array_equal(pick["dones"], terminated[1::2].reshape(-1))
    assert terminated.any() and truncated.any()
    # Sub-step 1 (place) sees the env step counter: its next observation is one env step later. A
    # transition whose episode was truncated meanwhile has no next observation of its own and is dropped;
    # one the last rollout has not completed yet is pending.
    kept = ~truncated[1::2][:-1].reshape(-1)
    assert len(place["rewards"]) == kept.sum()
    alive = place["dones"] == 0
    np.testing.assert_array_equal(place["next_observations"]["step"][alive], place["observations"]["step"][alive] + 1)
    np.testing.assert_array_equal(place["dones"], terminated[1::2][:-1].reshape(-1)[kept])
    # Its reward: the env step's, plus the pick's reward of the next env step (0 here).
    np.testing.assert_array_equal(place["rewards"], (rewards[1::2][:-1] + rewards[2::2]).reshape(-1)[kept])


def test_envs_with_dynamic_agents_are_refused_with_one_clear_error() -> None:
    env = SequentialVectorEnv([lambda: LogStatsWrapper.wrap(build_dynamic_agents_env())])
    rollout = RolloutCollector(env, 2, seeds=[0]).collect(
        BatchedPolicy(RandomPolicy(env.action_spaces_dict, seed=0), 1)
    )
    env.close()
    with pytest.raises(ConfigurationError, match="this env has dynamic agents"):
        SubStepTransitions()(rollout)
