"""AgentDeployment: a policy and its wrapper stack, driven by an environment that runs elsewhere."""

from __future__ import annotations

import enum
import math
import numbers
import os
import sys
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Optional, Union

import numpy as np
from maze.deploy.action_candidates import ActionCandidates, MazeActionCandidates
from maze.deploy.errors import (
    ConcurrentUseError,
    DeploymentOrderError,
    InvalidRewardError,
    ObservationOutsideSpaceError,
    WrapperStackError,
)
from maze.deploy.observation_check import ObservationCheck
from maze.deploy.onnx_run_dir import OnnxRunDir
from maze.deploy.policy_executor import PolicyExecutor, build_policy
from maze.deploy.run_dir import TrainingRunDir
from maze.deploy.simulation_factory import copied_stack_factory, simulation_factory_of
from maze.deploy.stack import ActionPath, NormalizationStatistics, build_deployment_stack
from maze.env.core.actor import ActorID
from maze.env.core.events import EventRecord
from maze.env.errors import ConfigurationError
from maze.env.log_stats.global_state import increment_log_step
from maze.env.utils.factory import CollectionOfConfigType, ConfigType, to_plain_config
from maze.env.utils.trust import modules_named_in, trusted_targets_only

if TYPE_CHECKING:
    from maze.deploy.recommendation import Recommendation

__all__ = ["AgentDeployment"]

_STATS_LOCK = threading.Lock()
"""Serializes statistics writes of all deployments: the registered writers are process-wide."""


class _Phase(enum.Enum):
    READY = "ready"  # the next act starts an episode
    ACTING = "acting"  # an episode runs; an action is pending
    CLOSED = "closed"  # close() ended the episode
    FAILED = "failed"  # an act or close failed mid-step


class AgentDeployment:
    """Runs a policy with its full wrapper stack for an environment that the caller steps.

    In production the service owns the environment and asks the agent for an action when
    it is ready (inverted control)::

        agent = AgentDeployment(policy=policy, env=GymMazeEnv("CartPole-v1"))
        maze_state, info = external_env.reset()
        reward, done = 0.0, False
        while not done:
            maze_action = agent.act(maze_state, reward, done, info)
            maze_state, reward, terminated, truncated, info = external_env.step(maze_action)
            done = terminated or truncated
        agent.close(maze_state, reward, done, info)   # ends the episode, writes its statistics
        agent.reset()                                 # ready for the next episode

    The env's core env is replaced by an :class:`~maze.deploy.external_core_env.ExternalCoreEnv`
    that returns the caller's MazeStates, so every wrapper (observation normalization,
    frame stacking, statistics, monitoring) works as in training. ``act(state_t)`` first
    completes the previous step (the stack's ``step(action_{t-1})`` returns ``state_t``
    converted into the observation), then asks the policy and returns ``action_t``
    converted along the stack's action path (each ActionWrapper's ``action()``, then the
    MazeEnv's action conversion) — the MazeAction for the external env. All of it runs
    in the calling thread: there are no threads to hand over to, block on or leave behind.

    Episodes: the first ``act`` of an episode starts it (``reset()`` of the stack with the
    given state; its ``reward`` is ignored). ``close`` passes the final state through the
    stack — marked ``truncated`` when the caller did not say the episode ended — and
    writes the episode's statistics. After ``close``, call :meth:`reset` before the next
    episode's first ``act``. If a wrapper ends the episode on its own (e.g. a
    TimeLimitWrapper) while the caller goes on, the stack starts a new episode at the
    current state.

    Threads: one deployment serves one episode stream; a second thread calling into a
    deployment while another is inside raises :class:`~maze.deploy.errors.ConcurrentUseError`.
    Give every thread (session) its own deployment; statistics writes of all deployments
    are serialized, since the registered stats writers are process-wide.

    Args:
        policy: A Policy or its config (``_target_``; targets that take ``action_spaces_dict``
            and lack it get the stack's).
        env: A MazeEnv (optionally already wrapped) or its config.
        wrappers: Wrappers config (``{wrapper class: kwargs}``) applied around ``env``.
        num_candidates: None: ``act`` returns one MazeAction; an int ``k``: the ``k`` most
            likely actions as :class:`~maze.deploy.action_candidates.MazeActionCandidates`.
        deterministic: Take the policy's most likely action instead of sampling.
        normalization_statistics: Statistics of the stack's ObservationNormalizationWrapper
            (a mapping, an ``.npz`` file, or a directory holding the wrapper's dump file).
        logging_prefix: Prefix of the statistics when the stack has no LogStatsWrapper and
            the deployment adds one (outermost).
        cpu_threads: Intra-op threads of torch when the process has loaded it (a torch
            policy). torch's default, one per core, makes the small models of most agents
            slower, most of all on a busy host (about 5x per ``act`` measured), so the
            default is 1; raise it for large models on an idle host. The setting is
            process-wide; None keeps the process's setting. Without torch nothing changes.
        simulation_env_factory: Builds the simulation env of :meth:`recommend` (a
            :class:`~maze.env.core.mixins.SimulatedEnvMixin` with the deployment's wrapper
            stack; cloudpickled into worker processes). None: built from ``env`` and
            ``wrappers`` when they are configs (an env instance is deep-copied before the
            deployment takes it over), with the deployment's normalization statistics.

    Raises:
        ConfigurationError: For bad configs, an env already used by another deployment,
            missing normalization statistics, or ``cpu_threads`` that is no positive integer.
    """

    def __init__(
        self,
        policy: ConfigType,
        env: ConfigType,
        wrappers: Optional[CollectionOfConfigType] = None,
        num_candidates: Optional[int] = None,
        deterministic: bool = False,
        normalization_statistics: Optional[NormalizationStatistics] = None,
        logging_prefix: Optional[str] = "deployment",
        cpu_threads: Optional[int] = 1,
        simulation_env_factory: Optional[Callable[[], Any]] = None,
    ) -> None:
        _check_cpu_threads(cpu_threads)
        self._simulation_env_factory = simulation_env_factory or simulation_factory_of(
            env, wrappers, normalization_statistics
        )
        self._recommender: Any = None
        stack = build_deployment_stack(env, wrappers, normalization_statistics, logging_prefix)
        self.env = stack.env
        self.external_env = stack.external_env
        self.policy = build_policy(policy, stack.env)
        _limit_torch_threads(cpu_threads)  # after the policy: a torch policy has loaded torch by now
        self.executor = PolicyExecutor(self.policy, num_candidates, deterministic)
        self._stats = stack.stats
        self._stack_text = stack.text
        self._action_path = ActionPath(stack.layers, stack.text)
        self._observation_check = ObservationCheck(stack.env.observation_spaces_dict)
        self._lock = threading.Lock()
        self._phase = _Phase.READY
        self._pending: Any = None  # (policy decision, what act returned) of the last act
        self._failure = ""
        self._seed: Optional[int] = None

    @classmethod
    def from_run_dir(
        cls,
        run_dir: Union[str, os.PathLike],
        env: Optional[ConfigType] = None,
        wrappers: Optional[CollectionOfConfigType] = None,
        device: str = "cpu",
        trusted_modules: Iterable[str] = (),
        backend: str = "torch",
        **kwargs: Any,
    ) -> AgentDeployment:
        """Deploys the policy of a training run directory, with torch or (torch-free) with onnxruntime.

        Loads ``model_config.yaml``, ``spaces_config.yaml`` and ``state_dict.pt`` into a
        ``SerializedTorchPolicy``, gives the stack's ObservationNormalizationWrapper the
        run's ``statistics.npz`` (if the run has one) and checks that the stack's spaces
        are those the policy was trained on. With ``backend="onnx"`` the same comes from the
        run's ONNX export (``python -m maze.perception.export <run dir>``): an
        :class:`~maze.deploy.onnx_policy.OnnxPolicy` on the ONNX files, and the env, wrappers
        and statistics from its ``metadata.json``; ``run_dir`` may then also be the export
        directory alone.

        Args:
            run_dir: The training run directory.
            env: The env (instance or config); None: the ``env`` and ``wrappers`` of the
                run's ``.hydra/config.yaml``.
            wrappers: The wrappers config (used when ``env`` is given).
            device: Where the torch policy runs.
            trusted_modules: Modules besides maze's own whose classes the run's configs may
                name. A run directory may come from elsewhere, so its ``model_config.yaml`` and
                ``.hydra/config.yaml`` may only name maze's classes (see
                :mod:`maze.env.utils.trust`); what ``env`` and ``wrappers`` name is trusted.
            backend: ``"torch"`` (the ``torch`` extra) or ``"onnx"`` (the ``onnx`` extra, no torch).
            **kwargs: Further arguments of :class:`AgentDeployment`.

        Raises:
            ConfigurationError: Missing run files, export or extra, spaces that differ, an
                unknown backend, or run configs naming untrusted code (nothing of it is imported).
        """
        run = _run_dir(run_dir, backend)
        trusted = [
            *trusted_modules,
            *modules_named_in(to_plain_config(env)),
            *modules_named_in(to_plain_config(wrappers)),
        ]
        source = f"the run directory {str(run.directory)!r}"
        if env is None:
            env, wrappers = run.env_and_wrappers()
            source = repr(str(run.config_file))
        if run.normalization_statistics is not None:
            kwargs.setdefault("normalization_statistics", run.normalization_statistics)
        with trusted_targets_only(source, trusted):
            deployment = cls(policy=run.policy_config(device, trusted), env=env, wrappers=wrappers, **kwargs)
        run.check_spaces(deployment.policy, deployment.env)
        return deployment

    # --- the episode -----------------------------------------------------------------------

    def act(
        self,
        maze_state: Any,
        reward: Any = 0.0,
        done: bool = False,
        info: Optional[dict] = None,
        events: Optional[Iterable[EventRecord]] = None,
        *,
        terminated: Optional[bool] = None,
        truncated: Optional[bool] = None,
        actor_id: Optional[ActorID] = None,
        executed_candidate: Optional[int] = None,
        num_candidates: Optional[int] = None,
    ) -> Union[Any, MazeActionCandidates]:
        """Returns the MazeAction to execute in ``maze_state``.

        Args:
            maze_state: The external env's current MazeState (for GymMazeEnv: the gymnasium observation).
            reward: The reward of the step that led here (ignored on an episode's first act).
            done: Whether the episode ended (must be False: end episodes with :meth:`close`).
            info: The external env's info dict.
            events: Events the external env fired in the step that led here (they enter the statistics).
            terminated: Gymnasium-style flag; ``terminated``/``truncated`` take precedence over ``done``.
            truncated: Gymnasium-style flag.
            actor_id: The actor that acts now (structured envs; None: ``ActorID(0, 0)``).
            executed_candidate: Which candidate of the previous act the caller executed (default 0).
            num_candidates: Ask for this many candidates now (default: the deployment's ``num_candidates``).

        Returns:
            The MazeAction (for GymMazeEnv: the gymnasium action), or MazeActionCandidates.

        Raises:
            DeploymentOrderError: After ``close`` without ``reset``, after a failed call, or for a final state.
            ConcurrentUseError: Another thread is inside this deployment.
            InvalidRewardError: ``reward`` is no finite number (the deployment is unchanged: call again).
            ObservationOutsideSpaceError: The stack's observation of ``maze_state`` lies outside its space.
            PolicyExecutionError: The policy raised.
            WrapperStackError: The stack failed on ``maze_state`` or changed actions inside ``step()``.
        """
        if not self._lock.acquire(blocking=False):
            raise self._busy("act")
        try:
            phase = self._phase
            if phase is not _Phase.ACTING and phase is not _Phase.READY:
                raise self._order_error("act")
            if done or terminated or truncated:
                raise DeploymentOrderError(
                    "act() got a final state (done/terminated/truncated): there is no action to take in it. End "
                    "the episode with close(maze_state, reward, done, info) instead"
                )
            pending = self._executed(executed_candidate)
            if pending is not None:  # the reward of an episode's first act is ignored
                _check_reward(reward, "act")
            self.external_env.supply(maze_state, reward, False, False, {} if info is None else info, actor_id, events)
            try:
                observation = self._start_episode() if pending is None else self._step(pending, restart=True)
                actor = self.env.actor_id()
                problem = self._observation_check.problem(observation, actor[0])
                if problem is not None:
                    raise self._outside_space(problem, actor)
                decision = self.executor.compute_action(observation, maze_state, self.env, actor, num_candidates)
                result = self._action_path.convert(decision)
            except BaseException as error:
                self._fail(error)
                raise
            self._pending = (decision, result)
            return result
        finally:
            self._lock.release()

    def close(
        self,
        maze_state: Any,
        reward: Any = 0.0,
        done: bool = False,
        info: Optional[dict] = None,
        events: Optional[Iterable[EventRecord]] = None,
        *,
        terminated: Optional[bool] = None,
        truncated: Optional[bool] = None,
        executed_candidate: Optional[int] = None,
    ) -> None:
        """Ends the episode with its final state and writes the episode's statistics.

        The final step passes through the whole stack (statistics, trajectory recording
        and the like see the episode end). When neither ``done`` nor ``terminated`` nor
        ``truncated`` is set, the caller cut the episode short: it ends as truncated.
        The statistics go to the registered stats writers at a new log step.

        Args:
            maze_state: The final MazeState.
            reward: The reward of the last step.
            done: Whether the episode ended in ``maze_state``.
            info: The external env's info dict.
            events: Events the external env fired in the last step.
            terminated: Gymnasium-style flag (takes precedence over ``done``).
            truncated: Gymnasium-style flag.
            executed_candidate: Which candidate of the previous act the caller executed (default 0).

        Raises:
            DeploymentOrderError: Before the episode's first act, twice, or after a failed call.
            ConcurrentUseError: Another thread is inside this deployment.
            InvalidRewardError: ``reward`` is no finite number (the deployment is unchanged: call again).
            WrapperStackError: The stack failed on ``maze_state`` or changed actions inside ``step()``.
        """
        if not self._lock.acquire(blocking=False):
            raise self._busy("close")
        try:
            if self._phase is not _Phase.ACTING:
                raise self._order_error("close")
            if terminated is None and truncated is None:
                terminated, truncated = bool(done), False
            terminated, truncated = bool(terminated), bool(truncated) or not terminated
            pending = self._executed(executed_candidate)
            _check_reward(reward, "close")
            self.external_env.supply(
                maze_state, reward, terminated, truncated, {} if info is None else info, None, events
            )
            try:
                self._step(pending, restart=False)
                with _STATS_LOCK:
                    self._stats.finish_episode_stats()
                    increment_log_step()
                    self._stats.write_epoch_stats()
            except BaseException as error:
                self._fail(error)
                raise
            self._phase, self._pending = _Phase.CLOSED, None
        finally:
            self._lock.release()

    def reset(self, seed: Optional[int] = None) -> None:
        """Makes the deployment ready for a new episode (whose first ``act`` starts it).

        Needed after :meth:`close` and after a failed call; an unfinished episode is
        abandoned (its statistics are written with the next ``close``).

        Args:
            seed: Seeds the policy and the stack's reset at the start of the next episode.

        Raises:
            ConcurrentUseError: Another thread is inside this deployment.
        """
        if not self._lock.acquire(blocking=False):
            raise self._busy("reset")
        try:
            self._phase, self._pending, self._failure, self._seed = _Phase.READY, None, "", seed
        finally:
            self._lock.release()

    # --- recommendations -------------------------------------------------------------------

    def recommend(
        self,
        maze_state: Any,
        *,
        k: int = 3,
        horizon: int = 20,
        n_rollouts: int = 4,
        seed: int = 0,
        n_workers: int = 0,
        time_budget_s: Optional[float] = None,
        actor_id: Optional[ActorID] = None,
    ) -> Recommendation:
        """The policy's ``k`` most likely legal actions in ``maze_state``, each with a simulated forecast.

        For every candidate, ``n_rollouts`` rollouts of a simulation env set to ``maze_state``
        take the candidate first and then the policy's most likely actions for up to
        ``horizon`` env steps (fewer when the episode ends); rollout ``i`` of every candidate
        is seeded with :func:`~maze.deploy.recommendation.rollout_seed` ``(seed, i)``, so the
        result is the same for a seed whether the rollouts run in this process or in
        ``n_workers`` worker processes. The live episode is not touched (no ``act`` is
        needed before, none is affected after). See :mod:`maze.deploy.recommender`.

        Args:
            maze_state: The MazeState to recommend in (as ``act`` takes it).
            k: How many candidates (fewer when the policy's masks allow fewer actions).
            horizon: Env steps per rollout, the candidate's included.
            n_rollouts: Seeded rollouts per candidate.
            seed: Seed the rollout seeds are derived from.
            n_workers: 0: rollouts run in this process; n > 0: in n worker processes (kept
                between calls; :meth:`close_recommender` stops them).
            time_budget_s: Wall-clock budget; rollouts unfinished by then are not counted.
            actor_id: The actor to recommend for (structured envs; None: the env's current actor).

        Returns:
            The :class:`~maze.deploy.recommendation.Recommendation`, most likely candidate first.

        Raises:
            SimulationUnsupportedError: The simulation env lacks the SimulatedEnvMixin.
            ConfigurationError: Bad arguments, or no simulation env can be built.
            ConcurrentUseError: Another thread is inside this deployment.
            PolicyExecutionError: The policy raised or cannot rank candidates.
        """
        from maze.deploy.recommender import Recommender

        if not self._lock.acquire(blocking=False):
            raise self._busy("recommend")
        try:
            if self._recommender is None:
                factory = self._simulation_env_factory or copied_stack_factory(self.env)
                self._recommender = Recommender(self.policy, factory)
            return self._recommender.recommend(
                maze_state,
                k=k,
                horizon=horizon,
                n_rollouts=n_rollouts,
                seed=seed,
                n_workers=n_workers,
                time_budget_s=time_budget_s,
                actor_id=actor_id,
            )
        finally:
            self._lock.release()

    def close_recommender(self) -> None:
        """Stops the worker processes of :meth:`recommend` (if any); a later call starts them again."""
        recommender, self._recommender = self._recommender, None
        if recommender is not None:
            recommender.close()

    # --- helpers ---------------------------------------------------------------------------

    def _start_episode(self) -> Any:
        seed, self._seed = self._seed, None
        if seed is not None:
            self.executor.seed(seed)
        self.executor.reset()
        try:
            observation, _ = self.env.reset(seed=seed)
        except Exception as error:
            raise self._stack_error(error, "reset") from error
        self._phase = _Phase.ACTING
        return observation

    def _step(self, pending: tuple[Any, Any], restart: bool) -> Any:
        """Steps the stack with the executed action; on a stack-made episode end, restarts it (if ``restart``)."""
        action, maze_action = pending
        self.external_env.expect(maze_action)
        try:
            observation, _, terminated, truncated, _ = self.env.step(action)
            if restart and (terminated or truncated):  # a wrapper ended the episode; the caller's goes on
                self.executor.reset()
                observation, _ = self.env.reset()
        except Exception as error:
            raise self._stack_error(error, "step") from error
        return observation

    def _executed(self, executed_candidate: Optional[int]) -> Optional[tuple[Any, Any]]:
        """The (action, MazeAction) the caller executed after the last act (None: the episode starts now)."""
        if self._pending is None:
            if executed_candidate is not None:
                raise DeploymentOrderError(
                    f"executed_candidate={executed_candidate!r} refers to the previous act, but this act starts "
                    "the episode; leave executed_candidate out"
                )
            return None
        decision, result = self._pending
        if not isinstance(decision, ActionCandidates):
            if executed_candidate is not None:
                raise DeploymentOrderError(
                    f"executed_candidate={executed_candidate!r}, but the previous act returned a single MazeAction, "
                    "not candidates; leave executed_candidate out"
                )
            return decision, result
        index = 0 if executed_candidate is None else executed_candidate
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(decision):
            raise DeploymentOrderError(
                f"executed_candidate={executed_candidate!r}, but the previous act returned {len(decision)} "
                f"candidates; pass the index (0..{len(decision) - 1}) of the one the external env executed"
            )
        return decision.actions[index], result.maze_actions[index]

    def _stack_error(self, error: Exception, method: str) -> WrapperStackError:
        if isinstance(error, WrapperStackError):
            return WrapperStackError(f"{error}. Wrapper stack: {self._stack_text}")
        return WrapperStackError(
            f"the wrapper stack {self._stack_text} raised {type(error).__name__}: {error} in {method}() on the "
            "maze_state handed in. Check that the maze_state fits the env the deployment was built for (the full "
            "traceback is chained below)"
        )

    def _outside_space(self, problem: str, actor: ActorID) -> ObservationOutsideSpaceError:
        return ObservationOutsideSpaceError(
            f"the observation the wrapper stack {self._stack_text} made from the maze_state: {problem} (actor "
            f"{tuple(actor)}). The maze_state does not fit the env the deployment was built for: check the env, the "
            "units of the state and the normalization statistics"
        )

    def _fail(self, error: BaseException) -> None:
        self._phase, self._pending = _Phase.FAILED, None
        self._failure = f"{type(error).__name__}: {error}"

    def _order_error(self, method: str) -> DeploymentOrderError:
        if self._phase is _Phase.CLOSED:
            problem = "the episode was closed"
        elif self._phase is _Phase.FAILED:
            problem = f"an earlier call of this episode failed ({self._failure}), so the episode cannot go on"
        else:
            return DeploymentOrderError(
                "close() before the episode's first act(): there is nothing to close. Call act(...) with the "
                "episode's first state first"
            )
        return DeploymentOrderError(f"{method}() after {problem}. Call reset() to start the next episode")

    def _busy(self, method: str) -> ConcurrentUseError:
        return ConcurrentUseError(
            f"{method}() was called while another thread is inside this AgentDeployment. A deployment serves one "
            "episode stream, step by step: give each thread (session) its own AgentDeployment"
        )


def _run_dir(run_dir: Union[str, os.PathLike], backend: str) -> Union[TrainingRunDir, OnnxRunDir]:
    """The run directory reader of ``backend``.

    Raises:
        ConfigurationError: For a backend other than ``"torch"`` and ``"onnx"``.
    """
    if backend == "torch":
        return TrainingRunDir(run_dir)
    if backend == "onnx":
        return OnnxRunDir(run_dir)
    raise ConfigurationError(f"AgentDeployment.from_run_dir got backend={backend!r}; use 'torch' or 'onnx'")


def _check_reward(reward: Any, method: str) -> None:
    """Raises :class:`InvalidRewardError` unless ``reward`` is a finite real number (or an array of them)."""
    if isinstance(reward, numbers.Real):  # plain and numpy scalars: math.isfinite is about 20x faster than numpy's
        numeric = True
        if math.isfinite(reward):
            return
    else:
        numeric = isinstance(reward, np.ndarray) and reward.dtype.kind in "biuf"
        if numeric and np.isfinite(reward).all():
            return
    problem = "is not finite" if numeric else "is not a number"
    raise InvalidRewardError(
        f"{method}() got the reward {reward!r} ({type(reward).__name__}), which {problem}. Rewards enter the episode "
        "statistics and must be finite numbers (int, float, numpy numbers): pass the external env's numeric reward "
        "of the step (e.g. float(...) of a parsed value) and fix NaN or inf at its source"
    )


def _check_cpu_threads(threads: Optional[int]) -> None:
    """Raises :class:`ConfigurationError` unless ``threads`` is None or a positive integer."""
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
        raise ConfigurationError(
            f"AgentDeployment got cpu_threads={threads!r}; use a positive integer (1 suits small policies) or None "
            "to keep the process's torch thread setting"
        )


def _limit_torch_threads(threads: Optional[int]) -> None:
    """Sets torch's intra-op threads to ``threads`` if this process has loaded torch (None: no change)."""
    torch = sys.modules.get("torch")
    if threads is not None and torch is not None:
        torch.set_num_threads(threads)
