"""The acting side of ES behind one interface: ``ESDistributedRollouts`` produce rollout results for a parameter vector.

The trainer only talks to :class:`ESDistributedRollouts`; implementations decide where the
episodes run (in this process, in worker processes, and later on a cluster, e.g. as Ray
actors) without any change to the trainer.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
from maze.env.log_stats.aggregator import EpisodeStatsBatch
from maze.train.guards import NonFiniteObservation

__all__ = ["ESAbortException", "ESDistributedRollouts", "ESRolloutResult"]


class ESAbortException(Exception):
    """This exception is raised if the current rollout is intentionally aborted.

    An env, wrapper or ``policy_wrapper`` raises it to drop the running training rollout
    (e.g. a heuristic recognizing a hopeless episode); the worker reports the pair as
    aborted, the trainer does not use it and counts it in ``ESEvents.aborted_rollouts``.
    """


@dataclass
class ESRolloutResult:
    """Result structure for distributed rollouts: one antithetic pair of training episodes.

    Attributes:
        noise_index: Start of the noise slice in the shared noise table.
        returns: ``[2]`` returns of the episodes with ``+noise`` and ``-noise``.
        lengths: ``[2]`` env steps of the two episodes.
        episode_stats: Statistics of the two finished episodes (for the ``train`` table).
        aborted: The pair was aborted (ESAbortException); returns and lengths are meaningless.
        non_finite_observation: An episode returned this non-finite observation and was ended
            there (the trainer's guard stops or skips the update); returns and lengths are meaningless.
    """

    noise_index: int
    returns: np.ndarray
    lengths: np.ndarray
    episode_stats: EpisodeStatsBatch = field(default_factory=EpisodeStatsBatch)
    aborted: bool = False
    non_finite_observation: Optional[NonFiniteObservation] = None


class ESDistributedRollouts(ABC):
    """Abstract base class of ES rollout distribution."""

    @abstractmethod
    def generate_rollouts(
        self, flat_parameters: np.ndarray, noise_stddev: float, max_steps: int
    ) -> Iterator[ESRolloutResult]:
        """An endless stream of antithetic training pairs around ``flat_parameters``.

        The consumer stops when it has enough; results of work still running for earlier
        parameters never appear in a later stream.

        Args:
            flat_parameters: ``[n_parameters]`` float32 parameters of the current policy.
            noise_stddev: Scale of the parameter noise.
            max_steps: Step cap of every episode (0: none).
        """

    @abstractmethod
    def close(self) -> None:
        """Releases workers (no worker process outlives this call)."""

    def __enter__(self) -> ESDistributedRollouts:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
