import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env
from maze.env import ActorID, GymMazeEnv, ObservationWrapper
from maze.env.errors import ConfigurationError
from maze.env.testing.env_checker import check_env as maze_check_env
from maze.env.testing.fake_envs import build_dummy_maze_env, build_multi_step_env
from maze.env.vector.sequential import SequentialVectorEnv
from maze.env.wrappers.dict_spaces import (
    DictActionWrapper,
    DictObservationWrapper,
    NoDictActionWrapper,
    NoDictObservationWrapper,
    NoDictSpacesWrapper,
)

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


class _TupleActionEnv(gym.Env):
    """Plain gymnasium env with a Tuple action space; records the last action."""

    observation_space = spaces.Box(0.0, 1.0, shape=(3,), dtype=np.float32)
    action_space = spaces.Tuple((spaces.Discrete(2), spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)))

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return self.np_random.random(3, dtype=np.float32), {}

    def step(self, action):
        self.last_action = action
        return self.np_random.random(3, dtype=np.float32), 1.0, False, False, {}


def test_no_dict_spaces_on_cartpole_is_a_plain_gymnasium_env():
    env = NoDictSpacesWrapper(GymMazeEnv("CartPole-v1"))
    assert env.observation_space == spaces.Box(
        env.observation_space.low, env.observation_space.high, shape=(4,), dtype=np.float32
    )
    assert env.action_space == spaces.Discrete(2)
    observation, _ = env.reset(seed=0)
    assert isinstance(observation, np.ndarray) and observation.shape == (4,)
    observation, reward, terminated, truncated, _ = env.step(1)
    assert observation in env.observation_space and reward == 1.0
    check_env(env)


def test_no_dict_single_sides():
    observation_only = NoDictObservationWrapper(GymMazeEnv("CartPole-v1"))
    assert observation_only.observation_space.shape == (4,)
    assert observation_only.action_space == spaces.Dict({"action": spaces.Discrete(2)})
    assert isinstance(observation_only, ObservationWrapper)
    check_env(observation_only)
    action_only = NoDictActionWrapper(GymMazeEnv("CartPole-v1"))
    assert action_only.action_space == spaces.Discrete(2)
    assert list(action_only.observation_space.spaces) == ["observation"]
    assert action_only.reverse_action({"action": 1}) == 1
    check_env(action_only)


@pytest.mark.parametrize(
    ("wrapper", "keys"),
    [
        (NoDictObservationWrapper, "['action_mask', 'observation']"),
        (NoDictActionWrapper, "['binary', 'continuous', 'discrete']"),
        (NoDictSpacesWrapper, "['binary', 'continuous', 'discrete']"),
    ],
)
def test_multi_key_spaces_are_rejected_naming_the_keys(wrapper, keys):
    with pytest.raises(ConfigurationError, match=wrapper.__name__) as error:
        wrapper(build_dummy_maze_env())
    assert keys in str(error.value)


def test_no_dict_action_works_per_sub_step():
    env = NoDictActionWrapper(build_multi_step_env())
    assert env.action_spaces_dict[0] == spaces.Discrete(4)
    assert env.action_spaces_dict[1].shape == (2,)
    env.reset(seed=0)
    for step_key in (0, 1, 0):
        assert env.actor_id().step_key == step_key
        assert env.action_space == env.action_spaces_dict[step_key]
        env.step(env.action_space.sample())
    with pytest.raises(ConfigurationError, match="sub-step 1 has the keys \\['items', 'step'\\]"):
        NoDictObservationWrapper(build_multi_step_env())


def test_no_dict_trajectory_conversion():
    inner = GymMazeEnv("CartPole-v1")
    env = NoDictSpacesWrapper(inner)
    observation, _ = env.reset(seed=0)
    observations, actions = env.get_observation_and_action_dicts(inner.get_maze_state(), 1, True)
    np.testing.assert_array_equal(observations[0], observation)
    assert actions == {0: 1}


def test_dict_observation_restores_the_dict():
    env = DictObservationWrapper(NoDictObservationWrapper(GymMazeEnv("CartPole-v1")))
    assert list(env.observation_space.spaces) == ["observation"]
    observation, _ = env.reset(seed=0)
    assert set(observation) == {"observation"} and observation in env.observation_space
    check_env(env)


def test_dict_wrappers_on_a_plain_gymnasium_env():
    env = DictActionWrapper(DictObservationWrapper(gym.make("CartPole-v1")))
    assert env.observation_space == spaces.Dict({"observation": gym.make("CartPole-v1").observation_space})
    assert env.action_space == spaces.Dict({"action": spaces.Discrete(2)})
    observation, _ = env.reset(seed=0)
    assert observation in env.observation_space
    assert env.step({"action": 0})[0] in env.observation_space
    check_env(env, skip_render_check=True)


def test_dict_action_splits_tuples_into_numbered_keys():
    env = DictActionWrapper(_TupleActionEnv())
    assert list(env.action_space.spaces) == ["action_0", "action_1"]
    env.reset(seed=0)
    env.step({"action_0": 1, "action_1": np.zeros(2, dtype=np.float32)})
    assert isinstance(env.unwrapped.last_action, tuple) and env.unwrapped.last_action[0] == 1
    assert set(env.reverse_action((0, np.ones(2)))) == {"action_0", "action_1"}


def test_dict_spaces_pass_through_unchanged():
    env = DictActionWrapper(DictObservationWrapper(build_dummy_maze_env()))
    inner = build_dummy_maze_env()
    assert env.observation_spaces_dict == inner.observation_spaces_dict
    assert env.action_spaces_dict == inner.action_spaces_dict
    check_env(env)


def _plain_cartpole_stack():
    return DictActionWrapper(DictObservationWrapper(gym.make("CartPole-v1")))


def test_dict_wrappers_make_a_plain_gymnasium_env_a_flat_structured_env():
    for env in (_plain_cartpole_stack(), DictObservationWrapper(gym.make("CartPole-v1"))):
        assert env.actor_id() == ActorID(0, 0)
        assert env.agent_counts_dict == {0: 1}
        assert env.observation_spaces_dict == {0: env.observation_space}
        assert env.action_spaces_dict == {0: env.action_space}
        assert env.is_actor_done() is False
    structured = DictActionWrapper(build_multi_step_env())
    assert structured.agent_counts_dict == build_multi_step_env().agent_counts_dict
    structured.reset(seed=0)
    structured.step(structured.action_space.sample())
    assert structured.actor_id() == ActorID(1, 0)  # passes through to the structured env


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_plain_gymnasium_stack_steps_in_a_vector_env_and_passes_the_env_checker():
    envs = SequentialVectorEnv([_plain_cartpole_stack] * 2)
    observations, _ = envs.reset(seed=0)
    assert observations["observation"].shape == (2, 4)
    for _ in range(30):
        observations, rewards, terminated, truncated, _ = envs.step({"action": np.array([0, 1])})
    assert observations["observation"].shape == (2, 4) and rewards.shape == (2,)
    assert envs.actor_ids() == [ActorID(0, 0)] * 2
    maze_check_env(_plain_cartpole_stack(), n_steps=20)
