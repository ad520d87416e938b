"""Deploys the trained sorting agent into a "production" loop that maze does not drive.

Usage (from this folder, after training): ``python deploy.py outputs/sorting-ppo``

The production system here is the sorting simulation itself, stepped by this script: it
hands the agent its MazeState and the acting sub-step, executes the MazeAction it gets
back and counts how many parcels ended in the right bin.
"""

from __future__ import annotations

import argparse

from maze.deploy import AgentDeployment
from maze.env.errors import MazeError
from sorting import SortingCoreEnv


def main() -> None:
    """Runs one production shift of ``--parcels`` parcels and prints the share sorted correctly."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", help="the training run directory")
    parser.add_argument("--parcels", type=int, default=200)
    args = parser.parse_args()

    # The run's .hydra/config.yaml names our env factory: trust our own module explicitly.
    try:
        agent = AgentDeployment.from_run_dir(args.run_dir, trusted_modules=["sorting"], deterministic=True)
    except MazeError as error:  # e.g. no trained run in run_dir: one line, no traceback
        raise SystemExit(f"Error: {error}") from None
    production = SortingCoreEnv()
    maze_state, info = production.reset(seed=42)
    reward, correct = 0.0, 0
    for _ in range(args.parcels):
        for _sub_step in range(2):  # pick the bin, then the handling
            maze_action = agent.act(maze_state, reward, info=info, actor_id=production.actor_id())
            parcel = production.get_maze_state()
            maze_state, reward, _, _, info = production.step(maze_action)
        correct += int(parcel.chosen_bin == parcel.colour)
    agent.close(maze_state, reward, truncated=True)
    print(f"deployed agent: {correct}/{args.parcels} parcels sorted correctly ({correct / args.parcels:.0%})")


if __name__ == "__main__":
    main()
