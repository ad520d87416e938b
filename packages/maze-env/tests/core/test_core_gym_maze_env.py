"""GymMazeEnv: dict spaces around plain gymnasium envs, by id or instance."""

from __future__ import annotations

from typing import Any, Optional

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env as gym_check_env
from maze.env import DummyCartPolePolicy, GymMazeEnv, InvalidActionError, MazeEnv, make_gym_maze_env
from maze.env.testing.env_checker import check_env


class TinyEnv(gym.Env):
    """A gymnasium env with a Dict observation and a Tuple action; remembers the last action."""

    observation_space = spaces.Dict(
        {"position": spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32), "flag": spaces.Discrete(2)}
    )
    action_space = spaces.Tuple((spaces.Discrete(3), spaces.Box(-1.0, 1.0, shape=(1,), dtype=np.float32)))

    def __init__(self) -> None:
        self.last_action: Any = None
        self.t = 0

    def _observation(self) -> dict:
        position = self.np_random.uniform(-1.0, 1.0, size=2).astype(np.float32)
        return {"position": position, "flag": int(self.t % 2)}

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        self.t = 0
        return self._observation(), {}

    def step(self, action: tuple) -> tuple[dict, float, bool, bool, dict]:
        self.last_action = action
        self.t += 1
        return self._observation(), float(action[0]), False, self.t >= 10, {}


def test_cartpole_spaces_are_dicts() -> None:
    env = GymMazeEnv("CartPole-v1")
    assert isinstance(env, MazeEnv)
    assert env.observation_space == spaces.Dict({"observation": env.gym_env.observation_space})
    assert env.observation_space["observation"].shape == (4,)
    assert env.action_space == spaces.Dict({"action": spaces.Discrete(2)})
    assert env.observation_spaces_dict == {0: env.observation_space}
    assert env.action_spaces_dict == {0: env.action_space}


def test_cartpole_steps_with_dict_actions() -> None:
    env = GymMazeEnv("CartPole-v1")
    obs, info = env.reset(seed=3)
    assert set(obs) == {"observation"} and obs["observation"].shape == (4,)
    assert isinstance(info, dict)
    obs, reward, terminated, truncated, info = env.step({"action": 0})
    assert obs in env.observation_space
    assert reward == 1.0
    assert terminated is False and truncated is False


def test_cartpole_from_instance_matches_from_id() -> None:
    by_instance = GymMazeEnv(env=gym.make("CartPole-v1"))
    by_id = GymMazeEnv("CartPole-v1")
    assert by_instance.observation_space == by_id.observation_space
    assert by_instance.action_space == by_id.action_space
    first, _ = by_instance.reset(seed=7)
    second, _ = by_id.reset(seed=7)
    np.testing.assert_array_equal(first["observation"], second["observation"])


def test_instance_with_make_kwargs_is_rejected() -> None:
    with pytest.raises(TypeError, match="make"):
        GymMazeEnv(gym.make("CartPole-v1"), max_episode_steps=10)


def test_make_gym_maze_env_forwards_kwargs() -> None:
    env = make_gym_maze_env("CartPole-v1", max_episode_steps=3)
    assert isinstance(env, GymMazeEnv)
    env.reset(seed=0)
    flags = [env.step({"action": step % 2})[3] for step in range(3)]
    assert flags == [False, False, True]


def test_dict_and_tuple_gym_spaces() -> None:
    env = GymMazeEnv(env=TinyEnv())
    assert env.observation_space == TinyEnv.observation_space
    assert env.action_space == spaces.Dict({"action_0": spaces.Discrete(3), "action_1": TinyEnv.action_space[1]})
    obs, _ = env.reset(seed=0)
    assert obs in env.observation_space
    _, reward, _, _, _ = env.step({"action_0": 2, "action_1": np.array([0.5], dtype=np.float32)})
    inner_action = env.gym_env.last_action
    assert isinstance(inner_action, tuple) and inner_action[0] == 2
    np.testing.assert_array_equal(inner_action[1], [0.5])
    assert reward == 2.0


def test_tuple_action_conversion_round_trips() -> None:
    env = GymMazeEnv(env=TinyEnv())
    conversion = env.action_conversion
    action = {"action_0": 1, "action_1": np.array([0.25], dtype=np.float32)}
    assert conversion.maze_to_space(conversion.space_to_maze(action, None)) == action


@pytest.mark.parametrize("make_env", [lambda: GymMazeEnv("CartPole-v1"), lambda: GymMazeEnv(env=TinyEnv())])
def test_gymnasium_and_project_checkers_pass(make_env: Any) -> None:
    gym_check_env(make_env(), skip_render_check=True)
    check_env(make_env(), n_steps=30)


def _run_episode(env: GymMazeEnv, policy: Any, seed: int) -> tuple[float, bool, bool]:
    obs, _ = env.reset(seed=seed)
    total = 0.0
    while True:
        obs, reward, terminated, truncated, _ = env.step(policy(obs))
        total += reward
        if terminated or truncated:
            return total, terminated, truncated


def test_termination_and_truncation_are_kept_apart() -> None:
    env = GymMazeEnv("CartPole-v1")
    total, terminated, truncated = _run_episode(env, lambda obs: {"action": 0}, seed=0)
    assert terminated is True and truncated is False
    assert total < 50
    total, terminated, truncated = _run_episode(env, DummyCartPolePolicy().compute_action, seed=1)
    assert truncated is True and terminated is False
    assert total == 500.0


def test_unknown_env_id_gives_a_clear_error() -> None:
    with pytest.raises(gym.error.Error, match="could not make the gymnasium env 'NoSuchEnv-v0'.*Check the id"):
        GymMazeEnv("NoSuchEnv-v0")


def test_action_outside_the_space_names_action_and_space() -> None:
    env = GymMazeEnv("CartPole-v1")
    env.reset(seed=0)
    with pytest.raises(InvalidActionError, match=r"\{'action': 5\}.*outside the action space.*Discrete\(2\)"):
        env.step({"action": 5})
    with pytest.raises(InvalidActionError, match="'wrong_key'"):
        env.step({"wrong_key": 0})
