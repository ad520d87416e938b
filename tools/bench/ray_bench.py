"""Ray against local processes on an expensive env: rollouts, IMPALA actors and Ray's start-up cost.

The env is CartPole-v1 burning about 2 ms of CPU per step (:mod:`tools.bench.slow_env`, 200-step
episodes), the cost class that Ray is for. Side by side in this process tree, interleaved per
round (the median of the per-round ratios is reported):

* **Rollouts**: ``RayRolloutRunner`` with 2 Ray actors vs ``ParallelRolloutRunner`` with 2 worker
  processes, random policy, env steps/s of whole ``run_with`` calls (worker start-up included
  for the local runner, actor start-up for Ray) — target Ray ≥ 0.85× (cost ratio ≤ 1.18×).
* **IMPALA**: ``algorithm=impala runner=ray`` vs ``runner=local`` (2 actors of 4 envs, 50-step
  rollouts: ``+experiment=cartpole_impala_fast``), env steps/s of ``runner.run()`` (actor start-up
  included) — target Ray ≥ 0.8× (cost ratio ≤ 1.25×).
* **Start-up**: ``ray.init`` of a local 2-CPU Ray, and its first actor's first reply.
* **Simulated two-node cluster** (``ray.cluster_utils.Cluster``, 1 CPU per node, on this machine):
  its start-up and the two Ray cases' rates there (reported, no target).

Both Ray cases run on one local Ray started once (as a cluster would be running already).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from .harness import RESULTS_DIR, interleaved_rates, markdown_table, paired_row, timed_rate

__all__ = ["main"]

ROOT = Path(__file__).resolve().parents[2]
ROLLOUT_TARGET, IMPALA_TARGET = 0.85, 0.8
IMPALA_JOB = (
    "env.name=CartPole-v1", "env._target_=tools.bench.slow_env.slow_cartpole", "model=vector_obs",
    "critic=template_state", "algorithm=impala", "algorithm.num_actors=2", "+experiment=cartpole_impala_fast",
    "algorithm.rollout_evaluator=null", "algorithm.patience=0", "runner.progress=off",
    "seeding.env_base_seed=0", "seeding.agent_base_seed=0",
)  # fmt: skip
RANDOM_POLICY = {"_target_": "maze.env.RandomPolicy"}


def rollout_case(runner: object) -> Callable[[], float]:
    """One ``run_with`` of a rollout runner on the slow env (table discarded); returns env steps/s."""
    from maze.env import MazeSeeding

    from tools.bench.slow_env import slow_cartpole

    def work() -> int:
        runner.seeding = MazeSeeding(0, 0)  # type: ignore[attr-defined]
        with contextlib.redirect_stdout(io.StringIO()):
            runner.run_with(slow_cartpole, None, RANDOM_POLICY)  # type: ignore[attr-defined]
        counts = {key.name: value for key, value in runner.last_stats.items() if key.event == "reward"}  # type: ignore[attr-defined]
        return int(counts["total_step_count"])

    return lambda: timed_rate(work)


def impala_case(runner_name: str, epochs: int, scratch: Path) -> Callable[[], float]:
    """One IMPALA run (built in this process, so it uses this process's Ray); returns env steps/s of ``run()``."""
    from hydra import compose, initialize_config_module
    from maze.rl.run import build_runner, prepare_config

    def work() -> float:
        run_dir = Path(tempfile.mkdtemp(dir=scratch))
        overrides = [*IMPALA_JOB, f"runner={runner_name}", f"algorithm.n_epochs={epochs}"]
        with initialize_config_module("maze.conf", version_base="1.3"):
            cfg = compose("conf_train", overrides=overrides)
        with contextlib.chdir(run_dir), contextlib.redirect_stdout(io.StringIO()):
            prepare_config(cfg, run_dir)
            runner = build_runner(cfg)
            runner.setup(cfg)
            start = time.perf_counter()
            runner.run()
            seconds = time.perf_counter() - start
        return runner.trainer.env_steps / seconds

    return work


def start_up_seconds(ray: object) -> tuple[float, float]:
    """Seconds of ``ray.init`` (a local 2-CPU Ray) and of its first actor's first reply."""
    start = time.perf_counter()
    ray.init(address="local", num_cpus=2, include_dashboard=False)  # type: ignore[attr-defined]
    started = time.perf_counter()

    class Probe:
        def ping(self) -> int:
            return os.getpid()

    actor = ray.remote(Probe).remote()  # type: ignore[attr-defined]
    ray.get(actor.ping.remote())  # type: ignore[attr-defined]
    replied = time.perf_counter()
    ray.kill(actor)  # type: ignore[attr-defined]
    return started - start, replied - started


def two_node_rates(ray: object, cases: dict[str, Callable[[], float]], rounds: int) -> tuple[float, dict[str, float]]:
    """Start-up seconds of a simulated two-node cluster (1 CPU per node, this machine) and the cases' median rates there."""
    from ray.cluster_utils import Cluster

    start = time.perf_counter()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        cluster.add_node(num_cpus=1)
        ray.init(address=cluster.address)  # type: ignore[attr-defined]
        cluster.wait_for_nodes()
        seconds = time.perf_counter() - start
        rates = {name: statistics.median(values) for name, values in interleaved_rates(cases, rounds).items()}
    finally:
        ray.shutdown()  # type: ignore[attr-defined]
        cluster.shutdown()
    return seconds, rates


def main(quick: bool) -> None:
    """Measures the cases and writes ``results/ray.md`` / ``ray.json`` (not with ``quick``)."""
    import ray
    from maze.rollout import ParallelRolloutRunner, RayRolloutRunner

    # the actors import the slow env by its dotted path, as a cluster's nodes import user modules
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    episodes, epochs, rounds = (4, 1, 1) if quick else (40, 3, 3)
    print(f"\nRay vs local processes, env at ~2 ms per step: {rounds} rounds ...", flush=True)
    init_seconds, first_actor_seconds = start_up_seconds(ray)
    options = {"n_episodes": episodes, "max_episode_steps": 0, "record_trajectory": False, "record_event_logs": False}
    local_rollouts, ray_rollouts = "ParallelRolloutRunner, 2 processes", "RayRolloutRunner, 2 Ray actors"
    local_impala, ray_impala = "IMPALA runner=local, 2 actor processes", "IMPALA runner=ray, 2 Ray actors"
    with tempfile.TemporaryDirectory() as scratch, contextlib.chdir(scratch):
        ray_cases = {
            ray_rollouts: rollout_case(RayRolloutRunner(n_workers=2, **options)),
            ray_impala: impala_case("ray", epochs, Path(scratch)),
        }
        try:
            rates = interleaved_rates(
                {
                    local_rollouts: rollout_case(ParallelRolloutRunner(n_processes=2, start_method="spawn", **options)),
                    local_impala: impala_case("local", epochs, Path(scratch)),
                    **ray_cases,
                },
                rounds,
            )
        finally:
            ray.shutdown()
        cluster_seconds, cluster_rates = two_node_rates(ray, ray_cases, rounds)
    rows = [
        paired_row(rates, ray_rollouts, local_rollouts, round(1 / ROLLOUT_TARGET, 3)),
        paired_row(rates, ray_impala, local_impala, round(1 / IMPALA_TARGET, 3)),
    ]
    table = markdown_table(rows)
    notes = (
        f"Env steps/s on CartPole-v1 burning ~2 ms of CPU per step (200-step episodes), 2 workers/actors each, "
        f"{rounds} interleaved rounds, median; cost ratio = local rate / Ray rate (target: Ray ≥ "
        f"{ROLLOUT_TARGET}× the local runner's rollout steps/s, ≥ {IMPALA_TARGET}× its IMPALA env-steps/s). Rollouts: "
        f"{episodes} episodes per call; IMPALA: {epochs} epochs of the tuned CartPole IMPALA "
        "(+experiment=cartpole_impala_fast, no evaluation), env steps / seconds of runner.run(). Both include "
        "starting their workers; the Ray cases share one local 2-CPU Ray started before them.\n\n"
        f"Ray start-up: ray.init of a local 2-CPU Ray {init_seconds:.1f} s; its first actor's first reply "
        f"{first_actor_seconds:.1f} s later.\n\n"
        f"Simulated two-node cluster (ray.cluster_utils.Cluster, 1 CPU per node, on this machine; started in "
        f"{cluster_seconds:.1f} s, one actor per node): "
        + "; ".join(f"{name} {rate:,.0f} env steps/s" for name, rate in cluster_rates.items())
        + f" (median of {rounds})."
    )
    print(table)
    print(notes)
    if quick:
        return
    title = "Ray vs local processes (env at ~2 ms per step)"
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    payload = {
        "benchmark": "ray",
        "rows": [asdict(row) | {"met": row.passed} for row in rows],
        "ray_init_seconds": init_seconds,
        "first_actor_seconds": first_actor_seconds,
        "two_node_cluster": {"start_seconds": cluster_seconds, "rates": cluster_rates},
    }
    (RESULTS_DIR / "ray.json").write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    (RESULTS_DIR / "ray.md").write_text(f"### {title}\n\n{table}\n\n{notes}\n", encoding="utf-8")
    print(f"written: {RESULTS_DIR / 'ray.md'}")
