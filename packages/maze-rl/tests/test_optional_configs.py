"""Configs and runners of a maze package that is not installed get one line naming the package to install."""

from __future__ import annotations

import pytest
from hydra import compose, initialize_config_module
from hydra.errors import HydraException
from maze.env.errors import ConfigurationError
from maze.env.utils.factory import resolve_target
from maze.rl.optional_configs import OPTIONAL_PACKAGES, missing_package_hint

RLLIB = next(package for package in OPTIONAL_PACKAGES if package.distribution == "maze-rllib")

needs_no_rllib = pytest.mark.skipif(RLLIB.installed(), reason="maze-rllib is installed in this environment")


def composition_error(config_name: str, overrides: list[str]) -> Exception:
    with initialize_config_module("maze.conf", version_base="1.3"):
        with pytest.raises(HydraException) as raised:
            compose(config_name, overrides=overrides)
    return raised.value


@needs_no_rllib
def test_conf_rllib_without_maze_rllib_names_the_package() -> None:
    hint = missing_package_hint(composition_error("conf_rllib", ["env.name=CartPole-v1"]))

    assert hint is not None and "\n" not in hint
    assert hint.endswith("pip install maze-rllib")


@needs_no_rllib
def test_an_rllib_group_without_maze_rllib_names_the_package() -> None:
    hint = missing_package_hint(composition_error("conf_train", ["rllib/algorithm=ppo"]))

    assert hint is not None and "maze-rllib" in hint


@needs_no_rllib
def test_an_rllib_runner_target_without_maze_rllib_names_the_package() -> None:
    with pytest.raises((ConfigurationError, ImportError)) as raised:
        resolve_target("maze.rllib.runner.RLlibRunner")

    assert "pip install maze-rllib" in (missing_package_hint(raised.value) or "")


def test_errors_about_other_configs_get_no_hint() -> None:
    error = composition_error("conf_train", ["algorithm=no_such_algorithm"])

    assert missing_package_hint(error) is None
