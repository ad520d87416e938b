"""ESRolloutWorkerWrapper: an env that plays antithetic ES episode pairs with its own copy of the policy."""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np
import torch
from maze.env.agent.policy import Policy
from maze.env.utils.factory import Factory
from maze.env.utils.finite import find_non_finite
from maze.env.wrappers.wrapper import Wrapper
from maze.perception.agent.torch_policy import TorchPolicy
from maze.train.distributed.es.noise_table import SharedNoiseTable
from maze.train.distributed.es.parameters import get_flat_parameters, set_flat_parameters
from maze.train.distributed.es.rollouts import ESAbortException, ESRolloutResult
from maze.train.guards import NonFiniteObservation

__all__ = ["ESRolloutWorkerWrapper", "ESWorkerFactory", "wrap_policy"]


def wrap_policy(torch_policy: TorchPolicy, policy_wrapper: Any) -> Any:
    """The acting policy: ``torch_policy``, or the ``policy_wrapper`` config built around it.

    ``policy_wrapper`` is a Policy config (``_target_`` plus arguments) that receives
    ``torch_policy=<the TorchPolicy>``, e.g. to put heuristics on top of the network.
    """
    if not policy_wrapper:
        return torch_policy
    return Factory(Policy).instantiate(policy_wrapper, torch_policy=torch_policy)


class ESRolloutWorkerWrapper(Wrapper[Any]):
    """The rollout generation is bound to a single worker environment by implementing it as a Wrapper class.

    Each call of :meth:`generate_training_pair` plays two episodes from the same env seed,
    one with the parameters plus and one minus a noise slice of the shared table, with the
    policy's most likely actions (the noise is the only exploration). ``reset(seed=...)``
    seeds the worker: its noise indices, env seeds and the policy's sampler.

    The pairs of a seeded worker form a stream: its ``position``-th pair draws the same noise
    index and env seed whatever happened before. :meth:`seek` moves to a position, so that a
    restarted worker (a new process) resumes the stream where the lost one stood.

    Args:
        env: The env (outermost a LogStatsWrapper).
        policy_factory: Builds the worker's TorchPolicy.
        shared_noise: The shared noise table.
        policy_wrapper: Optional policy config around the TorchPolicy (see :func:`wrap_policy`).
    """

    def __init__(
        self,
        env: Any,
        policy_factory: Callable[[], TorchPolicy],
        shared_noise: SharedNoiseTable,
        policy_wrapper: Any = None,
    ) -> None:
        super().__init__(env)
        self.torch_policy = policy_factory()
        self.policy = wrap_policy(self.torch_policy, policy_wrapper)
        self.shared_noise = shared_noise
        self._n_parameters = get_flat_parameters(self.torch_policy).numel()
        self._seed: Optional[int] = None
        self._rng = np.random.default_rng()
        self.position = 0
        """Pairs of the stream drawn since the worker was seeded."""

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[Any, dict]:
        """Resets the env; a ``seed`` also seeds the worker's noise indices, env seeds and policy."""
        if seed is not None:
            self._seed = seed
            self._rng = np.random.default_rng(seed)
            self.position = 0
            self.torch_policy.seed(seed)
        return self.env.reset(seed=seed, options=options)

    def generate_training_pair(
        self, flat_parameters: np.ndarray, noise_stddev: float, max_steps: int
    ) -> ESRolloutResult:
        """Plays the antithetic episode pair of a random noise slice around ``flat_parameters``.

        Args:
            flat_parameters: ``[n_parameters]`` float32 parameters.
            noise_stddev: Scale of the noise.
            max_steps: Step cap of each episode (0: none).

        Returns:
            The pair's returns, lengths and episode statistics (``aborted`` if the env, a
            wrapper or the policy raised :class:`ESAbortException`; with ``non_finite_observation``
            if an episode returned one: the policy never acts on it).
        """
        theta = np.asarray(flat_parameters, dtype=np.float32)
        index, env_seed = self._draw_pair()
        noise = self.shared_noise.get(index, self._n_parameters)
        self.env.take_episode_stats()  # only this pair's episodes below
        try:
            outcomes = [self._episode(theta + sign * noise_stddev * noise, env_seed, max_steps) for sign in (1.0, -1.0)]
        except ESAbortException:
            self.env.finish_episode_stats()
            self.env.take_episode_stats()
            return ESRolloutResult(index, np.zeros(2), np.zeros(2, dtype=np.int64), aborted=True)
        except _NonFiniteObservationFound as found:
            self.env.finish_episode_stats()
            self.env.take_episode_stats()
            return ESRolloutResult(
                index, np.zeros(2), np.zeros(2, dtype=np.int64), non_finite_observation=found.observation
            )
        returns, lengths = zip(*outcomes, strict=True)
        return ESRolloutResult(index, np.array(returns), np.array(lengths), self.env.take_episode_stats())

    def seek(self, position: int) -> None:
        """Moves the seeded worker's stream to its ``position``-th pair (the next one played).

        Replays the draws of the pairs before (a few random numbers each): a worker behind
        skips ahead, one ahead starts again from its seed.

        Raises:
            ValueError: If the worker was never seeded (``reset(seed=...)``).
        """
        if position == self.position:
            return
        if self._seed is None:
            raise ValueError("seek() needs a worker seeded by reset(seed=...)")
        if position < self.position:
            self._rng = np.random.default_rng(self._seed)
            self.position = 0
        while self.position < position:
            self._draw_pair()

    def _draw_pair(self) -> tuple[int, int]:
        """The noise index and env seed of the next pair of the stream."""
        index = self.shared_noise.sample_index(self._rng, self._n_parameters)
        env_seed = int(self._rng.integers(2**31 - 1))
        self.position += 1
        return index, env_seed

    def _episode(self, parameters: np.ndarray, seed: int, max_steps: int) -> tuple[float, int]:
        """Plays one episode with the ``[n_parameters]`` ``parameters``; returns its return and length."""
        set_flat_parameters(self.torch_policy, torch.from_numpy(parameters))
        observation, _ = self.env.reset(seed=seed)
        total, steps = 0.0, 0
        while True:
            culprit = find_non_finite(observation)  # the training guard's rule: the policy cannot act on it
            if culprit is not None:
                raise _NonFiniteObservationFound(
                    NonFiniteObservation(
                        None, culprit.key, culprit.index, culprit.value, f"at step {steps} of an episode"
                    )
                )
            action = self.policy.compute_action(observation, actor_id=self.env.actor_id(), deterministic=True)
            observation, reward, terminated, truncated, _ = self.env.step(action)
            total += float(np.sum(reward))
            steps += 1
            if terminated or truncated:
                return total, steps
            if max_steps and steps >= max_steps:
                self.env.finish_episode_stats()
                return total, steps


class _NonFiniteObservationFound(Exception):
    """Ends an episode whose env returned a non-finite observation (reported with the pair's result)."""

    def __init__(self, observation: NonFiniteObservation) -> None:
        super().__init__(observation)
        self.observation = observation


class ESWorkerFactory:
    """Builds an :class:`ESRolloutWorkerWrapper` around a new env (picklable: used in worker processes).

    Args:
        env_factory: Builds the env (with its LogStatsWrapper).
        policy_factory: Builds the TorchPolicy.
        shared_noise: The shared noise table (pickled as a handle to the shared block).
        policy_wrapper: Optional policy config around the TorchPolicy.
        torch_threads: Threads of torch in the worker (None: leave as is; worker processes use 1).
    """

    def __init__(
        self,
        env_factory: Callable[[], Any],
        policy_factory: Callable[[], TorchPolicy],
        shared_noise: SharedNoiseTable,
        policy_wrapper: Any = None,
        torch_threads: Optional[int] = None,
    ) -> None:
        self.env_factory = env_factory
        self.policy_factory = policy_factory
        self.shared_noise = shared_noise
        self.policy_wrapper = policy_wrapper
        self.torch_threads = torch_threads

    def __call__(self) -> ESRolloutWorkerWrapper:
        """A new worker env."""
        if self.torch_threads is not None:
            torch.set_num_threads(self.torch_threads)
        return ESRolloutWorkerWrapper(self.env_factory(), self.policy_factory, self.shared_noise, self.policy_wrapper)
