"""The hierarchical (dynamic agents) example, run as its README shows: PPO learns clearly above random."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import maze_run_env

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "hierarchical"
COMMANDS = re.compile(r"<!-- hierarchical-commands -->\n```bash\n(.*?)```\n<!-- /hierarchical-commands -->", re.DOTALL)


def stat(output: str, topic: str, event: str, name: str) -> float:
    """The value of the ``rollout_stats`` row ``topic event name`` of a rollout table."""
    found = re.search(
        rf"^\s*\d+\|rollout_stats\s+{topic}\s+{event}\s+{re.escape(name)}\s+\|\s*(-?[\d.]+)", output, re.M
    )
    assert found, output[-3000:]
    return float(found.group(1))


@pytest.fixture(scope="module")
def example_run(tmp_path_factory: pytest.TempPathFactory) -> list[subprocess.CompletedProcess]:
    """Every command of the example's README, in a copy of the example folder."""
    folder = Path(
        shutil.copytree(
            EXAMPLE,
            tmp_path_factory.mktemp("hrl") / "hierarchical",
            ignore=shutil.ignore_patterns("outputs", "__pycache__"),
        )
    )
    commands = [line for line in COMMANDS.search((EXAMPLE / "README.md").read_text()).group(1).splitlines() if line]
    env = maze_run_env()  # as a user's shell: the installed scripts first on PATH, no PYTHONPATH
    env.pop("PYTHONPATH", None)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    results = []
    for command in commands:
        result = subprocess.run(
            ["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True, timeout=300
        )
        assert result.returncode == 0, f"{command}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        results.append(result)
    return results


def test_ppo_learns_both_policies_clearly_above_random(example_run) -> None:
    _, random_rollout, training, trained_rollout = example_run
    random_reward = stat(random_rollout.stdout, "BaseEnvEvents", "reward", "mean")
    trained_reward = stat(trained_rollout.stdout, "BaseEnvEvents", "reward", "mean")
    assert random_reward < -1.0  # about -1.7
    assert trained_reward > 1.2, trained_rollout.stdout[-3000:]  # best about 2.2
    # both actors' returns: the dispatcher's spans the episode, a driver's its sub-task
    assert stat(trained_rollout.stdout, "ActorEvents", "actor_return", "mean/dispatch") == pytest.approx(trained_reward)
    assert (
        stat(trained_rollout.stdout, "ActorEvents", "actor_return", "mean/drive")
        > stat(random_rollout.stdout, "ActorEvents", "actor_return", "mean/drive") + 0.5
    )
    assert stat(trained_rollout.stdout, "ActorEvents", "actor_return", "actor_count/drive") == 60  # 3 per episode
    assert "train     ActorEvents" in training.stdout and "mean/drive" in training.stdout
