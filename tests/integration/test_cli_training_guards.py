"""Training that cannot be poisoned: non-finite values, validated algorithm configs, run-directory safety,
untrusted run directories and unwritable outputs, each through real ``maze-run`` jobs."""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import yaml
from cli_support import (
    SHORT_EPOCHS,
    TrainingRun,
    assert_success,
    cartpole,
    checkpoint_file,
    maze_run,
    maze_run_command,
    maze_run_env,
    seeds,
    snapshot,
    training_state,
)
from maze.env.errors import ConfigurationError
from maze.perception.serialization import load_state_dict_file

HERE = Path(__file__).resolve().parent
TINY = (*cartpole(), "runner=dev", "algorithm.n_epochs=3", *SHORT_EPOCHS, "algorithm.rollout_evaluator.n_episodes=2")


def poisoned(what: str, after_resets: int) -> tuple[str, ...]:
    """Overrides that train on CartPole-v1 whose ``what`` turns NaN after ``after_resets`` episodes of each env."""
    return ("env._target_=poisoned_envs.poisoned_cartpole", f"+env.what={what}", f"+env.after_resets={after_resets}")


def run_poisoned(*args: str, run_dir: Path) -> subprocess.CompletedProcess:
    env = {**maze_run_env(), "PYTHONPATH": str(HERE)}
    command = maze_run_command(*TINY, *seeds(0), *args, run_dir=run_dir)
    return subprocess.run(command, cwd=run_dir.parent, env=env, capture_output=True, text=True, timeout=300)


def error_lines(result: subprocess.CompletedProcess) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("Error:")]


def assert_one_error(result: subprocess.CompletedProcess, *fragments: str) -> str:
    assert result.returncode == 1, result.stdout[-2000:] + result.stderr[-2000:]
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    (line,) = error_lines(result)
    for fragment in fragments:
        assert fragment in line, line
    return line


def test_a_nan_reward_stops_the_run_and_keeps_the_finite_best_model(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    result = run_poisoned(*poisoned("reward", after_resets=6), run_dir=run_dir)  # NaN after the first epoch

    assert_one_error(
        result,
        "Non-finite value in epoch",
        "poisoned_cartpole(name=CartPole-v1)",
        "returned the reward nan",
        "non_finite=skip",
    )
    state_dict = load_state_dict_file(run_dir / "state_dict.pt")  # the best model of epoch 0: finite, loadable
    assert all(torch.isfinite(tensor).all() for network in state_dict.values() for tensor in network.values())
    assert not (run_dir / "training_summary.json").exists()


def test_skip_mode_skips_poisoned_updates_and_counts_them(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    # The seeds' original defaults: their slower learning keeps the evaluation episodes short, so the evaluation
    # envs reach their poisoned episodes within the 3 epochs (a better policy's longer episodes may not).
    result = run_poisoned(
        *poisoned("reward", after_resets=6), "runner.non_finite=skip", "+experiment=original_defaults", run_dir=run_dir
    )

    assert_success(result)
    assert "update skipped" in result.stdout
    assert re.search(r"\|train +TrainingGuardEvents +skipped_updates +[^|]*\| +[1-9]", result.stdout)
    assert "-> evaluation score nan is not finite: never a best model" in result.stdout
    assert training_state(run_dir)["epochs"] == 3


def test_a_nan_observation_names_env_key_and_value(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    result = run_poisoned(*poisoned("observation", after_resets=0), run_dir=run_dir)

    assert_one_error(
        result,
        "Non-finite value in epoch 0",
        "poisoned_cartpole(name=CartPole-v1)",
        "returned the observation 'observation'[1] = nan",
    )
    assert not (run_dir / "state_dict.pt").exists()


INVALID_ALGORITHM_VALUES = {
    "algorithm.lr=abc": "algorithm.lr='abc' is not a valid number",
    "algorithm.lr=-1": "algorithm.lr=-1 is out of range; it must be >= 0",
    "algorithm.batch_size=0": "algorithm.batch_size=0 is out of range; it must be >= 1",
    "algorithm.gamma=1.5": "algorithm.gamma=1.5 is out of range; it must be > 0 and <= 1",
    "algorithm.n_rollout_steps=2.5": "algorithm.n_rollout_steps=2.5 is not a valid integer",
    "algorithm.clip_range=0": "algorithm.clip_range=0 is out of range; it must be > 0",
}


@pytest.mark.parametrize("override", sorted(INVALID_ALGORITHM_VALUES))
def test_invalid_algorithm_values_fail_before_anything_is_built(override: str, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    result = maze_run(*TINY, override, run_dir=run_dir)

    assert_one_error(result, INVALID_ALGORITHM_VALUES[override])
    assert not (run_dir / "spaces_config.yaml").exists()  # no env or model was built
    assert "Estimating observation" not in result.stdout and "Training with" not in result.stdout


def test_a_run_directory_that_holds_a_run_is_refused(tiny_ppo_run: TrainingRun, tmp_path: Path) -> None:
    before = snapshot(tiny_ppo_run.run_dir)
    result = maze_run(*TINY, run_dir=tiny_ppo_run.run_dir)

    assert_one_error(result, "already holds a run", f"input_dir={tiny_ppo_run.run_dir}", "hydra.run.dir=")
    assert snapshot(tiny_ppo_run.run_dir) == before

    copy = tmp_path / "copy"
    shutil.copytree(tiny_ppo_run.run_dir, copy)
    assert_success(maze_run(*TINY, "algorithm.n_epochs=1", "overwrite_run_dir=true", run_dir=copy))


def test_written_files_get_ordinary_permissions(tiny_ppo_run: TrainingRun) -> None:
    umask = os.umask(0)
    os.umask(umask)
    run_dir = tiny_ppo_run.run_dir
    checkpoint = checkpoint_file(run_dir, "optimizer.pt").parent
    for path in (run_dir / "state_dict.pt", run_dir / "spaces_config.yaml", run_dir / "model_config.yaml"):
        assert path.stat().st_mode & 0o777 == 0o666 & ~umask, path
    for path in checkpoint.iterdir():
        assert path.stat().st_mode & 0o777 == 0o666 & ~umask, path
    assert checkpoint.stat().st_mode & 0o777 == 0o777 & ~umask


def _copy_with_model_target(run: TrainingRun, tmp_path: Path, marker: Path) -> Path:
    copy = tmp_path / "downloaded_run"
    shutil.copytree(run.run_dir, copy)
    model_config = yaml.safe_load((copy / "model_config.yaml").read_text())
    model_config["policy"] = {"_target_": "subprocess.run", "args": ["touch", str(marker)]}
    (copy / "model_config.yaml").write_text(yaml.safe_dump(model_config))
    return copy


def test_a_run_directory_naming_foreign_code_is_refused(tiny_ppo_run: TrainingRun, tmp_path: Path) -> None:
    from maze.deploy import AgentDeployment

    marker = tmp_path / "code_ran"
    copy = _copy_with_model_target(tiny_ppo_run, tmp_path, marker)

    result = maze_run("policy=torch_policy", f"input_dir={copy}", "runner.n_episodes=1", run_dir=tmp_path / "rollout")
    assert_one_error(result, "names 'subprocess.run'", "trusted_modules=[subprocess]")
    with pytest.raises(ConfigurationError, match="names 'subprocess.run'.*trusted_modules"):
        AgentDeployment.from_run_dir(copy)
    assert not marker.exists()


def test_deployment_never_loads_non_finite_weights(tiny_ppo_run: TrainingRun, tmp_path: Path) -> None:
    from maze.deploy import AgentDeployment

    copy = tmp_path / "diverged"
    shutil.copytree(tiny_ppo_run.run_dir, copy)
    state_dict = torch.load(copy / "state_dict.pt", weights_only=True)
    network = next(iter(state_dict))
    first = next(iter(state_dict[network]))
    state_dict[network][first] = torch.full_like(state_dict[network][first], math.nan)
    torch.save(state_dict, copy / "state_dict.pt")

    with pytest.raises(ConfigurationError, match=f"{network}.{first} holds NaN or inf"):
        AgentDeployment.from_run_dir(copy)


def _unwritable_directory(tmp_path: Path) -> Path:
    """A directory this process cannot create files in (sysfs for root, who ignores permission bits)."""
    if os.geteuid() == 0:
        return Path("/sys/fs/maze-readonly-test/run")
    read_only = tmp_path / "read_only"
    read_only.mkdir()
    read_only.chmod(0o555)
    return read_only / "run"


def test_an_unwritable_output_directory_is_one_clear_line(tmp_path: Path) -> None:
    run_dir = _unwritable_directory(tmp_path)
    result = subprocess.run(
        maze_run_command(*TINY, run_dir=run_dir), env=maze_run_env(), capture_output=True, text=True, timeout=120
    )
    assert_one_error(result, f"cannot access '{run_dir.parent}", "hydra.run.dir=")


_FULL_DISK = """
import errno, os, sys
import maze.rl.job_output as job_output
from maze.rl.cli import main

calls = {"fsync": 0}
real_fsync = os.fsync

def full_disk_fsync(descriptor):
    calls["fsync"] += 1
    if calls["fsync"] > int(os.environ["GOOD_FSYNCS"]):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    real_fsync(descriptor)

def failing_sink(handler):
    def sink(text):
        if calls["fsync"] > int(os.environ["GOOD_FSYNCS"]):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        handler.stream.write(text)
    return sink

os.fsync = full_disk_fsync
job_output._handler_sink = failing_sink
sys.argv = ["maze-run", *sys.argv[1:]]
main()
"""


def test_a_full_disk_is_one_clear_line_and_keeps_the_good_files(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    script = tmp_path / "full_disk.py"
    script.write_text(_FULL_DISK)
    command = [sys.executable, str(script), *maze_run_command(*TINY, *seeds(0), run_dir=run_dir)[1:]]
    env = {**maze_run_env(), "GOOD_FSYNCS": "4"}  # the first epoch's files are written, then the disk is full

    result = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)

    assert_one_error(result, f"cannot access '{run_dir}", "No space left on device (ENOSPC)", "free space")
    assert "maze_cli.log can no longer be written" in result.stdout + result.stderr
    load_state_dict_file(run_dir / "state_dict.pt")  # the good checkpoint is intact
    assert not list(run_dir.glob(".*.tmp"))
