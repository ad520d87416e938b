"""The actor-critic training loop, its batches, events and config."""

from maze.train.core.actor_critic.batch import ActorCriticBatch, ActorSamplesBatch, prepare_actor_critic_batch
from maze.train.core.actor_critic.config import ActorCriticAlgorithmConfig
from maze.train.core.actor_critic.events import ActorCriticEvents
from maze.train.core.actor_critic.trainer import ActorCritic, TrainingResult
from maze.train.event_log import TrainerEventLog

__all__ = [
    "ActorCritic",
    "ActorCriticAlgorithmConfig",
    "ActorCriticBatch",
    "ActorCriticEvents",
    "ActorSamplesBatch",
    "TrainerEventLog",
    "TrainingResult",
    "prepare_actor_critic_batch",
]
