import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env
from maze.env import GymMazeEnv, TimeEnvMixin
from maze.env.errors import ConfigurationError
from maze.env.testing.fake_envs import build_multi_step_env
from maze.env.wrappers.time_limit import TimeLimitWrapper


def test_isinstance_sees_the_wrapped_env():
    env = TimeLimitWrapper.wrap(GymMazeEnv("CartPole-v1"), max_episode_steps=5)
    assert isinstance(env, TimeLimitWrapper)
    assert isinstance(env, GymMazeEnv)
    assert isinstance(env, TimeEnvMixin)


def test_truncates_at_the_limit_and_restarts_after_reset():
    env = TimeLimitWrapper(GymMazeEnv("CartPole-v1"), max_episode_steps=5)
    for _ in range(2):
        env.reset(seed=0)
        flags = [env.step({"action": step % 2})[2:4] for step in range(5)]
        assert flags == [(False, False)] * 4 + [(False, True)]
        assert env.elapsed_steps() == 5


def test_termination_at_the_limit_is_not_truncation():
    probe = GymMazeEnv("CartPole-v1")
    probe.reset(seed=1)
    steps = 1
    while not probe.step({"action": 1})[2]:
        steps += 1
    env = TimeLimitWrapper(GymMazeEnv("CartPole-v1"), max_episode_steps=steps)
    env.reset(seed=1)
    for _ in range(steps - 1):
        assert env.step({"action": 1})[2:4] == (False, False)
    assert env.step({"action": 1})[2:4] == (True, False)


def test_multi_step_env_counts_env_steps_not_sub_steps():
    env = TimeLimitWrapper(build_multi_step_env(max_steps=100), max_episode_steps=3)
    env.reset(seed=0)
    truncated_flags = []
    for _ in range(6):
        truncated_flags.append(env.step(env.action_space.sample())[3])
    assert truncated_flags == [False] * 5 + [True]
    assert env.get_env_time() == 3
    assert env.actor_id().step_key == 0


def test_plain_gymnasium_env_counts_step_calls():
    env = TimeLimitWrapper(gym.make("CartPole-v1"), max_episode_steps=2)
    env.reset(seed=0)
    assert env.step(0)[3] is False
    assert env.step(1)[3] is True


@pytest.mark.parametrize("bad", [0, -3, 2.5, True])
def test_rejects_invalid_limits(bad):
    with pytest.raises(ConfigurationError, match="max_episode_steps"):
        TimeLimitWrapper(GymMazeEnv("CartPole-v1"), max_episode_steps=bad)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_check_env():
    check_env(TimeLimitWrapper(GymMazeEnv("CartPole-v1"), max_episode_steps=10))
