"""Clear messages for config errors that Hydra reports while composing a ``maze-run`` config.

Hydra names the culprit but offers no correction for a mistyped key; these helpers add a
"did you mean" suggestion (closest keys at the same level, or closest options of a group).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from typing import Optional

from hydra.errors import HydraException, MissingConfigException
from omegaconf import DictConfig
from omegaconf.errors import ConfigAttributeError, ConfigKeyError, OmegaConfBaseException

__all__ = ["is_config_error", "describe_config_error", "suggest_key"]

_OVERRIDE_FAILURE = re.compile(r"Could not override '(?P<key>[^']+)'\.\nTo append to your config use \+(?P<line>.+)")


def is_config_error(error: BaseException) -> bool:
    """True for errors of the user's config or command line (not bugs): Hydra's and OmegaConf's."""
    return isinstance(error, (HydraException, OmegaConfBaseException))


def describe_config_error(error: BaseException) -> str:
    """One message for a config error, with a suggestion where a close match exists.

    Args:
        error: An error for which :func:`is_config_error` holds.

    Returns:
        For an override of an unknown key: the key, the closest existing keys and how to add a
        new key instead. For an unknown group option: Hydra's message (with the available
        options) plus the closest option. Otherwise Hydra's message and its OmegaConf cause.
    """
    cause = error.__cause__
    match = _OVERRIDE_FAILURE.match(str(error))
    if match and isinstance(cause, (ConfigKeyError, ConfigAttributeError)):
        key, line = match.group("key"), match.group("line")
        close = suggest_key(key, cause)
        did_you_mean = f" Did you mean {close!r}?" if close else ""
        return (
            f"Unknown config key {key!r} in the override {line!r}.{did_you_mean} To add it as a new key, write +{line}"
        )
    message = str(error)
    if isinstance(cause, OmegaConfBaseException) and str(cause) not in message:
        message = f"{message}\n{cause}"
    if isinstance(error, MissingConfigException) and error.options and error.missing_cfg_file:
        group, _, option = error.missing_cfg_file.rpartition("/")
        close = difflib.get_close_matches(option, list(error.options), n=1)
        if close and group:
            message = f"{message}\nDid you mean {group}={close[0]}?"
    return message


def suggest_key(key: str, error: OmegaConfBaseException) -> Optional[str]:
    """The full key closest to the unknown ``key`` of an override, from the level where the lookup failed.

    Args:
        key: The dotted key of the override, e.g. ``algorithm.lrr``.
        error: OmegaConf's error; its ``full_key`` names the missing part and its
            ``parent_node`` the config that lacks it.

    Returns:
        The corrected dotted key (``algorithm.lr``), or None when nothing is close.
    """
    parent: Optional[object] = error.parent_node
    missing = error.full_key or key
    if not isinstance(parent, DictConfig):
        return None
    parts = key.split(".")
    depth = len(str(missing).split(".")) - 1
    if depth >= len(parts):
        return None
    candidates: Sequence[str] = [str(name) for name in parent.keys()]
    close = difflib.get_close_matches(parts[depth], candidates, n=1)
    return ".".join([*parts[:depth], close[0], *parts[depth + 1 :]]) if close else None
