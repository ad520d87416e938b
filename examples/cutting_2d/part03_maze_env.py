"""Part 3 - the MazeEnv: dict observations and actions, random actions from the action space.

The MazeEnv converts MazeStates into observations and actions into MazeActions. With
only 10 inventory slots most random piece indices point to empty slots.
"""

from maze.env.examples.cutting_2d import Cutting2DCoreEnvironment, Cutting2DEnvironment


def main() -> None:
    core_env = Cutting2DCoreEnvironment(max_pieces_in_inventory=10, raw_piece_size=(100, 100), static_demand=(30, 15))
    env = Cutting2DEnvironment(core_env)  # the built-in reward of part 1 (no reward aggregator yet)
    print(f"action_space: {env.action_space}")
    observation, _ = env.reset(seed=0)
    for key, value in observation.items():
        print(f"observation {key}: shape {value.shape} dtype {value.dtype}")
    env.action_space.seed(0)
    for _ in range(15):
        action = env.action_space.sample()
        observation, reward, terminated, truncated, info = env.step(action)
        assert observation in env.observation_space
        print(f"reward {reward:g} | terminated {terminated} | truncated {truncated} | info {info}")


if __name__ == "__main__":
    main()
