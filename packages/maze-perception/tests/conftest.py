"""Setup of the maze-perception tests: maze's library lines go to stdout, where the tests read them."""

from maze.env.utils.library_output import show_library_output

show_library_output(force=True)  # maze's library lines on stdout, as maze-run shows them (tests read them there)
