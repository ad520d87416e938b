"""RolloutEvaluator: runs a policy for a fixed number of episodes and logs the ``eval`` statistics."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Annotated, Any, Optional, Sequence

import numpy as np
from maze.env.errors import ConfigurationError
from maze.env.log_stats.aggregator import EpisodeStatsBatch, LogStatsAggregator
from maze.env.log_stats.base_events import BaseEnvEvents
from maze.env.log_stats.global_state import get_stats_logger
from maze.env.log_stats.log_stats import LogStats
from maze.env.log_stats.log_stats_env import stats_value
from maze.env.vector.sequential import SequentialVectorEnv
from maze.env.vector.vector_env import StructuredVectorEnv
from maze.train.bounds import Bounds
from maze.train.progress import TrainingProgress
from maze.train.rollout.actors import act_each, has_dynamic_agents

__all__ = ["Evaluator", "RolloutEvaluator"]


class Evaluator(ABC):
    """Scores a policy."""

    @abstractmethod
    def evaluate(self, policy: Any) -> float:
        """Evaluates ``policy`` and returns its score (higher is better)."""


class RolloutEvaluator(Evaluator):
    """Runs ``n_episodes`` episodes in a vector env and reports their mean return.

    The episodes are spread evenly over the envs (env ``i`` runs its share one after the
    other, so short episodes are not over-represented), all envs are reset with the same
    seeds at every evaluation (evaluations stay comparable), and the statistics of exactly
    ``n_episodes`` episodes are written under ``logging_prefix``. The mean return goes to
    ``model_selection``.

    Args:
        eval_env: A vector env whose envs have a LogStatsWrapper, or a single env with one.
        n_episodes: Episodes per evaluation.
        model_selection: Receives the mean return of every evaluation (None: nobody).
        deterministic: Act with the most likely actions instead of sampling.
        seeds: Seeds of the envs at the start of every evaluation (None: not reseeded).
        logging_prefix: Prefix of the written statistics.
    """

    def __init__(
        self,
        eval_env: Any,
        n_episodes: Annotated[int, Bounds(ge=1)],
        model_selection: Optional[Any] = None,
        deterministic: bool = True,
        seeds: Optional[Sequence[int]] = None,
        logging_prefix: str = "eval",
    ) -> None:
        if n_episodes < 1:
            raise ConfigurationError(f"RolloutEvaluator: n_episodes must be at least 1, got {n_episodes}")
        self.eval_env: StructuredVectorEnv = (
            eval_env if isinstance(eval_env, StructuredVectorEnv) else SequentialVectorEnv([lambda: eval_env])
        )
        self.n_episodes = n_episodes
        self.model_selection = model_selection
        self.deterministic = deterministic
        self.seeds = None if seeds is None else list(seeds)
        self.logging_prefix = logging_prefix
        self.last_stats: LogStats = {}
        self.progress: Optional[TrainingProgress] = None
        """Shows the evaluation's episodes as they finish (set by the training runner)."""

    def evaluate(self, policy: Any) -> float:
        """Runs the episodes, writes their statistics and updates model selection.

        Returns:
            The mean return of the episodes.
        """
        return self.report(self.rollout_stats(policy))

    def rollout_stats(self, policy: Any, show_progress: bool = True) -> LogStats:
        """Runs the episodes and returns their statistics (nothing is written).

        Args:
            policy: Acts in the envs.
            show_progress: Show the episodes as they finish (with the runner's ``progress``).

        Returns:
            The statistics of exactly ``n_episodes`` episodes.
        """
        env = self.eval_env
        quotas = np.full(env.n_envs, self.n_episodes // env.n_envs)
        quotas[: self.n_episodes % env.n_envs] += 1
        dynamic = has_dynamic_agents(env)
        observation, _ = env.reset_each(seed=self.seeds) if dynamic else env.reset(seed=self.seeds)
        env.call("clear_epoch_stats")  # drops episodes the reset cut short
        finished = np.zeros(env.n_envs, dtype=int)
        shown = self.progress if show_progress and self.progress is not None else TrainingProgress("off")
        progress = shown.bar("evaluation", self.n_episodes, "episodes")
        while (finished < quotas).any():
            if dynamic:  # the envs may wait for actors of different sub-steps
                actions, _ = act_each(policy, observation, env.actor_ids(), deterministic=self.deterministic)
                observation, _, terminated, truncated, _ = env.step_each(actions)
            else:
                action = policy.compute_action(
                    observation, actor_id=env.actor_ids()[0], deterministic=self.deterministic
                )
                observation, _, terminated, truncated, _ = env.step(action)
            done_before = np.minimum(finished, quotas).sum()
            finished += terminated | truncated
            progress.update(int(np.minimum(finished, quotas).sum() - done_before))
        progress.close()
        aggregator = LogStatsAggregator()
        for quota, batch in zip(quotas, env.call("take_episode_stats"), strict=True):
            aggregator.add_episode_stats(EpisodeStatsBatch(events=batch.events, episodes=batch.episodes[:quota]))
        return aggregator.reduce()

    def report(self, stats: LogStats, step: Optional[int] = None, state_dict: Optional[dict[str, Any]] = None) -> float:
        """Writes an evaluation's statistics and hands its mean return to model selection.

        Args:
            stats: What :meth:`rollout_stats` returned.
            step: The log step of the evaluated epoch (None: the current one).
            state_dict: The evaluated weights if they are no longer the model's current ones.

        Returns:
            The mean return of the episodes.
        """
        self.last_stats = stats
        get_stats_logger(self.logging_prefix).log_stats(stats, step)
        reward = float(stats_value(stats, BaseEnvEvents.reward, "mean"))
        if self.model_selection is not None:
            self.model_selection.update(reward, state_dict)
        return reward
