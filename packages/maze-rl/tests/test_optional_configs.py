"""Configs and runners of a maze package that is not installed get one line naming the package to install."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from hydra import compose, initialize_config_module
from hydra.errors import HydraException
from maze.env.errors import ConfigurationError
from maze.env.utils.factory import resolve_target
from maze.rl.optional_configs import OPTIONAL_PACKAGES, missing_package_hint

REPOSITORY = Path(__file__).resolve().parents[3]

RLLIB = next(package for package in OPTIONAL_PACKAGES if package.distribution == "maze-rllib")

needs_no_rllib = pytest.mark.skipif(RLLIB.installed(), reason="maze-rllib is installed in this environment")


def installed_folder(hint: str) -> Path:
    """The folder the ``pip install`` command of ``hint`` installs from (relative ones: from the repository root)."""
    command = re.search(r"pip install (.*?)(?: \(|$)", hint)
    assert command, hint
    words = shlex.split(command.group(1))
    if words[0] == "-c":
        assert (REPOSITORY / words[1]).is_file(), words[1]  # the constraints file (absolute paths stay absolute)
        words = words[2:]
    return REPOSITORY / re.sub(r"\[\w+\]$", "", words[0])


def composition_error(config_name: str, overrides: list[str]) -> Exception:
    with initialize_config_module("maze.conf", version_base="1.3"):
        with pytest.raises(HydraException) as raised:
            compose(config_name, overrides=overrides)
    return raised.value


@needs_no_rllib
def test_conf_rllib_without_maze_rllib_names_the_package() -> None:
    hint = missing_package_hint(composition_error("conf_rllib", ["env.name=CartPole-v1"]))

    assert hint is not None and "\n" not in hint
    assert "pip install maze-rllib" not in hint  # not published
    assert installed_folder(hint) == REPOSITORY / "packages" / "maze-rllib"
    assert "pins gymnasium" in hint  # installing it into this venv would replace gymnasium


@needs_no_rllib
def test_an_rllib_group_without_maze_rllib_names_the_package() -> None:
    hint = missing_package_hint(composition_error("conf_train", ["rllib/algorithm=ppo"]))

    assert hint is not None and "maze-rllib" in hint


@needs_no_rllib
def test_an_rllib_runner_target_without_maze_rllib_names_the_package() -> None:
    with pytest.raises((ConfigurationError, ImportError)) as raised:
        resolve_target("maze.rllib.runner.RLlibRunner")

    hint = missing_package_hint(raised.value) or ""
    assert installed_folder(hint).is_dir() and installed_folder(hint).name == "maze-rllib"


def test_errors_about_other_configs_get_no_hint() -> None:
    error = composition_error("conf_train", ["algorithm=no_such_algorithm"])

    assert missing_package_hint(error) is None
