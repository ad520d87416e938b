"""Crafted data and run directories run nothing, wherever maze loads them.

Trajectory files (a chained payload hidden in an otherwise valid episode): BC and SACfD
through ``maze-run`` (also with dataset worker processes), ``InMemoryDataset`` with worker
processes, and the viewers' loader. Run directories (a class reached through a maze module's
``import logging``: ``logging.FileHandler`` creates or truncates any file it is given) in
``model_config.yaml`` and in the ``env`` entry of ``.hydra/config.yaml``: rollouts with
``policy=torch_policy``, ``AgentDeployment.from_run_dir`` and ``RunContext``. Each refusal is
one clear error naming the file and the refused name. Finally, everything any maze module
imports is tried through that module with both loaders.
"""

from __future__ import annotations

import importlib
import pkgutil
import shutil
import subprocess
import types
from pathlib import Path

import pytest
import yaml
from cli_support import TrainingRun, assert_success, maze_run
from maze.env.errors import ConfigurationError
from maze.env.testing.crafted_pickles import Opcodes, dumps, structured_dtype_array
from maze.env.trajectory_recording import StateTrajectoryRecord, TrajectoryLoadError, load_trajectory
from maze.env.trajectory_recording.safe_unpickler import UnsafeTrajectoryError, safe_loads
from maze.env.utils.allow_list import is_gadget
from maze.env.utils.factory import resolve_target
from maze.env.utils.trust import UntrustedTargetError, trusted_targets_only

CHAIN_NAME = "maze.env.utils.factory.inspect.attrgetter"
"""The first name the chained payload needs: ``attrgetter`` through ``maze.env.utils.factory``'s ``inspect``."""

FILE_HANDLER = "maze.env.utils.seeding.logging.FileHandler"
"""A class that creates (or truncates) any file, reached through ``maze.env.utils.seeding``'s ``import logging``."""


def one_error(result: subprocess.CompletedProcess, *fragments: str) -> str:
    """The job failed with exactly one ``Error:`` line containing every fragment, and no traceback."""
    assert result.returncode == 1, result.stdout[-2000:] + result.stderr[-2000:]
    assert "Traceback" not in result.stderr, result.stderr
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    for fragment in fragments:
        assert fragment in line, line
    return line


@pytest.fixture(scope="module")
def poisoned_data(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """Three recorded CartPole episodes, one of them carrying the payload in a step's info.

    Returns:
        The trajectory directory, the poisoned file and the marker the payload would create.
    """
    root = tmp_path_factory.mktemp("poisoned")
    result = maze_run(  # pickles (an explicit opt-in): the attack targets the legacy loader
        "env.name=CartPole-v1",
        "runner=sequential",
        "runner.n_episodes=3",
        "runner.trajectory_format=pickle",
        run_dir=root / "rollout",
    )
    assert_success(result)
    data = root / "rollout" / "trajectory_data"
    poisoned = sorted(data.glob("*.pkl"))[1]
    record = load_trajectory(poisoned, StateTrajectoryRecord)
    marker = root / "payload_ran"
    record.step_records[len(record) // 2].info = {"debug": [Opcodes.payload("maze_dotted_chain", marker)]}
    poisoned.write_bytes(dumps(record, protocol=4))
    return data, poisoned, marker


@pytest.mark.parametrize(
    "overrides",
    [
        ("algorithm=bc", "runner=dev", "runner.dataset.input_data={data}"),
        ("algorithm=bc", "runner=dev", "runner.dataset.input_data={data}", "runner.dataset.n_workers=2"),
        (
            "algorithm=sacfd",
            "critic=template_state_action",
            "runner=dev",
            "runner.initial_demonstration_trajectories.input_data={data}",
        ),
    ],
    ids=["bc", "bc-dataset-workers", "sacfd"],
)
def test_training_on_a_poisoned_dataset_refuses_it(
    poisoned_data: tuple[Path, Path, Path], overrides: tuple[str, ...], tmp_path: Path
) -> None:
    data, poisoned, marker = poisoned_data
    args = [override.format(data=data) for override in overrides]
    result = maze_run("-cn", "conf_train", "env.name=CartPole-v1", "model=vector_obs", *args, run_dir=tmp_path / "run")
    one_error(result, poisoned.name, f"refusing to load {CHAIN_NAME}")
    assert not marker.exists()


def test_behavioural_cloning_on_a_file_whose_state_corrupts_memory_refuses_it(
    poisoned_data: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """A state array whose structured dtype reads 2**40 bytes past its memory: maze-run died with exit 139."""
    data, poisoned, _ = poisoned_data
    corrupting = tmp_path / "data"
    shutil.copytree(data, corrupting, ignore=shutil.ignore_patterns(poisoned.name))
    victim = sorted(corrupting.glob("*.pkl"))[0]
    record = load_trajectory(victim, StateTrajectoryRecord)
    record.step_records[1].maze_state = structured_dtype_array()
    victim.write_bytes(dumps(record, protocol=4))
    overrides = ("algorithm=bc", "runner=dev", f"runner.dataset.input_data={corrupting}")
    result = maze_run(
        "-cn", "conf_train", "env.name=CartPole-v1", "model=vector_obs", *overrides, run_dir=tmp_path / "run"
    )
    one_error(result, victim.name, "only plain dtypes load")


def test_datasets_with_worker_processes_and_the_viewers_refuse_it(poisoned_data: tuple[Path, Path, Path]) -> None:
    from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
    from maze.rollout.datasets import InMemoryDataset
    from maze.viz.trajectories import load_state_trajectory

    data, poisoned, marker = poisoned_data
    with pytest.raises(TrajectoryLoadError, match=rf"{poisoned.name}: refusing to load {CHAIN_NAME}"):
        InMemoryDataset(data, conversion_env_factory=lambda: GymMazeEnv("CartPole-v1"), n_workers=2)
    with pytest.raises(TrajectoryLoadError, match=rf"{poisoned.name}: refusing to load {CHAIN_NAME}"):
        load_state_trajectory(poisoned)
    assert not marker.exists()


@pytest.fixture()
def crafted_run_dir(tiny_ppo_run: TrainingRun, tmp_path: Path) -> tuple[Path, Path]:
    """A copy of a real training run whose model config and env config build a ``FileHandler``.

    Returns:
        The run directory and the file the crafted configs would create.
    """
    copy = tmp_path / "downloaded_run"
    shutil.copytree(tiny_ppo_run.run_dir, copy)
    marker = tmp_path / "created_by_the_run_dir"
    crafted = {"_target_": FILE_HANDLER, "filename": str(marker), "mode": "w"}
    model_config = yaml.safe_load((copy / "model_config.yaml").read_text())
    model_config["policy"] = crafted
    (copy / "model_config.yaml").write_text(yaml.safe_dump(model_config))
    hydra_config = yaml.safe_load((copy / ".hydra" / "config.yaml").read_text())
    hydra_config["env"] = crafted
    (copy / ".hydra" / "config.yaml").write_text(yaml.safe_dump(hydra_config))
    return copy, marker


def test_a_rollout_of_a_crafted_run_dir_refuses_it(crafted_run_dir: tuple[Path, Path], tmp_path: Path) -> None:
    run_dir, marker = crafted_run_dir
    result = maze_run(
        "env.name=CartPole-v1",
        "model=vector_obs",
        "policy=torch_policy",
        f"input_dir={run_dir}",
        "runner.n_episodes=1",
        run_dir=tmp_path / "rollout",
    )
    one_error(result, "model_config.yaml", f"names '{FILE_HANDLER}'", "seeding.logging', which is a module")
    assert not marker.exists()


def test_deployment_and_run_context_refuse_a_crafted_run_dir(
    crafted_run_dir: tuple[Path, Path], tmp_path: Path
) -> None:
    from maze.deploy import AgentDeployment
    from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
    from maze.rl.api import RunContext

    run_dir, marker = crafted_run_dir
    with pytest.raises(ConfigurationError, match=rf"{run_dir.name}/.hydra/config.yaml' names '{FILE_HANDLER}'"):
        AgentDeployment.from_run_dir(run_dir)  # the env of .hydra/config.yaml
    with pytest.raises(
        ConfigurationError,
        match=rf"model_config.yaml' names '{FILE_HANDLER}', a path through .*seeding.logging', which is a module",
    ):
        AgentDeployment.from_run_dir(run_dir, env=lambda: GymMazeEnv("CartPole-v1"))
    context = RunContext(
        env="gym_env",
        model="vector_obs",
        policy="torch_policy",
        overrides={"env.name": "CartPole-v1", "input_dir": str(run_dir)},
        configuration="rollout",
        silent=True,
        run_dir=tmp_path / "context",
    )
    with pytest.raises(
        ConfigurationError,
        match=rf"model_config.yaml' names '{FILE_HANDLER}', a path through .*seeding.logging', which is a module",
    ):
        context.rollout(n_episodes=1)
    assert not marker.exists()


def _maze_modules() -> list[types.ModuleType]:
    """Every importable module of every installed maze package."""
    import maze

    modules = []
    for info in pkgutil.walk_packages(maze.__path__, "maze."):
        try:
            modules.append(importlib.import_module(info.name))
        except ImportError:  # an optional extra that is not installed
            continue
    return modules


def _names_reached_through_imports(module: types.ModuleType) -> list[str]:
    """Names of objects a crafted file could reach through ``module``'s imports.

    For each non-maze module ``module`` imports (``import os`` -> ``os``), a few of its public callables
    (``os.system``); and every callable ``module`` imports by name from outside maze that is a
    function or a gadget class (``from operator import itemgetter`` -> ``itemgetter``).
    """
    names = []
    for attribute, value in vars(module).items():
        if isinstance(value, types.ModuleType) and not value.__name__.startswith("maze"):
            callables = [name for name, member in vars(value).items() if callable(member) and not name.startswith("_")]
            names += [f"{attribute}.{name}" for name in callables[:3]]
        elif (isinstance(value, (types.FunctionType, types.BuiltinFunctionType)) or is_gadget(value)) and not (
            getattr(value, "__module__", "") or ""
        ).startswith("maze"):
            names.append(attribute)
    return names


def test_nothing_a_maze_module_imports_can_be_named_through_it() -> None:
    """Every maze module's imports, tried by both loaders: the pickle allow-list and run-directory configs."""
    tried = 0
    for module in _maze_modules():
        for name in _names_reached_through_imports(module):
            tried += 1
            with pytest.raises(UnsafeTrajectoryError):
                safe_loads(Opcodes.ref(module.__name__, name).pickle())
            with trusted_targets_only("'crafted.yaml'"), pytest.raises(UntrustedTargetError):
                resolve_target(f"{module.__name__}.{name}")
    assert tried > 500  # all maze packages are installed here: their imports are many
