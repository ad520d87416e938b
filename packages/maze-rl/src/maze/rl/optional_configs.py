"""One-line hints for configs and runners that come with a maze package which is not installed.

``maze-run -cn conf_rllib`` without maze-rllib fails in Hydra (no primary config
``conf_rllib``), and a ``runner._target_`` of ``maze.rllib`` fails to import. Both name what
is missing only indirectly; :func:`missing_package_hint` turns such an error into one line
naming the package and the command that installs it from the repository's folder (maze is not
published; see :func:`maze.env.utils.install_hints.pip_install_command`)::

    conf_rllib (and the rllib/... config groups, maze.rllib runners) come with maze-rllib, which is not
    installed here: pip install -c /src/maze/tools/constraints.txt /src/maze/packages/maze-rllib (it pins
    gymnasium to ray[rllib]'s version, replacing a newer one in this venv: better a venv of its own)
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Optional

from maze.env.utils.install_hints import pip_install_command

__all__ = ["OPTIONAL_PACKAGES", "OptionalPackage", "missing_package_hint"]


@dataclass(frozen=True)
class OptionalPackage:
    """A maze package that brings its own root configs, config groups and runners.

    Attributes:
        distribution: The distribution to install (from its folder ``packages/<distribution>``).
        module: The package's import name (looked up, not imported).
        markers: Texts that, found in an error message, name something of the package
            (a root config, a config group path, a dotted target).
        provides: What the package brings, for the hint.
        caveat: What installing it changes besides (said after the command), or empty.
    """

    distribution: str
    module: str
    markers: tuple[str, ...]
    provides: str
    caveat: str = ""

    def installed(self) -> bool:
        """Whether the package can be imported here (checked without importing it)."""
        try:
            return importlib.util.find_spec(self.module) is not None
        except ModuleNotFoundError:
            return False


OPTIONAL_PACKAGES = (
    OptionalPackage(
        distribution="maze-rllib",
        module="maze.rllib",
        markers=("conf_rllib", "rllib/algorithm", "rllib/runner", "maze.rllib"),
        provides="conf_rllib (and the rllib/... config groups, maze.rllib runners)",
        caveat=(
            "it pins gymnasium to ray[rllib]'s version (e.g. 1.2.2 with Ray 2.60), replacing a newer one in this venv: "
            "better a venv of its own"
        ),
    ),
)
"""The optional packages whose missing configs and targets get a hint."""


def missing_package_hint(error: BaseException) -> Optional[str]:
    """The install hint for an error caused by a missing optional package, or None.

    Args:
        error: A Hydra config error (missing config or group) or a target that failed to import.

    Returns:
        One line naming the package and the ``pip install`` command; None when the error names
        nothing of an optional package, or the package is installed (the error has another cause).
    """
    text = str(error)
    for package in OPTIONAL_PACKAGES:
        if any(marker in text for marker in package.markers) and not package.installed():
            caveat = f" ({package.caveat})" if package.caveat else ""
            return (
                f"{package.provides} come with {package.distribution}, which is not installed here: "
                f"{pip_install_command(package.distribution)}{caveat}"
            )
    return None
