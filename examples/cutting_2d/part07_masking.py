"""Part 7 - step-conditional action masking, and a greedy heuristic on the "simple problem".

The masked structured env adds ``inventory_mask`` (which pieces can fulfil the order) to
sub-step 0 and ``cutting_mask`` (which rotations fit) to sub-step 1. On the simple problem
(raw piece 4 x 3, six orders of total area 12 in turn, 180 steps; at best 30 raw pieces)
the greedy heuristic is compared with random valid actions (sampled where the masks
allow) and with plain random actions.
"""

import argparse

import numpy as np
from maze.env import RandomPolicy, TimeLimitWrapper
from maze.env.examples.cutting_2d import (
    SIMPLE_PROBLEM_EPISODE_STEPS,
    Cutting2DGreedyPolicy,
    RandomValidCutting2DPolicy,
    masked_struct_env_factory,
    run_episode,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=5, help="episodes per policy")
    args = parser.parse_args()

    env = TimeLimitWrapper(masked_struct_env_factory(), max_episode_steps=SIMPLE_PROBLEM_EPISODE_STEPS)
    for step_key in (0, 1):
        print(f"observation_space {step_key}: {sorted(env.observation_spaces_dict[step_key].spaces)}")
        print(f"action_space {step_key}:      {sorted(env.action_spaces_dict[step_key].spaces)}")

    policies = {
        "greedy": Cutting2DGreedyPolicy(),
        "random_valid": RandomValidCutting2DPolicy(),
        "random": RandomPolicy(env.action_spaces_dict),
    }
    for name, policy in policies.items():
        summaries = [run_episode(env, policy, seed) for seed in range(args.episodes)]
        usage = np.mean([summary.raw_piece_usage_per_step for summary in summaries])
        reward = np.mean([summary.reward for summary in summaries])
        invalid = np.mean([summary.invalid_actions for summary in summaries])
        print(
            f"{name:<12} raw_piece_usage_per_step {usage:.4f} | mean reward {reward:.1f} | "
            f"mean invalid actions {invalid:.1f}"
        )


if __name__ == "__main__":
    main()
