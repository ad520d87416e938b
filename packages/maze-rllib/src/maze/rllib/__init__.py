"""maze-rllib: RLlib's algorithms train Maze policies and critics on Maze envs (``maze-run -cn conf_rllib``).

The runner is :class:`maze.rllib.runner.RLlibRunner`; the configs live in ``maze/rllib/conf``
(root ``conf_rllib``, groups ``rllib/algorithm`` and ``rllib/runner``), which maze-rl's
Hydra search-path plugin finds without importing this package.
"""

from maze.rllib.rllib_notices import install_notice_filters

install_notice_filters()
