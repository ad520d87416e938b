"""compute_gae and compute_returns: a hand-computed rollout, episode boundaries, bootstrapping, discounts."""

from __future__ import annotations

import numpy as np
import pytest
from maze.train.returns import compute_gae, compute_returns

GAMMA = 0.9
LAMBDA = 0.8

# One rollout of T=5 transitions in N=2 envs (columns).
# env 0: an episode terminates at t=1; the next one (t=2..4) continues past the rollout end.
# env 1: an episode is truncated at t=2; the next one (t=3..4) continues past the rollout end.
# next_values is read only at truncations and at t=4; the unread entries are 99 so reading them would show.
REWARDS = np.array([[1.0, 0.0], [2.0, 1.0], [0.0, 1.0], [1.0, -1.0], [3.0, 2.0]])
VALUES = np.array([[0.5, 1.0], [1.0, 0.5], [2.0, 0.0], [1.0, 1.5], [0.5, 1.0]])
NEXT_VALUES = np.array([[99.0, 99.0], [99.0, 99.0], [99.0, 4.0], [99.0, 99.0], [2.0, -1.0]])
TERMINATED = np.array([[0, 0], [1, 0], [0, 0], [0, 0], [0, 0]], dtype=bool)
TRUNCATED = np.array([[0, 0], [0, 0], [0, 1], [0, 0], [0, 0]], dtype=bool)
BOUNDARY = (2, 3)
"""Per env, the first transition after its episode boundary."""

# delta[t] = r[t] + gamma * V(next) - V[t], A[t] = delta[t] + gamma * lambda * A[t + 1] (gamma * lambda = 0.72).
# env 0 (terminated at t=1: no bootstrap; t=4 bootstraps next_values[4] = 2):
#   t=1: 2 - 1 = 1                              A = 1
#   t=0: 1 + 0.9*1.0 - 0.5 = 1.4                A = 1.4 + 0.72*1 = 2.12
#   t=4: 3 + 0.9*2.0 - 0.5 = 4.3                A = 4.3
#   t=3: 1 + 0.9*0.5 - 1.0 = 0.45               A = 0.45 + 0.72*4.3 = 3.546
#   t=2: 0 + 0.9*1.0 - 2.0 = -1.1               A = -1.1 + 0.72*3.546 = 1.45312
# env 1 (truncated at t=2: bootstraps next_values[2] = 4; t=4 bootstraps next_values[4] = -1):
#   t=2: 1 + 0.9*4.0 - 0.0 = 4.6                A = 4.6
#   t=1: 1 + 0.9*0.0 - 0.5 = 0.5                A = 0.5 + 0.72*4.6 = 3.812
#   t=0: 0 + 0.9*0.5 - 1.0 = -0.55              A = -0.55 + 0.72*3.812 = 2.19464
#   t=4: 2 + 0.9*(-1.0) - 1.0 = 0.1             A = 0.1
#   t=3: -1 + 0.9*1.0 - 1.5 = -1.6              A = -1.6 + 0.72*0.1 = -1.528
EXPECTED_ADVANTAGES = np.array([[2.12, 2.19464], [1.0, 3.812], [1.45312, 4.6], [3.546, -1.528], [4.3, 0.1]])
EXPECTED_DELTAS = np.array([[1.4, -0.55], [1.0, 0.5], [-1.1, 4.6], [0.45, -1.6], [4.3, 0.1]])
# R[t] = r[t] + gamma * R[t + 1], with R = r at a termination and r + gamma * next_value at a truncation / t=4:
#   env 0: R1 = 2, R0 = 1 + 0.9*2 = 2.8; R4 = 3 + 0.9*2 = 4.8, R3 = 1 + 0.9*4.8 = 5.32, R2 = 0.9*5.32 = 4.788
#   env 1: R2 = 1 + 0.9*4 = 4.6, R1 = 1 + 0.9*4.6 = 5.14, R0 = 0.9*5.14 = 4.626; R4 = 2 - 0.9 = 1.1, R3 = -1 + 0.99 = -0.01
EXPECTED_RETURNS = np.array([[2.8, 4.626], [2.0, 5.14], [4.788, 4.6], [5.32, -0.01], [4.8, 1.1]])


def gae(
    rewards=REWARDS, values=VALUES, next_values=NEXT_VALUES, terminated=TERMINATED, truncated=TRUNCATED, **kwargs
) -> tuple[np.ndarray, np.ndarray]:
    """compute_gae of the example rollout with some arrays replaced."""
    kwargs = {"gamma": GAMMA, "gae_lambda": LAMBDA, **kwargs}
    return compute_gae(rewards, values, next_values, terminated, truncated, **kwargs)


def before_boundary(array: np.ndarray) -> list[np.ndarray]:
    """Per env, the entries of the episode that ends inside the rollout."""
    return [array[:boundary, env] for env, boundary in enumerate(BOUNDARY)]


def test_gae_matches_the_hand_computed_example() -> None:
    advantages, targets = gae()

    np.testing.assert_allclose(advantages, EXPECTED_ADVANTAGES, rtol=1e-5)
    np.testing.assert_allclose(targets, EXPECTED_ADVANTAGES + VALUES, rtol=1e-5)
    assert advantages.dtype == targets.dtype == np.float32
    assert advantages.shape == targets.shape == (5, 2)


def test_returns_match_the_hand_computed_example() -> None:
    returns = compute_returns(REWARDS, NEXT_VALUES, TERMINATED, TRUNCATED, GAMMA)

    np.testing.assert_allclose(returns, EXPECTED_RETURNS, rtol=1e-5)
    assert returns.dtype == np.float32


def test_lambda_zero_gives_the_one_step_td_errors() -> None:
    advantages, _ = gae(gae_lambda=0.0)
    np.testing.assert_allclose(advantages, EXPECTED_DELTAS, rtol=1e-5)


@pytest.mark.parametrize("replaced", ["rewards", "values"])
def test_nothing_after_an_episode_boundary_flows_back_into_the_episode(replaced: str) -> None:
    changed = {"rewards": REWARDS.copy(), "values": VALUES.copy()}[replaced]
    for env, boundary in enumerate(BOUNDARY):
        changed[boundary:, env] += 10.0

    advantages, targets = gae(**{replaced: changed})
    returns = compute_returns(changed if replaced == "rewards" else REWARDS, NEXT_VALUES, TERMINATED, TRUNCATED, GAMMA)

    original_advantages, original_targets = gae()
    original_returns = compute_returns(REWARDS, NEXT_VALUES, TERMINATED, TRUNCATED, GAMMA)
    for new, old in [(advantages, original_advantages), (targets, original_targets), (returns, original_returns)]:
        for new_part, old_part in zip(before_boundary(new), before_boundary(old), strict=True):
            np.testing.assert_array_equal(new_part, old_part)
    # ... while the episode after the boundary did change (the check above can fail).
    assert not np.array_equal(advantages[BOUNDARY[0] :, 0], original_advantages[BOUNDARY[0] :, 0])


def test_truncation_bootstraps_next_values_and_termination_does_not() -> None:
    raised = NEXT_VALUES.copy()
    raised[1, 0] += 50.0  # at the termination of env 0
    raised[2, 1] += 50.0  # at the truncation of env 1

    advantages, _ = gae(next_values=raised)
    returns = compute_returns(REWARDS, raised, TERMINATED, TRUNCATED, GAMMA)

    np.testing.assert_allclose(advantages[:, 0], EXPECTED_ADVANTAGES[:, 0], rtol=1e-5)
    np.testing.assert_allclose(returns[:, 0], EXPECTED_RETURNS[:, 0], rtol=1e-5)
    # env 1: the truncated transition gains gamma * 50, earlier ones its discounted share.
    np.testing.assert_allclose(advantages[:3, 1] - EXPECTED_ADVANTAGES[:3, 1], 45.0 * 0.72 ** np.arange(2, -1, -1))
    np.testing.assert_allclose(returns[:3, 1] - EXPECTED_RETURNS[:3, 1], 45.0 * 0.9 ** np.arange(2, -1, -1), rtol=1e-5)
    np.testing.assert_allclose(advantages[3:, 1], EXPECTED_ADVANTAGES[3:, 1], rtol=1e-5)


def test_truncating_instead_of_terminating_bootstraps_the_final_value() -> None:
    terminated, truncated = TERMINATED.copy(), TRUNCATED.copy()
    terminated[1, 0], truncated[1, 0] = False, True

    advantages, _ = gae(terminated=terminated, truncated=truncated)
    returns = compute_returns(REWARDS, NEXT_VALUES, terminated, truncated, GAMMA)

    assert advantages[1, 0] == pytest.approx(2.0 + 0.9 * 99.0 - 1.0)
    assert returns[1, 0] == pytest.approx(2.0 + 0.9 * 99.0)
    np.testing.assert_allclose(advantages[2:, 0], EXPECTED_ADVANTAGES[2:, 0], rtol=1e-5)


@pytest.mark.parametrize("flag", ["terminated", "truncated"])
def test_an_episode_end_at_the_last_transition(flag: str) -> None:
    ends = {"terminated": TERMINATED.copy(), "truncated": TRUNCATED.copy()}
    ends[flag][-1, 0] = True

    advantages, _ = gae(**ends)
    returns = compute_returns(REWARDS, NEXT_VALUES, ends["terminated"], ends["truncated"], GAMMA)

    bootstrap = 0.0 if flag == "terminated" else 0.9 * 2.0
    assert advantages[-1, 0] == pytest.approx(3.0 + bootstrap - 0.5)
    assert returns[-1, 0] == pytest.approx(3.0 + bootstrap)


def test_a_per_step_discount_of_one_inside_an_env_step() -> None:
    # One env, two calls per env step: no discount after the first call of an env step, gamma after the second.
    rewards = np.array([[0.0], [1.0], [0.0], [2.0]])
    zeros = np.zeros((4, 1))
    flags = np.zeros((4, 1), dtype=bool)
    discount = np.array([1.0, GAMMA, 1.0, GAMMA])

    returns = compute_returns(rewards, zeros, flags, flags, discount)
    _, targets = compute_gae(rewards, zeros, zeros, flags, flags, discount, gae_lambda=1.0)

    # R3 = 2, R2 = 0 + 1 * 2 = 2, R1 = 1 + 0.9 * 2 = 2.8, R0 = 0 + 1 * 2.8 = 2.8
    np.testing.assert_allclose(returns[:, 0], [2.8, 2.8, 2.0, 2.0], rtol=1e-6)
    np.testing.assert_allclose(targets, returns, rtol=1e-6)


def test_a_constant_discount_array_equals_the_scalar() -> None:
    per_step = np.full(5, GAMMA)
    for by_array, by_scalar in zip(gae(gamma=per_step), gae(), strict=True):
        np.testing.assert_array_equal(by_array, by_scalar)
    np.testing.assert_array_equal(
        compute_returns(REWARDS, NEXT_VALUES, TERMINATED, TRUNCATED, per_step),
        compute_returns(REWARDS, NEXT_VALUES, TERMINATED, TRUNCATED, GAMMA),
    )


def test_lambda_one_targets_equal_the_returns_on_random_rollouts() -> None:
    rng = np.random.default_rng(0)
    shape = (40, 6)
    ends = rng.random(shape)
    terminated, truncated = ends < 0.08, (ends >= 0.08) & (ends < 0.15)
    rewards, values, next_values = (rng.normal(size=shape) for _ in range(3))
    discount = np.where(np.arange(40) % 2, 0.95, 1.0)

    _, targets = compute_gae(rewards, values, next_values, terminated, truncated, discount, gae_lambda=1.0)
    returns = compute_returns(rewards, next_values, terminated, truncated, discount)

    assert terminated.any() and truncated.any()
    np.testing.assert_allclose(targets, returns, rtol=1e-4, atol=1e-5)
