"""Where ES plays its antithetic episode pairs: the worker, the shared noise table and the rollout distributions.

:class:`~maze.train.distributed.es.rollouts.ESDistributedRollouts` is the one interface the
ES trainer talks to; the execution backends build its implementations (in this process,
in worker processes, on Ray actors, see :mod:`maze.train.backends`).
"""
