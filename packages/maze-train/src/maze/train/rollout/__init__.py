"""On-policy rollout collection over structured vector envs."""

from maze.train.rollout.actors import ActorRollout, ActorSample
from maze.train.rollout.collector import RolloutBatch, RolloutCollector, SubStepBatch
from maze.train.rollout.generator import RolloutGenerator

__all__ = ["ActorRollout", "ActorSample", "RolloutBatch", "RolloutCollector", "RolloutGenerator", "SubStepBatch"]
