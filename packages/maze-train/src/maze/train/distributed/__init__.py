"""Distributed actors for asynchronous learners (IMPALA): in process or in worker processes."""

from maze.train.distributed.actors import (
    ActorOutput,
    DistributedActors,
    SequentialDistributedActors,
    act_once,
    concatenate_outputs,
)
from maze.train.distributed.subproc_actors import ActorFailedError, SharedPolicyWeights, SubprocDistributedActors

__all__ = [
    "ActorFailedError",
    "ActorOutput",
    "DistributedActors",
    "SequentialDistributedActors",
    "SharedPolicyWeights",
    "SubprocDistributedActors",
    "act_once",
    "concatenate_outputs",
]
