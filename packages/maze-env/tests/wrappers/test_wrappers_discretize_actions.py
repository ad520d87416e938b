import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env
from maze.env import GymMazeEnv
from maze.env.errors import ConfigurationError, InvalidActionError
from maze.env.testing.fake_envs import build_dummy_maze_env, build_multi_step_env
from maze.env.wrappers.discretize_actions import DiscretizeActionsWrapper


class _UnboundedEnv(gym.Env):
    """Plain gymnasium env with an unbounded Box action."""

    observation_space = spaces.Box(0.0, 1.0, shape=(1,), dtype=np.float32)
    action_space = spaces.Box(-np.inf, np.inf, shape=(2,), dtype=np.float32)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return np.zeros(1, np.float32), {}

    def step(self, action):
        return np.zeros(1, np.float32), 0.0, False, False, {}


def test_pendulum_action_becomes_discrete_with_inclusive_bins():
    env = DiscretizeActionsWrapper(GymMazeEnv("Pendulum-v1"), {"action": {"num_bins": 5}})
    assert env.action_space == spaces.Dict({"action": spaces.Discrete(5)})
    values = [env.action({"action": index})["action"] for index in range(5)]
    np.testing.assert_allclose(np.concatenate(values), [-2.0, -1.0, 0.0, 1.0, 2.0])
    assert values[0].shape == (1,) and values[0].dtype == np.float32
    env.reset(seed=0)
    observation, reward, *_ = env.step({"action": 4})
    assert observation in env.observation_space and reward <= 0.0


def test_configured_bounds_and_reverse_mapping():
    env = DiscretizeActionsWrapper(GymMazeEnv("Pendulum-v1"), {"action": {"num_bins": 3, "low": -1.0, "high": 1.0}})
    np.testing.assert_allclose(env.action({"action": 0})["action"], [-1.0])
    np.testing.assert_allclose(env.action({"action": 2})["action"], [1.0])
    assert env.reverse_action({"action": np.array([0.4], np.float32)}) == {"action": 1}
    assert env.reverse_action({"action": np.array([1.9], np.float32)}) == {"action": 2}


def test_multi_element_box_becomes_multi_discrete():
    env = DiscretizeActionsWrapper(build_dummy_maze_env(), {"continuous": {"num_bins": 5}})
    assert env.action_space["continuous"] == spaces.MultiDiscrete([5, 5])
    assert env.action_space["discrete"] == spaces.Discrete(3)
    np.testing.assert_allclose(env.action({"continuous": np.array([0, 3])} | _others())["continuous"], [-1.0, 0.5])
    back = env.reverse_action({"continuous": np.array([0.49, -0.8], np.float32)} | _others())
    np.testing.assert_array_equal(back["continuous"], [3, 0])


def _others():
    return {"discrete": 0, "binary": np.zeros(3, np.int8)}


def test_applies_to_the_sub_step_that_has_the_action():
    env = DiscretizeActionsWrapper(build_multi_step_env(), {"position": {"num_bins": 3}})
    assert env.action_spaces_dict[0] == build_multi_step_env().action_spaces_dict[0]
    assert env.action_spaces_dict[1]["position"] == spaces.MultiDiscrete([3, 3])
    env.reset(seed=0)
    env.step(env.action_space.sample())
    assert env.actor_id().step_key == 1
    env.step(env.action_space.sample())


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"position": {"num_bins": 3}}, "'position' exists in no sub-step"),
        ({"discrete": {"num_bins": 3}}, "can only discretize Box actions"),
        ({"continuous": {"num_bins": 1}}, "num_bins: <int >= 2>"),
        ({"continuous": {"num_bins": 3, "bins": 2}}, "num_bins: <int >= 2>"),
        ({"continuous": {"num_bins": 3, "low": -3.0}}, "within the Box bounds"),
        ({"continuous": {"num_bins": 3, "low": 0.5, "high": 0.5}}, "low < high"),
    ],
)
def test_bad_configs_are_rejected(config, message):
    with pytest.raises(ConfigurationError, match=message):
        DiscretizeActionsWrapper(build_dummy_maze_env(), config)


def test_infinite_bounds_need_explicit_low_and_high():
    with pytest.raises(ConfigurationError, match="infinite low bound; set 'low'"):
        DiscretizeActionsWrapper(GymMazeEnv(_UnboundedEnv()), {"action": {"num_bins": 3}})
    env = DiscretizeActionsWrapper(GymMazeEnv(_UnboundedEnv()), {"action": {"num_bins": 3, "low": -4, "high": [4, 8]}})
    np.testing.assert_allclose(env.action({"action": np.array([2, 1])})["action"], [4.0, 2.0])


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_check_env():
    check_env(DiscretizeActionsWrapper(GymMazeEnv("Pendulum-v1"), {"action": {"num_bins": 7}}))


@pytest.mark.parametrize("index", [-1, 5, 7, 1.0, np.array([[1]])])
def test_bin_indices_outside_the_discrete_space_are_rejected(index):
    env = DiscretizeActionsWrapper(GymMazeEnv("Pendulum-v1"), {"action": {"num_bins": 5}})
    with pytest.raises(InvalidActionError, match=r"action 'action' is .*Discrete\(5\).*\[0, 4\]"):
        env.action({"action": index})
    np.testing.assert_allclose(env.action({"action": np.int64(4)})["action"], [2.0])


@pytest.mark.parametrize("indices", [np.array([-1, 0]), np.array([0, 3]), np.array([0]), np.array([0.0, 1.0])])
def test_bin_indices_outside_the_multi_discrete_space_are_rejected(indices):
    env = DiscretizeActionsWrapper(build_dummy_maze_env(), {"continuous": {"num_bins": 3}})
    with pytest.raises(InvalidActionError, match=r"action 'continuous' is .*2 bin indices in \[0, 2\]"):
        env.action({"continuous": indices} | _others())


def test_missing_action_key_and_non_mapping_config_are_named():
    env = DiscretizeActionsWrapper(GymMazeEnv("Pendulum-v1"), {"action": {"num_bins": 5}})
    with pytest.raises(InvalidActionError, match=r"lacks the key 'action'"):
        env.action({})
    with pytest.raises(ConfigurationError, match=r"discretization_config must be a mapping"):
        DiscretizeActionsWrapper(GymMazeEnv("Pendulum-v1"), None)
    with pytest.raises(ConfigurationError, match=r"config of 'action' must be \{num_bins"):
        DiscretizeActionsWrapper(GymMazeEnv("Pendulum-v1"), {"action": 5})
