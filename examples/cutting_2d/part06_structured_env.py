"""Part 6 - the structured env: select a piece (sub-step 0), then cut it (sub-step 1).

Each sub-step has its own observation and action space; the reward of the cut is split
among the two actors.
"""

from maze.env.examples.cutting_2d import struct_env_factory


def main() -> None:
    struct_env = struct_env_factory(max_pieces_in_inventory=200, raw_piece_size=(100, 100), static_demand=[(30, 15)])
    obs_step1, _ = struct_env.reset(seed=0)
    struct_env.action_space.seed(0)
    print(f"actor 1:             {struct_env.actor_id()}")
    print(f"action_space 1:      {struct_env.action_space}")
    print(f"observation_space 1: {struct_env.observation_space}")
    print(f"observation 1:       {sorted(obs_step1)}")

    obs_step2, reward, terminated, truncated, _ = struct_env.step({"piece_idx": 0})
    print(f"actor 2:             {struct_env.actor_id()}")
    print(f"action_space 2:      {struct_env.action_space}")
    print(f"observation_space 2: {struct_env.observation_space}")
    print(f"observation 2:       {sorted(obs_step2)}")
    print(f"reward after selecting: {reward:g}")

    _, reward, terminated, truncated, info = struct_env.step(struct_env.action_space.sample())
    print(f"reward after cutting: {reward:g} | info {info} | actor rewards {struct_env.get_actor_rewards().tolist()}")
    print(f"next actor:          {struct_env.actor_id()} | env time {struct_env.get_env_time()}")


if __name__ == "__main__":
    main()
