"""Lazy imports of maze-viz's optional extras, with a message naming the extra to install."""

from __future__ import annotations

import importlib
from types import ModuleType

from maze.env.utils.install_hints import pip_install_command

__all__ = ["import_extra"]


def import_extra(module: str, extra: str, purpose: str) -> ModuleType:
    """Imports ``module`` of the optional extra ``extra`` of maze-viz.

    Args:
        module: The module to import, e.g. ``ipywidgets``.
        extra: The maze-viz extra that installs it (``notebook`` or ``tensorboard``).
        purpose: What needs it, for the message (e.g. ``NotebookTrajectoryViewer``).

    Raises:
        ImportError: The module is not installed; the message names the extra.
    """
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(
            f"{purpose} needs {module.split('.')[0]}, which maze-viz installs only with its {extra!r} extra: "
            f"{pip_install_command(f'maze-viz[{extra}]')}"
        ) from error
