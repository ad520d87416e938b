"""Networks for the example envs of ``maze.env.examples`` (see :mod:`.cutting_2d`)."""

__all__: list[str] = []
