"""Configs that may hold built objects (env factories, composers) written as plain YAML-safe data."""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import Any

from maze.env.utils.factory import to_plain_config

__all__ = ["loggable_config"]

_PLAIN = (str, int, float, bool, type(None))


def loggable_config(config: Any) -> Any:
    """A copy of ``config`` in plain dicts, lists and scalars; other objects become ``<object ...>`` strings.

    Configs built from YAML pass unchanged. Objects put into a config from Python (a
    ``lambda`` env factory, a policy composer instance) have no config form, so the copy
    names their type instead, e.g. ``<object maze.perception.models.policies.ProbabilisticPolicyComposer>``.

    Args:
        config: A (possibly OmegaConf) config.

    Returns:
        Data that ``yaml.safe_dump`` writes.
    """
    config = to_plain_config(config)
    if isinstance(config, _PLAIN):
        return config
    if isinstance(config, Mapping):
        return {
            str(key) if not isinstance(key, _PLAIN) else key: loggable_config(value) for key, value in config.items()
        }
    if isinstance(config, Sequence) and not isinstance(config, (bytes, bytearray)):
        return [loggable_config(item) for item in config]
    named = config if isinstance(config, type) or inspect.isroutine(config) else type(config)
    return f"<object {named.__module__}.{named.__qualname__}>"
