"""Bad input to ``maze-run -cn conf_train``: one clear message naming the culprit, exit code 1, outputs untouched."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
import torch
from cli_support import SHORT_EPOCHS, TrainingRun, cartpole, maze_run, snapshot

BAD_INPUTS = {
    "unknown-env-id": ("env.name=NoSuchEnv-v9", "could not make the gymnasium env 'NoSuchEnv-v9'"),
    "unknown-key": (
        "algorithm.lrr=1",
        "Unknown config key 'algorithm.lrr' in the override 'algorithm.lrr=1'. Did you mean 'algorithm.lr'?",
    ),
    "unknown-group-option": ("algorithm=ppp", "Could not find 'algorithm/ppp'"),
    "missing-input-dir": ("input_dir={tmp}/no_such_run", "input_dir '{tmp}/no_such_run' does not exist"),
    "input-dir-not-a-run": ("input_dir={tmp}", "input_dir '{tmp}' is not a training run directory"),
    "input-dir-other-spaces": (
        "input_dir={cutting}",
        "spaces mismatch: the input_dir '{cutting}' has sub-steps [0, 1]",
    ),
    "unavailable-device": ("algorithm.device=cuda", "CUDA is not available on this machine; use algorithm.device=cpu"),
    "no-device": ("algorithm.device=gpu", "algorithm.device='gpu' is not a torch device"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_fails_with_one_clear_message(
    case: str, tiny_ppo_run: TrainingRun, cutting_run: TrainingRun, tmp_path: Path
) -> None:
    if case == "unavailable-device" and torch.cuda.is_available():
        pytest.skip("CUDA is available here")
    paths = {"tmp": tmp_path / "empty", "cutting": cutting_run.run_dir}
    paths["tmp"].mkdir()
    override, message = (text.format(**paths) for text in BAD_INPUTS[case])
    previous = {run.run_dir: snapshot(run.run_dir) for run in (tiny_ppo_run, cutting_run)}
    run_dir = tmp_path / "run"

    result = maze_run(*cartpole(), "runner=dev", "algorithm.n_epochs=1", *SHORT_EPOCHS, override, run_dir=run_dir)

    assert result.returncode == 1, result.stdout[-2000:]
    assert result.stderr.count(message) == 1, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert not (run_dir / "state_dict.pt").exists() and not (run_dir / "training_summary.json").exists()
    assert {directory: snapshot(directory) for directory in previous} == previous
    assert list(paths["tmp"].iterdir()) == []


def test_a_start_that_failed_early_leaves_a_run_dir_that_can_be_used_again(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    typo = maze_run("-cn", "conf_train", "env.name=CartPol-v1", run_dir=run_dir)
    assert typo.returncode == 1 and "Did you mean: `CartPole`?" in typo.stderr
    assert sorted(path.name for path in run_dir.iterdir()) == [".hydra", "maze_cli.log"]

    # The same hydra.run.dir again (not refused): policy=torch_policy without input_dir fails before anything is
    # built or the config is printed, naming the key and the fix.
    no_input = maze_run("env.name=CartPole-v1", "policy=torch_policy", "runner=sequential", run_dir=run_dir)
    assert no_input.returncode == 1 and "Traceback" not in no_input.stderr
    assert no_input.stderr.strip() == (
        "Error: input_dir is empty, but SerializedTorchPolicy reads policy.state_dict_file, policy.spaces_dict_file "
        "from it; pass input_dir=<run directory of maze-run -cn conf_train> (the `Outputs:` path its last line names)"
    )
    assert no_input.stdout.splitlines() == [f"maze-run {shlex.join(no_input.args[1:])}"]  # no config, no env, no seeds
    assert not (run_dir / ".hydra" / "config_resolved.yaml").exists()  # the first start's: removed, it ran no more
