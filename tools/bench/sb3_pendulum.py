"""The stable-baselines3 side of the SAC benchmark: SAC on Pendulum-v1 until the evaluation reaches -200.

Run as a subprocess, one per seed: ``python -m tools.bench.sb3_pendulum --seed 0 --out run.json``.
Hyperparameters are RL-Zoo's for SAC on Pendulum-v1 (``MlpPolicy``, learning rate 1e-3, all
else SB3's defaults: one env, 100 random steps before learning, one gradient step of batch 256
per env step, tau 0.005, gamma 0.99, entropy coefficient tuned from 1.0 towards -dim(A),
256x256 ReLU networks) with a budget of 20,000 env steps. After 1,100, 2,100, ... env steps
(the 100 random ones and then every 1,000, the env steps at which maze's epochs end) 10
deterministic episodes run on a separate eval env; training stops as soon as their mean
reaches -200 (``StopTrainingOnRewardThreshold``).

The result is the JSON object of :func:`tools.bench.sb3_cartpole.train`'s format.
"""

from __future__ import annotations

import torch
from stable_baselines3 import SAC
from stable_baselines3.common.callbacks import StopTrainingOnRewardThreshold
from stable_baselines3.common.env_util import make_vec_env

from .peer_run import learn_and_report, main
from .sb3_cartpole import TimedEvalCallback

__all__ = ["train"]

ENV_ID = "Pendulum-v1"
TARGET_REWARD = -200.0
BUDGET_ENV_STEPS = 20_000
EVAL_EVERY_ENV_STEPS = 1_000
RANDOM_ENV_STEPS = 100  # SB3's learning_starts: the first evaluation comes 1,000 env steps after them
EVAL_EPISODES = 10
EVAL_SEED_OFFSET = 10_000


def train(seed: int) -> dict[str, float | int | bool]:
    """Trains SAC with the RL-Zoo Pendulum-v1 settings until the target or the budget; returns the result record."""
    torch.set_num_threads(1)
    env = make_vec_env(ENV_ID, n_envs=1, seed=seed)
    eval_env = make_vec_env(ENV_ID, n_envs=1, seed=seed + EVAL_SEED_OFFSET)
    model = SAC(
        "MlpPolicy", env, learning_rate=1e-3, learning_starts=RANDOM_ENV_STEPS, seed=seed, device="cpu", verbose=0
    )
    callback = TimedEvalCallback(
        eval_env,
        callback_on_new_best=StopTrainingOnRewardThreshold(reward_threshold=TARGET_REWARD, verbose=0),
        n_eval_episodes=EVAL_EPISODES,
        eval_freq=EVAL_EVERY_ENV_STEPS,
        first_eval_after=RANDOM_ENV_STEPS + EVAL_EVERY_ENV_STEPS,
        deterministic=True,
        verbose=0,
    )
    return learn_and_report(model, callback, BUDGET_ENV_STEPS, TARGET_REWARD)


if __name__ == "__main__":
    main(train, __doc__.splitlines()[0])
