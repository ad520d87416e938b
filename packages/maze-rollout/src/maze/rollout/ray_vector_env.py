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
actor's traceback, as the same error kinds as the other vector envs. The actors are not
restarted: the state of an env whose actor died is gone and a synchronous vector env cannot
re-run its step, so a dead actor stops the run with one
:class:`~maze.env.errors.EnvWorkerError` naming its envs. :meth:`RayVectorEnv.close` ends
every actor (and a Ray the vector env started).
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Sequence
from contextlib import ExitStack
from typing import Any, Callable, Optional

from maze.env.errors import EnvWorkerError
from maze.env.vector.env_ops import ENV_COMMANDS, EnvDescription, describe_env, env_error, env_error_kind
from maze.env.vector.vector_env import MessagingVectorEnv
from maze.rollout.ray_cluster import RayCluster, actor_start_failure

__all__ = ["RayEnvGroup", "RayVectorEnv", "env_groups"]

_CLOSE_TIMEOUT_S = 10.0
"""How long :meth:`RayVectorEnv.close` waits for the actors to close their envs before killing them."""

Reply = tuple[str, Any]
"""``("ok", results)`` or ``("error", (env index, command, error kind, traceback))``."""


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
        self.envs: list[Any] = []
        self.init_error: Optional[Reply] = None
        try:
            for factory in env_factories:
                self.envs.append(factory())
        except Exception as error:
            self.init_error = self._error(len(self.envs), "init", error)

    def describe(self) -> Reply:
        """The spaces, agent counts and first actor of every env (or the error that building one raised)."""
        return self.init_error or ("ok", [describe_env(env) for env in self.envs])

    def run(self, command: str, payloads: list[Any]) -> Reply:
        """``command`` (step, reset or call) on every env with its payload; stops at the first env that raises."""
        results = []
        for offset, (env, payload) in enumerate(zip(self.envs, payloads, strict=True)):
            try:
                results.append(ENV_COMMANDS[command](env, payload))
            except Exception as error:
                return self._error(offset, command, error)
        return "ok", results

    def close(self) -> None:
        """Closes the envs."""
        for env in self.envs:
            env.close()

    def pid(self) -> int:
        """The process id of the actor (tests kill it)."""
        return os.getpid()

    def _error(self, offset: int, command: str, error: Exception) -> Reply:
        return "error", (self.first_index + offset, command, env_error_kind(error), traceback.format_exc())


class RayVectorEnv(MessagingVectorEnv):
    """Steps its envs in Ray actors, each holding a contiguous group of them (see the module docs).

    Args:
        env_factories: One callable per env returning a structured env (pickled once per actor
            with Ray's cloudpickle: lambdas and closures work).
        cluster: Where and how to run on Ray (``runner.ray_address``, ``ray_init``, ``runtime_env``).
        num_actors: Ray actors holding the envs (at most one per env); 0: one per CPU of the
            cluster (divided by ``num_cpus_per_actor``).
        num_cpus_per_actor: CPUs Ray reserves for each actor.
        copy_observations: Return new arrays on every step (see the base class).
    """

    def __init__(
        self,
        env_factories: Sequence[Callable[[], Any]],
        cluster: RayCluster,
        num_actors: int = 0,
        num_cpus_per_actor: float = 1,
        copy_observations: bool = True,
    ) -> None:
        self._stack = ExitStack()
        self._actors: list[Any] = []
        self._ray = self._stack.enter_context(cluster.connected())
        try:
            if num_actors <= 0:
                num_actors = max(1, int(self._ray.cluster_resources().get("CPU", 1) // num_cpus_per_actor))
            self._groups = env_groups(len(env_factories), min(num_actors, len(env_factories)))
            actor_class = self._ray.remote(RayEnvGroup).options(
                **cluster.actor_options(num_cpus=num_cpus_per_actor, max_restarts=0)
            )
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
        return [result for reply in self._gather(command, requests) for result in reply]

    def _gather(self, command: str, requests: list[Any]) -> list[list[Any]]:
        """The results of every actor's request; raises the first error after all replies are in."""
        exceptions = self._ray.exceptions
        replies: list[list[Any]] = []
        errors: list[Exception] = []
        for actor, request in enumerate(requests):
            group = self._groups[actor]
            what = f"Env actor {actor} (envs {group.start}-{group.stop - 1}) of the RayVectorEnv"
            try:
                status, payload = self._ray.get(request)
            except exceptions.RayActorError as error:
                if error.actor_init_failed:
                    errors.append(EnvWorkerError(actor_start_failure(what, error)))
                else:
                    errors.append(
                        EnvWorkerError(
                            f"{what} died during {command}() ({type(error).__name__}); its envs' state is lost, so "
                            "the run stopped. Check the memory and logs of its node (ray logs) and its env."
                        )
                    )
                continue
            if status == "error":
                index, failed_command, kind, remote_traceback = payload
                errors.append(
                    env_error(
                        kind, "RayVectorEnv", index, failed_command, f"the actor's traceback:\n{remote_traceback}"
                    )
                )
                continue
            replies.append(payload)
        if errors:
            raise errors[0]
        return replies
