"""Training runners: ``maze-run -cn conf_train`` jobs (``runner=dev`` / ``runner=local``)."""

from maze.train.runners.actor_critic_runners import ACDevRunner, ACLocalRunner, ACRunner
from maze.train.runners.env_factory import EnvFactory
from maze.train.runners.impala_runners import ImpalaDevRunner, ImpalaLocalRunner, ImpalaRunner
from maze.train.runners.training_runner import TrainingRunner

__all__ = [
    "ACDevRunner",
    "ACLocalRunner",
    "ACRunner",
    "EnvFactory",
    "ImpalaDevRunner",
    "ImpalaLocalRunner",
    "ImpalaRunner",
    "TrainingRunner",
]
