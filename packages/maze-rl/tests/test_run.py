"""prepare_config and maze_run: the job behind the command line, without Hydra."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from maze.env.errors import ConfigurationError
from maze.rl.run import maze_run, prepare_config
from omegaconf import OmegaConf

SUPPORT = Path(__file__).resolve().parent / "support"


def test_prepare_config_makes_input_dir_absolute_before_resolving(tmp_path: Path) -> None:
    cfg = OmegaConf.create({"input_dir": "runs/ppo", "policy": {"state_dict_file": "${input_dir}/state_dict.pt"}})
    assert prepare_config(cfg, tmp_path) is cfg
    assert cfg.input_dir == str(tmp_path / "runs" / "ppo")
    assert cfg.policy.state_dict_file == str(tmp_path / "runs" / "ppo" / "state_dict.pt")
    assert "${" not in OmegaConf.to_yaml(cfg, resolve=False)


def test_prepare_config_keeps_absolute_and_empty_input_dirs(tmp_path: Path) -> None:
    assert prepare_config(OmegaConf.create({"input_dir": "/abs/run"}), tmp_path).input_dir == "/abs/run"
    assert prepare_config(OmegaConf.create({"input_dir": ""}), tmp_path).input_dir == ""


def test_maze_run_builds_the_runner_sets_it_up_and_returns_its_objective(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(SUPPORT))
    monkeypatch.chdir(tmp_path)
    cfg = OmegaConf.create({"runner": {"_target_": "fake_runners.RecordingRunner", "objective": 3.0}, "env": {}})
    assert maze_run(cfg) == 3.0
    assert json.loads((tmp_path / "runner_record.json").read_text())["config"] == OmegaConf.to_container(cfg)


def test_maze_run_names_unknown_runners_and_missing_runner_configs() -> None:
    with pytest.raises(ConfigurationError, match="has no attribute 'NoSuchRunner'"):
        maze_run(OmegaConf.create({"runner": {"_target_": "maze.rollout.NoSuchRunner"}}))
    with pytest.raises(ConfigurationError, match="no `runner`"):
        maze_run(OmegaConf.create({"env": {}}))


def test_a_target_on_the_command_line_drops_the_group_files_other_keys() -> None:
    from maze.rl.run import drop_replaced_group_keys

    cfg = OmegaConf.create(
        {"env": {"_target_": "my.make_env", "name": "CartPole-v1", "render_mode": None, "size": 3}, "runner": {"a": 1}}
    )
    dropped = drop_replaced_group_keys(cfg, ["env._target_=my.make_env", "+env.size=3", "runner.a=1"])
    assert dropped == ["env.name", "env.render_mode"]
    assert OmegaConf.to_container(cfg) == {"env": {"_target_": "my.make_env", "size": 3}, "runner": {"a": 1}}


def test_overrides_of_other_keys_keep_the_group_file() -> None:
    from maze.rl.run import drop_replaced_group_keys

    cfg = OmegaConf.create({"env": {"_target_": "gym", "name": "CartPole-v1"}, "runner": {"_target_": "x", "n": 1}})
    assert drop_replaced_group_keys(cfg, ["env.name=Acrobot-v1", "runner._target_=y"]) == []
    assert set(cfg.env) == {"_target_", "name"} and set(cfg.runner) == {"_target_", "n"}
