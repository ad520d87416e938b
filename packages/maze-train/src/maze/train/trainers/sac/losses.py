"""The pure pieces of SAC: action sampling with log-probabilities, targets, losses and soft updates.

Two action-space families are supported (each with any number of heads):

* **continuous**: every head is non-discrete (Box, ...); Q(s, a) takes all heads as inputs
  and returns ``q_value`` ``[B]``; actions are sampled with the reparameterization trick.
* **discrete**: every head is ``Discrete``; Q(s, .) returns ``<head>_q_values`` ``[B, n]``
  and expectations over the policy are computed exactly (Christodoulou 2019); each head's Q
  values are trained towards the same reward target.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import torch
from gymnasium import spaces
from maze.distributions import DictProbabilityDistribution
from maze.distributions.squashed_gaussian import SquashedGaussianProbabilityDistribution
from maze.env.errors import ConfigurationError

__all__ = [
    "discrete_log_probs",
    "q_of_taken_actions",
    "is_discrete_action_space",
    "sample_with_log_prob",
    "soft_update",
    "target_entropy",
]


def is_discrete_action_space(action_space: spaces.Dict) -> bool:
    """True if every head is ``Discrete``, False if none is.

    Raises:
        ConfigurationError: For action spaces mixing discrete and non-discrete heads.
    """
    discrete = [isinstance(space, spaces.Discrete) for space in action_space.spaces.values()]
    if any(discrete) and not all(discrete):
        raise ConfigurationError(
            f"SAC supports action spaces whose heads are all Discrete or all continuous; {action_space} mixes "
            "them. Use one kind of action head (e.g. discretize the continuous heads)"
        )
    return all(discrete)


def target_entropy(action_space: spaces.Dict, multiplier: float) -> float:
    """The target entropy of the entropy tuning.

    Continuous heads: ``multiplier * -dim(A)`` (all heads' dimensions summed). Discrete
    heads: ``multiplier * 0.98 * log|A|`` summed over heads, i.e. a mean log-probability of
    ``-0.98 * (-log(1 / |A|))`` per head.
    """
    if is_discrete_action_space(action_space):
        return multiplier * sum(0.98 * math.log(space.n) for space in action_space.spaces.values())
    return multiplier * -float(sum(math.prod(space.shape) for space in action_space.spaces.values()))


def sample_with_log_prob(distribution: DictProbabilityDistribution) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
    """Reparameterized actions of all (continuous) heads and their joint log-probability.

    Squashed Gaussian heads take the log-density from the unsquashed sample (no ``atanh``
    round trip, exact also at the bounds).

    Returns:
        Head -> actions ``[B, *shape]`` and the log-probability ``[B]``.
    """
    actions: dict[str, torch.Tensor] = {}
    log_prob: torch.Tensor = torch.zeros(())
    for head, head_distribution in distribution.distribution_dict.items():
        if isinstance(head_distribution, SquashedGaussianProbabilityDistribution):
            actions[head], head_log_prob = head_distribution.rsample_with_log_prob()
        else:
            actions[head] = head_distribution.sample()
            head_log_prob = head_distribution.log_prob(actions[head])
        log_prob = log_prob + head_log_prob
    return actions, log_prob


def discrete_log_probs(distribution: DictProbabilityDistribution) -> dict[str, torch.Tensor]:
    """Head -> normalized log-probabilities ``[B, n]`` of all actions (masked actions at -1e8, not -inf)."""
    return {
        head: torch.log_softmax(head_distribution.dist.logits, dim=-1).clamp(min=-1e8)
        for head, head_distribution in distribution.distribution_dict.items()
    }


@torch.no_grad()
def soft_update(targets: Sequence[torch.Tensor], sources: Sequence[torch.Tensor], tau: float) -> None:
    """``target <- (1 - tau) * target + tau * source`` for every pair, in place (one fused call)."""
    torch._foreach_lerp_(list(targets), list(sources), tau)


def q_of_taken_actions(
    q_values: Mapping[str, torch.Tensor], actions: Mapping[str, torch.Tensor], starts: Mapping[str, int]
) -> dict[str, torch.Tensor]:
    """Head -> Q value ``[B]`` of the taken discrete action, from ``<head>_q_values`` ``[B, n]``."""
    return {
        head: q_values[f"{head}_q_values"].gather(-1, (actions[head].long() - start).unsqueeze(-1)).squeeze(-1)
        for head, start in starts.items()
    }
