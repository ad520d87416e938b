"""PolicyExecutor: asks a policy for an action, or for its top action candidates."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any, Optional, Union

from maze.deploy.action_candidates import ActionCandidates
from maze.deploy.errors import PolicyExecutionError
from maze.env.agent.policy import Policy
from maze.env.core.actor import ActorID
from maze.env.errors import ConfigurationError
from maze.env.utils.factory import ConfigType, Factory, resolve_target, to_plain_config

__all__ = ["PolicyExecutor", "build_policy"]

_POLICY_FACTORY = Factory(Policy, search_modules=["maze.env"])


class PolicyExecutor:
    """Runs a policy for a deployment.

    Passes the MazeState and the env to policies that ask for them
    (``needs_state()`` / ``needs_env()``), and turns any exception of the policy into a
    :class:`~maze.deploy.errors.PolicyExecutionError` that names the policy and the actor.

    Args:
        policy: The policy to run.
        num_candidates: None: :meth:`compute_action` returns one action. An int ``k``: it
            returns :class:`~maze.deploy.action_candidates.ActionCandidates` with the ``k``
            most likely actions (``policy.compute_top_action_candidates``).
        deterministic: Take the most likely action instead of sampling one.
    """

    def __init__(self, policy: Policy, num_candidates: Optional[int] = None, deterministic: bool = False) -> None:
        if not isinstance(policy, Policy):
            raise ConfigurationError(
                f"PolicyExecutor needs a maze Policy (compute_action(observation, maze_state, env, actor_id, "
                f"deterministic)), got {type(policy).__name__}"
            )
        self.policy = policy
        self.num_candidates = _checked_candidates(num_candidates)
        self.deterministic = deterministic
        self._needs_state = policy.needs_state()
        self._needs_env = policy.needs_env()

    def compute_action(
        self,
        observation: Any,
        maze_state: Any,
        env: Any,
        actor_id: ActorID,
        num_candidates: Optional[int] = None,
        deterministic: Optional[bool] = None,
    ) -> Union[Any, ActionCandidates]:
        """The policy's action for ``observation``, or its top candidates.

        Args:
            observation: The observation of the acting actor (as the wrapper stack made it).
            maze_state: The current MazeState (passed on only if the policy needs it).
            env: The env the policy acts in (passed on only if the policy needs it).
            actor_id: The acting actor.
            num_candidates: Overrides the executor's ``num_candidates`` for this call.
            deterministic: Overrides the executor's ``deterministic`` for this call.

        Raises:
            PolicyExecutionError: The policy raised, or cannot rank candidates.
        """
        count = self.num_candidates if num_candidates is None else _checked_candidates(num_candidates)
        state = maze_state if self._needs_state else None
        env = env if self._needs_env else None
        policy = self.policy
        try:
            if count is None:
                return policy.compute_action(
                    observation,
                    maze_state=state,
                    env=env,
                    actor_id=actor_id,
                    deterministic=self.deterministic if deterministic is None else deterministic,
                )
            actions, probabilities = policy.compute_top_action_candidates(
                observation, count, maze_state=state, env=env, actor_id=actor_id
            )
            return ActionCandidates(tuple(actions), tuple(float(p) for p in probabilities))
        except NotImplementedError as error:
            if count is None:
                raise self._error(error, actor_id) from error
            raise PolicyExecutionError(
                f"{type(policy).__name__} cannot rank action candidates ({error}); ask for single actions "
                "(num_candidates=None) or use a policy that implements compute_top_action_candidates"
            ) from error
        except Exception as error:
            raise self._error(error, actor_id) from error

    def reset(self) -> None:
        """Tells the policy that a new episode starts."""
        self.policy.reset()

    def seed(self, seed: int) -> None:
        """Seeds the policy."""
        self.policy.seed(seed)

    def _error(self, error: Exception, actor_id: ActorID) -> PolicyExecutionError:
        return PolicyExecutionError(
            f"the policy {type(self.policy).__name__} raised {type(error).__name__}: {error} while acting for actor "
            f"{tuple(actor_id)}. Fix the policy (the full traceback is chained below) or check that it was built "
            "for this env's observation and action spaces"
        )


def _checked_candidates(num_candidates: Optional[int]) -> Optional[int]:
    if num_candidates is None:
        return None
    if isinstance(num_candidates, bool) or not isinstance(num_candidates, int) or num_candidates < 1:
        raise ConfigurationError(f"num_candidates must be None or an int >= 1, got {num_candidates!r}")
    return num_candidates


def build_policy(config: ConfigType, env: Any) -> Policy:
    """Instantiates a policy config (instances pass through).

    ``_target_`` configs whose target takes ``action_spaces_dict`` and do not set it get
    ``env.action_spaces_dict`` (e.g. ``RandomPolicy``).
    """
    config = to_plain_config(config)
    if isinstance(config, Mapping) and "_target_" in config and "action_spaces_dict" not in config:
        target = resolve_target(config["_target_"], _POLICY_FACTORY.search_modules)
        if _takes(target, "action_spaces_dict"):
            return _POLICY_FACTORY.instantiate(config, action_spaces_dict=env.action_spaces_dict)
    return _POLICY_FACTORY.instantiate(config)


def _takes(target: Any, name: str) -> bool:
    try:
        return name in inspect.signature(target).parameters
    except (TypeError, ValueError):
        return False
