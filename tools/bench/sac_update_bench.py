"""SAC gradient-step cost: maze's ``SAC.update`` (float32 and mixed precision) against SB3's ``SAC.train``.

Both learners have RL-Zoo's Pendulum settings (SB3's MlpPolicy networks: 256x256 ReLU policy
and Q networks, the action concatenated to the observation at the Q networks' input; maze's
from ``experiment/pendulum_sac.yaml``; batch 256, entropy tuning) and a replay buffer of 5,000
random transitions; one case runs gradient steps (sampling a batch, twin-Q critic step, policy
step, entropy-coefficient step, soft target update), interleaved in this process on one thread
(``torch.set_num_threads(1)``), so machine noise hits both alike. The cost ratio is SB3's rate
over maze's (below 1: maze is faster).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import torch

from .harness import Row, interleaved_rates, paired_row, timed_rate

FILL = 5_000
BATCH = 256
CASE, MIXED, PEER = "maze SAC.update", "maze SAC.update, mixed_precision", "stable-baselines3 SAC.train"


def maze_trainer(mixed_precision: bool) -> Callable[[int], None]:
    """A maze SAC trainer on Pendulum-v1 with a filled buffer; returns ``steps -> None`` running gradient steps.

    The config is the SAC benchmark's ``maze-run`` command (``+experiment=pendulum_sac``: SB3's
    networks and hyper-parameters), composed by Hydra, with a larger initial buffer.
    """
    from maze.rl.hydra_config import read_hydra_config
    from maze.rl.run import build_runner, prepare_config

    overrides = [
        "env.name=Pendulum-v1",
        "algorithm=sac",
        "model=vector_obs",
        "critic=template_state_action",
        "+experiment=pendulum_sac",
        f"algorithm.batch_size={BATCH}",
        f"algorithm.initial_buffer_size={FILL}",
        f"algorithm.mixed_precision={str(mixed_precision).lower()}",
        "seeding.env_base_seed=0",
        "seeding.agent_base_seed=0",
        f"runner.launch_dir={Path.cwd()}",  # maze-run takes it from Hydra's runtime
    ]
    config = prepare_config(read_hydra_config(config_name="conf_train", overrides=overrides), Path.cwd())
    previous = Path.cwd()
    os.chdir(tempfile.mkdtemp(prefix="maze-sac-update-"))
    try:
        runner = build_runner(config)
        runner.setup(config)
    finally:
        os.chdir(previous)
    trainer = runner.trainer

    def steps(count: int) -> None:
        for _ in range(count):
            trainer.update(trainer.workers.sample_batch(BATCH))
        trainer._update_stats.clear()

    return steps


def sb3_trainer() -> Callable[[int], None]:
    """An SB3 SAC with RL-Zoo's Pendulum settings and a filled buffer; returns ``steps -> None``."""
    from stable_baselines3 import SAC
    from stable_baselines3.common.env_util import make_vec_env

    model = SAC("MlpPolicy", make_vec_env("Pendulum-v1", n_envs=1, seed=0), learning_rate=1e-3, seed=0, device="cpu")
    model.learning_starts = FILL
    model.learn(total_timesteps=FILL)  # only random steps: learning starts after FILL steps

    def steps(count: int) -> None:
        model.train(gradient_steps=count, batch_size=BATCH)

    return steps


def run(n_steps: int, rounds: int) -> list[Row]:
    """Interleaved rounds of ``n_steps // 500`` gradient steps per learner; one row (rates in gradient steps/s)."""
    torch.set_num_threads(1)
    count = max(n_steps // 500, 10)
    learners = {CASE: maze_trainer(False), MIXED: maze_trainer(True), PEER: sb3_trainer()}
    for learner in learners.values():
        learner(10)  # warm-up
    cases = {
        name: (lambda learner=learner: timed_rate(lambda: learner(count) or count))
        for name, learner in learners.items()
    }
    rates = interleaved_rates(cases, rounds)
    return [paired_row(rates, CASE, PEER, max_ratio=None), paired_row(rates, MIXED, PEER, max_ratio=None)]


def notes(rows: list[Row]) -> str:
    """How the table was measured."""
    return (
        "Gradient steps per second on one core (Pendulum-v1, RL-Zoo networks and batch 256, a buffer of 5,000 "
        "random transitions), interleaved in one process (median over rounds). Cost ratio = SB3 rate / maze rate, "
        "the median of per-round ratios: below 1.00× maze is faster. `mixed_precision`: the forward and backward "
        "passes on bfloat16 copies of the networks (float32 parameters, optimizer state and losses); this CPU has "
        "AVX512-BF16."
    )
