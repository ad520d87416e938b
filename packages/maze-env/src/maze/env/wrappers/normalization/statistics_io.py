"""Saving and loading normalization statistics as plain ``.npz`` data (never pickles)."""

from __future__ import annotations

import os
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Union

import numpy as np
import numpy.typing as npt
from maze.env.errors import ConfigurationError, MazeError
from maze.env.utils.files import atomic_write

__all__ = ["NormalizationStatisticsType", "save_normalization_statistics", "load_normalization_statistics"]

NormalizationStatisticsType = dict[str, dict[str, np.ndarray]]
"""Statistics per observation key, e.g. ``{"observation": {"mean": ..., "std": ...}}``."""

_SEPARATOR = "/"


def save_normalization_statistics(
    statistics: Mapping[str, Mapping[str, npt.ArrayLike]], path: Union[str, os.PathLike]
) -> Path:
    """Writes statistics to an ``.npz`` file, atomically (temp file, then rename).

    The archive holds one array per ``<observation key>/<statistic name>``.

    Args:
        statistics: Statistics per observation key.
        path: Target file; must end with ``.npz``.

    Returns:
        The path written.
    """
    path = _checked_path(path)
    arrays = {
        f"{key}{_SEPARATOR}{name}": np.asarray(value)
        for key, key_statistics in statistics.items()
        for name, value in key_statistics.items()
    }
    atomic_write(path, lambda file: np.savez(file, **arrays))
    return path


def load_normalization_statistics(path: Union[str, os.PathLike]) -> NormalizationStatisticsType:
    """Reads statistics written by :func:`save_normalization_statistics` (``allow_pickle=False``).

    Raises:
        FileNotFoundError: When the file does not exist.
        MazeError: When the file is not a readable statistics archive.
    """
    path = _checked_path(path)
    if not path.is_file():
        raise FileNotFoundError(
            f"normalization statistics file {str(path)!r} does not exist; estimate statistics with "
            "obtain_normalization_statistics(env) and save them with env.dump_statistics()"
        )
    statistics: NormalizationStatisticsType = {}
    try:
        with np.load(path, allow_pickle=False) as archive:
            for entry in archive.files:
                key, separator, name = entry.rpartition(_SEPARATOR)
                if not separator:
                    raise ValueError(f"entry {entry!r} is not named '<observation>{_SEPARATOR}<statistic>'")
                statistics.setdefault(key, {})[name] = archive[entry]
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as error:
        raise MazeError(
            f"cannot read normalization statistics from {str(path)!r}: {error}. The file is corrupt or not a "
            "statistics .npz written by maze; estimate the statistics again"
        ) from error
    return statistics


def _checked_path(path: Union[str, os.PathLike]) -> Path:
    path = Path(path)
    if path.suffix != ".npz":
        raise ConfigurationError(
            f"normalization statistics are stored as plain .npz data (never pickles); {str(path)!r} does not end "
            "with .npz (e.g. statistics_dump: statistics.npz)"
        )
    return path
