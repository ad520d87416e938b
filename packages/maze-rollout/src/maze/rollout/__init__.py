"""maze.rollout: rollout runners (sequential, parallel, auto) with episode recording. Never imports torch.

Run an agent in an env for a number of episodes, print the ``rollout_stats`` table and
record one trajectory file per episode and the episodes' event logs::

    from maze.env import GymMazeEnv, RandomPolicy
    from maze.rollout import ParallelRolloutRunner

    runner = ParallelRolloutRunner(n_processes=2, n_episodes=20, max_episode_steps=0)
    mean_return = runner.run_with(env={"_target_": "maze.env.GymMazeEnv", "env": "CartPole-v1"},
                                  wrappers=None, agent={"_target_": "maze.env.RandomPolicy"})

The names are imported on first use, so ``import maze.rollout`` stays cheap.
"""

from __future__ import annotations

from importlib.metadata import version as _version

from maze.env.utils.lazy_exports import lazy_getattr
from maze.rollout.runner import Runner, outputs_note

__version__ = _version("maze-rollout")

_LAZY_NAMES = {
    "RolloutRunner": "maze.rollout.rollout_runner",
    "SequentialRolloutRunner": "maze.rollout.sequential_rollout_runner",
    "ParallelRolloutRunner": "maze.rollout.parallel_rollout_runner",
    "AutoRolloutRunner": "maze.rollout.auto_rollout_runner",
    "RolloutWorkerError": "maze.rollout.parallel_rollout_runner",
    "RayRolloutRunner": "maze.rollout.ray_rollout_runner",
    "RayCluster": "maze.rollout.ray_cluster",
    "RayNotInstalledError": "maze.rollout.ray_cluster",
    "RolloutOutputError": "maze.rollout.output_errors",
    "EpisodeStatsReport": "maze.rollout.parallel_rollout_worker",
    "ExceptionReport": "maze.rollout.parallel_rollout_worker",
    "RolloutJob": "maze.rollout.rollout_job",
    "RolloutProgress": "maze.rollout.progress",
    "OnlineRenderer": "maze.rollout.online_rendering",
    "InMemoryDataset": "maze.rollout.datasets",
    "DatasetSubset": "maze.rollout.datasets",
    "random_split": "maze.rollout.datasets",
    "TrajectoryProcessor": "maze.rollout.datasets",
    "IdentityTrajectoryProcessor": "maze.rollout.datasets",
    "IdentityWithNextObservationTrajectoryProcessor": "maze.rollout.datasets",
    "DeadEndClippingTrajectoryProcessor": "maze.rollout.datasets",
    "TrajectoryConversionError": "maze.rollout.datasets",
}

__all__ = ["Runner", "outputs_note", "__version__", *_LAZY_NAMES]


__getattr__ = lazy_getattr("maze.rollout", _LAZY_NAMES)


def __dir__() -> list[str]:
    return sorted(__all__)
