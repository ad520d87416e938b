import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env
from maze.env import GymMazeEnv
from maze.env.errors import ConfigurationError, InvalidActionError
from maze.env.testing.fake_envs import build_dummy_maze_env, build_multi_step_env
from maze.env.wrappers.split_actions import SplitActionsWrapper

UP_DOWN = {"binary": {"action_up": {"indices": [0]}, "action_down": {"indices": [1, 2]}}}


class _MultiDiscreteEnv(gym.Env):
    """Plain gymnasium env with a MultiDiscrete action; records the last action."""

    observation_space = spaces.Box(0.0, 1.0, shape=(2,), dtype=np.float32)
    action_space = spaces.MultiDiscrete([2, 3, 4, 5])

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return self.np_random.random(2, dtype=np.float32), {}

    def step(self, action):
        self.last_action = action
        return self.np_random.random(2, dtype=np.float32), 0.0, False, False, {}


def test_multi_binary_split_spaces_and_round_trip():
    env = SplitActionsWrapper(build_dummy_maze_env(), split_config=UP_DOWN)
    assert set(env.action_space.spaces) == {"discrete", "continuous", "action_up", "action_down"}
    assert env.action_space["action_up"] == spaces.MultiBinary(1)
    assert env.action_space["action_down"] == spaces.MultiBinary(2)
    action = {"discrete": 1, "continuous": np.zeros(2, np.float32), "action_up": [1], "action_down": [0, 1]}
    merged = env.action(action)
    np.testing.assert_array_equal(merged["binary"], [1, 0, 1])
    assert merged["binary"].dtype == np.int8 and "action_up" not in merged
    assert merged in build_dummy_maze_env().action_space
    split = env.reverse_action(merged)
    np.testing.assert_array_equal(split["action_up"], [1])
    np.testing.assert_array_equal(split["action_down"], [0, 1])
    assert split in env.action_space


def test_multi_discrete_split_with_unordered_indices():
    env = SplitActionsWrapper(
        GymMazeEnv(_MultiDiscreteEnv()), {"action": {"odd": {"indices": [3, 1]}, "even": {"indices": [0, 2]}}}
    )
    assert env.action_space["odd"] == spaces.MultiDiscrete([5, 3])
    assert env.action_space["even"] == spaces.MultiDiscrete([2, 4])
    env.reset(seed=0)
    env.step({"odd": np.array([4, 2]), "even": np.array([1, 3])})
    np.testing.assert_array_equal(env.unwrapped.core_env.env.last_action, [1, 2, 3, 4])


def test_box_split_in_the_sub_step_that_has_the_action():
    env = SplitActionsWrapper(build_multi_step_env(), {"position": {"x": {"indices": [0]}, "y": {"indices": [1]}}})
    assert env.action_spaces_dict[0] == spaces.Dict({"item": spaces.Discrete(4)})
    assert env.action_spaces_dict[1] == spaces.Dict(
        {"x": spaces.Box(-1.0, 1.0, (1,), np.float32), "y": spaces.Box(-1.0, 1.0, (1,), np.float32)}
    )
    env.reset(seed=0)
    env.step({"item": 2})
    assert env.actor_id().step_key == 1
    assert set(env.action_space.spaces) == {"x", "y"}
    merged = env.action({"x": np.array([0.25], np.float32), "y": np.array([-0.5], np.float32)})
    np.testing.assert_array_equal(merged["position"], [0.25, -0.5])
    env.step(env.action_space.sample())


@pytest.mark.parametrize(
    ("split", "message"),
    [
        ({"a": {"indices": [0]}, "b": {"indices": [1]}}, "missing \\[2\\]"),
        ({"a": {"indices": [0, 1]}, "b": {"indices": [1, 2]}}, "duplicated \\[1\\]"),
        ({"a": {"indices": [0, 1, 2]}, "b": {"indices": [3]}}, "out of range \\[3\\]"),
        ({"a": {"index": [0, 1, 2]}}, "must be \\{indices"),
        ({"discrete": {"indices": [0]}, "b": {"indices": [1, 2]}}, "clashes"),
    ],
)
def test_bad_index_sets_are_rejected(split, message):
    with pytest.raises(ConfigurationError, match=message):
        SplitActionsWrapper(build_dummy_maze_env(), {"binary": split})


def test_unknown_or_unsplittable_actions_are_rejected():
    with pytest.raises(ConfigurationError, match="'steer' exists in no sub-step.*'binary', 'continuous', 'discrete'"):
        SplitActionsWrapper(build_dummy_maze_env(), {"steer": {"a": {"indices": [0]}}})
    with pytest.raises(ConfigurationError, match="can only split.*Discrete\\(3\\)"):
        SplitActionsWrapper(build_dummy_maze_env(), {"discrete": {"a": {"indices": [0]}}})


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_check_env():
    check_env(SplitActionsWrapper(build_dummy_maze_env(), split_config=UP_DOWN))


def test_missing_or_misshaped_sub_actions_are_rejected_listing_the_sub_actions():
    env = SplitActionsWrapper(build_dummy_maze_env(), split_config=UP_DOWN)
    base = {"discrete": 1, "continuous": np.zeros(2, np.float32)}
    expected = r"'binary' needs the sub-actions 'action_up' of shape \(1,\), 'action_down' of shape \(2,\)"
    with pytest.raises(
        InvalidActionError, match=rf"'action_down' of sub-step 0 is missing; the split action {expected}"
    ):
        env.action(base | {"action_up": [1]})
    with pytest.raises(InvalidActionError, match=r"'action_down' of sub-step 0 has the shape \(1,\)"):
        env.action(base | {"action_up": [1], "action_down": [1]})  # would broadcast silently
    with pytest.raises(InvalidActionError, match=r"'action_up' of sub-step 0 has the shape \(\)"):
        env.action(base | {"action_up": 1, "action_down": [1, 0]})


def test_non_mapping_config_and_non_int_indices_are_rejected():
    with pytest.raises(ConfigurationError, match=r"SplitActionsWrapper: split_config must be a mapping"):
        SplitActionsWrapper(build_dummy_maze_env(), split_config=None)
    fractional = {"binary": {"action_up": {"indices": [0.5]}, "action_down": {"indices": [1, 2]}}}
    with pytest.raises(ConfigurationError, match=r"binary.action_up must be \{indices: \[<non-empty list of ints>\]\}"):
        SplitActionsWrapper(build_dummy_maze_env(), split_config=fractional)
