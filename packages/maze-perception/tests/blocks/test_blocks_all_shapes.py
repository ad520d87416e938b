"""Every block: leading dims none/[B]/[T, B] survive, out_shapes() matches, gradients flow."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from maze.perception.blocks import (
    ActionMaskingBlock,
    ConcatenationBlock,
    CorrelationBlock,
    DenseBlock,
    FlattenBlock,
    FlattenDenseBlock,
    FunctionalBlock,
    GlobalAveragePoolingBlock,
    GraphAttentionBlock,
    GraphConvBlock,
    InferenceBlock,
    LinearOutputBlock,
    LSTMBlock,
    LSTMLastStepBlock,
    MaskedGlobalPoolingBlock,
    MultiHeadAttentionBlock,
    MultiIndexSlicingBlock,
    PerceptionBlock,
    PointNetFeatureBlock,
    RepeatToMatchBlock,
    SelfAttentionConvBlock,
    SelfAttentionSeqBlock,
    SliceBlock,
    StridedConvolutionBlock,
    StridedConvolutionDenseBlock,
    TorchModelBlock,
    VGGConvolutionBlock,
    VGGConvolutionDenseBlock,
    VGGConvolutionGAPBlock,
)
from torch import nn


class _SumAndScale(nn.Module):
    """A plain dict-in/dict-out module that only works on rank-2 inputs."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(3, 2)

    def forward(self, tensors: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        assert tensors["x"].dim() == 2
        return {"y": self.linear(tensors["x"]), "unused": tensors["x"]}


def _small_inference_block() -> InferenceBlock:
    dense = DenseBlock(in_keys="obs", out_keys="latent", in_shapes=(3,), hidden_units=[4])
    head = LinearOutputBlock(in_keys="latent", out_keys="logits", in_shapes=dense.out_shapes(), output_units=2)
    return InferenceBlock(
        in_keys="obs",
        out_keys=["logits", "latent"],
        in_shapes=(3,),
        perception_blocks={"latent": dense, "logits": head},
    )


# name -> (builder, kinds of special inputs: "mask" (0/1 with a valid entry) or "adjacency" (0/1))
CASES: dict[str, tuple[Callable[[], PerceptionBlock], dict[str, str]]] = {
    "dense": (lambda: DenseBlock("x", "y", (4,), hidden_units=[5, 6], non_lin="torch.nn.Tanh"), {}),
    "dense_time_distributed": (lambda: DenseBlock("x", "y", (3, 4), hidden_units=[5]), {}),
    "vgg_conv": (lambda: VGGConvolutionBlock("x", "y", (2, 8, 8), hidden_channels=[3, 4]), {}),
    "strided_conv_2d": (
        lambda: StridedConvolutionBlock(
            "x",
            "y",
            (2, 9, 9),
            hidden_channels=[3, 4],
            hidden_kernels=[3, 3],
            hidden_strides=[2, 1],
            hidden_padding=[1, 0],
            hidden_dilations=[1, 2],
            padding_mode="reflect",
        ),
        {},
    ),
    "strided_conv_1d": (
        lambda: StridedConvolutionBlock(
            "x", "y", (2, 10), hidden_channels=[3], hidden_kernels=[3], convolution_dimension=1
        ),
        {},
    ),
    "graph_conv": (
        lambda: GraphConvBlock(["x", "adj"], "y", [(5, 3), (5, 5)], hidden_features=[4, 6], node2node_aggr="mean"),
        {"adj": "adjacency"},
    ),
    "graph_attention": (
        lambda: GraphAttentionBlock(["x", "adj"], "y", [(5, 3), (5, 5)], hidden_features=[4, 6], num_heads=[2, 3]),
        {"adj": "adjacency"},
    ),
    "mha_self_with_weights": (
        lambda: MultiHeadAttentionBlock("x", ["y", "w"], (4, 6), num_heads=2),
        {},
    ),
    "mha_qkv_masked": (
        lambda: MultiHeadAttentionBlock(
            ["q", "k", "v", "m"], "y", [(3, 6), (5, 4), (5, 2), (5,)], num_heads=3, use_key_padding_mask=True
        ),
        {"m": "mask"},
    ),
    "point_net": (
        lambda: PointNetFeatureBlock(["x", "m"], "y", [(7, 3), (7,)], embedding_dim=5, use_feature_transform=True),
        {"m": "mask"},
    ),
    "lstm": (lambda: LSTMBlock("x", "y", (4, 3), hidden_size=5, num_layers=2, bidirectional=True), {}),
    "lstm_single_step": (lambda: LSTMBlock("x", "y", (3,), hidden_size=5), {}),
    "lstm_last_step": (lambda: LSTMLastStepBlock("x", "y", (4, 3), hidden_size=5, non_lin="torch.nn.SELU"), {}),
    "flatten": (lambda: FlattenBlock("x", "y", (2, 3, 4), num_flatten_dims=2), {}),
    "correlation_vector": (lambda: CorrelationBlock(["a", "b"], "y", [(6,), (5, 6)]), {}),
    "correlation_set": (lambda: CorrelationBlock(["a", "b"], "y", [(4, 6), (5, 6)]), {}),
    "concat": (lambda: ConcatenationBlock(["a", "b"], "y", [(3,), (4,)]), {}),
    "concat_first_dim": (lambda: ConcatenationBlock(["a", "b"], "y", [(2, 3), (1, 3)], concat_dim=0), {}),
    "functional": (lambda: FunctionalBlock(["a", "b"], ["s", "p"], [(3,), (3,)], func=lambda a, b: (a + b, a * b)), {}),
    "gap": (lambda: GlobalAveragePoolingBlock("x", "y", (3, 4, 4), pooling_func="max"), {}),
    "masked_pooling": (
        lambda: MaskedGlobalPoolingBlock(["x", "m"], "y", [(5, 3), (5,)], pooling_func="max"),
        {"m": "mask"},
    ),
    "pooling_unmasked": (lambda: MaskedGlobalPoolingBlock("x", "y", (5, 3), pooling_func="sum", pooling_dim=1), {}),
    "multi_index_slicing": (lambda: MultiIndexSlicingBlock("x", "y", (5, 3), select_dim=0, select_idxs=[0, -1]), {}),
    "repeat_to_match": (lambda: RepeatToMatchBlock(["x", "ref"], "y", [(3,), (4, 2)], repeat_at_idx=-2), {}),
    "self_attention_conv": (
        lambda: SelfAttentionConvBlock("x", ["y", "attention"], (4, 3, 3), embedding_dim=2),
        {},
    ),
    "self_attention_seq": (
        lambda: SelfAttentionSeqBlock(["x", "m"], "y", [(5, 4), (5,)], num_heads=2),
        {"m": "mask"},
    ),
    "slice": (lambda: SliceBlock("x", "y", (4, 3), slice_dim=-2, slice_idx=-1), {}),
    "action_masking": (lambda: ActionMaskingBlock(["logits", "mask"], "y", [(3,), (3,)]), {"mask": "mask"}),
    "torch_model": (
        lambda: TorchModelBlock("x", "y", (3,), in_num_dims=[2], out_num_dims=2, net=_SumAndScale()),
        {},
    ),
    "flatten_dense": (lambda: FlattenDenseBlock("x", "y", (2, 3), num_flatten_dims=2, hidden_units=[4]), {}),
    "vgg_conv_dense": (
        lambda: VGGConvolutionDenseBlock("x", "y", (2, 8, 8), hidden_channels=[2, 3], hidden_units=[4]),
        {},
    ),
    "vgg_conv_gap": (lambda: VGGConvolutionGAPBlock("x", "y", (2, 8, 8), hidden_channels=[2, 3]), {}),
    "strided_conv_dense": (
        lambda: StridedConvolutionDenseBlock(
            "x", "y", (1, 8, 8), hidden_channels=[2], hidden_kernels=[3], hidden_strides=[2], hidden_units=[4]
        ),
        {},
    ),
    "linear_output": (lambda: LinearOutputBlock("x", "y", (4,), output_units=2), {}),
    "inference": (_small_inference_block, {}),
}

LEADING_DIMS = {"single": (), "batch": (3,), "time_batch": (2, 3)}


def _inputs(block: PerceptionBlock, kinds: dict[str, str], leading: tuple[int, ...]) -> dict[str, torch.Tensor]:
    inputs = {}
    for key, shape in zip(block.in_keys, block.in_shapes, strict=True):
        kind = kinds.get(key, "float")
        if kind == "float":
            inputs[key] = torch.randn(*leading, *shape, requires_grad=True)
        else:
            tensor = (torch.rand(*leading, *shape) > 0.5).float()
            if kind == "mask":
                tensor[..., 0] = 1.0
            inputs[key] = tensor
    return inputs


@pytest.mark.parametrize("leading_name", sorted(LEADING_DIMS))
@pytest.mark.parametrize("case", sorted(CASES))
def test_leading_dims_are_kept_and_out_shapes_match(case: str, leading_name: str) -> None:
    builder, kinds = CASES[case]
    block = builder()
    leading = LEADING_DIMS[leading_name]
    output = block(_inputs(block, kinds, leading))
    assert list(output) == block.out_keys
    assert len(block.out_shapes()) == len(block.out_keys)
    for key, shape in zip(block.out_keys, block.out_shapes(), strict=True):
        assert tuple(output[key].shape) == leading + shape, key


@pytest.mark.parametrize("case", sorted(CASES))
def test_batched_output_equals_per_sample_output(case: str) -> None:
    builder, kinds = CASES[case]
    block = builder().eval()
    inputs = _inputs(block, kinds, (2, 3))
    batched = block(inputs)
    for t in range(2):
        for b in range(3):
            single = block({key: value[t, b] for key, value in inputs.items()})
            for key in block.out_keys:
                torch.testing.assert_close(batched[key][t, b], single[key], atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("case", sorted(CASES))
def test_backward_reaches_every_parameter_and_float_input(case: str) -> None:
    builder, kinds = CASES[case]
    block = builder()
    inputs = _inputs(block, kinds, (3,))
    output = block(inputs)
    loss = sum(tensor.clamp(min=-1e3).sum() for tensor in output.values())
    loss.backward()
    for name, parameter in block.named_parameters():
        assert parameter.grad is not None, name
    float_inputs = [tensor for tensor in inputs.values() if tensor.requires_grad]
    assert any(tensor.grad is not None and tensor.grad.abs().sum() > 0 for tensor in float_inputs)


@pytest.mark.parametrize("case", sorted(CASES))
def test_repr_starts_with_the_class_name(case: str) -> None:
    block = CASES[case][0]()
    assert repr(block).splitlines()[0] == type(block).__name__
