"""Rollout throughput: maze's rollout runners against a plain gymnasium loop, random actions, CartPole-v1.

Cases (each against its peer, measured interleaved in this one process tree):

* **Long episodes** (CartPole-v1 continued after the pole falls, 1,000 steps per episode,
  so per-episode costs and worker start-up do not dominate):

  * ``SequentialRolloutRunner`` vs a plain gymnasium loop drawing ``action_space.sample()``
    — target cost ratio ≤ 2× (the runner keeps ≥ 50 % of the loop's steps/s).
  * ``ParallelRolloutRunner`` with 2 processes vs ``SequentialRolloutRunner`` — target
    cost ratio ≤ 0.588× (a speed-up of ≥ 1.7×). Worker start-up is included.
  * The machine's own 2-process ceiling: the same pure-Python loop in 2 worker processes
    vs in 1, measured in the same rounds. A machine whose 2 CPUs do not deliver 2× on
    independent work cannot show a 1.7× rollout speed-up; the notes give the parallel
    efficiency (rollout speed-up / machine ceiling).
  * ``SequentialRolloutRunner`` writing trajectory files and event logs vs without (the
    cost of recording).

* **CartPole-v1 as is** (random episodes of about 22 steps; episodes/s): the sequential
  runner vs the plain loop and the parallel runner vs the sequential one, without targets
  (per-episode work — seeding, statistics, reports — weighs most here).

Runners run with recording off unless the case says otherwise, random policy, no step
limit of their own, fixed seeds; their printed tables are discarded.
"""

from __future__ import annotations

import contextlib
import io
import multiprocessing
import tempfile
from collections.abc import Callable
from typing import Any

import gymnasium as gym
from gymnasium.envs.classic_control import CartPoleEnv
from maze.env import GymMazeEnv, MazeSeeding
from maze.rollout import ParallelRolloutRunner, RolloutRunner, SequentialRolloutRunner

from .harness import Row, interleaved_rates, paired_row, timed_rate

LONG_EPISODE_STEPS = 1_000
SHORT_EPISODE_STEPS = 22
"""About the mean length of a random CartPole-v1 episode (sizes the short-episode workload)."""

SEQUENTIAL_MAX_RATIO = 2.0
PARALLEL_MAX_RATIO = round(1 / 1.7, 3)
RANDOM_POLICY = {"_target_": "maze.env.RandomPolicy"}


class ContinuingCartPole(gym.Wrapper):
    """CartPole that resets itself when the pole falls, so only the time limit ends an episode."""

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        if terminated:
            observation, _ = self.env.reset()
        return observation, reward, False, truncated, info


def long_cartpole() -> gym.Env:
    """The long-episode gymnasium env: continuing CartPole with a 1,000-step limit."""
    return gym.wrappers.TimeLimit(ContinuingCartPole(CartPoleEnv()), LONG_EPISODE_STEPS)


def long_cartpole_maze_env() -> GymMazeEnv:
    """The long-episode env as a MazeEnv (the runners' env factory; importable by workers)."""
    return GymMazeEnv(long_cartpole())


def plain_loop_case(make_env: Callable[[], gym.Env], n_episodes: int, per_episode: bool) -> Callable[[], float]:
    """A plain gymnasium loop with random actions; returns steps/s (or episodes/s)."""

    def work() -> int:
        env = make_env()
        env.reset(seed=0)
        env.action_space.seed(0)
        sample, step, steps = env.action_space.sample, env.step, 0
        for _ in range(n_episodes):
            env.reset()
            while True:
                _, _, terminated, truncated, _ = step(sample())
                steps += 1
                if terminated or truncated:
                    break
        env.close()
        return n_episodes if per_episode else steps

    return lambda: timed_rate(work)


def runner_case(runner: RolloutRunner, env: Any, per_episode: bool = False) -> Callable[[], float]:
    """One ``run_with`` call of a runner (fixed seeds, table discarded); returns steps/s (or episodes/s)."""

    def work() -> int:
        runner.seeding = MazeSeeding(0, 0)
        with contextlib.redirect_stdout(io.StringIO()):
            runner.run_with(env, None, RANDOM_POLICY)
        counts = {key.name: value for key, value in runner.last_stats.items() if key.event == "reward"}
        return int(counts["episode_count"] if per_episode else counts["total_step_count"])

    return lambda: timed_rate(work)


def spin(iterations: int) -> int:
    """Pure-Python work of a fixed size (the machine-ceiling workload)."""
    total = 0
    for value in range(iterations):
        total += value * value
    return iterations


def runner(kind: type[RolloutRunner], n_episodes: int, record: bool = False) -> RolloutRunner:
    """A runner without step limit; recording as asked."""
    options = {
        "n_episodes": n_episodes,
        "max_episode_steps": 0,
        "record_trajectory": record,
        "record_event_logs": record,
    }
    return ParallelRolloutRunner(n_processes=2, **options) if kind is ParallelRolloutRunner else kind(**options)


def run(n_steps: int, rounds: int) -> list[Row]:
    """Measures all cases (in a scratch directory: runners write there) and returns the table rows."""
    long_episodes = max(4, 2 * n_steps // LONG_EPISODE_STEPS)
    short_episodes = max(20, n_steps // SHORT_EPISODE_STEPS)
    recorded = max(2, n_steps // (2 * LONG_EPISODE_STEPS))
    short_env = {"_target_": "maze.env.make_gym_maze_env", "name": "CartPole-v1"}
    long, short = "long episodes, steps/s", "CartPole-v1, episodes/s"
    plain_long, sequential_long = f"plain gymnasium loop ({long})", f"SequentialRolloutRunner ({long})"
    parallel_long = f"ParallelRolloutRunner, 2 processes ({long})"
    unrecorded = f"SequentialRolloutRunner ({long}, {recorded} episodes)"
    recording = f"SequentialRolloutRunner, recording ({long}, {recorded} episodes)"
    plain_short, sequential_short = f"plain gymnasium loop ({short})", f"SequentialRolloutRunner ({short})"
    parallel_short = f"ParallelRolloutRunner, 2 processes ({short})"
    one_process, two_processes = "pure-Python loop, 1 process", "pure-Python loop, 2 processes"
    with tempfile.TemporaryDirectory() as scratch, contextlib.chdir(scratch):
        # spawn: the fork server is left to the rollout runner, which starts it with maze.env preloaded
        with multiprocessing.get_context("spawn").Pool(2) as pool:
            iterations = 400 * n_steps
            cases = {
                plain_long: plain_loop_case(long_cartpole, long_episodes, per_episode=False),
                sequential_long: runner_case(runner(SequentialRolloutRunner, long_episodes), long_cartpole_maze_env),
                parallel_long: runner_case(runner(ParallelRolloutRunner, long_episodes), long_cartpole_maze_env),
                one_process: lambda: timed_rate(lambda: spin(iterations)),
                two_processes: lambda: timed_rate(lambda: sum(pool.map(spin, [iterations, iterations]))),
                unrecorded: runner_case(runner(SequentialRolloutRunner, recorded), long_cartpole_maze_env),
                recording: runner_case(runner(SequentialRolloutRunner, recorded, True), long_cartpole_maze_env),
                plain_short: plain_loop_case(lambda: gym.make("CartPole-v1"), short_episodes, per_episode=True),
                sequential_short: runner_case(runner(SequentialRolloutRunner, short_episodes), short_env, True),
                parallel_short: runner_case(runner(ParallelRolloutRunner, short_episodes), short_env, True),
            }
            rates = interleaved_rates(cases, rounds)
    return [
        paired_row(rates, sequential_long, plain_long, SEQUENTIAL_MAX_RATIO),
        paired_row(rates, parallel_long, sequential_long, PARALLEL_MAX_RATIO),
        paired_row(rates, two_processes, one_process, None),
        paired_row(rates, recording, unrecorded, None),
        paired_row(rates, sequential_short, plain_short, None),
        paired_row(rates, parallel_short, sequential_short, None),
    ]


def notes(rows: list[Row]) -> str:
    """The notes below the table: how to read it and the parallel efficiency."""
    parallel, ceiling = rows[1], rows[2]
    speed_up, machine = 1 / parallel.ratio, 1 / ceiling.ratio
    return (
        "Rates are medians over interleaved rounds in one process tree; cost ratio = peer rate / case rate "
        "(median of per-round ratios), so a ratio below 1 is a speed-up over the peer (0.588× = 1.7×). "
        "Long episodes: CartPole-v1 continued after the pole falls, 1,000 steps per episode (episodes/s = steps/s "
        "/ 1,000). Runners: random policy, recording off unless stated, worker start-up included. No memory "
        "columns: half the cases run in worker processes, which a per-case peak RSS of this process would miss.\n\n"
        f"Parallel efficiency: the 2-process rollout runs {speed_up:.2f}× as fast as the sequential one, while "
        f"this machine runs the same pure-Python loop in 2 processes {machine:.2f}× as fast as in 1 "
        f"(its ceiling), an efficiency of {speed_up / machine:.0%}."
    )
