"""RLlibTrainer: runs RLlib training iterations, reports them as Maze statistics and keeps the best Maze model."""

from __future__ import annotations

import logging
import math
import time
from typing import Any, Optional, Protocol

from maze.env.agent.policy import Policy
from maze.env.log_stats.global_state import get_stats_logger, increment_log_step
from maze.env.log_stats.log_stats import LogStats, LogStatsKey
from maze.perception.agent.torch_actor_critic import TorchActorCritic
from maze.perception.agent.torch_model import network_name
from maze.rllib.algorithm_config import RLlibAlgorithmConfig
from maze.train.core.training_state import TrainingResult
from maze.train.evaluators.rollout_evaluator import RolloutEvaluator

logger = logging.getLogger(__name__)

__all__ = ["MazeModelEvaluation", "ModuleEvaluation", "RLlibTrainer", "TRAINING_METRICS"]

TRAINING_METRICS = {
    "episode_return_mean": ("env_runners", "episode_return_mean"),
    "episode_len_mean": ("env_runners", "episode_len_mean"),
    "env_steps": ("env_runners", "num_env_steps_sampled_lifetime"),
    "total_loss": ("learners", "default_policy", "total_loss"),
    "policy_loss": ("learners", "default_policy", "policy_loss"),
    "vf_loss": ("learners", "default_policy", "vf_loss"),
    "entropy": ("learners", "default_policy", "entropy"),
}
"""Statistic name -> path in RLlib's result dict of a training iteration (absent entries are skipped)."""


class ModuleEvaluation(Protocol):
    """How the learned RLlib module is evaluated and kept: as a Maze model, or as RLlib's own (``model=rllib``)."""

    def policy(self, algorithm: Any) -> Policy:
        """A Maze policy acting with the current weights of the algorithm's module(s)."""

    def keep_best(self, algorithm: Any) -> None:
        """Called when the evaluation is the best so far (after model selection saw it)."""


class MazeModelEvaluation:
    """Copies the weights of :class:`~maze.rllib.rl_module.MazeRLModule` s into a Maze actor-critic and acts with it.

    Each module trains the networks of its sub-step (``policy_<key>``, ``critic_<key>``; with
    one module, all); the actor-critic is the model of the run's :class:`BestModelSelection`,
    which writes it to ``state_dict.pt``.

    Args:
        model: The Maze actor-critic of the run.
        modules: Sub-step key -> RLlib module id; a single entry owns every network.
    """

    def __init__(self, model: TorchActorCritic, modules: dict[Any, str]) -> None:
        self.model = model
        self.modules = modules

    def policy(self, algorithm: Any) -> Policy:
        """The Maze policy with the modules' weights (in eval mode)."""
        state_dicts = {
            key: algorithm.get_module(module_id).maze_model.state_dict() for key, module_id in self.modules.items()
        }
        merged = dict(next(iter(state_dicts.values())))
        if len(state_dicts) > 1:
            for key, state_dict in state_dicts.items():
                merged.update({name: state_dict[name] for name in _own_networks(key) if name in state_dict})
        self.model.load_state_dict(merged)
        self.model.eval()
        return self.model.policy

    def keep_best(self, algorithm: Any) -> None:
        """Nothing to do: model selection saved the actor-critic."""


def _own_networks(step_key: Any) -> tuple[str, str]:
    """The names of a sub-step's policy and critic networks."""
    return network_name("policy", step_key), network_name("critic", step_key)


class RLlibTrainer:
    """Trains with an RLlib algorithm until a stop criterion of :class:`RLlibAlgorithmConfig` is met.

    After every iteration it writes RLlib's training metrics as Maze statistics (``train``
    prefix: console table and TensorBoard); every ``eval_interval`` iterations it evaluates
    the learned module deterministically with Maze's :class:`RolloutEvaluator` (through
    ``evaluation``), whose model selection keeps the best model.

    Args:
        algorithm: The built RLlib ``Algorithm`` (set by the runner once Ray is connected).
        config: The stop criteria and evaluation settings.
        evaluation: Turns the module into a Maze policy and keeps the best one.
        evaluator: Maze's deterministic evaluation (with the run's model selection).
        verbose: Print one line per iteration.
    """

    config_class = RLlibAlgorithmConfig
    needs_critic = True

    def __init__(
        self,
        algorithm: Any,
        config: RLlibAlgorithmConfig,
        evaluation: ModuleEvaluation,
        evaluator: RolloutEvaluator,
        verbose: bool = True,
    ) -> None:
        self.algorithm = algorithm
        self.config = config
        self.evaluation = evaluation
        self.evaluator = evaluator
        self.verbose = verbose
        self.iterations = 0
        self.env_steps = 0
        self.best_reward = -math.inf
        self._start = time.monotonic()
        self._eval_seconds = 0.0
        """Seconds of evaluation in the running :meth:`train` call (excluded from its ``train_seconds``)."""

    def train(self) -> TrainingResult:
        """Runs iterations until a stop criterion holds; returns what the run achieved."""
        config = self.config
        self._start = time.monotonic()
        self._eval_seconds = 0.0
        reason, solved = "", False
        while not reason:
            result = self.algorithm.train()
            self.iterations += 1
            self.env_steps = int(_lookup(result, TRAINING_METRICS["env_steps"]) or 0)
            increment_log_step()
            get_stats_logger("train").log_stats(training_stats(result))
            if self.verbose:
                returns = _lookup(result, TRAINING_METRICS["episode_return_mean"])
                logger.info(
                    f"RLlib iteration {self.iterations}: {self.env_steps} env steps, episode return mean {returns}"
                )
            reason = self._stop_reason(time.monotonic() - self._start - self._eval_seconds)
            if self.iterations % config.eval_interval == 0 or reason:
                score = self.evaluate()
                if config.target_reward is not None and score >= config.target_reward:
                    solved, reason = True, f"target reward {config.target_reward} reached"
        return self.result_so_far(solved, reason)

    def result_so_far(self, solved: bool, stop_reason: str) -> TrainingResult:
        """What the running (or last) :meth:`train` call achieved, e.g. when it stops or is interrupted."""
        return TrainingResult(
            epochs=self.iterations,
            env_steps=self.env_steps,
            train_seconds=time.monotonic() - self._start - self._eval_seconds,
            best_reward=self.best_reward,
            solved=solved,
            stop_reason=stop_reason,
            run_env_steps=self.env_steps,
        )

    def evaluate(self) -> float:
        """Evaluates the learned module, keeps it if it is the best so far; returns the mean return."""
        start = time.monotonic()
        score = self.evaluator.evaluate(self.evaluation.policy(self.algorithm))
        if score > self.best_reward:
            self.evaluation.keep_best(self.algorithm)
        self.best_reward = max(self.best_reward, score)
        self._eval_seconds += time.monotonic() - start
        return score

    def _stop_reason(self, elapsed: float) -> str:
        """Why training stops now ('' to go on)."""
        config = self.config
        if config.max_iterations is not None and self.iterations >= config.max_iterations:
            return f"max_iterations={config.max_iterations} reached"
        if config.max_env_steps is not None and self.env_steps >= config.max_env_steps:
            return f"max_env_steps={config.max_env_steps} reached"
        if config.max_seconds is not None and elapsed >= config.max_seconds:
            return f"max_seconds={config.max_seconds} reached"
        return ""


def training_stats(result: dict[str, Any]) -> LogStats:
    """The :data:`TRAINING_METRICS` found in an RLlib result as Maze statistics (topic ``rllib``)."""
    stats: LogStats = {}
    for name, path in TRAINING_METRICS.items():
        value = _lookup(result, path)
        if isinstance(value, (int, float)) and math.isfinite(value):
            stats[LogStatsKey("rllib", "training", name)] = float(value)
    return stats


def _lookup(result: dict[str, Any], path: tuple[str, ...]) -> Optional[Any]:
    """The entry of a nested dict at ``path`` (None if absent)."""
    node: Any = result
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node
