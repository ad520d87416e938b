"""The Hydra config tree of ``maze-run``: the roots ``conf_train`` and ``conf_rollout`` and their groups.

The ``model`` and ``critic`` groups ship with maze-perception (``maze/perception/conf``); the
search-path plugin ``hydra_plugins.maze_search_path`` adds them wherever ``maze.conf`` is on
Hydra's search path.
"""
