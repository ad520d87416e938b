"""BCLoss: negative log-likelihood for every action space of the DistributionMapper, metrics, bad spaces and data."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from gymnasium import spaces
from maze.distributions import DistributionMapper
from maze.env.errors import ConfigurationError
from maze.train.trainers.bc import BCLoss

BOX = spaces.Box(-1.0, 1.0, (2,), np.float32)
ACTION_SPACE = spaces.Dict(
    {
        "discrete": spaces.Discrete(3),
        "multi_discrete": spaces.MultiDiscrete([2, 3]),
        "binary": spaces.MultiBinary(3),
        "continuous": BOX,
    }
)


def random_logits(mapper: DistributionMapper, batch: int, generator: torch.Generator) -> dict[str, torch.Tensor]:
    return {
        head: torch.randn(batch, *mapper.required_logits_shape(head), generator=generator, requires_grad=True)
        for head in mapper.action_space.spaces
    }


def test_the_loss_is_the_negative_log_likelihood_of_every_head() -> None:
    generator = torch.Generator().manual_seed(0)
    mapper = DistributionMapper(ACTION_SPACE)
    logits = random_logits(mapper, 5, generator)
    actions = {
        "discrete": torch.tensor([0, 1, 2, 1, 0]),
        "multi_discrete": torch.tensor([[0, 2], [1, 0], [1, 1], [0, 0], [1, 2]]),
        "binary": torch.tensor([[0, 1, 1], [1, 0, 0], [0, 0, 0], [1, 1, 1], [0, 1, 0]], dtype=torch.int8),
        "continuous": torch.rand(5, 2, generator=generator) * 2 - 1,
    }
    output = BCLoss({0: ACTION_SPACE})(0, logits, actions)

    expected = {
        "discrete": F.cross_entropy(logits["discrete"], actions["discrete"]),
        "multi_discrete": F.cross_entropy(logits["multi_discrete"][:, :2], actions["multi_discrete"][:, 0])
        + F.cross_entropy(logits["multi_discrete"][:, 2:], actions["multi_discrete"][:, 1]),
        "binary": 3 * F.binary_cross_entropy_with_logits(logits["binary"], actions["binary"].float(), reduction="mean"),
        "continuous": -torch.distributions.Normal(logits["continuous"][:, :2], logits["continuous"][:, 2:].exp())
        .log_prob(actions["continuous"])
        .sum(-1)
        .mean(),
    }
    for head, value in expected.items():
        assert output.head_losses[head] == pytest.approx(value.item(), rel=1e-5), head
    assert output.loss.item() == pytest.approx(sum(value.item() for value in expected.values()), rel=1e-5)
    output.loss.backward()
    assert all(logit.grad is not None and logit.grad.abs().sum() > 0 for logit in logits.values())


def test_metrics_compare_the_most_likely_action_with_the_recorded_one() -> None:
    space = spaces.Dict({"discrete": spaces.Discrete(3), "binary": spaces.MultiBinary(2), "continuous": BOX})
    logits = {
        "discrete": torch.tensor([[5.0, 0.0, 0.0], [0.0, 5.0, 0.0]]),
        "binary": torch.tensor([[3.0, -3.0], [3.0, 3.0]]),
        "continuous": torch.tensor([[0.5, -0.5, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]),
    }
    actions = {
        "discrete": torch.tensor([0, 2]),  # one of two right
        "binary": torch.tensor([[1, 0], [1, 0]]),  # three of four entries right
        "continuous": torch.tensor([[0.5, 0.5], [0.0, -0.2]]),  # errors 0, 1, 0, 0.2
    }
    output = BCLoss({0: space})(0, logits, actions)
    assert output.accuracies["discrete"] == pytest.approx(0.5)
    assert output.accuracies["binary"] == pytest.approx(0.75)
    assert output.abs_errors["continuous"] == pytest.approx(0.3)
    assert set(output.accuracies) == {"discrete", "binary"} and set(output.abs_errors) == {"continuous"}


def test_masked_actions_keep_the_loss_finite_and_the_gradient_on_the_allowed_ones() -> None:
    space = spaces.Dict({"piece": spaces.Discrete(4)})
    raw = torch.zeros(2, 4, requires_grad=True)
    mask = torch.tensor([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 1.0]])
    masked = torch.where(mask > 0, raw, torch.full_like(raw, torch.finfo(raw.dtype).min))
    output = BCLoss({0: space})(0, {"piece": masked}, {"piece": torch.tensor([2, 1])})
    assert torch.isfinite(output.loss) and np.isfinite(output.entropy)
    assert output.head_losses["piece"] == pytest.approx((np.log(2) + np.log(3)) / 2, rel=1e-5)
    output.loss.backward()
    assert torch.all(raw.grad[mask == 0] == 0) and torch.all(raw.grad[mask > 0] != 0)


def test_the_entropy_bonus_lowers_the_loss() -> None:
    mapper = DistributionMapper(spaces.Dict({"action": spaces.Discrete(3)}))
    logits = {"action": torch.tensor([[1.0, 0.0, -1.0]])}
    actions = {"action": torch.tensor([0])}
    plain = BCLoss({0: mapper.action_space})(0, logits, actions)
    bonus = BCLoss({0: mapper.action_space}, entropy_coef=0.5)(0, logits, actions)
    assert bonus.loss.item() == pytest.approx(plain.loss.item() - 0.5 * plain.entropy, rel=1e-6)


def test_cloning_by_gradient_descent_reproduces_a_deterministic_teacher() -> None:
    generator = torch.Generator().manual_seed(1)
    space = spaces.Dict({"discrete": spaces.Discrete(3), "continuous": BOX})
    observations = torch.randn(256, 4, generator=generator)
    actions = {"discrete": observations[:, :3].argmax(-1), "continuous": torch.tanh(observations[:, :2])}
    network = torch.nn.Sequential(torch.nn.Linear(4, 32), torch.nn.Tanh(), torch.nn.Linear(32, 7))
    optimizer = torch.optim.Adam(network.parameters(), lr=0.01)
    loss = BCLoss({0: space})
    for _ in range(150):
        out = network(observations)
        output = loss(0, {"discrete": out[:, :3], "continuous": out[:, 3:]}, actions)
        optimizer.zero_grad()
        output.loss.backward()
        optimizer.step()
    assert output.accuracies["discrete"] > 0.95
    assert output.abs_errors["continuous"] < 0.1


@pytest.mark.parametrize(
    "space",
    [spaces.Text(max_length=5), spaces.Sequence(spaces.Discrete(2)), spaces.Graph(spaces.Box(0, 1, (1,)), None)],
    ids=["text", "sequence", "graph"],
)
def test_spaces_the_loss_cannot_train_are_named(space: spaces.Space) -> None:
    with pytest.raises(ConfigurationError, match=r"cannot train action head 'command' of sub-step 1: its space"):
        BCLoss({0: spaces.Dict({"action": spaces.Discrete(2)}), 1: spaces.Dict({"command": space})})


@pytest.mark.parametrize(
    "actions, message",
    [
        ({"action": torch.tensor([0, 4])}, r"values from 0 to 4 lie outside the space"),
        ({"action": torch.tensor([[0], [1]])}, r"they have the shape \(1,\), the space \(\)"),
        ({"other": torch.tensor([0, 1])}, r"have the heads \['other'\], but the env's action space has \['action'\]"),
    ],
    ids=["out-of-range", "shape", "heads"],
)
def test_recorded_actions_of_another_env_are_rejected(actions: dict, message: str) -> None:
    loss = BCLoss({0: spaces.Dict({"action": spaces.Discrete(4)})})
    with pytest.raises(ConfigurationError, match=message + ".*recorded on another env"):
        loss.check_actions(0, actions)


def test_recorded_actions_of_the_env_pass_the_check() -> None:
    loss = BCLoss({0: ACTION_SPACE})
    loss.check_actions(
        0,
        {
            "discrete": torch.tensor([0, 2]),
            "multi_discrete": torch.tensor([[1, 2], [0, 0]]),
            "binary": torch.tensor([[0, 1, 1], [1, 1, 1]]),
            "continuous": torch.zeros(2, 2),
        },
    )


@pytest.mark.parametrize(
    "distribution_name", ["BetaProbabilityDistribution", "SquashedGaussianProbabilityDistribution"]
)
def test_box_heads_use_the_distribution_the_mapper_chose(distribution_name: str) -> None:
    config = [{"action_space": "gymnasium.spaces.Box", "distribution": distribution_name}]
    mapper = DistributionMapper(spaces.Dict({"continuous": BOX}), config)
    logits = {"continuous": torch.randn(6, 4, generator=torch.Generator().manual_seed(2))}
    actions = {"continuous": torch.full((6, 2), 0.25)}
    classes = {0: {"continuous": mapper.distribution_class("continuous")}}
    output = BCLoss({0: mapper.action_space}, distribution_classes=classes)(0, logits, actions)
    expected = -mapper.logits_dict_to_distribution(logits).log_prob(actions).mean()
    assert output.loss.item() == pytest.approx(expected.item(), rel=1e-5)
    assert output.entropy == pytest.approx(mapper.logits_dict_to_distribution(logits).entropy().mean().item(), rel=1e-4)


def test_discrete_heads_with_a_start_compare_actions_not_indices() -> None:
    space = spaces.Dict({"gear": spaces.Discrete(3, start=-1)})
    logits = {"gear": torch.tensor([[0.0, 0.0, 4.0], [4.0, 0.0, 0.0]])}
    actions = {"gear": torch.tensor([1, 0])}  # the most likely actions are 1 and -1
    output = BCLoss({0: space})(0, logits, actions)
    expected = -DistributionMapper(space).logits_dict_to_distribution(logits).log_prob(actions).mean()
    assert output.loss.item() == pytest.approx(expected.item(), rel=1e-6)
    assert output.accuracies["gear"] == 0.5
