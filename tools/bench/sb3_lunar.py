"""The stable-baselines3 side of the lunar benchmark: PPO or A2C on LunarLander-v3 with the RL-Zoo's settings.

Run as a subprocess, one per seed: ``python -m tools.bench.sb3_lunar --algorithm ppo --seed 1 --out run.json``.
Hyper-parameters are the RL-Zoo's for LunarLander (``MlpPolicy``: separate [64, 64] tanh
networks, orthogonal initialisation; everything not listed is SB3's default):

* PPO: 16 envs, 1,024 steps each per rollout, batch 64, 4 epochs, gamma 0.999, GAE lambda
  0.98, entropy 0.01, 1M env steps; evaluated every 16,384 env steps (one rollout, maze's epoch).
* A2C: 8 envs, 5 steps each per update, gamma 0.995, learning rate 0.00083 decayed linearly to
  0 (``lin_0.00083``), entropy 1e-5, RMSprop, 200k env steps; evaluated every 20,000 env steps.

Each evaluation runs 10 deterministic episodes on a separate eval env and is recorded with its
wall-clock time; training runs to the budget (no early stop), so the final evaluation is the
policy after the whole budget. The result is :func:`tools.bench.peer_run.learn_and_report`'s
record plus ``curve`` (``[env_steps, unix_time, mean_return]`` per evaluation) and
``final_eval_reward``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any, Optional

import torch
from stable_baselines3 import A2C, PPO
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.utils import LinearSchedule

from .peer_run import learn_and_report
from .sb3_cartpole import TimedEvalCallback

__all__ = ["RL_ZOO", "train"]

ENV_ID = "LunarLander-v3"
EVAL_EPISODES = 10
EVAL_SEED_OFFSET = 10_000
TARGET_REWARD = 200.0
RL_ZOO: dict[str, dict[str, Any]] = {
    "ppo": {
        "n_envs": 16,
        "budget": 1_000_000,
        "eval_every": 16_384,
        "kwargs": {
            "n_steps": 1024,
            "batch_size": 64,
            "gae_lambda": 0.98,
            "gamma": 0.999,
            "n_epochs": 4,
            "ent_coef": 0.01,
        },
    },
    "a2c": {
        "n_envs": 8,
        "budget": 200_000,
        "eval_every": 20_000,
        "kwargs": {"n_steps": 5, "gamma": 0.995, "ent_coef": 1e-5, "learning_rate": LinearSchedule(0.00083, 0.0, 1.0)},
    },
}
"""Per algorithm: envs, env-step budget, env steps between evaluations and the SB3 constructor's arguments."""


class CurveEvalCallback(TimedEvalCallback):
    """A ``TimedEvalCallback`` that keeps ``[env_steps, unix_time, mean_return]`` of every evaluation."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.curve: list[list[float]] = []

    def _on_step(self) -> bool:
        evaluations = self.evaluations
        keep_going = super()._on_step()
        if self.evaluations > evaluations:
            self.curve.append([self.num_timesteps, time.time(), float(self.last_mean_reward)])
        return keep_going


def train(seed: int, algorithm: str = "ppo", budget: Optional[int] = None) -> dict[str, Any]:
    """Trains ``algorithm`` (``ppo`` or ``a2c``) with the RL-Zoo's LunarLander settings for the whole budget.

    Args:
        seed: Seeds the algorithm and the training envs; the eval env gets ``seed + 10000``.
        algorithm: A key of :data:`RL_ZOO`.
        budget: Env steps (None: the zoo's budget).
    """
    torch.set_num_threads(1)
    settings = RL_ZOO[algorithm]
    env = make_vec_env(ENV_ID, n_envs=settings["n_envs"], seed=seed)
    eval_env = make_vec_env(ENV_ID, n_envs=1, seed=seed + EVAL_SEED_OFFSET)
    model_class = {"ppo": PPO, "a2c": A2C}[algorithm]
    model = model_class("MlpPolicy", env, seed=seed, device="cpu", verbose=0, **settings["kwargs"])
    callback = CurveEvalCallback(
        eval_env,
        n_eval_episodes=EVAL_EPISODES,
        eval_freq=settings["eval_every"] // settings["n_envs"],  # the callback counts vector steps
        deterministic=True,
        verbose=0,
    )
    result = learn_and_report(model, callback, budget or settings["budget"], TARGET_REWARD)
    return {**result, "curve": callback.curve, "final_eval_reward": callback.curve[-1][2] if callback.curve else None}


def main() -> None:
    """``--algorithm ppo|a2c --seed S [--budget N] [--out FILE]``: prints (and writes) the JSON result."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithm", choices=tuple(RL_ZOO), required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--budget", type=int, help="env steps (default: the zoo's budget)")
    parser.add_argument("--out", type=Path, help="also write the JSON result to this file")
    args = parser.parse_args()
    line = json.dumps(train(args.seed, args.algorithm, args.budget))
    if args.out is not None:
        args.out.write_text(line + "\n", encoding="utf-8")
    print(line)


if __name__ == "__main__":
    main()
