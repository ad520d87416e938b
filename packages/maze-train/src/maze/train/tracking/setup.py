"""Starting the trackers that a training run's ``logger`` config names (``logger=mlflow``, ``logger=[mlflow,wandb]``).

The ``logger`` node of ``conf_train`` (the ``logger`` config group of :mod:`maze.conf`) says
which backends track the run: ``mlflow: true`` and/or ``wandb: true`` beside their settings.
Without either (``logger=tensorboard``, the default, or a root config without the group)
nothing is started: the run writes its TensorBoard events as always, and it does so with
every logger.
"""

from __future__ import annotations

import importlib.util
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Optional

from maze.env.errors import ConfigurationError
from maze.env.utils.install_hints import pip_install_command
from maze.train.tracking.process import prestart
from maze.train.tracking.protocol import read_tracked_run_id
from maze.train.tracking.run_info import describe_run
from maze.train.tracking.writer import BACKEND_LABELS, TrackingWriter

logger = logging.getLogger(__name__)

__all__ = [
    "backend_settings",
    "default_tracking_uri",
    "prestart_tracking",
    "require_extra",
    "start_tracking",
    "tracking_backends",
]


def tracking_backends(logger_config: Any) -> list[str]:
    """The backends a ``logger`` config names (``mlflow: true``, ``wandb: true``), in a fixed order."""
    return [name for name in BACKEND_LABELS if isinstance(logger_config, Mapping) and logger_config.get(name)]


def backend_settings(backend: str, logger_config: Mapping[str, Any]) -> dict[str, Any]:
    """The settings a backend's tracking process gets: the ``logger`` config without ``sweep``, MLflow's URI resolved."""
    settings = {key: value for key, value in logger_config.items() if key != "sweep"}
    if backend == "mlflow" and not settings.get("tracking_uri"):
        settings["tracking_uri"] = default_tracking_uri(settings)
    return settings


def prestart_tracking(cfg: Mapping[str, Any], run_dir: Path) -> None:
    """Starts the tracking processes of ``cfg["logger"]`` before the job builds anything (see :func:`prestart`).

    ``maze-run`` calls it before the runner imports torch, so MLflow's or W&B's import and
    connection overlap with the job's start-up on a spare core. Backends whose library is
    missing are left to :func:`start_tracking`, which names the extra.
    """
    logger_config = cfg.get("logger")
    for backend in tracking_backends(logger_config):
        if _installed(backend):
            prestart(backend, backend_settings(backend, logger_config), run_dir)


def start_tracking(
    cfg: Mapping[str, Any],
    run_dir: Path,
    *,
    trainer: str,
    runner: str,
    step_of: Callable[[int], int],
    artifacts: Sequence[str],
    summary_file: str,
    resumed_from: Optional[Path] = None,
) -> list[TrackingWriter]:
    """Starts one :class:`TrackingWriter` per backend of ``cfg["logger"]`` (none for TensorBoard only).

    Args:
        cfg: The resolved job config (plain dicts).
        run_dir: The run directory.
        trainer: The trainer class name (``algorithm`` tag).
        runner: The runner class name (``runner`` tag).
        step_of: The tracking step (env-step count) of a log step.
        artifacts: File names or globs of the run directory to upload at the end.
        summary_file: The training summary's file name (its best score is the run's objective).
        resumed_from: The run directory this run resumes: its tracked runs are continued.

    Raises:
        ConfigurationError: A backend's library is not installed (the message names the extra).
    """
    logger_config = cfg.get("logger")
    backends = tracking_backends(logger_config)
    for backend in backends:
        require_extra(backend)
    if not backends:
        return []
    run = describe_run(cfg, run_dir, trainer, runner)
    writers = []
    for backend in backends:
        resume_id = read_tracked_run_id(resumed_from, backend) if resumed_from is not None else None
        settings = backend_settings(backend, logger_config)
        tracked = replace(run, resume_id=resume_id)
        writers.append(TrackingWriter(backend, settings, tracked, step_of, artifacts, summary_file))
        logger.info(
            f"Tracking this run with {writers[-1].label} ({_where(backend, settings)}); log: {writers[-1].log_file}"
        )
    return writers


def require_extra(backend: str) -> None:
    """Checks (without importing it) that the library of ``backend`` is installed.

    Raises:
        ConfigurationError: It is not; the message names the extra of maze-train that installs it.
    """
    if not _installed(backend):
        raise ConfigurationError(
            f"logger={backend} needs the {backend} package, which maze-train installs only with its {backend!r} "
            f"extra: {pip_install_command(f'maze-train[{backend}]')}"
        )


def _installed(module: str) -> bool:
    """Whether ``module`` can be imported (found without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except ValueError:  # a module entry without spec, e.g. one blocked with sys.modules[name] = None
        return False


def default_tracking_uri(logger_config: Mapping[str, Any]) -> str:
    """MLflow's SQLite store in the base directory of all runs: ``sqlite:///<launch_dir>/<log_base_dir>/mlflow.db``.

    ``launch_dir`` (where ``maze-run`` started; default: the current directory) and
    ``log_base_dir`` (default ``outputs``) come from the ``logger`` config; an absolute
    ``log_base_dir`` is taken as it is.
    """
    base = Path(str(logger_config.get("launch_dir") or ".")) / str(logger_config.get("log_base_dir") or "outputs")
    return f"sqlite:///{base.resolve() / 'mlflow.db'}"


def _where(backend: str, settings: Mapping[str, Any]) -> str:
    """Where the tracked run goes, for the start message."""
    if backend == "mlflow":
        return f"{settings['tracking_uri']}, experiment {settings.get('experiment_name') or 'maze'}"
    return f"project {settings.get('project') or 'maze'}, mode {settings.get('mode') or 'online'}"
