"""SAC and SACfD: soft actor-critic with twin Q networks, entropy tuning and replay buffers."""

from maze.train.trainers.sac.config import SACAlgorithmConfig
from maze.train.trainers.sac.events import SACEvents
from maze.train.trainers.sac.trainer import SAC

__all__ = ["SAC", "SACAlgorithmConfig", "SACEvents"]
