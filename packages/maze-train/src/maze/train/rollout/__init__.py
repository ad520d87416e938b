"""On-policy rollout collection over structured vector envs."""

from maze.train.rollout.collector import RolloutBatch, RolloutCollector, SubStepBatch

__all__ = ["RolloutBatch", "RolloutCollector", "SubStepBatch"]
