"""Record rollouts from Python and read the trajectories back (the documentation's rollout runner snippet).

1. A SequentialRolloutRunner runs a heuristic CartPole policy with a reward-scaling wrapper
   (named by the documented module path ``maze.core.wrappers...``, which maze translates,
   with a note naming the new path) and records one trajectory file per episode into
   ``<out-dir>/trajectory_data/`` and the events into ``<out-dir>/event_logs/``.
2. The trajectories are read back: each file with ``load_trajectory`` (the recorded
   MazeStates and rewards), all of them as an ``InMemoryDataset`` of observation/action
   items (what behavioural cloning trains on).

Usage: ``python examples/rollout_recording.py [--episodes 5] [--out-dir rollout_out]``
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from maze.env import DummyCartPolePolicy, GymMazeEnv
from maze.env.trajectory_recording import load_trajectory
from maze.rollout import SequentialRolloutRunner
from maze.rollout.datasets import InMemoryDataset


def record(n_episodes: int, out_dir: Path) -> float:
    """Runs and records ``n_episodes`` episodes in ``out_dir``; returns their mean (scaled) return."""
    out_dir.mkdir(parents=True, exist_ok=True)
    runner = SequentialRolloutRunner(
        n_episodes=n_episodes, max_episode_steps=100, record_trajectory=True, record_event_logs=True, render=False
    )
    previous = Path.cwd()
    os.chdir(out_dir)  # rollout runners write into the working directory (Hydra's run directory under maze-run)
    try:
        return runner.run_with(
            env=GymMazeEnv("CartPole-v1"),
            wrappers={"maze.core.wrappers.reward_scaling_wrapper.RewardScalingWrapper": {"scale": 0.1}},
            agent=DummyCartPolePolicy(),
        )
    finally:
        os.chdir(previous)


def read_back(out_dir: Path) -> None:
    """Prints what the recorded trajectory files hold."""
    files = sorted((out_dir / "trajectory_data").glob("*.traj.npz"))
    print(f"{len(files)} trajectory files in {out_dir / 'trajectory_data'}")
    for path in files:
        trajectory = load_trajectory(path)
        scaled_return = sum(float(step.reward) for step in trajectory)
        print(f"  episode {trajectory.id[:8]}: {len(trajectory)} steps, scaled return {scaled_return:.1f}")
    dataset = InMemoryDataset(out_dir / "trajectory_data", conversion_env_factory=lambda: GymMazeEnv("CartPole-v1"))
    item = dataset[0]
    print(
        f"InMemoryDataset: {len(dataset)} observation/action items; the first: "
        f"observation {item.observation['observation'].round(3)}, action {item.action['action']}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=5, help="episodes to record (default: 5)")
    parser.add_argument("--out-dir", type=Path, default=Path("rollout_out"), help="where the recordings go")
    args = parser.parse_args()
    mean_return = record(args.episodes, args.out_dir.resolve())
    print(f"mean scaled return of the recorded episodes: {mean_return:.1f}")
    read_back(args.out_dir.resolve())


if __name__ == "__main__":
    main()
