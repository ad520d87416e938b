"""maze.train.optim: Adam and RMSprop make the same updates as torch.optim's, with a tensors-only state that round-trips."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from maze.env.errors import ConfigurationError
from maze.perception.serialization import check_tensors_only, load_state_dict_file, save_state_dict
from maze.train.optim import Adam, RMSprop, build_optimizer


def small_net(seed: int = 0, hidden: int = 5) -> torch.nn.Sequential:
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(3, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, 2))


def batch(step: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(step)
    return torch.randn(8, 3, generator=generator), torch.randn(8, 2, generator=generator)


def train(net: torch.nn.Module, optimizer, steps: range, loss_of: Callable = lambda net, x: net(x)) -> None:
    """Takes one optimizer step per batch of ``steps`` on a squared error."""
    for step in steps:
        inputs, targets = batch(step)
        optimizer.zero_grad()
        ((loss_of(net, inputs) - targets) ** 2).mean().backward()
        optimizer.step()


def parameters(net: torch.nn.Module) -> list[torch.Tensor]:
    return [parameter.detach().clone() for parameter in net.parameters()]


@pytest.mark.parametrize(("lr", "betas", "eps"), [(1e-2, (0.9, 0.999), 1e-8), (3e-3, (0.5, 0.9), 1e-4)])
def test_matches_torch_adam_over_twenty_steps(lr, betas, eps) -> None:
    ours, reference = small_net(), small_net()
    train(ours, Adam(ours.parameters(), lr=lr, betas=betas, eps=eps), range(20))
    train(reference, torch.optim.Adam(reference.parameters(), lr=lr, betas=betas, eps=eps), range(20))

    for mine, theirs, initial in zip(parameters(ours), parameters(reference), parameters(small_net()), strict=True):
        torch.testing.assert_close(mine, theirs, rtol=1e-5, atol=1e-6)
        assert not torch.equal(mine, initial)


def first_layer_only(net: torch.nn.Module, inputs: torch.Tensor) -> torch.Tensor:
    """Uses only the first layer: the second gets no gradient."""
    return net[0](inputs)[:, :2]


def test_eps_is_added_to_the_root_of_the_second_moment() -> None:
    parameter = torch.nn.Parameter(torch.zeros(1))
    parameter.grad = torch.ones(1)
    Adam([parameter], lr=0.1, eps=1.0).step()
    # first step, bias-corrected: lr * g / (sqrt(g^2) + eps) = 0.1 * 1 / (1 + 1)
    assert float(parameter) == pytest.approx(-0.05)


def test_skips_parameters_without_gradient_like_torch_adam() -> None:
    ours, reference = small_net(), small_net()
    optimizer = Adam(ours.parameters(), lr=1e-2)
    reference_optimizer = torch.optim.Adam(reference.parameters(), lr=1e-2)
    before = parameters(ours)

    train(ours, optimizer, range(3), first_layer_only)
    train(reference, reference_optimizer, range(3), first_layer_only)

    after = parameters(ours)
    assert not torch.equal(after[0], before[0])
    for untouched in (2, 3):  # the second layer's weight and bias
        assert torch.equal(after[untouched], before[untouched])
        assert float(optimizer.steps[untouched]) == 0.0
        assert not optimizer.exp_avg[untouched].any()
    # Later steps of all parameters keep per-parameter step counts (bias correction) like torch.
    train(ours, optimizer, range(3, 8))
    train(reference, reference_optimizer, range(3, 8))
    for mine, theirs in zip(parameters(ours), parameters(reference), strict=True):
        torch.testing.assert_close(mine, theirs, rtol=1e-5, atol=1e-6)


def test_a_step_without_any_gradient_changes_nothing() -> None:
    net = small_net()
    optimizer = Adam(net.parameters(), lr=1e-2)
    before = parameters(net)
    optimizer.step()
    assert all(torch.equal(a, b) for a, b in zip(parameters(net), before, strict=True))
    assert all(float(step) == 0.0 for step in optimizer.steps)


@pytest.mark.parametrize("optimizer_class", [Adam, RMSprop])
def test_state_dict_is_tensors_only_and_resumes_exactly_after_a_file_round_trip(
    tmp_path: Path, optimizer_class
) -> None:
    uninterrupted = small_net()
    train(uninterrupted, optimizer_class(uninterrupted.parameters(), lr=1e-2), range(10))

    first = small_net()
    optimizer = optimizer_class(first.parameters(), lr=1e-2)
    train(first, optimizer, range(5))
    state = optimizer.state_dict()
    check_tensors_only(state)
    save_state_dict(state, tmp_path / "optimizer.pt")
    save_state_dict(first.state_dict(), tmp_path / "model.pt")

    resumed = small_net(seed=1)
    resumed.load_state_dict(load_state_dict_file(tmp_path / "model.pt"))
    resumed_optimizer = optimizer_class(resumed.parameters(), lr=1e-2)
    resumed_optimizer.load_state_dict(load_state_dict_file(tmp_path / "optimizer.pt"))
    train(resumed, resumed_optimizer, range(5, 10))

    for mine, theirs in zip(parameters(resumed), parameters(uninterrupted), strict=True):
        assert torch.equal(mine, theirs)


def test_state_dict_and_loaded_state_do_not_alias_the_optimizer() -> None:
    net = small_net()
    optimizer = Adam(net.parameters(), lr=1e-2)
    train(net, optimizer, range(2))
    state = optimizer.state_dict()
    snapshot = [tensor.clone() for tensor in state["exp_avg"].values()]
    other_net = small_net()
    other = Adam(other_net.parameters(), lr=1e-2)
    other.load_state_dict(state)

    train(net, optimizer, range(2, 4))
    train(other_net, other, range(4, 6))

    assert all(torch.equal(a, b) for a, b in zip(state["exp_avg"].values(), snapshot, strict=True))
    assert not torch.equal(optimizer.exp_avg[0], snapshot[0])
    assert not torch.equal(other.exp_avg[0], snapshot[0])


@pytest.mark.parametrize(
    "other_model",
    [lambda: small_net(hidden=6), lambda: torch.nn.Sequential(torch.nn.Linear(3, 5))],
    ids=["other_shapes", "fewer_parameters"],
)
def test_rejects_the_state_of_another_model(other_model) -> None:
    net = small_net()
    optimizer = Adam(net.parameters(), lr=1e-2)
    train(net, optimizer, range(2))

    other = Adam(other_model().parameters(), lr=1e-2)
    with pytest.raises(ConfigurationError, match="belongs to other parameters"):
        other.load_state_dict(optimizer.state_dict())


@pytest.mark.parametrize(("keep_lr", "expected_lr"), [(True, 0.5), (False, 1e-2)])
def test_keep_lr_keeps_the_current_learning_rate(keep_lr: bool, expected_lr: float) -> None:
    stored = Adam(small_net().parameters(), lr=1e-2).state_dict()
    optimizer = Adam(small_net().parameters(), lr=0.5)
    optimizer.load_state_dict(stored, keep_lr=keep_lr)
    assert optimizer.lr == pytest.approx(expected_lr)


def test_parameters_of_different_dtypes_are_updated_like_torch_adam() -> None:
    """The fused kernel takes one dtype per call: a float64 layer next to float32 ones gets its own call."""
    ours, reference = small_net(), small_net()
    ours[2].double()
    reference[2].double()

    def mixed(net: torch.nn.Module, inputs: torch.Tensor) -> torch.Tensor:
        return net[2](net[1](net[0](inputs)).double()).float()

    train(ours, Adam(ours.parameters(), lr=1e-2), range(10), mixed)
    train(reference, torch.optim.Adam(reference.parameters(), lr=1e-2), range(10), mixed)

    for mine, theirs in zip(parameters(ours), parameters(reference), strict=True):
        torch.testing.assert_close(mine, theirs, rtol=1e-5, atol=1e-6)
    assert ours[2].weight.dtype == torch.float64


def test_loads_a_state_with_float64_step_counts() -> None:
    """States saved before the fused kernel counted steps in float64; they resume with the same counts."""
    net = small_net()
    optimizer = Adam(net.parameters(), lr=1e-2)
    train(net, optimizer, range(3))
    state = optimizer.state_dict()
    state["steps"] = {index: step.to(torch.float64) for index, step in state["steps"].items()}

    resumed = Adam(net.parameters(), lr=1e-2)
    resumed.load_state_dict(state)
    train(net, resumed, range(3, 4))

    assert [float(step) for step in resumed.steps] == [4.0] * len(resumed.steps)
    assert all(step.dtype == torch.float32 for step in resumed.steps)


@pytest.mark.parametrize(("lr", "eps"), [(7e-4, 1e-5), (1e-2, 1e-8)])
def test_rmsprop_matches_torch_rmsprop_and_skips_parameters_without_gradient(lr: float, eps: float) -> None:
    ours, reference = small_net(), small_net()
    optimizer = RMSprop(ours.parameters(), lr=lr, eps=eps)
    reference_optimizer = torch.optim.RMSprop(reference.parameters(), lr=lr, alpha=0.99, eps=eps)
    before = parameters(ours)

    train(ours, optimizer, range(3), first_layer_only)
    train(reference, reference_optimizer, range(3), first_layer_only)
    assert all(torch.equal(parameters(ours)[index], before[index]) for index in (2, 3))
    train(ours, optimizer, range(3, 20))
    train(reference, reference_optimizer, range(3, 20))

    for mine, theirs, initial in zip(parameters(ours), parameters(reference), before, strict=True):
        torch.testing.assert_close(mine, theirs, rtol=1e-5, atol=1e-6)
        assert not torch.equal(mine, initial)


@pytest.mark.parametrize(("writer", "reader"), [("adam", "rmsprop"), ("rmsprop", "adam")])
def test_the_state_of_the_other_optimizer_is_refused_naming_the_key(writer: str, reader: str) -> None:
    net = small_net()
    stored = build_optimizer(writer, net.parameters(), lr=1e-2, eps=1e-8).state_dict()
    with pytest.raises(ConfigurationError, match="written by another optimizer .* algorithm.optimizer changed"):
        build_optimizer(reader, net.parameters(), lr=1e-2, eps=1e-8).load_state_dict(stored)
