"""Replay buffers and the workers that fill them (off-policy trainers such as SAC)."""

from maze.train.replay.replay_buffer import BaseReplayBuffer, TransitionBatch, UniformReplayBuffer
from maze.train.replay.rollout_buffer import RolloutReplayBuffer, env_rollouts
from maze.train.replay.subproc_workers import SubprocDistributedWorkersWithBuffer
from maze.train.replay.substep_transitions import SubStepTransitions, rollout_to_transitions
from maze.train.replay.workers import BaseDistributedWorkersWithBuffer, DummyDistributedWorkersWithBuffer

__all__ = [
    "BaseDistributedWorkersWithBuffer",
    "BaseReplayBuffer",
    "DummyDistributedWorkersWithBuffer",
    "RolloutReplayBuffer",
    "SubStepTransitions",
    "SubprocDistributedWorkersWithBuffer",
    "TransitionBatch",
    "UniformReplayBuffer",
    "env_rollouts",
    "rollout_to_transitions",
]
