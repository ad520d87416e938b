"""Checks of a job's inputs that need nothing built: ``input_dir`` and the files targets read from it.

A job that reads a training run (``policy=torch_policy input_dir=<run dir>``) would otherwise
find out that ``input_dir`` is empty, mistyped or the wrong directory only when its policy is
built: after the envs, in worker processes, with a path such as ``'/state_dict.pt'``. These
checks run on the composed config before it is resolved (``maze.rl.run.prepare_config``), so
the error comes first and names the key and the fix:

* ``input_dir`` is given but no directory;
* a required argument of a ``_target_`` reads a path from ``input_dir``
  (``state_dict_file: ${input_dir}/state_dict.pt``) while ``input_dir`` is empty, or that path
  does not exist. Arguments with a default (``model_config_file`` of a torch policy, which
  falls back to ``model``) are optional inputs and not checked.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from omegaconf import DictConfig, OmegaConf

__all__ = ["check_inputs", "target_parameters"]

_FROM_INPUT_DIR = re.compile(r"^\$\{input_dir\}/(?P<path>[^${}]+)$")
"""A value that names a path below ``input_dir``: ``${input_dir}/state_dict.pt``."""

_TRAINING_RUN = "input_dir=<run directory of maze-run -cn conf_train> (the `Outputs:` path its last line names)"


@dataclass(frozen=True)
class _InputRead:
    """A required argument of a target whose value is a path below ``input_dir``."""

    key: str
    path: str
    target: str


def check_inputs(cfg: DictConfig) -> None:
    """Raises for an ``input_dir`` that cannot serve the job, before anything is built.

    Args:
        cfg: The composed job config, not yet resolved, with ``input_dir`` already absolute
            (or empty).

    Raises:
        ConfigurationError: ``input_dir`` is no directory, is empty although a target needs a
            file from it, or lacks such a file; the message names the keys and what to pass.
    """
    from maze.env.errors import ConfigurationError

    if "input_dir" not in cfg:  # a root config without it: resolving names the missing key
        return
    input_dir = str(cfg.get("input_dir") or "")
    if input_dir and not Path(input_dir).is_dir():
        problem = "is a file, not a run directory" if Path(input_dir).exists() else "does not exist"
        raise ConfigurationError(
            f"input_dir {input_dir!r} {problem}; pass the run directory of a training run "
            "(outputs/<experiment>/<timestamp>)"
        )
    reads = list(_required_input_dir_reads(OmegaConf.to_container(cfg, resolve=False), prefix=""))
    if not reads:
        return
    if not input_dir:
        raise ConfigurationError(f"input_dir is empty, but {_who_reads(reads)} from it; pass {_TRAINING_RUN}")
    missing = [read for read in reads if not (Path(input_dir) / read.path).exists()]
    if missing:
        raise ConfigurationError(
            f"input_dir {input_dir!r} holds no {', '.join(read.path for read in missing)}, but "
            f"{_who_reads(missing)} from it; pass {_TRAINING_RUN}"
        )


def _who_reads(reads: list[_InputRead]) -> str:
    """``SerializedTorchPolicy reads policy.state_dict_file, policy.spaces_dict_file``."""
    targets = ", ".join(dict.fromkeys(read.target for read in reads))
    return f"{targets} reads {', '.join(read.key for read in reads)}"


def _required_input_dir_reads(node: Any, prefix: str) -> Iterator[_InputRead]:
    """The required target arguments below ``node`` (an unresolved plain config) whose value is ``${input_dir}/...``."""
    if isinstance(node, list):
        for index, item in enumerate(node):
            yield from _required_input_dir_reads(item, f"{prefix}{index}.")
        return
    if not isinstance(node, Mapping):
        return
    paths = {key: match.group("path") for key, value in node.items() if (match := _input_dir_path(value))}
    # Only targets that read input_dir are imported: a random-policy rollout imports no torch here.
    parameters = (target_parameters(node.get("_target_")) if paths else None) or {}
    for key, value in node.items():
        parameter = parameters.get(str(key))
        if key in paths and parameter is not None and parameter.default is inspect.Parameter.empty:
            yield _InputRead(f"{prefix}{key}", paths[key], str(node["_target_"]).rpartition(".")[2])
        else:
            yield from _required_input_dir_reads(value, f"{prefix}{key}.")


def _input_dir_path(value: Any) -> Optional[re.Match[str]]:
    """The match of a ``${input_dir}/<path>`` value (None for other values)."""
    return _FROM_INPUT_DIR.match(value) if isinstance(value, str) else None


def target_parameters(target: Any) -> Optional[Mapping[str, inspect.Parameter]]:
    """The parameters of a config's ``_target_`` (a dotted path), or None when it cannot be imported or inspected."""
    from maze.env.errors import ConfigurationError
    from maze.env.utils.factory import resolve_target

    if not isinstance(target, str) or "${" in target:
        return None
    try:
        return inspect.signature(resolve_target(target)).parameters
    except (ConfigurationError, ImportError, TypeError, ValueError):
        return None
