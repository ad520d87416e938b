"""maze-rl's aliases for old ``_target_`` paths (see :mod:`maze.env.utils.compat_aliases`).

Registered under the entry point group ``maze.compat_aliases``; imports nothing.
"""

from __future__ import annotations

__all__ = ["ALIASES"]

ALIASES: dict[str, str] = {
    "maze.core.utils.config_utils.read_hydra_config": "maze.rl.hydra_config.read_hydra_config",
    "maze.core.utils.config_utils.make_env_from_hydra": "maze.rl.hydra_config.make_env_from_hydra",
}
"""Old path -> the path of maze-rl's function."""
