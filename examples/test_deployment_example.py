"""Runs the deployment example (needs maze-deploy installed next to maze-env)."""

import importlib.util
import re

import pytest
from test_examples import run_example

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("maze.deploy") is None, reason="the deployment example needs maze-deploy installed"
)


def test_deployment_example_runs_two_episodes_and_writes_statistics() -> None:
    output = run_example("deployment_cartpole.py", "--episodes", "2")
    steps = [int(count) for count in re.findall(r"^episode \d: (\d+) steps", output, re.MULTILINE)]
    assert len(steps) == 2 and min(steps) >= 10  # the heuristic balances the pole far longer than 10 steps
    means = re.findall(r"^\s+\d+\|deployment\s+BaseEnvEvents\s+reward\s+mean\s+\|\s+([\d.]+)$", output, re.MULTILINE)
    assert [float(mean) for mean in means] == steps  # close() wrote each episode's statistics
