"""DenseBlock acceptance checks, ShapeNormalizationBlock (the docs' custom-block example) and TorchModelBlock."""

from __future__ import annotations

import pytest
import torch
from maze.env.errors import ConfigurationError
from maze.perception import DenseBlock, MultiHeadAttentionBlock, ShapeNormalizationBlock, TorchModelBlock
from torch import nn


def test_dense_block_maps_batch_and_reports_out_shapes() -> None:
    block = DenseBlock(in_keys="obs", out_keys="z", in_shapes=(16,), hidden_units=[32, 32], non_lin=nn.ReLU)
    output = block({"obs": torch.randn(8, 16)})
    assert list(output) == ["z"]
    assert output["z"].shape == (8, 32)
    assert block.out_shapes() == [(32,)]
    assert (output["z"] >= 0).all()  # ReLU after the last layer


def test_dense_block_accepts_single_and_time_batch_inputs() -> None:
    block = DenseBlock(in_keys="obs", out_keys="z", in_shapes=(16,), hidden_units=[32, 32], non_lin=nn.ReLU)
    assert block({"obs": torch.randn(16)})["z"].shape == (32,)
    assert block({"obs": torch.randn(5, 8, 16)})["z"].shape == (5, 8, 32)


def test_dense_block_resolves_dotted_and_short_non_lin_names() -> None:
    for non_lin in ("torch.nn.Tanh", "Tanh", nn.Tanh):
        block = DenseBlock(in_keys="obs", out_keys="z", in_shapes=(2,), hidden_units=[3], non_lin=non_lin)
        assert isinstance(block.net[1], nn.Tanh)
        assert block.non_lin is nn.Tanh


def test_dense_block_repr_is_a_graph_label_with_key_params() -> None:
    block = DenseBlock(in_keys="obs", out_keys="z", in_shapes=(16,), hidden_units=[32, 32], non_lin="torch.nn.ReLU")
    assert repr(block) == "DenseBlock\nhidden_units: [32, 32]\nnon_lin: ReLU"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"non_lin": "torch.nn.NoSuchThing"}, "NoSuchThing"),
        ({"non_lin": "math.pi"}, "non_lin"),
        ({"hidden_units": []}, "hidden_units"),
        ({"in_shapes": [(16,), (4,)]}, "in_shapes"),
        ({"in_keys": ["a", "b"], "in_shapes": [(16,), (16,)]}, "in_keys"),
    ],
)
def test_dense_block_rejects_bad_configs_with_clear_errors(kwargs: dict, message: str) -> None:
    config = {"in_keys": "obs", "out_keys": "z", "in_shapes": (16,), "hidden_units": [4], "non_lin": nn.ReLU}
    config.update(kwargs)
    with pytest.raises(ConfigurationError, match=message):
        DenseBlock(**config)


def test_missing_input_key_names_the_key() -> None:
    block = DenseBlock(in_keys="obs", out_keys="z", in_shapes=(4,), hidden_units=[3])
    with pytest.raises(KeyError, match="'obs'"):
        block({"observation": torch.zeros(4)})


class MyLinearBlock(ShapeNormalizationBlock):
    """Our own version of the docs' toy block: one linear layer on rank-2 (batch, features) tensors."""

    def __init__(self, in_keys, out_keys, in_shapes, output_units: int):
        super().__init__(in_keys=in_keys, out_keys=out_keys, in_shapes=in_shapes, in_num_dims=2, out_num_dims=2)
        self.output_units = output_units
        self.net = nn.Linear(self.in_shapes[0][-1], output_units)
        self.seen_shapes: list[tuple[int, ...]] = []

    def normalized_forward(self, block_input: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        tensor = block_input[self.in_keys[0]]
        self.seen_shapes.append(tuple(tensor.shape))
        return {self.out_keys[0]: self.net(tensor)}

    def __repr__(self) -> str:
        return f"{type(self).__name__}\nOut Shapes: {self.out_shapes()}"


def test_custom_shape_normalization_block_sees_rank_two_for_any_leading_dims() -> None:
    block = MyLinearBlock(in_keys="x", out_keys="y", in_shapes=(6,), output_units=3)
    assert block.out_shapes() == [(3,)]
    block.seen_shapes.clear()
    assert block({"x": torch.randn(6)})["y"].shape == (3,)
    assert block({"x": torch.randn(4, 6)})["y"].shape == (4, 3)
    assert block({"x": torch.randn(2, 4, 6)})["y"].shape == (2, 4, 3)
    assert block.seen_shapes == [(1, 6), (4, 6), (8, 6)]
    assert repr(block) == "MyLinearBlock\nOut Shapes: [(3,)]"


def test_shape_normalization_handles_non_contiguous_inputs() -> None:
    block = MyLinearBlock(in_keys="x", out_keys="y", in_shapes=(6,), output_units=3)
    tensor = torch.randn(6, 4, 5).permute(1, 2, 0)  # [4, 5, 6], not contiguous
    assert not tensor.is_contiguous()
    output = block({"x": tensor})["y"]
    torch.testing.assert_close(output, block.net(tensor.contiguous()))


def test_shape_normalization_rejects_too_few_dims_and_mismatched_leading_dims() -> None:
    block = MyLinearBlock(in_keys="x", out_keys="y", in_shapes=(2, 6), output_units=3)
    with pytest.raises(ValueError, match="at least 1"):
        block({"x": torch.tensor(1.0)})
    pair = TorchModelBlock(
        in_keys=["a", "b"], out_keys="a", in_shapes=[(3,), (3,)], in_num_dims=2, out_num_dims=2, net=nn.Identity()
    )
    with pytest.raises(ValueError, match="leading dims"):
        pair({"a": torch.zeros(4, 3), "b": torch.zeros(5, 3)})


def test_shape_normalization_rejects_in_num_dims_that_do_not_fit_in_shapes() -> None:
    with pytest.raises(ConfigurationError, match="rank 2 without the batch"):
        TorchModelBlock(in_keys="x", out_keys="y", in_shapes=(3,), in_num_dims=3, out_num_dims=2, net=nn.Identity())


class _CartPolePolicyNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(4, 2)

    def forward(self, tensors: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        return {"action": self.linear(tensors["observation"])}


def test_torch_model_block_normalizes_a_plain_policy_net() -> None:
    net = _CartPolePolicyNet()
    block = TorchModelBlock(
        in_keys="observation", out_keys="action", in_shapes=(4,), in_num_dims=[2], out_num_dims=2, net=net
    )
    observation = torch.randn(4)
    torch.testing.assert_close(block({"observation": observation})["action"], net.linear(observation))
    assert block({"observation": torch.randn(3, 7, 4)})["action"].shape == (3, 7, 2)
    assert block.out_shapes() == [(2,)]
    assert repr(block) == "TorchModelBlock\nnet: _CartPolePolicyNet"


def test_torch_model_block_reports_missing_and_wrong_rank_outputs() -> None:
    missing = TorchModelBlock(
        in_keys="observation", out_keys="value", in_shapes=(4,), in_num_dims=2, out_num_dims=2, net=_CartPolePolicyNet()
    )
    with pytest.raises(KeyError, match="'value'"):
        missing({"observation": torch.zeros(4)})
    wrong_rank = TorchModelBlock(
        in_keys="observation",
        out_keys="action",
        in_shapes=(4,),
        in_num_dims=2,
        out_num_dims=3,
        net=_CartPolePolicyNet(),
    )
    with pytest.raises(ValueError, match="out_num_dims"):
        wrong_rank({"observation": torch.zeros(4)})


def test_out_shapes_dry_run_does_not_change_training_modes_or_rng() -> None:
    block = DenseBlock(in_keys="obs", out_keys="z", in_shapes=(4,), hidden_units=[3])
    block.train()
    block.net[1].eval()  # a mixed mode must survive the dry run
    assert block.out_shapes() == [(3,)]
    assert block.training and block.net[0].training and not block.net[1].training
    attention = MultiHeadAttentionBlock(in_keys="x", out_keys="y", in_shapes=(3, 4), num_heads=2, dropout=0.5)
    state = torch.random.get_rng_state()
    assert attention.out_shapes() == [(3, 4)]  # eval mode: dropout draws no random numbers
    assert torch.equal(state, torch.random.get_rng_state())
