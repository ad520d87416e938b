"""The export directory holds a loadable export at every instant; OS errors of the export are one ``Error:`` line.

The kill-at-every-write test ends a forked child right before each file-system operation of
the swap from one export to the next (:mod:`maze.env.testing.crash_points`, the effect of a
SIGKILL at that instant) and loads what is left as a deployment does: ``metadata.json``, then
the files it names. It must compute the logits of the old policy or of the new one.
"""

from __future__ import annotations

import errno
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime
import pytest
import torch
import yaml
from maze.env import GymMazeEnv
from maze.env.testing.crash_points import count_operations, fork_available, run_killed_before
from maze.env.utils.spaces_config import SpacesConfig
from maze.perception.checkpoint import save_checkpoint
from maze.perception.export import METADATA_FILE, export_policy
from maze.perception.export.__main__ import main
from maze.perception.export.publish import clean_leftovers, publish
from maze.perception.models.base_model_composer import build_model_composer

CONFIG = yaml.safe_load((files("maze.perception") / "conf" / "model" / "vector_obs.yaml").read_text())
OBSERVATION = np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32)


def cartpole_policy(seed: int) -> Any:
    torch.manual_seed(seed)
    return build_model_composer(CONFIG, SpacesConfig.from_env(GymMazeEnv("CartPole-v1"))).torch_policy("cpu")


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two exports (``a`` and ``b``) of CartPole policies with different weights."""
    torch.set_num_threads(1)
    root = tmp_path_factory.mktemp("exports")
    spaces_config = SpacesConfig.from_env(GymMazeEnv("CartPole-v1"))
    return {
        name: export_policy(cartpole_policy(seed), spaces_config, root / name) for name, seed in (("a", 0), ("b", 1))
    }


def loaded_logits(directory: Path) -> np.ndarray:
    """The logits of the export in ``directory``, loaded as a deployment loads it (the metadata, then its files)."""
    data = json.loads((directory / METADATA_FILE).read_text())
    (entry,) = data["networks"]
    session = onnxruntime.InferenceSession(str(directory / entry["file"]), providers=["CPUExecutionProvider"])
    return session.run(None, {"observation": OBSERVATION})[0]


def which_export(directory: Path, exports: dict[str, Path]) -> str:
    """``a`` or ``b``: the export whose policy the directory's export computes (fails for anything else)."""
    logits = loaded_logits(directory)
    found = [name for name, export in exports.items() if np.array_equal(logits, loaded_logits(export))]
    assert len(found) == 1, f"{directory} holds neither export: {sorted(path.name for path in directory.iterdir())}"
    return found[0]


def listing(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.iterdir())


def as_older_maze_wrote_it(export: Path, directory: Path) -> None:
    """Copies ``export`` into ``directory`` with the unversioned file names of older maze versions."""
    directory.mkdir(parents=True)
    data = json.loads((export / METADATA_FILE).read_text())
    for entry in data["networks"]:
        shutil.copy(export / entry["file"], directory / "policy_0.onnx")
        entry["file"] = "policy_0.onnx"
    (directory / METADATA_FILE).write_text(json.dumps(data))


def staged(export: Path, staging: Path) -> dict[str, Any]:
    """Puts the files of ``export`` into ``staging`` as the exporter writes them there; returns its metadata."""
    staging.mkdir(parents=True)
    data = json.loads((export / METADATA_FILE).read_text())
    for entry in data["networks"]:
        shutil.copy(export / entry["file"], staging / "policy_0.onnx")
        entry["file"] = "policy_0.onnx"
    return data


@pytest.mark.skipif(not fork_available(), reason="the kill test forks")
@pytest.mark.parametrize("layout", ["versioned", "older maze"])
def test_a_swap_killed_before_any_file_operation_leaves_a_loadable_export(
    exports: dict[str, Path], tmp_path: Path, layout: str
) -> None:
    def prepare(name: str) -> tuple[Path, Path, dict[str, Any]]:
        """The staging directory holding export b, the export directory holding export a, b's metadata."""
        directory = tmp_path / name / "onnx"
        if layout == "versioned":
            shutil.copytree(exports["a"], directory)
        else:
            as_older_maze_wrote_it(exports["a"], directory)
        staging = tmp_path / name / ".staging"
        return staging, directory, staged(exports["b"], staging)

    prepared = prepare("count")
    operations = count_operations(lambda: publish(*prepared, METADATA_FILE))
    assert operations >= 5
    seen = set()
    for n in range(1, operations + 1):
        staging, directory, data = prepare(f"killed-{n}")
        assert run_killed_before(lambda: publish(staging, directory, data, METADATA_FILE), n)  # noqa: B023
        seen.add(which_export(directory, exports))
        publish(staging.parent / "next", directory, staged(exports["b"], staging.parent / "next"), METADATA_FILE)
        assert which_export(directory, exports) == "b"  # the next export leaves only its own files
        assert len(listing(directory)) == 2 and METADATA_FILE in listing(directory)
    assert seen == {"a", "b"}


def test_every_export_is_a_new_version_and_the_earlier_ones_are_deleted(exports: dict[str, Path]) -> None:
    directory = exports["a"].parent / "repeated"
    spaces_config = SpacesConfig.from_env(GymMazeEnv("CartPole-v1"))
    for version, seed in ((1, 0), (2, 1), (3, 0)):
        export_policy(cartpole_policy(seed), spaces_config, directory)
        assert listing(directory) == [METADATA_FILE, f"policy_0.v{version}.onnx"]
    assert which_export(directory, exports) == "a"
    assert listing(directory.parent) == ["a", "b", "repeated"]  # no staging directory left


def test_an_export_hidden_by_an_older_maze_s_interrupted_swap_is_restored_first(
    exports: dict[str, Path], tmp_path: Path
) -> None:
    run = tmp_path / "run"
    hidden = run / ".onnx-old-k2j3h4" / "onnx"
    as_older_maze_wrote_it(exports["a"], hidden)
    abandoned = run / ".onnx-x7y8z9"  # an older maze's staging directory, untouched for two hours
    abandoned.mkdir()
    os.utime(abandoned, (time.time() - 7200,) * 2)
    clean_leftovers(run / "onnx")
    assert listing(run) == ["onnx"] and which_export(run / "onnx", exports) == "a"

    export_policy(cartpole_policy(1), SpacesConfig.from_env(GymMazeEnv("CartPole-v1")), run / "onnx")
    assert listing(run / "onnx") == [METADATA_FILE, "policy_0.v1.onnx"] and which_export(run / "onnx", exports) == "b"


# --- OS errors ----------------------------------------------------------------------------------


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    save_checkpoint(run, cartpole_policy(0), SpacesConfig.from_env(GymMazeEnv("CartPole-v1")), CONFIG)
    return run


@pytest.mark.parametrize("code", [errno.EACCES, errno.EROFS, errno.ENOSPC])
def test_an_unwritable_run_directory_is_one_error_line_naming_it_and_the_fix(
    run_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, code: int
) -> None:
    mkdir = os.mkdir

    def refused(path: Any, *args: Any, **kwargs: Any) -> None:
        if Path(path).parent == run_dir:
            raise OSError(code, os.strerror(code), str(path))
        mkdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "mkdir", refused)  # as a read-only, full or foreign directory answers (tests run as root)
    assert main([str(run_dir)]) == 1
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1, error
    assert error[0].startswith(f"Error: cannot write {str(run_dir)!r}: {os.strerror(code)} ({errno.errorcode[code]}); ")
    assert "--output DIR" in error[0] and error[0].endswith("the previous export is unchanged")
    assert listing(run_dir) == ["model_config.yaml", "spaces_config.yaml", "state_dict.pt"]


@pytest.mark.skipif(not hasattr(resource, "RLIMIT_FSIZE"), reason="needs a file-size limit")
def test_a_file_size_limit_below_the_export_is_one_error_line(run_dir: Path) -> None:
    def limit_file_size() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    result = subprocess.run(
        [sys.executable, "-m", "maze.perception.export", str(run_dir)],
        capture_output=True,
        text=True,
        preexec_fn=limit_file_size,
        timeout=120,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(
        f"Error: cannot write {str(run_dir / 'onnx' / 'policy_0.onnx')!r}: File too large (EFBIG)"
    ), line
    assert "raise the file-size limit (ulimit -f)" in line
    assert listing(run_dir) == ["model_config.yaml", "spaces_config.yaml", "state_dict.pt"]  # nothing left behind
