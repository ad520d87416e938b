"""Hyper-parameter optimization for ``maze-run --multirun``: sweepers on nevergrad and Optuna, a local parallel launcher.

The Hydra plugins (``hydra_plugins.maze_hpo``: ``MazeNevergradSweeper``, ``MazeOptunaSweeper``,
``MazeLocalLauncher``) are thin; their work is done here:

* :mod:`maze.rl.hpo.search_space`: the searched dimensions (config ``parametrization`` and
  sweep overrides such as ``algorithm.lr=tag(log,interval(1e-5,1e-3))``).
* :mod:`maze.rl.hpo.optimizers`: ask/tell over nevergrad or Optuna (optional extras).
* :mod:`maze.rl.hpo.sweep`: the sweep loop, failed jobs, the summary table.
* :mod:`maze.rl.hpo.launcher`: jobs in parallel local processes, within the CPUs.
* :mod:`maze.rl.hpo.job_server`: the process the launcher forks the jobs from.
"""
