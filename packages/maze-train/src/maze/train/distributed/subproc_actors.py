"""SubprocDistributedActors: one worker process per actor, a bounded output queue and shared-memory weights.

The policy is pickled once per worker at start. Later weights reach the workers through
:class:`SharedPolicyWeights`: one flat float32 buffer in shared memory holding every tensor
of the policy's state dict, plus a version counter. The learner writes the buffer and
increments the version under one lock; a worker that sees a new version copies the buffer
into its policy before its next rollout, so each rollout is produced by exactly one version
and is tagged with it.

Outputs go through a queue of ``queue_out_of_sync_factor * actors_batch_size`` entries: a
worker blocks once the learner is that far behind, which bounds the policy lag. A worker
that raises sends its traceback before it exits; a worker that dies without a word (killed)
is noticed by its exit code. Either way :meth:`SubprocDistributedActors.collect_outputs`
raises one :class:`ActorFailedError`, and :meth:`~SubprocDistributedActors.stop` ends every
worker. Workers also exit on their own when the learner's process is gone.
"""

from __future__ import annotations

import copy
import multiprocessing
import pickle
import queue
import signal
import time
import traceback
from collections.abc import Mapping
from multiprocessing import forkserver
from typing import Any, Callable, Optional

import numpy as np
import torch
from maze.env.errors import ConfigurationError, EnvWorkerError
from maze.env.utils.main_guard import check_main_guard, reimport_note
from maze.train.distributed.actors import ActorOutput, DistributedActors, act_once, actor_collector

__all__ = ["START_METHODS", "ActorFailedError", "SharedPolicyWeights", "SubprocDistributedActors"]

START_METHODS = ("forkserver", "spawn", "fork")

FORKSERVER_PRELOAD = [__name__]
"""Imported once by the fork server (torch and the actor code with it), so each actor starts without re-importing."""


def start_fork_server() -> None:
    """Starts the fork server now, with :data:`FORKSERVER_PRELOAD` imported in it.

    Call it early, so the server's imports overlap with the caller's setup, but after the
    CPU-thread variables are set (processes forked by the server inherit its environment).
    Nothing changes when the server already runs.

    Raises:
        ConfigurationError: Called from a script's module-level code without ``if __name__ ==
            "__main__":`` (the server would re-import the script; see :func:`check_main_guard`).
    """
    check_main_guard("forkserver", "the fork server of the worker processes")
    multiprocessing.get_context("forkserver").set_forkserver_preload(FORKSERVER_PRELOAD)
    forkserver.ensure_running()


"""The multiprocessing start methods of the worker processes."""

POLL_SECONDS = 0.2
"""How often a blocked learner or worker checks for failures, stop requests and a gone parent."""


class ActorFailedError(EnvWorkerError):
    """An actor process raised an exception or died; training cannot continue (an :class:`EnvWorkerError`)."""


class SharedPolicyWeights:
    """The floating tensors of a policy's state dict as one flat shared-memory buffer with a version.

    Args:
        state_dict: The policy's state dict (network key -> module state dict); fixes the layout.
        context: The multiprocessing context of the workers.
    """

    def __init__(self, state_dict: dict[str, dict[str, torch.Tensor]], context: Any) -> None:
        self._layout = [
            (network, name, tensor.numel())
            for network, tensors in state_dict.items()
            for name, tensor in tensors.items()
            if tensor.is_floating_point()
        ]
        self._buffer = context.RawArray("f", max(1, sum(numel for _, _, numel in self._layout)))
        self._version = context.Value("q", 0)

    @property
    def version(self) -> int:
        """The version of the weights in the buffer."""
        return int(self._version.value)

    def write(self, state_dict: dict[str, dict[str, torch.Tensor]]) -> int:
        """Copies the weights into the buffer and increments the version; returns the new version."""
        flat = torch.cat(
            [state_dict[network][name].detach().reshape(-1).float().cpu() for network, name, _ in self._layout]
        )
        with self._version.get_lock():
            np.frombuffer(self._buffer, dtype=np.float32)[: flat.numel()] = flat.numpy()
            self._version.value += 1
            return int(self._version.value)

    def read_into(self, state_dict: dict[str, dict[str, torch.Tensor]]) -> int:
        """Copies the buffer into the (live) tensors of ``state_dict``; returns the version read."""
        with self._version.get_lock():
            flat = torch.from_numpy(np.frombuffer(self._buffer, dtype=np.float32).copy())
            version = int(self._version.value)
        offset = 0
        for network, name, numel in self._layout:
            target = state_dict[network][name]
            target.copy_(flat[offset : offset + numel].reshape(target.shape))
            offset += numel
        return version


def _policy_state(policy: Any) -> dict[str, dict[str, torch.Tensor]]:
    """The policy's state dict whose tensors are the live parameters and buffers."""
    return {key: dict(network.state_dict(keep_vars=True)) for key, network in policy.named_networks().items()}


def _detached(state: dict[str, dict[str, torch.Tensor]]) -> dict[str, dict[str, torch.Tensor]]:
    return {network: {name: tensor.detach() for name, tensor in tensors.items()} for network, tensors in state.items()}


def _actor_main(
    actor: int,
    env_factory: Callable[[], Any],
    policy: Any,
    n_rollout_steps: int,
    seeds: list[Optional[int]],
    weights: SharedPolicyWeights,
    outputs: Any,
    errors: Any,
    stop: Any,
    behaviour_log_probs: bool = True,
) -> None:
    """A worker: acts with the newest weights, puts tagged outputs, reports its traceback if it fails."""
    outputs.cancel_join_thread()  # never hang at exit on outputs the learner no longer reads
    learner = multiprocessing.parent_process()

    def running() -> bool:
        return not stop.is_set() and (learner is None or learner.is_alive())

    try:
        torch.set_num_threads(1)
        collector = actor_collector(env_factory, n_rollout_steps, seeds)
        state = _detached(_policy_state(policy))
        version = -1
        while running():
            if weights.version != version:
                version = weights.read_into(state)
            output = act_once(collector, policy, version, actor, behaviour_log_probs)
            while running():
                try:
                    outputs.put(output, timeout=POLL_SECONDS)
                    break
                except queue.Full:
                    continue
        collector.env.close()
    except BaseException:  # report everything, including KeyboardInterrupt, with the traceback
        errors.put((actor, traceback.format_exc()))


class SubprocDistributedActors(DistributedActors):
    """One worker process per actor (see the module docs).

    Args:
        queue_out_of_sync_factor: The output queue holds this many learner batches.
        start_method: ``forkserver`` (default), ``spawn`` or ``fork``.
        **kwargs: The arguments of :class:`DistributedActors`.

    Raises:
        ConfigurationError: For an unknown start method.
    """

    def __init__(self, *args: Any, queue_out_of_sync_factor: int = 1, start_method: str = "forkserver", **kwargs: Any):
        super().__init__(*args, **kwargs)
        if start_method not in START_METHODS:
            raise ConfigurationError(
                f"runner.start_method={start_method!r} is not supported; use one of {', '.join(START_METHODS)} "
                "(or runner=dev for in-process actors)"
            )
        check_main_guard(start_method, type(self).__name__, alternative="runner.start_method=fork")
        self.queue_out_of_sync_factor = queue_out_of_sync_factor
        self.start_method = start_method
        self._processes: list[Any] = []
        if start_method == "forkserver":
            start_fork_server()

    def start(self) -> None:
        """Starts the worker processes with the policy's current weights (version 0)."""
        context = multiprocessing.get_context(self.start_method)
        self._weights = SharedPolicyWeights(_policy_state(self.policy), context)
        self._weights.write(_policy_state(self.policy))
        self.policy_version = self._weights.version
        self._outputs = context.Queue(maxsize=self.queue_out_of_sync_factor * self.actors_batch_size)
        self._outputs_torn = False
        self._errors = context.Queue()
        self._stop = context.Event()
        policy = _cpu_copy(self.policy)
        for actor in range(self.num_actors):
            process = context.Process(
                target=_actor_main,
                args=(
                    actor,
                    self.env_factory,
                    policy,
                    self.n_rollout_steps,
                    self.actor_seeds(actor),
                    self._weights,
                    self._outputs,
                    self._errors,
                    self._stop,
                    self.behaviour_log_probs,
                ),
                name=f"maze-actor-{actor}",
                daemon=True,
            )
            process.start()
            self._processes.append(process)

    def broadcast_updated_policy(self, policy: Any) -> None:
        """Writes the weights into shared memory (no pickling); workers pick them up before their next rollout.

        Args:
            policy: The learner's policy, or its state dict (network -> parameter name -> tensor).
        """
        state = policy if isinstance(policy, Mapping) else _policy_state(policy)
        self.policy_version = self._weights.write(state)

    def collect_outputs(self) -> list[ActorOutput]:
        """Waits for ``actors_batch_size`` outputs.

        Raises:
            ActorFailedError: An actor raised (with its traceback) or its process died.
        """
        self._check_actors()  # also when the other actors keep the queue filled
        outputs: list[ActorOutput] = []
        while len(outputs) < self.actors_batch_size:
            try:
                outputs.append(self._outputs.get(timeout=POLL_SECONDS))
            except queue.Empty:
                self._check_actors()
            except BaseException:  # Ctrl-C or SIGTERM may have torn a message half read: never read on
                self._outputs_torn = True
                raise
        return outputs

    def queue_size(self) -> int:
        """Outputs waiting (approximate; 0 where the platform cannot tell)."""
        try:
            return self._outputs.qsize()
        except NotImplementedError:
            return 0

    def _check_actors(self) -> None:
        try:
            actor, trace = self._errors.get_nowait()
        except queue.Empty:
            pass
        else:
            raise ActorFailedError(f"Actor {actor} failed; training stopped. Its traceback:\n{trace.rstrip()}")
        for actor, process in enumerate(self._processes):
            if process.exitcode is not None:
                time.sleep(POLL_SECONDS)  # a traceback on its way wins over the bare exit code
                self._check_errors_only()
                note = reimport_note(self.start_method) if process.exitcode == 1 else ""
                raise ActorFailedError(
                    f"Actor {actor} (process {process.pid}) died with {_describe_exit(process.exitcode)}; training "
                    f"stopped. Check the machine's memory and the env of that actor.{note}"
                )

    def _check_errors_only(self) -> None:
        try:
            actor, trace = self._errors.get(timeout=POLL_SECONDS)
        except queue.Empty:
            return
        raise ActorFailedError(f"Actor {actor} failed; training stopped. Its traceback:\n{trace.rstrip()}")

    def stop(self) -> None:
        """Stops all workers: asks them, then terminates and finally kills any that are left."""
        if not self._processes:
            return
        self._stop.set()
        deadline = time.monotonic() + 5.0
        for process in self._processes:
            while process.is_alive() and time.monotonic() < deadline:
                self._drain()
                process.join(timeout=POLL_SECONDS)
        for process in self._processes:
            if process.is_alive():
                process.terminate()
                process.join(timeout=2.0)
            if process.is_alive():
                process.kill()
                process.join()
        self._drain()
        self._processes = []

    def _drain(self) -> None:
        """Empties the output queue so that actors blocked on it can exit (not after a torn read: it could block)."""
        if self._outputs_torn:
            return
        try:
            while True:
                self._outputs.get_nowait()
        except (queue.Empty, OSError, ValueError, EOFError, pickle.UnpicklingError):
            pass


def _cpu_copy(policy: Any) -> Any:
    """The policy as the workers get it: on the CPU (actors act on CPU; the learner may use cuda)."""
    if policy.device.type == "cpu":
        return policy
    return copy.deepcopy(policy).to("cpu")


def _describe_exit(exitcode: int) -> str:
    if exitcode < 0:
        try:
            return f"signal {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"signal {-exitcode}"
    return f"exit code {exitcode}"
