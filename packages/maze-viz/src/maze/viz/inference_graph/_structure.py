r"""Reading and checking the plain-data description of an inference graph.

The expected data is what ``InferenceGraphStructure.to_dict()`` of maze-perception returns
(this module never imports it)::

    {"nodes": [{"id": "tensor:obs", "kind": "tensor", "name": "obs", "label": "obs\n(16,)",
                "shape": [16], "role": "input", "num_params": None, "param_share": None},
               {"id": "block:net", "kind": "block", "name": "net", "label": "DenseBlock\n...",
                "num_params": 544, "param_share": 1.0, ...}, ...],
     "edges": [{"source": "tensor:obs", "target": "block:net"}, ...],
     "total_params": 544}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

__all__ = ["GraphSpec", "NodeSpec", "parse_structure"]

_KINDS = ("block", "tensor")
_ROLES = ("input", "output", "intermediate")


@dataclass(frozen=True)
class NodeSpec:
    """One checked node of the graph.

    Attributes:
        id: The unique node id.
        kind: ``"block"`` or ``"tensor"``.
        name: The block or tensor name.
        label: The text to draw below the name (blocks) or as a whole (tensors).
        shape: The tensor shape without batch dims (tensors only, else None).
        role: ``"input"``, ``"output"`` or ``"intermediate"`` (tensors only, else None).
        num_params: The parameter count of a block (None if unknown or a tensor).
        param_share: The block's share of all parameters, in [0, 1] (0.0 for tensors).
    """

    id: str
    kind: str
    name: str
    label: str
    shape: Optional[tuple[int, ...]]
    role: Optional[str]
    num_params: Optional[int]
    param_share: float


@dataclass(frozen=True)
class GraphSpec:
    """A checked graph: nodes in their given order, unique edges as ``(source_id, target_id)``."""

    nodes: tuple[NodeSpec, ...]
    edges: tuple[tuple[str, str], ...]
    total_params: Optional[int]


def parse_structure(structure: Any) -> GraphSpec:
    """Checks an inference-graph structure and turns it into a :class:`GraphSpec`.

    Args:
        structure: A mapping as described in the module docstring, or any object with a
            ``to_dict()`` method returning one (duck-typed ``InferenceGraphStructure``).

    Returns:
        The checked graph.

    Raises:
        TypeError: If ``structure`` is neither a mapping nor has ``to_dict()``.
        ValueError: If there are no nodes, a node or edge is malformed, an id repeats, an edge names an unknown
            node, or the edges form a cycle; the message names the culprit.
    """
    data = structure.to_dict() if hasattr(structure, "to_dict") else structure
    if not isinstance(data, Mapping):
        raise TypeError(
            f"InferenceGraph needs a dict with 'nodes' and 'edges' or an object with to_dict() "
            f"(e.g. maze.perception.blocks.inference_graph_structure(block)); got {type(structure).__name__}"
        )
    for key in ("nodes", "edges"):
        if not isinstance(data.get(key), (list, tuple)):
            raise ValueError(f"inference graph structure needs a list under {key!r}; got keys {sorted(data)}")
    if not data["nodes"]:
        raise ValueError("inference graph structure has no nodes; there is nothing to draw")
    total = data.get("total_params")
    nodes = tuple(_parse_node(index, raw, total) for index, raw in enumerate(data["nodes"]))
    ids = [node.id for node in nodes]
    repeated = sorted({node_id for node_id in ids if ids.count(node_id) > 1})
    if repeated:
        raise ValueError(f"inference graph node ids must be unique; repeated: {repeated}")
    edges = tuple(dict.fromkeys(_parse_edge(index, raw, set(ids)) for index, raw in enumerate(data["edges"])))
    _check_acyclic(ids, edges)
    return GraphSpec(nodes=nodes, edges=edges, total_params=total if isinstance(total, int) else None)


def _parse_node(index: int, raw: Any, total_params: Any) -> NodeSpec:
    """Checks one node dict; missing optional fields get defaults."""
    if not isinstance(raw, Mapping) or not isinstance(raw.get("id"), str):
        raise ValueError(f"inference graph node #{index} needs a string 'id'; got {raw!r}")
    node_id = raw["id"]
    kind = raw.get("kind")
    if kind not in _KINDS:
        raise ValueError(f"inference graph node {node_id!r} has kind {kind!r}; use one of {list(_KINDS)}")
    role = raw.get("role")
    if kind == "tensor" and role is not None and role not in _ROLES:
        raise ValueError(f"inference graph tensor {node_id!r} has role {role!r}; use one of {list(_ROLES)} or None")
    name = str(raw.get("name") or node_id.split(":", 1)[-1])
    shape = tuple(int(dim) for dim in raw["shape"]) if raw.get("shape") is not None else None
    label = raw.get("label")
    if label is None:
        label = name if shape is None or kind == "block" else f"{name}\n{shape}"
    num_params = raw.get("num_params")
    share = raw.get("param_share")
    if share is None and isinstance(num_params, int) and isinstance(total_params, int) and total_params > 0:
        share = num_params / total_params
    share = 0.0 if share is None or kind == "tensor" else float(share)
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"inference graph block {node_id!r} has param_share {share}; it must lie in [0, 1]")
    return NodeSpec(
        id=node_id,
        kind=kind,
        name=name,
        label=str(label),
        shape=shape,
        role=role if kind == "tensor" else None,
        num_params=num_params,
        param_share=share,
    )


def _parse_edge(index: int, raw: Any, known: set[str]) -> tuple[str, str]:
    """Checks one edge dict (or ``(source, target)`` pair) against the known node ids."""
    if isinstance(raw, Mapping):
        pair = (raw.get("source"), raw.get("target"))
    elif isinstance(raw, (list, tuple)) and len(raw) == 2:
        pair = (raw[0], raw[1])
    else:
        raise ValueError(f"inference graph edge #{index} must be {{'source': id, 'target': id}}; got {raw!r}")
    for end, node_id in zip(("source", "target"), pair, strict=True):
        if node_id not in known:
            listed = sorted(known)
            shown = listed[:12] + (["..."] if len(listed) > 12 else [])
            raise ValueError(
                f"inference graph edge #{index} ({pair[0]!r} -> {pair[1]!r}) names unknown {end} node {node_id!r}; "
                f"add that node or fix the edge (known nodes: {shown})"
            )
    return str(pair[0]), str(pair[1])


def _check_acyclic(ids: list[str], edges: tuple[tuple[str, str], ...]) -> None:
    """Raises a ValueError naming the nodes on a cycle, if the edges contain one."""
    successors: dict[str, list[str]] = {node_id: [] for node_id in ids}
    for source, target in edges:
        successors[source].append(target)
    state: dict[str, int] = {}  # 1 = on the current path, 2 = finished
    for root in ids:
        if root in state:
            continue
        path = [root]
        stack = [iter(successors[root])]
        state[root] = 1
        while stack:
            child = next(stack[-1], None)
            if child is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(child) == 1:
                cycle = path[path.index(child) :] + [child]
                raise ValueError(
                    f"inference graph edges form a cycle: {' -> '.join(cycle)}; an inference graph must be acyclic"
                )
            elif child not in state:
                state[child] = 1
                path.append(child)
                stack.append(iter(successors[child]))
