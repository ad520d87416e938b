"""Any gymnasium env as a MazeEnv with dict spaces."""
