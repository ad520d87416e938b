"""Shared setup of the integration tests: the ``slow`` marker and training runs used by several tests."""

from __future__ import annotations

import pytest
from cli_support import CUTTING_MASKED, SHORT_EPOCHS, TrainingRun, assert_success, cartpole, maze_run, seeds
from maze.env.utils.library_output import show_library_output

show_library_output(force=True)  # maze's library lines on stdout, as maze-run shows them (tests read them there)

CUTTING_BUDGET = ("algorithm.n_epochs=3", "algorithm.epoch_length=4")
"""3 epochs of 4 PPO updates (9,600 sub-steps over 8 envs): the deterministic policy reaches the optimum."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: long-running tests (learning to a target; still run in CI)")


def _train(tmp_path_factory: pytest.TempPathFactory, name: str, *args: str) -> TrainingRun:
    run_dir = tmp_path_factory.mktemp(name) / "run"
    result = maze_run(*args, run_dir=run_dir)
    assert_success(result)
    return TrainingRun(run_dir, result)


@pytest.fixture(scope="session")
def tiny_ppo_run(tmp_path_factory: pytest.TempPathFactory) -> TrainingRun:
    """Two tiny PPO epochs on CartPole-v1 with the dev runner."""
    budget = ("algorithm.n_epochs=2", *SHORT_EPOCHS, "algorithm.rollout_evaluator.n_episodes=4")
    return _train(tmp_path_factory, "tiny_ppo", *cartpole(), "runner=dev", *budget, *seeds(0))


@pytest.fixture(scope="session")
def cutting_run(tmp_path_factory: pytest.TempPathFactory) -> TrainingRun:
    """PPO on the masked structured Cutting-2D env with :data:`CUTTING_BUDGET`."""
    return _train(tmp_path_factory, "cutting", *CUTTING_MASKED, *CUTTING_BUDGET, *seeds(0))
