"""A job's input_dir is checked before anything is built: the key, the missing files and the fix in one message."""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra import compose, initialize_config_module
from maze.env.errors import ConfigurationError
from maze.rl import input_checks
from maze.rl.run import prepare_config
from omegaconf import DictConfig


def rollout_config(*overrides: str) -> DictConfig:
    with initialize_config_module("maze.conf", version_base="1.3"):
        return compose("conf_rollout", ["env.name=CartPole-v1", *overrides])


def test_a_torch_policy_without_input_dir_names_the_keys_and_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError) as error:
        prepare_config(rollout_config("policy=torch_policy"), tmp_path)
    assert str(error.value) == (
        "input_dir is empty, but SerializedTorchPolicy reads policy.state_dict_file, policy.spaces_dict_file from "
        "it; pass input_dir=<run directory of maze-run -cn conf_train> (the `Outputs:` path its last line names)"
    )  # model_config_file has a default (the policy falls back to `model`): not a required input


def test_an_input_dir_without_the_needed_files_names_them(tmp_path: Path) -> None:
    (tmp_path / "rollout" / "trajectory_data").mkdir(parents=True)
    with pytest.raises(ConfigurationError) as error:
        prepare_config(rollout_config("policy=torch_policy", "input_dir=rollout"), tmp_path)
    assert str(error.value).startswith(
        f"input_dir '{tmp_path / 'rollout'}' holds no state_dict.pt, spaces_config.yaml, but SerializedTorchPolicy "
        "reads policy.state_dict_file, policy.spaces_dict_file from it; pass input_dir=<run directory of maze-run"
    )


def test_a_training_run_directory_passes_and_resolves_to_absolute_paths(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "state_dict.pt").touch()
    (run / "spaces_config.yaml").touch()  # no model_config.yaml: optional
    cfg = prepare_config(rollout_config("policy=torch_policy", "input_dir=run"), tmp_path)
    assert cfg.policy.state_dict_file == str(run / "state_dict.pt")


@pytest.mark.parametrize("policy", ["random_policy", "torch_policy"])
def test_a_missing_input_dir_is_reported_for_any_job(policy: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=f"input_dir '{tmp_path / 'typo'}' does not exist; pass the run"):
        prepare_config(rollout_config(f"policy={policy}", "input_dir=typo"), tmp_path)


def test_targets_that_read_nothing_from_input_dir_are_not_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def imported(target: object) -> None:
        raise AssertionError(f"{target} was imported")

    monkeypatch.setattr(input_checks, "target_parameters", imported)
    cfg = prepare_config(rollout_config("policy=random_policy"), tmp_path)  # e.g. no torch for a random rollout
    assert cfg.input_dir == ""


def test_an_input_dir_that_is_a_file_is_called_a_file(tmp_path: Path) -> None:
    (tmp_path / "state_dict.pt").touch()  # the run's model file instead of its directory
    with pytest.raises(ConfigurationError, match=r"input_dir '.*state_dict.pt' is a file, not a run directory; pass"):
        prepare_config(rollout_config("policy=random_policy", "input_dir=state_dict.pt"), tmp_path)
