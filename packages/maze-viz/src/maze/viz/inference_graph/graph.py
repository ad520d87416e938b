"""The :class:`InferenceGraph` drawing of a perception model, saved as a (multi-page) PDF."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.figure import Figure
from maze.viz.inference_graph._draw import draw_page, node_size, split_pages
from maze.viz.inference_graph._layout import GraphLayout, compute_layout
from maze.viz.inference_graph._structure import GraphSpec, parse_structure

__all__ = ["InferenceGraph"]


class InferenceGraph:
    """Draws the blocks and tensors of an inference graph.

    Blocks are blue boxes (deeper blue = larger share of the parameters) showing their name,
    their label and their parameter count; tensors are red ellipses (light = intermediate,
    orange = input, red = output) showing name and shape; arrows follow the data flow from
    the inputs at the top to the outputs at the bottom. Layers that do not fit on one page
    continue on the next page of the PDF.

    Example::

        from maze.perception.blocks import inference_graph_structure
        InferenceGraph(inference_graph_structure(policy_block)).save("policy_graph", out_dir)

    Args:
        structure: The plain-data graph (a dict with ``nodes``, ``edges`` and optionally
            ``total_params``, as ``InferenceGraphStructure.to_dict()`` of maze-perception
            returns) or any object with such a ``to_dict()`` method.
        max_page_height: The tallest page in inches; deeper graphs are split into pages by layers.

    Raises:
        TypeError: If ``structure`` is neither a dict nor has ``to_dict()``.
        ValueError: If the structure is malformed (for example an edge names an unknown node).
    """

    def __init__(self, structure: Any, max_page_height: float = 24.0) -> None:
        if max_page_height <= 0:
            raise ValueError(f"max_page_height must be a positive number of inches; got {max_page_height}")
        self._spec = parse_structure(structure)
        sizes = {node.id: node_size(node) for node in self._spec.nodes}
        self._layout = compute_layout([node.id for node in self._spec.nodes], self._spec.edges, sizes)
        self._pages = split_pages(self._layout, max_page_height)

    @property
    def spec(self) -> GraphSpec:
        """The checked graph structure."""
        return self._spec

    @property
    def layout(self) -> GraphLayout:
        """The layered layout (layers, node boxes and edge routes in inches)."""
        return self._layout

    @property
    def page_count(self) -> int:
        """The number of pages the drawing needs."""
        return len(self._pages)

    def figures(self, title: str = "inference graph") -> list[Figure]:
        """Draws every page into a new matplotlib figure (not registered with pyplot).

        Args:
            title: The title above the graph on each page.

        Returns:
            One figure per page.
        """
        figures = []
        for index in range(len(self._pages)):
            figure = Figure()
            draw_page(figure, self._spec, self._layout, self._pages, index, title)
            figures.append(figure)
        return figures

    def save(self, name: str, save_path: str | Path) -> Path:
        """Writes the drawing to ``<save_path>/<name>.pdf``, one PDF page per drawing page.

        Args:
            name: The file name without the ``.pdf`` suffix (also the title).
            save_path: The directory; it is created if missing.

        Returns:
            The path of the written PDF.

        Raises:
            ValueError: If ``name`` is empty or contains a directory part.
        """
        stem = name[:-4] if name.endswith(".pdf") else name
        if not stem or Path(stem).name != stem:
            raise ValueError(f"InferenceGraph.save needs a plain file name such as 'policy_graph'; got {name!r}")
        directory = Path(save_path)
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{stem}.pdf"
        with PdfPages(path) as pdf:
            for figure in self.figures(title=stem):
                pdf.savefig(figure)
        return path

    def show(self, title: str = "inference graph") -> None:
        """Shows every page with pyplot (inline in notebooks; nothing visible on the Agg backend).

        Args:
            title: The title above the graph.
        """
        import matplotlib.pyplot as plt

        for index in range(len(self._pages)):
            draw_page(plt.figure(), self._spec, self._layout, self._pages, index, title)
        plt.show()
