import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env
from maze.env import GymMazeEnv
from maze.env.errors import ConfigurationError
from maze.env.testing.fake_envs import build_dummy_maze_env, build_multi_step_env
from maze.env.wrappers.observation_stack import ObservationStackWrapper


def _stacked_cartpole(**entry):
    config = {"observation": "observation", "stack_steps": 3, "tag": "stack", "keep_original": True} | entry
    return ObservationStackWrapper(GymMazeEnv("CartPole-v1"), stack_config=[config])


def _run(env, steps):
    """Observations of a reset plus ``steps`` steps."""
    observations = [env.reset(seed=0)[0]]
    for step in range(steps):
        observations.append(env.step({"action": step % 2})[0])
    return observations


def test_stack_holds_the_last_observations_zero_padded():
    env = _stacked_cartpole()
    observations = _run(env, 4)
    raw = [obs["observation"] for obs in observations]
    assert observations[0]["observation-stack"].shape == (3, 4)
    np.testing.assert_array_equal(observations[0]["observation-stack"], np.stack([np.zeros(4), np.zeros(4), raw[0]]))
    np.testing.assert_array_equal(observations[1]["observation-stack"], np.stack([np.zeros(4), raw[0], raw[1]]))
    np.testing.assert_array_equal(observations[4]["observation-stack"], np.stack(raw[2:5]))
    assert all(obs in env.observation_space for obs in observations)


def test_delta_stack_holds_differences_to_the_newest():
    env = _stacked_cartpole(delta=True)
    observations = _run(env, 3)
    raw = [obs["observation"] for obs in observations]
    np.testing.assert_allclose(observations[1]["observation-stack"], np.stack([np.zeros(4), raw[0] - raw[1], raw[1]]))
    np.testing.assert_allclose(
        observations[3]["observation-stack"], np.stack([raw[1] - raw[3], raw[2] - raw[3], raw[3]])
    )
    assert all(obs in env.observation_space for obs in observations)


def test_output_keys_follow_tag_and_keep_original():
    assert list(_stacked_cartpole().observation_space.spaces) == ["observation", "observation-stack"]
    assert list(_stacked_cartpole(keep_original=False).reset(seed=0)[0]) == ["observation-stack"]
    untagged = ObservationStackWrapper(GymMazeEnv("CartPole-v1"), [{"observation": "observation", "stack_steps": 4}])
    assert list(untagged.observation_space.spaces) == ["observation"]
    assert untagged.observation_space["observation"].shape == (4, 4)
    assert untagged.reset(seed=0)[0]["observation"].shape == (4, 4)


def test_space_bounds_include_padding_and_differences():
    plain = ObservationStackWrapper(build_dummy_maze_env(), [{"observation": "action_mask", "stack_steps": 2}])
    assert plain.observation_space["action_mask"] == spaces.Box(0.0, 1.0, shape=(2, 3), dtype=np.float32)
    delta = ObservationStackWrapper(
        build_dummy_maze_env(), [{"observation": "action_mask", "stack_steps": 2, "delta": True}]
    )
    np.testing.assert_array_equal(delta.observation_space["action_mask"].low, [[-1.0] * 3, [0.0] * 3])
    np.testing.assert_array_equal(delta.observation_space["action_mask"].high, [[1.0] * 3, [1.0] * 3])


def test_returns_fresh_arrays_and_reset_clears_the_history():
    env = _stacked_cartpole()
    first = env.reset(seed=0)[0]["observation-stack"]
    first[:] = 42.0
    second = env.step({"action": 0})[0]["observation-stack"]
    assert not np.any(second == 42.0)
    env.step({"action": 1})
    after_reset = env.reset(seed=1)[0]["observation-stack"]
    np.testing.assert_array_equal(after_reset[:2], np.zeros((2, 4)))


def test_multi_step_env_keeps_a_history_per_sub_step():
    env = ObservationStackWrapper(
        build_multi_step_env(), [{"observation": "step", "stack_steps": 2}, {"observation": "items", "stack_steps": 2}]
    )
    assert env.observation_spaces_dict[0]["items"].shape == (2, 4)
    assert env.observation_spaces_dict[1]["step"].shape == (2, 1)
    pick_0, _ = env.reset(seed=0)
    place_0 = env.step(env.action_space.sample())[0]
    pick_1 = env.step(env.action_space.sample())[0]
    place_1 = env.step(env.action_space.sample())[0]
    np.testing.assert_array_equal(pick_1["items"][0], pick_0["items"][1])
    np.testing.assert_array_equal(place_1["items"][0], place_0["items"][1])
    np.testing.assert_array_equal(place_1["step"][:, 0], [0.0, 1.0])
    assert place_1 in env.observation_spaces_dict[1]


def test_trajectory_conversion_uses_its_own_history():
    inner = GymMazeEnv("CartPole-v1")
    env = ObservationStackWrapper(inner, [{"observation": "observation", "stack_steps": 2}])
    live = [env.reset(seed=0)[0]]
    states = [inner.get_maze_state()]
    for _ in range(2):
        live.append(env.step({"action": 0})[0])
        states.append(inner.get_maze_state())
    converted = [
        env.get_observation_and_action_dicts(state, None, index == 0)[0][0] for index, state in enumerate(states)
    ]
    for live_obs, converted_obs in zip(live, converted, strict=True):
        np.testing.assert_array_equal(live_obs["observation"], converted_obs["observation"])


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"observation": "velocity", "stack_steps": 2}, "'velocity' exists in no sub-step.*'observation'"),
        ({"observation": "observation", "stack_steps": 2, "keep_original": True}, "no tag"),
        ({"observation": "observation", "stack_steps": 0}, "stack_steps must be an int >= 1"),
        ({"observation": "observation"}, "needs 'observation' and 'stack_steps'"),
        ({"observation": "observation", "stack_steps": 2, "steps": 3}, "unknown keys: \\['steps'\\]"),
    ],
)
def test_bad_configs_are_rejected(entry, message):
    with pytest.raises(ConfigurationError, match=message):
        ObservationStackWrapper(GymMazeEnv("CartPole-v1"), [entry])


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("delta", [False, True])
def test_check_env(delta):
    check_env(_stacked_cartpole(delta=delta))


def test_only_box_observations_can_be_stacked():
    with pytest.raises(ConfigurationError, match="can only stack Box observations.*Discrete\\(16\\)"):
        ObservationStackWrapper(GymMazeEnv("FrozenLake-v1"), [{"observation": "observation", "stack_steps": 2}])
