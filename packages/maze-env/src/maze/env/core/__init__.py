"""The environment hierarchy: structured envs, CoreEnv, MazeEnv and their interfaces."""
