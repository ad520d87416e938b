"""Part 5 - reward customization: the reward computed from events by a reward aggregator.

First part 1's action sequence runs through a core env whose reward comes from
``DefaultRewardAggregator(invalid_action_penalty=-2, raw_piece_usage_penalty=-1)``: the
rewards are those of part 1. The one difference: selecting an empty inventory slot costs
-2 here (it is an invalid action) but 0 with part 1's built-in reward. Then 15 random
steps of the factory env (which uses this aggregator) are logged as in part 4.
"""

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

    empty_slot = [Cutting2DMazeAction(piece_id=150, rotate=False, reverse_cutting_order=False)]
    print(
        f"empty slot selected: aggregator {rewards_of(with_aggregator, empty_slot)[0]:g}, "
        f"built-in {rewards_of(built_in, empty_slot)[0]:g}"
    )

    log_random_steps(maze_env_factory(**settings))


if __name__ == "__main__":
    main()
