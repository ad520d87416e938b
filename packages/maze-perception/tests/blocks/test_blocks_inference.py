"""InferenceBlock graphs (a two-modality network with a shared latent) and their plain-data structure."""

from __future__ import annotations

import json

import pytest
import torch
from maze.env.errors import ConfigurationError
from maze.perception import (
    ConcatenationBlock,
    DenseBlock,
    InferenceBlock,
    LinearOutputBlock,
    PerceptionBlock,
    VGGConvolutionDenseBlock,
    inference_graph_structure,
)
from torch import nn


def _two_modality_blocks() -> dict[str, PerceptionBlock]:
    blocks: dict[str, PerceptionBlock] = {}
    blocks["latent_inventory"] = DenseBlock(
        in_keys="observation_inventory", out_keys="latent_inventory", in_shapes=(16,), hidden_units=[8], non_lin=nn.ReLU
    )
    blocks["latent_screen"] = VGGConvolutionDenseBlock(
        in_keys="observation_screen",
        out_keys="latent_screen",
        in_shapes=(3, 8, 8),
        hidden_channels=[2, 4],
        hidden_units=[8],
        non_lin="torch.nn.ReLU",
    )
    blocks["latent_concat"] = ConcatenationBlock(
        in_keys=["latent_inventory", "latent_screen"],
        out_keys="latent_concat",
        in_shapes=blocks["latent_inventory"].out_shapes() + blocks["latent_screen"].out_shapes(),
        concat_dim=-1,
    )
    blocks["latent"] = DenseBlock(
        in_keys="latent_concat", out_keys="latent", in_shapes=blocks["latent_concat"].out_shapes(), hidden_units=[12]
    )
    blocks["action_move"] = LinearOutputBlock(
        in_keys="latent", out_keys="action_move", in_shapes=blocks["latent"].out_shapes(), output_units=4
    )
    blocks["action_use"] = LinearOutputBlock(
        in_keys="latent", out_keys="action_use", in_shapes=blocks["latent"].out_shapes(), output_units=16
    )
    return blocks


def _two_modality_policy() -> InferenceBlock:
    return InferenceBlock(
        in_keys=["observation_inventory", "observation_screen"],
        out_keys=["action_move", "action_use", "latent"],
        in_shapes=[(16,), (3, 8, 8)],
        perception_blocks=_two_modality_blocks(),
    )


@pytest.mark.parametrize("leading", [(), (5,), (2, 5)])
def test_two_modality_network_exposes_heads_and_latent(leading: tuple[int, ...]) -> None:
    policy = _two_modality_policy()
    output = policy(
        {"observation_inventory": torch.randn(*leading, 16), "observation_screen": torch.randn(*leading, 3, 8, 8)}
    )
    assert list(output) == ["action_move", "action_use", "latent"]
    assert output["action_move"].shape == (*leading, 4)
    assert output["action_use"].shape == (*leading, 16)
    assert output["latent"].shape == (*leading, 12)
    assert policy.out_shapes() == [(4,), (16,), (12,)]


def test_shared_latent_feeds_a_critic_and_gradients_reach_both_modalities() -> None:
    policy = _two_modality_policy()
    critic = InferenceBlock(
        in_keys="latent",
        out_keys="value",
        in_shapes=(12,),
        perception_blocks={
            "value": LinearOutputBlock(in_keys="latent", out_keys="value", in_shapes=(12,), output_units=1)
        },
    )
    output = policy({"observation_inventory": torch.randn(5, 16), "observation_screen": torch.randn(5, 3, 8, 8)})
    value = critic({"latent": output["latent"]})["value"]
    assert value.shape == (5, 1)
    (value.sum() + output["action_move"].sum()).backward()
    for name, block in policy.perception_blocks.items():
        reached = all(parameter.grad is not None for parameter in block.parameters())
        assert reached == (name != "action_use"), name
    assert policy.perception_blocks["latent_screen"].stages[0].net[0].weight.grad.abs().sum() > 0


def test_execution_order_follows_tensor_dependencies_not_insertion_order() -> None:
    blocks = _two_modality_blocks()
    reversed_blocks = dict(reversed(list(blocks.items())))
    policy = InferenceBlock(
        in_keys=["observation_inventory", "observation_screen"],
        out_keys="action_move",
        in_shapes=[(16,), (3, 8, 8)],
        perception_blocks=reversed_blocks,
    )
    order = policy.execution_order
    assert order.index("latent_concat") > order.index("latent_screen")
    assert order.index("latent_concat") > order.index("latent_inventory")
    assert order.index("action_move") > order.index("latent")
    assert policy.producer_of("latent") == "latent"
    assert policy.producer_of("observation_screen") is None


def _dense(in_key: str, out_key: str, shape: tuple[int, ...] = (4,)) -> DenseBlock:
    return DenseBlock(in_keys=in_key, out_keys=out_key, in_shapes=shape, hidden_units=[4])


def test_missing_tensor_is_named() -> None:
    with pytest.raises(ConfigurationError, match="block 'b' needs tensor 'nowhere'"):
        InferenceBlock(
            in_keys="x",
            out_keys="b",
            in_shapes=(4,),
            perception_blocks={"a": _dense("x", "a"), "b": _dense("nowhere", "b")},
        )


def test_cycle_is_reported_with_the_waiting_tensors() -> None:
    blocks = {"a": _dense("b_out", "a_out"), "b": _dense("a_out", "b_out")}
    with pytest.raises(ConfigurationError, match="cycle.*'a': \\['b_out'\\]"):
        InferenceBlock(in_keys="x", out_keys="a_out", in_shapes=(4,), perception_blocks=blocks)


def test_two_writers_of_one_tensor_are_rejected() -> None:
    with pytest.raises(ConfigurationError, match="'z' is written by both 'a' and 'b'"):
        InferenceBlock(
            in_keys="x", out_keys="z", in_shapes=(4,), perception_blocks={"a": _dense("x", "z"), "b": _dense("x", "z")}
        )


def test_shape_mismatch_names_block_and_tensor() -> None:
    blocks = {"a": DenseBlock(in_keys="x", out_keys="h", in_shapes=(4,), hidden_units=[3]), "b": _dense("h", "z")}
    with pytest.raises(ConfigurationError, match="block 'b' declares input 'h' with shape \\(4,\\).*\\(3,\\)"):
        InferenceBlock(in_keys="x", out_keys="z", in_shapes=(4,), perception_blocks=blocks)


def test_unknown_out_key_lists_known_tensors() -> None:
    with pytest.raises(ConfigurationError, match="out_keys \\['nope'\\].*'x'"):
        InferenceBlock(in_keys="x", out_keys="nope", in_shapes=(4,), perception_blocks={"a": _dense("x", "a")})


def test_missing_input_at_forward_is_named() -> None:
    block = InferenceBlock(in_keys="x", out_keys="a", in_shapes=(4,), perception_blocks={"a": _dense("x", "a")})
    with pytest.raises(KeyError, match="no tensor 'x'"):
        block({"y": torch.zeros(4)})


def test_graph_structure_lists_blocks_tensors_edges_and_parameter_shares() -> None:
    policy = _two_modality_policy()
    structure = inference_graph_structure(policy)
    nodes = {node.id: node for node in structure.nodes}
    blocks = [node for node in structure.nodes if node.kind == "block"]
    tensors = [node for node in structure.nodes if node.kind == "tensor"]
    assert [node.name for node in blocks] == policy.execution_order
    assert {node.name for node in tensors} == set(policy.tensor_shapes())
    assert nodes["tensor:observation_screen"].role == "input"
    assert nodes["tensor:latent"].role == "output"
    assert nodes["tensor:latent_concat"].role == "intermediate"
    assert nodes["tensor:latent_concat"].shape == (16,)
    assert nodes["block:latent"].label == repr(policy.perception_blocks["latent"])
    assert structure.total_params == sum(parameter.numel() for parameter in policy.parameters())
    assert sum(node.num_params for node in blocks) == structure.total_params
    assert sum(node.param_share for node in blocks) == pytest.approx(1.0)
    edges = {(edge.source, edge.target) for edge in structure.edges}
    assert ("tensor:latent_inventory", "block:latent_concat") in edges
    assert ("tensor:latent_screen", "block:latent_concat") in edges
    assert ("block:latent_concat", "tensor:latent_concat") in edges
    assert len(structure.edges) == sum(len(b.in_keys) + len(b.out_keys) for b in policy.perception_blocks.values())
    data = json.loads(json.dumps(structure.to_dict()))
    assert data["total_params"] == structure.total_params
    assert {"id", "kind", "name", "label", "shape", "role", "num_params", "param_share"} <= set(data["nodes"][0])


def test_repeated_calls_take_the_fast_path_with_the_same_results_and_hooks() -> None:
    torch.manual_seed(0)
    net = _two_modality_policy()
    batch = {"observation_inventory": torch.randn(5, 16), "observation_screen": torch.randn(5, 3, 8, 8)}
    first = net(batch)  # validates the output ranks on the regular path
    assert net._fast_path_ready
    second = net(batch)  # plain blocks run normalized_forward directly
    for key in first:
        torch.testing.assert_close(second[key], first[key])
    unbatched = net({key: value[0] for key, value in batch.items()})  # leading dims are flattened once
    torch.testing.assert_close(unbatched["action_move"], first["action_move"][0])
    time_major = net({key: torch.stack([value, value]) for key, value in batch.items()})
    torch.testing.assert_close(time_major["action_use"], torch.stack([first["action_use"]] * 2))
    seen: list[tuple[int, ...]] = []
    net.perception_blocks["latent"].register_forward_hook(
        lambda module, inputs, output: seen.append(output["latent"].shape)
    )
    net(batch)
    assert seen == [(5, 12)]  # a block with a hook goes through nn.Module.__call__
