"""RayVectorEnv: a vector env whose envs step in Ray actors, on this machine or a cluster (extra ``maze-rollout[ray]``).

For envs whose steps are expensive (a simulator at milliseconds per step): the envs are split
into contiguous groups, one group per Ray actor, and every actor builds its envs from their
factories on its own node (user modules reach other nodes through ``runner.runtime_env``).
A step sends each actor the actions of its envs in one request; the actors step their envs
one after another (with :func:`~maze.env.vector.env_ops.step_with_autoreset`, as every vector
env does, so the trajectories equal those of the other vector envs for the same seeds and
actions) and the replies are batched as in
:class:`~maze.env.vector.vector_env.StructuredVectorEnv`.

Errors: an exception inside an env is re-raised naming the env and the command, with the
actor's traceback, as the same error kinds as the other vector envs. :meth:`RayVectorEnv.close`
ends every actor (and a Ray the vector env started).

A dead actor (its process or node died) is restarted by Ray, up to ``runner.max_restarts``
times per actor. The state of its envs is gone, so the step it did not finish is not run
again: the restarted actor rebuilds its envs and resets them (each with a seed derived from
its last reset seed and the restart count), and that step's result for each of its envs is
the end of a truncated episode: reward 0, ``truncated`` True, the first observation of the new
episode, and in the info ``final_observation`` (the last observation the env returned) and
``final_info`` ``{"env_actor_lost": True}``. Every env therefore takes exactly one step per
vector step, nothing is stepped twice, and the run goes on. An actor that died while no call
was running is found the same way at its next step: a new instance refuses to step envs the
vector env has not reset. A reset during which an actor died is run again on the new instance;
a ``call`` is not (its result would describe fresh envs), it stops the run with one
:class:`~maze.env.errors.EnvWorkerError`, as does an actor that died more than
``runner.max_restarts`` times or did not come back within ``restart_timeout_s``.
"""

from __future__ import annotations

import os
import time
import traceback
from collections.abc import Sequence
from contextlib import ExitStack
from typing import Any, Callable, Optional

import numpy as np
from maze.env.errors import EnvWorkerError
from maze.env.vector.env_ops import (
    ENV_COMMANDS,
    EnvDescription,
    EnvStepResult,
    describe_env,
    env_error,
    env_error_kind,
)
from maze.env.vector.vector_env import MessagingVectorEnv
from maze.rollout.ray_cluster import (
    RESTART_POLL_SECONDS,
    ActorRestarts,
    RayCluster,
    actor_start_failure,
    new_incarnation,
)

__all__ = ["RayEnvGroup", "RayVectorEnv", "env_groups"]

_CLOSE_TIMEOUT_S = 10.0
"""How long :meth:`RayVectorEnv.close` waits for the actors to close their envs before killing them."""

Reply = tuple[str, Any, str]
"""``(status, payload, incarnation)``: ``("ok", results, ...)``, ``("error", (env index, command, error kind,
traceback), ...)`` or ``("restarted", None, ...)`` (a new instance asked to step envs that were not reset); the
incarnation names the actor instance that replied."""

LOST_ENV_INFO = {"env_actor_lost": True}
"""The ``final_info`` of an episode cut short because the actor holding its env died."""


def env_groups(n_envs: int, n_groups: int) -> list[range]:
    """Splits env indices ``0 .. n_envs - 1`` into ``n_groups`` contiguous ranges whose sizes differ by at most one."""
    size, larger = divmod(n_envs, n_groups)
    starts = [group * size + min(group, larger) for group in range(n_groups + 1)]
    return [range(starts[group], starts[group + 1]) for group in range(n_groups)]


class RayEnvGroup:
    """The envs of one Ray actor: built from their factories in the actor, stepped one after another.

    Args:
        env_factories: One factory per env of the group.
        first_index: The vector env's index of the group's first env (for messages).
    """

    def __init__(self, env_factories: Sequence[Callable[[], Any]], first_index: int) -> None:
        self.first_index = first_index
        self.incarnation = new_incarnation()
        self.was_reset = False
        self.envs: list[Any] = []
        self.init_error: Optional[Reply] = None
        try:
            for factory in env_factories:
                self.envs.append(factory())
        except Exception as error:
            self.init_error = self._error(len(self.envs), "init", error)

    def describe(self) -> Reply:
        """The spaces, agent counts and first actor of every env (or the error that building one raised)."""
        return self.init_error or ("ok", [describe_env(env) for env in self.envs], self.incarnation)

    def run(self, command: str, payloads: list[Any]) -> Reply:
        """``command`` (step, reset or call) on every env with its payload; stops at the first env that raises.

        An instance whose envs were never reset (Ray restarted the actor) steps nothing and replies
        ``"restarted"``.
        """
        if command != "reset" and not self.was_reset:
            return "restarted", None, self.incarnation
        results = []
        for offset, (env, payload) in enumerate(zip(self.envs, payloads, strict=True)):
            try:
                results.append(ENV_COMMANDS[command](env, payload))
            except Exception as error:
                return self._error(offset, command, error)
        self.was_reset = self.was_reset or command == "reset"
        return "ok", results, self.incarnation

    def close(self) -> None:
        """Closes the envs."""
        for env in self.envs:
            env.close()

    def pid(self) -> int:
        """The process id of the actor (tests kill it)."""
        return os.getpid()

    def _error(self, offset: int, command: str, error: Exception) -> Reply:
        return (
            "error",
            (self.first_index + offset, command, env_error_kind(error), traceback.format_exc()),
            self.incarnation,
        )


class RayVectorEnv(MessagingVectorEnv):
    """Steps its envs in Ray actors, each holding a contiguous group of them (see the module docs).

    Args:
        env_factories: One callable per env returning a structured env (pickled once per actor
            with Ray's cloudpickle: lambdas and closures work).
        cluster: Where and how to run on Ray (``runner.ray_address``, ``ray_init``, ``runtime_env``,
            ``max_restarts``).
        num_actors: Ray actors holding the envs (at most one per env); 0: one per CPU of the
            cluster (divided by ``num_cpus_per_actor``).
        num_cpus_per_actor: CPUs Ray reserves for each actor.
        copy_observations: Return new arrays on every step (see the base class).
        restart_timeout_s: How long a step waits for Ray to restart a dead actor before the run
            stops with an error (e.g. when the cluster has no free CPU for it).
    """

    def __init__(
        self,
        env_factories: Sequence[Callable[[], Any]],
        cluster: RayCluster,
        num_actors: int = 0,
        num_cpus_per_actor: float = 1,
        copy_observations: bool = True,
        restart_timeout_s: float = 60.0,
    ) -> None:
        self._stack = ExitStack()
        self._actors: list[Any] = []
        self._ray = self._stack.enter_context(cluster.connected())
        self.restart_timeout_s = restart_timeout_s
        self._num_cpus_per_actor = num_cpus_per_actor
        self._reset_payloads: list[tuple[Optional[int], Optional[dict]]] = [(None, None)] * len(env_factories)
        self._last_results: list[Any] = [(None,)] * len(env_factories)  # of reset/step: observation first
        try:
            if num_actors <= 0:
                num_actors = max(1, int(self._ray.cluster_resources().get("CPU", 1) // num_cpus_per_actor))
            self._groups = env_groups(len(env_factories), min(num_actors, len(env_factories)))
            self.restarts = ActorRestarts(
                cluster.max_restarts, EnvWorkerError, self._describe_actor, "resets its envs (their episodes truncated)"
            )
            """Deaths of the actors so far (``restarts.total``)."""
            actor_class = self._ray.remote(RayEnvGroup).options(**cluster.actor_options(num_cpus=num_cpus_per_actor))
            self._actors = [
                actor_class.remote([env_factories[index] for index in group], group.start) for group in self._groups
            ]
            replies = self._gather("init", [actor.describe.remote() for actor in self._actors])
            descriptions: list[EnvDescription] = [description for reply in replies for description in reply]
            super().__init__(descriptions, copy_observations=copy_observations)
        except BaseException:
            self.close()
            raise

    @property
    def num_actors(self) -> int:
        """Ray actors holding the envs."""
        return len(self._groups)

    @property
    def actors(self) -> list[Any]:
        """The Ray actor handles, one per group of envs (tests kill them)."""
        return list(self._actors)

    def close(self) -> None:
        """Lets the actors close their envs, ends them and disconnects (a Ray started here stops); idempotent."""
        if self._actors:
            try:
                self._ray.get([actor.close.remote() for actor in self._actors], timeout=_CLOSE_TIMEOUT_S)
            except Exception:  # noqa: BLE001 - a dead or hanging actor is killed below all the same
                pass
            for actor in self._actors:
                self._ray.kill(actor, no_restart=True)
            self._actors = []
        self._stack.close()

    def _request_all(self, command: str, payloads: list[Any]) -> list[Any]:
        """Sends every actor the payloads of its envs, then collects every reply before raising any error."""
        if not self._actors:
            raise EnvWorkerError(f"RayVectorEnv.{command}() was called after close(); build a new vector env")
        requests = [
            actor.run.remote(command, [payloads[index] for index in group])
            for actor, group in zip(self._actors, self._groups, strict=True)
        ]
        results = [result for reply in self._gather(command, requests, payloads) for result in reply]
        if command == "reset":
            self._reset_payloads = list(payloads)
        if command in ("reset", "step"):
            self._last_results = results
        return results

    def _describe_actor(self, actor: int) -> str:
        group = self._groups[actor]
        return f"Env actor {actor} (envs {group.start}-{group.stop - 1}) of the RayVectorEnv"

    def _gather(self, command: str, requests: list[Any], payloads: Optional[list[Any]] = None) -> list[list[Any]]:
        """The results of every actor's request (a lost actor's recovered); raises the first error after all replies."""
        replies: list[list[Any]] = []
        errors: list[Exception] = []
        for actor, request in enumerate(requests):
            generation = self.restarts.generation(actor)
            try:
                reply = self._reply(actor, command, self._ray.get(request))
                if reply is None:  # a new instance (the actor died while idle) refused to step un-reset envs
                    reply = self._recover(actor, command, payloads)
            except self._ray.exceptions.RayActorError as error:
                if error.actor_init_failed:
                    errors.append(EnvWorkerError(actor_start_failure(self._describe_actor(actor), error)))
                    continue
                try:
                    self.restarts.failed(actor, generation, error)
                    reply = self._recover(actor, command, payloads)
                except Exception as lost:  # noqa: BLE001 - collected: every reply is in before the first error
                    errors.append(lost)
                    continue
            except Exception as error:  # noqa: BLE001 - an env's error, or too many restarts
                errors.append(error)
                continue
            replies.append(reply)
        if errors:
            raise errors[0]
        return replies

    def _reply(self, actor: int, command: str, reply: Reply) -> Optional[list[Any]]:
        """The results of ``reply``; None for a new instance that stepped nothing; raises an env's error."""
        status, payload, incarnation = reply
        self.restarts.delivered(actor, incarnation)  # counts a death that no failed call showed
        if status == "restarted":
            return None
        if status == "error":
            index, failed_command, kind, remote_traceback = payload
            raise env_error(kind, "RayVectorEnv", index, failed_command, f"the actor's traceback:\n{remote_traceback}")
        return payload

    def _recover(self, actor: int, command: str, payloads: Optional[list[Any]]) -> list[Any]:
        """The results of ``command`` for the envs of ``actor``, whose instance died: see the module docs."""
        group = self._groups[actor]
        if command not in ("reset", "step") or payloads is None:
            raise EnvWorkerError(
                f"{self._describe_actor(actor)} died during {command}(); its envs' state is lost and a {command}() "
                "is not run again on fresh envs, so the run stopped. Check the memory and logs of its node (ray logs)."
            )
        if command == "reset":
            return self._run_restarted(actor, "reset", [payloads[index] for index in group])
        resets = [(self._restart_seed(index), self._reset_payloads[index][1]) for index in group]
        restarted = self._run_restarted(actor, "reset", resets)
        return [self._cut_episode(index, result) for index, result in zip(group, restarted, strict=True)]

    def _run_restarted(self, actor: int, command: str, payloads: list[Any]) -> list[Any]:
        """Runs ``command`` on the restarted instance of ``actor``, waiting up to ``restart_timeout_s`` for it."""
        deadline = time.monotonic() + self.restart_timeout_s
        while True:
            generation = self.restarts.generation(actor)
            remaining = deadline - time.monotonic()
            try:
                reply = self._reply(
                    actor,
                    command,
                    self._ray.get(self._actors[actor].run.remote(command, payloads), timeout=max(remaining, 0.0)),
                )
            except self._ray.exceptions.GetTimeoutError:
                raise EnvWorkerError(
                    f"{self._describe_actor(actor)} died and Ray did not restart it within "
                    f"restart_timeout_s={self.restart_timeout_s:g} s; it needs {self._num_cpus_per_actor:g} CPU. Check "
                    "that the cluster has a free CPU for it (ray status) and the logs of its node (ray logs)."
                ) from None
            except self._ray.exceptions.RayActorError as error:
                self.restarts.failed(actor, generation, error)  # died again: raises past runner.max_restarts
                time.sleep(RESTART_POLL_SECONDS)
                continue
            if reply is not None:
                return reply

    def _restart_seed(self, index: int) -> Optional[int]:
        """The reset seed of env ``index`` after a restart: derived from its last reset seed and the restart count."""
        seed = self._reset_payloads[index][0]
        if seed is None:
            return None
        return int(np.random.SeedSequence([seed, self.restarts.total]).generate_state(1)[0])

    def _cut_episode(self, index: int, reset_result: Any) -> EnvStepResult:
        """The step result of env ``index`` whose episode the actor's death cut short (see the module docs)."""
        observation, reset_info, actor_id = reset_result
        info = {**reset_info, "final_observation": self._last_results[index][0], "final_info": dict(LOST_ENV_INFO)}
        return observation, 0.0, False, True, info, actor_id
