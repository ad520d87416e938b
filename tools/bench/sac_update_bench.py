"""SAC gradient-step cost: maze's ``SAC.update`` (float32 and mixed precision) against SB3's ``SAC.train``.

Two settings of the RL-Zoo, each with SB3's MlpPolicy networks (ReLU policy and Q networks, the
action concatenated to the observation at the Q networks' input) and batch 256, entropy tuning:

* Pendulum-v1: 256x256 networks, learning rate 1e-3 (maze: ``experiment/pendulum_sac.yaml``);
* LunarLanderContinuous-v3: 400x300 networks, learning rate 7.3e-4, tau 0.01 (maze:
  ``experiment/lunarlander_continuous_sac.yaml``; the issue's target is at least twice SB3's rate).

Every learner has a replay buffer of 5,000 random transitions; one case runs gradient steps
(sampling a batch, twin-Q critic step, policy step, entropy-coefficient step, soft target
update), interleaved in this process on one thread (``torch.set_num_threads(1)``), so machine
noise hits all alike. The cost ratio is SB3's rate over maze's (below 1: maze is faster).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import torch

from .harness import MEMORY_NOTE, Row, interleaved_rates, paired_row, peak_rss_growth, timed_rate

FILL = 5_000
BATCH = 256


@dataclass(frozen=True)
class Setting:
    """One env with its RL-Zoo settings on both sides.

    Attributes:
        label: Names the setting in the rows.
        maze_overrides: The ``maze-run`` overrides selecting maze's experiment.
        env_id: The gymnasium id (SB3 side).
        sb3_kwargs: SB3 ``SAC`` arguments beyond its defaults.
        max_ratio: The cost-ratio target of the mixed-precision row (None: none).
    """

    label: str
    maze_overrides: tuple[str, ...]
    env_id: str
    sb3_kwargs: dict[str, Any] = field(default_factory=dict)
    max_ratio: Optional[float] = None


SETTINGS = (
    Setting(
        "Pendulum-v1, 256x256",
        (
            "env.name=Pendulum-v1",
            "algorithm=sac",
            "model=vector_obs",
            "critic=template_state_action",
            "+experiment=pendulum_sac",
        ),
        "Pendulum-v1",
        {"learning_rate": 1e-3},
    ),
    Setting(
        "LunarLanderContinuous-v3, 400x300",
        ("+experiment=lunarlander_continuous_sac",),
        "LunarLanderContinuous-v3",
        {"learning_rate": 7.3e-4, "tau": 0.01, "policy_kwargs": {"net_arch": [400, 300]}},
        max_ratio=0.5,
    ),
)


def maze_trainer(setting: Setting, mixed_precision: bool) -> Callable[[int], None]:
    """A maze SAC trainer of ``setting`` with a filled buffer; returns ``steps -> None`` running gradient steps.

    The config is the setting's ``maze-run`` command (its experiment: SB3's networks and
    hyper-parameters), composed by Hydra, with a larger initial buffer.
    """
    from maze.rl.hydra_config import read_hydra_config
    from maze.rl.run import build_runner, prepare_config

    overrides = [
        *setting.maze_overrides,
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


def sb3_trainer(setting: Setting) -> Callable[[int], None]:
    """An SB3 SAC with the setting's RL-Zoo arguments and a filled buffer; returns ``steps -> None``."""
    from stable_baselines3 import SAC
    from stable_baselines3.common.env_util import make_vec_env

    env = make_vec_env(setting.env_id, n_envs=1, seed=0)
    model = SAC("MlpPolicy", env, seed=0, device="cpu", **setting.sb3_kwargs)
    model.learning_starts = FILL
    model.learn(total_timesteps=FILL)  # only random steps: learning starts after FILL steps

    def steps(count: int) -> None:
        model.train(gradient_steps=count, batch_size=BATCH)

    return steps


def run(n_steps: int, rounds: int) -> list[Row]:
    """Interleaved rounds of ``n_steps // 500`` gradient steps per learner; two rows per setting (gradient steps/s)."""
    torch.set_num_threads(1)
    count = max(n_steps // 500, 10)
    learners: dict[str, Callable[[int], None]] = {}
    pairs: list[tuple[str, str, Optional[float]]] = []
    for setting in SETTINGS:
        case, mixed, peer = (
            f"maze SAC.update ({setting.label})",
            f"maze SAC.update, mixed_precision ({setting.label})",
            f"stable-baselines3 SAC.train ({setting.label})",
        )
        learners |= {case: maze_trainer(setting, False), mixed: maze_trainer(setting, True), peer: sb3_trainer(setting)}
        pairs += [(case, peer, None), (mixed, peer, setting.max_ratio)]
    for learner in learners.values():
        learner(10)  # warm-up
    cases = {
        name: (lambda learner=learner: timed_rate(lambda: learner(count) or count))
        for name, learner in learners.items()
    }
    rates = interleaved_rates(cases, rounds)
    memory = peak_rss_growth(cases)
    return [paired_row(rates, case, peer, max_ratio=max_ratio, memory=memory) for case, peer, max_ratio in pairs]


def notes(rows: list[Row]) -> str:
    """How the table was measured."""
    return (
        "Gradient steps per second on one core (RL-Zoo networks: Pendulum-v1 256x256, LunarLanderContinuous-v3 "
        "400x300; batch 256, a buffer of 5,000 random transitions), interleaved in one process (median over rounds). Cost ratio = SB3 rate / maze rate, "
        "the median of per-round ratios: below 1.00× maze is faster. `mixed_precision`: the forward and backward "
        "passes on bfloat16 copies of the networks (float32 parameters, optimizer state and losses); this CPU has "
        "AVX512-BF16. Target (issue 30): LunarLanderContinuous with mixed precision at least twice SB3's rate (≤ 0.5×). "
        + MEMORY_NOTE
    )
