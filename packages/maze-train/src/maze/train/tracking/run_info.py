"""What a tracked run is made of: its description, parameters, metric names and final status.

Everything here is plain data that travels as JSON from the training process to the
tracking process (:mod:`maze.train.tracking.worker`); nothing imports a tracking library.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from numbers import Real
from pathlib import Path
from typing import Any, Optional

import numpy as np
from maze.env.log_stats.log_stats import LogStats
from maze.env.utils.loggable_config import loggable_config
from maze.train.tensorboard import stats_tag

__all__ = ["TrackedRun", "describe_run", "flatten_params", "metric_name", "run_status", "scalar_metrics"]

PARAM_VALUE_LIMIT = 6000
"""Longest parameter value MLflow stores; longer values are cut (ending in ``...``)."""

_METRIC_CHARACTERS = re.compile(r"[^\w\-. :/]")
"""Characters MLflow refuses in metric names (it takes letters, digits, ``_ - . : /`` and spaces)."""


@dataclass
class TrackedRun:
    """Describes one training run to a tracking backend.

    Attributes:
        name: Display name, e.g. ``gym_env-vector_obs-ppo-dev/2024-05-01_12-00-00-000000``.
        run_dir: The run directory (absolute); the tracked run's id is stored there.
        params: The resolved config, flattened to dotted keys (see :func:`flatten_params`).
        tags: ``env``, ``algorithm``, ``model``, ``runner`` and the run directory.
        resume_id: The tracked run to continue (a resumed run, ``input_dir=``); None: a new run.
        sweep: For a job of a sweep (set by ``maze-run --multirun``): ``dir`` (the sweep
            directory), ``job`` (its number) and ``overrides`` (its command-line overrides).
    """

    name: str
    run_dir: str
    params: dict[str, str]
    tags: dict[str, str]
    resume_id: Optional[str] = None
    sweep: Optional[dict[str, Any]] = field(default=None)

    def to_message(self) -> dict[str, Any]:
        """The run as JSON-ready data."""
        return asdict(self)


def describe_run(cfg: Mapping[str, Any], run_dir: Path, trainer: str, runner: str) -> TrackedRun:
    """The tracked run of a training job: name, flattened config and tags (no run to resume yet).

    Args:
        cfg: The resolved job config (plain dicts); ``logger.sweep`` marks a sweep job (see
            :class:`TrackedRun`) and is not logged as parameters.
        run_dir: The run directory.
        trainer: The trainer class name (the ``algorithm`` tag, e.g. ``PPO``).
        runner: The runner class name (the ``runner`` tag, e.g. ``PPORunner``).
    """
    logger = dict(cfg.get("logger") or {})
    sweep = logger.pop("sweep", None)
    params = flatten_params(loggable_config({**cfg, "logger": logger}))
    name = f"sweep {Path(sweep['dir']).name} job {sweep['job']}" if sweep else f"{run_dir.parent.name}/{run_dir.name}"
    tags = {
        "env": _env_name(cfg.get("env")),
        "algorithm": trainer,
        "model": _type_name(cfg.get("model")),
        "runner": runner,
    }
    return TrackedRun(name, str(run_dir), params, tags, sweep=sweep)


def _type_name(node: Any) -> str:
    """The class a config node builds: the last part of its ``_target_``, or the type of a built object."""
    if isinstance(node, Mapping):
        return str(node.get("_target_", "none")).rsplit(".", 1)[-1]
    return type(node).__name__


def _env_name(node: Any) -> str:
    """The env of a config: its ``name`` (e.g. ``CartPole-v1``) or else the class it builds."""
    if isinstance(node, Mapping) and node.get("name"):
        return str(node["name"])
    return _type_name(node)


def flatten_params(config: Any, prefix: str = "") -> dict[str, str]:
    """The leaves of a nested config as ``{"algorithm.lr": "0.0003", ...}``.

    Lists become JSON text (``[64, 64]``), None becomes ``null``, values longer than
    :data:`PARAM_VALUE_LIMIT` are cut. An empty dict stays as its own parameter (``{}``).

    Args:
        config: Plain dicts, lists and scalars (e.g. from ``loggable_config``).
        prefix: Dotted prefix of the keys (empty at the root).
    """
    if isinstance(config, Mapping) and config:
        params: dict[str, str] = {}
        for key, value in config.items():
            params.update(flatten_params(value, f"{prefix}{key}."))
        return params
    key = prefix.rstrip(".")
    if not key:
        return {}
    text = json.dumps(config, default=str) if not isinstance(config, str) else config
    if len(text) > PARAM_VALUE_LIMIT:
        text = text[: PARAM_VALUE_LIMIT - 3] + "..."
    return {key: text}


def metric_name(path: Optional[str], key: Any) -> str:
    """The tracked name of one statistic: its TensorBoard tag with characters MLflow refuses as ``_``.

    Example: ``train_BaseEnvEvents/reward/mean``.
    """
    return _METRIC_CHARACTERS.sub("_", stats_tag(path, key))


def scalar_metrics(path: Optional[str], stats: LogStats) -> dict[str, float]:
    """The numeric statistics of ``stats`` by tracked name (lists, histograms and texts are left out).

    These are the statistics TensorBoard shows as scalars; non-finite values pass unchanged.
    """
    metrics: dict[str, float] = {}
    for key, value in stats.items():
        if isinstance(value, np.ndarray) and value.ndim == 0:
            value = value.item()
        if isinstance(value, (Real, np.integer, np.floating, np.bool_)):
            metrics[metric_name(path, key)] = float(value)
    return metrics


def run_status(error: Optional[BaseException]) -> str:
    """``finished`` without error, ``interrupted`` for Ctrl-C / SIGTERM (KeyboardInterrupt), else ``failed``."""
    if error is None:
        return "finished"
    return "interrupted" if isinstance(error, KeyboardInterrupt) else "failed"
