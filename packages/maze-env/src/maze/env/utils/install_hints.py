"""The ``pip install`` command of a maze package or extra, as the user can run it while maze is unpublished.

maze's distributions are not on PyPI: ``pip install maze-rllib`` fails. They install from the
folders of the repository (``pip install -c tools/constraints.txt ./packages/maze-rllib`` from
its root). Where maze runs from a checkout (the distributions were installed from its
``packages/`` folders, editable or not), :func:`pip_install_command` names that checkout's
folder and constraints file by absolute path, so the command works from any directory; else
the command relative to the repository root, saying so.
"""

from __future__ import annotations

import json
import shlex
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Optional
from urllib.parse import unquote, urlparse

__all__ = ["CONSTRAINTS_FILE", "pip_install_command", "source_checkout"]

CONSTRAINTS_FILE = "tools/constraints.txt"
"""The repository's pip constraints (torch's CPU build), relative to its root."""


def pip_install_command(requirement: str) -> str:
    """The command that installs a maze distribution, optionally with extras, here.

    Args:
        requirement: A maze distribution with optional extras, e.g. ``maze-rllib`` or ``maze-env[box2d]``.

    Returns:
        E.g. ``pip install -c /src/maze/tools/constraints.txt '/src/maze/packages/maze-env[box2d]'`` in a
        checkout, else ``pip install -c tools/constraints.txt './packages/maze-env[box2d]' (from the root of
        the maze repository)``.
    """
    distribution, bracket, extras = requirement.partition("[")
    suffix = bracket + extras
    root = source_checkout()
    if root is not None and (root / "packages" / distribution).is_dir():
        constraints = root / CONSTRAINTS_FILE
        constraint = f"-c {shlex.quote(str(constraints))} " if constraints.is_file() else ""
        return f"pip install {constraint}{shlex.quote(str(root / 'packages' / distribution) + suffix)}"
    return (
        f"pip install -c {CONSTRAINTS_FILE} {shlex.quote(f'./packages/{distribution}{suffix}')} "
        "(from the root of the maze repository)"
    )


@lru_cache(maxsize=1)
def source_checkout() -> Optional[Path]:
    """The root of the maze repository this maze-env was installed from, or None (e.g. a wheel).

    Read from the installation's ``direct_url.json`` (PEP 610): a folder install of
    ``<root>/packages/maze-env``.
    """
    try:
        text = metadata.distribution("maze-env").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None
    try:
        url = urlparse(json.loads(text)["url"]) if text else None
    except (ValueError, KeyError, TypeError):
        return None
    if url is None or url.scheme != "file":
        return None
    folder = Path(unquote(url.path))
    if folder.name != "maze-env" or folder.parent.name != "packages" or not folder.is_dir():
        return None
    return folder.parent.parent
