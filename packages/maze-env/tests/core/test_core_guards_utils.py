"""Shared guard utilities of the env layer: finite checks, atomic writes, trusted targets, normalization."""

from __future__ import annotations

import os
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from maze.env import GymMazeEnv
from maze.env.utils.factory import Factory, resolve_target
from maze.env.utils.files import atomic_write, atomic_write_bytes, default_file_mode
from maze.env.utils.finite import NonFiniteValueError, find_non_finite, is_all_finite
from maze.env.utils.trust import UntrustedTargetError, modules_named_in, trusted_targets_only
from maze.env.wrappers.normalization.observation_normalization_wrapper import ObservationNormalizationWrapper


def test_find_non_finite_names_key_index_and_value() -> None:
    assert find_non_finite({"a": np.zeros(3), "b": np.arange(4)}) is None
    culprit = find_non_finite({"a": np.zeros(3), "b": np.array([[1.0, 2.0], [np.inf, 0.0]])})
    assert (culprit.key, culprit.index, culprit.value) == ("b", (1, 0), np.inf)
    assert culprit.describe() == "['b'][1, 0] = inf"
    assert find_non_finite(np.float32(np.nan)).describe() == " = nan"
    assert is_all_finite(np.arange(3)) and not is_all_finite([0.0, np.nan])


@pytest.mark.parametrize("size", [4, 1000])  # the Python-sum path for small arrays, numpy's for large ones
def test_is_all_finite_finds_every_kind_of_non_finite_value_and_is_not_fooled_by_overflow(size: int) -> None:
    finite = np.linspace(-1.0, 1.0, size).astype(np.float32)
    assert is_all_finite(finite) and is_all_finite(finite.reshape(2, -1))
    for bad in (np.nan, np.inf, -np.inf):
        values = finite.copy()
        values[-1] = bad
        assert not is_all_finite(values), bad
    cancelling = np.zeros(size)
    cancelling[:2] = (np.inf, -np.inf)  # their sum is nan, not a finite 0
    assert not is_all_finite(cancelling)
    huge = np.full(size, 1e308)  # finite, but their sum overflows to inf
    assert is_all_finite(huge)


def test_atomic_write_gives_ordinary_permissions_and_keeps_the_old_file_on_failure(tmp_path: Path) -> None:
    path = atomic_write_bytes(tmp_path / "sub" / "file.bin", b"good")
    assert path.read_bytes() == b"good" and path.stat().st_mode & 0o777 == default_file_mode()

    def full_disk(file) -> None:
        file.write(b"half")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError) as raised:
        atomic_write(path, full_disk)
    assert raised.value.filename == str(path) and raised.value.strerror == "No space left on device"
    assert path.read_bytes() == b"good" and os.listdir(path.parent) == ["file.bin"]


def test_trusted_scope_refuses_foreign_targets_before_importing(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    with trusted_targets_only("'model_config.yaml'", trusted_modules=["json"]):
        assert resolve_target("maze.env.GymMazeEnv") is GymMazeEnv
        assert resolve_target("json.dumps")  # explicitly trusted: functions too
        with pytest.raises(UntrustedTargetError, match=r"'model_config.yaml' names 'subprocess.run'.*\[subprocess\]"):
            Factory(object).instantiate({"_target_": "subprocess.run", "args": ["touch", str(marker)]})
        with pytest.raises(
            UntrustedTargetError, match="callable function defined in .maze.env.utils.files.; only maze classes"
        ):
            resolve_target("maze.env.utils.files.atomic_write_bytes")
        with pytest.raises(UntrustedTargetError, match="names 'evil_module'"):
            GymMazeEnv("evil_module:Env-v0")
    assert not marker.exists()
    assert resolve_target("os.path.join")  # outside a scope everything resolves as before


def test_modules_named_in_collects_the_modules_of_targets() -> None:
    config = {"_target_": "my_pkg.models.Composer", "nets": [{"_target_": "my_pkg.nets.Net"}, {"x": 1}]}
    assert modules_named_in(config) == ["my_pkg.models", "my_pkg.nets"]


class _InfVelocity(gym.ObservationWrapper):
    def observation(self, observation):
        observation = np.array(observation, dtype=np.float32)
        observation[1] = np.inf
        return observation


def test_normalization_with_clipping_refuses_non_finite_observations() -> None:
    env = ObservationNormalizationWrapper(
        GymMazeEnv(_InfVelocity(gym.make("CartPole-v1"))),
        default_strategy="MeanZeroStdOneObservationNormalizationStrategy",
        default_strategy_config={"clip_range": [-5, 5]},
        default_statistics={"mean": 0.0, "std": 1.0},
    )
    with pytest.raises(NonFiniteValueError, match=r"observation \['observation'\]\[1\] = inf .*clipping would hide it"):
        env.reset(seed=0)
