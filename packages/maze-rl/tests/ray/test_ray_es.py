"""ES with Ray workers (algorithm=es runner=ray) trains the same parameters as the same workers in one process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from maze.env.vector.sequential import SequentialVectorEnv
from maze.train.backends.ray import RayBackend
from maze.train.distributed.es.rollouts import ESDistributedRollouts
from maze.train.distributed.es.vector_rollouts import ESVectorDistributedRollouts
from maze.train.trainers.es.runner import ESRunner
from ray_runs import CARTPOLE_TRAINING, set_up_job

ES_BUDGET = (
    *CARTPOLE_TRAINING,
    "algorithm=es",
    "algorithm.n_epochs=3",
    "algorithm.n_rollouts_per_update=8",
    "algorithm.n_timesteps_per_update=0",
    "runner.n_eval_rollouts=2",
    "runner.shared_noise_table_size=200000",
    "seeding.env_base_seed=3",
    "seeding.agent_base_seed=4",
)
"""Three ES iterations of 8 episodes (4 antithetic pairs) with a small noise table, seeded."""

N_WORKERS = 2


class InProcessWorkers(ESRunner):
    """The reference: ``N_WORKERS`` ES workers in this process, seeded like the Ray runner's workers."""

    def create_distributed_rollouts(self) -> ESDistributedRollouts:
        """The workers in a sequential vector env (one pair each per round, in worker order)."""
        seeds = [self.seeding.generate_agent_instance_seed() for _ in range(N_WORKERS)]
        return ESVectorDistributedRollouts(
            SequentialVectorEnv([self.worker_factory(torch_threads=1)] * N_WORKERS), seeds
        )


def _trained_parameters(runner: Any) -> np.ndarray:
    runner.run()
    return runner.trainer.theta.numpy().copy()


def test_es_on_ray_trains_the_parameters_of_the_same_workers_in_one_process(
    ray_local: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    on_ray = set_up_job(
        "conf_train", (*ES_BUDGET, "runner=ray", f"runner.n_train_workers={N_WORKERS}"), tmp_path / "ray", monkeypatch
    )
    assert isinstance(on_ray, ESRunner) and isinstance(on_ray.backend, RayBackend)
    in_process = set_up_job(
        "conf_train",
        (*ES_BUDGET, "runner=dev", "runner._target_=test_ray_es.InProcessWorkers"),
        tmp_path / "in_process",
        monkeypatch,
    )

    np.testing.assert_array_equal(_trained_parameters(on_ray), _trained_parameters(in_process))
    assert on_ray.trainer.epochs_done == in_process.trainer.epochs_done == 3
