"""Peer run of the RLlib benchmark: plain RLlib PPO on CartPole-v1 (no maze), until a deterministic mean of 475.

RLlib's CartPole PPO settings (the values of ``rllib/algorithm/ppo.yaml``, which come from it:
lr 3e-4, 4000-step train batches, minibatch 128, 6 epochs, vf_loss_coeff 0.01) with RLlib's
tuned default model for it (one hidden layer of 32 linear units, value layers shared), sampling
in the driver (``num_env_runners=0``). After every iteration 20 episodes are run with the
module's deterministic actions (20 envs stepped as one batch), timed apart from training.

Usage: ``python -m tools.bench.rllib_cartpole --seed 0 --out result.json`` (one JSON line, as
:mod:`tools.bench.peer_run` writes it).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
import torch
import yaml

from .peer_run import PeerResult, main

__all__ = ["train"]

TARGET_REWARD = 475
EVAL_EPISODES = 20
MAX_ENV_STEPS = 200_000
PPO_YAML = Path(__file__).resolve().parents[2] / "packages/maze-rllib/src/maze/rllib/conf/rllib/algorithm/ppo.yaml"
PPO_SETTINGS = yaml.safe_load(PPO_YAML.read_text(encoding="utf-8"))["config"]
"""The PPO keys of ``rllib/algorithm=ppo`` (the Maze-on-RLlib run uses the same), read from its YAML file."""
MODEL = {"fcnet_hiddens": [32], "fcnet_activation": "linear", "vf_share_layers": True}
"""RLlib's tuned CartPole model."""


def evaluate(module: object, seed: int) -> float:
    """Mean return of ``EVAL_EPISODES`` CartPole episodes with the module's most likely actions."""
    from ray.rllib.core.columns import Columns

    envs = [gym.make("CartPole-v1") for _ in range(EVAL_EPISODES)]
    observations = np.stack([env.reset(seed=seed + index)[0] for index, env in enumerate(envs)])
    returns = np.zeros(EVAL_EPISODES)
    alive = np.ones(EVAL_EPISODES, dtype=bool)
    while alive.any():
        with torch.no_grad():
            output = module.forward_inference({Columns.OBS: torch.from_numpy(observations)})  # type: ignore[attr-defined]
        actions = output[Columns.ACTION_DIST_INPUTS].argmax(-1).numpy()
        for index in np.flatnonzero(alive):
            observation, reward, terminated, truncated, _ = envs[index].step(int(actions[index]))
            observations[index] = observation
            returns[index] += reward
            alive[index] = not (terminated or truncated)
    return float(returns.mean())


def train(seed: int) -> PeerResult:
    """Trains until solved or ``MAX_ENV_STEPS``; returns the peer result."""
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    config = (
        PPOConfig()
        .environment("CartPole-v1")
        .env_runners(num_env_runners=0)
        .training(**PPO_SETTINGS)
        .rl_module(model_config=MODEL)
        .debugging(seed=seed)
    )
    algorithm = config.build_algo()
    train_seconds = eval_seconds = 0.0
    env_steps, best, evaluations = 0, -np.inf, 0
    try:
        while env_steps < MAX_ENV_STEPS and best < TARGET_REWARD:
            start = time.perf_counter()
            result = algorithm.train()
            train_seconds += time.perf_counter() - start
            env_steps = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
            start = time.perf_counter()
            best = max(best, evaluate(algorithm.get_module(), seed))
            eval_seconds += time.perf_counter() - start
            evaluations += 1
    finally:
        algorithm.stop()
        ray.shutdown()
    return {
        "solved": bool(best >= TARGET_REWARD),
        "env_steps": env_steps,
        "train_seconds": train_seconds,
        "env_steps_per_second": env_steps / train_seconds,
        "eval_seconds": eval_seconds,
        "learn_seconds": train_seconds + eval_seconds,
        "best_eval_reward": float(best),
        "evaluations": evaluations,
    }


if __name__ == "__main__":
    main(train, __doc__.splitlines()[0])
