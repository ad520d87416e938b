"""Scripts that start rollout or data loading workers at module level, without ``if __name__ == "__main__":``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from maze.env.errors import ConfigurationError

GUARD = 'if __name__ == "__main__":'
ROLLOUT = """
from maze.rollout import ParallelRolloutRunner
print("sequential part")
{guard}
{indent}runner = ParallelRolloutRunner(
{indent}    n_processes=2, n_episodes=4, max_episode_steps=5, record_trajectory=False, record_event_logs=False
{indent})
{indent}print(runner.run_with({{"_target_": "maze.env.make_gym_maze_env", "name": "CartPole-v1"}}, None, {{"_target_": "maze.env.RandomPolicy"}}))
"""


def run_rollout_script(tmp_path: Path, guarded: bool) -> subprocess.CompletedProcess:
    script = tmp_path / ("guarded.py" if guarded else "unguarded.py")
    script.write_text(ROLLOUT.format(guard=GUARD if guarded else "", indent="    " if guarded else ""))
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path)


def test_an_unguarded_rollout_script_fails_once_with_the_fix_and_a_guarded_one_runs(tmp_path: Path) -> None:
    unguarded = run_rollout_script(tmp_path, guarded=False)
    assert unguarded.returncode == 1
    assert unguarded.stdout == "sequential part\n"  # the sequential part did not run again in workers
    assert unguarded.stderr.count("Traceback") == 1 and "RolloutWorkerError" not in unguarded.stderr
    assert unguarded.stderr.strip().splitlines()[-1] == (
        f"maze.env.errors.ConfigurationError: {tmp_path / 'unguarded.py'} starts worker processes "
        "(ParallelRolloutRunner, start method forkserver) at module level without "
        f"`{GUARD}`; every worker re-imports the script and would run that code again. Put the code that "
        f"starts them under `{GUARD}` (or use start_method='fork')"
    )
    guarded = run_rollout_script(tmp_path, guarded=True)
    assert guarded.returncode == 0, guarded.stderr
    assert guarded.stdout.splitlines()[-1] == "5.0"  # CartPole with random actions survives 5 steps


def test_parallel_trajectory_loading_from_unguarded_top_level_code_names_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("a.pkl", "b.pkl"):  # never read: the check comes before any worker or file access
        (tmp_path / name).write_bytes(b"")
    script = tmp_path / "script.py"
    script.write_text(f"InMemoryDataset({str(tmp_path)!r}, n_workers=2)\n")
    main = ModuleType("__main__")
    main.__file__ = str(script)
    exec("from maze.rollout.datasets import InMemoryDataset", main.__dict__)  # noqa: S102
    monkeypatch.setitem(sys.modules, "__main__", main)
    with pytest.raises(ConfigurationError) as error:
        exec(compile(script.read_text(), str(script), "exec"), main.__dict__)  # noqa: S102 - the test's own script
    assert str(error.value).startswith(f"{script} starts worker processes (trajectory loading with n_workers=2, start")
    assert str(error.value).endswith(f"under `{GUARD}` (or use n_workers=1)")
