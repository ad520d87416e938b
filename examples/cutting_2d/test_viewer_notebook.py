"""Runs viewer.ipynb end to end in a real Jupyter kernel (nbclient + ipykernel) and checks its outputs."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat", reason="the notebook test needs nbclient, ipykernel and maze-viz[notebook]")
from nbclient import NotebookClient  # noqa: E402

HERE = Path(__file__).resolve().parent
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def outputs_of(cell: dict, kind: str) -> list:
    return [output for output in cell["outputs"] if kind in output.get("data", {}) or output.get("name") == kind]


def text_of(cell: dict) -> str:
    return "".join(output.get("text", "") for output in cell["outputs"] if output["output_type"] == "stream")


def test_viewer_notebook_records_an_episode_and_opens_both_viewers(tmp_path: Path, monkeypatch) -> None:
    notebook = nbformat.read(HERE / "viewer.ipynb", as_version=4)
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel draws with the notebook's inline backend
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    client = NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()

    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    errors = [output for cell in code for output in cell["outputs"] if output["output_type"] == "error"]
    assert not errors, errors
    trajectory_cell, step_cell, events_cell, stats_cell = code[2], code[3], code[4], code[5]
    assert "with 20 steps" in text_of(trajectory_cell)
    assert outputs_of(trajectory_cell, WIDGET_VIEW), "the trajectory viewer is shown as a widget"
    assert text_of(step_cell).strip() == "showing step 5"
    assert "KPIs: {'raw_piece_usage_per_step': " in text_of(events_cell)
    assert outputs_of(events_cell, WIDGET_VIEW), "the event-log viewer is shown as a widget"
    assert outputs_of(stats_cell, "image/png"), "the step statistics figure is drawn"
    widget_state = notebook.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    sliders = [model["state"] for model in widget_state.values() if model["model_name"] == "IntSliderModel"]
    assert any(state["description"] == "step" and state["max"] == 19 and state["value"] == 5 for state in sliders)
    pictures = [
        model["state"].get("outputs", []) for model in widget_state.values() if model["model_name"] == "OutputModel"
    ]
    assert any("image/png" in output.get("data", {}) for outputs in pictures for output in outputs), "step drawn"
    texts = [model["state"]["value"] for model in widget_state.values() if model["model_name"] == "HTMLModel"]
    assert any(text.startswith("<b>step 5 of 19</b>") and "Cutting2DMazeAction" in text for text in texts)
    assert any("raw_piece_usage_per_step" in text for text in texts)
