"""Adversarial ``_target_`` paths of a run directory's configs: refused before anything is built or run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from maze.env.core.maze_env import MazeEnv
from maze.env.utils.factory import Factory, resolve_target
from maze.env.utils.trust import UntrustedTargetError, modules_named_in, trusted_targets_only
from maze.env.wrappers.time_limit import TimeLimitWrapper

SOURCE = "'runs/x/.hydra/config.yaml'"


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("maze.env.utils.factory.os.system", r"through 'maze.env.utils.factory.os', which is a module"),
        ("maze.env.utils.factory.inspect.BlockFinder", r"through 'maze.env.utils.factory.inspect', which is a module"),
        ("maze.env.utils.factory.importlib", r"it is a module"),
        ("maze.env.core.events.itemgetter", r"class \(operator.itemgetter\), which can call arbitrary code"),
        ("maze.env.utils.factory.Factory.__class__", "metaclass"),
        ("maze.env.utils.factory.Factory.__init__.__globals__", r"through 'maze.env.utils.factory.Factory.__init__'"),
        ("maze.env.utils.files.atomic_write_bytes", "callable function defined in 'maze.env.utils.files'"),
        ("gymnasium.spaces.utils.flatten", "callable function defined in 'gymnasium.spaces.utils'"),
    ],
)
def test_paths_through_foreign_modules_gadgets_and_functions_are_refused(path: str, why: str) -> None:
    with trusted_targets_only(SOURCE), pytest.raises(UntrustedTargetError, match=why) as error:
        resolve_target(path)
    assert SOURCE in str(error.value) and "nothing was" in str(error.value)


def test_a_file_creating_class_reached_through_a_maze_modules_import_is_refused(tmp_path: Path) -> None:
    """``logging.FileHandler`` (creates or truncates any file) via ``maze.env.utils.seeding``'s ``import logging``."""
    marker = tmp_path / "created"
    config = {"_target_": "maze.env.utils.seeding.logging.FileHandler", "filename": str(marker), "mode": "w"}
    with trusted_targets_only(SOURCE), pytest.raises(UntrustedTargetError, match="seeding.logging', which is a module"):
        Factory(MazeEnv).instantiate(config)
    assert not marker.exists()


def test_a_class_that_cannot_be_the_needed_type_is_refused_before_it_is_built(tmp_path: Path) -> None:
    marker = tmp_path / "created_by_the_constructor"
    config = {"_target_": "maze.env.log_stats.writers.LogStatsWriterFile", "log_dir": str(marker)}
    with trusted_targets_only(SOURCE), pytest.raises(UntrustedTargetError, match="where a MazeEnv is needed"):
        Factory(MazeEnv).instantiate(config)
    assert not marker.exists()


def test_maze_classes_and_trusted_modules_still_resolve() -> None:
    with trusted_targets_only(SOURCE, trusted_modules=["json"]):
        assert resolve_target("maze.env.wrappers.time_limit.TimeLimitWrapper") is TimeLimitWrapper
        assert resolve_target("TimeLimitWrapper", ["maze.env.wrappers"]) is TimeLimitWrapper
        assert resolve_target("json.dumps")  # trusted explicitly: its own functions too
        with pytest.raises(UntrustedTargetError, match="through 'json.codecs', which is a module"):
            resolve_target("json.codecs.open")  # ... but not what it imports


def test_a_foreign_top_module_is_not_even_imported() -> None:
    assert "tabnanny" not in sys.modules
    with trusted_targets_only(SOURCE), pytest.raises(UntrustedTargetError, match="names 'tabnanny.check'"):
        resolve_target("tabnanny.check")
    assert "tabnanny" not in sys.modules


def test_the_users_config_trusts_its_own_modules_but_never_widens_maze() -> None:
    config = {"_target_": "my_pkg.models.Composer", "nets": [{"_target_": "maze.perception.blocks.DenseBlock"}]}
    assert modules_named_in(config) == ["my_pkg.models"]


def test_a_resolved_class_passed_on_is_refused_before_it_is_built(tmp_path: Path) -> None:
    """Callers that resolve a path themselves and hand the class to a Factory get the same check."""
    marker = tmp_path / "created_by_the_constructor"
    target = resolve_target("maze.env.log_stats.writers.LogStatsWriterFile")
    with trusted_targets_only(SOURCE), pytest.raises(UntrustedTargetError, match="where a MazeEnv is needed"):
        Factory(MazeEnv).instantiate(target, log_dir=str(marker))
    assert not marker.exists()


def test_a_nested_scope_keeps_the_outer_allow_list_and_cannot_trust_more_modules() -> None:
    """An object a run directory names (e.g. a stored policy) cannot trust modules for the configs it builds."""
    with trusted_targets_only(SOURCE, ["json"]):
        with pytest.raises(UntrustedTargetError, match=r"asks 'runs/x/m.yaml' to trust the modules \['os'\]"):
            with trusted_targets_only("'runs/x/m.yaml'", ["os"]):
                pass
        with trusted_targets_only("'runs/x/m.yaml'", ["json.decoder"]):  # already trusted: fine
            assert resolve_target("json.decoder.JSONDecoder").__name__ == "JSONDecoder"
            with pytest.raises(UntrustedTargetError, match="'runs/x/m.yaml' names 'os.system'"):
                resolve_target("os.system")


@pytest.mark.parametrize(
    ("safe", "trusted_modules", "why"),
    [(False, (), "cannot turn safe loading off"), (True, ("os",), r"to trust the modules \['os'\]")],
)
def test_a_run_directory_config_cannot_lower_the_safety_of_loading_trajectories(
    tmp_path: Path, safe: bool, trusted_modules: tuple[str, ...], why: str
) -> None:
    from maze.env.trajectory_recording import load_trajectory

    path = tmp_path / "episode.pkl"
    path.write_bytes(b"not read")
    with trusted_targets_only(SOURCE), pytest.raises(UntrustedTargetError, match=why):
        load_trajectory(path, safe=safe, trusted_modules=trusted_modules)
