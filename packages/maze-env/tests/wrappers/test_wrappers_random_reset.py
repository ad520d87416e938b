import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from maze.env import GymMazeEnv
from maze.env.errors import ConfigurationError, MazeError
from maze.env.testing.fake_envs import build_dummy_maze_env, build_multi_step_env
from maze.env.wrappers.random_reset import RandomResetWrapper
from maze.env.wrappers.wrapper import Wrapper


class _ResetCounter(Wrapper):
    def __init__(self, env):
        super().__init__(env)
        self.resets = 0

    def reset(self, *, seed=None, options=None):
        self.resets += 1
        return self.env.reset(seed=seed, options=options)


def test_env_time_after_reset_lies_in_the_skip_range():
    env = RandomResetWrapper(GymMazeEnv("CartPole-v1"), min_skip_steps=2, max_skip_steps=5)
    env.reset(seed=0)
    times = {env.get_env_time()}
    for _ in range(30):
        env.reset()
        times.add(env.get_env_time())
    assert times <= {2, 3, 4, 5}
    assert len(times) > 1


def test_seeded_resets_are_reproducible():
    first, second = (RandomResetWrapper(GymMazeEnv("CartPole-v1"), 0, 8) for _ in range(2))
    for seed in (3, 4):
        obs_1, _ = first.reset(seed=seed)
        obs_2, _ = second.reset(seed=seed)
        np.testing.assert_array_equal(obs_1["observation"], obs_2["observation"])
        assert first.get_env_time() == second.get_env_time()
        np.testing.assert_array_equal(first.reset()[0]["observation"], second.reset()[0]["observation"])


def test_multi_step_env_skips_whole_env_steps():
    env = RandomResetWrapper(build_multi_step_env(max_steps=50), min_skip_steps=1, max_skip_steps=3)
    for seed in range(5):
        observation, _ = env.reset(seed=seed)
        assert 1 <= env.get_env_time() <= 3
        assert env.actor_id().step_key == 0
        assert observation in env.observation_spaces_dict[0]


def test_resets_again_when_the_episode_ends_while_skipping():
    counter = _ResetCounter(build_dummy_maze_env(max_steps=4))
    env = RandomResetWrapper(counter, min_skip_steps=3, max_skip_steps=6, max_reset_attempts=60)
    env.reset(seed=0)
    for _ in range(10):
        env.reset()
        assert env.get_env_time() == 3  # skipping 4..6 steps ends the 4-step episode
    assert counter.resets > 11


def test_gives_up_with_a_clear_error_when_every_attempt_ends():
    env = RandomResetWrapper(
        build_dummy_maze_env(max_steps=2), min_skip_steps=5, max_skip_steps=5, max_reset_attempts=3
    )
    with pytest.raises(MazeError, match="all 3 reset attempts"):
        env.reset(seed=0)


def test_zero_skip_is_a_plain_reset():
    env = RandomResetWrapper(GymMazeEnv("CartPole-v1"), 0, 0)
    obs, _ = env.reset(seed=5)
    plain, _ = GymMazeEnv("CartPole-v1").reset(seed=5)
    np.testing.assert_array_equal(obs["observation"], plain["observation"])
    assert env.get_env_time() == 0


@pytest.mark.parametrize(("low", "high"), [(3, 2), (-1, 2)])
def test_rejects_invalid_ranges(low, high):
    with pytest.raises(ConfigurationError, match="min_skip_steps"):
        RandomResetWrapper(GymMazeEnv("CartPole-v1"), low, high)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_check_env():
    check_env(RandomResetWrapper(GymMazeEnv("CartPole-v1"), min_skip_steps=0, max_skip_steps=3))


@pytest.mark.parametrize(
    ("arguments", "name"),
    [
        (("1", 3), "min_skip_steps"),
        ((1.5, 3), "min_skip_steps"),
        ((0, None), "max_skip_steps"),
        ((True, 3), "min_skip_steps"),
    ],
)
def test_non_int_arguments_are_rejected_naming_the_argument(arguments, name):
    with pytest.raises(ConfigurationError, match=rf"RandomResetWrapper: {name} must be an int >= 0"):
        RandomResetWrapper(GymMazeEnv("CartPole-v1"), *arguments)
    with pytest.raises(ConfigurationError, match=r"max_reset_attempts must be an int >= 1, got 2.5"):
        RandomResetWrapper(GymMazeEnv("CartPole-v1"), 0, 1, max_reset_attempts=2.5)
    assert RandomResetWrapper(GymMazeEnv("CartPole-v1"), np.int64(1), 2).min_skip_steps == 1
