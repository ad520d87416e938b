"""call_module gives exactly what module(...) gives, falling back to __call__ whenever it matters."""

from collections.abc import Callable

import pytest
import torch
from maze.perception.blocks.base import call_module
from torch import nn


class _ScaledCall(nn.Linear):
    """A module that changes its result in __call__ (not in forward)."""

    def __call__(self, *args, **kwargs):
        return super().__call__(*args, **kwargs) * 0.0


def _forward_hook(module: nn.Module) -> list:
    calls: list = []
    module.register_forward_hook(lambda mod, inputs, output: calls.append(1) or output * 2.0)
    return calls


def _pre_hook(module: nn.Module) -> list:
    calls: list = []
    module.register_forward_pre_hook(lambda mod, inputs: calls.append(1) or (inputs[0] + 1.0,))
    return calls


def _global_hook(module: nn.Module) -> list:
    calls: list = []
    handle = nn.modules.module.register_module_forward_hook(lambda mod, inputs, output: calls.append(1))
    calls.append(handle)
    return calls


@pytest.mark.parametrize("install", [_forward_hook, _pre_hook, _global_hook], ids=["forward", "pre", "global"])
def test_registered_hooks_still_run_and_change_the_result(install: Callable[[nn.Module], list]) -> None:
    torch.manual_seed(0)
    module = nn.Linear(3, 2)
    inputs = torch.randn(4, 3)
    plain = module.forward(inputs)
    calls = install(module)
    try:
        expected = module(inputs)
        fired = len([c for c in calls if c == 1])
        result = call_module(module, inputs)
        assert len([c for c in calls if c == 1]) == fired + 1
        assert torch.equal(result, expected)
        if install is not _global_hook:
            assert not torch.equal(result, plain)
    finally:
        for item in calls:
            if hasattr(item, "remove"):
                item.remove()


def test_overridden_call_is_honoured() -> None:
    module = _ScaledCall(3, 2)
    inputs = torch.randn(2, 3)
    assert torch.equal(call_module(module, inputs), module(inputs))
    assert torch.count_nonzero(call_module(module, inputs)) == 0


def test_plain_module_result_equals_a_normal_call() -> None:
    module = nn.Sequential(nn.Linear(3, 4), nn.Tanh())
    inputs = torch.randn(5, 3)
    assert torch.equal(call_module(module, inputs), module(inputs))
