import warnings

import numpy as np
import pytest
import torch
from gymnasium import spaces
from maze.env.errors import ConfigurationError
from maze.perception import perception_utils
from maze.perception.perception_utils import (
    convert_to_numpy,
    convert_to_torch,
    flatten_spaces,
    observation_spaces_to_in_shapes,
    resolve_device,
    stack_and_flatten_spaces,
)
from maze.perception.weight_init import compute_sigmoid_bias, make_module_init_normc
from torch import nn


@pytest.mark.parametrize("std", [1.0, 0.01])
def test_normc_gives_each_output_row_the_norm_std_and_zero_bias(std: float) -> None:
    net = nn.Sequential(nn.Linear(7, 5), nn.ReLU(), nn.Conv2d(3, 4, kernel_size=3))
    net.apply(make_module_init_normc(std))
    assert torch.allclose(net[0].weight.norm(dim=1), torch.full((5,), std), rtol=1e-5)
    assert torch.allclose(net[2].weight.reshape(4, -1).norm(dim=1), torch.full((4,), std), rtol=1e-5)
    assert torch.count_nonzero(net[0].bias) == 0 and torch.count_nonzero(net[2].bias) == 0


def test_normc_rejects_non_positive_std() -> None:
    with pytest.raises(ConfigurationError, match="std must be positive"):
        make_module_init_normc(0.0)


def test_sigmoid_bias() -> None:
    assert compute_sigmoid_bias(0.5) == 0.0
    for probability in (0.01, 0.2, 0.9):
        assert torch.sigmoid(torch.tensor(compute_sigmoid_bias(probability))).item() == pytest.approx(probability)
    with pytest.raises(ConfigurationError, match="probability"):
        compute_sigmoid_bias(1.0)


def test_observation_spaces_to_in_shapes() -> None:
    shapes = observation_spaces_to_in_shapes(
        {
            0: spaces.Dict({"a": spaces.Box(0, 1, (3, 2)), "b": spaces.Discrete(5)}),
            "x": spaces.Dict({"c": spaces.MultiBinary(4)}),
        }
    )
    assert shapes == {0: {"a": (3, 2), "b": (1,)}, "x": {"c": (4,)}}


def test_flatten_and_stack_spaces() -> None:
    first = spaces.Dict({"items": spaces.Box(0, 1, (4,)), "a": spaces.Discrete(2)})
    second = spaces.Dict({"items": spaces.Box(0, 1, (4,)), "step": spaces.Box(0, 9, (1,))})
    assert set(flatten_spaces([first, second]).spaces) == {"items", "a", "step"}
    stacked = stack_and_flatten_spaces([first, second])
    assert stacked["items"].shape == (2, 4) and stacked["step"].shape == (1,)
    with pytest.raises(ConfigurationError, match="'items'"):
        flatten_spaces([first, spaces.Dict({"items": spaces.Box(0, 1, (5,))})])


def test_convert_to_torch_and_back() -> None:
    struct = {"a": np.arange(3, dtype=np.float64), "b": [np.ones((2,), dtype=np.float32), 2]}
    tensors = convert_to_torch(struct, device="cpu", cast=torch.float32)
    assert tensors["a"].dtype == torch.float32 and tensors["b"][1].item() == 2.0
    back = convert_to_numpy(tensors)
    np.testing.assert_array_equal(back["a"], [0.0, 1.0, 2.0])
    in_place = {"x": torch.zeros(2)}
    assert convert_to_numpy(in_place, in_place=True) is in_place and isinstance(in_place["x"], np.ndarray)


def test_cuda_request_without_cuda_falls_back_with_one_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(perception_utils, "_warned_cuda_fallback", False)
    with pytest.warns(RuntimeWarning, match="CUDA is not available"):
        assert resolve_device("cuda") == torch.device("cpu")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert resolve_device("cuda:0") == torch.device("cpu")
    with pytest.raises(ConfigurationError, match="not a torch device"):
        resolve_device("gpu-please")
