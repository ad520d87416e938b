import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env
from maze.env import GymMazeEnv
from maze.env.testing.fake_envs import build_multi_step_env
from maze.env.wrappers.sorted_spaces import SortedSpacesWrapper


class _UnsortedEnv(gym.Env):
    """Dict spaces whose keys are not in alphabetical order; records the last action."""

    def __init__(self):
        box = spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)
        self.observation_space = spaces.Dict([("zeta", box), ("alpha", spaces.Discrete(3)), ("mid", box)])
        self.action_space = spaces.Dict([("turn", spaces.Discrete(2)), ("accelerate", spaces.Discrete(3))])
        self.last_action = None

    def _observation(self):
        return {key: space.sample() for key, space in self.observation_space.spaces.items()}

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.observation_space.seed(seed)
        return self._observation(), {}

    def step(self, action):
        self.last_action = action
        return self._observation(), 0.0, False, False, {}


def _sorted_env():
    inner = GymMazeEnv(_UnsortedEnv())
    return SortedSpacesWrapper(inner), inner


def test_spaces_have_sorted_keys():
    env, inner = _sorted_env()
    assert list(inner.observation_space.spaces) == ["zeta", "alpha", "mid"]
    assert list(env.observation_space.spaces) == ["alpha", "mid", "zeta"]
    assert list(env.action_space.spaces) == ["accelerate", "turn"]
    assert env.observation_space == inner.observation_space  # same entries, other order


def test_observations_and_actions_are_reordered():
    env, inner = _sorted_env()
    observation, _ = env.reset(seed=0)
    assert list(observation) == ["alpha", "mid", "zeta"]
    observation, *_ = env.step({"accelerate": 1, "turn": 0})
    assert list(observation) == ["alpha", "mid", "zeta"]
    assert list(inner.gym_env.last_action) == ["turn", "accelerate"]
    assert inner.gym_env.last_action == {"turn": 0, "accelerate": 1}
    assert list(env.reverse_action({"turn": 1, "accelerate": 2})) == ["accelerate", "turn"]


def test_trajectory_conversion_is_sorted():
    env, inner = _sorted_env()
    env.reset(seed=0)
    observations, actions = env.get_observation_and_action_dicts(
        inner.get_maze_state(), {"turn": 1, "accelerate": 0}, True
    )
    assert list(observations[0]) == ["alpha", "mid", "zeta"]
    assert list(actions[0]) == ["accelerate", "turn"]


def test_multi_step_env_sorts_every_sub_step():
    env = SortedSpacesWrapper(build_multi_step_env())
    for spaces_dict in (env.observation_spaces_dict, env.action_spaces_dict):
        assert set(spaces_dict) == {0, 1}
        for space in spaces_dict.values():
            assert list(space.spaces) == sorted(space.spaces)
    observation, _ = env.reset(seed=0)
    observation, *_ = env.step(env.action_space.sample())
    assert env.actor_id().step_key == 1
    assert list(observation) == ["items", "step"]
    assert observation in env.observation_space


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_check_env():
    check_env(_sorted_env()[0])
