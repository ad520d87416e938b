"""The shape of the runner wing: one runner per algorithm, no runner diamonds, sealed algorithm folders alike."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import maze.train.trainers as trainers
from maze.env.utils.factory import resolve_target
from maze.train.backends import BACKENDS
from maze.train.backends.base import ExecutionBackend
from maze.train.runners.training_runner import TrainingRunner

ALGORITHMS = ("a2c", "bc", "es", "impala", "ppo", "sac")
TRAINERS = Path(trainers.__file__).parent


def runner_classes() -> list[type]:
    """Every TrainingRunner subclass of maze-train (the runner modules imported first)."""
    importlib.import_module("maze.train.runners.actor_critic_runner")
    for algorithm in ALGORITHMS:
        importlib.import_module(f"maze.train.trainers.{algorithm}.runner")
    found, pending = [], [TrainingRunner]
    while pending:
        for subclass in pending.pop().__subclasses__():
            if subclass.__module__.startswith("maze.train.") and subclass not in found:
                found.append(subclass)
                pending.append(subclass)
    return found


def test_every_runner_has_one_runner_base_and_lies_at_most_3_levels_below_training_runner() -> None:
    runners = runner_classes()
    assert {runner.__name__ for runner in runners} >= {
        "ActorCriticRunner",
        "A2CRunner",
        "PPORunner",
        "ImpalaRunner",
        "SACRunner",
        "ESRunner",
        "BCRunner",
    }
    for runner in runners:
        runner_bases = [base for base in runner.__bases__ if issubclass(base, TrainingRunner)]
        assert len(runner_bases) == 1, f"{runner.__name__} has the runner bases {runner_bases}"
        depth = runner.__mro__.index(TrainingRunner)
        assert depth <= 3, f"{runner.__name__} lies {depth} levels below TrainingRunner"


def test_every_algorithm_folder_has_the_same_file_names() -> None:
    folders = sorted(path.name for path in TRAINERS.iterdir() if path.is_dir() and path.name != "__pycache__")
    assert folders == sorted(ALGORITHMS)
    for algorithm in ALGORITHMS:
        names = {module.name for module in pkgutil.iter_modules([str(TRAINERS / algorithm)])}
        assert {"config", "trainer", "runner"} <= names, f"trainers/{algorithm}/ has {sorted(names)}"


def test_every_backend_of_the_runner_options_serves_every_seam() -> None:
    for name, path in BACKENDS.items():
        backend = resolve_target(path)
        assert issubclass(backend, ExecutionBackend) and backend.name == name
        assert not getattr(backend, "__abstractmethods__", None), f"{name}: {backend.__abstractmethods__}"
