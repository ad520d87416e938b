"""Clear messages for config errors that Hydra reports while composing a ``maze-run`` config.

Hydra names the culprit but offers no correction for a mistyped key; these helpers add a
"did you mean" suggestion (closest keys at the same level, or closest options of a group),
ignoring case: ``algorithm=PPO`` gets ``algorithm=ppo``.
A root key that a user's root config lacks (a copy of an older maze root config) is named
with the line to add, taken from maze's own root configs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from importlib.resources import files
from typing import Optional

from hydra.errors import HydraException, MissingConfigException
from maze.env.utils.suggestions import close_matches
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import ConfigAttributeError, ConfigKeyError, InterpolationKeyError, OmegaConfBaseException

__all__ = ["closest_match", "is_config_error", "describe_config_error", "suggest_key"]

_OVERRIDE_FAILURE = re.compile(r"Could not override '(?P<key>[^']+)'\.\nTo append to your config use \+(?P<line>.+)")
_GROUP_NOT_IN_ROOT = re.compile(
    r"Could not override '(?P<group>[^'.]+)'\. No match in the defaults list\.\n.*use \+(?P<line>.+)"
)
_TRAINING_GROUPS = ("algorithm", "model", "critic")
"""Groups of the training root config (``-cn conf_train``) that the default rollout root lacks."""
_GYMNASIUM_ID = re.compile(r"^[\w.:/-]+-v\d+$")
_SEARCH_PATH = "\nConfig search path:"
_INTERPOLATION_KEY = re.compile(r"Interpolation key '(?P<key>[^']+)' not found")
_MAZE_ROOTS = ("conf_rollout", "conf_train")
"""maze's root configs, where a missing root key's default line is looked up."""


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
    missing_root_key = _describe_missing_root_key(error)
    if missing_root_key:
        return missing_root_key
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


def _describe_missing_root_key(error: BaseException) -> Optional[str]:
    """The message for an interpolation of a root key that the user's root config lacks, or None.

    Only keys and groups of maze's own root configs count: the message names the key, the
    config entry that reads it and the line to add (maze's default), and how to inherit maze's
    root config instead of copying it.
    """
    lookup = next((e for e in (error, error.__cause__) if isinstance(e, InterpolationKeyError)), None)
    match = _INTERPOLATION_KEY.match(str(lookup)) if lookup is not None else None
    if match is None:
        return None
    key = match.group("key")
    found = [(root, line) for root in _MAZE_ROOTS if (line := _root_default_line(root, key))]
    if not found:
        return None
    reader = f" ({lookup.full_key} reads it)" if lookup.full_key else ""
    inherit = " or ".join(f"defaults: [{root}, _self_]" for root, _ in found)
    return (
        f"Your root config has no {key!r}{reader}: it was copied from a maze version without it. "
        f"Add {found[0][1]}, or inherit maze's root config instead of copying it "
        f"({inherit}, then your groups as override <group>: <option>)"
    )


def _root_default_line(root: str, key: str) -> Optional[str]:
    """Where and what to add for ``key`` as maze's root config ``root`` has it (a key or a group), or None.

    E.g. "the line `trusted_modules: []` to it", "the line `shuffle_seeds: false` to its
    `seeding:` section" or "the line `- model: flatten_concat` to its defaults list".
    """
    config = OmegaConf.to_container(OmegaConf.load(str(files("maze.conf") / f"{root}.yaml")), resolve=False)
    for entry in config.get("defaults", []):
        for group, option in entry.items() if isinstance(entry, dict) else ():
            if group.removeprefix("optional ") == key:
                return f"the line `- {group}: {option}` to its defaults list"
    *parents, leaf = key.split(".")
    section = config
    for parent in parents:
        section = section.get(parent) if isinstance(section, dict) else None
    if not isinstance(section, dict) or leaf not in section:
        return None
    value = section[leaf]
    if isinstance(value, (dict, list)) and value:
        return f"the {key!r} section of maze's {root}.yaml to it"
    line = OmegaConf.to_yaml({leaf: value}).strip()
    return f"the line `{line}` to " + (f"its `{'.'.join(parents)}:` section" if parents else "it")


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
        close = closest_match(option, options)
        return (
            f"\nDid you mean -cn {close}?" if close else f"\nThe root configs of maze-run: {', '.join(sorted(options))}"
        )
    close = closest_match(option, options or ())
    return f"\nDid you mean {group}={close}?" if close else ""


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
    close = closest_match(parts[depth], (str(name) for name in parent.keys()))
    return ".".join([*parts[:depth], close, *parts[depth + 1 :]]) if close else None


def closest_match(word: str, candidates: Iterable[str]) -> Optional[str]:
    """The candidate closest to ``word``, ignoring case (``PPO`` -> ``ppo``); None when nothing is close.

    Args:
        word: What the user typed (an option, a key, a root config name).
        candidates: The valid names.

    Returns:
        The candidate as spelled in ``candidates``.
    """
    close = close_matches(word, candidates)
    return close[0] if close else None
