"""Background evaluation: an epoch's evaluation episodes run in a forked child while the next epoch trains.

With ``runner.background_evaluation=true`` an evaluation costs no training time on a machine
with a spare core. At the end of epoch ``k`` the trainer forks a child process; the child
inherits the policy exactly as it is (copy-on-write: nothing is serialized or copied up
front), runs the :class:`~maze.train.evaluators.rollout_evaluator.RolloutEvaluator`'s episodes
and sends their statistics back. Epoch ``k + 1`` trains meanwhile; at its end the statistics
are written at epoch ``k``'s log step and the score goes to model selection together with a
snapshot of epoch ``k``'s weights (the ones that were evaluated).

What changes against evaluating in the loop: scores arrive one epoch late, so a run that
reaches its ``target_reward`` (or runs out of ``patience``) trains one epoch more before it
stops, and the best model on disk is still the evaluated one. Training itself is unchanged:
the deterministic evaluation draws no random numbers from the training process.

Forking is what makes this cheap, and it limits where it works: the evaluation envs must
live in the training process (a ``SequentialVectorEnv``); env worker processes cannot be
shared by two processes.
"""

from __future__ import annotations

import copy
import multiprocessing
import sys
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, Optional

import torch
from maze.env.errors import ConfigurationError, EnvWorkerError
from maze.env.log_stats.global_state import get_log_step
from maze.env.vector.sequential import SequentialVectorEnv
from maze.train.evaluators.rollout_evaluator import RolloutEvaluator

__all__ = ["BackgroundEvaluation"]


@dataclass
class _PendingEvaluation:
    """An evaluation running in a child process."""

    process: Any
    receiver: Connection
    step: int
    """Log step of the evaluated epoch."""
    weights: Optional[dict[str, Any]]
    """Snapshot of the evaluated weights for model selection (None: no model to save)."""


class BackgroundEvaluation:
    """Runs a rollout evaluator's episodes in a forked child process, one evaluation at a time.

    Args:
        evaluator: The evaluator; its eval envs must be in-process.

    Raises:
        ConfigurationError: If the evaluator's envs run in worker processes.
    """

    def __init__(self, evaluator: RolloutEvaluator) -> None:
        if not isinstance(evaluator.eval_env, SequentialVectorEnv):
            raise ConfigurationError(
                "runner.background_evaluation=true needs evaluation envs in the training process, but this "
                f"runner evaluates in {type(evaluator.eval_env).__name__} worker processes; use runner=dev (or "
                "runner.n_eval_workers=0 for ES) or set runner.background_evaluation=false"
            )
        self.evaluator = evaluator
        self._context = multiprocessing.get_context("fork")
        self._pending: Optional[_PendingEvaluation] = None

    @property
    def pending(self) -> bool:
        """Whether an evaluation is running."""
        return self._pending is not None

    def submit(self, policy: Any, model: Any = None) -> None:
        """Starts evaluating ``policy`` as it is now (the previous evaluation must have been collected).

        Args:
            policy: What the evaluator acts with.
            model: The networks, switched to evaluation mode in the child (None: none to switch).
        """
        if self._pending is not None:
            raise RuntimeError("BackgroundEvaluation.submit: collect() the running evaluation first")
        selected = getattr(self.evaluator.model_selection, "model", None)
        weights = None if selected is None else copy.deepcopy(selected.state_dict())
        sys.stdout.flush()  # the child must not inherit (and later flush) buffered output
        sys.stderr.flush()
        receiver, sender = self._context.Pipe(duplex=False)
        process = self._context.Process(
            target=_evaluate_in_child, args=(self.evaluator, policy, model, sender), name="maze-eval", daemon=True
        )
        process.start()
        sender.close()
        self._pending = _PendingEvaluation(process, receiver, get_log_step(), weights)

    def collect(self) -> Optional[float]:
        """Waits for the running evaluation, writes its statistics and updates model selection.

        Returns:
            Its score (the mean return), or None if no evaluation was running.

        Raises:
            EnvWorkerError: If the evaluation raised (with its traceback) or its process died.
        """
        pending, self._pending = self._pending, None
        if pending is None:
            return None
        try:
            succeeded, payload = pending.receiver.recv()
        except EOFError:
            pending.process.join()
            raise EnvWorkerError(
                f"the background evaluation process died (exit code {pending.process.exitcode}) before it reported; "
                "set runner.background_evaluation=false to evaluate in the training process"
            ) from None
        finally:
            pending.receiver.close()
        pending.process.join()
        if not succeeded:
            raise EnvWorkerError(f"the background evaluation raised:\n{payload}")
        return self.evaluator.report(payload, pending.step, pending.weights)

    def collect_if_finished(self) -> Optional[float]:
        """Collects the running evaluation if it has reported already (see :meth:`collect`); None otherwise."""
        if self._pending is None or not self._pending.receiver.poll():
            return None
        return self.collect()

    def close(self) -> None:
        """Stops a running evaluation (its result is dropped)."""
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.process.terminate()
            pending.process.join()
            pending.receiver.close()


def _evaluate_in_child(evaluator: RolloutEvaluator, policy: Any, model: Any, sender: Connection) -> None:
    """The child's work: run the episodes and send ``(True, stats)`` or ``(False, traceback)``."""
    try:
        torch.set_num_threads(1)  # the spare core, and no OpenMP thread pool copied from the parent
        if model is not None:
            model.eval()
        sender.send((True, evaluator.rollout_stats(policy, show_progress=False)))
    except BaseException:  # noqa: BLE001 - everything goes back to the parent, which raises it
        sender.send((False, traceback.format_exc()))
    finally:
        sender.close()
