"""ActorID, the fake structured envs and their actor cycles."""

from __future__ import annotations

import numpy as np
import pytest
from maze.env import ActorID, RandomPolicy
from maze.env.testing.env_checker import check_env
from maze.env.testing.fake_envs import build_dummy_maze_env, build_multi_agent_env, build_multi_step_env


def test_actor_id_is_a_named_tuple() -> None:
    actor = ActorID(step_key=0, agent_id=0)
    assert actor == (0, 0)
    assert ActorID("selection", 2) == ("selection", 2)
    step_key, agent_id = ActorID(1, 3)
    assert (step_key, agent_id) == (1, 3)
    assert ActorID(1, 3).step_key == 1 and ActorID(1, 3).agent_id == 3


@pytest.mark.parametrize(
    "make_env",
    [build_dummy_maze_env, build_multi_step_env, lambda: build_multi_agent_env(3)],
    ids=["flat", "multi_step", "multi_agent"],
)
def test_fake_envs_pass_the_checker(make_env) -> None:
    check_env(make_env(), n_steps=25)


def _actor_cycle(env, n_steps: int) -> list[ActorID]:
    policy = RandomPolicy(env.action_spaces_dict, seed=0)
    obs, _ = env.reset(seed=0)
    actors = [env.actor_id()]
    for _ in range(n_steps):
        obs, _, terminated, truncated, _ = env.step(policy.compute_action(obs, actor_id=env.actor_id()))
        assert not (terminated or truncated)
        actors.append(env.actor_id())
    return actors


def test_flat_env_always_has_actor_zero() -> None:
    env = build_dummy_maze_env()
    assert _actor_cycle(env, 4) == [(0, 0)] * 5
    assert env.agent_counts_dict == {0: 1}
    assert env.get_actor_rewards() is None


def test_multi_step_env_cycles_through_sub_steps() -> None:
    env = build_multi_step_env()
    assert _actor_cycle(env, 4) == [(0, 0), (1, 0), (0, 0), (1, 0), (0, 0)]
    assert env.agent_counts_dict == {0: 1, 1: 1}
    assert env.observation_spaces_dict[0] != env.observation_spaces_dict[1]


def test_multi_step_env_spaces_follow_the_actor() -> None:
    env = build_multi_step_env()
    obs, _ = env.reset(seed=0)
    assert env.actor_id() == (0, 0)
    assert env.observation_space == env.observation_spaces_dict[0] and obs in env.observation_space
    assert env.action_space == env.action_spaces_dict[0]
    obs, reward, *_ = env.step({"item": 1})
    assert env.actor_id() == (1, 0)
    assert env.observation_space == env.observation_spaces_dict[1] and obs in env.observation_space
    assert env.action_space == env.action_spaces_dict[1]
    assert reward == 0.0  # rewards come once per env step, after the last sub-step


def test_multi_agent_env_cycles_through_agents() -> None:
    env = build_multi_agent_env(n_agents=2)
    assert _actor_cycle(env, 4) == [(0, 0), (0, 1), (0, 0), (0, 1), (0, 0)]
    assert env.agent_counts_dict == {0: 2}


def test_get_actor_rewards_splits_the_env_step_reward() -> None:
    env = build_multi_step_env()
    env.reset(seed=0)
    env.step({"item": 0})
    _, reward, *_ = env.step({"position": np.zeros(2, dtype=np.float32)})
    actor_rewards = env.get_actor_rewards()
    assert actor_rewards.shape == (2,)
    assert actor_rewards.sum() == pytest.approx(reward)
    assert reward < 0.0
