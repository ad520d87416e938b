"""Clear messages for config errors that Hydra reports while composing a ``maze-run`` config.

Hydra names the culprit but offers no correction for a mistyped key; these helpers add a
"did you mean" suggestion (closest keys at the same level, or closest options of a group).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from importlib.resources import files
from typing import Optional

from hydra.errors import HydraException, MissingConfigException
from omegaconf import DictConfig
from omegaconf.errors import ConfigAttributeError, ConfigKeyError, OmegaConfBaseException

__all__ = ["is_config_error", "describe_config_error", "suggest_key"]

_OVERRIDE_FAILURE = re.compile(r"Could not override '(?P<key>[^']+)'\.\nTo append to your config use \+(?P<line>.+)")
_GROUP_NOT_IN_ROOT = re.compile(
    r"Could not override '(?P<group>[^'.]+)'\. No match in the defaults list\.\n.*use \+(?P<line>.+)"
)
_TRAINING_GROUPS = ("algorithm", "model", "critic")
"""Groups of the training root config (``-cn conf_train``) that the default rollout root lacks."""
_GYMNASIUM_ID = re.compile(r"^[\w.:/-]+-v\d+$")
_SEARCH_PATH = "\nConfig search path:"


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
    group_not_in_root = _GROUP_NOT_IN_ROOT.match(str(error))
    if group_not_in_root and group_not_in_root.group("group") in _TRAINING_GROUPS:
        group, line = group_not_in_root.group("group"), group_not_in_root.group("line")
        return (
            f"The root config has no {group!r} group: {group}, model and critic belong to the training config. Train "
            f"with -cn conf_train, e.g. maze-run -cn conf_train {line} (without -cn, maze-run rolls out a policy)"
        )
    message = str(error).split(_SEARCH_PATH)[0].rstrip()  # Hydra's list of config sources helps nobody here
    if isinstance(cause, OmegaConfBaseException) and str(cause) not in message:
        message = f"{message}\n{cause}"
    if isinstance(error, MissingConfigException) and error.missing_cfg_file:
        message = f"{message}{_missing_config_hint(error.missing_cfg_file, error.options)}"
    return message


def _missing_config_hint(missing: str, options: Optional[Sequence[str]]) -> str:
    """A "did you mean" line for a missing group option or root config (empty when nothing is close)."""
    group, _, option = missing.rpartition("/")
    if group == "env" and _GYMNASIUM_ID.match(option):
        return (
            f"\nDid you mean env.name={option}? (env= picks an env config such as gym_env; env.name= sets the "
            "gymnasium id)"
        )
    if not group:  # the root config of -cn
        options = [
            entry.name[: -len(".yaml")] for entry in files("maze.conf").iterdir() if entry.name.endswith(".yaml")
        ]
        close = difflib.get_close_matches(option, options, n=1)
        return (
            f"\nDid you mean -cn {close[0]}?"
            if close
            else f"\nThe root configs of maze-run: {', '.join(sorted(options))}"
        )
    close = difflib.get_close_matches(option, list(options or ()), n=1)
    return f"\nDid you mean {group}={close[0]}?" if close else ""


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
