"""RolloutCollector: slot buffers, the interleaved timeline, truncation bootstrapping data, continued episodes."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from maze.env.core.actor import ActorID
from maze.env.errors import ConfigurationError
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.train.rollout import RolloutCollector
from train_test_support import FAKE_ENVS, ZeroPolicy

LIMIT = 5
"""CartPole's episode limit in these tests: with push-left actions every episode is truncated after 5 steps."""

SEEDS = [3, 4]


def cartpole() -> GymMazeEnv:
    return GymMazeEnv("CartPole-v1", max_episode_steps=LIMIT)


def reference_observations(seed: int, steps: int) -> np.ndarray:
    """The observations of a plain gymnasium CartPole pushed left ``steps`` times after ``reset(seed)``."""
    env = gym.make("CartPole-v1")
    observations = [env.reset(seed=seed)[0]]
    observations.extend(env.step(0)[0] for _ in range(steps))
    env.close()
    return np.array(observations)


@pytest.mark.parametrize("copy_observations", [True, False])
def test_flat_env_shapes_flags_and_final_observations(vector_env, copy_observations: bool) -> None:
    env = vector_env(cartpole, copy_observations=copy_observations)
    collector = RolloutCollector(env, n_steps=7, seeds=SEEDS)
    policy = ZeroPolicy(env.action_spaces_dict)

    rollout = collector.collect(policy)

    [slot] = rollout.substeps
    assert (rollout.n_slots, rollout.n_steps, rollout.n_envs) == (1, 7, 2)
    assert slot.actor_id == ActorID(0, 0)
    assert slot.observations["observation"].shape == (7, 2, 4)
    assert slot.actions["action"].shape == (7, 2)
    assert rollout.rewards.shape == rollout.terminated.shape == rollout.truncated.shape == (7, 2)
    np.testing.assert_array_equal(rollout.rewards, 1.0)
    assert not rollout.terminated.any()
    np.testing.assert_array_equal(rollout.truncated.nonzero()[0], [LIMIT - 1, LIMIT - 1])
    assert rollout.env_step_ends().all()
    assert collector.env_steps == 14
    assert policy.actor_ids == [ActorID(0, 0)] * 7
    for env_index, seed in enumerate(SEEDS):
        expected = reference_observations(seed, LIMIT)
        np.testing.assert_allclose(slot.observations["observation"][:LIMIT, env_index], expected[:LIMIT])
        # The episode was cut off at the observation after the 5th step; the buffer shows the reset instead.
        call, index, final = rollout.final_observations[env_index]
        assert (call, index) == (LIMIT - 1, env_index)
        np.testing.assert_allclose(final["observation"], expected[LIMIT])
        assert not np.allclose(slot.observations["observation"][LIMIT, env_index], expected[LIMIT])
    # The rollout keeps its own copy of what the envs show next (the env may reuse its buffers).
    shown = rollout.next_observation["observation"].copy()
    assert shown.shape == (2, 4)
    env.step({"action": np.ones(2, dtype=np.int64)})
    np.testing.assert_array_equal(rollout.next_observation["observation"], shown)


def test_consecutive_collects_continue_the_episodes(vector_env) -> None:
    env = vector_env(cartpole)
    collector = RolloutCollector(env, n_steps=3, seeds=SEEDS)
    policy = ZeroPolicy(env.action_spaces_dict)

    first = collector.collect(policy)
    second = collector.collect(policy)

    assert collector.env_steps == 12
    # Steps 3 and 4 of the first episodes: the truncation (step 5) is the second call of the second rollout.
    np.testing.assert_array_equal(second.truncated.nonzero()[0], [1, 1])
    assert not first.truncated.any()
    for env_index, seed in enumerate(SEEDS):
        expected = reference_observations(seed, LIMIT)
        np.testing.assert_allclose(first.next_observation["observation"][env_index], expected[3])
        np.testing.assert_allclose(second.substeps[0].observations["observation"][:2, env_index], expected[3:5])
        np.testing.assert_allclose(second.final_observations[env_index][2]["observation"], expected[LIMIT])
    # Every rollout has its own arrays.
    assert not np.shares_memory(
        first.substeps[0].observations["observation"], second.substeps[0].observations["observation"]
    )


@pytest.mark.parametrize(
    ("env_name", "actor_ids", "observation_keys", "action_shapes"),
    [
        (
            "multi_step",
            [ActorID(0, 0), ActorID(1, 0)],
            [["items"], ["items", "step"]],
            [{"item": (4, 2)}, {"position": (4, 2, 2)}],
        ),
        (
            "multi_agent",
            [ActorID(0, 0), ActorID(0, 1)],
            [["observation", "agent"]] * 2,
            [{"action": (4, 2)}] * 2,
        ),
    ],
)
def test_structured_envs_fill_one_slot_per_sub_step(
    vector_env, env_name, actor_ids, observation_keys, action_shapes
) -> None:
    env = vector_env(lambda: FAKE_ENVS[env_name](max_steps=3))
    collector = RolloutCollector(env, n_steps=4, seeds=SEEDS)
    policy = ZeroPolicy(env.action_spaces_dict)

    rollout = collector.collect(policy)

    assert (rollout.n_slots, rollout.n_steps, rollout.n_envs) == (2, 4, 2)
    assert [slot.actor_id for slot in rollout.substeps] == actor_ids
    assert policy.actor_ids == actor_ids * 4
    for slot, keys, shapes in zip(rollout.substeps, observation_keys, action_shapes, strict=True):
        assert sorted(slot.observations) == sorted(keys)
        assert all(array.shape[:2] == (4, 2) for array in slot.observations.values())
        assert {key: array.shape for key, array in slot.actions.items()} == shapes
    assert rollout.rewards.shape == rollout.truncated.shape == (8, 2)
    np.testing.assert_array_equal(rollout.env_step_ends(), [False, True] * 4)
    # The env-step reward arrives with the last sub-step; the episode is truncated after 3 env steps (call 5).
    assert not rollout.rewards[0::2].any()
    assert (rollout.rewards[1::2] < 0).all()
    np.testing.assert_array_equal(rollout.truncated.nonzero()[0], [5, 5])
    assert [(call, index) for call, index, _ in rollout.final_observations] == [(5, 0), (5, 1)]
    assert rollout.next_actor_id == actor_ids[0]
    assert collector.env_steps == 8


def test_multi_step_observations_follow_the_env_time(vector_env) -> None:
    env = vector_env(lambda: FAKE_ENVS["multi_step"](max_steps=3))
    rollout = RolloutCollector(env, n_steps=5, seeds=SEEDS).collect(ZeroPolicy(env.action_spaces_dict))
    # Sub-step 1 sees the env time: 0, 1, 2, then the new episode after the truncation.
    np.testing.assert_array_equal(
        rollout.substeps[1].observations["step"][..., 0], [[0, 0], [1, 1], [2, 2], [0, 0], [1, 1]]
    )


def test_multi_agent_slots_see_their_agent(vector_env) -> None:
    env = vector_env(lambda: FAKE_ENVS["multi_agent"](max_steps=3))
    rollout = RolloutCollector(env, n_steps=3, seeds=SEEDS).collect(ZeroPolicy(env.action_spaces_dict))
    for agent, slot in enumerate(rollout.substeps):
        np.testing.assert_array_equal(slot.observations["agent"], agent)


def test_seeded_collectors_repeat_their_rollouts(vector_env) -> None:
    rollouts = [
        RolloutCollector(env := vector_env(lambda: FAKE_ENVS["dummy"](max_steps=3)), n_steps=4, seeds=SEEDS).collect(
            ZeroPolicy(env.action_spaces_dict)
        )
        for _ in range(2)
    ]
    np.testing.assert_array_equal(rollouts[0].rewards, rollouts[1].rewards)
    np.testing.assert_array_equal(
        rollouts[0].substeps[0].observations["observation"], rollouts[1].substeps[0].observations["observation"]
    )


def test_rejects_rollouts_without_steps(vector_env) -> None:
    with pytest.raises(ConfigurationError, match="n_rollout_steps must be at least 1"):
        RolloutCollector(vector_env(cartpole), n_steps=0)
