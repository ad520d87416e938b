"""Ask/tell optimizers over a :class:`SearchSpace`, on top of nevergrad and Optuna (optional extras).

Both libraries are imported when a sweep starts; without them the sweep stops with one
message naming the extra (``maze-rl[nevergrad]`` / ``maze-rl[optuna]``) and the command that installs it
(:func:`maze.env.utils.install_hints.pip_install_command`).
"""

from __future__ import annotations

import math
import warnings
from abc import ABC, abstractmethod
from typing import Any, Optional

from maze.env.errors import ConfigurationError
from maze.env.utils.install_hints import pip_install_command
from maze.env.utils.suggestions import close_matches
from maze.rl.hpo.search_space import Choice, Interval, SearchSpace

__all__ = ["AskTellOptimizer", "NevergradOptimizer", "OptunaOptimizer", "import_extra"]


def import_extra(module: str, extra: str) -> Any:
    """Imports an optional dependency, or raises a ConfigurationError naming the extra to install."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise ConfigurationError(
            f"this sweeper needs {module}, which is not installed: {pip_install_command(f'maze-rl[{extra}]')} "
            f"(or pip install {module})"
        ) from None


class AskTellOptimizer(ABC):
    """Suggests parameters (``ask``) and learns from their objectives (``tell``).

    Args:
        space: The searched dimensions.
        maximize: Maximize the objective (else minimize).
        seed: Seed of the optimizer (None: random).
        budget: Number of jobs of the whole sweep.
        num_workers: Jobs evaluated at the same time (asked before their results are told).
    """

    def __init__(self, space: SearchSpace, maximize: bool, seed: Optional[int], budget: int, num_workers: int) -> None:
        self.space = space
        self.maximize = maximize
        self.seed = seed
        self.budget = budget
        self.num_workers = num_workers

    @abstractmethod
    def ask(self) -> tuple[Any, dict[str, Any]]:
        """A new suggestion: ``(token for tell, {key: value})``; values are plain Python values."""

    @abstractmethod
    def tell(self, token: Any, objective: Optional[float]) -> None:
        """The objective of a suggestion; None for a failed job."""


def _plain(value: Any) -> Any:
    """Numpy scalars as Python values (for command-line overrides)."""
    return value.item() if hasattr(value, "item") and not isinstance(value, (list, tuple, dict)) else value


class NevergradOptimizer(AskTellOptimizer):
    """A nevergrad optimizer by name (``OnePlusOne``, ``NGOpt``, ``TwoPointsDE``, ...); see :class:`AskTellOptimizer`.

    Failed jobs are told a loss of infinity (the worst possible value).
    """

    def __init__(self, space: SearchSpace, maximize: bool, seed: Optional[int], budget: int, num_workers: int,
                 optimizer: str = "OnePlusOne") -> None:  # fmt: skip
        super().__init__(space, maximize, seed, budget, num_workers)
        ng = import_extra("nevergrad", "nevergrad")
        if optimizer not in ng.optimizers.registry:
            close = close_matches(optimizer, ng.optimizers.registry, limit=3)
            raise ConfigurationError(
                f"hydra.sweeper.optim.optimizer={optimizer!r} is not a nevergrad optimizer"
                + (f"; did you mean {', '.join(close)}?" if close else "")
            )
        parametrization = ng.p.Dict(**{key: self._parameter(ng, dim) for key, dim in space.dimensions.items()})
        if seed is not None:
            parametrization.random_state.seed(seed)
        self.optimizer = ng.optimizers.registry[optimizer](parametrization, budget=budget, num_workers=num_workers)

    @staticmethod
    def _parameter(ng: Any, dimension: Any) -> Any:
        if isinstance(dimension, Choice):
            return ng.p.Choice(list(dimension.options))
        parameter = (ng.p.Log if dimension.log else ng.p.Scalar)(lower=dimension.lower, upper=dimension.upper)
        return parameter.set_integer_casting() if dimension.integer else parameter

    def ask(self) -> tuple[Any, dict[str, Any]]:
        """See :meth:`AskTellOptimizer.ask`."""
        candidate = self.optimizer.ask()
        return candidate, {key: _plain(value) for key, value in candidate.value.items()}

    def tell(self, token: Any, objective: Optional[float]) -> None:
        """See :meth:`AskTellOptimizer.tell`."""
        if objective is None:  # nevergrad has no failed state: the worst loss (it clips inf, with a warning)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.optimizer.tell(token, math.inf)
        else:
            self.optimizer.tell(token, -objective if self.maximize else objective)


class OptunaOptimizer(AskTellOptimizer):
    """An Optuna study with a sampler by name (``TPESampler``, ``RandomSampler``, ...); see :class:`AskTellOptimizer`.

    Failed jobs are told as failed trials.
    """

    def __init__(self, space: SearchSpace, maximize: bool, seed: Optional[int], budget: int, num_workers: int,
                 sampler: str = "TPESampler") -> None:  # fmt: skip
        super().__init__(space, maximize, seed, budget, num_workers)
        optuna = import_extra("optuna", "optuna")
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        sampler_class = getattr(optuna.samplers, sampler, None)
        if not isinstance(sampler_class, type):
            raise ConfigurationError(
                f"hydra.sweeper.optim.sampler={sampler!r} is not an Optuna sampler; use e.g. TPESampler or RandomSampler"
            )
        self.optuna = optuna
        self.study = optuna.create_study(
            direction="maximize" if maximize else "minimize", sampler=sampler_class(seed=seed)
        )
        self.distributions = {key: self._distribution(optuna, dim) for key, dim in space.dimensions.items()}

    @staticmethod
    def _distribution(optuna: Any, dimension: Any) -> Any:
        if isinstance(dimension, Choice):
            return optuna.distributions.CategoricalDistribution(list(dimension.options))
        assert isinstance(dimension, Interval)
        if dimension.integer:
            return optuna.distributions.IntDistribution(int(dimension.lower), int(dimension.upper), log=dimension.log)
        return optuna.distributions.FloatDistribution(dimension.lower, dimension.upper, log=dimension.log)

    def ask(self) -> tuple[Any, dict[str, Any]]:
        """See :meth:`AskTellOptimizer.ask`."""
        trial = self.study.ask(self.distributions)
        return trial, {key: _plain(trial.params[key]) for key in self.distributions}

    def tell(self, token: Any, objective: Optional[float]) -> None:
        """See :meth:`AskTellOptimizer.tell`."""
        if objective is None:
            self.study.tell(token, state=self.optuna.trial.TrialState.FAIL)
        else:
            self.study.tell(token, objective)
