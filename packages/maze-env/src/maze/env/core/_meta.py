"""Metaclass that lets ``isinstance`` see through wrapper stacks."""

from __future__ import annotations

from abc import ABCMeta
from typing import Any

__all__ = ["StackTransparentMeta"]


class StackTransparentMeta(ABCMeta):
    """ABC metaclass whose ``isinstance`` also inspects the envs inside a wrapper stack.

    ``isinstance(TimeLimitWrapper.wrap(GymMazeEnv("CartPole-v1")), GymMazeEnv)`` is True:
    when the plain check fails and the object is a wrapper (it carries an inner env in
    the ``_wrapper_inner_env`` class protocol), the check walks inward, one env at a
    time. Every env base class, mixin and wrapper of maze uses this metaclass.
    """

    def __instancecheck__(cls, instance: Any) -> bool:
        if super().__instancecheck__(instance):
            return True
        inner = _inner_env(instance)
        while inner is not None:
            if super().__instancecheck__(inner):
                return True
            inner = _inner_env(inner)
        return False


def _inner_env(obj: Any) -> Any:
    """Returns the env a wrapper wraps, or None when ``obj`` is not a wrapper."""
    if not getattr(type(obj), "_is_maze_wrapper", False):
        return None
    return obj.__dict__.get("env")
