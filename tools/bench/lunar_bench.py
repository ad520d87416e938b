"""Learning at real budgets on LunarLander: maze's tuned experiments against stable-baselines3's RL-Zoo settings.

``python -m tools.bench --only lunar`` (or ``nox -s bench -- --only lunar``) runs, per seed:

* PPO on LunarLander-v3 for 1M env steps: ``maze-run +experiment=lunarlander_ppo`` against SB3's
  PPO (``sb3_lunar``). Figures: the whole command's wall time (from spawning the process) to the
  first deterministic evaluation with a mean of at least 200, the env steps then, the final
  evaluation after the whole budget, peak RSS. Targets: maze's median time ≤ 0.33× SB3's, every
  maze seed at 200, maze's median final evaluation ≥ 230.
* A2C on LunarLander-v3 for 200k env steps: ``+experiment=lunarlander_a2c`` against SB3's A2C.
  Target: maze's best evaluation ≥ 150 (the zoo's A2C figure) on every seed.
* IMPALA on LunarLander-v3 (``+experiment=lunarlander_impala`` trained on to 1M env steps; maze
  only: SB3 has no IMPALA; 2-3 minutes per seed). Target: the median over the seeds of the best
  evaluation within 1M env steps ≥ 200. The actors run asynchronously, so two runs of one seed
  differ (by up to 150 here): one run says little, the median of three asks for two at 200.
* SAC on LunarLanderContinuous-v3 (``+experiment=lunarlander_continuous_sac``, seed 1) against
  SB3's SAC with the zoo's settings: env steps and wall time to 200 (both stop there, or at the
  first evaluation after 60 minutes).
* ES on LunarLander-v3 (``+experiment=lunarlander_es``, maze only: SB3 has no ES): env steps and
  wall time to 200 (the experiment stops there, at the latest after 5M env steps). ES epochs vary
  in env steps (100 episodes each), so its curve reads the env steps from the run's log.

The maze run and the SB3 run of one seed run at the same time, one core each
(``OMP_NUM_THREADS=1``), so both see the same machine; the IMPALA runs (three processes each:
learner and two actors) and the ES runs (two worker processes) run alone. Every evaluation is
kept with its time, so the table's curves are the runs' own. SAC's gradient-step throughput on
LunarLanderContinuous-v3 (part (b) of the issue) is the ``sac_update`` suite's second pair of rows.

``python -m tools.bench.lunar_bench SAC`` reruns only the named cases and merges their runs into
the committed ``results/lunar.json`` (the other cases' runs are kept).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Optional

from .harness import RESULTS_DIR, cpu_model, machine
from .train_bench import LOG_TAIL_LINES, ROOT, maze_run_executable, measure_child

__all__ = ["CASES", "CurveRun", "evaluation_curve", "main", "measured_run", "run_together", "slug"]

TARGET = 200.0
SEEDS = (1, 2, 3)
RUN_TIMEOUT_S = 3 * 3600
"""A run is killed after this long (SB3's PPO takes tens of minutes for 1M env steps on one core)."""
SAC_MAX_SECONDS = 3600
"""SAC's wall-clock cap in the benchmark, maze's and SB3's (the zoo's 500k env steps take hours on one core)."""
EVAL_TAG = "eval_BaseEnvEvents/reward/mean"
"""The TensorBoard tag of maze's deterministic evaluation mean (one point per epoch, step = epoch)."""


@dataclass(frozen=True)
class Case:
    """One trainer's comparison.

    Attributes:
        name: Row label.
        experiment: maze's ``+experiment=`` config.
        env_steps_per_epoch: Env steps of one maze epoch (the evaluation interval).
        peer: The ``sb3_lunar --algorithm`` to run beside it (None: maze alone).
        overrides: Further maze overrides (e.g. a longer budget than the experiment's).
        peer_budget: The peer's env-step budget (None: the zoo's).
        peer_max_seconds: The peer's wall-clock cap (None: none).
        seeds: The seeds to run (None: :data:`SEEDS`).
        env_steps_offset: Env steps before the first epoch (SAC's random steps that fill the replay buffer).
        env_steps_tag: The TensorBoard tag of the env steps trained by the end of each epoch, for trainers whose
            epochs vary in env steps (ES: a number of episodes); None: ``env_steps_per_epoch`` per epoch.
    """

    name: str
    experiment: str
    env_steps_per_epoch: int
    peer: Optional[str]
    overrides: tuple[str, ...] = ()
    peer_budget: Optional[int] = None
    peer_max_seconds: Optional[float] = None
    seeds: Optional[tuple[int, ...]] = None
    env_steps_offset: int = 0
    env_steps_tag: Optional[str] = None

    @property
    def slug(self) -> str:
        """The name as a file-name part that Hydra overrides can carry (no spaces or brackets)."""
        return slug(self.name)


def slug(name: str) -> str:
    """``name`` as a file-name part that Hydra overrides can carry (no spaces, slashes or brackets)."""
    return re.sub(r"\W+", "-", name).strip("-")


CASES = (
    Case("A2C", "lunarlander_a2c", 20_000, "a2c"),
    Case("PPO", "lunarlander_ppo", 16_384, "ppo"),
    Case("IMPALA", "lunarlander_impala", 20_000, None, ("algorithm.max_env_steps=1000000",)),
    Case(
        "SAC (LunarLanderContinuous-v3)",
        "lunarlander_continuous_sac",
        10_000,
        "sac",
        (f"algorithm.max_seconds={SAC_MAX_SECONDS}",),
        peer_max_seconds=SAC_MAX_SECONDS,
        seeds=(1,),
        env_steps_offset=10_000,
    ),
    Case("ES", "lunarlander_es", 0, None, env_steps_tag="train_ESEvents/total_step_count"),
)


@dataclass
class CurveRun:
    """One run: its evaluations over time and the parent's measurements.

    Attributes:
        case: The case's name.
        tool: ``maze`` or ``sb3``.
        seed: The seed.
        wall_seconds: Whole-command wall time.
        peak_rss_mib: The child's peak resident set size.
        curve: ``[env_steps, seconds since the process was spawned, mean return]`` per evaluation.
        error: Why the run failed, or None.
        cpu: The processor it ran on (None: not recorded; runs of reruns merge into one table).
        env_steps_per_second: The tool's own training rate, evaluations excluded (None: not recorded).
        commit: The repository's ``git describe --always --dirty`` when it ran (None: not recorded).
    """

    case: str
    tool: str
    seed: int
    wall_seconds: float
    peak_rss_mib: float
    curve: list[list[float]] = field(default_factory=list)
    error: Optional[str] = None
    cpu: Optional[str] = None
    env_steps_per_second: Optional[float] = None
    commit: Optional[str] = None

    def first_at(self, target: float) -> Optional[list[float]]:
        """The first evaluation with a mean of at least ``target`` (None: never)."""
        return next((point for point in self.curve if point[2] >= target), None)

    @property
    def best(self) -> Optional[float]:
        """The best evaluation mean."""
        return max((point[2] for point in self.curve), default=None)

    @property
    def final(self) -> Optional[float]:
        """The last evaluation mean (after the whole budget)."""
        return self.curve[-1][2] if self.curve else None


def maze_curve(run_dir: Path, case: Case, spawned: float) -> list[list[float]]:
    """The evaluations of a maze run of ``case`` from its TensorBoard log (step = epoch, wall time of the write).

    Args:
        run_dir: The run directory.
        case: The case run (how to count the env steps of an epoch).
        spawned: Unix time the process was spawned at.
    """

    def env_steps(accumulator: Any) -> dict[int, float]:
        if case.env_steps_tag is None:
            return {event.step: event.step * case.env_steps_per_epoch for event in accumulator.Scalars(EVAL_TAG)}
        return {event.step: event.value for event in accumulator.Scalars(case.env_steps_tag)}

    return evaluation_curve(run_dir, spawned, env_steps, case.env_steps_offset)


def evaluation_curve(
    run_dir: Path, spawned: float, env_steps: Callable[[Any], dict[int, float]], offset: float = 0
) -> list[list[float]]:
    """The deterministic evaluations of a maze run: ``[env steps, seconds since spawned, mean]`` each.

    Args:
        run_dir: The run directory (its TensorBoard events).
        spawned: Unix time the process was spawned at.
        env_steps: The run's ``EventAccumulator`` -> env steps trained by the end of each epoch, by log step.
        offset: Env steps before the first epoch (e.g. SAC's random steps that fill the replay buffer).
    """
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    accumulator = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    accumulator.Reload()
    steps = env_steps(accumulator)
    return [
        [offset + steps[event.step], event.wall_time - spawned, event.value] for event in accumulator.Scalars(EVAL_TAG)
    ]


def run_maze(case: Case, seed: int, work_dir: Path) -> CurveRun:
    """One ``maze-run`` of the case's experiment; its curve comes from the run directory."""
    run_dir = work_dir / f"maze-{case.slug}-{seed}"
    command = [
        maze_run_executable(),
        "-cn",
        "conf_train",
        f"+experiment={case.experiment}",
        f"seeding.env_base_seed={seed}",
        f"seeding.agent_base_seed={seed}",
        *case.overrides,
        f"hydra.run.dir={run_dir}",
    ]
    return measured_run(
        case.name, "maze", seed, command, work_dir,
        lambda spawned: maze_curve(run_dir, case, spawned),
    )  # fmt: skip


def run_sb3(case: Case, seed: int, work_dir: Path) -> CurveRun:
    """One ``sb3_lunar`` run of the case's peer; its curve comes from the child's JSON result."""
    out = work_dir / f"sb3-{case.slug}-{seed}.json"
    command = [sys.executable, "-m", "tools.bench.sb3_lunar", "--algorithm", case.peer, "--seed", str(seed)]
    if case.peer_budget is not None:
        command += ["--budget", str(case.peer_budget)]
    if case.peer_max_seconds is not None:
        command += ["--max-seconds", str(case.peer_max_seconds)]

    def curve(spawned: float) -> list[list[float]]:
        points = json.loads(out.read_text(encoding="utf-8"))["curve"]
        return [[steps, at - spawned, mean] for steps, at, mean in points]

    return measured_run(case.name, "sb3", seed, [*command, "--out", str(out)], work_dir, curve)


def measured_run(
    name: str,
    tool: str,
    seed: int,
    command: list[str],
    work_dir: Path,
    read_curve: Callable[[float], list[list[float]]],
    cwd: Path = ROOT,
) -> CurveRun:
    """Runs ``command`` with its output in a log, measures it and reads its curve (``read_curve(spawn time)``).

    A child that fails becomes a run carrying the reason (and the evaluations it made before, where
    they can be read), and the tail of its log goes to stderr.

    Args:
        name: The case's name (the run's ``case``).
        tool: ``maze`` or the peer's name.
        seed: The seed.
        command: The command line.
        work_dir: Folder of the child's log.
        read_curve: Spawn time -> the run's ``[env steps, seconds since spawned, mean]`` evaluations.
        cwd: The child's working directory.
    """
    log = work_dir / f"{tool}-{slug(name)}-{seed}.log"
    spawned = time.time()
    stats = measure_child(command, log, RUN_TIMEOUT_S, cwd)
    run = CurveRun(name, tool, seed, stats.wall_seconds, stats.peak_rss_mib, cpu=cpu_model())
    if stats.exit_code != 0:
        failed(run, f"killed after {RUN_TIMEOUT_S} s" if stats.timed_out else f"exit code {stats.exit_code}", log)
    try:
        run.curve = read_curve(spawned)
    except (OSError, ValueError, KeyError) as exc:  # no result file, or one without evaluations
        if run.error is None:
            failed(run, f"no evaluations read: {exc!r}", log)
    return run


def failed(run: CurveRun, reason: str, log: Path) -> CurveRun:
    """Marks ``run`` failed (the reason and the log's message) and prints the tail of its log to stderr.

    The message is the log's last line naming an error (a traceback's last line, Hydra's complaint), or
    else its last line.
    """
    lines = [line.strip() for line in log.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
    tail = lines[-LOG_TAIL_LINES:]
    named = [line for line in lines if re.search(r"error|exception|could not|cannot|traceback", line, re.IGNORECASE)]
    message = (named or lines or [""])[-1]
    run.error = f"{reason}: {message}" if message else reason
    print(f"{run.case} {run.tool} seed {run.seed} failed ({reason}); log tail:\n" + "\n".join(tail), file=sys.stderr)
    return run


def run_seed(case: Case, seed: int, work_dir: Path) -> list[CurveRun]:
    """The case's maze run and (at the same time, one core each) its SB3 run of ``seed``."""
    jobs = [lambda: run_maze(case, seed, work_dir)]
    if case.peer is not None:
        jobs.append(lambda: run_sb3(case, seed, work_dir))
    runs = run_together(jobs)
    for run in runs:
        print(f"  {case.name} {run.tool} seed {seed}: {one_line(run)}", flush=True)
    return runs


def run_together(jobs: list[Callable[[], CurveRun]]) -> list[CurveRun]:
    """Runs the jobs (each measures one child process) at the same time; their runs in the jobs' order."""
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        futures = [pool.submit(job) for job in jobs]
        return [future.result() for future in futures]


def one_line(run: CurveRun) -> str:
    """A progress line: outcome, time to the target, final and best evaluation."""
    if run.error:
        return f"failed ({run.error}) after {run.wall_seconds:.0f} s"
    first = run.first_at(TARGET)
    reached = f"{TARGET:g} at {first[0]:,.0f} env steps, {first[1]:.0f} s" if first else f"never {TARGET:g}"
    return (
        f"{reached}; final {run.final:.1f}, best {run.best:.1f}, {run.wall_seconds:.0f} s, {run.peak_rss_mib:.0f} MiB"
    )


def median(values: list[Optional[float]]) -> Optional[float]:
    """Median of the known values (None if any is unknown: an unsolved seed has no time)."""
    return None if not values or any(value is None for value in values) else statistics.median(values)


def summaries(runs: list[CurveRun]) -> dict[str, dict[str, dict[str, Optional[float]]]]:
    """Case -> tool -> figures over the seeds (medians; None where a seed never reached 200)."""
    result: dict[str, dict[str, dict[str, Optional[float]]]] = {}
    for case in CASES:
        for tool in ("maze", "sb3"):
            mine = [run for run in runs if run.case == case.name and run.tool == tool]
            if not mine:
                continue
            firsts = [run.first_at(TARGET) for run in mine]
            result.setdefault(case.name, {})[tool] = {
                "seeds": len(mine),
                "seeds_at_200": sum(first is not None for first in firsts),
                "time_to_200_s": median([first[1] if first else None for first in firsts]),
                "env_steps_to_200": median([first[0] if first else None for first in firsts]),
                "final_eval": median([run.final for run in mine]),
                "best_eval": median([run.best for run in mine]),
                "wall_s": median([run.wall_seconds for run in mine]),
                "peak_rss_mib": max(run.peak_rss_mib for run in mine),
            }
    return result


def case_rows(runs: list[CurveRun]) -> list[str]:
    """Per case and tool: seeds at 200, median time and env steps to 200, median final and best, peak RSS."""
    lines = [
        "| case | tool | seeds at 200 | time to 200 (median) | env steps to 200 (median) | final eval (median) "
        "| best eval (median) | whole run (median) | peak RSS |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for case, tools in summaries(runs).items():
        for tool, figures in tools.items():
            lines.append(
                f"| {case} | {tool} | {figures['seeds_at_200']}/{figures['seeds']} | {fmt(figures['time_to_200_s'], ' s')} "
                f"| {fmt(figures['env_steps_to_200'])} | {fmt(figures['final_eval'], digits=1)} "
                f"| {fmt(figures['best_eval'], digits=1)} | {fmt(figures['wall_s'], ' s')} "
                f"| {figures['peak_rss_mib']:.0f} MiB |"
            )
    return lines


def fmt(value: Optional[float], unit: str = "", digits: int = 0) -> str:
    """A number with thousands separators, or ∞ when unknown (a seed never reached the target)."""
    return "∞" if value is None else f"{value:,.{digits}f}{unit}"


def targets(runs: list[CurveRun]) -> list[tuple[str, str, bool]]:
    """The issue's targets: (what, the measured figure, met)."""

    def of(case: str, tool: str) -> list[CurveRun]:
        return [run for run in runs if run.case == case and run.tool == tool]

    ratio = ppo_time_ratio(runs)
    summary = summaries(runs)
    ppo_final = summary.get("PPO", {}).get("maze", {}).get("final_eval")
    impala_median = summary.get("IMPALA", {}).get("maze", {}).get("best_eval")
    a2c_best = [run.best for run in of("A2C", "maze")]
    impala_best = [run.best for run in of("IMPALA", "maze")]
    sac_best = [run.best for run in of("SAC (LunarLanderContinuous-v3)", "maze")]
    return [
        ("PPO: maze time to 200 ≤ 0.33× SB3's (median)", fmt(ratio, "×", 2), ratio is not None and ratio <= 0.33),
        ("PPO: maze final evaluation ≥ 230 (median)", fmt(ppo_final, digits=1), (ppo_final or 0) >= 230),
        (
            "A2C: maze best ≥ 150 within 200k env steps, every seed",
            ", ".join(fmt(best, digits=1) for best in a2c_best),
            bool(a2c_best) and all((best or -1e9) >= 150 for best in a2c_best),
        ),
        (
            "IMPALA: maze best ≥ 200 within 1M env steps (median)",
            ", ".join(fmt(best, digits=1) for best in impala_best),
            impala_median is not None and impala_median >= 200,
        ),
        (
            f"SAC: maze ≥ 200 within {SAC_MAX_SECONDS // 60} minutes (seed 1)",
            ", ".join(fmt(best, digits=1) for best in sac_best),
            bool(sac_best) and all((best or -1e9) >= 200 for best in sac_best),
        ),
    ]


def ppo_time_ratio(runs: list[CurveRun]) -> Optional[float]:
    """maze's median PPO time to 200 over SB3's (None unless every seed of both got there)."""
    figures = summaries(runs).get("PPO", {})
    maze, sb3 = (figures.get(tool, {}).get("time_to_200_s") for tool in ("maze", "sb3"))
    return maze / sb3 if maze is not None and sb3 else None


def curves_table(runs: list[CurveRun]) -> list[str]:
    """Every run's curve: ``env steps (k): mean`` per evaluation."""
    lines = ["| case | tool | seed | evaluations (env steps in thousands: deterministic mean) |", "|---|---|---:|---|"]
    for run in runs:
        points = " ".join(f"{steps / 1000:.0f}k:{mean:.0f}" for steps, _, mean in run.curve) or run.error or "—"
        lines.append(f"| {run.case} | {run.tool} | {run.seed} | {points} |")
    return lines


NOTES = (
    "Time to 200: from spawning the process (start-up, imports and evaluations included) to the end of the first "
    "deterministic evaluation (10 episodes) with a mean of at least 200. Final eval: the evaluation after the whole "
    "budget (PPO 1M, A2C 200k, IMPALA 1M env steps; no early stop; SAC, maze and SB3, stops at 200 or at the first "
    f"evaluation after {SAC_MAX_SECONDS // 60} minutes, ES at 200 or after 5M env steps). maze and SB3 runs of one "
    "seed run at the same time, one core each (`OMP_NUM_THREADS=1`); IMPALA (learner + 2 actor processes) and ES "
    "(2 worker processes) run alone. Evaluations: maze after every epoch (PPO 16,384, A2C and IMPALA 20,000, SAC "
    "10,000 env steps after its 10,000 random ones, ES 100 episodes), SB3 at the same env steps (`EvalCallback`). Peak RSS: the child's `ru_maxrss` "
    "(maze IMPALA and ES: the largest single process of the run, not their sum). A seed's run is reproducible on one "
    "CPU only: other processors round the matrix products differently and the run takes another course (A2C seeds "
    "1/2/3 reached 150 / 203 / 62 on one CPU and 211 / 98 / 125 on another), so each figure is one draw."
)


def markdown(runs: list[CurveRun]) -> str:
    """The suite's results as markdown: summary rows, targets, curves, notes."""
    lines = ["### LunarLander-v3 at real budgets: maze experiments vs stable-baselines3 (RL-Zoo settings)", ""]
    lines += case_rows(runs)
    lines += ["", "| target | measured | met |", "|---|---|---|"]
    lines += [f"| {what} | {figure} | {'yes' if met else 'no'} |" for what, figure, met in targets(runs)]
    lines += ["", *curves_table(runs), "", NOTES, "", cpus_line(runs), "", f"Table written on: {machine()}."]
    return "\n".join(lines)


def cpus_line(runs: list[CurveRun]) -> str:
    """Which processor each case's runs ran on (reruns of some cases merge runs from several machines)."""
    cases_by_cpu: dict[str, list[str]] = {}
    for run in runs:
        cases = cases_by_cpu.setdefault(run.cpu or "not recorded", [])
        if run.case not in cases:
            cases.append(run.case)
    return "CPUs of the runs: " + "; ".join(f"{', '.join(cases)}: {cpu}" for cpu, cases in cases_by_cpu.items()) + "."


def main(quick: bool) -> None:
    """Runs every case on every seed, prints the tables and (unless ``quick``) writes ``results/lunar.*``.

    ``quick`` runs one seed of A2C with a 40k env-step budget (a smoke test of the harness).
    """
    if quick:
        smoke = Case("A2C", "lunarlander_a2c", 20_000, "a2c", ("algorithm.max_env_steps=40000",), peer_budget=40_000)
        cases, seeds = (smoke,), SEEDS[:1]
    else:
        cases, seeds = CASES, SEEDS
    print(f"\nLunarLander at real budgets: {[case.name for case in cases]}, seeds {list(seeds)} ...", flush=True)
    runs: list[CurveRun] = []
    with tempfile.TemporaryDirectory(prefix="maze-lunar-bench-") as tmp:
        for case in cases:
            for seed in case.seeds or seeds:
                runs += run_seed(case, seed, Path(tmp))
            if not quick:  # after every case, so a long run that is stopped keeps what it measured
                write(runs)
    print(markdown(runs))


def write(runs: list[CurveRun]) -> None:
    """Writes ``results/lunar.md`` and ``results/lunar.json`` (every run with its curve, and the targets)."""
    path = RESULTS_DIR / "lunar.md"
    path.write_text(markdown(runs) + "\n", encoding="utf-8")
    payload = {
        "summary": summaries(runs),
        "ppo_time_ratio": ppo_time_ratio(runs),
        "targets": [{"target": what, "measured": figure, "met": met} for what, figure, met in targets(runs)],
        "runs": [asdict(run) for run in runs],
        "machine": machine(),
    }
    path.with_suffix(".json").write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    print(f"written: {path} and {path.with_suffix('.json')}", flush=True)


def rerun_cases(names: list[str]) -> None:
    """Runs only the cases whose names start with one of ``names`` and merges them into the committed results.

    The runs of the other cases are read back from ``results/lunar.json``; the new runs replace
    those of the cases run.
    """
    chosen = [case for case in CASES if any(case.name.startswith(name) for name in names)]
    if not chosen:
        raise SystemExit(f"no case named {names}; the cases are {', '.join(case.name for case in CASES)}")
    kept = [CurveRun(**run) for run in json.loads((RESULTS_DIR / "lunar.json").read_text(encoding="utf-8"))["runs"]]
    runs = [run for run in kept if run.case not in {case.name for case in chosen}]
    with tempfile.TemporaryDirectory(prefix="maze-lunar-bench-") as tmp:
        for case in chosen:
            for seed in case.seeds or SEEDS:
                runs += run_seed(case, seed, Path(tmp))
    order = [case.name for case in CASES]
    runs.sort(key=lambda run: order.index(run.case))
    write(runs)
    print(markdown(runs))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Rerun some cases of the lunar benchmark, keeping the others' runs.")
    parser.add_argument("cases", nargs="+", help="case names or their beginnings, e.g. SAC or PPO")
    rerun_cases(parser.parse_args().cases)
