"""Seeding of envs and agents: reproducible seed sequences from two base seeds.

:class:`MazeSeeding` turns an env base seed and an agent base seed into per-instance seeds
(one per env or policy instance, e.g. per vector env worker), or into lists of explicit
seeds from the config. :func:`set_seeds_globally` seeds the global generators of ``random``
and ``numpy``; packages with further global generators (torch) add theirs with
:func:`register_global_seeder`. All seeds are ints in ``[0, 2**31)``.
"""

from __future__ import annotations

import logging
import random
import secrets
from collections.abc import Mapping
from typing import Any, Callable, Optional, Sequence

import numpy as np
from maze.env.errors import ConfigurationError

__all__ = ["MAX_SEED", "MazeSeeding", "set_seeds_globally", "register_global_seeder"]

MAX_SEED = 2**31
"""Seeds are ints in ``[0, MAX_SEED)``."""

_logger = logging.getLogger(__name__)

_GLOBAL_SEEDERS: dict[str, Callable[[int], Any]] = {"random": random.seed, "numpy": np.random.seed}


class MazeSeeding:
    """Draws reproducible env and agent seeds from two base seeds.

    The same base seeds (and explicit seed lists) always give the same seed sequences. Env
    and agent seeds come from two independent generators, so drawing agent seeds does not
    shift the env seeds.

    Args:
        env_seed: Base seed of the env seeds; None draws a random base seed (and logs it).
        agent_seed: Base seed of the agent seeds; None draws a random base seed (and logs it).
        cudnn_determinism_flag: Asks torch-based packages to run cuDNN deterministically.
        explicit_env_seeds: Seeds that :meth:`get_explicit_env_seeds` hands out instead of
            generated ones (e.g. a fixed set of evaluation scenarios).
        explicit_agent_seeds: The same for :meth:`get_explicit_agent_seeds`.
        shuffle_seeds: Hand out the explicit seeds in an order shuffled by the seeded
            generator instead of cycling through them in the given order.

    Attributes:
        env_global_seed: The env base seed in use.
        agent_global_seed: The agent base seed in use.

    Raises:
        ConfigurationError: For a seed outside ``[0, 2**31)`` or an empty explicit seed list.
    """

    def __init__(
        self,
        env_seed: Optional[int],
        agent_seed: Optional[int],
        cudnn_determinism_flag: bool = False,
        explicit_env_seeds: Optional[Sequence[int]] = None,
        explicit_agent_seeds: Optional[Sequence[int]] = None,
        shuffle_seeds: bool = False,
    ) -> None:
        self.env_global_seed = _base_seed(env_seed, "env_seed")
        self.agent_global_seed = _base_seed(agent_seed, "agent_seed")
        self.cudnn_determinism_flag = bool(cudnn_determinism_flag)
        self.shuffle_seeds = bool(shuffle_seeds)
        self._explicit_env_seeds = _seed_list(explicit_env_seeds, "explicit_env_seeds")
        self._explicit_agent_seeds = _seed_list(explicit_agent_seeds, "explicit_agent_seeds")
        self._env_rng = np.random.default_rng(self.env_global_seed)
        self._agent_rng = np.random.default_rng(self.agent_global_seed)

    @classmethod
    def from_config(cls, config: Optional[Mapping[str, Any]]) -> MazeSeeding:
        """Builds the seeding of a job config's ``seeding`` group (missing keys take the defaults).

        Args:
            config: ``{env_base_seed, agent_base_seed, cudnn_determinism_flag, explicit_env_seeds,
                explicit_agent_seeds, shuffle_seeds}`` (any subset; other keys are ignored), or None.

        Raises:
            ConfigurationError: For an invalid seed.
        """
        config = dict(config or {})
        keys = {
            "env_base_seed": "env_seed",
            "agent_base_seed": "agent_seed",
            "cudnn_determinism_flag": "cudnn_determinism_flag",
            "explicit_env_seeds": "explicit_env_seeds",
            "explicit_agent_seeds": "explicit_agent_seeds",
            "shuffle_seeds": "shuffle_seeds",
        }
        arguments = {name: config[key] for key, name in keys.items() if key in config}
        return cls(arguments.pop("env_seed", None), arguments.pop("agent_seed", None), **arguments)

    def generate_env_instance_seed(self) -> int:
        """The next seed for an env instance."""
        return int(self._env_rng.integers(MAX_SEED))

    def generate_agent_instance_seed(self) -> int:
        """The next seed for a policy (agent) instance."""
        return int(self._agent_rng.integers(MAX_SEED))

    def get_explicit_env_seeds(self, n_seeds: int) -> list[int]:
        """``n_seeds`` env seeds: the explicit ones (cycled or shuffled), else generated ones."""
        return self._seeds(self._explicit_env_seeds, self._env_rng, n_seeds)

    def get_explicit_agent_seeds(self, n_seeds: int) -> list[int]:
        """``n_seeds`` agent seeds: the explicit ones (cycled or shuffled), else generated ones."""
        return self._seeds(self._explicit_agent_seeds, self._agent_rng, n_seeds)

    def _seeds(self, explicit: Optional[list[int]], rng: np.random.Generator, n_seeds: int) -> list[int]:
        if n_seeds < 0:
            raise ValueError(f"cannot hand out {n_seeds} seeds; ask for zero or more")
        if explicit is None:
            return rng.integers(MAX_SEED, size=n_seeds).tolist()
        if n_seeds == 0:
            return []
        if self.shuffle_seeds:
            rounds = -(-n_seeds // len(explicit))
            order = np.concatenate([rng.permutation(len(explicit)) for _ in range(rounds)])
        else:
            order = np.arange(n_seeds) % len(explicit)
        return [explicit[index] for index in order[:n_seeds]]


def set_seeds_globally(seed: int, info_txt: str = "") -> None:
    """Seeds the global random generators (``random``, ``numpy`` and registered ones).

    Args:
        seed: The seed, an int in ``[0, 2**31)``.
        info_txt: What is being seeded (e.g. ``"training runner"``), for the log line.
    """
    seed = _check_seed(seed, "seed")
    for seeder in _GLOBAL_SEEDERS.values():
        seeder(seed)
    _logger.info("%sseeded %s globally with %d", f"{info_txt}: " if info_txt else "", ", ".join(_GLOBAL_SEEDERS), seed)


def register_global_seeder(name: str, seeder: Callable[[int], Any]) -> None:
    """Makes :func:`set_seeds_globally` also call ``seeder(seed)`` (e.g. ``torch.manual_seed``).

    Args:
        name: Name of the seeded library, shown in the log line; registering a name again
            replaces its seeder.
        seeder: Called with the seed.
    """
    _GLOBAL_SEEDERS[name] = seeder


def _base_seed(seed: Optional[int], name: str) -> int:
    if seed is None:
        seed = secrets.randbelow(MAX_SEED)
        _logger.info("no %s given; drew the random base seed %d", name, seed)
        return seed
    return _check_seed(seed, name)


def _seed_list(seeds: Optional[Sequence[int]], name: str) -> Optional[list[int]]:
    if seeds is None:
        return None
    checked = [_check_seed(seed, f"{name}[{index}]") for index, seed in enumerate(seeds)]
    if not checked:
        raise ConfigurationError(f"{name} is empty; give at least one seed or leave it unset (null)")
    return checked


def _check_seed(seed: Any, name: str) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < MAX_SEED:
        raise ConfigurationError(f"{name} must be an int in [0, 2**31), got {seed!r}")
    return int(seed)
