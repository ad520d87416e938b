"""The sub-steps SAC trains: one policy network, Q network pair, replay buffer and entropy coefficient each."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gymnasium import spaces
from maze.env.core.actor import ActorID, StepKeyType
from maze.train.trainers.sac.losses import is_discrete_action_space, target_entropy

__all__ = ["SubStep", "sub_steps"]


@dataclass(frozen=True)
class SubStep:
    """What SAC needs to know about one sub-step (the only one of a flat env).

    Attributes:
        actor_id: Selects the sub-step's policy and Q networks (agent 0: agents of a sub-step share them).
        index: Position of the sub-step (its entry of the entropy coefficients).
        discrete: All action heads are ``Discrete`` (else all are continuous).
        starts: Discrete head -> the ``start`` of its space (empty for continuous sub-steps).
        target_entropy: The target of the sub-step's entropy tuning.
    """

    actor_id: ActorID
    index: int
    discrete: bool
    starts: dict[str, int]
    target_entropy: float


def sub_steps(action_spaces_dict: Mapping[StepKeyType, spaces.Dict], multiplier: float) -> dict[StepKeyType, SubStep]:
    """Sub-step key -> :class:`SubStep`, in the order of ``action_spaces_dict``.

    Raises:
        ConfigurationError: For a sub-step whose action space mixes discrete and continuous heads.
    """
    result = {}
    for index, (key, space) in enumerate(action_spaces_dict.items()):
        discrete = is_discrete_action_space(space)
        starts = {head: int(head_space.start) for head, head_space in space.spaces.items()} if discrete else {}
        result[key] = SubStep(ActorID(key, 0), index, discrete, starts, target_entropy(space, multiplier))
    return result
