"""Rollouts of structured envs with dynamic agents, recorded per actor trajectory.

An env declares dynamic agents with a ``-1`` in ``agent_counts_dict``: actors are created
and finished during an episode (``is_actor_done()``), and the order in which actors act
may vary (a hierarchical env whose low-level sub-task lasts a varying number of steps).
Such envs cannot be cut into fixed slots per env step, so the collector records every
decision as an :class:`ActorSample` linked to the same actor's next decision:

* Every call of the vector env steps each env once with the action of the actor it waits
  for; the envs are grouped by policy network (sub-step key, or actor for
  ``substeps_with_separate_agent_nets``) with one batched forward pass per group. Envs may
  wait for actors of different sub-steps at the same time.
* An actor's **transition** runs from one of its decisions to its next one: every reward
  of the env in between counts for it (so a high-level actor collects the rewards of the
  sub-task it chose). It ends at the actor's next decision, when the actor is done
  (nothing is bootstrapped after it), or with the episode (terminated: nothing is
  bootstrapped; truncated: its own value is).
* A transition still open when the rollout ends is carried into the next rollout (its
  successor has not been observed yet); the rollout holds it as an open sample so that
  the transition before it can bootstrap its value.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any, Callable, Optional

import numpy as np
from maze.env.core.actor import ActorID
from maze.env.errors import ConfigurationError
from maze.env.vector.vector_env import StructuredVectorEnv
from maze.train.guards import NonFiniteGuard, NonFiniteObservation

__all__ = [
    "ActorRollout",
    "ActorSample",
    "DynamicAgentsCollection",
    "TransitionEnd",
    "act_each",
    "group_by_network",
    "has_dynamic_agents",
]


def has_dynamic_agents(env: Any) -> bool:
    """True when ``env`` (a structured env or vector env) declares a dynamic agent count (``-1``)."""
    return any(count < 0 for count in env.agent_counts_dict.values())


class TransitionEnd(IntEnum):
    """How an actor's transition ended."""

    OPEN = 0
    """Not yet: the actor has not acted again (the sample is not trained on in this rollout)."""
    NEXT = 1
    """The actor acted again (its next decision bootstraps the value)."""
    DONE = 2
    """The actor is done for the episode (nothing is bootstrapped)."""
    TERMINATED = 3
    """The episode reached a terminal state (nothing is bootstrapped)."""
    TRUNCATED = 4
    """The episode was cut off (the actor's own value is bootstrapped)."""


@dataclass(eq=False)
class ActorSample:
    """One decision of one actor and the transition that follows it.

    Attributes:
        env: Index of the env in the vector env.
        actor_id: The actor that decided.
        observation: Observation key -> value (unbatched).
        action: Action key -> value (unbatched).
        reward: Sum of the env's rewards from this decision to the end of the transition.
        end: How the transition ended.
        next: The same actor's next decision (``end == NEXT``).
    """

    env: int
    actor_id: ActorID
    observation: dict[str, np.ndarray]
    action: dict[str, np.ndarray]
    reward: float = 0.0
    end: TransitionEnd = TransitionEnd.OPEN
    next: Optional[ActorSample] = None


def _slots_error(what: str) -> ConfigurationError:
    return ConfigurationError(
        f"this rollout has no {what}: the env declares dynamic agents (-1 in agent_counts_dict), so its samples are "
        "kept per actor, not per slot of an env step. Only A2C and PPO train such envs; declare fixed agent counts "
        "to use other algorithms"
    )


@dataclass
class ActorRollout:
    """A rollout of an env with dynamic agents: ``C`` vector-env calls of ``N`` envs.

    Attributes:
        samples: The decisions in the order they were taken; the first ones may be open
            transitions carried over from the previous rollout. Samples whose transition
            is still open are held for bootstrapping only.
        rewards: ``[C, N]`` reward of every call.
        terminated: ``[C, N]`` bool.
        truncated: ``[C, N]`` bool.
        non_finite_observation: The first non-finite observation of the rollout (the policy
            acted on it with such values set to 0; see :mod:`maze.train.guards`), or None.
    """

    samples: list[ActorSample]
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    non_finite_observation: Optional[NonFiniteObservation] = None

    @property
    def n_envs(self) -> int:
        """``N``, the envs."""
        return self.rewards.shape[1]

    @property
    def substeps(self) -> Any:
        """Fixed-slot rollouts only; raises a ConfigurationError naming the fix."""
        raise _slots_error("slots (substeps)")

    @property
    def n_slots(self) -> int:
        """Fixed-slot rollouts only; raises a ConfigurationError naming the fix."""
        raise _slots_error("slot count (n_slots)")


def group_by_network(policy: Any, actor_ids: list[ActorID]) -> dict[Any, list[int]]:
    """The env indices per policy network: by sub-step key, or by actor for sub-steps with separate agent nets."""
    separate = getattr(policy, "substeps_with_separate_agent_nets", ())
    groups: dict[Any, list[int]] = {}
    for index, actor_id in enumerate(actor_ids):
        key = actor_id if actor_id[0] in separate else actor_id[0]
        groups.setdefault(key, []).append(index)
    return groups


def act_each(
    policy: Any,
    observations: list[dict[str, Any]],
    actor_ids: list[ActorID],
    screen: Optional[Callable[[dict[str, np.ndarray], list[int]], dict[str, np.ndarray]]] = None,
    **kwargs: Any,
) -> tuple[list[dict[str, Any]], dict[Any, tuple[list[int], dict[str, np.ndarray]]]]:
    """One action per env for envs waiting for different actors: one batched forward pass per network.

    Args:
        policy: A structured policy (``compute_action(batch, actor_id=..., **kwargs)``).
        observations: One observation dict per env.
        actor_ids: The actor each env waits for.
        screen: Called with every stacked observation batch and its env indices before the
            policy acts; returns what the policy acts on (e.g. a guard's check).
        kwargs: Passed to ``compute_action`` (e.g. ``deterministic=True``).

    Returns:
        ``(actions, batches)``: one action dict per env, and per network group the env
        indices and the stacked observations ``[n, ...]`` the policy acted on.
    """
    actions: list[dict[str, Any]] = [{}] * len(observations)
    batches = {}
    for key, indices in group_by_network(policy, actor_ids).items():
        batch = {name: np.stack([observations[index][name] for index in indices]) for name in observations[indices[0]]}
        if screen is not None:
            batch = screen(batch, indices)
        action = policy.compute_action(batch, actor_id=actor_ids[indices[0]], **kwargs)
        for row, index in enumerate(indices):
            actions[index] = {name: value[row] for name, value in action.items()}
        batches[key] = (indices, batch)
    return actions, batches


class DynamicAgentsCollection:
    """The rollout loop of :class:`~maze.train.rollout.collector.RolloutCollector` for envs with dynamic agents.

    Args:
        env: The vector env.
        n_calls: ``C``, vector-env calls (sub-steps of every env) per rollout.
        seeds: Seeds of the first reset, or None.
    """

    def __init__(self, env: StructuredVectorEnv, n_calls: int, seeds: Optional[list[int]]) -> None:
        self.env = env
        self.n_calls = n_calls
        self._seeds = seeds
        self._observations: Optional[list[dict[str, Any]]] = None
        self._open: list[dict[ActorID, ActorSample]] = [{} for _ in range(env.n_envs)]
        self._carried: list[ActorSample] = []

    def collect(
        self, policy: Any, guard: NonFiniteGuard, env_steps: int, on_calls: Optional[Callable[[int], None]]
    ) -> ActorRollout:
        """Runs ``C`` calls of every env; returns the samples and the call timeline.

        Args:
            policy: The structured policy that acts.
            guard: Checks every observation before the policy acts on it.
            env_steps: Calls of all envs before this rollout (for error messages).
            on_calls: Called with ``N`` after every call of the ``N`` envs (or None).
        """
        env = self.env
        if self._observations is None:
            self._observations = env.reset_each(seed=self._seeds)[0]
        shape = (self.n_calls, env.n_envs)
        rewards = np.empty(shape, dtype=np.float32)
        terminated = np.empty(shape, dtype=bool)
        truncated = np.empty(shape, dtype=bool)
        samples, self._carried = self._carried, []
        observations = self._observations
        for call in range(self.n_calls):
            actor_ids = env.actor_ids()

            step = env_steps + call * env.n_envs
            actions, batches = act_each(
                policy,
                observations,
                actor_ids,
                lambda batch, indices, step=step, call=call: guard.check_observation(batch, step, call, envs=indices),
            )
            decided: list[ActorSample] = [None] * env.n_envs  # type: ignore[list-item]
            for indices, batch in batches.values():
                for row, index in enumerate(indices):
                    observation = {name: value[row] for name, value in batch.items()}
                    decided[index] = self._decide(index, actor_ids[index], observation, actions[index])
            samples.extend(decided)
            observations, reward, ended, cut, _ = env.step_each(actions)
            rewards[call], terminated[call], truncated[call] = reward, ended, cut
            done = env.call("is_actor_done")
            for index, sample in enumerate(decided):
                self._credit(index, sample.actor_id, float(reward[index]), done[index], ended[index], cut[index])
            if on_calls is not None:
                on_calls(env.n_envs)
        self._observations = observations
        self._carried = [sample for sample in samples if sample.end == TransitionEnd.OPEN]
        return ActorRollout(samples, rewards, terminated, truncated, guard.take_observation())

    def _decide(self, index: int, actor_id: ActorID, observation: dict, action: dict) -> ActorSample:
        """Records a decision; it closes the actor's previous transition."""
        sample = ActorSample(index, actor_id, observation, {name: np.array(value) for name, value in action.items()})
        previous = self._open[index].get(actor_id)
        if previous is not None:
            previous.end, previous.next = TransitionEnd.NEXT, sample
        self._open[index][actor_id] = sample
        return sample

    def _credit(self, index: int, actor_id: ActorID, reward: float, done: bool, ended: bool, cut: bool) -> None:
        """Adds a call's reward to every open transition of env ``index`` and ends transitions."""
        open_samples = self._open[index]
        for sample in open_samples.values():
            sample.reward += reward
        if ended or cut:
            end = TransitionEnd.TERMINATED if ended else TransitionEnd.TRUNCATED
            for sample in open_samples.values():
                sample.end = end
            open_samples.clear()
        elif done:
            open_samples.pop(actor_id).end = TransitionEnd.DONE
