"""Every ``maze-run -cn conf_rllib`` command of maze-rllib's README composes and has a stop criterion."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from hydra import compose, initialize_config_module

README = Path(__file__).resolve().parents[1] / "README.md"
COMMANDS = [
    line.strip()
    for block in re.findall(r"```bash\n(.*?)```", README.read_text(), re.DOTALL)
    for line in block.replace("\\\n", " ").splitlines()
    if line.strip().startswith("maze-run -cn conf_rllib")
]


def test_the_readme_documents_rllib_commands() -> None:
    assert COMMANDS


@pytest.mark.parametrize("command", COMMANDS)
def test_every_documented_command_composes_with_a_stop_criterion(command: str) -> None:
    overrides = shlex.split(command.split(" #", 1)[0])[3:]
    with initialize_config_module("maze.conf", version_base="1.3"):
        cfg = compose("conf_rllib", overrides=overrides)

    limits = (cfg.algorithm.max_env_steps, cfg.algorithm.max_iterations, cfg.algorithm.max_seconds)
    assert any(limit is not None for limit in limits), f"{command}: trains without a stop criterion"
    assert cfg.runner._target_ == "maze.rllib.runner.RLlibRunner"
