"""Part 2 - the Renderer: draw every step of part 1 and save the last figure as a PNG.

The figure "Cutting 2D" shows the cut piece with the order and the dashed cutting lines
(left) and the inventory pieces, the order and the picked piece (right). Needs matplotlib.
"""

import argparse
import sys

from maze.env.examples.cutting_2d import Cutting2DCoreEnvironment, Cutting2DMazeAction


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="cutting_2d.png", help="where to save the last rendered figure (PNG)")
    parser.add_argument("--steps", type=int, default=15, help="steps to run and render")
    args = parser.parse_args()
    try:
        import matplotlib
    except ImportError:
        sys.exit("part 2 draws with matplotlib, which is not installed: pip install matplotlib")
    matplotlib.use("Agg")  # draw into files, no window
    import matplotlib.pyplot as plt

    core_env = Cutting2DCoreEnvironment(max_pieces_in_inventory=200, raw_piece_size=(100, 100), static_demand=(30, 15))
    renderer = core_env.get_renderer()
    maze_state, _ = core_env.reset()
    for _ in range(args.steps):
        maze_action = Cutting2DMazeAction(piece_id=0, rotate=False, reverse_cutting_order=False)
        renderer.render(maze_state, maze_action, None)  # the state and the action about to be taken
        maze_state, reward, terminated, truncated, info = core_env.step(maze_action)
        print(f"reward {reward:g} | terminated {terminated} | truncated {truncated} | info {info}")
    figure = plt.figure("Cutting 2D")
    figure.savefig(args.out)
    print(f"saved the figure {figure.get_label()!r} with {len(figure.axes)} axes to {args.out}")


if __name__ == "__main__":
    main()
