"""Inference-graph drawing: blocks as blue boxes shaded by parameter share, tensors as red ellipses.

Consumes the plain-data structure of ``maze.perception.blocks.inference_graph_structure``
(never imports torch or maze.perception) and writes PDFs with matplotlib only.
"""

from maze.viz.inference_graph._draw import block_colour
from maze.viz.inference_graph._layout import GraphLayout, PlacedNode, RoutedEdge, assign_layers, compute_layout
from maze.viz.inference_graph._structure import GraphSpec, NodeSpec, parse_structure
from maze.viz.inference_graph.graph import InferenceGraph

__all__ = [
    "GraphLayout",
    "GraphSpec",
    "InferenceGraph",
    "NodeSpec",
    "PlacedNode",
    "RoutedEdge",
    "assign_layers",
    "block_colour",
    "compute_layout",
    "parse_structure",
]
