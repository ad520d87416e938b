"""BCLoss: the negative log-likelihood of recorded actions under the policy, with accuracy and error metrics."""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
import torch
import torch.nn.functional as F
from gymnasium import spaces
from maze.distributions import CategoricalProbabilityDistribution, DistributionMapper, ProbabilityDistribution
from maze.env.errors import ConfigurationError
from maze.train.trainers.bc.events import ImitationEvents, ImitationStats

__all__ = ["BCLoss", "BCLossOutput", "SUPPORTED_ACTION_SPACES", "add_up", "record_loss_output"]

DISCRETE_SPACES = (spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary)
"""Heads scored by accuracy (share of matching entries)."""

SUPPORTED_ACTION_SPACES = (*DISCRETE_SPACES, spaces.Box)
"""The action head spaces behavioural cloning trains (those the DistributionMapper has defaults for)."""

DistributionClasses = Mapping[Any, Mapping[str, type[ProbabilityDistribution]]]
"""Sub-step key -> action head -> distribution class."""


@dataclass
class BCLossOutput:
    """The loss of one policy network on a batch of recorded sub-steps.

    Attributes:
        loss: Scalar to minimize (with gradients): mean joint negative log-likelihood minus
            ``entropy_coef`` times the mean entropy.
        head_losses: Action head -> mean negative log-likelihood of that head.
        entropy: Mean entropy of the joint action distribution (None when not computed).
        accuracies: Discrete-like head -> share of recorded entries the most likely action matches.
        abs_errors: Box head -> mean absolute difference of the most likely and the recorded action.
    """

    loss: torch.Tensor
    head_losses: dict[str, float]
    entropy: Optional[float]
    accuracies: dict[str, float]
    abs_errors: dict[str, float]


class BCLoss:
    """Behavioural cloning loss for every sub-step of a structured env.

    Each action head contributes the negative log-likelihood of the recorded action under
    the distribution the policy's DistributionMapper chose for it (cross-entropy for
    Discrete and MultiDiscrete heads, binary cross-entropy for MultiBinary, Gaussian, Beta or
    squashed-Gaussian log-density for Box); dict action spaces sum their heads, and masked
    logits simply give masked actions no probability. Heads of other spaces are rejected.
    Categorical heads compute the cross-entropy straight from the logits (the same value,
    a cheaper backward pass than going through a distribution object).

    Args:
        action_spaces_dict: Sub-step key -> dict action space.
        entropy_coef: Weight of the entropy bonus.
        distribution_classes: Sub-step key -> head -> distribution class, as the policy's
            DistributionMapper chose them (None: the mapper defaults of each space).

    Raises:
        ConfigurationError: For an action head whose space BC does not support.
    """

    def __init__(
        self,
        action_spaces_dict: Mapping[Any, spaces.Dict],
        entropy_coef: float = 0.0,
        distribution_classes: Optional[DistributionClasses] = None,
    ) -> None:
        self.check_action_spaces(action_spaces_dict)
        self.action_spaces_dict = dict(action_spaces_dict)
        self.entropy_coef = entropy_coef
        if distribution_classes is None:
            mappers = DistributionMapper.for_sub_steps(self.action_spaces_dict)
            distribution_classes = {
                key: {head: mapper.distribution_class(head) for head in mapper.action_space.spaces}
                for key, mapper in mappers.items()
            }
        self.distribution_classes = {key: dict(classes) for key, classes in distribution_classes.items()}

    @staticmethod
    def check_action_spaces(action_spaces_dict: Mapping[Any, spaces.Space]) -> None:
        """Raises a ConfigurationError naming the first action head whose space BC cannot train."""
        supported = ", ".join(space.__name__ for space in SUPPORTED_ACTION_SPACES)
        for step_key, action_space in action_spaces_dict.items():
            heads = action_space.spaces if isinstance(action_space, spaces.Dict) else {"<action space>": action_space}
            for head, space in heads.items():
                if not isinstance(space, SUPPORTED_ACTION_SPACES):
                    raise ConfigurationError(
                        f"behavioural cloning cannot train action head {head!r} of sub-step {step_key!r}: its space "
                        f"{space} is not supported. BCLoss supports {supported} heads inside a Dict action space; "
                        "encode the action as heads of these spaces in the env's ActionConversion"
                    )

    def check_actions(self, step_key: Any, actions: Mapping[str, torch.Tensor]) -> None:
        """Checks recorded actions ``[N, *head_shape]`` of a sub-step against its action space.

        Raises:
            ConfigurationError: For other heads, shapes, or values outside the space (the data
                was recorded on another env).
        """
        space = self.action_spaces_dict[step_key]
        if set(actions) != set(space.spaces):
            raise ConfigurationError(
                f"the dataset's actions of sub-step {step_key!r} have the heads {sorted(actions)}, but the env's action "
                f"space has {sorted(space.spaces)}; was the dataset recorded on another env?"
            )
        for head, values in actions.items():
            head_space = space[head]
            problem = _value_problem(head_space, values)
            if problem:
                raise ConfigurationError(
                    f"the dataset's {head!r} actions of sub-step {step_key!r} do not fit the env's {head_space}: "
                    f"{problem}; was the dataset recorded on another env?"
                )

    def __call__(
        self,
        step_key: Any,
        logits: Mapping[str, torch.Tensor],
        actions: Mapping[str, torch.Tensor],
        with_metrics: bool = True,
    ) -> BCLossOutput:
        """The loss of a policy network's action logits on recorded actions of one sub-step.

        Args:
            step_key: The sub-step key (picks the action space and distributions).
            logits: Head -> action logits ``[B, *logits_shape]`` (with gradients).
            actions: Head -> recorded actions ``[B, *head_shape]``.
            with_metrics: Also compute the entropy, accuracies and errors.

        Returns:
            The loss, the head losses and, with ``with_metrics``, the other metrics (else
            entropy None and empty dicts).
        """
        space = self.action_spaces_dict[step_key]
        classes = self.distribution_classes[step_key]
        head_nll: dict[str, torch.Tensor] = {}
        entropies: list[torch.Tensor] = []
        accuracies: dict[str, float] = {}
        abs_errors: dict[str, float] = {}
        need_entropy = bool(self.entropy_coef) or with_metrics
        entropy_grad = torch.is_grad_enabled() and bool(self.entropy_coef)
        for head, head_logits in logits.items():
            head_space, recorded = space[head], actions[head]
            if classes[head] is CategoricalProbabilityDistribution:
                target = recorded - int(head_space.start) if head_space.start else recorded
                log_probs = torch.log_softmax(head_logits, dim=-1)
                head_nll[head] = F.nll_loss(log_probs, target)
                if need_entropy:
                    with torch.set_grad_enabled(entropy_grad):
                        entropies.append(_categorical_entropy(log_probs if entropy_grad else log_probs.detach()))
                if with_metrics:
                    accuracies[head] = (log_probs.detach().argmax(-1) == target).sum().item() / len(target)
                continue
            distribution = classes[head](logits=head_logits, action_space=head_space)
            head_nll[head] = -distribution.log_prob(recorded).mean()
            if need_entropy:
                with torch.set_grad_enabled(entropy_grad):
                    entropies.append(distribution.entropy().mean())
            if with_metrics:
                with torch.no_grad():
                    predicted = distribution.deterministic_sample()
                    recorded = recorded.to(predicted.dtype)
                    if isinstance(head_space, DISCRETE_SPACES):
                        accuracies[head] = (predicted == recorded).float().mean().item()
                    else:
                        abs_errors[head] = (predicted - recorded).abs().mean().item()
        loss = add_up(head_nll.values())
        if self.entropy_coef:
            loss = loss - self.entropy_coef * add_up(entropies)
        head_losses = {head: value.item() for head, value in head_nll.items()}
        entropy = sum(entropy.item() for entropy in entropies) if with_metrics else None
        return BCLossOutput(loss, head_losses, entropy, accuracies, abs_errors)


def add_up(tensors: Iterable[torch.Tensor]) -> torch.Tensor:
    """The sum of tensors (``sum()`` would add a needless ``0 +`` to the autograd graph)."""
    return functools.reduce(operator.add, tensors)


def _categorical_entropy(log_probs: torch.Tensor) -> torch.Tensor:
    """Mean entropy of categorical distributions given as log-probabilities ``[B, n]`` (a scalar)."""
    return -(log_probs.exp() * log_probs).sum() / log_probs.shape[0]


def _value_problem(space: spaces.Space, values: torch.Tensor) -> str:
    """What is wrong with recorded actions ``[N, *space.shape]`` of a head (empty if nothing)."""
    shape = tuple(values.shape[1:])
    if shape != tuple(space.shape):
        return f"they have the shape {shape}, the space {tuple(space.shape)}"
    array = values.cpu().numpy()
    if isinstance(space, spaces.Box):
        return "" if np.isfinite(array).all() else "some are not finite"
    if isinstance(space, spaces.MultiBinary):
        low, high = np.zeros(space.shape), np.ones(space.shape)
    elif isinstance(space, spaces.Discrete):
        low, high = np.asarray(space.start), np.asarray(space.start + space.n - 1)
    else:
        low, high = np.asarray(space.start), np.asarray(space.start) + space.nvec - 1
    outside = (array < low) | (array > high)
    if outside.any():
        return f"values from {array.min()} to {array.max()} lie outside the space"
    return ""


def record_loss_output(stats: ImitationStats, step_key: Any, output: BCLossOutput, weight: float = 1.0) -> None:
    """Adds the loss, head losses and the metrics computed (entropy, accuracies, errors) of one network to ``stats``."""
    stats.add(ImitationEvents.policy_loss, output.loss.item(), weight, step_key=step_key)
    if output.entropy is not None:
        stats.add(ImitationEvents.policy_entropy, output.entropy, weight, step_key=step_key)
    for event, values in (
        (ImitationEvents.action_loss, output.head_losses),
        (ImitationEvents.discrete_accuracy, output.accuracies),
        (ImitationEvents.continuous_abs_error, output.abs_errors),
    ):
        for head, value in values.items():
            stats.add(event, value, weight, step_key=step_key, action=head)
