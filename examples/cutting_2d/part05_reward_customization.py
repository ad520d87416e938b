"""Part 5 - reward customization: the reward computed from events by a reward aggregator.

First part 1's action sequence runs through a core env whose reward comes from
``DefaultRewardAggregator(invalid_action_penalty=-2, raw_piece_usage_penalty=-1)``: the
rewards are those of part 1. Then both envs take the same 200 random actions (empty
slots included) and the script reports whether every reward matched. Finally 15 random
steps of the factory env (which uses this aggregator) are logged as in part 4.
"""

import numpy as np
from maze.env.examples.cutting_2d import (
    Cutting2DCoreEnvironment,
    Cutting2DMazeAction,
    DefaultRewardAggregator,
    maze_env_factory,
)
from part04_events_kpis import log_random_steps


def rewards_of(core_env: Cutting2DCoreEnvironment, actions: list[Cutting2DMazeAction]) -> list[float]:
    core_env.reset()
    return [core_env.step(action)[1] for action in actions]


def main() -> None:
    settings = dict(max_pieces_in_inventory=200, raw_piece_size=(100, 100), static_demand=(30, 15))
    aggregator = DefaultRewardAggregator(invalid_action_penalty=-2, raw_piece_usage_penalty=-1)
    with_aggregator = Cutting2DCoreEnvironment(**settings, reward_aggregator=aggregator)
    built_in = Cutting2DCoreEnvironment(**settings)

    part_1_actions = [Cutting2DMazeAction(piece_id=0, rotate=False, reverse_cutting_order=False)] * 15
    rewards = rewards_of(with_aggregator, part_1_actions)
    for reward in rewards:
        print(f"reward {reward:g}")
    print(f"same rewards as part 1: {rewards == rewards_of(built_in, part_1_actions)}")

    rng = np.random.default_rng(0)
    random_actions = [
        Cutting2DMazeAction(piece_id=int(rng.integers(200)), rotate=bool(rng.integers(2)), reverse_cutting_order=False)
        for _ in range(200)
    ]
    same = rewards_of(with_aggregator, random_actions) == rewards_of(built_in, random_actions)
    print(f"same rewards on 200 random actions: {same}")

    log_random_steps(maze_env_factory(**settings))


if __name__ == "__main__":
    main()
