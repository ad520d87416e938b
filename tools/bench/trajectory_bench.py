"""Trajectory files: the data-only format (``.traj.npz``) against pickles (``.pkl``), writing and reading.

Episodes are recorded once (``TrajectoryRecordingWrapper``, collected in memory), then written
and read back in each format, rounds interleaved; rates are medians over rounds:

* CartPole-v1 (``GymMazeEnv``, random actions, seeded): array states, integer actions.
* Cutting-2D (flat env, greedy policy, 200 steps per episode): dataclass states and actions,
  events and the renderer.

Readers, all through ``load_trajectory`` (the same path checks for each):

* ``data``: the data-only format (``TrajectoryWriterFile``'s default).
* ``pickle, cloudpickle.load``: ``load_trajectory(..., safe=False)``, i.e. plain ``cloudpickle.load``.
  This is the baseline: the loader of ``.pkl`` files before the data-only format was the C
  unpickler with an allow-list ``find_class``, within about 10-20 % of ``cloudpickle.load``, so
  ``cloudpickle.load`` is an upper bound of *today's loader*.
* ``pickle, loader before issue 46``: today's (the last release's) loader itself, the C
  unpickler with the allow-list ``find_class`` of ``safe_unpickler.py`` as of commit
  ``028a804``, taken from git when the bench runs (it let structured dtypes and allocation
  bombs through, so it is no longer shipped).
* ``pickle, guarded loader``: ``load_trajectory``'s default for ``.pkl`` files now, the
  pure-Python allow-listed, allocation-bounded unpickler (for reference).

Target (issue 46): reading the data-only format at least as fast as today's loader reads the
same episodes as pickles (``read vs today's loader`` ≥ 1); ``cloudpickle.load`` is shown as
the upper bound of any pickle loader.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import tempfile
import time
import types
from collections.abc import Callable
from pathlib import Path

from maze.env.examples.cutting_2d import FlatCutting2DGreedyPolicy, maze_env_factory
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.env.trajectory_recording import TrajectoryWriter, TrajectoryWriterFile, TrajectoryWriterRegistry
from maze.env.trajectory_recording.trajectory_files import load_trajectory
from maze.env.wrappers.time_limit import TimeLimitWrapper
from maze.env.wrappers.trajectory_recording_wrapper import TrajectoryRecordingWrapper

from .harness import RESULTS_DIR, machine

TITLE = "Trajectory files: data-only format vs pickles (episodes/s, bytes per episode)"
DATA, CLOUDPICKLE, GUARDED = "data", "pickle, cloudpickle.load", "pickle, guarded loader"
TODAY = "pickle, loader before issue 46"
FORMATS = (DATA, TODAY, CLOUDPICKLE, GUARDED)
TODAYS_LOADER_COMMIT = "028a804"
"""The last commit whose ``load_trajectory`` read ``.pkl`` files with the C unpickler (allow-list ``find_class``)."""


def todays_loader() -> Callable[[Path], object]:
    """Reads a ``.pkl`` file as ``load_trajectory`` did at :data:`TODAYS_LOADER_COMMIT` (its module, from git)."""
    repository = Path(__file__).resolve().parents[2]
    source = subprocess.run(
        [
            "git",
            "show",
            f"{TODAYS_LOADER_COMMIT}:packages/maze-env/src/maze/env/trajectory_recording/safe_unpickler.py",
        ],
        cwd=repository,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    module = types.ModuleType("safe_unpickler_before_issue_46")
    exec(compile(source, module.__name__, "exec"), module.__dict__)  # noqa: S102 - our own file, from our git history

    def load(path: Path) -> object:
        with path.open("rb") as file:
            return module.safe_load(file)

    return load


class _Collect(TrajectoryWriter):
    def __init__(self) -> None:
        self.records: list = []

    def write(self, episode_record) -> None:
        self.records.append(episode_record)


def record(env, act: Callable, episodes: int) -> list:
    """``episodes`` recorded episodes of ``env`` (``act(observation, env) -> action``)."""
    collect = _Collect()
    TrajectoryWriterRegistry.register_writer(collect)
    recorded = TrajectoryRecordingWrapper(env)
    try:
        for seed in range(episodes):
            observation, _ = recorded.reset(seed=seed)
            done = False
            while not done:
                observation, _, terminated, truncated, _ = recorded.step(act(observation, recorded))
                done = terminated or truncated
        recorded.close()
    finally:
        TrajectoryWriterRegistry.unregister_writer(collect)
    return collect.records


def workloads(episodes: int) -> dict[str, list]:
    """The recorded episodes of each env."""
    cartpole = GymMazeEnv("CartPole-v1")
    cartpole.action_space.seed(0)
    greedy = FlatCutting2DGreedyPolicy()
    cutting = TimeLimitWrapper(maze_env_factory(200, (100, 100), (30, 15)), 200)
    return {
        "CartPole-v1": record(cartpole, lambda _, env: env.action_space.sample(), episodes),
        "Cutting-2D": record(cutting, lambda observation, _: greedy.compute_action(observation), max(1, episodes // 4)),
    }


def measure(
    records: list, fmt: str, directory: Path, loaders: dict[str, Callable[[Path], object]]
) -> tuple[float, float, float]:
    """Writes and reads ``records`` once in ``fmt``; returns (write episodes/s, read episodes/s, bytes per episode)."""
    shutil.rmtree(directory, ignore_errors=True)
    writer = TrajectoryWriterFile(directory, format="data" if fmt == DATA else "pickle")
    start = time.perf_counter()
    for episode in records:
        writer.write(episode)
    write_rate = len(records) / (time.perf_counter() - start)
    paths = [writer.path_of(episode) for episode in records]
    start = time.perf_counter()
    load = loaders[fmt]
    for path in paths:
        load(path)
    read_rate = len(records) / (time.perf_counter() - start)
    return write_rate, read_rate, sum(path.stat().st_size for path in paths) / len(paths)


def run(episodes: int, rounds: int) -> list[dict]:
    """One row per env and format: median write and read rates, bytes per episode, steps per episode."""
    rows = []
    loaders = {
        DATA: load_trajectory,
        TODAY: todays_loader(),
        CLOUDPICKLE: lambda path: load_trajectory(path, safe=False),
        GUARDED: load_trajectory,
    }
    with tempfile.TemporaryDirectory() as scratch:
        for env_name, records in workloads(episodes).items():
            rates: dict[str, list[tuple[float, float, float]]] = {fmt: [] for fmt in FORMATS}
            for _ in range(rounds):
                for fmt in FORMATS:
                    rates[fmt].append(measure(records, fmt, Path(scratch) / "files", loaders))
            steps = statistics.mean(len(episode) for episode in records)
            for fmt in FORMATS:
                rows.append(
                    {
                        "env": env_name,
                        "format": fmt,
                        "steps_per_episode": round(steps, 1),
                        "write_episodes_per_s": statistics.median(r[0] for r in rates[fmt]),
                        "read_episodes_per_s": statistics.median(r[1] for r in rates[fmt]),
                        "bytes_per_episode": statistics.median(r[2] for r in rates[fmt]),
                        "read_ratio_vs_todays_loader": statistics.median(
                            r[1] / p[1] for r, p in zip(rates[fmt], rates[TODAY], strict=True)
                        ),
                        "read_ratio_vs_cloudpickle_load": statistics.median(
                            r[1] / p[1] for r, p in zip(rates[fmt], rates[CLOUDPICKLE], strict=True)
                        ),
                    }
                )
    return rows


def markdown(rows: list[dict], rounds: int) -> str:
    """The results table with its notes."""
    lines = [
        f"### {TITLE}",
        "",
        "| env | format (reader) | steps/episode | write (episodes/s) | read (episodes/s) | bytes/episode "
        "| read vs today's loader | read vs cloudpickle.load |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['env']} | {row['format']} | {row['steps_per_episode']:g} | {row['write_episodes_per_s']:,.0f} | "
            f"{row['read_episodes_per_s']:,.0f} | {row['bytes_per_episode']:,.0f} | "
            f"{row['read_ratio_vs_todays_loader']:.2f}× | {row['read_ratio_vs_cloudpickle_load']:.2f}× |"
        )
    met = {row["env"]: row["read_ratio_vs_todays_loader"] >= 1.0 for row in rows if row["format"] == DATA}
    verdict = ", ".join(f"{env}: {'met' if ok else '**not met**'}" for env, ok in met.items())
    lines += [
        "",
        f"Medians over {rounds} interleaved rounds, one process. `data` and `pickle, guarded loader` (the "
        "default for `.pkl` files now: the pure-Python allow-listed, allocation-bounded unpickler) are read "
        "through `load_trajectory`; `pickle, loader before issue 46` is today's loader itself (the C "
        f"unpickler with the allow-list `find_class` of `safe_unpickler.py` at commit {TODAYS_LOADER_COMMIT}, "
        "taken from git); `pickle, cloudpickle.load` is `load_trajectory(..., safe=False)`, the upper bound "
        f"of any pickle loader. Target: data-only reading ≥ 1× today's loader: {verdict}.",
        "",
        f"Machine: {machine()}.",
        "",
    ]
    return "\n".join(lines)


def main(quick: bool) -> None:
    """Runs the suite, prints the table and (unless ``quick``) writes ``results/trajectories.*``."""
    episodes, rounds = (8, 2) if quick else (40, 15)
    print(f"\n{TITLE}: {episodes} CartPole and {max(1, episodes // 4)} Cutting-2D episodes x {rounds} rounds ...")
    rows = run(episodes, rounds)
    text = markdown(rows, rounds)
    print(text)
    if quick:
        return
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    payload = {"benchmark": "trajectories", "machine": machine(), "rounds": rounds, "rows": rows}
    (RESULTS_DIR / "trajectories.json").write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    (RESULTS_DIR / "trajectories.md").write_text(text, encoding="utf-8")
    print(f"written: {RESULTS_DIR / 'trajectories.md'} and .json")
