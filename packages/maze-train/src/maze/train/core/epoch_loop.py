"""The epoch loop of the RL trainers (A2C/PPO/IMPALA, SAC, ES): train an epoch, score it, keep the best, stop.

Every RL trainer runs the same outer loop; only what happens inside an epoch differs. The
loop lives here once, so stop criteria, the ``train`` statistics (with the guard's skipped
updates), evaluation and model selection, and the resumable state behave alike for all
trainers.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Optional

from maze.env.log_stats.aggregator import LogStatsAggregator
from maze.env.log_stats.base_events import BaseEnvEvents
from maze.env.log_stats.global_state import get_stats_logger, increment_log_step
from maze.env.log_stats.log_stats import LogStats
from maze.env.log_stats.log_stats_env import stats_value
from maze.env.log_stats.vector_stats import collect_episode_stats
from maze.env.utils.termination import raise_lost_sigterm
from maze.train.core.training_state import ResumableTrainer, TrainingResult
from maze.train.evaluators.background import BackgroundEvaluation
from maze.train.event_log import TrainerEventLog
from maze.train.guards import NonFiniteGuard
from maze.train.progress import TrainingProgress

logger = logging.getLogger(__name__)

__all__ = ["PATIENCE_WINDOW", "EpochLoopTrainer"]

PATIENCE_WINDOW = 3
"""Evaluations averaged for early stopping: one lucky (or unlucky) evaluation neither resets nor ends the patience."""


class EpochLoopTrainer(ResumableTrainer):
    """Mixin: the epoch loop of trainers that collect env experience and evaluate after every epoch.

    One epoch is :meth:`_train_epoch` (the trainer's rollouts and updates), shown as a progress
    bar over its env steps (fed through :meth:`_report_env_steps`) and one line when it ends
    (``progress``: the runner sets ``runner.progress``). After it the
    ``train`` statistics (the epoch's env episodes, the trainer's events and the guard's
    counts) are written, the evaluator scores the policy (its score goes to model
    selection; without an evaluator the epoch's mean training return does), the resumable
    state is saved, and training stops once ``n_epochs`` are done, ``target_reward`` is
    reached, ``patience`` epochs (where the config has the key) passed without a new
    best smoothed score (the mean of the last :data:`PATIENCE_WINDOW` scores, so that noisy
    evaluations neither stop a run early nor keep it going), or the budget (``max_env_steps``, ``max_seconds``; see
    :mod:`~maze.train.core.budget`) is spent. With :attr:`background_evaluation`
    the evaluation of an epoch runs in a forked child while the next epoch trains (see
    :mod:`maze.train.evaluators.background`).

    The trainer provides ``config`` (``n_epochs``, ``target_reward``, the budget keys,
    optionally ``patience``), ``guard``, ``events`` (a :class:`TrainerEventLog`),
    ``_env_stats`` (a :class:`LogStatsAggregator`), ``evaluator``, ``model_selection``, ``policy`` (what the
    evaluator acts with), optionally ``model`` (switched to evaluation mode while
    evaluating) and ``collector`` (whose env's finished episodes are the training
    statistics; trainers that gather them otherwise override :meth:`_collect_episode_stats`).
    """

    config: Any
    guard: NonFiniteGuard
    events: TrainerEventLog
    _env_stats: LogStatsAggregator
    evaluator: Optional[Any]
    model_selection: Optional[Any]
    progress: TrainingProgress = TrainingProgress("off")
    """Shows the epochs' progress (the training runner sets ``runner.progress``)."""
    _bar: Any = TrainingProgress("off").bar("", 0, "env steps")
    """The running epoch's progress bar (a disabled one outside epochs)."""
    background_evaluation: Optional[BackgroundEvaluation] = None
    """Runs the evaluations in a forked child while the next epoch trains (the training runner sets it
    with ``runner.background_evaluation``; None: evaluate after every epoch in this process)."""
    _stale: int = 0
    """Epochs since the best smoothed score last improved."""
    _recent_scores: deque[float]
    """The last :data:`PATIENCE_WINDOW` scores of this ``train`` call (their mean is the smoothed score)."""
    _best_smoothed: float
    """The best smoothed score of this ``train`` call."""

    def train(self, n_epochs: Optional[int] = None) -> TrainingResult:
        """Trains until a stop criterion holds.

        Args:
            n_epochs: Epochs to train in total, counting those of a resumed run (default: the
                config's ``n_epochs``; 0: no limit).

        Returns:
            What was achieved (an interrupted call's is :meth:`result_so_far`).
        """
        limit = self.config.n_epochs if n_epochs is None else n_epochs
        budget = self.start_budget()
        self._stale, self._recent_scores, self._best_smoothed = 0, deque(maxlen=PATIENCE_WINDOW), float("-inf")
        logger.info(budget.describe(getattr(self.config, "patience", 0), limit))
        stop = self._stop_before_training(limit)
        if stop is not None:  # a resumed run: its state (and the score of its evaluation) stays resumable here
            self.save_training_state()
        first = True
        try:
            while stop is None:
                raise_lost_sigterm()
                spent = self._limit_reached(limit, check_budget=not first)
                if spent is not None:  # the last epoch's evaluation may still be running
                    stop = (False, spent)
                    if self.background_evaluation is not None and self.background_evaluation.pending:
                        stop = self._take_scores([self.background_evaluation.collect()]) or stop
                    break
                epoch_start, first = time.perf_counter(), False
                self._run_epoch()
                stop = self._take_scores(self._scores(self._write_train_stats()))
                logger.info(f"Time required for epoch: {time.perf_counter() - epoch_start:.2f}s")
                if stop is None and self.background_evaluation is not None:
                    self.background_evaluation.submit(self.policy, getattr(self, "model", None))
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the last epoch's evaluation counts if it has finished
            if self.background_evaluation is not None:
                score = self.background_evaluation.collect_if_finished()
                if score is not None:
                    self._take_scores([score])
            raise
        finally:
            if self.background_evaluation is not None:
                self.background_evaluation.close()
        return self.result_so_far(*stop)

    def _limit_reached(self, limit: int, check_budget: bool) -> Optional[str]:
        """Why no further epoch is trained (``limit`` epochs done or the budget spent); None: train one more.

        The budget is checked at epoch ends only (``check_budget``): every call trains at least one epoch.
        """
        if limit and self.epochs_done >= limit:
            return f"{limit} epochs done"
        return self.budget.exhausted(self.env_steps) if check_budget else None

    def _stop_before_training(self, limit: int) -> Optional[tuple[bool, str]]:
        """``(solved, reason)`` when a resumed run stops before its first epoch here, else None.

        It stops when the model of ``input_dir`` (evaluated before) already reaches
        ``target_reward``, when the run already has ``limit`` epochs (see :meth:`nothing_to_train`)
        or already ``max_env_steps`` env steps.
        """
        target = self.config.target_reward
        if target is not None and self.best_reward >= target:
            return True, f"target reward {target:g} already reached ({self.best_reward:.3f}) before training"
        reason = self.nothing_to_train(limit)
        if reason is None and self.epochs_done:
            spent = self.budget.exhausted(self.env_steps)
            reason = None if spent is None else f"nothing to train: {spent} by the resumed run"
        return None if reason is None else (False, reason)

    def _run_epoch(self) -> None:
        """Trains one epoch with its progress bar and epoch line; its seconds count into the meters of :attr:`budget` (started by ``train``)."""
        epoch_start = time.perf_counter()
        logger.info(f"********** Iteration {self.epochs_done} **********")
        self.guard.epoch = self.epochs_done
        steps_before = self.env_steps
        self._bar = self.progress.bar(f"epoch {self.epochs_done}", self._env_steps_per_epoch(), "env steps")
        self._report_env_steps(self._bar.update)
        try:
            self._train_epoch()
        finally:  # an interrupted epoch's seconds count too: its env steps are in the summary
            self._report_env_steps(None)
            self._bar.close()
            epoch_seconds = time.perf_counter() - epoch_start
            self.budget.train_seconds += epoch_seconds
        epoch_steps = self.env_steps - steps_before
        sub_steps = self.sub_steps_per_env_step
        self.progress.epoch_done(
            self.epochs_done, epoch_steps, None if sub_steps is None else epoch_steps * sub_steps, epoch_seconds
        )
        self._epoch_trained(epoch_steps, epoch_seconds)
        self.epochs_done += 1
        increment_log_step()

    def _scores(self, train_stats: LogStats) -> list[float]:
        """The scores that are in after an epoch: its own, or with background evaluation the previous epoch's."""
        if self.background_evaluation is None:
            return [self._score(train_stats)]
        score = self.background_evaluation.collect()
        return [] if score is None else [score]

    def _take_scores(self, scores: list[float]) -> Optional[tuple[bool, str]]:
        """Updates the best score and the patience count, saves the resumable state and says whether to stop.

        Returns:
            ``(solved, reason)`` when a stop criterion holds, else None.
        """
        target, patience = self.config.target_reward, getattr(self.config, "patience", 0)
        stop = None
        for score in scores:
            self.best_reward = max(self.best_reward, score)
            self._recent_scores.append(score)
            smoothed = sum(self._recent_scores) / len(self._recent_scores)
            if smoothed > self._best_smoothed:
                self._best_smoothed, self._stale = smoothed, 0
            else:
                self._stale += 1
            if target is not None and score >= target:
                stop = True, f"target reward {target:g} reached ({score:.3f})"
            elif patience and self._stale >= patience:
                stop = (
                    False,
                    (
                        f"no improvement of the mean of the last {PATIENCE_WINDOW} evaluations for {self._stale} epochs "
                        f"(algorithm.patience={patience})"
                    ),
                )
        self.save_training_state()
        return stop

    def evaluate(self) -> float:
        """Runs the evaluator once (e.g. before training from a warm start) and returns its score."""
        score = self._evaluate_policy()
        self.best_reward = max(self.best_reward, score)
        return score

    def _train_epoch(self) -> None:
        """The epoch's rollouts and updates."""
        raise NotImplementedError

    def _env_steps_per_epoch(self) -> Optional[int]:
        """Env steps one epoch collects (the total of its progress bar; None: not known in advance)."""
        return None

    def _report_env_steps(self, callback: Optional[Callable[[int], Any]]) -> None:
        """Calls ``callback(n)`` whenever ``n`` env steps were collected (None: stop reporting).

        The default hands it to the trainer's ``collector`` (a RolloutCollector), if it has one.
        """
        collector = getattr(self, "collector", None)
        if collector is not None:
            collector.on_env_steps = callback

    def _epoch_trained(self, env_steps: int, seconds: float) -> None:
        """Called after :meth:`_train_epoch` with the epoch's env steps and seconds (e.g. to record timings)."""

    def _evaluate_policy(self) -> float:
        """The evaluator's score of the policy, run with the networks in evaluation mode."""
        model = getattr(self, "model", None)
        if model is None:
            return self.evaluator.evaluate(self.policy)
        model.eval()
        try:
            return self.evaluator.evaluate(self.policy)
        finally:
            model.train()

    def _score(self, train_stats: LogStats) -> float:
        """Evaluates (or takes the epoch's mean training return without an evaluator) and updates model selection."""
        if self.evaluator is not None:
            return self._evaluate_policy()
        try:
            score = float(stats_value(train_stats, BaseEnvEvents.reward, "mean"))
        except KeyError:  # no episode ended in the epoch
            score = float("-inf")
        if self.model_selection is not None:
            self.model_selection.update(score)
        return score

    def _write_train_stats(self) -> LogStats:
        """Writes the epoch's ``train`` statistics (env episodes, trainer events, guard counts) and returns them."""
        self._collect_episode_stats()
        stats = {**self._env_stats.reduce(), **self.events.epoch_stats(), **self.guard.epoch_stats()}
        get_stats_logger("train").log_stats(stats)
        return stats

    def _collect_episode_stats(self) -> None:
        """Moves the statistics of the episodes that ended in the training envs into the epoch's aggregator."""
        collect_episode_stats(self.collector.env, self._env_stats)
