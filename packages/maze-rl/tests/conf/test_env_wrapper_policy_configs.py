"""Every env, wrappers and policy config of maze.conf builds working objects."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from hydra import compose, initialize_config_module
from maze.env import GymMazeEnv, MazeEnv, Policy, RandomPolicy, WrapperFactory, obtain_normalization_statistics
from maze.env.utils.factory import Factory
from maze.env.wrappers.normalization import find_normalization_wrapper

ENVS = [
    "gym_env",
    "tutorial_cutting_2d_basic",
    "tutorial_cutting_2d_events",
    "tutorial_cutting_2d_flat",
    "tutorial_cutting_2d_struct",
    "tutorial_cutting_2d_struct_masked",
]

# wrappers option -> (env option, env steps until the time limit truncates; None: no limit)
WRAPPED_ENVS = {
    "no_wrappers": ("gym_env", None),
    "vector_obs": ("gym_env", None),
    "vector_obs_rnn": ("gym_env", None),
    "tutorial_cutting_2d_basic": ("tutorial_cutting_2d_flat", 200),
    "tutorial_cutting_2d_events": ("tutorial_cutting_2d_events", 200),
    "tutorial_cutting_2d": ("tutorial_cutting_2d_struct_masked", 180),
    "tutorial_cutting_2d_struct": ("tutorial_cutting_2d_struct", 180),
}


@pytest.fixture(autouse=True)
def maze_conf() -> Iterator[None]:
    with initialize_config_module(config_module="maze.conf", version_base="1.3"):
        yield


def build_env(overrides: list[str]) -> Any:
    cfg = compose("conf_rollout", overrides)
    env = Factory(MazeEnv).instantiate(cfg.env)
    return WrapperFactory.wrap_from_config(env, cfg.wrappers)


def run_episode(env: Any, max_steps: int, seed: int = 0) -> tuple[int, bool, list[dict[str, Any]]]:
    """Random actions until the episode ends; returns (env steps, truncated, observations)."""
    policy = RandomPolicy(env.action_spaces_dict, seed=seed)
    observation, _ = env.reset(seed=seed)
    observations = [observation]
    for _ in range(max_steps):
        action = policy.compute_action(observation, actor_id=env.actor_id())
        assert env.action_spaces_dict[env.actor_id().step_key].contains(action)
        observation, reward, terminated, truncated, _ = env.step(action)
        assert np.isfinite(reward)
        observations.append(observation)
        if terminated or truncated:
            return env.get_env_time(), truncated, observations
    return env.get_env_time(), False, observations


@pytest.mark.parametrize("env_option", ENVS)
def test_every_env_config_builds_a_maze_env_that_steps(env_option: str) -> None:
    env = build_env([f"env={env_option}"])
    assert isinstance(env, MazeEnv)
    steps, _, observations = run_episode(env, max_steps=20)
    assert steps > 0
    for observation in observations:
        assert any(space.contains(observation) for space in env.observation_spaces_dict.values())


def test_cutting_envs_have_the_documented_sizes() -> None:
    flat = build_env(["env=tutorial_cutting_2d_flat"])
    assert flat.observation_spaces_dict[0]["inventory"].shape == (200, 2)
    assert flat.core_env.raw_piece_size == (100, 100) and flat.core_env.demand == [(30, 15)]
    struct = build_env(["env=tutorial_cutting_2d_struct"])
    assert struct.observation_spaces_dict[0]["inventory"].shape == (50, 2)
    assert struct.core_env.raw_piece_size == (4, 3)
    assert struct.core_env.demand == [(1, 2), (1, 2), (1, 1), (2, 2), (1, 2), (1, 1)]
    masked = build_env(["env=tutorial_cutting_2d_struct_masked"])
    assert "inventory_mask" in masked.observation_spaces_dict[0].spaces
    assert "inventory_mask" not in struct.observation_spaces_dict[0].spaces


@pytest.mark.parametrize("wrappers", list(WRAPPED_ENVS))
def test_every_wrappers_config_wraps_its_env_and_steps(wrappers: str) -> None:
    env_option, time_limit = WRAPPED_ENVS[wrappers]
    env = build_env([f"env={env_option}", f"wrappers={wrappers}"])
    if wrappers.startswith("vector_obs"):
        obtain_normalization_statistics(env, n_samples=200, seed=1)
    steps, truncated, observations = run_episode(env, max_steps=2 * (time_limit or 50) + 10)
    if time_limit is not None:
        assert (steps, truncated) == (time_limit, True)
    for observation in observations:
        assert any(space.contains(observation) for space in env.observation_spaces_dict.values())


def test_vector_obs_normalizes_and_monitors() -> None:
    env = build_env(["wrappers=vector_obs"])
    wrapper = find_normalization_wrapper(env)
    assert wrapper.statistics_dump == "statistics.npz"
    assert type(env).__name__ == "MazeEnvMonitoringWrapper"
    obtain_normalization_statistics(env, n_samples=500, seed=0)
    _, _, observations = run_episode(env, max_steps=100)
    values = np.stack([observation["observation"] for observation in observations])
    assert np.all(values >= -3) and np.all(values <= 3)
    assert abs(values.mean()) < 1.0


def test_tutorial_cutting_2d_wrappers_scale_sizes_and_keep_masks() -> None:
    env = build_env(["env=tutorial_cutting_2d_struct_masked", "wrappers=tutorial_cutting_2d"])
    selection_space, cutting_space = env.observation_spaces_dict[0], env.observation_spaces_dict[1]
    assert selection_space["inventory-flatten"].shape == (100,)
    assert {"inventory", "inventory_mask", "inventory_size", "ordered_piece"} <= set(selection_space)
    assert {"selected_piece", "ordered_piece", "cutting_mask"} == set(cutting_space)
    _, _, observations = run_episode(env, max_steps=200)
    for observation in observations:
        for key in ("inventory", "inventory-flatten", "ordered_piece", "selected_piece"):
            if key in observation:
                assert 0.0 <= observation[key].min() and observation[key].max() <= 1.0, key
        for key in ("inventory_mask", "cutting_mask"):
            if key in observation:
                assert set(np.unique(observation[key])) <= {0.0, 1.0}, key
    assert any(observation.get("inventory_size", [0])[0] > 1 for observation in observations)  # not normalized


class ImageEnv(gym.Env):
    """A tiny gymnasium env with channel-first uint8 images."""

    observation_space = gym.spaces.Box(0, 255, shape=(3, 8, 8), dtype=np.uint8)
    action_space = gym.spaces.Discrete(2)

    def reset(self, *, seed: Any = None, options: Any = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        return self.observation_space.sample(), {}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        return self.observation_space.sample(), 1.0, False, False, {}


def test_pixel_obs_scales_images_to_the_unit_range_without_estimation() -> None:
    cfg = compose("conf_train", ["wrappers=pixel_obs", "model=pixel_obs"])
    env = WrapperFactory.wrap_from_config(GymMazeEnv(ImageEnv()), cfg.wrappers)
    assert find_normalization_wrapper(env).missing_statistics_keys() == []
    _, _, observations = run_episode(env, max_steps=10)
    image = observations[-1]["observation"]
    assert image.shape == (3, 8, 8) and image.dtype == np.float32
    assert 0.0 <= image.min() and image.max() <= 1.0 and image.max() > 0.5
    assert cfg.model.model_builder.observation_modality_mapping == {"observation": "image"}


def test_random_policy_config_acts_with_the_env_spaces() -> None:
    cfg = compose("conf_rollout", ["env=tutorial_cutting_2d_struct"])
    env = Factory(MazeEnv).instantiate(cfg.env)
    policy = Factory(Policy).instantiate(cfg.policy, action_spaces_dict=env.action_spaces_dict)
    observation, _ = env.reset(seed=0)
    assert env.action_spaces_dict[0].contains(policy.compute_action(observation, actor_id=env.actor_id()))


def test_greedy_policy_config_cuts_the_simple_problem_optimally() -> None:
    cfg = compose("conf_rollout", ["env=tutorial_cutting_2d_struct_masked", "wrappers=tutorial_cutting_2d_basic"])
    env = Factory(MazeEnv).instantiate(cfg.env)
    policy = Factory(Policy).instantiate(compose("conf_rollout", ["policy=tutorial_cutting_2d_greedy_policy"]).policy)
    observation, _ = env.reset(seed=0)
    total = 0.0
    for _ in range(2 * 180):
        observation, reward, _, _, info = env.step(policy.compute_action(observation, actor_id=env.actor_id()))
        assert "error" not in info
        total += reward
    assert total == -30.0  # one raw piece per cycle of six orders, the optimum of the simple problem
