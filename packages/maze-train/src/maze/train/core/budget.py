"""The budget of one ``train`` call: an env-step budget, a wall-clock limit and the meters of this call.

The algorithm configs' ``max_env_steps`` and ``max_seconds`` keys (see
:class:`~maze.train.core.config.AlgorithmConfig`) are checked at every epoch end:
training stops at the first epoch end at or past either, after that epoch's evaluation, so
the run still has its best model, its resumable state and its ``training_summary.json``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Optional

__all__ = ["RunBudget"]


@dataclass
class RunBudget:
    """Limits and meters of one ``train`` call.

    Attributes:
        max_env_steps: Env steps in total, counting those of a resumed run (None: no limit).
        max_seconds: Wall-clock seconds of this call, evaluations included (None: no limit).
        start_env_steps: The trainer's env steps when the call started (a resumed run's steps).
        train_seconds: Seconds spent in epochs so far (rollouts and updates; evaluations excluded).
        started: ``time.perf_counter()`` when the call started.
    """

    max_env_steps: Optional[int] = None
    max_seconds: Optional[float] = None
    start_env_steps: int = 0
    train_seconds: float = 0.0
    started: float = field(default_factory=time.perf_counter)

    def describe(self, patience: int, n_epochs: int) -> str:
        """The line a run prints at its start: when it will end by itself.

        Args:
            patience: Epochs without a better smoothed evaluation before an early stop (0: none).
            n_epochs: Epochs to train in total (0: no limit).
        """
        limits = []
        if n_epochs:
            limits.append(f"{n_epochs} epochs (algorithm.n_epochs)")
        if self.max_env_steps is not None:
            limits.append(f"{self.max_env_steps:,} env steps (algorithm.max_env_steps)")
        if self.max_seconds is not None:
            limits.append(f"{self.max_seconds:g} s (algorithm.max_seconds)")
        line = "Budget: " + (" or ".join(limits) if limits else "none (algorithm.max_env_steps=null)")
        if patience:
            line += f"; stops earlier after {patience} epochs without a better evaluation (algorithm.patience)"
        elif not limits:
            line += "; runs until stopped (Ctrl-C keeps the best model)"
        return line

    def exhausted(self, env_steps: int) -> Optional[str]:
        """Why the budget is spent at ``env_steps`` env steps in total; None while it is not."""
        if self.max_env_steps is not None and env_steps >= self.max_env_steps:
            return f"env-step budget reached ({env_steps} >= algorithm.max_env_steps={self.max_env_steps})"
        elapsed = time.perf_counter() - self.started
        if self.max_seconds is not None and elapsed >= self.max_seconds:
            return f"wall-clock limit reached ({elapsed:.1f}s >= algorithm.max_seconds={self.max_seconds:g})"
        return None
