"""Hyper-parameter sweeps: nevergrad and Optuna sweepers with the local parallel launcher (maze-run --multirun)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hydra.core.override_parser.overrides_parser import OverridesParser
from maze.env.errors import ConfigurationError
from maze.rl.hpo.job_server import JobServer, JobServerError
from maze.rl.hpo.launcher import parallel_jobs, sweep_parallelism
from maze.rl.hpo.optimizers import NevergradOptimizer, OptunaOptimizer
from maze.rl.hpo.search_space import Choice, Interval, SearchSpace
from omegaconf import OmegaConf

SUPPORT = Path(__file__).resolve().parents[1] / "support"
TINY_TRAINING = [
    "env.name=CartPole-v1",
    "algorithm=ppo",
    "model=vector_obs",
    "runner=dev",
    "runner.concurrency=2",
    "algorithm.n_epochs=1",
    "algorithm.epoch_length=2",
    "algorithm.n_rollout_steps=20",
    "algorithm.rollout_evaluator.n_episodes=2",
    "seeding.env_base_seed=1",
    "seeding.agent_base_seed=2",
]
SWEEP = ["hydra.sweeper.optim.budget=4", "hydra.sweeper.optim.num_workers=2", "hydra.sweeper.optim.seed=0"]


def maze_run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    found = shutil.which("maze-run", path=str(Path(sys.executable).parent)) or shutil.which("maze-run")
    assert found, "the maze-run console script is not installed"
    env = {key: value for key, value in os.environ.items() if key != "HYDRA_FULL_ERROR"}
    env["PYTHONPATH"] = os.pathsep.join([str(SUPPORT), *filter(None, [env.get("PYTHONPATH")])])
    env["OMP_NUM_THREADS"] = "1"
    return subprocess.run([found, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def job_interval(job_dir: Path) -> tuple[float, float]:
    """When a job started (its .hydra config written) and ended (its training summary written)."""
    return (job_dir / ".hydra" / "config.yaml").stat().st_mtime, (job_dir / "training_summary.json").stat().st_mtime


@pytest.mark.parametrize("experiment", ["nevergrad", "optuna"])
def test_a_sweep_of_4_cartpole_trainings_runs_2_at_a_time_and_reports_the_best(tmp_path: Path, experiment: str) -> None:
    result = maze_run(
        "-cn", "conf_train", f"+experiment={experiment}", *TINY_TRAINING, *SWEEP, "hydra.sweep.dir=sweep", "--multirun",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    sweep = tmp_path / "sweep"
    summary = json.loads((sweep / "sweep_summary.json").read_text())
    jobs = summary["jobs"]
    assert [job["number"] for job in jobs] == [0, 1, 2, 3]
    assert all(job["status"] == "completed" and job["objective"] > 0 for job in jobs)
    for job in jobs:
        assert set(job["params"]) == {"algorithm.lr", "algorithm.entropy_coef"}
        assert 1e-5 <= job["params"]["algorithm.lr"] <= 1e-3
        job_dir = sweep / str(job["number"])
        training = json.loads((job_dir / "training_summary.json").read_text())
        assert training["best_eval_reward"] == job["objective"]
        assert f"algorithm.lr={job['params']['algorithm.lr']!r}" in (job_dir / ".hydra" / "overrides.yaml").read_text()
    assert len({job["params"]["algorithm.lr"] for job in jobs}) == 4
    best = max(jobs, key=lambda job: job["objective"])
    assert summary["best"]["number"] == best["number"]
    assert f"Best: job {best['number']} " in result.stdout
    assert "| job | algorithm.lr | algorithm.entropy_coef | objective | status |" in result.stdout
    assert (sweep / "sweep_summary.md").read_text().strip() in result.stdout
    # 2 at a time: the next job starts when one of the running jobs has ended.
    intervals = [job_interval(sweep / str(number)) for number in range(4)]
    ends = sorted(end for _, end in intervals[:3])
    assert ends[0] <= intervals[2][0] and ends[1] <= intervals[3][0]


def test_the_local_launcher_runs_n_jobs_at_once(tmp_path: Path) -> None:
    # Each job waits for the other job of its pair: the sweep completes only if 2 run at once.
    result = maze_run(
        "-cn", "conf_train", "runner._target_=fake_runners.RendezvousRunner", f"+runner.directory={tmp_path / 'meet'}",
        "+runner.job=0,1,2,3", "hydra/launcher=local", "hydra.launcher.n_jobs=2", "hydra.sweep.dir=sweep", "--multirun",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert result.stdout.count("done: objective 1.0") == 4
    assert sorted(name.split("-")[0] for name in os.listdir(tmp_path / "meet")) == ["0", "0", "1", "1"]


@pytest.mark.parametrize("experiment", ["nevergrad", "optuna"])
def test_a_crashed_job_is_reported_as_failed_and_the_sweep_goes_on(tmp_path: Path, experiment: str) -> None:
    result = maze_run(
        "-cn", "conf_train", f"+experiment={experiment}", "runner._target_=fake_runners.ObjectiveRunner",
        "+runner.crash_above=0.6", "~hydra.sweeper.parametrization", "+runner.x=interval(0,1)",
        "hydra.sweeper.optim.budget=8", "hydra.sweeper.optim.num_workers=4", "hydra.launcher.n_jobs=2",
        "hydra.sweeper.optim.seed=3", "hydra.sweep.dir=sweep", "--multirun", cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    # The launcher's line and the summary name the same, true number of jobs at once.
    assert "[launcher] 2 jobs at a time, in sweep" in result.stdout
    assert "2 jobs at a time (num_workers=4, capped by hydra.launcher.n_jobs and the CPUs)" in result.stdout
    assert "4 jobs at a time" not in result.stdout and "4 at a time" not in result.stdout
    jobs = json.loads((tmp_path / "sweep" / "sweep_summary.json").read_text())["jobs"]
    assert len(jobs) == 8
    crashed = [job for job in jobs if job["params"]["+runner.x"] > 0.6]
    assert crashed, "the seed gave no job above the crash threshold"
    for job in crashed:
        assert job["status"] == "failed" and job["objective"] is None
        assert "died (exit code 3)" in job["error"]
    for job in jobs:
        if job not in crashed:
            assert job["objective"] == pytest.approx(-((job["params"]["+runner.x"] - 0.3) ** 2))
    assert f"8 jobs, {len(crashed)} failed." in result.stdout


def test_a_sweep_whose_jobs_all_fail_exits_with_1(tmp_path: Path) -> None:
    result = maze_run(
        "-cn", "conf_train", "+experiment=nevergrad", "runner._target_=fake_runners.FailingRunner",
        "hydra.sweeper.optim.budget=2", "hydra.sweeper.optim.num_workers=2", "hydra.sweep.dir=sweep", "--multirun",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 1
    assert "the fake runner was told to fail" in (tmp_path / "sweep" / "sweep_summary.md").read_text()
    assert "Traceback" not in result.stderr


def test_the_basic_sweeper_on_the_local_launcher_runs_every_job_and_ends_with_a_summary(tmp_path: Path) -> None:
    # Batches of 2 (max_batch_size): the first job of the first batch dies; the second batch must still run.
    result = maze_run(
        "-cn", "conf_train", "runner._target_=fake_runners.ObjectiveRunner", "+runner.crash_above=0.6",
        "+runner.x=0.9,0.1,0.95,0.2", "hydra/launcher=local", "hydra.launcher.n_jobs=1",
        "hydra.sweeper.max_batch_size=2", "hydra.sweep.dir=sweep", "--multirun", cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]
    assert "Traceback" not in result.stderr and "Error executing job" not in result.stderr
    summary = json.loads((tmp_path / "sweep" / "sweep_summary.json").read_text())
    jobs = summary["jobs"]
    assert [job["params"] for job in jobs] == [{"+runner.x": x} for x in ("0.9", "0.1", "0.95", "0.2")]
    assert [job["status"] for job in jobs] == ["failed", "completed", "failed", "completed"]
    assert [job["directory"] for job in jobs] == [f"sweep/{number}" for number in range(4)]
    assert jobs[1]["objective"] == pytest.approx(-0.04) and jobs[3]["objective"] == pytest.approx(-0.01)
    assert summary["best"] is None  # the basic sweeper has no direction to rank by
    assert "4 jobs, 2 failed." in result.stdout
    for number in (0, 2):
        assert f"Failed: job {number} (sweep/{number}): the job's process died (exit code 3)" in result.stdout
    assert (tmp_path / "sweep" / "sweep_summary.md").read_text().strip() in result.stdout


def parsed(*overrides: str) -> list:
    return OverridesParser.create().parse_overrides(list(overrides))


def test_the_search_space_comes_from_the_parametrization_and_the_command_line() -> None:
    space = SearchSpace.from_sweep(
        {"algorithm.lr": {"lower": 1e-5, "upper": 1e-3}, "algorithm.gamma": [0.9, 0.99], "algorithm.n_epochs": 5},
        parsed("algorithm.lr=tag(log,interval(0.0001,0.01))", "algorithm.batch_size=int(interval(32,256))",
               "algorithm.n_epochs=3", "runner=dev"),
    )  # fmt: skip
    assert space.dimensions == {
        "algorithm.lr": Interval(1e-4, 1e-2, log=True),
        "algorithm.gamma": Choice((0.9, 0.99)),
        "algorithm.batch_size": Interval(32, 256, integer=True),
    }
    assert space.fixed == ["algorithm.n_epochs=3", "runner=dev"]
    with pytest.raises(ConfigurationError, match="nothing to optimize"):
        SearchSpace.from_sweep({}, parsed("algorithm.lr=0.1"))
    with pytest.raises(ConfigurationError, match="expected {lower, upper}"):
        SearchSpace.from_sweep({"algorithm.lr": {"low": 0.1}}, [])
    with pytest.raises(ConfigurationError, match="lower > 0"):
        Interval(0.0, 1.0, log=True)


@pytest.mark.parametrize("optimizer_class", [NevergradOptimizer, OptunaOptimizer])
def test_optimizers_suggest_values_in_the_space_and_find_the_optimum(optimizer_class: type) -> None:
    space = SearchSpace({"x": Interval(-2.0, 2.0), "n": Interval(1, 4, integer=True), "c": Choice(("a", "b"))})
    optimizer = optimizer_class(space, maximize=True, seed=0, budget=40, num_workers=2)
    best = -float("inf")
    for _ in range(20):
        asked = [optimizer.ask() for _ in range(2)]
        for token, params in asked:
            assert -2 <= params["x"] <= 2 and params["n"] in (1, 2, 3, 4) and params["c"] in ("a", "b")
            assert isinstance(params["x"], float) and isinstance(params["n"], int)
            objective = None if params["c"] == "b" and params["n"] == 4 else -((params["x"] - 1) ** 2)
            optimizer.tell(token, objective)
            best = max(best, objective if objective is not None else best)
    assert best > -0.05


def test_the_launcher_runs_no_more_jobs_at_once_than_fit_the_cpus(capsys: pytest.CaptureFixture) -> None:
    assert parallel_jobs(n_jobs=0, cpus_per_job=1, cpus=2) == 2
    assert parallel_jobs(n_jobs=0, cpus_per_job=4, cpus=16) == 4
    assert parallel_jobs(n_jobs=3, cpus_per_job=1, cpus=8) == 3
    assert parallel_jobs(n_jobs=4, cpus_per_job=2, cpus=4) == 2
    assert "exceed the 4 CPUs" in capsys.readouterr().out
    assert parallel_jobs(n_jobs=0, cpus_per_job=8, cpus=4) == 1


class _TwoCpuLauncher:
    """A launcher that fits 2 jobs at once."""

    def jobs_at_once(self, wanted: int) -> int:
        return min(2, wanted)


def test_the_sweeper_tells_the_optimizer_and_the_summary_the_jobs_that_run_at_once() -> None:
    assert sweep_parallelism(_TwoCpuLauncher(), 4) == (
        2,
        "2 jobs at a time (num_workers=4, capped by hydra.launcher.n_jobs and the CPUs)",
    )
    assert sweep_parallelism(_TwoCpuLauncher(), 1) == (1, "1 job at a time")
    assert sweep_parallelism(object(), 4) == (4, "batches of 4 jobs (object)")  # runs the batches its own way


def test_a_missing_optimization_library_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "optuna", None)
    with pytest.raises(ConfigurationError, match=r"pip install .*packages/maze-rl\[optuna\]"):
        OptunaOptimizer(SearchSpace({"x": Interval(0.0, 1.0)}), True, 0, 4, 2)


def test_a_dead_job_server_is_one_clear_error_not_a_hang() -> None:
    server = JobServer(hydra_context=None, task_function=None, preload=lambda: None)
    os.kill(server._process.pid, signal.SIGKILL)
    server._process.join()
    with pytest.raises(JobServerError, match=r"job server died \(exit code -9\)"):
        server.finished()
    with pytest.raises(JobServerError, match="job server is gone"):
        server.submit(0, OmegaConf.create({}))
    server.close()


def test_a_sweep_experiment_without_multirun_says_it_runs_one_plain_job(tmp_path: Path) -> None:
    result = maze_run(
        "-cn", "conf_train", "+experiment=optuna", "runner._target_=fake_runners.ObjectiveRunner", "+runner.x=0.1",
        "hydra.run.dir=run", cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "Note: the optuna sweep configured here runs only with --multirun; this is one plain job" in result.stdout
