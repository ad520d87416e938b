"""SubprocVectorEnv: one worker process per env, for envs whose steps are expensive."""

from __future__ import annotations

import multiprocessing
import signal
import traceback
from multiprocessing.connection import Connection
from typing import Any, Callable, Optional, Sequence

import cloudpickle
from maze.env.errors import ConfigurationError, EnvWorkerError, MazeError
from maze.env.utils.main_guard import check_main_guard, reimport_note
from maze.env.vector.env_ops import ENV_COMMANDS, describe_env, env_error, env_error_kind
from maze.env.vector.vector_env import MessagingVectorEnv

__all__ = ["SubprocVectorEnv"]

_POLL_INTERVAL_S = 0.1
"""How often a waiting main process checks that the worker it waits for is still alive."""

_CLOSE_TIMEOUT_S = 1.0
"""How long ``close`` waits for a worker to exit before terminating (then killing) it."""


def _worker(connection: Connection, parent_connection: Connection, pickled_factory: bytes) -> None:
    """Worker process main loop: build the env, then answer one message per command.

    Every reply is ``("ok", result)`` or ``("error", (command, error_kind, traceback_text))``
    with ``error_kind`` from :func:`~maze.env.vector.env_ops.env_error_kind`.
    """
    parent_connection.close()
    try:
        env = cloudpickle.loads(pickled_factory)()
        connection.send(("ok", describe_env(env)))
    except Exception as error:
        connection.send(("error", ("init", env_error_kind(error), traceback.format_exc())))
        return
    try:
        while True:
            command, data = connection.recv()
            if command == "close":
                break
            try:
                connection.send(("ok", ENV_COMMANDS[command](env, data)))
            except Exception as error:  # also results that cannot be pickled
                connection.send(("error", (command, env_error_kind(error), traceback.format_exc())))
    except (EOFError, KeyboardInterrupt):
        pass  # the main process went away or was interrupted: shut down quietly
    finally:
        env.close()
        connection.close()


class SubprocVectorEnv(MessagingVectorEnv):
    """Runs every env in its own worker process; one message per env and step each way.

    Worth it only for expensive envs: for cheap ones (CartPole) the messages cost more than
    the step, and :class:`~maze.env.vector.sequential.SequentialVectorEnv` is faster. Both
    step an env with the same function, so they produce identical trajectories for the same
    seeds and actions. Batching, auto-reset and seeding are described in
    :class:`~maze.env.vector.vector_env.StructuredVectorEnv`.

    Errors never hang the main process: an exception inside an env is re-raised naming the
    env index and command and carrying the worker's traceback, as an
    :class:`~maze.env.errors.InvalidActionError` or
    :class:`~maze.env.errors.ConfigurationError` when the env raised one, else as an
    :class:`~maze.env.errors.EnvWorkerError` (the same kinds as
    :class:`~maze.env.vector.sequential.SequentialVectorEnv`). A worker process that dies
    (killed, crashed) is detected while waiting for it and reported with its exit code.
    ``close`` stops all workers, also after errors. An env step that never returns is not
    interrupted.

    Args:
        env_factories: One callable per env returning a structured env. They are pickled
            with cloudpickle, so lambdas and closures work.
        start_method: ``"forkserver"``, ``"spawn"`` or ``"fork"``; default ``"forkserver"``
            where available, else ``"spawn"``.
        copy_observations: Return new arrays on every step (see the base class).
    """

    def __init__(
        self,
        env_factories: Sequence[Callable[[], Any]],
        start_method: Optional[str] = None,
        copy_observations: bool = True,
    ) -> None:
        available = multiprocessing.get_all_start_methods()
        if start_method is None:
            start_method = "forkserver" if "forkserver" in available else "spawn"
        elif start_method not in available:
            raise ConfigurationError(
                f"SubprocVectorEnv got the start method {start_method!r}; this platform supports {available}"
            )
        check_main_guard(start_method, "SubprocVectorEnv")
        self._start_method = start_method
        context = multiprocessing.get_context(start_method)
        self._closed = False
        self._connections: list[Connection] = []
        self._processes: list[multiprocessing.process.BaseProcess] = []
        try:
            for index, factory in enumerate(env_factories):
                parent_connection, child_connection = context.Pipe()
                process = context.Process(
                    target=_worker,
                    args=(child_connection, parent_connection, cloudpickle.dumps(factory)),
                    name=f"SubprocVectorEnv-worker-{index}",
                    daemon=True,
                )
                process.start()
                child_connection.close()
                self._connections.append(parent_connection)
                self._processes.append(process)
            descriptions = [self._receive(index, "init") for index in range(len(self._processes))]
            super().__init__(descriptions, copy_observations=copy_observations)
        except BaseException:
            self.close()
            raise

    @property
    def processes(self) -> list[multiprocessing.process.BaseProcess]:
        """The worker processes, one per env."""
        return list(self._processes)

    def close(self) -> None:
        """Stops all workers (terminating, then killing, those that do not exit) and reaps them."""
        if self._closed:
            return
        self._closed = True
        for connection, process in zip(self._connections, self._processes, strict=True):
            if process.is_alive():
                try:
                    connection.send(("close", None))
                except OSError:
                    pass  # the worker is gone already; it is reaped below
        for process in self._processes:
            for stop in (None, process.terminate, process.kill):
                if stop is not None:
                    stop()
                process.join(_CLOSE_TIMEOUT_S)
                if not process.is_alive():
                    break
        for connection in self._connections:
            connection.close()

    def __del__(self) -> None:
        if not getattr(self, "_closed", True):
            self.close()

    # --- messaging -----------------------------------------------------------------------

    def _request_all(self, command: str, payloads: list[Any]) -> list[Any]:
        """Sends one message to every worker, then collects every reply before raising any error."""
        if self._closed:
            raise EnvWorkerError(f"SubprocVectorEnv.{command}() was called after close(); build a new vector env")
        errors: list[BaseException] = []
        sent = []
        for index, (connection, payload) in enumerate(zip(self._connections, payloads, strict=True)):
            try:
                connection.send((command, payload))
                sent.append(index)
            except OSError:
                errors.append(self._died(index, command))
            except Exception as error:  # e.g. an action that cannot be pickled
                errors.append(error)
        results: list[Any] = [None] * len(payloads)
        for index in sent:
            try:
                results[index] = self._receive(index, command)
            except MazeError as error:
                errors.append(error)
        if errors:
            raise errors[0]
        return results

    def _receive(self, index: int, command: str) -> Any:
        """Waits for the reply of worker ``index``, watching that it stays alive."""
        connection, process = self._connections[index], self._processes[index]
        while not connection.poll(_POLL_INTERVAL_S):
            if not process.is_alive():
                raise self._died(index, command)
        try:
            status, payload = connection.recv()
        except (EOFError, OSError):
            raise self._died(index, command) from None
        if status == "error":
            failed_command, kind, remote_traceback = payload
            raise env_error(
                kind, "SubprocVectorEnv", index, failed_command, f"the worker's traceback:\n{remote_traceback}"
            )
        return payload

    def _died(self, index: int, command: str) -> EnvWorkerError:
        process = self._processes[index]
        process.join(_CLOSE_TIMEOUT_S)
        code = process.exitcode
        killed_by = f", killed by {signal.Signals(-code).name}" if code is not None and code < 0 else ""
        return EnvWorkerError(
            f"the worker process of env {index} of the SubprocVectorEnv died during {command}() (exit code {code}"
            f"{killed_by}); look for a crash or an os._exit in that env, or a process that killed it."
            f"{reimport_note(self._start_method) if command == 'init' and code == 1 else ''}"
        )
