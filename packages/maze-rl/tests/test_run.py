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
    (tmp_path / "runs" / "ppo").mkdir(parents=True)
    cfg = OmegaConf.create({"input_dir": "runs/ppo", "policy": {"state_dict_file": "${input_dir}/state_dict.pt"}})
    assert prepare_config(cfg, tmp_path) is cfg
    assert cfg.input_dir == str(tmp_path / "runs" / "ppo")
    assert cfg.policy.state_dict_file == str(tmp_path / "runs" / "ppo" / "state_dict.pt")
    assert "${" not in OmegaConf.to_yaml(cfg, resolve=False)


def test_prepare_config_keeps_absolute_and_empty_input_dirs(tmp_path: Path) -> None:
    absolute = str(tmp_path.resolve())
    assert prepare_config(OmegaConf.create({"input_dir": absolute}), "/elsewhere").input_dir == absolute
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


STRUCT_FACTORY = "maze.env.examples.cutting_2d.struct_env.struct_env_factory"
GYM_FACTORY = "maze.env.gym_adapter.gym_maze_env.make_gym_maze_env"


def test_a_target_on_the_command_line_drops_the_keys_it_does_not_take() -> None:
    from maze.rl.run import drop_replaced_group_keys

    cfg = OmegaConf.create(
        {"env": {"_target_": STRUCT_FACTORY, "name": "CartPole-v1", "render_mode": None, "max_pieces_in_inventory": 3}}
    )
    overrides = [f"env._target_={STRUCT_FACTORY}", "+env.max_pieces_in_inventory=3"]
    assert drop_replaced_group_keys(cfg, overrides) == ["env.name", "env.render_mode"]
    assert OmegaConf.to_container(cfg) == {"env": {"_target_": STRUCT_FACTORY, "max_pieces_in_inventory": 3}}


def kwargs_factory(n_bins: int = 3, **kwargs: object) -> None:
    """A factory that passes unknown keyword arguments on."""


def test_a_kwargs_target_keeps_only_the_keys_it_names() -> None:
    from maze.rl.run import drop_replaced_group_keys

    target = f"{__name__}.kwargs_factory"
    cfg = OmegaConf.create({"env": {"_target_": target, "name": "CartPole-v1", "render_mode": None, "n_bins": 4}})
    assert drop_replaced_group_keys(cfg, [f"env._target_={target}", "+env.extra=1"]) == ["env.name", "env.render_mode"]
    assert set(cfg.env) == {"_target_", "n_bins"}


def test_keys_the_new_target_takes_stay_and_other_overrides_keep_the_group_file() -> None:
    from maze.rl.run import drop_replaced_group_keys

    cfg = OmegaConf.create({"env": {"_target_": GYM_FACTORY, "name": "CartPole-v1", "render_mode": None}})
    assert drop_replaced_group_keys(cfg, [f"env._target_={GYM_FACTORY}"]) == []  # it takes name and render_mode
    assert drop_replaced_group_keys(cfg, ["env.name=Acrobot-v1"]) == []
    cfg = OmegaConf.create({"env": {"_target_": "no_such_module.make", "name": "x"}})
    assert drop_replaced_group_keys(cfg, ["env._target_=no_such_module.make"]) == []  # left to the factory's error
    assert set(cfg.env) == {"_target_", "name"}
