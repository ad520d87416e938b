"""The ``maze-run`` command line and the job it runs; the Hydra config tree is :mod:`maze.conf`.

* :mod:`maze.rl.cli`: ``main``, the ``maze-run`` console script (Hydra 1.3 app, clean error
  reports, ``maze_cli.log`` in every run directory).
* :mod:`maze.rl.run`: ``prepare_config`` and ``maze_run``, the job behind it (build the
  runner of ``cfg.runner``, ``setup(cfg)``, ``run()``), usable without the command line.
* :mod:`maze.rl.config_errors`: "did you mean" messages for config mistakes.
* :mod:`maze.rl.dict_overrides`: ``key={...}`` replaces the dict at an existing key.
* :mod:`maze.rl.input_checks`: checks ``input_dir`` and the files a config reads from it
  before anything is built (called by ``prepare_config``).
* :mod:`maze.rl.job_output`: copies a job's console output into its log file.

Importing this package stays cheap (no torch) so that ``maze-run --help`` is fast.
"""

from importlib.metadata import version as _version

__version__ = _version("maze-rl")

__all__ = ["__version__"]
