"""Helpers for spaces and for collections kept per sub-step key: action spaces, flat policies and the like."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Any, Optional, Protocol, TypeVar

from gymnasium import spaces
from maze.env.core.actor import ActorID, StepKeyType

__all__ = ["seed_spaces", "entry_of_actor", "ordered_dict_space"]

T = TypeVar("T")


def ordered_dict_space(items: Mapping[str, spaces.Space]) -> spaces.Dict:
    """A ``gymnasium.spaces.Dict`` that keeps the keys in the order of ``items`` (gymnasium sorts plain dicts).

    Maze keeps observation keys in the order the env (or a wrapper) declares them. Gymnasium
    sorts the keys of a plain dict; ``sort_keys=False`` exists only from gymnasium 1.3 on,
    while an ``OrderedDict`` keeps its order in every gymnasium 1.x (ray[rllib] pins 1.2.2).
    """
    return spaces.Dict(OrderedDict(items))


class _Seedable(Protocol):
    def seed(self, seed: int) -> Any: ...


def seed_spaces(seedables: Iterable[_Seedable], seed: int) -> None:
    """Seeds the ``i``-th item (a space, a policy, ...) with ``seed + i``.

    Distinct seeds per item keep e.g. the action spaces of different sub-steps from
    sampling in lockstep.
    """
    for offset, seedable in enumerate(seedables):
        seedable.seed(seed + offset)


def entry_of_actor(owner: str, per_step: Mapping[StepKeyType, T], actor_id: Optional[ActorID], kind: str) -> T:
    """The entry of ``per_step`` that belongs to the sub-step of ``actor_id``.

    Args:
        owner: Who asks (for error messages), e.g. ``"RandomPolicy"``.
        per_step: One entry per sub-step key.
        actor_id: The acting actor; may be None only when there is a single sub-step.
        kind: What the entries are (for error messages), e.g. ``"action space"``.

    Raises:
        ValueError: ``actor_id`` is None but there are several sub-steps.
        KeyError: There is no entry for the actor's sub-step.
    """
    if actor_id is None:
        if len(per_step) != 1:
            raise ValueError(
                f"{owner} has one {kind} per sub-step (sub-steps {list(per_step)}); pass actor_id "
                "(e.g. actor_id=env.actor_id()) to pick the one of the acting actor"
            )
        return next(iter(per_step.values()))
    try:
        return per_step[actor_id.step_key]
    except KeyError:
        raise KeyError(f"{owner} has no {kind} for sub-step {actor_id.step_key!r}; it knows {list(per_step)}") from None
