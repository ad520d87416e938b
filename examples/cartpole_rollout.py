"""CartPole rollouts through the maze env layer: GymMazeEnv, a wrapper stack and a vector env.

Runs a heuristic (DummyCartPolePolicy) and a random policy for the same number of
episodes on ``n_envs`` CartPole-v1 envs stepped together by a SequentialVectorEnv, and
prints progress and a summary table.

Usage: ``python examples/cartpole_rollout.py [--episodes 20] [--envs 4] [--seed 0]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from maze.env import DummyCartPolePolicy, GymMazeEnv, Policy, RandomPolicy, SequentialVectorEnv, TimeLimitWrapper


def make_env() -> TimeLimitWrapper:
    """One CartPole-v1 env behind maze's gymnasium adapter, limited to 500 steps."""
    return TimeLimitWrapper.wrap(GymMazeEnv("CartPole-v1"), max_episode_steps=500)


def run_episodes(policy: Policy, n_episodes: int, n_envs: int, seed: int) -> tuple[list[float], int, float]:
    """Steps ``n_envs`` envs with ``policy`` until ``n_episodes`` episodes have ended.

    Returns:
        The episode returns, the number of env steps taken and the elapsed seconds.
    """
    envs = SequentialVectorEnv([make_env] * n_envs)
    observations, _ = envs.reset(seed=seed)
    running_returns = np.zeros(n_envs)
    returns: list[float] = []
    steps, start = 0, time.perf_counter()
    while len(returns) < n_episodes:
        actions = [policy.compute_action({key: value[i] for key, value in observations.items()}) for i in range(n_envs)]
        batched = {"action": np.array([action["action"] for action in actions])}
        observations, rewards, terminated, truncated, _ = envs.step(batched)
        running_returns += rewards
        steps += n_envs
        for index in np.flatnonzero(terminated | truncated):
            returns.append(float(running_returns[index]))
            running_returns[index] = 0.0
            if len(returns) % max(1, n_episodes // 4) == 0:
                print(f"  {type(policy).__name__}: {len(returns)}/{n_episodes} episodes done")
    envs.close()
    return returns[:n_episodes], steps, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=20, help="episodes per policy (default: 20)")
    parser.add_argument("--envs", type=int, default=4, help="envs stepped together (default: 4)")
    parser.add_argument("--seed", type=int, default=0, help="base seed; env i gets seed + i (default: 0)")
    args = parser.parse_args()

    probe = make_env()
    policies: list[Policy] = [DummyCartPolePolicy(), RandomPolicy(probe.action_spaces_dict, seed=args.seed)]
    probe.close()
    print(f"CartPole-v1, {args.envs} envs, {args.episodes} episodes per policy")
    rows = []
    for policy in policies:
        returns, steps, seconds = run_episodes(policy, args.episodes, args.envs, args.seed)
        rows.append((type(policy).__name__, np.mean(returns), np.min(returns), np.max(returns), steps / seconds))
    print(f"\n{'policy':<22}{'mean return':>12}{'min':>8}{'max':>8}{'steps/s':>10}")
    for name, mean, low, high, rate in rows:
        print(f"{name:<22}{mean:>12.1f}{low:>8.0f}{high:>8.0f}{rate:>10.0f}")


if __name__ == "__main__":
    main()
