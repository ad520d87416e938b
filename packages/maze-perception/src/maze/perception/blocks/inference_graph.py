"""A plain-data description of an inference graph, for drawing without torch.

:func:`inference_graph_structure` turns an :class:`InferenceBlock` into nodes (blocks and
tensors) and edges; ``to_dict()`` gives JSON-compatible data that a renderer (maze-viz
draws it to PDF) consumes without importing torch.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Optional

from maze.perception.blocks.inference import InferenceBlock

__all__ = ["GraphEdge", "GraphNode", "InferenceGraphStructure", "inference_graph_structure"]


@dataclass(frozen=True)
class GraphNode:
    """One node: a block (blue in drawings) or a tensor (red).

    Attributes:
        id: Unique id, ``"block:<name>"`` or ``"tensor:<name>"``.
        kind: ``"block"`` or ``"tensor"``.
        name: The block name or the tensor name.
        label: The text to draw (the block's repr, or the tensor name and shape).
        shape: The tensor shape without batch dims (tensors only).
        role: ``"input"``, ``"output"`` or ``"intermediate"`` (tensors only; an exposed
            intermediate tensor is an ``"output"``).
        num_params: The number of parameters of the block (blocks only).
        param_share: ``num_params`` divided by the parameters of the whole graph, in [0, 1]
            (blocks only; drawings use it as colour depth).
    """

    id: str
    kind: str
    name: str
    label: str
    shape: Optional[tuple[int, ...]] = None
    role: Optional[str] = None
    num_params: Optional[int] = None
    param_share: Optional[float] = None


@dataclass(frozen=True)
class GraphEdge:
    """A directed edge from a tensor to the block reading it, or from a block to its output."""

    source: str
    target: str


@dataclass(frozen=True)
class InferenceGraphStructure:
    """Nodes (in execution order: inputs, then each block followed by its outputs) and edges."""

    nodes: list[GraphNode] = field(default_factory=list)
    edges: list[GraphEdge] = field(default_factory=list)
    total_params: int = 0

    def to_dict(self) -> dict[str, Any]:
        """Returns the structure as JSON-compatible dicts and lists."""
        data = asdict(self)
        for node in data["nodes"]:
            if node["shape"] is not None:
                node["shape"] = list(node["shape"])
        return data


def inference_graph_structure(block: InferenceBlock) -> InferenceGraphStructure:
    """Describes the blocks and tensors of an inference block and how they connect.

    Args:
        block: The inference block.

    Returns:
        The graph structure; parameters shared between blocks count for each block.
    """
    shapes = block.tensor_shapes()
    total = sum(parameter.numel() for parameter in block.parameters())
    nodes: list[GraphNode] = []
    edges: list[GraphEdge] = []

    def tensor_node(key: str) -> GraphNode:
        role = "output" if key in block.out_keys else ("input" if key in block.in_keys else "intermediate")
        return GraphNode(
            id=f"tensor:{key}", kind="tensor", name=key, label=f"{key}\n{shapes[key]}", shape=shapes[key], role=role
        )

    nodes.extend(tensor_node(key) for key in block.in_keys)
    for name in block.execution_order:
        child = block.perception_blocks[name]
        count = sum(parameter.numel() for parameter in child.parameters())
        nodes.append(
            GraphNode(
                id=f"block:{name}",
                kind="block",
                name=name,
                label=repr(child),
                num_params=count,
                param_share=count / total if total else 0.0,
            )
        )
        edges.extend(GraphEdge(source=f"tensor:{key}", target=f"block:{name}") for key in child.in_keys)
        edges.extend(GraphEdge(source=f"block:{name}", target=f"tensor:{key}") for key in child.out_keys)
        nodes.extend(tensor_node(key) for key in child.out_keys)
    return InferenceGraphStructure(nodes=nodes, edges=edges, total_params=total)
