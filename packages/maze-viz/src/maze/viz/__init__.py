"""Notebook and keyboard trajectory viewers, statistics plots and inference-graph PDFs. Never imports torch.

Available now: :class:`InferenceGraph` (inference-graph drawing to PDF). The viewers and
plots arrive with their own issues; see the root README for the status.
"""

from importlib.metadata import version as _version

from maze.viz.inference_graph import InferenceGraph

__version__ = _version("maze-viz")

__all__ = ["InferenceGraph", "__version__"]
