"""Drawing a laid-out inference graph with matplotlib: node text, sizes, colours and pages.

Blocks are rounded boxes shaded in blue by their parameter share (darker = more
parameters), tensors are ellipses in reds by role (input, intermediate, output) and edges
are arrows. Text uses the monospaced DejaVu font shipped with matplotlib, so node sizes
follow from character counts without a renderer.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Ellipse, FancyArrowPatch, FancyBboxPatch, Patch
from matplotlib.path import Path as MplPath
from maze.viz.inference_graph._layout import GraphLayout, PlacedNode
from maze.viz.inference_graph._structure import GraphSpec, NodeSpec

__all__ = ["PageSpec", "block_colour", "draw_page", "node_size", "node_text", "page_size", "split_pages"]

FONT = "DejaVu Sans Mono"
FONT_SIZE = 8.0
_CHAR_WIDTH = 0.66 * FONT_SIZE / 72  # inches per monospaced character (0.602 em plus raster hinting)
_LINE_HEIGHT = 1.25 * FONT_SIZE / 72  # inches per text line (matplotlib line spacing 1.2 plus slack)
_PAD = 0.08  # inches between text and box border
_WRAP = 44  # characters per label line
_MARGIN = 0.35  # inches around the drawing
_TITLE_HEIGHT = 0.8  # inches for the title and the legend
_MIN_WIDTH = 7.5  # inches; room for the legend
_MAX_INCHES = 200.0  # the largest PDF page side
_TENSOR_COLOURS = {  # role -> (face, edge)
    "input": ("#f6b48f", "#b2182b"),
    "intermediate": ("#fde3d3", "#d6604d"),
    "output": ("#e3705a", "#67001f"),
}
_EDGE_COLOUR = "#4d4d4d"
_NOTE_SIZE = 6.5  # points
_NOTE_ROWS = 3  # staggered rows of page-border notes


@dataclass(frozen=True)
class PageSpec:
    """One page: layers ``first`` to ``last`` (inclusive), its number and the page count."""

    first: int
    last: int
    number: int
    count: int


def node_text(node: NodeSpec) -> tuple[str, list[str]]:
    """Returns the bold header and the body lines drawn in a node.

    Blocks show their name, then their label (the block's repr) and their parameter count;
    tensors show their label (name and shape) under an empty header.
    """
    lines = [wrapped for line in node.label.splitlines() for wrapped in (textwrap.wrap(line, _WRAP) or [""])]
    if node.kind == "tensor":
        return "", lines
    if node.num_params is not None:
        lines.append(f"params: {node.num_params:,} ({100 * node.param_share:.1f}%)")
    return node.name, lines


def node_size(node: NodeSpec) -> tuple[float, float]:
    """Returns ``(width, height)`` of a node in inches (boxes for blocks, ellipses for tensors)."""
    header, lines = node_text(node)
    text_lines = [header, *lines] if header else lines
    width = max((len(line) for line in text_lines), default=1) * _CHAR_WIDTH
    height = max(len(text_lines), 1) * _LINE_HEIGHT
    if node.kind == "tensor":
        return 1.4 * width + 2 * _PAD, 1.45 * height + _PAD
    return width + 2 * _PAD, height + 2 * _PAD + (0.04 if header and lines else 0.0)


def block_colour(share: float, max_share: float) -> tuple[float, float, float, float]:
    """Returns the RGBA fill of a block: deeper blue for a larger parameter share.

    Args:
        share: The block's parameter share in [0, 1].
        max_share: The largest share in the graph; that block gets the deepest blue.

    Returns:
        A colour from matplotlib's ``Blues`` map.
    """
    depth = share / max_share if max_share > 0 else 0.0
    return tuple(colormaps["Blues"](0.12 + 0.73 * min(max(depth, 0.0), 1.0)))


def split_pages(layout: GraphLayout, max_page_height: float) -> list[PageSpec]:
    """Groups whole layers into pages no taller than ``max_page_height`` inches (at least one layer each)."""
    bands: list[tuple[int, int]] = []
    for index, (_, bottom) in enumerate(layout.layer_bounds):
        if bands and bottom - layout.layer_bounds[bands[-1][0]][0] <= max_page_height:
            bands[-1] = (bands[-1][0], index)
        else:
            bands.append((index, index))
    return [PageSpec(first, last, number + 1, len(bands)) for number, (first, last) in enumerate(bands)]


def page_size(layout: GraphLayout, page: PageSpec) -> tuple[float, float, float]:
    """Returns the figure ``(width, height)`` in inches and the scale applied to fit PDF limits."""
    width = max(layout.width + 2 * _MARGIN, _MIN_WIDTH)
    height = layout.layer_bounds[page.last][1] - layout.layer_bounds[page.first][0] + 2 * _MARGIN + _TITLE_HEIGHT
    scale = min(1.0, _MAX_INCHES / width, _MAX_INCHES / height)
    return width * scale, height * scale, scale


def draw_page(
    figure: Figure, spec: GraphSpec, layout: GraphLayout, pages: Sequence[PageSpec], index: int, title: str
) -> None:
    """Draws one page of the graph into an empty figure.

    Edges that leave the page end at its border with a note naming the node and page they
    continue to.

    Args:
        figure: The figure to draw into; it is resized to the page.
        spec: The checked graph.
        layout: Its layout.
        pages: All pages, from :func:`split_pages`.
        index: The index of the page to draw.
        title: The title above the graph.
    """
    page = pages[index]
    width, height, scale = page_size(layout, page)
    figure.set_size_inches(width, height)
    top = layout.layer_bounds[page.first][0] - _MARGIN
    bottom = layout.layer_bounds[page.last][1] + _MARGIN
    axes = figure.add_axes((0.0, 0.0, 1.0, (bottom - top) * scale / height))
    extra = (width / scale - layout.width) / 2
    axes.set_xlim(-extra, layout.width + extra)
    axes.set_ylim(bottom, top)
    axes.set_axis_off()
    nodes = {node.id: node for node in spec.nodes}
    ellipses = frozenset(node.id for node in spec.nodes if node.kind == "tensor")
    page_of = {layer: other.number for other in pages for layer in range(other.first, other.last + 1)}
    notes_in: list[tuple[float, str]] = []
    notes_out: list[tuple[float, str]] = []
    for edge in layout.edges:
        source, target = layout.nodes[edge.source], layout.nodes[edge.target]
        points = _edge_points(source, target, edge.waypoints, ellipses)
        arrow = FancyArrowPatch(path=MplPath(points), arrowstyle="-|>", mutation_scale=9 * scale, zorder=1)
        arrow.set(linewidth=0.8 * scale, color=_EDGE_COLOUR)
        axes.add_patch(arrow)
        if source.layer < page.first <= target.layer:
            notes_in.append((_x_at(points, top), f"from {nodes[edge.source].name} (p. {page_of[source.layer]})"))
        if source.layer <= page.last < target.layer:
            notes_out.append((_x_at(points, bottom), f"to {nodes[edge.target].name} (p. {page_of[target.layer]})"))
    _draw_notes(axes, notes_in, top, 1.0, scale)
    _draw_notes(axes, notes_out, bottom, -1.0, scale)
    max_share = max((node.param_share for node in spec.nodes if node.kind == "block"), default=0.0)
    for layer in range(page.first, page.last + 1):
        for node_id in layout.layers[layer]:
            _draw_node(axes, nodes[node_id], layout.nodes[node_id], max_share, scale)
    _draw_header(figure, spec, page, title, scale)


def _draw_notes(axes: Axes, notes: list[tuple[float, str]], edge_y: float, inward: float, scale: float) -> None:
    """Writes the notes of edges crossing a page border, in staggered rows so that they do not overlap.

    Args:
        axes: The page axes.
        notes: ``(x, text)`` per crossing edge.
        edge_y: The y of the page border.
        inward: ``1.0`` at the top border (rows go down), ``-1.0`` at the bottom (rows go up).
        scale: The page scale.
    """
    row_ends: list[float] = []
    row_height = 0.1
    char_width = 0.61 * _NOTE_SIZE / 72
    for x, text in sorted(notes):
        half = len(text) * char_width / 2
        free = [k for k, end in enumerate(row_ends) if end < x - half]
        if free:
            row = free[0]
        elif len(row_ends) < _NOTE_ROWS:
            row = len(row_ends)
            row_ends.append(0.0)
        else:
            row = min(range(len(row_ends)), key=row_ends.__getitem__)
        row_ends[row] = x + half + 0.05
        axes.text(
            x,
            edge_y + inward * (0.02 + row * row_height),
            text,
            ha="center",
            va="top" if inward > 0 else "bottom",
            size=_NOTE_SIZE * scale,
            style="italic",
            color=_EDGE_COLOUR,
            family=FONT,
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.3, "alpha": 0.85},
        )


def _x_at(points: Sequence[tuple[float, float]], y: float) -> float:
    """Returns the x where a top-to-bottom polyline passes height ``y``."""
    for (x0, y0), (x1, y1) in pairwise(points):
        if min(y0, y1) <= y <= max(y0, y1):
            return x0 if y1 == y0 else x0 + (x1 - x0) * (y - y0) / (y1 - y0)
    return points[0][0]


def _draw_header(figure: Figure, spec: GraphSpec, page: PageSpec, title: str, scale: float) -> None:
    """Draws the title, a summary line and the colour legend above the graph."""
    width, height = figure.get_size_inches()
    blocks = sum(node.kind == "block" for node in spec.nodes)
    total = spec.total_params
    if total is None:
        total = sum(node.num_params or 0 for node in spec.nodes if node.kind == "block")
    summary = f"{blocks} blocks, {len(spec.nodes) - blocks} tensors, {total:,} parameters"
    if page.count > 1:
        summary += f"  -  page {page.number} of {page.count}"
    left = _MARGIN * scale / width
    figure.text(left, 1 - 0.12 * scale / height, title, va="top", size=11 * scale, weight="bold")
    figure.text(left + 0.0, 1 - 0.34 * scale / height, summary, va="top", size=8 * scale, color="#333333")
    handles = [
        Patch(facecolor=block_colour(1.0, 1.0), edgecolor="#08306b", label="block (deeper blue = more parameters)")
    ]
    handles += [
        Patch(facecolor=face, edgecolor=edge, label=f"{role} tensor") for role, (face, edge) in _TENSOR_COLOURS.items()
    ]
    figure.legend(
        handles=handles,
        loc="upper left",
        bbox_to_anchor=(left, 1 - 0.5 * scale / height),
        ncol=len(handles),
        frameon=False,
        fontsize=7 * scale,
        borderaxespad=0.0,
        borderpad=0.0,
        handlelength=1.2,
        columnspacing=1.2,
    )


def _draw_node(axes: Axes, node: NodeSpec, placed: PlacedNode, max_share: float, scale: float) -> None:
    """Draws a block box or a tensor ellipse with its text."""
    header, lines = node_text(node)
    size = FONT_SIZE * scale
    if node.kind == "tensor":
        face, edge = _TENSOR_COLOURS.get(node.role or "intermediate", _TENSOR_COLOURS["intermediate"])
        patch = Ellipse((placed.x, placed.y), placed.width, placed.height, facecolor=face, edgecolor=edge)
        patch.set(linewidth=1.0 * scale, gid=node.id)
        axes.add_patch(patch)
        axes.text(placed.x, placed.y, "\n".join(lines), ha="center", va="center", family=FONT, size=size)
        return
    face = block_colour(node.param_share, max_share)
    ink = "white" if 0.299 * face[0] + 0.587 * face[1] + 0.114 * face[2] < 0.5 else "black"
    left, upper = placed.x - placed.width / 2, placed.y - placed.height / 2
    patch = FancyBboxPatch(
        (left, upper), placed.width, placed.height, boxstyle="round,pad=0,rounding_size=0.06", facecolor=face
    )
    patch.set(edgecolor="#08306b", linewidth=1.0 * scale, gid=node.id)
    axes.add_patch(patch)
    header_y = upper + _PAD + _LINE_HEIGHT / 2
    axes.text(placed.x, header_y, header, ha="center", va="center", family=FONT, size=size, weight="bold", color=ink)
    if lines:
        rule = upper + _PAD + _LINE_HEIGHT + 0.02
        axes.plot([left + _PAD / 2, left + placed.width - _PAD / 2], [rule, rule], color=ink, lw=0.4 * scale, alpha=0.6)
        axes.text(left + _PAD, rule + 0.02, "\n".join(lines), ha="left", va="top", family=FONT, size=size, color=ink)


def _edge_points(
    source: PlacedNode, target: PlacedNode, waypoints: Sequence[tuple[float, float]], ellipses: frozenset[str]
) -> list[tuple[float, float]]:
    """Returns the polyline of an edge from the border of ``source`` to the border of ``target``."""
    first = waypoints[0] if waypoints else (target.x, target.y)
    last = waypoints[-1] if waypoints else (source.x, source.y)
    return [_border_point(source, first, ellipses), *waypoints, _border_point(target, last, ellipses)]


def _border_point(node: PlacedNode, toward: tuple[float, float], ellipses: frozenset[str]) -> tuple[float, float]:
    """Returns where the line from the node's centre to ``toward`` leaves the node's box or ellipse."""
    dx, dy = toward[0] - node.x, toward[1] - node.y
    if dx == 0 and dy == 0:
        return node.x, node.y
    half_w, half_h = node.width / 2, node.height / 2
    if node.id in ellipses:
        factor = 1.0 / ((dx / half_w) ** 2 + (dy / half_h) ** 2) ** 0.5
    else:
        factor = min(half_w / abs(dx) if dx else float("inf"), half_h / abs(dy) if dy else float("inf"))
    return node.x + factor * dx, node.y + factor * dy
