"""The defaults benchmark's figures: values at the marks, medians, targets, the table and the learning-curve PNGs.

A run's value at a mark is its latest evaluation at or before the mark (maze evaluates after
every epoch, SB3 at every mark); "final" is the value at the last mark (the budget), "best" the
best value over the marks. Figures over seeds are medians of the seeds' values.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from .harness import machine
from .lunar_bench import CurveRun, cpus_line, slug

if TYPE_CHECKING:
    from .defaults_bench import Row

__all__ = ["markdown", "one_line", "summary", "write"]

TOLERANCE = 0.05
"""A row still meets its target within this share of the reference's margin over random."""


def value_at(curve: list[list[float]], mark: int) -> Optional[float]:
    """The latest evaluation at or before ``mark`` env steps (None: none yet)."""
    return next((mean for steps, _, mean in reversed(curve) if steps <= mark), None)


def at_marks(run: CurveRun, row: Row) -> list[Optional[float]]:
    """The run's value at each of the row's marks."""
    return [value_at(run.curve, mark) for mark in row.marks]


def final_and_best(run: CurveRun, row: Row) -> tuple[Optional[float], Optional[float]]:
    """The value at the last mark and the best value over the marks (None: no evaluation by then)."""
    values = at_marks(run, row)
    return values[-1], max((value for value in values if value is not None), default=None)


def show(value: Optional[float], unit: str = "", digits: int = 1) -> str:
    """A number with thousands separators, or ``—`` when unknown."""
    return "—" if value is None else f"{value:,.{digits}f}{unit}"


def one_line(row: Row, run: CurveRun) -> str:
    """A progress line: final and best at the marks, wall time, training rate (or why the run failed)."""
    final, best = final_and_best(run, row)
    outcome = f"FAILED ({run.error}); " if run.error else ""
    rate = show(run.env_steps_per_second, " env steps/s", 0)
    return f"{outcome}final {show(final)}, best {show(best)}, {run.wall_seconds:.0f} s, {rate}"


def median(values: Sequence[Optional[float]]) -> Optional[float]:
    """The median of the known values (None: none known)."""
    known = [value for value in values if value is not None]
    return statistics.median(known) if known else None


def tool_figures(row: Row, runs: list[CurveRun]) -> dict[str, Any]:
    """Medians over ``runs`` (one tool's runs of one row): final, best, wall time, training rate; seeds, failures."""
    pairs = [final_and_best(run, row) for run in runs]
    return {
        "seeds": len(runs),
        "failed": sum(run.error is not None for run in runs),
        "final": median([final for final, _ in pairs]),
        "best": median([best for _, best in pairs]),
        "wall_s": median([run.wall_seconds for run in runs]),
        "env_steps_per_s": median([run.env_steps_per_second for run in runs]),
    }


def reference_of(row: Row, rows: Sequence[Row], runs: list[CurveRun], baselines: dict) -> tuple[str, Optional[dict]]:
    """What ``row``'s maze is held against: (label, figures; None: not run yet)."""
    if row.peer is None and row.reference is None:
        greedy = baselines.get(row.env, {}).get("greedy")
        return "greedy heuristic", None if greedy is None else {"seeds": None, "final": greedy, "best": greedy}
    name = row.reference or row.name
    reference = next(other for other in rows if other.name == name) if row.reference else row
    label = f"SB3 {reference.peer.upper()}"
    mine = [run for run in runs if run.case == name and run.tool == "sb3"]
    return label, tool_figures(reference, mine) if mine else None


def met(maze: Optional[float], reference: Optional[float], random: Optional[float]) -> bool:
    """maze ≥ the reference, or short of it by at most :data:`TOLERANCE` of the reference's margin over random."""
    if maze is None or reference is None:
        return False
    margin = max(reference - random, 0.0) if random is not None else 0.0
    return maze >= reference - TOLERANCE * margin


def summary(rows: Sequence[Row], runs: list[CurveRun], baselines: dict) -> list[dict[str, Any]]:
    """Per row: budget, random, maze's and the reference's figures, and whether the target is met (None: not run)."""
    result = []
    for row in rows:
        maze_runs = [run for run in runs if run.case == row.name and run.tool == "maze"]
        label, reference = reference_of(row, rows, runs, baselines)
        random = baselines.get(row.env, {}).get("random")
        maze = tool_figures(row, maze_runs) if maze_runs else None
        target = None
        if maze is not None and reference is not None:
            target = not maze["failed"] and all(met(maze[key], reference[key], random) for key in ("final", "best"))
        result.append(
            {"row": row.name, "budget": row.budget, "random": random, "reference": label, "maze": maze}
            | {"reference_figures": reference, "target_met": target}
        )
    return result


def table(rows: Sequence[Row], runs: list[CurveRun], baselines: dict) -> list[str]:
    """The summary as markdown table lines (rows not run say so)."""
    lines = [
        "| row | budget (env steps) | seeds (maze / ref.) | random | reference | maze final | ref. final | maze best "
        "| ref. best | target met | maze wall | ref. wall | maze env steps/s | ref. env steps/s |",
        "|---|---:|---|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|",
    ]
    for entry in summary(rows, runs, baselines):
        maze, reference = entry["maze"], entry["reference_figures"] or {}
        start = f"| {entry['row']} | {entry['budget']:,} |"
        random = show(entry["random"])
        if maze is None:
            lines.append(f"{start} not run | {random} | {entry['reference']} |" + " — |" * 9)
            continue
        seeds = f"{maze['seeds']}" + (f" ({maze['failed']} failed)" if maze["failed"] else "")
        seeds += f" / {reference['seeds'] if reference.get('seeds') else '—'}"
        target = {None: "— (reference not run)", True: "yes", False: "**no**"}[entry["target_met"]]
        both = [(maze.get(key), reference.get(key)) for key in ("final", "best", "wall_s", "env_steps_per_s")]
        (maze_final, ref_final), (maze_best, ref_best), walls, rates = both
        lines.append(
            f"{start} {seeds} | {random} | {entry['reference']} | {show(maze_final)} | {show(ref_final)} "
            f"| {show(maze_best)} | {show(ref_best)} | {target} | {' | '.join(show(wall, ' s', 0) for wall in walls)} "
            f"| {' | '.join(show(rate, digits=0) for rate in rates)} |"
        )
    return lines


def curves_table(rows: Sequence[Row], runs: list[CurveRun]) -> list[str]:
    """Every run's values at its row's marks (``—``: no evaluation by then), and why a failed run failed."""
    by_name = {row.name: row for row in rows}
    lines = ["| row | tool | seed | value at each mark (env steps in thousands: mean return) |", "|---|---|---:|---|"]
    for run in runs:
        row = by_name.get(run.case)
        if row is None:
            continue
        values = " ".join(
            f"{mark / 1000:g}k:{'—' if value is None else f'{value:.0f}'}"
            for mark, value in zip(row.marks, at_marks(run, row), strict=True)
        )
        error = f" — failed: {run.error[:300]}" if run.error else ""
        lines.append(f"| {run.case} | {run.tool} | {run.seed} | {values}{error} |")
    return lines


NOTES = (
    "Each tool exactly as a new user gets it, same env-step budget, 10 deterministic evaluation episodes. maze: "
    "`maze-run -cn conf_train env.name=<id> algorithm=<algo> algorithm.max_env_steps=<budget> "
    "algorithm.rollout_evaluator.n_episodes=10 seeding.env_base_seed=S seeding.agent_base_seed=S` and nothing else "
    "(thermostat: `-cd examples/thermostat/conf -cn conf_thermostat` run in that folder; Cutting-2D: "
    "`env=tutorial_cutting_2d_struct_masked model=tutorial_cutting_2d_struct_masked wrappers=tutorial_cutting_2d`); "
    "it evaluates after every epoch (the env steps of an epoch are the run's own, from its epoch lines). SB3 "
    "(`tools/bench/sb3_defaults.py`): `PPO/A2C/SAC('MlpPolicy' or 'MultiInputPolicy', env)` on one env with all "
    "its defaults (no RL-Zoo settings, no VecNormalize; the thermostat's Dict action as one flat Box), evaluated "
    "every tenth of the budget on a separate env. A value at a mark is the latest evaluation at or before it; final "
    "= the value at the budget, best = the best over the 10 marks; medians over the seeds. Target: maze's median "
    f"final and median best ≥ the reference's, or short by at most {TOLERANCE:.0%} of the reference's margin over "
    "random (and no failed maze run). IMPALA is held against SB3's A2C of its env, Cutting-2D against the greedy "
    "heuristic (`policy=tutorial_cutting_2d_greedy_policy`). Random: the mean return of 100 episodes of uniformly "
    "random actions (Cutting-2D: `policy=random_policy`, valid actions). Wall: the whole command, evaluations "
    "included; env steps/s: each tool's own training rate, evaluations excluded. maze and SB3 runs of a seed ran at "
    "the same time, one core each (`OMP_NUM_THREADS=1`); maze-only rows ran alone."
)


def markdown(rows: Sequence[Row], runs: list[CurveRun], baselines: dict) -> str:
    """The benchmark's markdown: the table, every run's values at the marks, notes, CPUs and commits."""
    commits = sorted({run.commit for run in runs if run.commit})
    lines = ["### maze's documented defaults against stable-baselines3's defaults", "", *table(rows, runs, baselines)]
    lines += ["", *curves_table(rows, runs), "", NOTES, ""]
    if runs:
        lines += [cpus_line(runs), "", f"Commits of the runs: {', '.join(commits) or 'not recorded'}.", ""]
    return "\n".join([*lines, f"Table written on: {machine()}."])


def figure(env: str, rows: Sequence[Row], runs: list[CurveRun], baselines: dict, path: Path) -> None:
    """The env's learning curves, one panel per algorithm: maze against its reference, median over the seeds."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    mine = [row for row in rows if row.env == env]
    fig, axes = plt.subplots(1, len(mine), figsize=(5 * len(mine), 4), squeeze=False)
    for axis, row in zip(axes[0], mine, strict=True):
        reference = row.reference or row.name
        for tool, case, style in (("sb3", reference, "--"), ("maze", row.name, "-")):  # maze drawn on top
            seeds = [run for run in runs if run.case == case and run.tool == tool]
            if not seeds:
                continue
            label = "maze" if tool == "maze" else f"SB3 {reference.split('/')[0]}"
            medians = [median(values) for values in zip(*(at_marks(run, row) for run in seeds), strict=True)]
            curve = [float("nan") if value is None else value for value in medians]
            color = "tab:blue" if tool == "maze" else "tab:orange"
            axis.plot(row.marks, curve, style, color=color, marker="o", label=f"{label} ({len(seeds)} seed(s))")
        if not any(run.case == row.name for run in runs):
            axis.text(0.5, 0.5, "not run", transform=axis.transAxes, ha="center", va="center")
        for key, style in (("random", ":"), ("greedy", "-.")):
            if baselines.get(env, {}).get(key) is not None:
                axis.axhline(baselines[env][key], color="grey", linestyle=style, label=key)
        axis.set(title=row.algorithm, xlabel="env steps", ylabel="mean return (deterministic)", xlim=(0, row.budget))
        axis.legend(fontsize="small")
    fig.suptitle(f"{env}: maze defaults vs SB3 defaults (median over seeds)")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def write(rows: Sequence[Row], runs: list[CurveRun], baselines: dict, folder: Path) -> list[Path]:
    """Writes ``defaults.json``, ``defaults.md`` and ``defaults_<env>.png`` (envs with runs) into ``folder``.

    Returns:
        The figures' paths.
    """
    folder.mkdir(parents=True, exist_ok=True)
    payload = {
        "benchmark": "defaults",
        "summary": summary(rows, runs, baselines),
        "baselines": baselines,
        "runs": [asdict(run) for run in runs],
        "machine": machine(),
    }
    (folder / "defaults.json").write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    (folder / "defaults.md").write_text(markdown(rows, runs, baselines) + "\n", encoding="utf-8")
    run_envs = {row.env for row in rows if any(run.case == row.name for run in runs)}
    paths = []
    for env in dict.fromkeys(row.env for row in rows if row.env in run_envs):
        paths.append(folder / f"defaults_{slug(env)}.png")
        figure(env, rows, runs, baselines, paths[-1])
    return paths
