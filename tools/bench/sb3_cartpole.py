"""The stable-baselines3 side of the training benchmark: PPO on CartPole-v1 until solved.

Run as a subprocess, one per seed: ``python -m tools.bench.sb3_cartpole --seed 0 --out run.json``.
Hyperparameters are RL-Zoo's for PPO on CartPole-v1 (8 envs, 32 steps each per rollout,
batch 256, 20 epochs, gamma 0.98, GAE lambda 0.8, no entropy bonus, learning rate and clip
range decaying linearly from 1e-3 and 0.2 over a budget of 1e5 env steps, ``MlpPolicy``).
Every 4,000 env steps 20 deterministic episodes run on a separate single eval env; training
stops as soon as their mean reaches 475 (``StopTrainingOnRewardThreshold``). A run that
spends the whole budget without that is "not solved".

The result is one JSON object (printed as the last stdout line and written to ``--out``):

* ``solved``: the eval mean reached the threshold.
* ``env_steps``: env steps trained when training stopped (at the solving eval, or the budget).
* ``train_seconds``: ``model.learn`` wall time minus the time spent inside evaluations.
* ``env_steps_per_second``: ``env_steps / train_seconds``.
* ``eval_seconds``, ``learn_seconds``, ``best_eval_reward``, ``evaluations``.
"""

from __future__ import annotations

import time

import torch
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import EvalCallback, StopTrainingOnRewardThreshold
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.utils import LinearSchedule

from .peer_run import learn_and_report, main

__all__ = ["TimedEvalCallback", "train"]

ENV_ID = "CartPole-v1"
TARGET_REWARD = 475.0
EVAL_EVERY_ENV_STEPS = 4_000
EVAL_EPISODES = 20
EVAL_SEED_OFFSET = 10_000  # the eval env never replays the training envs' episodes
RL_ZOO = {
    "n_envs": 8,
    "total_timesteps": 100_000,
    "n_steps": 32,
    "batch_size": 256,
    "gae_lambda": 0.8,
    "gamma": 0.98,
    "n_epochs": 20,
    "ent_coef": 0.0,
    "learning_rate": 1e-3,
    "clip_range": 0.2,
}


class TimedEvalCallback(EvalCallback):
    """An ``EvalCallback`` that also sums the wall time spent in its evaluations.

    Args:
        *args: ``EvalCallback``'s arguments.
        first_eval_after: Env steps (calls) before the first evaluation; then one every
            ``eval_freq`` calls. None: ``eval_freq`` (``EvalCallback``'s grid).
        **kwargs: ``EvalCallback``'s keyword arguments.

    Attributes:
        eval_seconds: Seconds spent in evaluation steps so far.
        evaluations: How many evaluations ran.
    """

    def __init__(self, *args, first_eval_after: int | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.first_eval_after = self.eval_freq if first_eval_after is None else first_eval_after
        self.eval_seconds = 0.0
        self.evaluations = 0

    def _on_step(self) -> bool:
        since_first = self.n_calls - self.first_eval_after
        if self.eval_freq <= 0 or since_first < 0 or since_first % self.eval_freq:
            return True  # EvalCallback does nothing between its evaluations
        calls, self.n_calls = self.n_calls, self.eval_freq  # EvalCallback evaluates at multiples of eval_freq
        start = time.perf_counter()
        try:
            keep_going = super()._on_step()
        finally:
            self.n_calls = calls
        self.eval_seconds += time.perf_counter() - start
        self.evaluations += 1
        return keep_going


def train(seed: int) -> dict[str, float | int | bool]:
    """Trains PPO with the RL-Zoo CartPole-v1 settings until solved or out of budget.

    Args:
        seed: Seeds the algorithm (torch, numpy, training envs); the eval env gets
            ``seed + 10000``.

    Returns:
        The result record described in the module docstring.
    """
    torch.set_num_threads(1)
    n_envs = RL_ZOO["n_envs"]
    env = make_vec_env(ENV_ID, n_envs=n_envs, seed=seed)
    eval_env = make_vec_env(ENV_ID, n_envs=1, seed=seed + EVAL_SEED_OFFSET)
    model = PPO(
        "MlpPolicy",
        env,
        n_steps=RL_ZOO["n_steps"],
        batch_size=RL_ZOO["batch_size"],
        gae_lambda=RL_ZOO["gae_lambda"],
        gamma=RL_ZOO["gamma"],
        n_epochs=RL_ZOO["n_epochs"],
        ent_coef=RL_ZOO["ent_coef"],
        learning_rate=LinearSchedule(RL_ZOO["learning_rate"], 0.0, 1.0),
        clip_range=LinearSchedule(RL_ZOO["clip_range"], 0.0, 1.0),
        seed=seed,
        device="cpu",
        verbose=0,
    )
    callback = TimedEvalCallback(
        eval_env,
        callback_on_new_best=StopTrainingOnRewardThreshold(reward_threshold=TARGET_REWARD, verbose=0),
        n_eval_episodes=EVAL_EPISODES,
        eval_freq=max(EVAL_EVERY_ENV_STEPS // n_envs, 1),  # the callback counts vector steps
        deterministic=True,
        verbose=0,
    )
    return learn_and_report(model, callback, RL_ZOO["total_timesteps"], TARGET_REWARD)


if __name__ == "__main__":
    main(train, __doc__.splitlines()[0])
