"""The sb3-contrib side of the ES benchmark: ARS on CartPole-v1 until solved.

Run as a subprocess, one per seed: ``python -m tools.bench.ars_cartpole --seed 0 --out run.json``.
Hyperparameters are RL-Zoo's for ARS on CartPole-v1 (``rl_zoo3/hyperparams/ars.yml`` of
rl-zoo3 2.9.2: one env, ``LinearPolicy``, ``n_delta: 2``, a budget of 5e4 env steps; every
other setting is sb3-contrib's default). Every 4,000 env steps, at the start of the next
update (when the policy holds the current mean weights, not a perturbed candidate), 20
deterministic episodes run on a separate eval env; training stops as soon as their mean
reaches 475. ARS's ``learn`` ignores a callback's request to stop, so the callback raises
:class:`Solved` to end it.

The result is one JSON object (printed as the last stdout line and written to ``--out``)
with the keys of ``tools.bench.sb3_cartpole``.
"""

from __future__ import annotations

import time

import torch
from sb3_contrib import ARS
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.evaluation import evaluate_policy

from .peer_run import learn_and_report, main

__all__ = ["EvalAtUpdates", "Solved", "train"]

ENV_ID = "CartPole-v1"
TARGET_REWARD = 475.0
EVAL_EVERY_ENV_STEPS = 4_000
EVAL_EPISODES = 20
EVAL_SEED_OFFSET = 10_000
RL_ZOO = {"n_envs": 1, "total_timesteps": 50_000, "policy": "LinearPolicy", "n_delta": 2}


class Solved(Exception):
    """Raised by the callback to end ``ARS.learn`` at the solving evaluation."""


class EvalAtUpdates(BaseCallback):
    """Evaluates the mean policy at the start of an update once ``every`` env steps have passed.

    Attributes:
        eval_seconds: Seconds spent in evaluations.
        evaluations: How many evaluations ran.
        best_mean_reward: Best evaluation mean so far.
    """

    def __init__(self, eval_env, every: int, n_episodes: int, target: float) -> None:
        super().__init__()
        self.eval_env, self.every, self.n_episodes, self.target = eval_env, every, n_episodes, target
        self.last_eval = 0
        self.eval_seconds = 0.0
        self.evaluations = 0
        self.best_mean_reward = -float("inf")

    def _on_rollout_start(self) -> None:
        if self.num_timesteps - self.last_eval < self.every:
            return
        self.last_eval = self.num_timesteps
        start = time.perf_counter()
        mean, _ = evaluate_policy(self.model, self.eval_env, n_eval_episodes=self.n_episodes, deterministic=True)
        self.eval_seconds += time.perf_counter() - start
        self.evaluations += 1
        self.best_mean_reward = max(self.best_mean_reward, float(mean))
        if mean >= self.target:
            raise Solved

    def _on_step(self) -> bool:
        return True


def train(seed: int) -> dict[str, float | int | bool]:
    """Trains ARS with the RL-Zoo CartPole-v1 settings until solved or out of budget."""
    torch.set_num_threads(1)
    env = make_vec_env(ENV_ID, n_envs=RL_ZOO["n_envs"], seed=seed)
    eval_env = make_vec_env(ENV_ID, n_envs=1, seed=seed + EVAL_SEED_OFFSET)
    model = ARS(RL_ZOO["policy"], env, n_delta=RL_ZOO["n_delta"], seed=seed, device="cpu", verbose=0)
    callback = EvalAtUpdates(eval_env, EVAL_EVERY_ENV_STEPS, EVAL_EPISODES, TARGET_REWARD)
    return learn_and_report(model, callback, RL_ZOO["total_timesteps"], TARGET_REWARD, stop=(Solved,))


if __name__ == "__main__":
    main(train, __doc__.splitlines()[0])
