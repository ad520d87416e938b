"""Hydra plugins of maze's hyper-parameter optimization (``maze-run ... +experiment=nevergrad --multirun``).

* ``hydra/sweeper=nevergrad``: :class:`MazeNevergradSweeper` (nevergrad optimizers),
* ``hydra/sweeper=optuna``: :class:`MazeOptunaSweeper` (Optuna samplers),
* ``hydra/launcher=local``: :class:`MazeLocalLauncher` (jobs in parallel local processes),
* ``hydra/launcher=ray``: :class:`MazeRayLauncher` (jobs as Ray tasks, on this machine or a cluster).

Their configs are ``maze/conf/hydra/{sweeper,launcher}/*.yaml``. The work is done by
:mod:`maze.rl.hpo`, imported when a sweep starts (Hydra imports this module in every app).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, Optional

from hydra.plugins.launcher import Launcher
from hydra.plugins.sweeper import Sweeper

__all__ = ["MazeLocalLauncher", "MazeNevergradSweeper", "MazeOptunaSweeper", "MazeRayLauncher"]


class MazeLocalLauncher(Launcher):
    """Runs the jobs of a sweep in parallel local processes (see :mod:`maze.rl.hpo.launcher`).

    Args:
        n_jobs: Jobs at once (0: as many as fit the CPUs).
        cpus_per_job: CPUs a job takes (0: ``runner.concurrency`` for ``runner=local``, else 1).
    """

    def __init__(self, n_jobs: int = 0, cpus_per_job: int = 0) -> None:
        self.n_jobs = int(n_jobs)
        self.cpus_per_job = int(cpus_per_job)
        self.config: Any = None
        self.hydra_context: Any = None
        self.server: Any = None
        self.parallel = 1
        self.basic_sweep: Any = None

    def setup(self, *, hydra_context: Any, task_function: Any, config: Any) -> None:
        """Starts the job server, which imports the jobs' modules while the sweeper composes the jobs.

        Under Hydra's basic sweeper, also prepares the summary that the sweep ends with.
        """
        from pathlib import Path

        from hydra.core.utils import configure_log, setup_globals
        from maze.rl.hpo.launcher import basic_sweep_size
        from maze.rl.hpo.sweep import BasicSweepRecorder

        setup_globals()
        configure_log(config.hydra.hydra_logging, config.hydra.verbose)
        self.config, self.hydra_context = config, hydra_context
        self.server = self._job_server(hydra_context, task_function, config)
        total_jobs = basic_sweep_size(config, hydra_context.config_loader)
        if total_jobs is not None:
            self.basic_sweep = BasicSweepRecorder(total_jobs, Path(str(config.hydra.sweep.dir)))

    def _job_server(self, hydra_context: Any, task_function: Any, config: Any) -> Any:
        """Sets :attr:`parallel` and starts the job server that runs the jobs (here: forked local processes)."""
        from maze.rl.hpo.job_server import JobServer
        from maze.rl.hpo.launcher import cpus_of_job, parallel_jobs, preload_job_modules

        self.parallel = parallel_jobs(self.n_jobs, self.cpus_per_job or cpus_of_job(config))
        drawing = self.parallel > 1
        return JobServer(hydra_context, task_function, lambda: preload_job_modules(config, drawing=drawing))

    def launch(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[Any]:
        """Runs the jobs; returns one JobReturn each (failed jobs do not stop the others).

        Under Hydra's basic sweeper the failed jobs are returned as completed ones without a
        value (the sweeper would stop at them), and the sweep's last batch ends with the
        summary and, if any job failed, ``JobFailedError`` (see ``BasicSweepRecorder``).
        """
        from maze.rl.hpo.launcher import launch_in_processes

        results = launch_in_processes(
            self.hydra_context, self.server, self.config, job_overrides, initial_job_idx, self.parallel
        )
        return results if self.basic_sweep is None else self.basic_sweep.record(results, initial_job_idx)

    def jobs_at_once(self, wanted: int) -> int:
        """How many of ``wanted`` parallel jobs run at once: at most :attr:`parallel` (``n_jobs``, fitted to the CPUs)."""
        return max(1, min(self.parallel, wanted))

    def stream(
        self, next_overrides: Callable[[], Optional[Sequence[str]]], initial_job_idx: int, max_parallel: int
    ) -> Iterator[tuple[int, Any]]:
        """Starts a job whenever a process is free (see :func:`maze.rl.hpo.launcher.stream_jobs`); yields the ended ones."""
        from maze.rl.hpo.launcher import at_a_time, stream_jobs

        parallel = self.jobs_at_once(max_parallel)
        print(f"[launcher] {at_a_time(parallel)}, in {self.config.hydra.sweep.dir}", flush=True)
        return stream_jobs(self.hydra_context, self.server, self.config, next_overrides, initial_job_idx, parallel)


class MazeRayLauncher(MazeLocalLauncher):
    """Runs the jobs of a sweep as Ray tasks, on this machine or a cluster (see :mod:`maze.rl.hpo.ray_jobs`).

    Args:
        n_jobs: Jobs at once (0: as many as fit the cluster's CPUs).
        cpus_per_job: CPUs Ray reserves for a job (0: as with the local launcher).
        ray_address: Cluster to use (None: ``RAY_ADDRESS``, else a local Ray).
        ray_init: Further ``ray.init`` arguments.
        runtime_env: Ray runtime environment of the sweep (your own modules for the cluster's nodes).
    """

    def __init__(
        self,
        n_jobs: int = 0,
        cpus_per_job: int = 0,
        ray_address: Optional[str] = None,
        ray_init: Optional[Any] = None,
        runtime_env: Optional[Any] = None,
    ) -> None:
        super().__init__(n_jobs, cpus_per_job)
        self.ray_settings = {"address": ray_address, "init": ray_init or {}, "runtime_env": runtime_env}

    def _job_server(self, hydra_context: Any, task_function: Any, config: Any) -> Any:
        """Connects to Ray and sets :attr:`parallel` from the cluster's CPUs."""
        from maze.rl.hpo.ray_jobs import RayJobServer

        server = RayJobServer(hydra_context, task_function, self.cpus_per_job, config, **self.ray_settings)
        self.parallel = server.parallel_jobs(self.n_jobs)
        return server


class _MazeSweeper(Sweeper):
    """Shared part of the sweepers: the launcher, the search space and the sweep loop."""

    def __init__(self, optim: Any, parametrization: Optional[Any] = None) -> None:
        from omegaconf import OmegaConf

        self.optim = dict(OmegaConf.to_container(optim, resolve=True)) if optim is not None else {}
        container = OmegaConf.to_container(parametrization, resolve=True) if parametrization is not None else {}
        self.parametrization = dict(container or {})
        self.config: Any = None
        self.hydra_context: Any = None
        self.launcher: Any = None

    def setup(self, *, hydra_context: Any, task_function: Any, config: Any) -> None:
        """Builds the launcher of the sweep config."""
        from hydra.core.plugins import Plugins

        self.config, self.hydra_context = config, hydra_context
        self.launcher = Plugins.instance().instantiate_launcher(
            hydra_context=hydra_context, task_function=task_function, config=config
        )

    def sweep(self, arguments: list[str]) -> Any:
        """Runs the sweep over the parametrization and the sweep overrides in ``arguments``."""
        from hydra.core.override_parser.overrides_parser import OverridesParser
        from maze.rl.hpo.launcher import sweep_parallelism
        from maze.rl.hpo.search_space import SearchSpace
        from maze.rl.hpo.sweep import run_sweep
        from maze.rl.hydra_config import hydra_override

        parser = OverridesParser.create(config_loader=self.hydra_context.config_loader)
        space = SearchSpace.from_sweep(self.parametrization, parser.parse_overrides(arguments))
        settings = dict(self.optim)
        budget, num_workers = int(settings.pop("budget", 10)), int(settings.pop("num_workers", 1))
        maximize, seed = bool(settings.pop("maximize", True)), settings.pop("seed", None)
        at_once, parallelism = sweep_parallelism(self.launcher, num_workers)
        optimizer = self.optimizer(space, maximize, seed, budget, at_once, settings)
        title = (
            f"Sweep: {type(optimizer).__name__} {settings}, budget {budget}, {parallelism}, "
            f"{'maximizing' if maximize else 'minimizing'} the objective"
        )
        return run_sweep(self.launcher, self.config, space, optimizer, title, hydra_override)

    def optimizer(self, space: Any, maximize: bool, seed: Any, budget: int, num_workers: int, settings: dict) -> Any:
        """The ask/tell optimizer of the sweeper (``settings``: the remaining ``optim`` keys)."""
        raise NotImplementedError


class MazeNevergradSweeper(_MazeSweeper):
    """Sweeps with a nevergrad optimizer: ``optim: {optimizer, budget, num_workers, maximize, seed}``."""

    def optimizer(self, space: Any, maximize: bool, seed: Any, budget: int, num_workers: int, settings: dict) -> Any:
        """A :class:`~maze.rl.hpo.optimizers.NevergradOptimizer`."""
        from maze.rl.hpo.optimizers import NevergradOptimizer

        return NevergradOptimizer(space, maximize, seed, budget, num_workers, **settings)


class MazeOptunaSweeper(_MazeSweeper):
    """Sweeps with an Optuna sampler: ``optim: {sampler, budget, num_workers, maximize, seed}``."""

    def optimizer(self, space: Any, maximize: bool, seed: Any, budget: int, num_workers: int, settings: dict) -> Any:
        """A :class:`~maze.rl.hpo.optimizers.OptunaOptimizer`."""
        from maze.rl.hpo.optimizers import OptunaOptimizer

        return OptunaOptimizer(space, maximize, seed, budget, num_workers, **settings)
