"""The ``algorithm`` node of ``conf_rllib``: which RLlib algorithm, its hyper-parameters, when to stop.

``algorithm.config`` holds RLlib ``AlgorithmConfig`` keys, checked against the chosen
algorithm's default config before Ray starts: an unknown key, or a key of RLlib's old API
stack, stops the run with one line naming the current key (``num_sgd_iter`` ->
``num_epochs``, ``rollout_fragment_lenght`` -> ``rollout_fragment_length``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from maze.env.errors import ConfigurationError
from maze.env.utils.factory import to_plain_config
from maze.env.utils.suggestions import close_matches
from maze.train.core.config import AlgorithmConfig, bounded

__all__ = ["RENAMED_KEYS", "RLlibAlgorithmConfig", "rllib_config"]

RENAMED_KEYS = {
    "num_sgd_iter": "num_epochs",
    "sgd_minibatch_size": "minibatch_size",
    "num_workers": "num_env_runners",
    "num_rollout_workers": "num_env_runners",
    "num_envs_per_worker": "num_envs_per_env_runner",
    "num_cpus_per_worker": "num_cpus_per_env_runner",
    "num_learner_workers": "num_learners",
    "lambda": "lambda_",
}
"""Keys of RLlib's old API stack (or of its plain-dict configs) -> their current names."""


@dataclass
class RLlibAlgorithmConfig(AlgorithmConfig):
    """The ``algorithm`` group of ``conf_rllib`` (see ``rllib/algorithm/*.yaml`` for the documented keys).

    Attributes:
        name: The RLlib algorithm, as registered with Ray Tune (``PPO``, ``APPO``, ``IMPALA``, ``SAC``, ...).
        config: RLlib ``AlgorithmConfig`` keys -> values (see :func:`rllib_config`).
        max_iterations: Stop after this many RLlib training iterations.
        max_env_steps: Stop once this many env steps were sampled.
        max_seconds: Stop after this many seconds of training (evaluations excluded).
        target_reward: Stop once the deterministic evaluation reaches this mean return.
        eval_episodes: Episodes of each deterministic evaluation.
        eval_interval: Evaluate after every ``eval_interval`` iterations (and after the last).
    """

    name: str = "PPO"
    config: Any = dataclasses.field(default_factory=dict)
    max_iterations: Optional[int] = bounded(None, ge=1)
    max_env_steps: Optional[int] = bounded(None, ge=1)
    max_seconds: Optional[float] = bounded(None, gt=0)
    target_reward: Optional[float] = None
    eval_episodes: int = bounded(8, ge=1)
    eval_interval: int = bounded(1, ge=1)

    def validate(self) -> None:
        """Checks types and ranges, that a stop criterion is set and that ``config`` is a mapping.

        Raises:
            ConfigurationError: Naming the key and the fix.
        """
        super().validate()
        self.config = to_plain_config(self.config) or {}
        if not isinstance(self.config, Mapping):
            raise ConfigurationError(f"algorithm.config must be a mapping of RLlib keys, got {self.config!r}")
        if all(limit is None for limit in (self.max_iterations, self.max_env_steps, self.max_seconds)):
            raise ConfigurationError(
                "the run has no stop criterion; set algorithm.max_env_steps, algorithm.max_iterations or "
                "algorithm.max_seconds"
            )


def rllib_config(name: str, overrides: Mapping[str, Any]) -> Any:
    """RLlib's default config of algorithm ``name`` updated with ``overrides`` (``algorithm.config``).

    RLlib's system usage metrics (``log_sys_usage``) are off unless ``overrides`` sets them: maze reports none of them.

    Args:
        name: The registered RLlib algorithm.
        overrides: RLlib ``AlgorithmConfig`` keys -> values.

    Returns:
        The ``ray.rllib.algorithms.AlgorithmConfig``.

    Raises:
        ConfigurationError: For an unknown algorithm, or for unknown or renamed keys (naming the current key).
    """
    try:
        config = _algorithm_class(name).get_default_config()
    except (ValueError, KeyError, AttributeError):
        raise ConfigurationError(
            f"algorithm.name={name!r} is no RLlib algorithm; use e.g. PPO, APPO, IMPALA or SAC"
        ) from None
    known = _settable_keys(config)
    problems = [_key_problem(key, known) for key in overrides]
    problems = [problem for problem in problems if problem]
    if problems:
        raise ConfigurationError(f"RLlib's {type(config).__name__} has no key {'; '.join(problems)}")
    if "log_sys_usage" not in overrides:
        # Maze reports none of RLlib's system usage metrics; collecting them also wants GPUtil (a warning without it)
        config.debugging(log_sys_usage=False)
    return config.update_from_dict(dict(overrides))


def _algorithm_class(name: str) -> Any:
    """The class of the RLlib algorithm ``name``, importing only that algorithm's module.

    RLlib's own algorithms are looked up in its registry; other names (a trainable registered with
    Ray Tune) through Tune. Tune's lookup registers every RLlib algorithm first, which imports
    all of them: DreamerV3's module then builds a debugging CartPole at import time whose
    float64 bounds and observations make gymnasium print precision and "not within the
    observation space" warnings in a run that has nothing wrong.

    Raises:
        KeyError: For a name that is neither an RLlib algorithm nor a registered trainable.
    """
    from ray.rllib.algorithms.registry import ALGORITHMS

    if name in ALGORITHMS:
        return ALGORITHMS[name]()[0]
    from ray.tune.error import TuneError
    from ray.tune.registry import get_trainable_cls

    try:
        return get_trainable_cls(name)
    except TuneError as error:  # an unknown name
        raise KeyError(name) from error


def _settable_keys(config: Any) -> list[str]:
    """The public attributes of an RLlib config and its properties with a setter (e.g. ``train_batch_size_per_learner``)."""
    properties = [
        name
        for klass in type(config).__mro__
        for name, member in vars(klass).items()
        if isinstance(member, property) and member.fset is not None
    ]
    return sorted({key for key in [*vars(config), *properties] if not key.startswith("_")})


def _key_problem(key: str, known: list[str]) -> Optional[str]:
    """None for a valid key, else the key with the current name or close matches."""
    if key in RENAMED_KEYS:
        return f"algorithm.config.{key} (renamed: use algorithm.config.{RENAMED_KEYS[key]})"
    if key in known:
        return None
    matches = close_matches(key, known, limit=3)
    hint = f" (did you mean {' or '.join(f'algorithm.config.{match}' for match in matches)}?)" if matches else ""
    return f"algorithm.config.{key}{hint}"
