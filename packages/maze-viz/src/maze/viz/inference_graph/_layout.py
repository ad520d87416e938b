"""A layered (Sugiyama-style) layout of a directed acyclic graph, in pure Python.

Steps: longest-path layering from the sources, virtual points on edges that skip layers,
barycentric ordering within layers (sweeps down and up, keeping the order with the fewest
crossings) and x coordinates that pull each node towards its neighbours without overlaps.
Coordinates are in inches; ``y`` grows downwards (layer 0 on top).
"""

from __future__ import annotations

from bisect import bisect_right, insort
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Optional

__all__ = ["GraphLayout", "PlacedNode", "RoutedEdge", "assign_layers", "compute_layout", "count_crossings"]

_DUMMY_PREFIX = "\x00virtual:"
_DUMMY_WIDTH = 0.12
_ORDER_SWEEPS = 16
_PLACE_SWEEPS = 8
_DUMMY_WEIGHT = 3.0


@dataclass(frozen=True)
class PlacedNode:
    """A node with its layer and box (centre ``x``, ``y`` and size, in inches)."""

    id: str
    layer: int
    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class RoutedEdge:
    """An edge and the points it passes between its ends (one per skipped layer)."""

    source: str
    target: str
    waypoints: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class GraphLayout:
    """The placed graph.

    Attributes:
        nodes: The placed nodes by id.
        edges: The routed edges, in the given order.
        layers: The node ids of each layer, left to right.
        layer_bounds: ``(top, bottom)`` of each layer in inches.
        width: The width of the drawing in inches.
        height: The height of the drawing in inches.
        crossings: The number of edge crossings between adjacent layers.
    """

    nodes: dict[str, PlacedNode]
    edges: tuple[RoutedEdge, ...]
    layers: tuple[tuple[str, ...], ...]
    layer_bounds: tuple[tuple[float, float], ...]
    width: float
    height: float
    crossings: int


def assign_layers(node_ids: Sequence[str], edges: Sequence[tuple[str, str]]) -> dict[str, int]:
    """Longest-path layering: sources get layer 0, every other node one more than its deepest predecessor.

    Args:
        node_ids: All node ids.
        edges: ``(source, target)`` pairs between known ids; they must not form a cycle.

    Returns:
        The layer of each node; every edge goes from a lower to a higher layer.

    Raises:
        ValueError: If the edges form a cycle.
    """
    indegree = {node_id: 0 for node_id in node_ids}
    successors: dict[str, list[str]] = {node_id: [] for node_id in node_ids}
    for source, target in edges:
        successors[source].append(target)
        indegree[target] += 1
    layer = {node_id: 0 for node_id in node_ids}
    ready = [node_id for node_id in node_ids if indegree[node_id] == 0]
    done = 0
    while ready:
        node_id = ready.pop()
        done += 1
        for child in successors[node_id]:
            layer[child] = max(layer[child], layer[node_id] + 1)
            indegree[child] -= 1
            if indegree[child] == 0:
                ready.append(child)
    if done != len(indegree):
        stuck = sorted(node_id for node_id, count in indegree.items() if count > 0)
        raise ValueError(f"the graph has a cycle through {stuck}; a layered layout needs an acyclic graph")
    return layer


def count_crossings(upper: Sequence[str], lower: Sequence[str], edges: Sequence[tuple[str, str]]) -> int:
    """Counts the crossings of the edges between two ordered adjacent layers.

    Args:
        upper: The upper layer, left to right.
        lower: The lower layer, left to right.
        edges: ``(upper node, lower node)`` pairs; others are ignored.

    Returns:
        The number of pairs of edges that cross.
    """
    top = {node_id: index for index, node_id in enumerate(upper)}
    bottom = {node_id: index for index, node_id in enumerate(lower)}
    pairs = sorted((top[s], bottom[t]) for s, t in edges if s in top and t in bottom)
    seen: list[int] = []
    crossings = 0
    for _, position in pairs:
        crossings += len(seen) - bisect_right(seen, position)
        insort(seen, position)
    return crossings


def compute_layout(
    node_ids: Sequence[str],
    edges: Sequence[tuple[str, str]],
    sizes: Mapping[str, tuple[float, float]],
    h_gap: float = 0.3,
    v_gap: float = 0.5,
) -> GraphLayout:
    """Places the nodes of a directed acyclic graph in layers and routes its edges.

    Args:
        node_ids: All node ids; their order seeds the order within layers.
        edges: ``(source, target)`` pairs between known ids.
        sizes: ``(width, height)`` in inches of each node.
        h_gap: The horizontal gap between neighbouring nodes in inches.
        v_gap: The vertical gap between layers in inches.

    Returns:
        The layout.
    """
    layer_of = assign_layers(node_ids, edges)
    count = max(layer_of.values(), default=-1) + 1
    layers: list[list[str]] = [[] for _ in range(count)]
    for node_id in node_ids:
        layers[layer_of[node_id]].append(node_id)
    chains, short_edges = _split_long_edges(edges, layer_of, layers)
    layers = _order_layers(layers, short_edges)
    width_of = {node_id: sizes.get(node_id, (_DUMMY_WIDTH, 0.0))[0] for layer in layers for node_id in layer}
    xs = _assign_x(layers, short_edges, width_of, h_gap)
    bounds, top = [], 0.0
    for layer in layers:
        height = max((sizes[node_id][1] for node_id in layer if node_id in sizes), default=0.0)
        bounds.append((top, top + height))
        top += height + v_gap
    left = min((xs[n] - width_of[n] / 2 for layer in layers for n in layer), default=0.0)
    placed = {
        node_id: PlacedNode(
            node_id, index, xs[node_id] - left, (bounds[index][0] + bounds[index][1]) / 2, *sizes[node_id]
        )
        for index, layer in enumerate(layers)
        for node_id in layer
        if node_id in sizes
    }
    mids = {index: (low + high) / 2 for index, (low, high) in enumerate(bounds)}
    routed = tuple(
        RoutedEdge(s, t, tuple((xs[d] - left, mids[layer_of[s] + k + 1]) for k, d in enumerate(chain[1:-1])))
        for (s, t), chain in zip(edges, chains, strict=True)
    )
    right = max((xs[n] + width_of[n] / 2 - left for layer in layers for n in layer), default=0.0)
    crossings = sum(count_crossings(a, b, short_edges) for a, b in pairwise(layers))
    return GraphLayout(
        nodes=placed,
        edges=routed,
        layers=tuple(tuple(n for n in layer if n in sizes) for layer in layers),
        layer_bounds=tuple(bounds),
        width=right,
        height=max(top - v_gap, 0.0),
        crossings=crossings,
    )


def _split_long_edges(
    edges: Sequence[tuple[str, str]], layer_of: dict[str, int], layers: list[list[str]]
) -> tuple[list[list[str]], list[tuple[str, str]]]:
    """Adds a virtual node per skipped layer; returns each edge's chain and the one-layer edges."""
    chains: list[list[str]] = []
    short: list[tuple[str, str]] = []
    for number, (source, target) in enumerate(edges):
        chain = [source]
        for layer in range(layer_of[source] + 1, layer_of[target]):
            virtual = f"{_DUMMY_PREFIX}{number}:{layer}"
            layers[layer].append(virtual)
            chain.append(virtual)
        chain.append(target)
        chains.append(chain)
        short.extend(pairwise(chain))
    return chains, short


def _neighbours(edges: Sequence[tuple[str, str]]) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Returns the predecessors and the successors of each node."""
    preds: dict[str, list[str]] = {}
    succs: dict[str, list[str]] = {}
    for source, target in edges:
        succs.setdefault(source, []).append(target)
        preds.setdefault(target, []).append(source)
    return preds, succs


def _order_layers(layers: list[list[str]], edges: Sequence[tuple[str, str]]) -> list[list[str]]:
    """Barycentric ordering from a few starts (given and reversed order, first sweep down or up); keeps the best."""
    preds, succs = _neighbours(edges)
    best: tuple[int, list[list[str]]] | None = None
    for start in (layers, [layer[::-1] for layer in layers]):
        for first_down in (True, False):
            crossings, order = _sweep(start, edges, preds, succs, first_down)
            if best is None or crossings < best[0]:
                best = (crossings, order)
    return best[1] if best else []


def _sweep(
    layers: list[list[str]],
    edges: Sequence[tuple[str, str]],
    preds: dict[str, list[str]],
    succs: dict[str, list[str]],
    first_down: bool,
) -> tuple[int, list[list[str]]]:
    """Alternates barycentric sweeps and transpositions; returns the fewest crossings seen and that order."""
    current = [list(layer) for layer in layers]
    best_crossings, best = None, current
    for sweep in range(_ORDER_SWEEPS):
        down = (sweep % 2 == 0) == first_down
        for index in range(1, len(current)) if down else range(len(current) - 2, -1, -1):
            reference = current[index - 1] if down else current[index + 1]
            current[index] = _by_barycentre(current[index], reference, preds if down else succs)
        _transpose(current, preds, succs)
        crossings = sum(count_crossings(a, b, edges) for a, b in pairwise(current))
        if best_crossings is None or crossings < best_crossings:
            best_crossings, best = crossings, [list(layer) for layer in current]
        if crossings == 0:
            break
    return best_crossings or 0, best


def _by_barycentre(layer: list[str], reference: list[str], neighbours: dict[str, list[str]]) -> list[str]:
    """Sorts a layer by the mean position of each node's neighbours in the reference layer.

    A node without neighbours there keeps its slot; ties keep the current order.
    """
    position = {node_id: index for index, node_id in enumerate(reference)}
    keys = {}
    for slot, node_id in enumerate(layer):
        linked = [position[n] for n in neighbours.get(node_id, ()) if n in position]
        keys[node_id] = (sum(linked) / len(linked) if linked else slot, slot)
    return sorted(layer, key=keys.__getitem__)


def _transpose(layers: list[list[str]], preds: dict[str, list[str]], succs: dict[str, list[str]]) -> None:
    """Swaps neighbours within a layer (in place) while that removes crossings with the adjacent layers."""
    for _ in range(_ORDER_SWEEPS):
        improved = False
        for index, layer in enumerate(layers):
            above = {node_id: k for k, node_id in enumerate(layers[index - 1])} if index else {}
            below = {node_id: k for k, node_id in enumerate(layers[index + 1])} if index + 1 < len(layers) else {}
            for slot in range(len(layer) - 1):
                left, right = layer[slot], layer[slot + 1]
                kept = _pair_crossings(left, right, ((above, preds), (below, succs)))
                if _pair_crossings(right, left, ((above, preds), (below, succs))) < kept:
                    layer[slot], layer[slot + 1] = right, left
                    improved = True
        if not improved:
            return


def _pair_crossings(left: str, right: str, sides: Sequence[tuple[dict[str, int], dict[str, list[str]]]]) -> int:
    """Counts crossings between the edges of ``left`` and of ``right`` (placed in that order)."""
    count = 0
    for position, near in sides:
        mine = [position[n] for n in near.get(left, ()) if n in position]
        theirs = [position[n] for n in near.get(right, ()) if n in position]
        count += sum(1 for p in mine for q in theirs if p > q)
    return count


def _assign_x(
    layers: list[list[str]], edges: Sequence[tuple[str, str]], width_of: dict[str, float], h_gap: float
) -> dict[str, float]:
    """Pulls each node towards the mean x of its neighbours, keeping the order and the gaps.

    A node without any edge sits next to its neighbours in the layer.
    """
    preds, succs = _neighbours(edges)
    xs: dict[str, float] = {}
    for layer in layers:
        xs.update(zip(layer, _place(layer, [0.0] * len(layer), [1.0] * len(layer), width_of, h_gap), strict=True))
    schedule = [preds, succs] * _PLACE_SWEEPS + [None, None]
    for step, near in enumerate(schedule):
        indices = range(len(layers)) if step % 2 == 0 else range(len(layers) - 1, -1, -1)
        for index in indices:
            layer = layers[index]
            desired: list[Optional[float]] = []
            weights = []
            for node_id in layer:
                every = [*preds.get(node_id, ()), *succs.get(node_id, ())]
                linked = every if near is None else near.get(node_id, [])
                desired.append(sum(xs[n] for n in linked) / len(linked) if linked else (xs[node_id] if every else None))
                virtual = node_id.startswith(_DUMMY_PREFIX)
                weights.append((_DUMMY_WEIGHT if virtual else 1.0) if linked else 0.05)
            xs.update(zip(layer, _place(layer, desired, weights, width_of, h_gap), strict=True))
    return xs


def _place(
    layer: Sequence[str],
    desired: Sequence[Optional[float]],
    weights: Sequence[float],
    width_of: dict[str, float],
    h_gap: float,
) -> list[float]:
    """Least-squares x positions near ``desired`` that keep order and gaps (weighted isotonic regression).

    A ``None`` wish keeps the node at its gap from the nearest node with a wish.
    """
    offsets = [0.0]
    for left, right in pairwise(layer):
        virtual = left.startswith(_DUMMY_PREFIX) or right.startswith(_DUMMY_PREFIX)
        gap = h_gap / 2 if virtual else h_gap
        offsets.append(offsets[-1] + (width_of[left] + width_of[right]) / 2 + gap)
    shifted = [None if wish is None else wish - offset for wish, offset in zip(desired, offsets, strict=True)]
    known = [index for index, value in enumerate(shifted) if value is not None]
    targets = [
        value if value is not None else (shifted[min(known, key=lambda k: abs(k - index))] if known else 0.0)
        for index, value in enumerate(shifted)
    ]
    pools: list[list[float]] = []  # [weighted sum, weight, count]
    for target, weight in zip(targets, weights, strict=True):
        pools.append([target * weight, weight, 1])
        while len(pools) > 1 and pools[-2][0] / pools[-2][1] > pools[-1][0] / pools[-1][1]:
            total, weight_sum, count = pools.pop()
            pools[-1][0] += total
            pools[-1][1] += weight_sum
            pools[-1][2] += count
    values = [pool[0] / pool[1] for pool in pools for _ in range(int(pool[2]))]
    return [value + offset for value, offset in zip(values, offsets, strict=True)]
