"""ReturnScaler: rewards divided by the running standard deviation of the discounted return."""

from __future__ import annotations

import numpy as np
import pytest
from maze.train.reward_scaling import ReturnScaler


def test_rewards_of_any_scale_give_the_same_scaled_rewards() -> None:
    rng = np.random.default_rng(0)
    rewards = rng.normal(size=(200, 4))
    ends = rng.random((200, 4)) < 0.05
    discount = np.full(200, 0.99)
    small, large = ReturnScaler(), ReturnScaler()
    scaled_small = small.scale_rewards(rewards, ends, discount)
    scaled_large = large.scale_rewards(rewards * 1000.0, ends, discount)
    assert large.scale == pytest.approx(1000.0 * small.scale)
    assert np.allclose(scaled_small, scaled_large, rtol=1e-5)
    assert np.all(np.sign(scaled_small) == np.sign(rewards))  # divided, never shifted


def test_the_return_restarts_at_episode_ends_and_carries_over_between_rollouts() -> None:
    scaler = ReturnScaler()
    rewards = np.ones((3, 1))
    scaler.scale_rewards(rewards, np.array([[False], [True], [False]]), np.full(3, 0.5))
    assert scaler.return_stats.mean == pytest.approx((1.0 + 1.5 + 1.0) / 3)  # 1, 1.5, then 1 after the end
    scaler.scale_rewards(np.ones((1, 1)), np.array([[False]]), np.full(1, 0.5))
    assert scaler.return_stats.count == 4 and scaler.return_stats.mean == pytest.approx((3.5 + 1.5) / 4)


def test_the_statistics_survive_a_state_dict_round_trip() -> None:
    scaler = ReturnScaler()
    scaler.scale_rewards(np.arange(10.0).reshape(5, 2), np.zeros((5, 2), bool), np.full(5, 0.9))
    restored = ReturnScaler()
    restored.load_state_dict(scaler.state_dict())
    assert restored.scale == pytest.approx(scaler.scale) and restored.return_stats.count == 10
