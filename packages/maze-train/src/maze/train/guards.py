"""NonFiniteGuard: the checks every trainer runs where rewards, losses and gradients enter an update.

The first NaN or infinite value stops training with one :class:`NonFiniteValueError` that
names what was not finite, where it came from and the epoch (policy ``stop``, the default),
or the update it would have poisoned is skipped and counted in the ``train`` statistics as
``TrainingGuardEvents.skipped_updates`` (policy ``skip``, ``runner.non_finite=skip``).
Observations are checked where they enter the policy (the rollout collector, ES's workers).
Under ``stop`` a trainer's own collector stops at once; under ``skip`` the policy acts on a
copy with the non-finite entries set to 0 (so the envs go on), the rollout carries a
:class:`NonFiniteObservation` and the update on it is skipped and counted like one with a
non-finite reward (:meth:`NonFiniteGuard.rollout_ok`). Collectors of actors (IMPALA, SAC
workers, ES workers) do not know the epoch: they always hand the observation on with the
rollout, and the learner's guard stops or skips with its own epoch and env name. Model
selection and checkpoint files refuse non-finite parameters on their own (see
:mod:`maze.perception.serialization`).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, Optional

import numpy as np
import torch
from maze.env.errors import ConfigurationError
from maze.env.log_stats.event_decorators import define_episode_stats, define_epoch_stats, define_step_stats
from maze.env.log_stats.log_stats import LogStats
from maze.env.utils.finite import NonFiniteValue, NonFiniteValueError, find_non_finite
from maze.train.event_log import TrainerEventLog
from maze.train.utils import delegated

logger = logging.getLogger(__name__)

__all__ = [
    "NON_FINITE_POLICIES",
    "CollectorGuardedTrainer",
    "NonFiniteGuard",
    "NonFiniteObservation",
    "TrainingGuardEvents",
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


@dataclass(frozen=True)
class NonFiniteObservation:
    """A non-finite observation found while collecting, handed on with the rollout to the learner's guard.

    Attributes:
        env: Index of the env in the (joined) rollout; None where there is none (an ES worker's env).
        key: The observation key.
        index: The index of the value within the observation entry (without the env axis).
        value: The value (nan, inf or -inf).
        when: When the env returned it, e.g. ``at env step 40, sub-step 0``.
    """

    env: Optional[int]
    key: Optional[str]
    index: tuple[int, ...]
    value: float
    when: str

    def shifted(self, offset: int) -> NonFiniteObservation:
        """The same observation with the env index moved by ``offset`` (rollouts joined along the env axis)."""
        return self if self.env is None else replace(self, env=self.env + offset)


class NonFiniteGuard:
    """Checks observations, rewards, losses and gradients of a trainer's updates (see the module docs).

    Args:
        policy: ``stop`` (raise on the first non-finite value) or ``skip`` (skip the update, count it).
        source: What produced the data, for the messages (e.g. the env config).
        deferred: Never raise on observations: hand them on with the rollout (for the collectors
            of actors, which know neither the epoch nor the policy of the learner).

    Raises:
        ConfigurationError: For an unknown policy.
    """

    def __init__(self, policy: str = "stop", source: str = "the env", deferred: bool = False) -> None:
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
        self.deferred = deferred
        self._observation: Optional[NonFiniteObservation] = None

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

    def episode_returns_ok(self, returns: np.ndarray) -> bool:
        """Checks ES's ``[pairs, 2]`` episode returns (the episodes of each perturbation's +/- side).

        Returns:
            False if the update must be skipped.
        """
        culprit = find_non_finite(returns)
        if culprit is None:
            return True
        pair, side = culprit.index[0], ("positive", "negative")[culprit.index[-1]]
        return self._fail(
            f"an episode of a training env ({self.source}) returned {culprit.value} as its return (rollout pair "
            f"{pair} of the epoch, {side} perturbation)",
            "fix the env's reward",
        )

    def check_observation(
        self, observation: dict[str, np.ndarray], env_step: int, substep: int, envs: Optional[Sequence[int]] = None
    ) -> dict[str, np.ndarray]:
        """Checks a batched observation ``key -> [N, ...]`` before the policy acts on it.

        Args:
            observation: The batch, one row per env.
            env_step: Env steps of all envs before this one (for the messages).
            substep: The sub-step (slot or vector-env call) within the env step.
            envs: The env index of every row (None: row ``i`` is env ``i``).

        Returns:
            The observation the policy may act on: ``observation`` itself, or where a value is
            not finite (and the guard does not stop) a copy with such values set to 0; the
            first such observation is kept for :meth:`take_observation`.

        Raises:
            NonFiniteValueError: Under ``stop`` (unless ``deferred``), on a non-finite value.
        """
        culprit = find_non_finite(observation)
        if culprit is None:
            return observation
        found = NonFiniteObservation(
            culprit.index[0] if envs is None else envs[culprit.index[0]],
            culprit.key,
            culprit.index[1:],
            culprit.value,
            f"at env step {env_step}, sub-step {substep}",
        )
        if self.policy == "stop" and not self.deferred:
            self.observation_ok(found)
        self._observation = self._observation or found
        return {key: _zero_non_finite(value) for key, value in observation.items()}

    def take_observation(self) -> Optional[NonFiniteObservation]:
        """The first non-finite observation since the last call (None: there was none); collectors attach it to their rollout."""
        found, self._observation = self._observation, None
        return found

    def observation_ok(self, found: Optional[NonFiniteObservation]) -> bool:
        """Checks what a collector found; False if the update on its rollout must be skipped."""
        if found is None:
            return True
        env = "a training env" if found.env is None else f"training env {found.env}"
        where = NonFiniteValue(None, found.index, found.value).describe()
        return self._fail(
            f"{env} ({self.source}) returned the observation {found.key!r}{where} (after all wrappers) {found.when}",
            "fix the env's observation (a policy cannot act on it)",
        )

    def rollout_ok(self, rollout: Any) -> bool:
        """Checks a collected rollout (its non-finite observation, if any, and its rewards); False to skip its update."""
        return self.observation_ok(rollout.non_finite_observation) and self.rewards_ok(rollout.rewards)

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
        logger.warning(f"{message}; update skipped ({self.skipped} so far, runner.non_finite=skip)")
        self.events.record(TrainingGuardEvents.skipped_updates, reason=what)
        self.events.end_update()
        return False


def _zero_non_finite(value: Any) -> Any:
    """``value`` with non-finite entries set to 0 (a copy; arrays without any are returned as they are)."""
    array = np.asarray(value)
    if array.dtype.kind != "f" or np.isfinite(array).all():
        return value
    return np.where(np.isfinite(array), array, 0).astype(array.dtype)


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
