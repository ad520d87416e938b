"""Old ``_target_`` paths: maze-env's own table, and the tables other packages register (loaded lazily)."""

from __future__ import annotations

import ast
import re
import sys
import types
import warnings
from collections.abc import Iterator
from importlib.metadata import EntryPoint
from pathlib import Path

import maze.env
import pytest
from maze.env.utils import compat_aliases
from maze.env.utils.compat_aliases import ALIASES, ENTRY_POINT_GROUP, registered_aliases, translate_documented_path
from maze.env.utils.factory import resolve_target

UPPER_LAYERS = ("distributions", "perception", "rollout", "deploy", "viz", "train", "rl", "rllib", "conf")
"""The leaves of the packages above maze-env, which maze-env must not name."""

FAKE_TABLE = "fake_upper_package_aliases"


@pytest.fixture
def fake_entry_points(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[EntryPoint]]:
    """The entry points maze-env finds: only those a test appends (the real ones of installed packages are hidden)."""
    found: list[EntryPoint] = []
    module = types.ModuleType(FAKE_TABLE)
    module.ALIASES = {"old.layout.Thing": "maze.env.agent.random_policy.RandomPolicy"}  # type: ignore[attr-defined]
    module.NOT_A_TABLE = ["old.layout.Thing"]  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, FAKE_TABLE, module)
    monkeypatch.setattr(compat_aliases, "entry_points", lambda group: [e for e in found if e.group == group])
    monkeypatch.setattr(compat_aliases, "_warned", set())
    registered_aliases.cache_clear()
    yield found
    registered_aliases.cache_clear()


def entry_point(name: str, value: str) -> EntryPoint:
    return EntryPoint(name=name, value=value, group=ENTRY_POINT_GROUP)


def test_maze_envs_own_table_names_only_maze_env_classes_of_the_same_name() -> None:
    for old, new in ALIASES.items():
        assert new.startswith("maze.env."), old
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            assert resolve_target(old) is resolve_target(new), old
        assert resolve_target(new).__name__ == old.rsplit(".", 1)[-1], old


def test_an_old_path_resolves_with_one_future_warning_naming_the_new_path(fake_entry_points: list[EntryPoint]) -> None:
    old = "maze.core.wrappers.time_limit_wrapper.TimeLimitWrapper"
    with pytest.warns(FutureWarning, match=r"resolves to 'maze\.env\.wrappers\.time_limit\.TimeLimitWrapper'"):
        first = resolve_target(old)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert resolve_target(old) is first


def test_registered_tables_are_loaded_once_and_only_for_paths_maze_env_does_not_list(
    fake_entry_points: list[EntryPoint], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_entry_points.append(entry_point("fake", f"{FAKE_TABLE}:ALIASES"))
    loads: list[str] = []
    real_load = compat_aliases._load_table
    monkeypatch.setattr(compat_aliases, "_load_table", lambda found: loads.append(found.name) or real_load(found))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        translate_documented_path("maze.utils.timeout.Timeout")  # maze-env's own alias
        assert loads == []
        assert translate_documented_path("old.layout.Thing") == "maze.env.agent.random_policy.RandomPolicy"
        assert translate_documented_path("maze.env.GymMazeEnv") is None
    assert loads == ["fake"]
    assert compat_aliases.all_aliases()["old.layout.Thing"] == "maze.env.agent.random_policy.RandomPolicy"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("fake_module_that_is_not_installed:ALIASES", "ModuleNotFoundError"),
        (f"{FAKE_TABLE}:NOT_A_TABLE", "must name a dict of old path strings"),
    ],
)
def test_a_table_that_cannot_be_loaded_is_skipped_with_a_warning_naming_it(
    fake_entry_points: list[EntryPoint], value: str, message: str
) -> None:
    fake_entry_points.extend([entry_point("broken", value), entry_point("fake", f"{FAKE_TABLE}:ALIASES")])
    with pytest.warns(RuntimeWarning, match=rf"aliases of 'broken' \({value}\): .*{message}"):
        assert translate_documented_path("maze.env.GymMazeEnv") is None
    with pytest.warns(FutureWarning):
        assert resolve_target("old.layout.Thing").__name__ == "RandomPolicy"


def _string_constants(tree: ast.AST) -> Iterator[ast.Constant]:
    """The string constants of a module that are not docstrings."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node


def test_maze_env_source_names_no_module_of_a_package_above_it() -> None:
    """Upper-layer names live in their own packages (e.g. their alias tables), never in maze-env's code.

    The old paths of maze-env's alias table are the original framework's names (its vector envs
    lived under ``maze.train``), not modules of ours; what they resolve to is checked above.
    """
    upper_module = re.compile(rf"\bmaze\.({'|'.join(UPPER_LAYERS)})\b")
    found = []
    for path in sorted(Path(maze.env.__file__).parent.rglob("*.py")):
        for node in _string_constants(ast.parse(path.read_text(encoding="utf-8"))):
            if node.value not in ALIASES and upper_module.search(node.value):
                found.append(f"{path.name}:{node.lineno}: {node.value!r}")
    assert found == []
