"""Test helpers other packages reuse: the env checker and small fake envs.

``from maze.env.testing import check_env`` checks any maze env or wrapper stack (spaces,
reset/step contract, sub-step order, seeding); see :mod:`maze.env.testing.env_checker`.
``check_simulated_env`` checks the SimulatedEnvMixin contract (clones share nothing they
should not; seeding reproduces); see :mod:`maze.env.testing.simulated_env_checker`.
"""

from maze.env.testing.env_checker import check_env
from maze.env.testing.fake_envs import FakeCoreEnv, build_dummy_maze_env, build_multi_agent_env, build_multi_step_env
from maze.env.testing.simulated_env_checker import check_simulated_env

__all__ = [
    "FakeCoreEnv",
    "build_dummy_maze_env",
    "build_multi_agent_env",
    "build_multi_step_env",
    "check_env",
    "check_simulated_env",
]
