"""Vector envs: step many structured envs at once with batched dict observations and actions.

:class:`~maze.env.vector.sequential.SequentialVectorEnv` steps its envs in-process (the fast
choice for cheap envs); :class:`~maze.env.vector.subproc.SubprocVectorEnv` runs one worker
process per env (worth it only when an env step is expensive). Both reset finished envs
within ``step`` (see :class:`~maze.env.vector.vector_env.StructuredVectorEnv`).
"""
