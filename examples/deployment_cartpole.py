"""Deploying an agent into a service that owns the environment (inverted control).

The "production" environment is a plain gymnasium CartPole-v1 that knows nothing about
maze. It asks the agent for an action whenever it is ready; the AgentDeployment runs the
policy with its wrapper stack (here: monitoring events and statistics) in the calling
thread and hands back the MazeAction — for a GymMazeEnv simply the gymnasium action.
``close`` ends an episode and prints its statistics; ``reset`` prepares the next one.

Usage: ``python examples/deployment_cartpole.py [--episodes 2] [--policy heuristic|random] [--seed 0]``
"""

from __future__ import annotations

import argparse

import gymnasium as gym
from maze.deploy import AgentDeployment
from maze.env import DummyCartPolePolicy, GymMazeEnv, LogStatsWriterConsole, RandomPolicy, register_log_stats_writer

WRAPPERS = {"MazeEnvMonitoringWrapper": {"observation_logging": False, "action_logging": True, "reward_logging": True}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=2)
    parser.add_argument("--policy", choices=["heuristic", "random"], default="heuristic")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    register_log_stats_writer(LogStatsWriterConsole())  # close() writes each episode's statistics here
    env = GymMazeEnv("CartPole-v1")
    policy = DummyCartPolePolicy() if args.policy == "heuristic" else RandomPolicy(env.action_spaces_dict, args.seed)
    agent = AgentDeployment(policy=policy, env=env, wrappers=WRAPPERS)

    external_env = gym.make("CartPole-v1")  # stands in for a production system that does not use maze
    for episode in range(args.episodes):
        maze_state, info = external_env.reset(seed=args.seed + episode)
        reward, done, steps, episode_return = 0.0, False, 0, 0.0
        while not done:
            maze_action = agent.act(maze_state, reward, done, info)
            maze_state, reward, terminated, truncated, info = external_env.step(maze_action)
            done = terminated or truncated
            steps += 1
            episode_return += float(reward)
        agent.close(maze_state, reward, done, info)
        agent.reset()
        print(f"episode {episode}: {steps} steps, return {episode_return:.1f}")
    external_env.close()


if __name__ == "__main__":
    main()
