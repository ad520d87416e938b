"""Sampling, bounds, masking, temperature, leading batch dims and input validation."""

import math

import numpy as np
import pytest
import torch
from gymnasium import spaces
from maze.distributions import (
    BernoulliProbabilityDistribution,
    BetaProbabilityDistribution,
    CategoricalProbabilityDistribution,
    DiagonalGaussianProbabilityDistribution,
    MultiCategoricalProbabilityDistribution,
    ProbabilityDistribution,
    SquashedGaussianProbabilityDistribution,
)
from maze.env.errors import ConfigurationError

torch.set_num_threads(1)

BOX = spaces.Box(low=np.float32([-1.0, 0.0, 10.0]), high=np.float32([1.0, 0.5, 20.0]), dtype=np.float32)

CASES = [
    (CategoricalProbabilityDistribution, spaces.Discrete(4, start=-1)),
    (MultiCategoricalProbabilityDistribution, spaces.MultiDiscrete([[3, 2], [4, 2]])),
    (BernoulliProbabilityDistribution, spaces.MultiBinary([2, 3])),
    (DiagonalGaussianProbabilityDistribution, spaces.Box(-np.inf, np.inf, shape=(2, 3))),
    (BetaProbabilityDistribution, BOX),
    (SquashedGaussianProbabilityDistribution, BOX),
]
IDS = [distribution.__name__ for distribution, _ in CASES]


@pytest.fixture(autouse=True)
def _seed() -> None:
    torch.manual_seed(0)


@pytest.mark.parametrize(("distribution", "space"), CASES, ids=IDS)
@pytest.mark.parametrize("batch", [(), (5,), (4, 3)], ids=["none", "B", "TxB"])
def test_leading_batch_dims(distribution: type[ProbabilityDistribution], space: spaces.Space, batch: tuple) -> None:
    logits = torch.randn(*batch, *distribution.required_logits_shape(space))
    dist = distribution(logits, space)
    for actions in (dist.sample(), dist.deterministic_sample()):
        assert actions.shape == (*batch, *space.shape)
        flat = actions.reshape(-1, *space.shape).numpy()
        assert all(space.contains(action.astype(space.dtype)) for action in flat)
        assert dist.log_prob(actions).shape == batch
    assert dist.entropy().shape == batch
    other = distribution(torch.randn_like(logits), space)
    assert dist.kl(other).shape == batch
    assert torch.all(dist.kl(other) >= -1e-5) and torch.allclose(dist.kl(dist), torch.zeros(batch), atol=1e-5)


@pytest.mark.parametrize("distribution", [BetaProbabilityDistribution, SquashedGaussianProbabilityDistribution])
@pytest.mark.parametrize("scale", [1.0, 1e2, 1e4, 1e8])
def test_bounded_samples_stay_in_the_box_also_for_extreme_logits(
    distribution: type[ProbabilityDistribution], scale: float
) -> None:
    logits = torch.randn(2000, 6).sign() * scale
    dist = distribution(logits, BOX)
    for actions in (dist.sample(), dist.deterministic_sample()):
        assert torch.all(torch.isfinite(actions))
        assert torch.all(actions >= torch.from_numpy(BOX.low)) and torch.all(actions <= torch.from_numpy(BOX.high))
        assert torch.all(torch.isfinite(dist.log_prob(actions)))
    assert torch.all(torch.isfinite(dist.entropy()))


def test_unbounded_gaussian_samples_can_leave_the_box() -> None:
    logits = torch.tensor([0.0, 3.0]).expand(100, 2)
    dist = DiagonalGaussianProbabilityDistribution(logits, spaces.Box(-1.0, 1.0, (1,)))
    assert (dist.sample().abs() > 1).any()


@pytest.mark.parametrize("temperature", [1.0, 0.3, 5.0])
def test_masked_categorical_never_samples_a_masked_action(temperature: float) -> None:
    mask = torch.tensor([True, False, True, False, False, True])
    logits = torch.randn(10_000, 6) * 3
    masked = logits.masked_fill(~mask, torch.finfo(torch.float32).min).requires_grad_()
    dist = CategoricalProbabilityDistribution(masked, spaces.Discrete(6), temperature=temperature)
    actions = dist.sample()
    assert mask[actions].all()
    assert mask[dist.deterministic_sample()].all()
    other = CategoricalProbabilityDistribution(masked.detach() * 0.5, spaces.Discrete(6), temperature=temperature)
    loss = dist.entropy().sum() + dist.kl(other).sum() + dist.log_prob(actions).sum()
    loss.backward()
    assert torch.isfinite(loss) and torch.all(torch.isfinite(masked.grad))


def test_masked_multi_categorical_never_samples_a_masked_action() -> None:
    space = spaces.MultiDiscrete([3, 4])
    logits = torch.randn(10_000, 7)
    logits[:, [0, 4, 5]] = torch.finfo(torch.float32).min
    actions = MultiCategoricalProbabilityDistribution(logits, space, temperature=0.5).sample()
    assert not (actions[:, 0] == 0).any()
    assert not ((actions[:, 1] == 1) | (actions[:, 1] == 2)).any()


@pytest.mark.parametrize("temperature", [1.0, 0.3, 5.0])
def test_masked_bernoulli_stays_finite_at_any_temperature(temperature: float) -> None:
    extreme = torch.finfo(torch.float32)
    logits = torch.tensor([[extreme.min, 0.5, extreme.max]]).expand(1000, 3).clone().requires_grad_()
    dist = BernoulliProbabilityDistribution(logits, spaces.MultiBinary(3), temperature=temperature)
    actions = dist.sample()
    assert (actions[:, 0] == 0).all() and (actions[:, 2] == 1).all()
    other = BernoulliProbabilityDistribution(logits.detach() * 0.5, spaces.MultiBinary(3), temperature=temperature)
    loss = dist.entropy().sum() + dist.kl(other).sum() + dist.log_prob(actions).sum()
    loss.backward()
    assert torch.isfinite(loss) and torch.all(torch.isfinite(logits.grad))


def test_categorical_temperature_scales_the_logits() -> None:
    logits = torch.tensor([1.0, 2.0, 0.5, -1.0])
    for temperature in (0.1, 0.5, 2.0, 10.0):
        dist = CategoricalProbabilityDistribution(logits, spaces.Discrete(4), temperature=temperature)
        torch.testing.assert_close(dist.dist.probs, torch.softmax(logits / temperature, dim=-1))
    entropies = [
        CategoricalProbabilityDistribution(logits, spaces.Discrete(4), temperature=t).entropy() for t in (0.1, 1, 10)
    ]
    assert entropies[0] < entropies[1] < entropies[2] < math.log(4)
    cold = CategoricalProbabilityDistribution(logits.expand(1000, 4), spaces.Discrete(4), temperature=0.01)
    assert torch.all(cold.sample() == 1)


def test_bernoulli_temperature_and_deterministic_sample() -> None:
    logits = torch.tensor([2.0, -0.5, 0.1])
    hot = BernoulliProbabilityDistribution(logits, spaces.MultiBinary(3), temperature=4.0)
    torch.testing.assert_close(hot.dist.base_dist.probs, torch.sigmoid(logits / 4.0))
    assert hot.deterministic_sample().tolist() == [1, 0, 1]


@pytest.mark.parametrize(
    "distribution", [DiagonalGaussianProbabilityDistribution, SquashedGaussianProbabilityDistribution]
)
def test_gaussian_temperature_scales_the_standard_deviation(distribution: type[ProbabilityDistribution]) -> None:
    logits = torch.tensor([0.1, -0.2, 0.3, -1.0, -0.5, -1.5])
    base = distribution(logits, BOX)
    for temperature in (0.5, 2.0):
        tempered = distribution(logits, BOX, temperature=temperature)
        torch.testing.assert_close(tempered.dist.base_dist.scale, base.dist.base_dist.scale * temperature)
        torch.testing.assert_close(tempered.deterministic_sample(), base.deterministic_sample())
    gaussian_entropy_shift = DiagonalGaussianProbabilityDistribution(logits, BOX, temperature=2.0).entropy()
    assert gaussian_entropy_shift - DiagonalGaussianProbabilityDistribution(logits, BOX).entropy() == pytest.approx(
        3 * math.log(2.0), abs=1e-5
    )
    assert distribution(logits, BOX, temperature=0.5).entropy() < base.entropy()


def test_beta_temperature_keeps_the_mode_and_shrinks_the_spread() -> None:
    logits = torch.tensor([0.5, 2.0, -1.0, 1.5, 0.0, 3.0])
    spreads = []
    for temperature in (2.0, 1.0, 0.2):
        dist = BetaProbabilityDistribution(logits.expand(20_000, 6), BOX, temperature=temperature)
        torch.testing.assert_close(
            dist.deterministic_sample()[0], BetaProbabilityDistribution(logits, BOX).deterministic_sample()
        )
        spreads.append(dist.sample().std(dim=0))
    assert torch.all(spreads[0] > spreads[1]) and torch.all(spreads[1] > spreads[2])
    concentration = torch.nn.functional.softplus(logits[:3]) + 1
    mode_unit = (concentration - 1) / (concentration + torch.nn.functional.softplus(logits[3:]) + 1 - 2)
    expected_mode = torch.from_numpy(BOX.low) + mode_unit * torch.from_numpy(BOX.high - BOX.low)
    torch.testing.assert_close(BetaProbabilityDistribution(logits, BOX).deterministic_sample(), expected_mode)


def test_continuous_samples_are_reparameterised() -> None:
    for distribution in (
        DiagonalGaussianProbabilityDistribution,
        BetaProbabilityDistribution,
        SquashedGaussianProbabilityDistribution,
    ):
        logits = torch.randn(8, 6, requires_grad=True)
        distribution(logits, BOX).sample().sum().backward()
        assert logits.grad is not None and logits.grad.abs().sum() > 0


def test_discrete_start_offsets_are_applied() -> None:
    logits = torch.tensor([[0.0, 10.0, 0.0]])
    dist = CategoricalProbabilityDistribution(logits, spaces.Discrete(3, start=5))
    assert dist.deterministic_sample().tolist() == [6]
    assert dist.log_prob(torch.tensor([6])) > dist.log_prob(torch.tensor([5]))
    multi = MultiCategoricalProbabilityDistribution(
        torch.tensor([0.0, 9.0, 9.0, 0.0]), spaces.MultiDiscrete([2, 2], start=[3, -2])
    )
    assert multi.deterministic_sample().tolist() == [4, -2]


def test_scalar_box_is_supported() -> None:
    space = spaces.Box(-1.0, 1.0, shape=())
    assert SquashedGaussianProbabilityDistribution.required_logits_shape(space) == (2,)
    dist = SquashedGaussianProbabilityDistribution(torch.zeros(5, 2), space)
    assert dist.sample().shape == (5,) and dist.log_prob(dist.sample()).shape == (5,)


def test_bad_inputs_raise_clear_errors() -> None:
    with pytest.raises(ValueError, match=r"needs logits of shape \[\*batch, 4\], got \(2, 3\)"):
        CategoricalProbabilityDistribution(torch.zeros(2, 3), spaces.Discrete(4))
    with pytest.raises(ValueError, match="temperature must be positive"):
        CategoricalProbabilityDistribution(torch.zeros(4), spaces.Discrete(4), temperature=0.0)
    with pytest.raises(ConfigurationError, match="supports Discrete action spaces only"):
        CategoricalProbabilityDistribution(torch.zeros(4), spaces.Box(-1, 1, (2,)))
    with pytest.raises(ConfigurationError, match="needs a bounded Box.*infinite bounds"):
        BetaProbabilityDistribution.required_logits_shape(spaces.Box(-np.inf, 1.0, (2,)))
    with pytest.raises(ConfigurationError, match="does not implement required_logits_shape"):
        ProbabilityDistribution.required_logits_shape(spaces.Discrete(2))


@pytest.mark.parametrize(("distribution", "space"), CASES, ids=IDS)
@pytest.mark.parametrize("leading", [(), (5,), (3, 2)])
def test_sample_from_logits_gives_actions_of_the_distribution(distribution, space, leading) -> None:
    logits = torch.randn(*leading, *distribution.required_logits_shape(space))
    built = distribution(logits=logits, action_space=space)
    torch.testing.assert_close(
        distribution.sample_from_logits(logits, space, deterministic=True), built.deterministic_sample()
    )
    actions = distribution.sample_from_logits(logits, space)
    assert tuple(actions.shape) == tuple(built.sample().shape)
    assert all(space.contains(np.asarray(action, dtype=space.dtype)) for action in actions.reshape(-1, *space.shape))


def test_categorical_sample_from_logits_follows_softmax_and_never_picks_masked_actions() -> None:
    space = spaces.Discrete(4, start=-1)
    logits = torch.tensor([0.0, 1.0, torch.finfo(torch.float32).min, 2.0]).expand(20_000, 4)
    actions = CategoricalProbabilityDistribution.sample_from_logits(logits, space)
    counts = torch.bincount(actions + 1, minlength=4).double() / len(actions)
    expected = torch.softmax(logits[0].double(), dim=-1)
    assert counts[2] == 0
    torch.testing.assert_close(counts, expected, atol=0.015, rtol=0)


def test_squashed_gaussian_sample_from_logits_draws_what_the_distribution_draws() -> None:
    logits = torch.randn(7, *SquashedGaussianProbabilityDistribution.required_logits_shape(BOX))
    torch.manual_seed(3)
    expected = SquashedGaussianProbabilityDistribution(logits, BOX).sample()
    torch.manual_seed(3)
    actions = SquashedGaussianProbabilityDistribution.sample_from_logits(logits, BOX)
    torch.testing.assert_close(actions, expected, rtol=0, atol=0)
    assert not torch.equal(actions, SquashedGaussianProbabilityDistribution.sample_from_logits(logits, BOX))


def test_squashed_gaussian_rsample_with_log_prob_matches_log_prob_and_keeps_gradients() -> None:
    torch.manual_seed(0)
    logits = (0.5 * torch.randn(64, 2, *BOX.shape)).reshape(64, 6).requires_grad_()
    distribution = SquashedGaussianProbabilityDistribution(logits, BOX)
    actions, log_prob = distribution.rsample_with_log_prob()

    assert actions.shape == (64, 3) and log_prob.shape == (64,)
    low, high = torch.as_tensor(BOX.low), torch.as_tensor(BOX.high)
    assert bool(((actions >= low) & (actions <= high)).all())
    torch.testing.assert_close(log_prob, distribution.log_prob(actions.detach()), rtol=1e-4, atol=1e-4)
    (actions.sum() + log_prob.sum()).backward()
    assert logits.grad is not None and bool(logits.grad.abs().sum() > 0)
