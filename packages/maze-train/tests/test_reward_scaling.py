"""ReturnScaler: rewards divided by the running std of the per-env discounted return, carried across rollouts."""

from __future__ import annotations

import numpy as np
import pytest
from maze.env.errors import ConfigurationError
from maze.train.reward_scaling import ReturnScaler
from maze.train.trainers.impala.config import ImpalaAlgorithmConfig


def test_rewards_are_divided_by_the_std_of_the_discounted_returns_restarting_after_episode_ends() -> None:
    scaler = ReturnScaler()
    rewards = np.array([[1.0, 2.0], [1.0, 0.0], [1.0, 5.0]])
    ends = np.array([[False, False], [True, False], [False, False]])
    # env 0: 1, 0.5 * 1 + 1 = 1.5 (episode ends), 1; env 1: 2, 0.5 * 2 + 0 = 1, 0.5 * 1 + 5 = 5.5
    returns = [1.0, 2.0, 1.5, 1.0, 1.0, 5.5]

    scaled = scaler(rewards, ends, np.full(3, 0.5))

    assert scaled.dtype == np.float32
    np.testing.assert_allclose(scaled, rewards / np.std(returns), rtol=1e-6)
    # the returns run on into the next rollout of the same envs: 0.5 * 1 + 0 and 0.5 * 5.5 + 1
    following = scaler(np.array([[0.0, 1.0]]), np.array([[False, False]]), np.array([1.0]))
    np.testing.assert_allclose(following, [[0.0, 1.0 / np.std([*returns, 1.0, 6.5])]], rtol=1e-6)


def test_the_discount_of_a_step_applies_to_the_return_before_it() -> None:
    scaler = ReturnScaler()
    scaler(np.array([[2.0], [2.0]]), np.zeros((2, 1), dtype=bool), np.array([1.0, 0.25]))
    # 2 and 0.25 * 2 + 2 = 2.5
    assert scaler.return_stats.mean == pytest.approx(2.25) and scaler.return_stats.std == pytest.approx(0.25)


def test_impala_refuses_reward_scaling() -> None:
    with pytest.raises(ConfigurationError, match="IMPALA's learner batches join rollouts of changing actors"):
        ImpalaAlgorithmConfig.from_config({"reward_scaling": True})
