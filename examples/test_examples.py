"""Runs every example script as a user would and checks what it prints."""

import re
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent


def run_example(script: str, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_cartpole_rollout_heuristic_beats_random() -> None:
    output = run_example("cartpole_rollout.py", "--episodes", "8", "--envs", "2")
    means = dict(re.findall(r"^(\w+Policy)\s+([\d.]+)", output, re.MULTILINE))
    assert set(means) == {"DummyCartPolePolicy", "RandomPolicy"}
    assert float(means["DummyCartPolePolicy"]) > 100.0
    assert float(means["RandomPolicy"]) < 60.0
