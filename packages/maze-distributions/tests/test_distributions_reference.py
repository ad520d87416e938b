"""log_prob, entropy and kl of every distribution agree with float64 references."""

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
    DictProbabilityDistribution,
    MultiCategoricalProbabilityDistribution,
    SquashedGaussianProbabilityDistribution,
    atanh,
)

torch.set_num_threads(1)

BATCH = (7, 3)
TOL = {"rtol": 1e-4, "atol": 1e-4}


def close(actual: torch.Tensor, expected: torch.Tensor, **tolerance: float) -> None:
    assert actual.shape == expected.shape
    torch.testing.assert_close(actual.double(), expected.double(), **(tolerance or TOL))


@pytest.fixture(autouse=True)
def _seed() -> None:
    torch.manual_seed(0)


def test_categorical_matches_torch_in_float64() -> None:
    space = spaces.Discrete(5, start=2)
    logits_p, logits_q = torch.randn(*BATCH, 5) * 2, torch.randn(*BATCH, 5) * 2
    p = CategoricalProbabilityDistribution(logits_p, space)
    q = CategoricalProbabilityDistribution(logits_q, space)
    ref_p = torch.distributions.Categorical(logits=logits_p.double())
    ref_q = torch.distributions.Categorical(logits=logits_q.double())
    index = ref_p.sample()
    close(p.log_prob(index + 2), ref_p.log_prob(index))
    close(p.neg_log_likelihood(index + 2), -ref_p.log_prob(index))
    close(p.entropy(), ref_p.entropy())
    close(p.kl(q), torch.distributions.kl_divergence(ref_p, ref_q))


def test_multi_categorical_is_the_sum_of_independent_categoricals() -> None:
    space = spaces.MultiDiscrete([3, 5, 2], start=[0, 1, -1])
    sizes = [3, 5, 2]
    logits_p, logits_q = torch.randn(*BATCH, 10), torch.randn(*BATCH, 10)
    p = MultiCategoricalProbabilityDistribution(logits_p, space)
    q = MultiCategoricalProbabilityDistribution(logits_q, space)
    refs_p = [torch.distributions.Categorical(logits=part.double()) for part in logits_p.split(sizes, dim=-1)]
    refs_q = [torch.distributions.Categorical(logits=part.double()) for part in logits_q.split(sizes, dim=-1)]
    index = torch.stack([ref.sample() for ref in refs_p], dim=-1)
    actions = index + torch.tensor([0, 1, -1])
    close(p.log_prob(actions), sum(ref.log_prob(index[..., i]) for i, ref in enumerate(refs_p)))
    close(p.entropy(), sum(ref.entropy() for ref in refs_p))
    expected_kl = sum(torch.distributions.kl_divergence(a, b) for a, b in zip(refs_p, refs_q, strict=True))
    close(p.kl(q), expected_kl)


def test_bernoulli_matches_closed_forms_in_float64() -> None:
    space = spaces.MultiBinary(4)
    logits_p, logits_q = torch.randn(*BATCH, 4) * 3, torch.randn(*BATCH, 4) * 3
    p = BernoulliProbabilityDistribution(logits_p, space)
    q = BernoulliProbabilityDistribution(logits_q, space)
    prob_p, prob_q = torch.sigmoid(logits_p.double()), torch.sigmoid(logits_q.double())
    actions = torch.randint(0, 2, (*BATCH, 4), dtype=torch.int8)
    a = actions.double()
    close(p.log_prob(actions), (a * prob_p.log() + (1 - a) * (1 - prob_p).log()).sum(-1))
    close(p.entropy(), -(prob_p * prob_p.log() + (1 - prob_p) * (1 - prob_p).log()).sum(-1))
    expected_kl = prob_p * (prob_p / prob_q).log() + (1 - prob_p) * ((1 - prob_p) / (1 - prob_q)).log()
    close(p.kl(q), expected_kl.sum(-1))


def gaussian_reference(mean: torch.Tensor, std: torch.Tensor) -> torch.distributions.Independent:
    return torch.distributions.Independent(torch.distributions.Normal(mean.double(), std.double()), 1)


def test_diagonal_gaussian_matches_closed_forms_in_float64() -> None:
    space = spaces.Box(-np.inf, np.inf, shape=(3,))
    logits_p, logits_q = torch.randn(*BATCH, 6), torch.randn(*BATCH, 6)
    p = DiagonalGaussianProbabilityDistribution(logits_p, space)
    q = DiagonalGaussianProbabilityDistribution(logits_q, space)
    mean_p, std_p = logits_p[..., :3].double(), logits_p[..., 3:].double().exp()
    mean_q, std_q = logits_q[..., :3].double(), logits_q[..., 3:].double().exp()
    actions = mean_p + std_p * torch.randn(*BATCH, 3, dtype=torch.float64)
    log_density = -0.5 * ((actions - mean_p) / std_p) ** 2 - std_p.log() - 0.5 * math.log(2 * math.pi)
    close(p.log_prob(actions.float()), log_density.sum(-1))
    close(p.entropy(), (0.5 * torch.log(2 * math.pi * math.e * std_p**2)).sum(-1))
    kl = (std_q / std_p).log() + (std_p**2 + (mean_p - mean_q) ** 2) / (2 * std_q**2) - 0.5
    close(p.kl(q), kl.sum(-1))


def test_diagonal_gaussian_clamps_the_log_std_as_documented() -> None:
    space = spaces.Box(-np.inf, np.inf, shape=(2,))
    logits = torch.tensor([0.0, 0.0, -50.0, 50.0])
    dist = DiagonalGaussianProbabilityDistribution(logits, space)
    low, high = DiagonalGaussianProbabilityDistribution.log_std_bounds
    torch.testing.assert_close(dist.dist.base_dist.scale, torch.tensor([math.exp(low), math.exp(high)]))
    assert torch.isfinite(dist.log_prob(torch.zeros(2)))


def test_beta_matches_a_rescaled_torch_beta_in_float64() -> None:
    space = spaces.Box(low=np.float32([-1.0, 0.0, 2.0]), high=np.float32([1.0, 5.0, 2.5]), dtype=np.float32)
    logits_p, logits_q = torch.randn(*BATCH, 6) * 2, torch.randn(*BATCH, 6) * 2
    p = BetaProbabilityDistribution(logits_p, space)
    q = BetaProbabilityDistribution(logits_q, space)

    def reference(logits: torch.Tensor) -> torch.distributions.Independent:
        concentration = torch.nn.functional.softplus(logits.double()) + 1
        return torch.distributions.Independent(
            torch.distributions.Beta(concentration[..., :3], concentration[..., 3:]), 1
        )

    ref_p, ref_q = reference(logits_p), reference(logits_q)
    low, high = torch.tensor(space.low, dtype=torch.float64), torch.tensor(space.high, dtype=torch.float64)
    log_volume = (high - low).log().sum()
    unit = ref_p.sample()
    close(p.log_prob((low + unit * (high - low)).float()), ref_p.log_prob(unit) - log_volume, rtol=1e-4, atol=2e-3)
    close(p.entropy(), ref_p.entropy() + log_volume)
    close(p.kl(q), torch.distributions.kl_divergence(ref_p, ref_q))


def squashed_reference_log_prob(
    u: torch.Tensor, mean: torch.Tensor, std: torch.Tensor, half_range: torch.Tensor
) -> torch.Tensor:
    """Change of variables a = low + (tanh(u) + 1) * half_range, in float64."""
    base = torch.distributions.Normal(mean, std).log_prob(u)
    log_cosh = u.abs() + torch.log1p(torch.exp(-2 * u.abs())) - math.log(2)  # log(1 - tanh(u)^2) = -2 log cosh(u)
    return (base + 2 * log_cosh - torch.log(half_range)).sum(-1)


SQUASHED_SPACE = spaces.Box(low=np.float32([-1.0, 0.0]), high=np.float32([1.0, 4.0]), dtype=np.float32)


def squashed_setup(batch: tuple[int, ...]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    logits = torch.cat([torch.randn(*batch, 2), torch.rand(*batch, 2) - 1.0], dim=-1)
    low = torch.tensor(SQUASHED_SPACE.low, dtype=torch.float64)
    half_range = (torch.tensor(SQUASHED_SPACE.high, dtype=torch.float64) - low) / 2
    return logits, logits[..., :2].double(), logits[..., 2:].double().exp(), half_range


def test_squashed_gaussian_log_prob_is_the_exact_change_of_variables() -> None:
    logits, mean, std, half_range = squashed_setup(BATCH)
    u = mean + std * torch.randn(*BATCH, 2, dtype=torch.float64)
    actions = torch.tensor(SQUASHED_SPACE.low, dtype=torch.float64) + (torch.tanh(u) + 1) * half_range
    dist = SquashedGaussianProbabilityDistribution(logits, SQUASHED_SPACE)
    close(dist.log_prob(actions.float()), squashed_reference_log_prob(u, mean, std, half_range), rtol=1e-4, atol=2e-3)
    dist64 = SquashedGaussianProbabilityDistribution(logits.double(), SQUASHED_SPACE)
    close(dist64.log_prob(actions), squashed_reference_log_prob(u, mean, std, half_range), rtol=1e-9, atol=1e-9)


def test_squashed_gaussian_density_integrates_to_one() -> None:
    space = spaces.Box(low=-2.0, high=3.0, shape=(1,), dtype=np.float64)
    for logits in ([0.3, -0.5], [0.8, -1.0], [-1.0, -2.0]):
        dist = SquashedGaussianProbabilityDistribution(torch.tensor(logits, dtype=torch.float64), space)
        grid = torch.linspace(-2.0, 3.0, 200_001, dtype=torch.float64)[1:-1].unsqueeze(-1)
        density = (
            SquashedGaussianProbabilityDistribution(
                torch.tensor(logits, dtype=torch.float64).expand(len(grid), 2), space
            )
            .log_prob(grid)
            .exp()
        )
        assert torch.trapezoid(density, grid.squeeze(-1)).item() == pytest.approx(1.0, abs=1e-3)
        assert dist.log_prob(torch.tensor([3.0], dtype=torch.float64)).isfinite()


def test_squashed_gaussian_entropy_and_kl_match_monte_carlo_in_float64() -> None:
    n_samples = 200_000
    logits_p, mean_p, std_p, half_range = squashed_setup((4,))
    logits_q, mean_q, std_q, _ = squashed_setup((4,))
    p = SquashedGaussianProbabilityDistribution(logits_p, SQUASHED_SPACE)
    q = SquashedGaussianProbabilityDistribution(logits_q, SQUASHED_SPACE)
    u = mean_p + std_p * torch.randn(n_samples, 4, 2, dtype=torch.float64)
    log_p = squashed_reference_log_prob(u, mean_p, std_p, half_range)
    entropy_mc, entropy_se = -log_p.mean(0), log_p.std(0) / math.sqrt(n_samples)
    assert torch.all((p.entropy().double() - entropy_mc).abs() < 5 * entropy_se + 1e-4)
    # KL(p || q) = E_p[log p(a) - log q(a)], with u_q = atanh of the same action
    u_q = torch.atanh(torch.tanh(u).clamp(-1 + 1e-15, 1 - 1e-15))
    ratio = log_p - squashed_reference_log_prob(u_q, mean_q, std_q, half_range)
    kl_mc, kl_se = ratio.mean(0), ratio.std(0) / math.sqrt(n_samples)
    assert torch.all((p.kl(q).double() - kl_mc).abs() < 5 * kl_se + 1e-4)


def test_squashed_gaussian_entropy_stays_accurate_for_wide_and_narrow_stds() -> None:
    space = spaces.Box(-1.0, 1.0, shape=(1,), dtype=np.float64)
    for mean, log_std in ((0.0, 2.0), (3.0, 1.5), (0.5, -6.0)):
        logits = torch.tensor([mean, log_std], dtype=torch.float64)
        dist = SquashedGaussianProbabilityDistribution(logits, space)
        # dense quadrature of -E[log p(a)] over u
        u = torch.linspace(mean - 12 * math.exp(log_std), mean + 12 * math.exp(log_std), 400_001, dtype=torch.float64)
        std = torch.tensor(math.exp(log_std), dtype=torch.float64)
        log_p = squashed_reference_log_prob(u.unsqueeze(-1), torch.tensor(mean), std, torch.tensor(1.0))
        expected = -torch.trapezoid(torch.distributions.Normal(mean, std).log_prob(u).exp() * log_p, u)
        assert dist.entropy().item() == pytest.approx(expected.item(), abs=1e-5)


def test_atanh_is_the_inverse_of_tanh_and_finite_at_the_bounds() -> None:
    x = torch.linspace(-0.999, 0.999, 101, dtype=torch.float64)
    torch.testing.assert_close(torch.tanh(atanh(x)), x)
    edges = atanh(torch.tensor([-1.0, 1.0]))
    assert torch.all(torch.isfinite(edges)) and edges[0] < -8 and edges[1] > 8


def test_dict_distribution_sums_its_heads() -> None:
    heads_p = {
        "discrete": CategoricalProbabilityDistribution(torch.randn(*BATCH, 4), spaces.Discrete(4)),
        "box": DiagonalGaussianProbabilityDistribution(torch.randn(*BATCH, 4), spaces.Box(-1, 1, (2,))),
    }
    heads_q = {
        "discrete": CategoricalProbabilityDistribution(torch.randn(*BATCH, 4), spaces.Discrete(4)),
        "box": DiagonalGaussianProbabilityDistribution(torch.randn(*BATCH, 4), spaces.Box(-1, 1, (2,))),
    }
    p, q = DictProbabilityDistribution(heads_p), DictProbabilityDistribution(heads_q)
    actions = p.sample()
    assert set(actions) == {"discrete", "box"}
    close(p.log_prob(actions), sum(dist.log_prob(actions[head]) for head, dist in heads_p.items()))
    close(p.entropy(), heads_p["discrete"].entropy() + heads_p["box"].entropy())
    close(p.kl(q), sum(heads_p[head].kl(heads_q[head]) for head in heads_p))
    with pytest.raises(KeyError, match="lack the action heads \\['box'\\]"):
        p.log_prob({"discrete": actions["discrete"]})
    with pytest.raises(TypeError, match="same kind"):
        heads_p["discrete"].kl(heads_q["box"])
