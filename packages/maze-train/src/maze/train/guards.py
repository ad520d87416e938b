"""NonFiniteGuard: the checks every trainer runs where rewards, losses and gradients enter an update.

The first NaN or infinite value stops training with one :class:`NonFiniteValueError` that
names what was not finite, where it came from and the epoch (policy ``stop``, the default),
or the update it would have poisoned is skipped and counted in the ``train`` statistics as
``TrainingGuardEvents.skipped_updates`` (policy ``skip``, ``runner.non_finite=skip``).
Observations are checked where they enter the policy (the rollout collector) and always
stop training: a policy cannot act on them. Model selection and checkpoint files refuse
non-finite parameters on their own (see :mod:`maze.perception.serialization`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any, Optional

import numpy as np
import torch
from maze.env.errors import ConfigurationError
from maze.env.log_stats.event_decorators import define_episode_stats, define_epoch_stats, define_step_stats
from maze.env.log_stats.log_stats import LogStats
from maze.env.utils.finite import NonFiniteValue, NonFiniteValueError, find_non_finite
from maze.train.event_log import TrainerEventLog
from maze.train.utils import delegated

__all__ = [
    "NON_FINITE_POLICIES",
    "CollectorGuardedTrainer",
    "NonFiniteGuard",
    "TrainingGuardEvents",
    "non_finite_observation_error",
]

NON_FINITE_POLICIES = ("stop", "skip")
"""What a trainer does on a non-finite reward, loss or gradient: stop the run, or skip the update."""


class TrainingGuardEvents:
    """Statistics of the training guards."""

    @define_epoch_stats(sum)
    @define_episode_stats(sum)
    @define_step_stats(len)
    def skipped_updates(self, reason: str) -> None:
        """An update was skipped because a reward, loss or gradient was not finite."""


class NonFiniteGuard:
    """Checks rewards, losses and gradients of a trainer's updates (see the module docs).

    Args:
        policy: ``stop`` (raise on the first non-finite value) or ``skip`` (skip the update, count it).
        source: What produced the data, for the messages (e.g. the env config).

    Raises:
        ConfigurationError: For an unknown policy.
    """

    def __init__(self, policy: str = "stop", source: str = "the env") -> None:
        if policy not in NON_FINITE_POLICIES:
            raise ConfigurationError(
                f"runner.non_finite={policy!r} is not supported; use one of {', '.join(NON_FINITE_POLICIES)}"
            )
        self.policy = policy
        self.source = source
        self.epoch = 0
        """The epoch being trained (set by the trainer), for the messages."""
        self.skipped = 0
        """Updates skipped so far."""
        self.events = TrainerEventLog(TrainingGuardEvents)

    def rewards_ok(self, rewards: np.ndarray) -> bool:
        """Checks a rollout's ``[calls, envs]`` rewards; False if the update must be skipped."""
        culprit = find_non_finite(rewards)
        if culprit is None:
            return True
        call, env = culprit.index[0], culprit.index[-1]
        return self._fail(
            f"training env {env} ({self.source}) returned the reward {culprit.value} at call {call} of the rollout",
            "fix the env's reward",
        )

    def check_observation(self, observation: dict[str, np.ndarray], env_step: int, substep: int) -> None:
        """Checks a batched observation ``key -> [N, ...]`` before the policy acts on it.

        Raises:
            NonFiniteValueError: Always on a non-finite value: a policy cannot act on it.
        """
        culprit = find_non_finite(observation)
        if culprit is None:
            return
        raise non_finite_observation_error(
            culprit,
            f"training env {culprit.index[0]} ({self.source})",
            culprit.index[1:],
            f"at env step {env_step}, sub-step {substep}",
            self.epoch,
        )

    def loss_ok(self, loss: torch.Tensor, name: str = "loss") -> bool:
        """Checks a scalar loss before ``backward``; False if the update must be skipped."""
        value = float(loss.detach())
        if math.isfinite(value):
            return True
        return self._fail(f"the {name} is {value}", "lower the learning rate or check the inputs of the loss")

    def gradients_ok(self, total_norm: float, model: Any) -> bool:
        """Checks the gradients (their total norm, and on failure each of them); False if the step must be skipped.

        Args:
            total_norm: The L2 norm of all gradients.
            model: A :class:`~maze.perception.agent.torch_model.TorchModel` or ``nn.Module``, searched
                for the first non-finite gradient on failure.
        """
        if math.isfinite(total_norm):
            return True
        name = next(
            (
                name
                for name, parameter in _named_parameters(model)
                if parameter.grad is not None and not torch.isfinite(parameter.grad).all()
            ),
            "?",
        )
        return self._fail(
            f"the gradient of {name} is not finite (total norm {total_norm})",
            "lower the learning rate, set max_grad_norm, or check the inputs of the loss",
        )

    def epoch_stats(self) -> LogStats:
        """The guard statistics of the epoch (empty when nothing was skipped)."""
        return self.events.epoch_stats()

    def _fail(self, what: str, fix: str) -> bool:
        message = f"Non-finite value in epoch {self.epoch}: {what}"
        if self.policy == "stop":
            raise NonFiniteValueError(
                f"{message}. Training stopped; the best model so far is kept. To fix it: {fix}; or set "
                "runner.non_finite=skip to skip such updates"
            )
        self.skipped += 1
        print(f"{message}; update skipped ({self.skipped} so far, runner.non_finite=skip)")
        self.events.record(TrainingGuardEvents.skipped_updates, reason=what)
        self.events.end_update()
        return False


def non_finite_observation_error(
    culprit: NonFiniteValue, env: str, index: tuple[int, ...], when: str, epoch: Optional[int] = None
) -> NonFiniteValueError:
    """The error for a non-finite observation a policy was about to act on (the guard's rule, for every trainer).

    Args:
        culprit: What :func:`~maze.env.utils.finite.find_non_finite` found.
        env: Which env returned it (e.g. ``training env 3 (CartPole-v1)``).
        index: Its index within the observation entry (without a batch axis).
        when: When it was returned (e.g. ``at env step 40, sub-step 0``).
        epoch: The epoch being trained (None: not known where the check runs, e.g. in an ES worker).
    """
    in_epoch = "" if epoch is None else f" in epoch {epoch}"
    return NonFiniteValueError(
        f"Non-finite value{in_epoch}: {env} returned the observation {culprit.key!r}{list(index)} = {culprit.value} "
        f"(after all wrappers) {when}. Training stopped; the best model so far is kept. Fix the env's observation "
        "(a policy cannot act on it)"
    )


def _named_parameters(model: Any) -> Iterator[tuple[str, torch.nn.Parameter]]:
    """``(network.parameter name, parameter)`` of a TorchModel's networks, or of an ``nn.Module``."""
    if hasattr(model, "named_networks"):
        for network_name, network in model.named_networks().items():
            for name, parameter in network.named_parameters():
                yield f"{network_name}.{name}", parameter
    else:
        yield from model.named_parameters()


class CollectorGuardedTrainer:
    """Mixin of trainers that collect with a ``RolloutCollector`` (``self.collector``).

    The trainer's ``guard`` and ``env_steps`` are the collector's, so observations, rewards,
    losses and gradients share one guard and resumes restore the collector's step count.
    """

    collector: Any
    guard = delegated("collector", "guard", "Checks observations, rewards, losses and gradients (the collector's).")
    env_steps = delegated("collector", "env_steps", "Env steps collected in total (restored when resuming).")
