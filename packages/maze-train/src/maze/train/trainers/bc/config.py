"""The keys of behavioural cloning (``algorithm/bc.yaml``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

import torch
from maze.env.errors import ConfigurationError
from maze.env.utils.factory import resolve_target
from maze.train.core.config import AlgorithmConfig, bounded

__all__ = ["BCAlgorithmConfig", "DEFAULT_OPTIMIZER", "build_optimizer"]

DEFAULT_OPTIMIZER = {"_target_": "maze.train.optim.Adam", "lr": 0.001}
"""Adam with learning rate 0.001 (maze's lean Adam: same update as ``torch.optim.Adam``, tensors-only state)."""


def build_optimizer(config: Mapping[str, Any], parameters: Iterable[torch.nn.Parameter]) -> Any:
    """The optimizer a ``{_target_: ..., **arguments}`` config names, over ``parameters`` (passed first).

    Raises:
        ConfigurationError: If the ``_target_`` cannot be resolved.
    """
    arguments = {key: value for key, value in config.items() if key != "_target_"}
    return resolve_target(str(config["_target_"]))(parameters, **arguments)


@dataclass
class BCAlgorithmConfig(AlgorithmConfig):
    """Algorithm parameters of behavioural cloning.

    Attributes:
        n_epochs: Passes over the training data.
        optimizer: ``_target_`` (an optimizer class taking the parameters first, e.g.
            ``torch.optim.Adam`` or ``maze.train.optim.Adam``) plus its arguments (``lr: 0`` leaves
            the policy unchanged: a frozen baseline of an ``input_dir`` policy).
        device: ``cpu`` or ``cuda``.
        batch_size: Recorded sub-steps per update.
        eval_every_k_iterations: Also evaluate every this many updates (None: at the end of each epoch only).
        validation_percentage: Share of the recorded sub-steps held out for validation (0 to 100, exclusive).
        n_eval_episodes: Env episodes rolled out at every evaluation (0: validation loss only).
        entropy_coef: Weight of the entropy bonus subtracted from the loss.
    """

    n_epochs: int = bounded(1000, ge=1)
    optimizer: Any = field(default_factory=lambda: dict(DEFAULT_OPTIMIZER))
    device: str = "cpu"
    batch_size: int = bounded(100, ge=1)
    eval_every_k_iterations: Optional[int] = bounded(500, ge=1)
    validation_percentage: float = bounded(20, ge=0, lt=100)
    n_eval_episodes: int = bounded(8, ge=0)
    entropy_coef: float = bounded(0.0, ge=0)

    def validate(self) -> None:
        """Checks types and ranges (see :class:`AlgorithmConfig`), the optimizer and that a model can be selected.

        Raises:
            ConfigurationError: For a bad key, an optimizer without a resolvable ``_target_`` or
                whose arguments it refuses (it is built once on a trial parameter), or
                neither validation data nor evaluation episodes.
        """
        super().validate()
        if self.max_env_steps is not None:
            raise ConfigurationError(
                f"algorithm.max_env_steps={self.max_env_steps}: BC learns from recorded data and collects no env "
                "steps; limit it with algorithm.n_epochs or algorithm.max_seconds"
            )
        if not isinstance(self.optimizer, Mapping) or "_target_" not in self.optimizer:
            raise ConfigurationError(
                f"algorithm.optimizer={self.optimizer!r} needs a _target_ (the optimizer class) and its arguments, "
                "e.g. {_target_: torch.optim.Adam, lr: 0.001}"
            )
        try:
            build_optimizer(self.optimizer, [torch.nn.Parameter(torch.zeros(1))])  # a trial: its own argument checks
        except ConfigurationError as error:
            raise ConfigurationError(f"algorithm.optimizer._target_: {error}") from None
        except (TypeError, ValueError) as error:
            raise ConfigurationError(
                f"algorithm.optimizer={dict(self.optimizer)!r} is refused by {self.optimizer['_target_']}: {error}"
            ) from None
        if not self.validation_percentage and not self.n_eval_episodes:
            raise ConfigurationError(
                "algorithm.validation_percentage=0 and algorithm.n_eval_episodes=0 leave nothing to select the best "
                "model by; set one of them above 0"
            )
