"""StackPolicy: one action at a time for observations of the env without its wrappers (no episode is stepped)."""

from __future__ import annotations

from typing import Any, Optional

from maze.deploy.errors import ObservationOutsideSpaceError, WrapperStackError
from maze.deploy.observation_check import ObservationCheck
from maze.deploy.policy_executor import PolicyExecutor, build_policy
from maze.deploy.stack import ActionPath, NormalizationStatistics, build_deployment_stack
from maze.env.core.actor import ActorID
from maze.env.utils.factory import CollectionOfConfigType, ConfigType
from maze.env.wrappers.wrapper import ObservationWrapper

__all__ = ["StackPolicy"]

_FROM_THE_ENV = "Check that it comes from the env the policy was trained on"


class StackPolicy:
    """A policy behind its wrapper stack, asked for single actions by code that holds the bare env.

    A policy sees observations made by the training wrappers (normalized, flattened, ...),
    while the code around it holds the env without them. This class converts in both
    directions the way the stack does, without stepping an episode:

    * :meth:`compute_action` takes an observation of the MazeEnv (what ``GymMazeEnv.reset()``
      and ``step()`` return), applies every ObservationWrapper's ``observation()``
      (innermost first, normalization with the run's statistics) and returns the action
      for the MazeEnv (every ActionWrapper's ``action()`` applied).
    * :meth:`compute_maze_action` takes a MazeState (what a gymnasium env returns, or a
      CoreEnv's state), converts it with the MazeEnv first and returns the MazeAction:
      for the first state of an episode the same as ``AgentDeployment.act``.
    * ``compute_action(..., preprocessed=True)`` passes the policy's own input through
      unchanged (also a batch ``[B, *shape]`` per key) and returns the policy's action.

    Stacks with an ObservationWrapper that keeps state between steps (one that overrides
    ``reset``, such as ObservationStackWrapper) need the whole episode: a single
    observation is refused, use :class:`~maze.deploy.agent_deployment.AgentDeployment`,
    which steps the episode through the stack.

    Args:
        policy: A Policy or its config.
        env: A MazeEnv (optionally already wrapped, e.g. by a training run's env factory) or its config.
        wrappers: Wrappers config applied around ``env``.
        normalization_statistics: Statistics of the stack's ObservationNormalizationWrapper
            (a mapping, an ``.npz`` file or a run directory); not needed when ``env`` has them.

    Raises:
        ConfigurationError: For bad configs or missing normalization statistics.
    """

    def __init__(
        self,
        policy: ConfigType,
        env: ConfigType,
        wrappers: Optional[CollectionOfConfigType] = None,
        normalization_statistics: Optional[NormalizationStatistics] = None,
    ) -> None:
        stack = build_deployment_stack(env, wrappers, normalization_statistics, logging_prefix=None)
        self.env = stack.env
        self.policy = build_policy(policy, stack.env)
        self._executor = PolicyExecutor(self.policy)
        self._external_env = stack.external_env
        self._maze_env = stack.layers[-1]
        self._stack_text = stack.text
        self._action_path = ActionPath(stack.layers, stack.text)
        self._wrappers = [layer for layer in reversed(stack.layers[:-1]) if issubclass(type(layer), ObservationWrapper)]
        self._stateful = [type(layer).__name__ for layer in self._wrappers if _keeps_state(layer)]
        self._env_check = ObservationCheck(self._maze_env.observation_spaces_dict)
        self._policy_check = ObservationCheck(stack.env.observation_spaces_dict)
        self._first_key = next(iter(self._maze_env.observation_spaces_dict))

    def compute_action(
        self,
        observation: Any,
        actor_id: Optional[ActorID] = None,
        deterministic: bool = False,
        preprocessed: bool = False,
    ) -> Any:
        """The action for an observation of the MazeEnv, or of the policy (``preprocessed``).

        Args:
            observation: What the MazeEnv returns (e.g. ``{'observation': array}`` of GymMazeEnv),
                or with ``preprocessed`` the policy's input (the observation after all wrappers).
            actor_id: The acting actor of structured envs (None: the first sub-step's agent 0).
            deterministic: Take the most likely action instead of sampling.
            preprocessed: ``observation`` went through the wrapper stack already (the policy's input).

        Returns:
            An action of the MazeEnv's action space (e.g. ``{'action': 1}``); with ``preprocessed``
            the policy's action (of the stack's action space).

        Raises:
            ObservationOutsideSpaceError: ``observation`` is no observation of the MazeEnv.
            WrapperStackError: The stack keeps state between steps, or a wrapper failed.
            PolicyExecutionError: The policy raised.
        """
        actor = self._actor(actor_id)
        if preprocessed:
            return self._executor.compute_action(observation, None, self.env, actor, deterministic=deterministic)
        problem = self._env_check.problem(observation, actor[0])
        if problem is not None:
            raise ObservationOutsideSpaceError(
                f"compute_action got an observation that is no observation of the MazeEnv {self._stack_text}: "
                f"{problem} (actor {tuple(actor)}). Pass what the MazeEnv's reset()/step() return; for a MazeState "
                "(e.g. a gymnasium env's observation) use compute_maze_action, and for the policy's input (already "
                "through the wrappers, e.g. normalized) pass preprocessed=True"
            )
        self._external_env.show(None, actor)
        decision = self._decide(observation, None, actor, deterministic)
        try:
            return self._action_path.env_action(decision)
        except Exception as error:
            raise self._stack_error(
                error,
                "an ActionWrapper's action()",
                f"the policy's action {decision!r}",
                f"The policy's actions must lie in the stack's action space {self.env.action_space}",
            ) from error

    def compute_maze_action(
        self, maze_state: Any, actor_id: Optional[ActorID] = None, deterministic: bool = False
    ) -> Any:
        """The MazeAction for a MazeState (for a GymMazeEnv: the gymnasium action for a gymnasium observation).

        Args:
            maze_state: The env's MazeState (a gymnasium env's observation; ``env.get_maze_state()``
                of a MazeEnv).
            actor_id: The acting actor of structured envs (None: the first sub-step's agent 0).
            deterministic: Take the most likely action instead of sampling.

        Raises:
            ObservationOutsideSpaceError: The MazeEnv's or the stack's observation of ``maze_state`` lies outside
                its space.
            WrapperStackError: The stack keeps state between steps, or it failed on ``maze_state``.
            PolicyExecutionError: The policy raised.
        """
        actor = self._actor(actor_id)
        self._external_env.show(maze_state, actor)
        try:
            observation = self._maze_env.get_observation_and_action_dicts(maze_state, None, True)[0][actor[0]]
        except Exception as error:
            raise self._stack_error(
                error, "the MazeEnv's observation conversion", "the maze_state handed in", _FROM_THE_ENV
            ) from error
        problem = self._env_check.problem(observation, actor[0])
        if problem is not None:
            raise ObservationOutsideSpaceError(
                f"the observation the MazeEnv of {self._stack_text} made of the maze_state: {problem} (actor "
                f"{tuple(actor)}). Pass the env's MazeState (a gymnasium env's observation, env.get_maze_state() of a "
                "MazeEnv); for what a MazeEnv's reset()/step() return use compute_action"
            )
        decision = self._decide(observation, maze_state, actor, deterministic)
        return self._action_path.convert(decision)

    def _decide(self, observation: Any, maze_state: Any, actor: ActorID, deterministic: bool) -> Any:
        """The policy's action for a MazeEnv observation, after the stack's observation wrappers."""
        if self._stateful:
            raise WrapperStackError(
                f"the wrapper stack {self._stack_text} has {self._stateful}, which keep state between the steps of "
                "an episode, so a single observation has no well-defined policy input. Use AgentDeployment (it "
                "steps the episode through the stack), or pass the policy's input with preprocessed=True"
            )
        for wrapper in self._wrappers:
            try:
                observation = wrapper.observation(observation)
            except Exception as error:
                raise self._stack_error(
                    error, f"{type(wrapper).__name__}.observation()", "the observation handed in", _FROM_THE_ENV
                ) from error
        problem = self._policy_check.problem(observation, actor[0])
        if problem is not None:
            raise ObservationOutsideSpaceError(
                f"the observation the wrapper stack {self._stack_text} made: {problem} (actor {tuple(actor)}). Check "
                "that the observation comes from the env the policy was trained on, in its units"
            )
        return self._executor.compute_action(observation, maze_state, self.env, actor, deterministic=deterministic)

    def _actor(self, actor_id: Optional[ActorID]) -> ActorID:
        return ActorID(self._first_key, 0) if actor_id is None else ActorID(*actor_id)

    def _stack_error(self, error: Exception, where: str, subject: str, fix: str) -> WrapperStackError:
        return WrapperStackError(
            f"{where} of the wrapper stack {self._stack_text} raised {type(error).__name__}: {error} on {subject}. "
            f"{fix} (the traceback is chained below)"
        )


def _keeps_state(wrapper: ObservationWrapper) -> bool:
    """Whether an observation wrapper keeps state between steps (it overrides ``reset``, e.g. to clear a history)."""
    return type(wrapper).reset is not ObservationWrapper.reset
