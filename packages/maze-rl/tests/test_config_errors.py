"""Config mistakes become one message with a "did you mean" suggestion."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hydra import compose, initialize_config_module
from hydra.errors import ConfigCompositionException, MissingConfigException
from maze.rl.config_errors import closest_match, describe_config_error, is_config_error, suggest_key
from omegaconf import OmegaConf
from omegaconf.errors import ConfigAttributeError, ConfigKeyError, InterpolationKeyError


@pytest.fixture(autouse=True)
def maze_conf() -> Iterator[None]:
    with initialize_config_module(config_module="maze.conf", version_base="1.3"):
        yield


def composition_error(*overrides: str, root: str = "conf_train") -> Exception:
    with pytest.raises((ConfigCompositionException, MissingConfigException)) as caught:
        compose(root, list(overrides))
    return caught.value


@pytest.mark.parametrize(
    ("override", "suggestion"),
    [
        ("algorithm.lrr=1", "'algorithm.lr'"),
        ("algorithmm.lr=1", "'algorithm.lr'"),
        ("algorithm.rollout_evaluator.n_episode=3", "'algorithm.rollout_evaluator.n_episodes'"),
        ("seeding.env_base_sed=1", "'seeding.env_base_seed'"),
    ],
)
def test_unknown_keys_get_the_closest_existing_key(override: str, suggestion: str) -> None:
    error = composition_error("algorithm=ppo", override)
    assert is_config_error(error)
    message = describe_config_error(error)
    key = override.split("=")[0]
    assert message == (
        f"Unknown config key {key!r} in the override {override!r}. Did you mean {suggestion}? "
        f"To add it as a new key, write +{override}"
    )


def test_unknown_keys_without_a_close_match_get_no_guess() -> None:
    message = describe_config_error(composition_error("algorithm.xyzzy=1"))
    assert "Did you mean" not in message and "+algorithm.xyzzy=1" in message


def test_unknown_group_options_list_the_options_and_the_closest_one() -> None:
    message = describe_config_error(composition_error("algorithm=ppoo"))
    assert "Could not find 'algorithm/ppoo'" in message
    assert "Available options in 'algorithm':\n\ta2c\n" in message
    assert {"a2c", "bc", "es", "impala", "ppo"} <= {
        line.strip() for line in message.splitlines() if line.startswith("\t")
    }
    assert message.endswith("Did you mean algorithm=ppo?")
    assert "Config search path" not in message


@pytest.mark.parametrize(
    ("overrides", "root", "suggestion"),
    [
        (["algorithm=PPO"], "conf_train", "Did you mean algorithm=ppo?"),
        (["algorithm=ppo", "algorithm.LR=1"], "conf_train", "Did you mean 'algorithm.lr'?"),
        ([], "Conf_Train", "Did you mean -cn conf_train?"),
    ],
)
def test_suggestions_ignore_case(overrides: list[str], root: str, suggestion: str) -> None:
    assert suggestion in describe_config_error(composition_error(*overrides, root=root))


def test_closest_match_keeps_the_candidates_spelling() -> None:
    assert closest_match("ppo", ["PPO", "a2c"]) == "PPO"
    assert closest_match("Env_Base_Sed", ["env_base_seed", "agent_base_seed"]) == "env_base_seed"
    assert closest_match("xyzzy", ["ppo", "a2c"]) is None


def test_a_training_group_without_the_training_root_names_the_training_root() -> None:
    message = describe_config_error(composition_error("algorithm=ppo", root="conf_rollout"))
    assert message.startswith("The root config has no 'algorithm' group")
    assert "maze-run -cn conf_train algorithm=ppo" in message
    assert "+algorithm" not in message  # Hydra's hint would run a rollout that ignores the algorithm


def test_a_gymnasium_id_as_env_option_points_to_env_name() -> None:
    message = describe_config_error(composition_error("env=CartPole-v1"))
    assert message.endswith(
        "Did you mean env.name=CartPole-v1? (env= picks an env config such as gym_env; env.name= sets the gymnasium id)"
    )


def test_a_mistyped_root_config_gets_the_closest_root() -> None:
    message = describe_config_error(composition_error(root="conf_trian"))
    assert message.endswith("Did you mean -cn conf_train?")


def test_suggest_key_uses_the_level_where_the_lookup_failed() -> None:
    cfg = OmegaConf.create({"algorithm": {"lr": 0.1, "gamma": 0.9}, "env": {"name": "x"}})
    OmegaConf.set_struct(cfg, True)
    with pytest.raises((ConfigKeyError, ConfigAttributeError)) as caught:
        OmegaConf.update(cfg, "algorithm.gama", 1, merge=True)
    assert suggest_key("algorithm.gama", caught.value) == "algorithm.gamma"
    with pytest.raises((ConfigKeyError, ConfigAttributeError)) as caught:
        OmegaConf.update(cfg, "algorith.gamma", 1, merge=True)
    assert suggest_key("algorith.gamma", caught.value) == "algorithm.gamma"


def test_only_hydra_and_omegaconf_errors_count_as_config_errors() -> None:
    assert not is_config_error(RuntimeError("bug"))
    assert is_config_error(ConfigKeyError("missing"))


def resolution_error(config: dict) -> Exception:
    with pytest.raises(InterpolationKeyError) as caught:
        OmegaConf.resolve(OmegaConf.create(config))
    return caught.value


@pytest.mark.parametrize(
    ("config", "key", "line", "root"),
    [
        (
            {"policy": {"x": "${trusted_modules}"}},
            "trusted_modules",
            "the line `trusted_modules: []` to it",
            "conf_rollout",
        ),
        (
            {"seeding": {}, "policy": {"x": "${seeding.shuffle_seeds}"}},
            "seeding.shuffle_seeds",
            "the line `shuffle_seeds: false` to its `seeding:` section",
            "conf_rollout",
        ),
        (
            {"policy": {"x": "${tensorboard_figures}"}},
            "tensorboard_figures",
            "the line `tensorboard_figures: true` to it",
            "conf_train",
        ),
        (
            {"policy": {"x": "${model}"}},
            "model",
            "the line `- model: flatten_concat` to its defaults list",
            "conf_rollout",
        ),
    ],
)
def test_a_root_key_missing_from_an_older_root_config_names_the_key_and_the_line_to_add(
    config: dict, key: str, line: str, root: str
) -> None:
    message = describe_config_error(resolution_error(config))
    assert message.startswith(f"Your root config has no {key!r}")
    assert f"Add {line}, or inherit maze's root config instead of copying it (defaults: [{root}, _self_]" in message
    assert "\n" not in message


def test_an_interpolation_of_a_key_maze_does_not_know_keeps_omegaconfs_message() -> None:
    message = describe_config_error(resolution_error({"policy": {"x": "${my_own_key}"}}))
    assert message.startswith("Interpolation key 'my_own_key' not found")
