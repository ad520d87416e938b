"""Each package registers the aliases of its own classes; maze-env loads them without importing torch."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points

from maze.env.utils.compat_aliases import ALIASES, ENTRY_POINT_GROUP

TABLES = {
    "maze-perception": "maze.perception.compat_aliases:ALIASES",
    "maze-rollout": "maze.rollout.compat_aliases:ALIASES",
    "maze-train": "maze.train.compat_aliases:ALIASES",
    "maze-rl": "maze.rl.compat_aliases:ALIASES",
}


def test_the_packages_above_maze_env_register_their_tables() -> None:
    registered = {entry.name: entry.value for entry in entry_points(group=ENTRY_POINT_GROUP)}
    assert {name: registered.get(name) for name in TABLES} == TABLES


def test_each_table_names_only_its_own_packages_classes_and_no_old_path_twice() -> None:
    seen = set(ALIASES)
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        table = entry.load()
        leaf = entry.value.split(":")[0].removesuffix(".compat_aliases")
        assert all(new.startswith(f"{leaf}.") for new in table.values()), entry.name
        assert seen.isdisjoint(table), (entry.name, sorted(seen & set(table)))
        seen.update(table)


def test_loading_every_table_imports_no_torch() -> None:
    modules = sorted(value.split(":")[0] for value in TABLES.values())
    probe = (
        "import sys\n"
        "from maze.env.utils.compat_aliases import registered_aliases\n"
        "registered_aliases()\n"
        f"assert all(name in sys.modules for name in {modules!r}), 'a table was not loaded'\n"
        "assert 'torch' not in sys.modules, 'loading the tables imported torch'\n"
    )
    subprocess.run([sys.executable, "-c", probe], check=True, timeout=120)
