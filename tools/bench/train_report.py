"""Tables and result files of the time-to-solve training benchmark (see ``train_bench``)."""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from .harness import RESULTS_DIR, machine

__all__ = ["TOOLS", "RunResult", "ToolSummary", "Ratio", "TrainSummary", "summarize", "markdown", "write_results"]

TOOLS = ("maze", "sb3")
LABELS = {"maze": "maze-run PPO", "sb3": "stable-baselines3 PPO (RL-Zoo)"}
MAX_TIME_RATIO = 1 / 3
MIN_RATE_RATIO = 4.0

NOTES = (
    "Time to solve: wall time of the whole command (process start to exit: start-up, imports, "
    "construction, training and evaluations) until the first deterministic evaluation with a mean "
    "return ≥ 475 over 20 episodes; a seed that never gets there counts as not solved (∞). "
    "Env-steps/s: env steps trained / seconds spent in rollouts and updates, evaluation excluded "
    "(SB3: `model.learn` time minus the time inside its evaluation callback; maze: `train_seconds` "
    "of `training_summary.json`). Peak RSS: the child's own `ru_maxrss` from `os.wait4`, largest over "
    "the seeds. Runs alternate maze/SB3 per seed, one subprocess each, `OMP_NUM_THREADS=1`. "
    "SB3 evaluates every 4,000 env steps on one eval env; maze evaluates as its experiment config says "
    "(CartPole PPO: after every epoch of 4,096 env steps, 20 episodes side by side, in a forked child while "
    "the next epoch trains, `runner.background_evaluation`; it stops one epoch after the solving evaluation)."
)


@dataclass(frozen=True)
class RunResult:
    """One benchmark run: the parent's measurements plus the child's training summary.

    Attributes:
        tool: ``maze`` or ``sb3``.
        seed: Seed of the run.
        solved: The evaluation mean reached the target.
        wall_seconds: Whole-command wall time.
        peak_rss_mib: The child's peak resident set size in MiB.
        env_steps: Env steps trained when training stopped (None if the run failed).
        train_seconds: Time in rollouts and updates, evaluation excluded.
        env_steps_per_second: ``env_steps / train_seconds``.
        best_eval_reward: Best evaluation mean seen.
        error: Why the run failed, or None.
    """

    tool: str
    seed: int
    solved: bool
    wall_seconds: float
    peak_rss_mib: float
    env_steps: int | None
    train_seconds: float | None
    env_steps_per_second: float | None
    best_eval_reward: float | None
    error: str | None

    @property
    def time_to_solve(self) -> float:
        """Whole-command wall time when solved, infinity otherwise."""
        return self.wall_seconds if self.solved else math.inf

    def one_line(self) -> str:
        """A progress line: outcome, wall time, steps and rate."""
        if self.error is not None:
            return f"failed ({self.error}) after {self.wall_seconds:.1f} s"
        outcome = "solved" if self.solved else "NOT solved"
        return (
            f"{outcome} in {self.wall_seconds:.1f} s, {self.env_steps:,} env steps, "
            f"{self.env_steps_per_second:,.0f} env-steps/s, best eval {self.best_eval_reward:.1f}"
        )


@dataclass(frozen=True)
class ToolSummary:
    """One tool's figures over its seeds (medians; infinity = not solved)."""

    tool: str
    seeds: int
    solved: int
    time_median: float
    time_min: float
    time_max: float
    env_steps_median: float | None
    rate_median: float | None
    peak_rss_mib: float

    @property
    def all_solved(self) -> bool:
        """Every seed reached the target."""
        return self.solved == self.seeds


@dataclass(frozen=True)
class Ratio:
    """A maze / SB3 ratio against its target."""

    name: str
    value: float | None
    target: str
    met: bool


@dataclass(frozen=True)
class TrainSummary:
    """The benchmark's outcome: each tool's figures and the maze / SB3 ratios."""

    tools: dict[str, ToolSummary]
    ratios: list[Ratio]


def median_or_none(values: list[float | int | None]) -> float | None:
    """Median of the known values, None when there are none."""
    known = [value for value in values if value is not None]
    return statistics.median(known) if known else None


def summarize_tool(tool: str, runs: list[RunResult]) -> ToolSummary:
    """Aggregates one tool's runs."""
    times = [run.time_to_solve for run in runs]
    return ToolSummary(
        tool=tool,
        seeds=len(runs),
        solved=sum(run.solved for run in runs),
        time_median=statistics.median(times),
        time_min=min(times),
        time_max=max(times),
        env_steps_median=median_or_none([run.env_steps for run in runs]),
        rate_median=median_or_none([run.env_steps_per_second for run in runs]),
        peak_rss_mib=max(run.peak_rss_mib for run in runs),
    )


def summarize_tools(results: list[RunResult], tools: Iterable[str]) -> dict[str, ToolSummary]:
    """Tool -> the summary of its runs, in the order of ``tools``."""
    return {tool: summarize_tool(tool, [run for run in results if run.tool == tool]) for tool in tools}


def time_ratio(case: ToolSummary, peer: ToolSummary) -> float | None:
    """``case``'s median time to solve over ``peer``'s (None when either never solved)."""
    if math.isfinite(case.time_median) and math.isfinite(peer.time_median):
        return case.time_median / peer.time_median
    return None


def rate_ratio(case: ToolSummary, peer: ToolSummary) -> float | None:
    """``case``'s median env-steps/s over ``peer``'s (None when either is unknown)."""
    if case.rate_median is None or peer.rate_median is None:
        return None
    return case.rate_median / peer.rate_median


def tool_table(tools: dict[str, ToolSummary], labels: dict[str, str]) -> list[str]:
    """The markdown lines of the per-tool summary table (seeds solved, times, env steps, rate, memory)."""
    lines = [
        "| tool | seeds solved | time to solve, median (min–max) s | env steps at stop, median "
        "| env-steps/s, median | peak RSS MiB |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for tool in tools.values():
        lines.append(
            f"| {labels[tool.tool]} | {tool.solved}/{tool.seeds} | {seconds(tool.time_median)} "
            f"({seconds(tool.time_min)}–{seconds(tool.time_max)}) | {number(tool.env_steps_median)} "
            f"| {number(tool.rate_median)} | {tool.peak_rss_mib:,.0f} |"
        )
    return lines


def summarize(results: list[RunResult]) -> TrainSummary:
    """Per-tool summaries and the maze / SB3 ratios with their targets.

    The time ratio is met when it is at most 1/3 and every maze seed solved; the rate
    ratio when maze trains at least 4x as many env steps per second.
    """
    tools = summarize_tools(results, TOOLS)
    maze, sb3 = tools["maze"], tools["sb3"]
    time, rate = time_ratio(maze, sb3), rate_ratio(maze, sb3)
    ratios = [
        Ratio(
            "time to solve (median)",
            time,
            "≤ 0.33×, every maze seed solved",
            time is not None and time <= MAX_TIME_RATIO and maze.all_solved,
        ),
        Ratio("env-steps/s (median)", rate, f"≥ {MIN_RATE_RATIO:g}×", rate is not None and rate >= MIN_RATE_RATIO),
    ]
    return TrainSummary(tools, ratios)


def seconds(value: float) -> str:
    """Seconds with one decimal, or ∞ (not solved) for infinity."""
    return f"{value:.1f}" if math.isfinite(value) else "∞"


def number(value: float | None, digits: int = 0) -> str:
    """A number with thousands separators, or an em dash when unknown."""
    return "—" if value is None else f"{value:,.{digits}f}"


def markdown(
    title: str,
    summary: TrainSummary,
    results: list[RunResult],
    command: str,
    labels: dict[str, str] = LABELS,
    notes: str = NOTES,
) -> str:
    """The summary table, the ratio table, the per-run table and the notes as markdown."""
    lines = [f"### {title}", "", *tool_table(summary.tools, labels)]
    lines += ["", "| maze / SB3 | ratio | target | met |", "|---|---:|---|---|"]
    for ratio in summary.ratios:
        value = "—" if ratio.value is None else f"{ratio.value:.2f}×"
        lines.append(f"| {ratio.name} | {value} | {ratio.target} | {'yes' if ratio.met else '**no**'} |")
    lines += ["", *per_run_table(results)]
    lines += ["", notes, "", f"maze command (seed 0): `{command}`", "", f"Machine: {machine()}.", ""]
    return "\n".join(lines)


def per_run_table(results: list[RunResult]) -> list[str]:
    """The markdown lines of the table with one row per run (tool, seed, solved, times, steps, memory, score)."""
    lines = [
        "| tool | seed | solved | wall s | env steps | train s | env-steps/s | peak RSS MiB | best eval |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for run in results:
        solved = "yes" if run.solved else (f"**no** ({run.error})" if run.error else "**no**")
        lines.append(
            f"| {run.tool} | {run.seed} | {solved} | {run.wall_seconds:.1f} | {number(run.env_steps)} "
            f"| {number(run.train_seconds, 1)} | {number(run.env_steps_per_second)} | {run.peak_rss_mib:,.0f} "
            f"| {number(run.best_eval_reward, 1)} |"
        )
    return lines


def finite_or_none(value: float) -> float | None:
    """JSON has no infinity: unsolved times become null."""
    return value if math.isfinite(value) else None


def write_results(
    name: str,
    title: str,
    summary: TrainSummary,
    results: list[RunResult],
    command: str,
    labels: dict[str, str] = LABELS,
    notes: str = NOTES,
) -> Path:
    """Writes ``results/<name>.md`` and ``results/<name>.json`` and returns the markdown path."""
    payload = {
        "benchmark": name,
        "machine": machine(),
        "maze_command": command,
        "tools": {
            tool.tool: asdict(tool)
            | {key: finite_or_none(getattr(tool, key)) for key in ("time_median", "time_min", "time_max")}
            | {"all_solved": tool.all_solved}
            for tool in summary.tools.values()
        },
        "ratios": [asdict(ratio) for ratio in summary.ratios],
        "runs": [asdict(run) for run in results],
    }
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    (RESULTS_DIR / f"{name}.json").write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    path = RESULTS_DIR / f"{name}.md"
    path.write_text(markdown(title, summary, results, command, labels, notes), encoding="utf-8")
    return path
