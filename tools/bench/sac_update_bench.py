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
from importlib.resources import files
from pathlib import Path

import torch
import yaml

from .harness import Row, interleaved_rates, paired_row, timed_rate

FILL = 5_000
BATCH = 256
CASE, MIXED, PEER = "maze SAC.update", "maze SAC.update, mixed_precision", "stable-baselines3 SAC.train"


def maze_trainer(mixed_precision: bool) -> Callable[[int], None]:
    """A maze SAC trainer on Pendulum-v1 with a filled buffer; returns ``steps -> None`` running gradient steps."""
    from maze.train.trainers.sac.sac_runners import SACDevRunner

    model = yaml.safe_load(files("maze.perception.conf.model").joinpath("vector_obs.yaml").read_text())
    experiment = yaml.safe_load(files("maze.conf.experiment").joinpath("pendulum_sac.yaml").read_text())
    builder, networks = model["model_builder"], experiment["model"]["model_builder"]  # SB3's MlpPolicy networks
    builder["shared_embedding_keys"] = networks["shared_embedding_keys"]
    builder["observation_modality_mapping"] = networks["observation_modality_mapping"]
    builder["modality_config"]["flat"] = networks["modality_config"]["flat"]
    builder["modality_config"]["hidden"]["block_params"] = networks["modality_config"]["hidden"]["block_params"]
    model.update(
        yaml.safe_load(files("maze.perception.conf.critic").joinpath("template_state_action.yaml").read_text())
    )
    config = {
        "env": {"_target_": "maze.env.gym_adapter.gym_maze_env.make_gym_maze_env", "name": "Pendulum-v1"},
        "wrappers": {},
        "model": model,
        "algorithm": {
            "batch_size": BATCH,
            "initial_buffer_size": FILL,
            "lr": 1e-3,
            "entropy_coef": 1.0,
            "mixed_precision": mixed_precision,
        },
        "seeding": {"env_base_seed": 0, "agent_base_seed": 0},
    }
    previous = Path.cwd()
    os.chdir(tempfile.mkdtemp(prefix="maze-sac-update-"))
    try:
        runner = SACDevRunner("maze.train.trainers.sac.sac_trainer.SAC")
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
