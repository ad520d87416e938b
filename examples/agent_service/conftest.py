"""Fixtures of the service tests: the exported tiny CartPole and Cutting-2D runs, the service process on loopback."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Optional

import pytest

for module in ("fastapi", "uvicorn", "httpx", "onnxruntime"):
    pytest.importorskip(module, reason="the agent service tests run in the nox session 'service'")

from agent_service.process import ServiceProcess  # noqa: E402
from tiny_run import train_and_export  # noqa: E402

MODEL_DIR_ENV = "MAZE_SERVICE_MODEL_DIR"
"""An exported CartPole run to serve (the nox session builds it in a torch venv of its own); unset: train one here."""

CUTTING_DIR_ENV = "MAZE_SERVICE_CUTTING_DIR"
"""An exported Cutting-2D run to serve (built as the CartPole run); unset: train one here."""


def _export(tmp_path_factory: pytest.TempPathFactory, variable: str, env: str) -> Path:
    given = os.environ.get(variable)
    if given:
        return Path(given)
    if importlib.util.find_spec("maze.perception") is None:
        pytest.skip(f"set {variable} to an ONNX export, or install maze-rl to train one")
    return train_and_export(tmp_path_factory.mktemp(f"tiny_{env}") / "run", env=env)


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ONNX export of the tiny CartPole run."""
    return _export(tmp_path_factory, MODEL_DIR_ENV, "cartpole")


@pytest.fixture(scope="session")
def cutting_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ONNX export of the tiny Cutting-2D run (states are Python objects; the env simulates)."""
    return _export(tmp_path_factory, CUTTING_DIR_ENV, "cutting")


def serve(
    model_dir: Path, directory: Path, *args: str, env: Optional[Mapping[str, str]] = None
) -> Iterator[ServiceProcess]:
    """The service on a free loopback port with ``args`` (and ``env``); stopped afterwards (its output in ``directory``)."""
    service = ServiceProcess(model_dir, *args, log_path=directory / "service.log", env=env)
    service.start()
    try:
        yield service
    finally:
        service.stop()
