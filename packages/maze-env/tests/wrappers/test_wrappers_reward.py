import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from maze.env import GymMazeEnv, RewardWrapper
from maze.env.errors import ConfigurationError
from maze.env.testing.fake_envs import build_dummy_maze_env
from maze.env.wrappers.reward_wrappers import (
    ReturnNormalizationRewardWrapper,
    RewardClippingWrapper,
    RewardScalingWrapper,
)
from maze.env.wrappers.time_limit import TimeLimitWrapper


def _rewards(env, steps, seed=0):
    env.reset(seed=seed)
    env.action_space.seed(seed)
    rewards, ends = [], []
    for _ in range(steps):
        _, reward, terminated, truncated, _ = env.step(env.action_space.sample())
        rewards.append(reward)
        ends.append(terminated or truncated)
        if terminated or truncated:
            env.reset()
    return rewards, ends


def test_scaling_cartpole_rewards():
    env = RewardScalingWrapper.wrap(GymMazeEnv("CartPole-v1"), scale=0.1)
    assert isinstance(env, RewardWrapper) and isinstance(env, GymMazeEnv)
    rewards, _ = _rewards(env, 5)
    assert rewards == pytest.approx([0.1] * 5)


def test_clipping():
    env = RewardClippingWrapper(build_dummy_maze_env(), min_val=-0.2, max_val=-0.1)
    rewards, _ = _rewards(env, 20)
    raw, _ = _rewards(build_dummy_maze_env(), 20)
    np.testing.assert_allclose(rewards, np.clip(raw, -0.2, -0.1))
    assert any(r < -0.2 or r > -0.1 for r in raw)  # the clipping did something
    with pytest.raises(ConfigurationError, match="min_val"):
        RewardClippingWrapper(build_dummy_maze_env(), min_val=1.0, max_val=0.0)


def test_return_normalization_matches_a_reference_computation():
    gamma = 0.9
    env = ReturnNormalizationRewardWrapper(TimeLimitWrapper(build_dummy_maze_env(), 4), gamma=gamma, epsilon=1e-8)
    normalized, ends = _rewards(env, 13)
    raw, raw_ends = _rewards(TimeLimitWrapper(build_dummy_maze_env(), 4), 13)
    assert ends == raw_ends and sum(ends) >= 2
    returns, running = [], 0.0
    expected = []
    for reward, end in zip(raw, ends, strict=True):
        running = gamma * running + reward
        returns.append(running)
        expected.append(reward if len(returns) < 2 else reward / np.std(returns))
        if end:
            running = 0.0  # the accumulator restarts with each episode
    np.testing.assert_allclose(normalized, expected, rtol=1e-10)
    assert env.return_stats.count == 13


def test_return_normalization_resets_the_return_on_reset():
    env = ReturnNormalizationRewardWrapper(GymMazeEnv("CartPole-v1"), gamma=1.0)
    env.reset(seed=0)
    for _ in range(3):
        env.step({"action": 0})
    env.reset(seed=0)
    env.step({"action": 0})
    # returns seen: 1, 2, 3 and then 1 again (not 4) after the reset
    assert env.return_stats.mean == pytest.approx(7 / 4)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(
    "wrap",
    [
        lambda env: RewardScalingWrapper(env, scale=0.5),
        lambda env: RewardClippingWrapper(env, min_val=0.0, max_val=0.5),
        lambda env: ReturnNormalizationRewardWrapper(env),
    ],
)
def test_check_env(wrap):
    check_env(wrap(GymMazeEnv("CartPole-v1")))


def test_non_numeric_arguments_are_rejected_naming_the_argument():
    env = GymMazeEnv("CartPole-v1")
    with pytest.raises(ConfigurationError, match=r"RewardClippingWrapper: min_val must be a number.*None"):
        RewardClippingWrapper(env, None, 1)
    with pytest.raises(ConfigurationError, match=r"RewardClippingWrapper: max_val must be a number.*nan"):
        RewardClippingWrapper(env, 0, float("nan"))
    with pytest.raises(ConfigurationError, match=r"RewardScalingWrapper: scale must be a number.*'2'"):
        RewardScalingWrapper(env, "2")
    with pytest.raises(ConfigurationError, match=r"ReturnNormalizationRewardWrapper: gamma must be a number"):
        ReturnNormalizationRewardWrapper(env, gamma=None)
