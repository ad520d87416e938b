"""Fixtures of the maze-train tests: clean logging state, a recording stats writer, vector envs (helpers: train_test_support).

The test folders mirror the source tree (tests/trainers/sac/ tests maze.train.trainers.sac); the helper
modules (``*_test_support.py``) stay in tests/, which is put on the import path here, so test modules
of every folder (and worker processes, ``_target_`` strings) import them by their bare names.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import torch
from maze.env.log_stats.global_state import clear_global_state, register_log_stats_writer
from maze.env.utils.library_output import show_library_output
from maze.env.vector.sequential import SequentialVectorEnv
from maze.env.wrappers.log_stats_wrapper import LogStatsWrapper

show_library_output(force=True)  # maze's library lines on stdout, as maze-run shows them (tests read them there)

TESTS = str(Path(__file__).resolve().parent)
if TESTS not in sys.path:  # pytest's default import mode (prepend) also puts it there, importing this file
    sys.path.insert(0, TESTS)

from train_test_support import FAKE_ENVS, RecordingWriter  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: long-running tests (still run in CI)")


@pytest.fixture(autouse=True)
def clean_log_state() -> Iterator[None]:
    """No stats writer or log step leaks between tests."""
    clear_global_state()
    yield
    clear_global_state()


@pytest.fixture
def single_thread() -> Iterator[None]:
    """Torch on one thread (bitwise reproducible reductions)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture
def recorder() -> RecordingWriter:
    """A registered RecordingWriter (unregistered by ``clean_log_state``)."""
    writer = RecordingWriter()
    register_log_stats_writer(writer)
    return writer


@pytest.fixture(params=sorted(FAKE_ENVS))
def fake_env_name(request: pytest.FixtureRequest) -> str:
    """Each fake env: flat with a three-head action, two sub-steps, two agents."""
    return request.param


@pytest.fixture
def vector_env() -> Iterator[Callable[..., SequentialVectorEnv]]:
    """Builds in-process vector envs of LogStatsWrapper-wrapped envs (closed after the test)."""
    built: list[SequentialVectorEnv] = []

    def build(factory: Callable[[], Any], n_envs: int = 2, copy_observations: bool = True) -> SequentialVectorEnv:
        env = SequentialVectorEnv(
            [lambda: LogStatsWrapper.wrap(factory())] * n_envs, copy_observations=copy_observations
        )
        built.append(env)
        return env

    yield build
    for env in built:
        env.close()
