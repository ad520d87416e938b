"""The stable-baselines3 side of the lunar benchmark: PPO, A2C or SAC on LunarLander with the RL-Zoo's settings.

Run as a subprocess, one per seed: ``python -m tools.bench.sb3_lunar --algorithm ppo --seed 1 --out run.json``.
Hyper-parameters are the RL-Zoo's for LunarLander-v3 and LunarLanderContinuous-v3 (PPO and A2C:
``MlpPolicy``, separate [64, 64] tanh networks, orthogonal initialisation; everything not listed
is SB3's default):

* PPO: 16 envs, 1,024 steps each per rollout, batch 64, 4 epochs, gamma 0.999, GAE lambda
  0.98, entropy 0.01, 1M env steps; evaluated every 16,384 env steps (one rollout, maze's epoch).
* A2C: 8 envs, 5 steps each per update, gamma 0.995, learning rate 0.00083 decayed linearly to
  0 (``lin_0.00083``), entropy 1e-5, RMSprop, 200k env steps; evaluated every 20,000 env steps.
* SAC (LunarLanderContinuous-v3): [400, 300] ReLU networks, batch 256, buffer 1M, 10,000 random
  steps, one gradient step per env step, gamma 0.99, tau 0.01, ``ent_coef='auto'``, learning rate
  7.3e-4 decayed linearly to 0 over 500k env steps (``lin_7.3e-4``); evaluated every 10,000 env
  steps from 20,000 on (maze's grid); it stops at a mean of 200 or after ``--max-seconds``.

Each evaluation runs 10 deterministic episodes on a separate eval env and is recorded with its
wall-clock time; PPO and A2C train to the budget (no early stop), so their final evaluation is
the policy after the whole budget. The result is :func:`tools.bench.peer_run.learn_and_report`'s
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
from stable_baselines3 import A2C, PPO, SAC
from stable_baselines3.common.callbacks import StopTrainingOnRewardThreshold
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.utils import LinearSchedule

from .peer_run import learn_and_report
from .sb3_cartpole import TimedEvalCallback

__all__ = ["RL_ZOO", "train"]

EVAL_EPISODES = 10
EVAL_SEED_OFFSET = 10_000
TARGET_REWARD = 200.0
RL_ZOO: dict[str, dict[str, Any]] = {
    "ppo": {
        "env": "LunarLander-v3",
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
        "env": "LunarLander-v3",
        "n_envs": 8,
        "budget": 200_000,
        "eval_every": 20_000,
        "kwargs": {"n_steps": 5, "gamma": 0.995, "ent_coef": 1e-5, "learning_rate": LinearSchedule(0.00083, 0.0, 1.0)},
    },
    "sac": {
        "env": "LunarLanderContinuous-v3",
        "n_envs": 1,
        "budget": 500_000,
        "eval_every": 10_000,
        "first_eval_after": 20_000,
        "stop_at_target": True,
        "kwargs": {
            "batch_size": 256,
            "learning_rate": LinearSchedule(7.3e-4, 0.0, 1.0),
            "buffer_size": 1_000_000,
            "ent_coef": "auto",
            "gamma": 0.99,
            "tau": 0.01,
            "train_freq": 1,
            "gradient_steps": 1,
            "learning_starts": 10_000,
            "policy_kwargs": {"net_arch": [400, 300]},
        },
    },
}
"""Per algorithm: env, envs, env-step budget, evaluation grid, early stop and the SB3 constructor's arguments."""


class CurveEvalCallback(TimedEvalCallback):
    """A ``TimedEvalCallback`` that keeps ``[env_steps, unix_time, mean_return]`` of every evaluation.

    Args:
        *args: ``TimedEvalCallback``'s arguments.
        max_seconds: Stops training at the first evaluation this many seconds after the callback
            was made (None: no limit).
        **kwargs: ``TimedEvalCallback``'s keyword arguments.
    """

    def __init__(self, *args: Any, max_seconds: Optional[float] = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.curve: list[list[float]] = []
        self.deadline = None if max_seconds is None else time.time() + max_seconds

    def _on_step(self) -> bool:
        evaluations = self.evaluations
        keep_going = super()._on_step()
        if self.evaluations > evaluations:
            self.curve.append([self.num_timesteps, time.time(), float(self.last_mean_reward)])
            if self.deadline is not None and time.time() >= self.deadline:
                return False
        return keep_going


def train(
    seed: int, algorithm: str = "ppo", budget: Optional[int] = None, max_seconds: Optional[float] = None
) -> dict[str, Any]:
    """Trains ``algorithm`` (a key of :data:`RL_ZOO`) with the RL-Zoo's settings for the whole budget.

    Args:
        seed: Seeds the algorithm and the training envs; the eval env gets ``seed + 10000``.
        algorithm: A key of :data:`RL_ZOO`.
        budget: Env steps (None: the zoo's budget).
        max_seconds: Stops at the first evaluation after this many seconds (None: no limit).
    """
    torch.set_num_threads(1)
    settings = RL_ZOO[algorithm]
    env = make_vec_env(settings["env"], n_envs=settings["n_envs"], seed=seed)
    eval_env = make_vec_env(settings["env"], n_envs=1, seed=seed + EVAL_SEED_OFFSET)
    model_class = {"ppo": PPO, "a2c": A2C, "sac": SAC}[algorithm]
    model = model_class("MlpPolicy", env, seed=seed, device="cpu", verbose=0, **settings["kwargs"])
    vector_steps = settings["n_envs"]  # the callback counts vector steps
    callback = CurveEvalCallback(
        eval_env,
        n_eval_episodes=EVAL_EPISODES,
        eval_freq=settings["eval_every"] // vector_steps,
        first_eval_after=settings.get("first_eval_after", settings["eval_every"]) // vector_steps,
        callback_on_new_best=StopTrainingOnRewardThreshold(TARGET_REWARD) if settings.get("stop_at_target") else None,
        max_seconds=max_seconds,
        deterministic=True,
        verbose=0,
    )
    result = learn_and_report(model, callback, budget or settings["budget"], TARGET_REWARD)
    return {**result, "curve": callback.curve, "final_eval_reward": callback.curve[-1][2] if callback.curve else None}


def main() -> None:
    """``--algorithm ppo|a2c|sac --seed S [--budget N] [--max-seconds T] [--out FILE]``: prints the JSON result."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithm", choices=tuple(RL_ZOO), required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--budget", type=int, help="env steps (default: the zoo's budget)")
    parser.add_argument("--max-seconds", type=float, help="stop at the first evaluation after this many seconds")
    parser.add_argument("--out", type=Path, help="also write the JSON result to this file")
    args = parser.parse_args()
    line = json.dumps(train(args.seed, args.algorithm, args.budget, args.max_seconds))
    if args.out is not None:
        args.out.write_text(line + "\n", encoding="utf-8")
    print(line)


if __name__ == "__main__":
    main()
