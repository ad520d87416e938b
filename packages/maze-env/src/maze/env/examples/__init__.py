"""Example environments that ship with maze-env.

* :mod:`maze.env.examples.cutting_2d` - the online 2D guillotine cutting-stock problem of
  the step-by-step tutorial: a CoreEnv with events, KPIs, a renderer and a reward
  aggregator, its flat MazeEnv, the structured (select, then cut) variant with
  step-conditional action masks, and a greedy heuristic policy.
"""
