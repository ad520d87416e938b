"""The ``maze-run`` command line: compose a config with Hydra, build its runner and run it.

``maze-run [-cn conf_train|conf_rollout] [-cd DIR] [group=option ...] [key=value ...] [--multirun]``

The config tree is the package :mod:`maze.conf` (the model and critic groups come from
``maze.perception.conf``, which the root configs put on Hydra's search path). Every job runs
in its own run directory, where Hydra writes ``.hydra/`` (``config.yaml``, the composed
config; ``maze-run`` adds ``config_resolved.yaml``, the config as it ran, every interpolation
resolved) and ``maze_cli.log`` holds everything the job logged or printed. ``print_config=true``
also prints the resolved config before the job starts.

Ctrl-C and SIGTERM (``kill``, a job scheduler or container stopping the job) end a job alike:
one message naming the run directory and, for training, what it holds to resume from (exit
status 130 for Ctrl-C, 143 for SIGTERM).

A dict-valued override of an existing key replaces its value (``runner.ray_init={num_cpus: 2}``,
see :mod:`maze.rl.dict_overrides`); ``+key={...}`` merges into it.

Errors are reported without stack traces where they are the user's: config and
command-line errors as one message (with "did you mean" suggestions), and
:class:`~maze.env.errors.MazeError` s raised by the job as ``Error: <message>``. Other
exceptions keep their traceback. The exit code is 1 whenever a job or the composition
failed. ``HYDRA_FULL_ERROR=1`` shows Hydra's complete stack traces instead.

Like ``python -m``, ``maze-run`` puts the directory it was started in on the import path,
so configs can name ``_target_`` s of a project next to them (``_target_: my_env.make_env``).
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import logging
import os
import shlex
import signal
import sys
import threading
import traceback
from collections.abc import Iterator
from typing import Any, Optional

from maze.env.errors import MazeError
from maze.env.utils.termination import Terminated, clear_sigterm, record_sigterm
from maze.rl.startup_gc import pause_garbage_collection

__all__ = [
    "CONFIG_PATH",
    "DEFAULT_CONFIG_NAME",
    "JobFailedError",
    "RESOLVED_CONFIG_FILE",
    "Terminated",
    "console_main",
    "describe_error",
    "main",
    "put_start_directory_on_import_path",
]

CONFIG_PATH = "pkg://maze.conf"
"""Where Hydra finds the root configs and config groups."""

DEFAULT_CONFIG_NAME = "conf_rollout"
"""The root config used without ``-cn``."""

RESOLVED_CONFIG_FILE = "config_resolved.yaml"
"""The job's config with every interpolation resolved, as it ran, in the run directory's ``.hydra/``."""

_FULL_ERROR_VARIABLE = "HYDRA_FULL_ERROR"


class JobFailedError(Exception):
    """A job failed; its error has been reported on stderr and in its ``maze_cli.log``."""


def main() -> None:
    """Entry point of the ``maze-run`` console script (arguments from ``sys.argv``)."""
    import hydra
    from maze.rl.dict_overrides import dict_overrides_replace
    from maze.rl.run_dir_guard import RunDirRefused

    failures: list[str] = []
    interrupted: list[str] = []
    put_start_directory_on_import_path()

    def job(cfg: Any) -> Optional[float]:
        return _run_job(cfg, failures, interrupted)

    app = hydra.main(config_path=CONFIG_PATH, config_name=DEFAULT_CONFIG_NAME, version_base="1.3")(job)
    user_wants_full_errors = os.environ.get(_FULL_ERROR_VARIABLE) == "1"
    # Let Hydra raise instead of printing; the errors are reported below.
    os.environ[_FULL_ERROR_VARIABLE] = "1"
    logging.raiseExceptions = False  # a log file that cannot be written must not mask the job's own error
    try:
        with _sigterm_as_interrupt(), dict_overrides_replace():
            app()
    except KeyboardInterrupt as interruption:  # no traceback; a job in this process said where its outputs are
        if not interrupted:
            print(f"\nInterrupted ({_cause(interruption)}).", file=sys.stderr)
        sys.exit(143 if isinstance(interruption, Terminated) else 130)
    except JobFailedError:
        sys.exit(1)
    except RunDirRefused as refusal:
        print(f"Error: {refusal.error}", file=sys.stderr)
        sys.exit(1)
    except Exception as error:
        if user_wants_full_errors:
            raise
        # e.g. a run directory that holds a run or cannot be created; a config error of composing goes unprefixed
        line = _error_line(error, config_prefix="")
        if line is None:
            raise
        print(line, file=sys.stderr)
        sys.exit(1)
    finally:
        if not user_wants_full_errors:
            del os.environ[_FULL_ERROR_VARIABLE]
    if failures:
        sys.exit(1)


def console_main() -> None:
    """Entry point of the ``maze-run`` console script: :func:`main`, then a quick process exit.

    When :func:`main` is done, the job has written and closed its outputs, but the interpreter
    would still spend about half a second tearing down torch's modules (0.47 s for a bare
    ``import torch`` on a 2-core machine) before the shell gets its prompt back. So the exit
    handlers run here (logging, multiprocessing's children and shared memory, ...), the streams
    are flushed and the process ends with ``os._exit``. A non-daemon thread that is still alive,
    a profiler or tracer (``python -m cProfile``, debuggers) and an exception from :func:`main`
    get the normal interpreter exit.
    """
    pause_garbage_collection()  # until the job's runner is set up (see maze.rl.startup_gc)
    try:
        main()
        code = 0
    except SystemExit as exit_request:
        code = _exit_status(exit_request.code)
    main_thread = threading.main_thread()
    waiting = any(
        thread is not main_thread and thread.is_alive() and not thread.daemon for thread in threading.enumerate()
    )
    if waiting or sys.getprofile() is not None or sys.gettrace() is not None:  # profilers write after main
        sys.exit(code)
    atexit._run_exitfuncs()  # what the interpreter runs at exit, before the module teardown we skip
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more to deliver
            pass
    os._exit(code)


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """While the jobs run, SIGTERM raises :class:`Terminated` in this process, so it ends a job like Ctrl-C.

    The signal is also recorded, so that a training job whose :class:`Terminated` Python lost
    (see :mod:`maze.env.utils.termination`) ends before its next epoch; a finalizer that lost it
    prints one line saying so instead of a traceback. Worker processes forked meanwhile
    inherit the handler; in them SIGTERM keeps its default action (the main process stops its
    workers itself). A SIGTERM handler installed by someone else, an ignored SIGTERM and calls
    off the main thread are left alone.
    """
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        yield
        return
    owner = os.getpid()
    report_unraisable = sys.unraisablehook

    def terminate(signum: int, frame: Any) -> None:
        if os.getpid() != owner:  # a forked worker: end as SIGTERM ends it by default
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        record_sigterm()
        raise Terminated()

    def note_lost_sigterm(unraisable: Any) -> None:
        if not isinstance(unraisable.exc_value, Terminated):
            report_unraisable(unraisable)
            return
        where = f" in {unraisable.object!r}" if unraisable.object is not None else ""
        print(f"SIGTERM arrived in a finalizer{where}; a training job stops before its next epoch", file=sys.stderr)

    signal.signal(signal.SIGTERM, terminate)
    sys.unraisablehook = note_lost_sigterm
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        sys.unraisablehook = report_unraisable
        clear_sigterm()


def _cause(interruption: KeyboardInterrupt) -> str:
    """``SIGTERM`` or ``Ctrl-C``: what interrupted the job."""
    return "SIGTERM" if isinstance(interruption, Terminated) else "Ctrl-C"


def _exit_status(code: Any) -> int:
    """The process exit status of ``SystemExit(code)`` (a message is printed to stderr, as Python does)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def put_start_directory_on_import_path() -> None:
    """Puts the directory ``maze-run`` was started in first on ``sys.path`` (as ``python -m`` does).

    Jobs run inside their run directory, so ``_target_: my_project.make_env`` must be found
    from where the user started. Worker processes (forkserver, spawn) inherit ``sys.path``.
    """
    start = os.path.abspath(os.getcwd())
    if start not in (os.path.abspath(entry or os.curdir) for entry in sys.path if entry):
        sys.path.insert(0, start)


def _run_job(cfg: Any, failures: list[str], interrupted: list[str]) -> Optional[float]:
    """The Hydra task: runs one job in its run directory and reports its errors.

    A failed single run is recorded in ``failures``; a failed job of a multirun raises
    :class:`JobFailedError` so that the sweeper sees the failure. Ctrl-C and SIGTERM are
    reported with the run directory (recorded in ``interrupted``) and passed on.
    """
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode
    from hydra.utils import get_original_cwd
    from maze.rl.job_output import tee_output_to_job_log
    from maze.rl.legacy_algorithm_runners import legacy_algorithm_runner_note
    from maze.rl.run import maze_run, prepare_config
    from maze.rl.tracking import prepare_tracking

    hydra_config = HydraConfig.get()
    with tee_output_to_job_log(hydra_config.runtime.output_dir):
        try:
            print(f"maze-run {shlex.join(sys.argv[1:])}")
            sweeper = hydra_config.runtime.choices.get("hydra/sweeper")
            if hydra_config.mode == RunMode.RUN and sweeper not in (None, "basic"):
                print(f"Note: the {sweeper} sweep configured here runs only with --multirun; this is one plain job")
            legacy_note = legacy_algorithm_runner_note(hydra_config.runtime.choices.get("algorithm_runner"))
            if legacy_note:
                print(legacy_note)
            _drop_replaced_group_keys(cfg, hydra_config)
            _forget_resolved_config(hydra_config)  # of an earlier start in this directory; Hydra renewed the rest
            cfg = prepare_config(cfg, get_original_cwd())
            prepare_tracking(cfg, hydra_config)  # trackers: start their processes now, tell sweep jobs their sweep
            _record_resolved_config(cfg, hydra_config)
            return maze_run(cfg)
        except KeyboardInterrupt as interruption:
            output_dir = hydra_config.runtime.output_dir
            print(f"\nInterrupted ({_cause(interruption)}). {_saved_outputs(output_dir, 'algorithm' in cfg)}")
            interrupted.append(output_dir)
            raise
        except Exception as error:
            _report_job_error(error)
            if hydra_config.mode == RunMode.MULTIRUN:
                raise JobFailedError(str(error)) from None
            failures.append(str(error))
            return None


def _record_resolved_config(cfg: Any, hydra_config: Any) -> None:
    """Writes the resolved job config to :data:`RESOLVED_CONFIG_FILE` in ``.hydra/``; prints it with ``print_config=true``.

    ``print_config`` came after the first release: read with a default, so root configs copied
    from an older maze keep working (they can pass ``+print_config=true``).
    """
    from omegaconf import OmegaConf

    path = _hydra_output_file(hydra_config, RESOLVED_CONFIG_FILE)
    if path is not None:
        OmegaConf.save(cfg, path)
    if OmegaConf.select(cfg, "print_config", default=False):
        print(OmegaConf.to_yaml(cfg), flush=True)


def _hydra_output_file(hydra_config: Any, name: str) -> Optional[str]:
    """The path of file ``name`` in the run directory's ``.hydra/`` (None with ``hydra.output_subdir=null``)."""
    if hydra_config.output_subdir is None:
        return None
    return os.path.join(hydra_config.runtime.output_dir, hydra_config.output_subdir, name)


def _forget_resolved_config(hydra_config: Any) -> None:
    """Removes the resolved config that an earlier start in the same run directory wrote, if any."""
    path = _hydra_output_file(hydra_config, RESOLVED_CONFIG_FILE)
    if path is not None and os.path.isfile(path):
        os.remove(path)


def _saved_outputs(output_dir: str, training: bool) -> str:
    """Where an interrupted job's outputs are and, for training, what they hold to resume from."""
    if not training:
        return f"The outputs so far are in {output_dir}"
    from maze.train.runners.run_dir import describe_resumable_state

    return f"The outputs so far are in {output_dir}: {describe_resumable_state(output_dir)}"


def _drop_replaced_group_keys(cfg: Any, hydra_config: Any) -> None:
    """Drops a group file's keys that a ``_target_`` from the command line does not take, says so, updates ``.hydra/``.

    See :func:`maze.rl.run.drop_replaced_group_keys`; the run directory's ``.hydra/config.yaml``
    is rewritten so that it records the config that ran (deployment and rollouts read it).
    """
    from maze.rl.run import drop_replaced_group_keys
    from omegaconf import OmegaConf

    dropped = drop_replaced_group_keys(cfg, hydra_config.overrides.task)
    if not dropped:
        return
    print(
        f"Note: dropped {', '.join(dropped)} of the group's config file: the _target_ given on the command line "
        "does not name them as parameters (pass its arguments as <group>.<key>=..., or +<group>.<key>=... for new "
        "keys)"
    )
    path = _hydra_output_file(hydra_config, "config.yaml")
    if path is not None and os.path.isfile(path):
        OmegaConf.save(cfg, path)


def _report_job_error(error: Exception) -> None:
    """Prints a job's error to stderr: one line for maze and config errors, else the traceback."""
    line = _error_line(error)
    if line is not None:
        print(line, file=sys.stderr, flush=True)
    else:
        traceback.print_exc()
        sys.stderr.flush()


def _error_line(error: BaseException, config_prefix: str = "Error: ") -> Optional[str]:
    """The one-line report of a missing optional package, a config error or a maze/OS error; None for others.

    Args:
        error: The error that ended the job or the start.
        config_prefix: What precedes the description of a config error.
    """
    from maze.rl.config_errors import describe_config_error, is_config_error
    from maze.rl.optional_configs import missing_package_hint

    if (hint := missing_package_hint(error)) is not None:
        return f"Error: {hint}"
    if is_config_error(error):
        return f"{config_prefix}{describe_config_error(error)}"
    if isinstance(error, (MazeError, OSError)):
        return f"Error: {describe_error(error)}"
    return None


def describe_error(error: BaseException) -> str:
    """The one-line message of a maze error, or of an OS error with its path and errno meaning.

    Example: ``cannot write '/runs/x/state_dict.pt': No space left on device (ENOSPC); free space
    or write to another directory with hydra.run.dir=<path>``.
    """
    if not isinstance(error, OSError) or isinstance(error, MazeError):
        return str(error)
    code = errno.errorcode.get(error.errno, "") if error.errno is not None else ""
    meaning = error.strerror or str(error)
    path = f" {error.filename!r}" if error.filename is not None else ""
    hint = {
        errno.ENOSPC: "free space or write to another directory with hydra.run.dir=<path>",
        errno.EDQUOT: "free space or write to another directory with hydra.run.dir=<path>",
        errno.EACCES: "make it writable or choose another directory with hydra.run.dir=<path>",
        errno.EROFS: "choose a writable directory with hydra.run.dir=<path>",
        errno.EPERM: "make it writable or choose another directory with hydra.run.dir=<path>",
    }.get(error.errno, "check the path")
    return f"cannot access{path}: {meaning}{f' ({code})' if code else ''}; {hint}"
