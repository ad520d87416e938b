"""V-trace: on-policy equals n-step returns / GAE, a hand-computed off-policy example, episode boundaries."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from maze.train.returns import compute_gae, compute_returns
from maze.train.trainers.impala.vtrace import (
    from_importance_weights,
    from_logits,
    get_log_rhos,
    log_probs_from_logits_and_actions_and_spaces,
)
from test_returns import BOUNDARY, GAMMA, LAMBDA, NEXT_VALUES, REWARDS, TERMINATED, TRUNCATED, VALUES

ON_POLICY = np.zeros_like(REWARDS)


def _vtrace(log_rhos: np.ndarray, **kwargs):
    return from_importance_weights(log_rhos, REWARDS, VALUES, NEXT_VALUES, TERMINATED, TRUNCATED, GAMMA, **kwargs)


def test_on_policy_without_clipping_and_lambda_one_gives_the_n_step_bootstrapped_returns() -> None:
    result = _vtrace(ON_POLICY, lambda_=1.0, clip_rho_threshold=None, clip_pg_rho_threshold=None)
    expected = compute_returns(REWARDS, NEXT_VALUES, TERMINATED, TRUNCATED, GAMMA)
    np.testing.assert_allclose(result.vs, expected, rtol=1e-6)
    # The policy-gradient advantage is then the one-step TD error on the V-trace targets.
    np.testing.assert_allclose(result.pg_advantages, expected - VALUES, rtol=1e-5, atol=1e-6)


def test_on_policy_with_lambda_matches_gae_including_episode_boundaries_and_truncation() -> None:
    result = _vtrace(ON_POLICY, lambda_=LAMBDA)
    advantages, targets = compute_gae(REWARDS, VALUES, NEXT_VALUES, TERMINATED, TRUNCATED, GAMMA, LAMBDA)
    np.testing.assert_allclose(result.vs, targets, rtol=1e-5, atol=1e-6)
    assert not np.allclose(result.vs, compute_returns(REWARDS, NEXT_VALUES, TERMINATED, TRUNCATED, GAMMA))


def test_hand_computed_off_policy_example_with_clipping() -> None:
    # T=2, N=1; rho = [2, 0.5]: the first is clipped to 1 (rho_bar = 1), c = [1, 0.5].
    # t=1: delta = 0.5 * (2 + 0.9 * 3 - 1) = 1.85, vs1 = 1 + 1.85 = 2.85
    # t=0: delta = 1 * (1 + 0.9 * 1 - 0.5) = 1.4, vs0 = 0.5 + 1.4 + 0.9 * 1 * 1.85 = 3.565
    # pg: t=1: 0.5 * (2 + 0.9 * 3 - 1) = 1.85; t=0: min(1, 2) * (1 + 0.9 * 2.85 - 0.5) = 3.065
    arguments = dict(
        log_rhos=np.log([[2.0], [0.5]]),
        rewards=np.array([[1.0], [2.0]]),
        values=np.array([[0.5], [1.0]]),
        next_values=np.array([[99.0], [3.0]]),
        terminated=np.zeros((2, 1), dtype=bool),
        truncated=np.zeros((2, 1), dtype=bool),
        gamma=0.9,
    )
    result = from_importance_weights(**arguments)
    np.testing.assert_allclose(result.vs[:, 0], [3.565, 2.85], rtol=1e-6)
    np.testing.assert_allclose(result.pg_advantages[:, 0], [3.065, 1.85], rtol=1e-6)
    np.testing.assert_allclose(result.clipped_rhos[:, 0], [1.0, 0.5])
    unclipped_pg = from_importance_weights(**arguments, clip_pg_rho_threshold=None)
    np.testing.assert_allclose(unclipped_pg.pg_advantages[:, 0], [6.13, 1.85], rtol=1e-6)
    # Without value clipping rho_0 = 2 weighs the first TD error twice: vs0 = 0.5 + 2 * 1.4 + 0.9 * 1.85.
    unclipped = from_importance_weights(**arguments, clip_rho_threshold=None)
    assert unclipped.vs[0, 0] == pytest.approx(0.5 + 2.8 + 1.665)


def test_nothing_after_an_episode_end_flows_back_into_the_episode() -> None:
    rng = np.random.default_rng(0)
    log_rhos = rng.normal(0.0, 0.5, size=REWARDS.shape)
    base = _vtrace(log_rhos)
    changed_rhos, changed_values, changed_rewards = log_rhos.copy(), VALUES.copy(), REWARDS.copy()
    for env, first in enumerate(BOUNDARY):
        changed_rhos[first:, env] += 1.0
        changed_values[first:, env] += 5.0
        changed_rewards[first:, env] -= 3.0
    changed = from_importance_weights(
        changed_rhos, changed_rewards, changed_values, NEXT_VALUES, TERMINATED, TRUNCATED, GAMMA
    )
    for env, first in enumerate(BOUNDARY):
        np.testing.assert_allclose(changed.vs[:first, env], base.vs[:first, env], rtol=1e-6)
        np.testing.assert_allclose(changed.pg_advantages[:first, env], base.pg_advantages[:first, env], rtol=1e-6)
    assert not np.allclose(changed.vs, base.vs)


def test_from_logits_computes_the_log_rhos_of_dict_actions() -> None:
    from gymnasium import spaces
    from maze.distributions.distribution_mapper import DistributionMapper

    mapper = DistributionMapper(spaces.Dict({"a": spaces.Discrete(3), "b": spaces.Discrete(2)}))
    torch.manual_seed(0)
    behaviour = {"a": torch.randn(2, 1, 3), "b": torch.randn(2, 1, 2)}
    target = {"a": torch.randn(2, 1, 3), "b": torch.randn(2, 1, 2)}
    actions = {"a": torch.tensor([[2], [0]]), "b": torch.tensor([[1], [1]])}
    target_log_probs = log_probs_from_logits_and_actions_and_spaces(target, actions, mapper)
    expected_a = torch.log_softmax(target["a"], -1).gather(-1, actions["a"][..., None])[..., 0]
    expected_b = torch.log_softmax(target["b"], -1).gather(-1, actions["b"][..., None])[..., 0]
    torch.testing.assert_close(target_log_probs, expected_a + expected_b)
    log_rhos = get_log_rhos(target_log_probs, log_probs_from_logits_and_actions_and_spaces(behaviour, actions, mapper))
    zeros = np.zeros((2, 1))
    result = from_logits(
        behaviour,
        target,
        actions,
        mapper,
        rewards=zeros + 1,
        values=zeros,
        next_values=zeros,
        terminated=zeros.astype(bool),
        truncated=zeros.astype(bool),
        gamma=0.5,
    )
    np.testing.assert_allclose(result.log_rhos, log_rhos.numpy(), rtol=1e-6)
