"""RandomPolicy, DummyCartPolePolicy and DefaultPolicy."""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np
import pytest
from maze.env import ActorID, DefaultPolicy, DummyCartPolePolicy, FlatPolicy, GymMazeEnv, RandomPolicy
from maze.env.testing.fake_envs import build_dummy_maze_env, build_multi_step_env
from maze.env.utils.spaces import seed_spaces


class ConstantPolicy(FlatPolicy):
    """Always returns the same action; remembers the seed it got."""

    def __init__(self, action: dict[str, Any]) -> None:
        self.action = action
        self.seeded_with: Optional[int] = None

    def seed(self, seed: int) -> None:
        self.seeded_with = seed

    def compute_action(self, observation: dict[str, Any], deterministic: bool = False) -> dict[str, Any]:
        return self.action

    def compute_top_action_candidates(
        self, observation: dict[str, Any], num_candidates: Optional[int]
    ) -> tuple[Sequence[dict[str, Any]], Sequence[float]]:
        return [self.action], [1.0]


def test_random_policy_samples_from_the_actor_space() -> None:
    env = build_dummy_maze_env()
    obs, _ = env.reset(seed=0)
    policy = RandomPolicy(env.action_spaces_dict)
    for _ in range(5):
        assert policy.compute_action(obs, actor_id=ActorID(0, 0)) in env.action_spaces_dict[0]
    assert policy.compute_action(obs) in env.action_spaces_dict[0]


def test_random_policy_follows_the_sub_step() -> None:
    env = build_multi_step_env()
    policy = RandomPolicy(env.action_spaces_dict, seed=1)
    assert set(policy.compute_action({}, actor_id=ActorID(0, 0))) == {"item"}
    assert set(policy.compute_action({}, actor_id=ActorID(1, 0))) == {"position"}
    with pytest.raises(KeyError, match="no action space for sub-step 7.*knows \\[0, 1\\]"):
        policy.compute_action({}, actor_id=ActorID(7, 0))


def test_random_policy_seeding_is_deterministic() -> None:
    def actions(seed: int) -> list[int]:
        policy = RandomPolicy(GymMazeEnv("CartPole-v1").action_spaces_dict, seed=seed)
        return [int(policy.compute_action({}, actor_id=ActorID(0, 0))["action"]) for _ in range(30)]

    assert actions(5) == actions(5)
    assert actions(5) != actions(6)


def test_random_policy_top_candidates() -> None:
    env = build_dummy_maze_env()
    policy = RandomPolicy(env.action_spaces_dict, seed=0)
    candidates, probabilities = policy.compute_top_action_candidates({}, 4, actor_id=ActorID(0, 0))
    assert len(candidates) == 4 and len(probabilities) == 4
    assert all(candidate in env.action_spaces_dict[0] for candidate in candidates)
    assert sum(probabilities) == pytest.approx(1.0)


def _mean_return(env: GymMazeEnv, policy: Any, n_episodes: int = 10) -> float:
    returns = []
    for episode in range(n_episodes):
        obs, _ = env.reset(seed=episode)
        total, done = 0.0, False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(policy.compute_action(obs, actor_id=env.actor_id()))
            total += reward
            done = terminated or truncated
        returns.append(total)
    return float(np.mean(returns))


def test_dummy_cartpole_policy_beats_random() -> None:
    env = GymMazeEnv("CartPole-v1")
    heuristic = _mean_return(env, DummyCartPolePolicy())
    random = _mean_return(env, RandomPolicy(env.action_spaces_dict, seed=0))
    assert random < 60
    assert heuristic > 200
    assert heuristic > 5 * random


def test_default_policy_dispatches_by_step_key() -> None:
    pick, place = ConstantPolicy({"item": 3}), ConstantPolicy({"position": np.zeros(2, dtype=np.float32)})
    policy = DefaultPolicy({0: pick, 1: place})
    env = build_multi_step_env()
    obs, _ = env.reset(seed=0)
    for _ in range(4):
        action = policy.compute_action(obs, actor_id=env.actor_id())
        expected = pick if env.actor_id().step_key == 0 else place
        assert action is expected.action
        obs, *_ = env.step(action)
    assert policy.compute_top_action_candidates(obs, 1, actor_id=ActorID(1, 0)) == ([place.action], [1.0])
    policy.seed(10)
    assert (pick.seeded_with, place.seeded_with) == (10, 11)


def test_default_policy_errors() -> None:
    policy = DefaultPolicy({0: ConstantPolicy({"item": 0}), 1: ConstantPolicy({"item": 1})})
    with pytest.raises(KeyError, match="no policy for sub-step 'missing'.*\\[0, 1\\]"):
        policy.compute_action({}, actor_id=ActorID("missing", 0))
    with pytest.raises(ValueError, match="pass actor_id"):
        policy.compute_action({})
    single = DefaultPolicy({0: ConstantPolicy({"item": 2})})
    assert single.compute_action({}) == {"item": 2}


def test_policies_need_actor_id_when_there_are_several_sub_steps() -> None:
    env = build_multi_step_env()
    random_policy = RandomPolicy(env.action_spaces_dict, seed=0)
    default_policy = DefaultPolicy({0: ConstantPolicy({"item": 0}), 1: ConstantPolicy({"item": 1})})
    for policy, kind in ((random_policy, "action space"), (default_policy, "policy")):
        with pytest.raises(ValueError, match=rf"has one {kind} per sub-step \(sub-steps \[0, 1\]\); pass actor_id"):
            policy.compute_action({})
        with pytest.raises(ValueError, match="pass actor_id"):
            policy.compute_top_action_candidates({}, 2)
    flat = RandomPolicy(GymMazeEnv("CartPole-v1").action_spaces_dict, seed=0)
    assert flat.compute_action({}) in GymMazeEnv("CartPole-v1").action_space  # one sub-step needs no actor_id


def test_seed_spaces_gives_each_item_its_own_offset() -> None:
    policies = [ConstantPolicy({}) for _ in range(3)]
    seed_spaces(policies, 7)
    assert [policy.seeded_with for policy in policies] == [7, 8, 9]
    env = build_multi_step_env()
    first, second = RandomPolicy(env.action_spaces_dict, seed=3), RandomPolicy(env.action_spaces_dict)
    second.seed(3)
    for step_key in (0, 1):
        actor = ActorID(step_key, 0)
        for _ in range(5):
            a, b = first.compute_action({}, actor_id=actor), second.compute_action({}, actor_id=actor)
            assert all(np.array_equal(a[key], b[key]) for key in a)
