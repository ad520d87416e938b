"""InferenceGraph: layered layout, shading by parameter share, PDF output and clear errors.

Structures are built by hand in the format of maze-perception's
``InferenceGraphStructure.to_dict()``, so these tests never import torch.
"""

from __future__ import annotations

import re
import subprocess
import sys
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from matplotlib.colors import to_rgba
from maze.viz import InferenceGraph
from maze.viz.inference_graph import assign_layers, block_colour, compute_layout


def _tensor(name: str, shape: tuple[int, ...], role: str = "intermediate") -> dict[str, Any]:
    return {
        "id": f"tensor:{name}",
        "kind": "tensor",
        "name": name,
        "label": f"{name}\n{shape}",
        "shape": list(shape),
        "role": role,
    }


def _block(name: str, label: str, num_params: int, total: int) -> dict[str, Any]:
    share = num_params / total
    return {
        "id": f"block:{name}",
        "kind": "block",
        "name": name,
        "label": label,
        "num_params": num_params,
        "param_share": share,
    }


def _actor_critic() -> dict[str, Any]:
    """Two modalities -> concat -> shared latent -> two action heads; the latent and one input feed a critic."""
    params = {
        "inventory": 544,
        "screen": 9000,
        "concat": 0,
        "latent": 2000,
        "move": 132,
        "use": 520,
        "critic": 800,
        "value": 33,
    }
    total = sum(params.values())
    nodes = [
        _tensor("observation_inventory", (16,), "input"),
        _tensor("observation_screen", (3, 64, 64), "input"),
        _block("inventory", "DenseBlock\nhidden_units: [32]\nnon_lin: ReLU", params["inventory"], total),
        _tensor("latent_inventory", (32,)),
        _block(
            "screen",
            "VGGConvolutionDenseBlock\nhidden_channels: [8, 16, 32]\nhidden_units: [32]",
            params["screen"],
            total,
        ),
        _tensor("latent_screen", (32,)),
        _block("concat", "ConcatenationBlock\nconcat_dim: -1", params["concat"], total),
        _tensor("latent_concat", (64,)),
        _block("latent", "DenseBlock\nhidden_units: [32]", params["latent"], total),
        _tensor("latent", (32,), "output"),
        _block("move", "LinearOutputBlock\noutput_units: 4", params["move"], total),
        _tensor("action_move", (4,), "output"),
        _block("use", "LinearOutputBlock\noutput_units: 16", params["use"], total),
        _tensor("action_use", (16,), "output"),
        _block("critic", "DenseBlock\nhidden_units: [16]", params["critic"], total),
        _tensor("critic_latent", (16,)),
        _block("value", "LinearOutputBlock\noutput_units: 1", params["value"], total),
        _tensor("value", (1,), "output"),
    ]
    links = [
        ("tensor:observation_inventory", "block:inventory"),
        ("block:inventory", "tensor:latent_inventory"),
        ("tensor:observation_screen", "block:screen"),
        ("block:screen", "tensor:latent_screen"),
        ("tensor:latent_inventory", "block:concat"),
        ("tensor:latent_screen", "block:concat"),
        ("block:concat", "tensor:latent_concat"),
        ("tensor:latent_concat", "block:latent"),
        ("block:latent", "tensor:latent"),
        ("tensor:latent", "block:move"),
        ("block:move", "tensor:action_move"),
        ("tensor:latent", "block:use"),
        ("block:use", "tensor:action_use"),
        ("tensor:latent", "block:critic"),
        ("tensor:observation_inventory", "block:critic"),
        ("block:critic", "tensor:critic_latent"),
        ("tensor:critic_latent", "block:value"),
        ("block:value", "tensor:value"),
    ]
    return {"nodes": nodes, "edges": [{"source": s, "target": t} for s, t in links], "total_params": total}


def _chain(length: int) -> dict[str, Any]:
    nodes = [_tensor("x0", (8,), "input")]
    edges = []
    for index in range(length):
        nodes += [_block(f"b{index}", "DenseBlock\nhidden_units: [8]", 72, 72 * length), _tensor(f"x{index + 1}", (8,))]
        edges += [{"source": f"tensor:x{index}", "target": f"block:b{index}"}]
        edges += [{"source": f"block:b{index}", "target": f"tensor:x{index + 1}"}]
    return {"nodes": nodes, "edges": edges, "total_params": 72 * length}


def _pdf_pages(path: Path) -> int:
    return len(re.findall(rb"/Type\s*/Page\b(?!s)", path.read_bytes()))


def _luminance(rgba: tuple[float, ...]) -> float:
    return 0.299 * rgba[0] + 0.587 * rgba[1] + 0.114 * rgba[2]


def test_save_writes_a_non_empty_pdf(tmp_path: Path) -> None:
    path = InferenceGraph(_actor_critic()).save("policy_graph", tmp_path / "out")
    assert path == tmp_path / "out" / "policy_graph.pdf"
    data = path.read_bytes()
    assert data.startswith(b"%PDF")
    assert len(data) > 1024
    assert _pdf_pages(path) >= 1


def test_every_edge_goes_down_and_skipped_layers_get_waypoints() -> None:
    structure = _actor_critic()
    layout = InferenceGraph(structure).layout
    for edge in layout.edges:
        source, target = layout.nodes[edge.source], layout.nodes[edge.target]
        assert source.layer < target.layer
        assert source.y < target.y
        assert len(edge.waypoints) == target.layer - source.layer - 1
    assert set(layout.layers[0]) == {"tensor:observation_inventory", "tensor:observation_screen"}
    assert layout.nodes["block:critic"].layer == layout.nodes["tensor:latent"].layer + 1
    assert layout.crossings <= 1  # the input skipping to the critic crosses at most one edge


def test_nodes_of_a_layer_do_not_overlap_and_fit_the_drawing() -> None:
    layout = InferenceGraph(_actor_critic()).layout
    for layer in layout.layers:
        boxes = sorted(
            (layout.nodes[n].x - layout.nodes[n].width / 2, layout.nodes[n].x + layout.nodes[n].width / 2)
            for n in layer
        )
        assert all(right <= next_left for (_, right), (next_left, _) in pairwise(boxes))
        assert boxes[0][0] >= -1e-9 and boxes[-1][1] <= layout.width + 1e-9


def test_longest_path_layering_and_barycentric_order_remove_crossings() -> None:
    layers = assign_layers(["a", "b", "c", "d"], [("a", "b"), ("b", "c"), ("a", "c"), ("c", "d")])
    assert layers == {"a": 0, "b": 1, "c": 2, "d": 3}
    sizes = {name: (0.5, 0.3) for name in ["a", "b", "x", "y"]}
    layout = compute_layout(["a", "b", "y", "x"], [("a", "x"), ("b", "y")], sizes)
    assert layout.layers[1] == ("x", "y")
    assert layout.crossings == 0


def test_shading_deepens_with_parameter_share() -> None:
    shares = [0.0, 0.1, 0.3, 0.6, 1.0]
    luminances = [_luminance(block_colour(share, 1.0)) for share in shares]
    assert all(darker < lighter for lighter, darker in pairwise(luminances))
    figure = InferenceGraph(_actor_critic()).figures()[0]
    faces = {patch.get_gid(): patch.get_facecolor() for patch in figure.axes[0].patches if patch.get_gid()}
    assert _luminance(faces["block:screen"]) < _luminance(faces["block:latent"]) < _luminance(faces["block:concat"])
    assert faces["block:screen"] == pytest.approx(block_colour(1.0, 1.0))


def test_tensors_are_reddish_ellipses_and_blocks_are_blue() -> None:
    figure = InferenceGraph(_actor_critic()).figures()[0]
    patches = {patch.get_gid(): patch for patch in figure.axes[0].patches if patch.get_gid()}
    assert len(patches) == len(_actor_critic()["nodes"])
    for gid, patch in patches.items():
        red, _, blue, _ = to_rgba(patch.get_facecolor())
        assert (red > blue) if gid.startswith("tensor:") else (blue > red)
    texts = " ".join(text.get_text() for text in figure.axes[0].texts)
    assert "observation_screen\n(3, 64, 64)" in texts and "VGGConvolutionDenseBlock" in texts


def test_deep_graph_spreads_over_pages_with_continuation_notes(tmp_path: Path) -> None:
    graph = InferenceGraph(_chain(12), max_page_height=6.0)
    assert graph.page_count > 1
    path = graph.save("deep", tmp_path)
    assert _pdf_pages(path) == graph.page_count
    first = graph.figures()[0]
    notes = [text.get_text() for text in first.axes[0].texts if text.get_text().startswith("to ")]
    assert notes and notes[0].endswith("(p. 2)")
    assert first.get_size_inches()[1] <= 6.0 + 2.0


def test_very_wide_graph_is_scaled_to_fit_a_pdf_page(tmp_path: Path) -> None:
    count = 300
    nodes = [_tensor("x", (8,), "input")] + [
        _block(f"head_{k}", "LinearOutputBlock", 9, 9 * count) for k in range(count)
    ]
    edges = [{"source": "tensor:x", "target": f"block:head_{k}"} for k in range(count)]
    graph = InferenceGraph({"nodes": nodes, "edges": edges})
    assert graph.layout.width > 200
    width, height = graph.figures()[0].get_size_inches()
    assert width <= 200 + 1e-6 and height < 5
    assert graph.save("wide", tmp_path).stat().st_size > 1024


def test_accepts_any_object_with_to_dict(tmp_path: Path) -> None:
    class Structure:
        def to_dict(self) -> dict[str, Any]:
            return _chain(2)

    assert InferenceGraph(Structure()).save("tiny.pdf", tmp_path).name == "tiny.pdf"


def test_edge_to_a_missing_node_is_named() -> None:
    structure = _actor_critic()
    structure["edges"].append({"source": "tensor:latent", "target": "block:ghost"})
    with pytest.raises(ValueError, match="unknown target node 'block:ghost'.*add that node or fix the edge"):
        InferenceGraph(structure)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda s: s["nodes"].append(dict(s["nodes"][0])), "unique; repeated: \\['tensor:observation_inventory'\\]"),
        (lambda s: s["nodes"][2].update(kind="layer"), "kind 'layer'; use one of \\['block', 'tensor'\\]"),
        (lambda s: s["edges"].append({"source": "tensor:value", "target": "block:critic"}), "cycle: .*block:critic"),
        (lambda s: s.pop("edges"), "list under 'edges'"),
        (lambda s: s.update(nodes=[], edges=[]), "no nodes"),
        (lambda s: s["edges"].append({"from": "a"}), "unknown source node None"),
    ],
)
def test_malformed_structures_raise_clear_errors(mutate: Any, message: str) -> None:
    structure = _actor_critic()
    mutate(structure)
    with pytest.raises(ValueError, match=message):
        InferenceGraph(structure)


def test_wrong_input_type_and_bad_file_name_are_rejected(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="inference_graph_structure"):
        InferenceGraph([1, 2, 3])
    with pytest.raises(ValueError, match="plain file name"):
        InferenceGraph(_chain(1)).save("sub/graph", tmp_path)


def test_saving_a_graph_imports_neither_torch_nor_perception(tmp_path: Path) -> None:
    code = (
        "import sys; from maze.viz import InferenceGraph; "
        "structure = {'nodes': [{'id': 'tensor:x', 'kind': 'tensor'}, {'id': 'block:b', 'kind': 'block'}], "
        "'edges': [{'source': 'tensor:x', 'target': 'block:b'}]}; "
        f"InferenceGraph(structure).save('g', {str(tmp_path)!r}); "
        "print('torch' in sys.modules, 'maze.perception' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False False"
    assert (tmp_path / "g.pdf").stat().st_size > 1024
