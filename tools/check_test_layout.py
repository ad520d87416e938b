"""Checks that the top-level tests/ folder holds only tests that no single package can own.

ARCHITECTURE.md §6: every test of one package's code lives in that package's tree
(``packages/<p>/tests/``, engine tests included). A test module in the top-level ``tests/``
folder (``tests/**/test_*.py``) must therefore do at least one of:

1. import maze modules of two or more distributions (``maze.rl`` and ``maze.conf`` are one:
   maze-rl's), checked against the package registry (tools/packages.py);
2. start a process (import ``subprocess``): a ``maze-run`` job, another console script, an
   interpreter with another environment;
3. use repository content outside the packages: a string constant whose first path part names a
   top-level entry of the repository other than ``packages`` and ``tests`` (``examples``,
   ``docs``, ``tools``, ``README.md``, ...).

The imports of the helper modules of its folder that it imports (``from cli_support import ...``)
count as its own, transitively; conftest.py does not (its fixtures serve many modules).

It also checks that no two modules of the engine test folders (``engine_tests`` in
tools/packages.py) and the top-level tests/ share a name (conftest.py aside): the engine sessions
run several folders in one pytest call with pytest's default import mode, which imports test
modules and their helpers by their bare names.

Usage: ``python tools/check_test_layout.py`` (exit code 1 and one line per misplaced module; run by
``nox -s lint``).
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from packages import ENGINE_SESSIONS, PACKAGES, REPO_ROOT, engine_test_dirs  # noqa: E402

TOP_LEVEL_TESTS = REPO_ROOT / "tests"
LEAF_OWNER = {leaf: package.name for package in PACKAGES for leaf in package.leaves}
"""The distribution that owns each maze leaf (``train`` -> ``maze-train``)."""


@dataclass
class Reach:
    """What a module uses: maze distributions, processes, repository content outside the packages."""

    distributions: set[str] = field(default_factory=set)
    starts_processes: bool = False
    repository_content: set[str] = field(default_factory=set)

    def update(self, other: Reach) -> None:
        """Adds what ``other`` uses."""
        self.distributions |= other.distributions
        self.starts_processes |= other.starts_processes
        self.repository_content |= other.repository_content

    def is_cross_cutting(self) -> bool:
        """True when no single package can own a test with this reach (the rules of the module docs)."""
        return len(self.distributions) >= 2 or self.starts_processes or bool(self.repository_content)


def _outside_packages() -> set[str]:
    """The top-level entries of the repository that are neither packages nor tests (examples, docs, README.md)."""
    return {entry.name for entry in REPO_ROOT.iterdir() if not entry.name.startswith(".")} - {"packages", "tests"}


def module_reach(path: Path, seen: set[Path] | None = None) -> Reach:
    """The reach of the module at ``path``, with that of the sibling helper modules it imports (transitively)."""
    seen = set() if seen is None else seen
    seen.add(path)
    reach = Reach()
    outside = _outside_packages()
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        else:
            modules = []
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                first = node.value.strip("/").split("/", 1)[0]
                if first in outside:
                    reach.repository_content.add(first)
        for module in modules:
            parts = module.split(".")
            if parts[0] == "maze" and len(parts) > 1 and parts[1] in LEAF_OWNER:
                reach.distributions.add(LEAF_OWNER[parts[1]])
            elif parts[0] == "subprocess":
                reach.starts_processes = True
            helper = path.parent / f"{parts[0]}.py"
            if helper.is_file() and helper.name != "conftest.py" and helper not in seen:
                reach.update(module_reach(helper, seen))
    return reach


def misplaced_tests(root: Path = TOP_LEVEL_TESTS) -> list[str]:
    """One message per test module under ``root`` that tests only one package's code."""
    problems = []
    for path in sorted(root.rglob("test_*.py")):
        reach = module_reach(path)
        if not reach.is_cross_cutting():
            owner = ", ".join(sorted(reach.distributions)) or "no maze package"
            problems.append(
                f"{path.relative_to(REPO_ROOT)}: tests only {owner} (no second package, no process, no repository "
                f"content outside packages/): move it into that package's tests/"
            )
    return problems


def clashing_module_names() -> list[str]:
    """One message per module name that two modules of the engine folders and the top-level tests/ share."""
    folders = {folder for session in ENGINE_SESSIONS for folder in engine_test_dirs(session)} | {TOP_LEVEL_TESTS}
    by_name: dict[str, list[Path]] = {}
    for path in sorted({path for folder in folders for path in folder.rglob("*.py")}):
        if path.name != "conftest.py":
            by_name.setdefault(path.name, []).append(path)
    return [
        f"{name}: {len(paths)} modules of engine or top-level test folders share the name "
        f"({', '.join(str(path.relative_to(REPO_ROOT)) for path in paths)}); rename all but one"
        for name, paths in sorted(by_name.items())
        if len(paths) > 1
    ]


def missing_engine_folders() -> list[str]:
    """One message per engine test folder of the registry that does not exist."""
    return [
        f"{package.name}: engine test folder {folder} ({session}) does not exist; fix engine_tests in tools/packages.py"
        for package in PACKAGES
        for session, folder in package.engine_tests
        if not (package.path / folder).is_dir()
    ]


def main() -> int:
    problems = misplaced_tests() + clashing_module_names() + missing_engine_folders()
    for message in problems:
        print(message)
    count = len(list(TOP_LEVEL_TESTS.rglob("test_*.py")))
    print(f"test layout: {len(problems)} problem(s); {count} top-level test module(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
