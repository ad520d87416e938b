"""The keys of ``algorithm/sac.yaml`` (SAC and SACfD)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Union

from maze.env.errors import ConfigurationError
from maze.train.core.config import DEFAULT_ROLLOUT_EVALUATOR, AlgorithmConfig, bounded

__all__ = ["DEFAULT_INITIAL_SAMPLING_POLICY", "SACAlgorithmConfig"]

DEFAULT_INITIAL_SAMPLING_POLICY = {"_target_": "maze.env.agent.random_policy.RandomPolicy"}
"""The documented initial sampling policy of ``algorithm/sac.yaml``."""


@dataclass
class SACAlgorithmConfig(AlgorithmConfig):
    """Soft actor-critic (Haarnoja et al. 2018; discrete actions after Christodoulou 2019).

    Attributes:
        n_rollout_steps: Env steps per env and rollout.
        lr: Learning rate of the policy and the Q networks (Adam); 0 leaves them unchanged (a frozen baseline).
        optimizer_eps: Adam's epsilon (all three optimizers), added to the denominator of its update.
        entropy_coef: The entropy coefficient alpha (the start value with ``entropy_tuning``), or
            ``"auto"`` / ``"auto_<start>"`` as stable-baselines3's ``ent_coef``: entropy tuning on,
            starting at 1.0 (or ``<start>``), with the networks' learning rate ``lr`` (this sets
            ``entropy_tuning`` and ``entropy_coef_lr``; the field then holds the start value).
        gamma: Discount per env step.
        max_grad_norm: Clip each network's gradient norm to this value (0: no clipping).
        batch_size: Transitions per gradient step (with ``split_rollouts_into_transitions: false``:
            whole rollouts, ``batch_size * n_rollout_steps`` transitions).
        num_batches_per_iter: Gradient steps per iteration (one iteration collects
            ``rollouts_per_iteration`` rollouts first).
        num_actors: Envs (workers) collecting transitions side by side.
        tau: Weight of the online networks in the soft target update
            ``target <- (1 - tau) * target + tau * online``.
        target_update_interval: Gradient steps between soft target updates.
        device: ``cpu`` or ``cuda`` (the learner's device).
        mixed_precision: Run the gradient steps' forward and backward passes on bfloat16 copies
            of the networks (:mod:`~maze.train.trainers.sac.working_copies`); parameters,
            optimizer state, losses and log-probabilities stay float32. About twice as fast on
            CPUs with AVX512-BF16.
        entropy_tuning: Learn alpha so that the policy's entropy approaches the target entropy.
        target_entropy_multiplier: Multiplies the default target entropy: ``-dim(A)`` for
            continuous actions, ``0.98 * log|A|`` (summed over heads) for discrete ones.
        entropy_coef_lr: Learning rate of the entropy tuning (Adam on ``log alpha``).
        replay_buffer_size: Capacity of the replay buffer in transitions (with
            ``split_rollouts_into_transitions: false``: ``replay_buffer_size // n_rollout_steps``
            whole rollouts, so it still bounds the transitions).
        initial_buffer_size: Transitions (per sub-step) collected with ``initial_sampling_policy``
            before the first update (at most the buffer's capacity; SACfD: demonstrations are used instead).
        initial_sampling_policy: Config of the policy that fills the buffer initially.
        rollouts_per_iteration: Rollouts collected per iteration.
        split_rollouts_into_transitions: True: every collected transition is one buffer entry and
            a batch is ``batch_size`` transitions sampled uniformly. False (flat envs only): every
            rollout (the ``n_rollout_steps`` consecutive steps one env collects; they run on across
            episode ends) is one entry of a ring buffer of rollouts, and a batch is ``batch_size``
            rollouts sampled uniformly, flattened rollout by rollout, so sequences stay whole and
            in order (e.g. for sequence models); the targets still use each transition's own next
            observation and done flag. SACfD demonstrations are cut into rollouts of
            ``n_rollout_steps`` consecutive transitions (the remainder is left out).
        n_epochs: Epochs to train (0: until ``patience`` or ``target_reward``).
        epoch_length: Iterations per epoch; statistics and evaluation follow each epoch.
        patience: Stop after this many epochs without a new best evaluation score.
        rollout_evaluator: Config of the evaluator run after every epoch (None: none).
        target_reward: Stop once an evaluation's mean return reaches this value (None: never).
    """

    n_rollout_steps: int = bounded(1, ge=1)
    lr: float = bounded(0.0003, ge=0)
    optimizer_eps: float = bounded(1e-8, gt=0)
    entropy_coef: Union[float, str] = bounded("auto", gt=0)
    gamma: float = bounded(0.99, gt=0, le=1)
    max_grad_norm: float = bounded(0.0, ge=0)
    batch_size: int = bounded(256, ge=1)
    num_batches_per_iter: int = bounded(1, ge=1)
    num_actors: int = bounded(1, ge=1)
    tau: float = bounded(0.005, gt=0, le=1)
    target_update_interval: int = bounded(1, ge=1)
    device: str = "cpu"
    mixed_precision: bool = False
    entropy_tuning: bool = True
    target_entropy_multiplier: float = bounded(1.0, ge=0)
    entropy_coef_lr: float = bounded(0.0007, ge=0)
    replay_buffer_size: int = bounded(1000000, ge=1)
    initial_buffer_size: int = bounded(1000, ge=0)
    initial_sampling_policy: Any = field(default_factory=lambda: dict(DEFAULT_INITIAL_SAMPLING_POLICY))
    rollouts_per_iteration: int = bounded(1, ge=1)
    split_rollouts_into_transitions: bool = True
    n_epochs: int = bounded(0, ge=0)
    max_env_steps: Optional[int] = bounded(300_000, ge=1)
    epoch_length: int = bounded(1000, ge=1)
    patience: int = bounded(50, ge=0)
    rollout_evaluator: Any = field(default_factory=lambda: dict(DEFAULT_ROLLOUT_EVALUATOR))
    target_reward: Optional[float] = None

    def __post_init__(self) -> None:
        if isinstance(self.entropy_coef, str):
            self.entropy_coef = _auto_entropy_start(self.entropy_coef)
            self.entropy_tuning = True
            self.entropy_coef_lr = self.lr


AUTO_ENTROPY = "auto"
"""``algorithm.entropy_coef`` value that turns on entropy tuning the way stable-baselines3's ``ent_coef`` does."""


def _auto_entropy_start(value: str) -> float:
    """The start value of ``entropy_coef="auto"`` (1.0) or ``"auto_<start>"``.

    Raises:
        ConfigurationError: For any other string, naming the accepted forms.
    """
    text = value.strip().lower()
    if text == AUTO_ENTROPY:
        return 1.0
    start = text.removeprefix(AUTO_ENTROPY + "_") if text.startswith(AUTO_ENTROPY + "_") else ""
    try:
        coefficient = float(start)
    except ValueError:
        coefficient = 0.0
    if not 0 < coefficient < float("inf"):
        raise ConfigurationError(
            f"algorithm.entropy_coef={value!r} is not valid: give a number > 0, 'auto' (tuned, starting at 1.0) "
            "or 'auto_<start>' such as 'auto_0.1'"
        )
    return coefficient
