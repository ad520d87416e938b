"""What the blocks compute (beyond shapes): masking, pooling, slicing, graphs, attention, recurrence."""

from __future__ import annotations

import pytest
import torch
from maze.env.errors import ConfigurationError
from maze.perception import (
    ActionMaskingBlock,
    ConcatenationBlock,
    CorrelationBlock,
    FlattenBlock,
    FunctionalBlock,
    GlobalAveragePoolingBlock,
    GraphAttentionBlock,
    GraphConvBlock,
    LSTMBlock,
    LSTMLastStepBlock,
    MaskedGlobalPoolingBlock,
    MultiHeadAttentionBlock,
    MultiIndexSlicingBlock,
    PointNetFeatureBlock,
    RepeatToMatchBlock,
    SelfAttentionConvBlock,
    SliceBlock,
    StridedConvolutionBlock,
)


def test_action_masking_never_samples_a_masked_action() -> None:
    block = ActionMaskingBlock(in_keys=["logits", "mask"], out_keys="masked_logits", in_shapes=[(3,), (3,)])
    logits = torch.tensor([0.0, 5.0, 0.0])  # the masked action would be the most likely one
    masked = block({"logits": logits, "mask": torch.tensor([1, 0, 1])})["masked_logits"]
    samples = torch.distributions.Categorical(logits=masked).sample((1000,))
    assert not (samples == 1).any()
    assert set(samples.tolist()) == {0, 2}
    torch.testing.assert_close(masked[[0, 2]], logits[[0, 2]])


def test_action_masking_accepts_bool_masks_and_rejects_shape_mismatch() -> None:
    block = ActionMaskingBlock(in_keys=["logits", "mask"], out_keys="y", in_shapes=[(2,), (2,)])
    masked = block({"logits": torch.zeros(4, 2), "mask": torch.tensor([[True, False]] * 4)})["y"]
    assert (masked[:, 1] == torch.finfo(torch.float32).min).all()
    with pytest.raises(ConfigurationError, match="same shape"):
        ActionMaskingBlock(in_keys=["logits", "mask"], out_keys="y", in_shapes=[(2,), (3,)])


@pytest.mark.parametrize(("func", "expected"), [("mean", [2.0, 20.0]), ("sum", [4.0, 40.0]), ("max", [3.0, 30.0])])
def test_masked_pooling_ignores_masked_entries(func: str, expected: list[float]) -> None:
    block = MaskedGlobalPoolingBlock(in_keys=["x", "m"], out_keys="y", in_shapes=[(3, 2), (3,)], pooling_func=func)
    values = torch.tensor([[1.0, 10.0], [3.0, 30.0], [100.0, 100.0]])
    pooled = block({"x": values, "m": torch.tensor([1.0, 1.0, 0.0])})["y"]
    torch.testing.assert_close(pooled, torch.tensor(expected))
    empty = block({"x": values, "m": torch.zeros(3)})["y"]
    torch.testing.assert_close(empty, torch.zeros(2))


def test_masked_pooling_rejects_a_mask_of_the_wrong_shape() -> None:
    with pytest.raises(ConfigurationError, match="mask of shape \\(3,\\)"):
        MaskedGlobalPoolingBlock(in_keys=["x", "m"], out_keys="y", in_shapes=[(3, 2), (2,)])


def test_global_average_pooling_averages_spatial_dims() -> None:
    block = GlobalAveragePoolingBlock(in_keys="x", out_keys="y", in_shapes=(2, 3, 3))
    image = torch.arange(18.0).reshape(2, 3, 3)
    torch.testing.assert_close(block({"x": image})["y"], torch.tensor([4.0, 13.0]))


def test_slicing_flatten_concat_and_repeat() -> None:
    x = torch.arange(12.0).reshape(4, 3)
    assert SliceBlock("x", "y", (4, 3), slice_dim=0, slice_idx=-1)({"x": x})["y"].tolist() == [9.0, 10.0, 11.0]
    picked = MultiIndexSlicingBlock("x", "y", (4, 3), select_dim=0, select_idxs=[2, 0])({"x": x})["y"]
    torch.testing.assert_close(picked, x[[2, 0]])
    assert FlattenBlock("x", "y", (4, 3), num_flatten_dims=2)({"x": x})["y"].tolist() == list(range(12))
    concat = ConcatenationBlock(["a", "b"], "y", [(4, 3), (4, 3)], concat_dim=0)({"a": x, "b": x})["y"]
    assert concat.shape == (8, 3)
    repeated = RepeatToMatchBlock(["v", "ref"], "y", [(2,), (5, 7)], repeat_at_idx=0)(
        {"v": torch.tensor([1.0, 2.0]), "ref": torch.zeros(5, 7)}
    )["y"]
    assert repeated.tolist() == [[1.0, 2.0]] * 5


def test_general_blocks_reject_out_of_range_dims() -> None:
    with pytest.raises(ConfigurationError, match="slice_dim=2"):
        SliceBlock("x", "y", (4, 3), slice_dim=2, slice_idx=0)
    with pytest.raises(ConfigurationError, match="slice_idx=4"):
        SliceBlock("x", "y", (4, 3), slice_dim=0, slice_idx=4)
    with pytest.raises(ConfigurationError, match="select_idxs"):
        MultiIndexSlicingBlock("x", "y", (4, 3), select_dim=1, select_idxs=[3])
    with pytest.raises(ConfigurationError, match="num_flatten_dims"):
        FlattenBlock("x", "y", (4, 3), num_flatten_dims=3)
    with pytest.raises(ConfigurationError, match="except concat_dim"):
        ConcatenationBlock(["a", "b"], "y", [(4, 3), (5, 3)], concat_dim=-1)


def test_correlation_is_the_dot_product_with_every_set_element() -> None:
    block = CorrelationBlock(["q", "set"], "y", [(2,), (3, 2)])
    scores = block({"q": torch.tensor([1.0, 2.0]), "set": torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])})["y"]
    assert scores.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ConfigurationError, match="same F"):
        CorrelationBlock(["q", "set"], "y", [(2,), (3, 4)])


def test_functional_block_checks_the_number_of_results() -> None:
    block = FunctionalBlock(["a"], ["b", "c"], [(2,)], func=torch.sigmoid)
    with pytest.raises(ValueError, match="returned 1 tensors for the 2 out_keys"):
        block({"a": torch.zeros(2)})


def test_graph_conv_only_mixes_connected_nodes() -> None:
    block = GraphConvBlock(["x", "adj"], "y", [(3, 2), (3, 3)], hidden_features=[2], node2node_aggr="sum")
    adjacency = torch.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    features = torch.randn(3, 2)
    changed = features.clone()
    changed[2] += 5.0  # node 2 is isolated: nodes 0 and 1 must not see the change
    before = block({"x": features, "adj": adjacency})["y"]
    after = block({"x": changed, "adj": adjacency})["y"]
    torch.testing.assert_close(before[:2], after[:2])
    assert not torch.allclose(before[2], after[2])


def test_graph_attention_only_attends_to_neighbours() -> None:
    block = GraphAttentionBlock(["x", "adj"], "y", [(3, 2), (3, 3)], hidden_features=[4], num_heads=2)
    adjacency = torch.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    features = torch.randn(3, 2)
    changed = features.clone()
    changed[2] -= 3.0
    before = block({"x": features, "adj": adjacency})["y"]
    after = block({"x": changed, "adj": adjacency})["y"]
    torch.testing.assert_close(before[:2], after[:2])
    with pytest.raises(ConfigurationError, match="dividing"):
        GraphAttentionBlock(["x", "adj"], "y", [(3, 2), (3, 3)], hidden_features=[5], num_heads=2)
    with pytest.raises(ConfigurationError, match="\\[\\(N, F\\), \\(N, N\\)\\]"):
        GraphConvBlock(["x", "adj"], "y", [(3, 2), (4, 4)], hidden_features=[2])


def test_multi_head_attention_ignores_padded_keys() -> None:
    block = MultiHeadAttentionBlock(
        ["q", "k", "v", "m"], ["y", "w"], [(2, 4), (3, 4), (3, 4), (3,)], num_heads=2, use_key_padding_mask=True
    )
    query, key, value = torch.randn(2, 4), torch.randn(3, 4), torch.randn(3, 4)
    mask = torch.tensor([1.0, 1.0, 0.0])
    output = block({"q": query, "k": key, "v": value, "m": mask})
    changed_value = value.clone()
    changed_value[2] += 10.0
    changed = block({"q": query, "k": key, "v": changed_value, "m": mask})
    torch.testing.assert_close(output["y"], changed["y"])
    assert (output["w"][:, 2] == 0).all()
    torch.testing.assert_close(output["w"].sum(-1), torch.ones(2))
    nothing_valid = block({"q": query, "k": key, "v": value, "m": torch.zeros(3)})
    torch.testing.assert_close(nothing_valid["y"], query)  # zero attention output plus the residual


def test_point_net_is_invariant_to_point_order_and_padding() -> None:
    block = PointNetFeatureBlock(["p", "m"], "y", [(4, 3), (4,)], embedding_dim=6, use_feature_transform=True).eval()
    points = torch.randn(4, 3)
    mask = torch.tensor([1.0, 1.0, 1.0, 0.0])
    embedding = block({"p": points, "m": mask})["y"]
    shuffled = points[[2, 0, 1, 3]].clone()
    shuffled[3] = 99.0  # padding content must not matter
    torch.testing.assert_close(block({"p": shuffled, "m": mask})["y"], embedding)


def test_self_attention_conv_starts_as_identity() -> None:
    block = SelfAttentionConvBlock("x", ["y", "a"], (2, 3, 3), embedding_dim=2)
    image = torch.randn(2, 3, 3)
    output = block({"x": image})
    torch.testing.assert_close(output["y"], image)
    torch.testing.assert_close(output["a"].sum(-1), torch.ones(9))


def test_lstm_last_step_is_the_last_step_of_the_lstm() -> None:
    last = LSTMLastStepBlock("x", "y", (5, 3), hidden_size=4)
    full = last.stages[0]
    assert isinstance(full, LSTMBlock)
    sequence = torch.randn(2, 5, 3)
    torch.testing.assert_close(last({"x": sequence})["y"], full({"x": sequence})[full.out_keys[0]][:, -1])
    assert last.out_shapes() == [(4,)]


def test_lstm_output_depends_on_earlier_steps_only() -> None:
    block = LSTMBlock("x", "y", (4, 2), hidden_size=3)
    sequence = torch.randn(4, 2)
    changed = sequence.clone()
    changed[3] += 1.0
    before, after = block({"x": sequence})["y"], block({"x": changed})["y"]
    torch.testing.assert_close(before[:3], after[:3])
    assert not torch.allclose(before[3], after[3])


def test_strided_convolution_validates_per_layer_lists() -> None:
    with pytest.raises(ConfigurationError, match="hidden_strides"):
        StridedConvolutionBlock("x", "y", (1, 8, 8), hidden_channels=[2, 2], hidden_kernels=[3, 3], hidden_strides=[1])
    with pytest.raises(ConfigurationError, match="hidden_kernels is required"):
        StridedConvolutionBlock("x", "y", (1, 8, 8), hidden_channels=[2], hidden_kernels=None)
    with pytest.raises(ConfigurationError, match="convolution_dimension"):
        StridedConvolutionBlock("x", "y", (1, 8, 8), hidden_channels=[2], hidden_kernels=[3], convolution_dimension=4)
