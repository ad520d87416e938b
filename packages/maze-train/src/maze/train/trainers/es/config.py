"""The keys of ``algorithm/es.yaml``: evolution strategies."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from maze.env.errors import ConfigurationError
from maze.train.core.config import AlgorithmConfig, bounded

__all__ = ["ESAlgorithmConfig", "DEFAULT_ES_OPTIMIZER"]

DEFAULT_ES_OPTIMIZER = {"_target_": "maze.train.trainers.es.optimizers.adam.Adam", "step_size": 0.01}
"""The documented default optimizer of ``algorithm/es.yaml``."""


@dataclass
class ESAlgorithmConfig(AlgorithmConfig):
    """Algorithm parameters of evolution strategies (OpenAI ES with antithetic sampling and rank shaping).

    Attributes:
        n_rollouts_per_update: Minimum episodes per training iteration (epoch); every
            antithetic pair is two episodes.
        n_timesteps_per_update: Minimum env steps per iteration; an iteration ends once both
            minimums are reached (either may be 0).
        n_epochs: Iterations to train; 0 trains indefinitely (or until ``target_reward``).
        max_steps: Cap on the steps of every training episode (0: no cap).
        optimizer: Config of the ES optimizer (``_target_`` plus arguments), e.g.
            :class:`~maze.train.trainers.es.optimizers.adam.Adam` or
            :class:`~maze.train.trainers.es.optimizers.sgd.SGD`.
        l2_penalty: L2 weight regularization coefficient.
        noise_stddev: Scale of the parameter noise of the perturbed policies.
        policy_wrapper: Config of a policy put around the torch policy while acting (heuristics
            on top of the network), instantiated with ``torch_policy=<the TorchPolicy>``; None: none.
        target_reward: Stop as soon as an evaluation's mean return reaches this value (None: never).
    """

    n_rollouts_per_update: int = bounded(10, ge=0)
    n_timesteps_per_update: int = bounded(0, ge=0)
    n_epochs: int = bounded(0, ge=0)
    max_steps: int = bounded(0, ge=0)
    optimizer: Any = field(default_factory=lambda: dict(DEFAULT_ES_OPTIMIZER))
    l2_penalty: float = bounded(0.005, ge=0)
    noise_stddev: float = bounded(0.02, gt=0)
    policy_wrapper: Any = None
    target_reward: Optional[float] = None

    def validate(self) -> None:
        """Checks types and ranges, and that an iteration has a minimum of episodes or steps."""
        super().validate()
        if self.n_rollouts_per_update == 0 and self.n_timesteps_per_update == 0:
            raise ConfigurationError(
                "algorithm.n_rollouts_per_update and algorithm.n_timesteps_per_update are both 0, so an ES "
                "iteration would never collect a rollout; set at least one of them above 0"
            )
