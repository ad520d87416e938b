"""RunContext, the Python API of ``maze-run``: train, evaluate and roll out agents with the CLI's configuration.

``from maze.rl.api import RunContext``; see :class:`~maze.rl.api.run_context.RunContext`.
"""

from maze.rl.api.configuration import ConfigurationAuditor, ConfigurationLoader
from maze.rl.api.rollout_stats import RolloutStats
from maze.rl.api.run_context import RunContext
from maze.rl.api.utils import InvalidSpecificationError, RunContextError, RunMode

__all__ = [
    "ConfigurationAuditor",
    "ConfigurationLoader",
    "InvalidSpecificationError",
    "RolloutStats",
    "RunContext",
    "RunContextError",
    "RunMode",
]
