"""Static check of the dependency graph of ARCHITECTURE.md §3.

Every import statement (also lazy ones inside functions) in a package's source and tests
must name the standard library, a maze leaf the package may depend on, or a third-party
module the registry allows for it. Its tests may also import pytest, the package's
``test_requires``, the helper modules of its own test tree and of its in-repo dependencies'
test trees, and, in an engine test folder (``Package.engine_tests``), the package's optional
modules and the engine's (``ENGINE_SESSIONS``). Also checks the namespace layout: no
``maze/__init__.py`` anywhere, and a ``py.typed`` in every leaf.

It also seals maze-train's algorithm folders: a module in ``maze/train/trainers/<algorithm>/``
imports only its own folder and maze-train's shared layer (``maze.train.core``, ``runners``,
``backends``, ``distributed`` and the other modules outside ``maze.train.trainers``), never
another algorithm's folder.

Usage: ``python tools/check_imports.py`` (exit code 1 and one line per violation).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from packages import ENGINE_SESSIONS, PACKAGES, Package, allowed_imports, install_order  # noqa: E402

TEST_ONLY_MODULES = {"pytest"}


def imported_modules(path: Path) -> Iterator[tuple[int, str, bool]]:
    """Yields ``(line, dotted module, lazy)`` for each absolute import in a Python file.

    ``lazy`` is True for imports inside a function body.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    lazy_nodes = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        for inner in ast.walk(node)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, id(node) in lazy_nodes
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module, id(node) in lazy_nodes


def violations(package: Package) -> Iterator[str]:
    """Yields one message per forbidden import or layout problem of ``package``."""
    leaves, third_party = allowed_imports(package.name)
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    if (package.path / "src" / "maze" / "__init__.py").exists():
        yield f"{package.name}: src/maze/__init__.py breaks the shared 'maze' namespace; delete it"
    for leaf in package.leaves:
        if not (package.path / "src" / "maze" / leaf / "py.typed").exists():
            yield f"{package.name}: leaf maze.{leaf} has no py.typed marker"
    # tests may import the test-only tools and the helper modules of their own and their dependencies' test trees
    helpers = {path.stem for dep in install_order(package.name) for path in (dep.path / "tests").rglob("*.py")}
    test_modules = TEST_ONLY_MODULES | set(package.test_requires) | helpers
    engine_modules = {
        package.path / folder: set(package.optional_third_party) | set(ENGINE_SESSIONS[session])
        for session, folder in package.engine_tests
    }
    for folder, modules in (("src", set()), ("tests", test_modules)):
        for path in sorted((package.path / folder).rglob("*.py")):
            extra = modules.union(*(engine for root, engine in engine_modules.items() if root in path.parents))
            for line, module, lazy in imported_modules(path):
                parts = module.split(".")
                top = parts[0]
                where = f"{path.relative_to(package.path.parent.parent)}:{line}"
                if top == "maze":
                    if len(parts) > 1 and parts[1] not in leaves:
                        yield f"{where}: {package.name} must not import maze.{parts[1]} (allowed: {sorted(leaves)})"
                elif top in package.optional_third_party and folder == "src":
                    if not lazy:
                        yield f"{where}: {top!r} is optional for {package.name}; import it inside the function that needs it"
                elif top not in stdlib and top not in third_party and top not in extra:
                    yield f"{where}: {package.name} must not import {top!r} (allowed third party: {sorted(third_party)})"


TRAINERS = "maze.train.trainers"
"""The package of maze-train's algorithm folders."""


def algorithm_folder_violations(source: Path) -> Iterator[str]:
    """Yields one message per import of another algorithm's folder from inside an algorithm folder.

    Args:
        source: maze-train's ``src`` directory.
    """
    trainers = source / "maze" / "train" / "trainers"
    for folder in sorted(path for path in trainers.iterdir() if path.is_dir() and path.name != "__pycache__"):
        own = f"{TRAINERS}.{folder.name}"
        for path in sorted(folder.rglob("*.py")):
            for line, module, _ in imported_modules(path):
                if module == TRAINERS or (module.startswith(f"{TRAINERS}.") and not _within(module, own)):
                    where = f"{path.relative_to(source.parent.parent.parent)}:{line}"
                    yield (
                        f"{where}: the algorithm folder {folder.name}/ must not import {module} (another algorithm's "
                        "folder); move what both need to maze.train.core"
                    )


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(f"{package}.")


def main() -> int:
    problems = [message for package in PACKAGES for message in violations(package)]
    train = next(package for package in PACKAGES if package.name == "maze-train")
    problems += list(algorithm_folder_violations(train.path / "src"))
    for message in problems:
        print(message)
    print(f"import graph: {len(problems)} violation(s) in {len(PACKAGES)} packages")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
