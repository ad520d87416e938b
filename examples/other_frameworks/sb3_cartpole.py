"""Combine maze with another RL framework: stable-baselines3 A2C on a maze env with observation normalization.

Maze's env customization (here: observation normalization with statistics estimated from
random actions) works with any framework that trains on gymnasium envs. The env is built
in one of two ways, as in the documentation:

* ``--variant python``: GymMazeEnv, ObservationNormalizationWrapper and
  ``obtain_normalization_statistics`` in plain Python,
* ``--variant hydra``: the same env from the Hydra config ``conf/conf_rollout.yaml`` next to
  this script, via ``make_env_from_hydra("conf")``.

Then ``NoDictSpacesWrapper`` removes the dict spaces (stable-baselines3 does not support
them), A2C trains, and the deterministic policy is rolled out.
Needs ``pip install stable-baselines3``.

Usage: ``python examples/other_frameworks/sb3_cartpole.py [--variant python|hydra] [--timesteps 10000]``
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
from maze.env import GymMazeEnv, RandomPolicy
from maze.env.wrappers.dict_spaces import NoDictSpacesWrapper
from maze.env.wrappers.normalization import ObservationNormalizationWrapper
from maze.env.wrappers.normalization.normalization_utils import (
    find_normalization_wrapper,
    obtain_normalization_statistics,
)
from maze.rl.hydra_config import make_env_from_hydra
from stable_baselines3 import A2C


def normalized_env_from_python() -> Any:
    """CartPole behind GymMazeEnv, observations normalized to mean 0 and std 1."""
    env = GymMazeEnv("CartPole-v1")
    return ObservationNormalizationWrapper(
        env=env,
        default_strategy="MeanZeroStdOneObservationNormalizationStrategy",
        default_strategy_config={"clip_range": (None, None), "axis": 0},
        default_statistics=None,
        statistics_dump="statistics.npz",
        sampling_policy=RandomPolicy(env.action_spaces_dict),
        exclude=None,
        manual_config=None,
    )


def normalized_env_from_hydra() -> Any:
    """The same env from ``conf/conf_rollout.yaml`` (the config package next to this script)."""
    return make_env_from_hydra("conf")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", choices=("python", "hydra"), default="python", help="how the env is built")
    parser.add_argument("--timesteps", type=int, default=10000, help="A2C training steps (default: 10000)")
    parser.add_argument("--episodes", type=int, default=5, help="evaluation episodes (default: 5)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the env and of A2C (default: 0)")
    parser.add_argument("--out-dir", type=Path, default=Path("."), help="where statistics.npz is written")
    args = parser.parse_args()

    # ENV INSTANTIATION: a maze env with observation normalization
    env = normalized_env_from_python() if args.variant == "python" else normalized_env_from_hydra()

    # OBSERVATION NORMALIZATION: estimate the statistics from 1000 random transitions, set them
    # (the hydra variant estimated them while building the env; here they are only returned),
    # and store them for deployment
    statistics = obtain_normalization_statistics(env, n_samples=1000, seed=args.seed)
    env.set_normalization_statistics(statistics)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    find_normalization_wrapper(env).dump_statistics(args.out_dir / "statistics.npz")
    mean, std = statistics["observation"]["mean"], statistics["observation"]["std"]
    print(f"normalization statistics: mean {np.round(mean, 3)}, std {np.round(std, 3)}")

    # stable-baselines3 does not support dict spaces: remove them
    env = NoDictSpacesWrapper(env)

    # TRAINING AND ROLLOUT (plain stable-baselines3)
    model = A2C("MlpPolicy", env, seed=args.seed, verbose=0)
    model.learn(total_timesteps=args.timesteps)

    returns = []
    obs, _ = env.reset(seed=args.seed + 1000)
    while len(returns) < args.episodes:
        episode_return, done = 0.0, False
        while not done:
            action, _state = model.predict(obs, deterministic=True)
            obs, reward, terminated, truncated, _ = env.step(action)
            episode_return += float(reward)
            done = terminated or truncated
        returns.append(episode_return)
        obs, _ = env.reset()
    env.close()
    print(
        f"A2C ({args.variant} env, {args.timesteps} steps): mean return {np.mean(returns):.1f} over {args.episodes} episodes"
    )


if __name__ == "__main__":
    main()
