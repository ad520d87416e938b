"""Actor identification for structured (multi-step, multi-agent) environments."""

from __future__ import annotations

from typing import NamedTuple, Union

from maze.env.utils.allow_list import trajectory_data

__all__ = ["ActorID", "StepKeyType"]

StepKeyType = Union[int, str]
"""Key of a sub-step (policy): an int or a string such as ``"selection"``."""


@trajectory_data
class ActorID(NamedTuple):
    """Identifies the single actor that acts next in a structured env.

    Attributes:
        step_key: Key of the sub-step (and so of the policy) that acts.
        agent_id: Index of the agent acting in that sub-step.
    """

    step_key: StepKeyType
    agent_id: int
