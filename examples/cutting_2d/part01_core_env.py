"""Part 1 - the CoreEnv: step the Cutting-2D simulation with hand-made MazeActions.

Always cuts the order (30 x 15) out of inventory piece 0, without rotation, x cut first.
The reward is -1 whenever the raw piece got cut (and a fresh one replenished), -2 for an
invalid cut and 0 otherwise; after ten valid cuts piece 0 is too small for the order.
"""

from maze.env.examples.cutting_2d import Cutting2DCoreEnvironment, Cutting2DMazeAction


def main() -> None:
    core_env = Cutting2DCoreEnvironment(max_pieces_in_inventory=200, raw_piece_size=(100, 100), static_demand=(30, 15))
    maze_state, _ = core_env.reset()
    for _ in range(15):
        maze_action = Cutting2DMazeAction(piece_id=0, rotate=False, reverse_cutting_order=False)
        maze_state, reward, terminated, truncated, info = core_env.step(maze_action)
        print(f"reward {reward:g} | terminated {terminated} | truncated {truncated} | info {info}")


if __name__ == "__main__":
    main()
