"""Drawing the networks of a model composer as PDFs into the run directory, beside the training.

Drawing needs matplotlib, whose import and layout take about a second; a run that trains
for a few seconds should not wait for it. Where the platform can fork, a child process
draws while the training goes on (on another core), and the runner collects it at the end.
"""

from __future__ import annotations

import logging
import multiprocessing
from pathlib import Path
from typing import Any, Optional

from maze.perception.models.base_model_composer import BaseModelComposer

logger = logging.getLogger(__name__)

__all__ = ["GraphDrawing", "preload_drawing", "save_graph_pdfs"]


def save_graph_pdfs(structures: dict[str, Any], directory: Path) -> list[Path]:
    """Writes ``<network name>.pdf`` for every graph structure (network name -> InferenceGraphStructure)."""
    from maze.viz.inference_graph import InferenceGraph  # matplotlib: imported only when drawing

    return [InferenceGraph(structure).save(name, directory) for name, structure in structures.items()]


def preload_drawing() -> None:
    """Imports what drawing needs (matplotlib and its PDF backend), e.g. in a launcher that forks many jobs."""
    import maze.viz.inference_graph  # noqa: F401


class GraphDrawing:
    """Draws the policy and critic graphs of ``composer`` into ``directory``, in a forked child if possible.

    Start it before any thread runs in this process (forking a threaded process is unsafe).

    Args:
        composer: The model composer (networks built from InferenceBlocks are drawn).
        directory: The run directory.
    """

    def __init__(self, composer: BaseModelComposer, directory: Path) -> None:
        self.structures = composer.graph_structures()
        self.directory = directory
        self._process: Optional[multiprocessing.process.BaseProcess] = None
        if not self.structures:
            return
        if "fork" in multiprocessing.get_all_start_methods():
            self._process = multiprocessing.get_context("fork").Process(
                target=save_graph_pdfs, args=(self.structures, directory), name="maze-graph-pdfs"
            )
            self._process.start()
        else:
            save_graph_pdfs(self.structures, directory)

    def join(self) -> None:
        """Waits for the drawing; reports (does not raise) a failed drawing."""
        if self._process is None:
            return
        self._process.join()
        if self._process.exitcode != 0:
            logger.warning(
                f"Warning: drawing the model graphs into {self.directory} failed (exit code {self._process.exitcode})"
            )
        self._process = None
