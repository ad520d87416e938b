"""The config tree maze.conf composes with every group option and holds the documented defaults."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources

import pytest
from hydra import compose, initialize_config_module
from hydra.core.global_hydra import GlobalHydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

BUDGET_KEYS = {"max_env_steps", "max_seconds"}
ALGORITHM_KEYS = BUDGET_KEYS | {
    "n_epochs",
    "epoch_length",
    "patience",
    "critic_burn_in_epochs",
    "n_rollout_steps",
    "lr",
    "optimizer",
    "optimizer_eps",
    "lr_schedule",
    "gamma",
    "gae_lambda",
    "normalize_advantages",
    "reward_scaling",
    "policy_loss_coef",
    "value_loss_coef",
    "entropy_coef",
    "max_grad_norm",
    "device",
    "target_reward",
    "rollout_evaluator",
}
PPO_ONLY_KEYS = {"batch_size", "n_optimization_epochs", "clip_range"}
ES_KEYS = BUDGET_KEYS | {
    "n_rollouts_per_update",
    "n_timesteps_per_update",
    "n_epochs",
    "max_steps",
    "optimizer",
    "l2_penalty",
    "noise_stddev",
    "policy_wrapper",
    "target_reward",
}


@pytest.fixture(autouse=True)
def maze_conf() -> Iterator[None]:
    with initialize_config_module(config_module="maze.conf", version_base="1.3"):
        yield


@contextmanager
def hydra_config(root: str, overrides: list[str]) -> Iterator[None]:
    """Sets Hydra's runtime config (as ``maze-run`` does) while the block runs."""
    HydraConfig.instance().set_config(compose(root, overrides, return_hydra_config=True))
    try:
        yield
    finally:
        HydraConfig.instance().cfg = None


def options(group: str) -> list[str]:
    return sorted(GlobalHydra.instance().config_loader().get_group_options(group))


def own_options(group: str) -> list[str]:
    """The options of a group shipped in the installed maze.conf package (no Hydra involved)."""
    return sorted(path.name.removesuffix(".yaml") for path in resources.files("maze.conf").joinpath(group).iterdir())


def test_groups_come_from_maze_conf_and_maze_perception() -> None:
    assert options("env") == own_options("env")
    assert {"flatten_concat", "vector_obs"} <= set(options("model"))  # maze-perception's groups are on the path
    assert {"template_state", "template_state_action"} <= set(options("critic"))


def test_conf_train_defaults() -> None:
    cfg = compose("conf_train")
    assert cfg.env._target_ == "maze.env.gym_adapter.gym_maze_env.make_gym_maze_env"
    assert cfg.env.name == "CartPole-v1" and cfg.env.render_mode is None
    assert cfg.wrappers == {}
    assert cfg.model._target_.endswith("CustomModelComposer")  # flatten_concat
    assert cfg.model.critic is None  # critic: null by default
    assert set(cfg.algorithm) == ES_KEYS  # ES is the documented default algorithm
    assert cfg.algorithm.optimizer == {"_target_": "maze.train.trainers.es.optimizers.adam.Adam", "step_size": 0.01}
    assert (cfg.runner._target_, cfg.runner.backend) == ("maze.train.trainers.es.runner.ESRunner", "local")
    assert (cfg.runner.n_train_workers, cfg.runner.n_eval_workers, cfg.runner.start_method) == (4, 1, "forkserver")
    assert (cfg.runner.n_eval_rollouts, cfg.runner.shared_noise_table_size) == (10, 100_000_000)
    assert cfg.runner.normalization_samples == 10000
    assert cfg.log_base_dir == "outputs" and cfg.input_dir == ""
    assert OmegaConf.to_container(cfg.seeding) == {
        "env_base_seed": None,
        "agent_base_seed": None,
        "cudnn_determinism_flag": False,
    }


def test_es_yaml_holds_the_defaults_of_es_algorithm_config() -> None:
    from maze.train.trainers.es import ESAlgorithmConfig

    yaml_config = OmegaConf.to_container(compose("conf_train", ["algorithm=es"]).algorithm)
    assert ESAlgorithmConfig.from_config(yaml_config) == ESAlgorithmConfig()
    dev = compose("conf_train", ["algorithm=es", "runner=dev"]).runner
    assert (dev._target_, dev.backend, dev.n_eval_rollouts, dev.shared_noise_table_size) == (
        "maze.train.trainers.es.runner.ESRunner",
        "dev",
        10,
        100_000_000,
    )


def test_conf_rollout_defaults() -> None:
    cfg = compose("conf_rollout")
    assert cfg.runner._target_ == "maze.rollout.AutoRolloutRunner"
    assert (cfg.runner.n_processes, cfg.runner.n_episodes, cfg.runner.max_episode_steps) == (5, 50, None)
    assert cfg.runner.record_trajectory and cfg.runner.record_event_logs
    assert cfg.policy._target_ == "maze.env.agent.random_policy.RandomPolicy"
    assert cfg.env.name == "CartPole-v1" and cfg.wrappers == {}
    assert cfg.seeding.explicit_env_seeds is None and cfg.seeding.explicit_agent_seeds is None


@pytest.mark.parametrize(
    ("algorithm", "defaults", "original"),
    [
        (
            "a2c",
            {
                "lr": 0.0007,
                "optimizer": "rmsprop",
                "entropy_coef": 0.0,
                "gamma": 0.995,
                "epoch_length": 160,
                "n_rollout_steps": 16,
            },
            {
                "lr": 0.0005,
                "optimizer": "adam",
                "entropy_coef": 0.00025,
                "gamma": 0.98,
                "epoch_length": 25,
                "n_rollout_steps": 100,
            },
        ),
        (
            "ppo",
            {
                "lr": 0.0003,
                "clip_range": 0.2,
                "gamma": 0.99,
                "batch_size": 64,
                "epoch_length": 10,
                "n_rollout_steps": 256,
            },
            {
                "lr": 0.00025,
                "clip_range": 0.2,
                "gamma": 0.98,
                "batch_size": 100,
                "epoch_length": 25,
                "n_rollout_steps": 100,
            },
        ),
    ],
)
def test_algorithm_configs_hold_the_documented_keys(algorithm: str, defaults: dict, original: dict) -> None:
    cfg = compose("conf_train", [f"algorithm={algorithm}"]).algorithm
    expected = ALGORITHM_KEYS | (PPO_ONLY_KEYS if algorithm == "ppo" else set())
    assert set(cfg) == expected
    assert (cfg.n_epochs, cfg.patience, cfg.max_grad_norm, cfg.reward_scaling) == (0, 15, 0.5, True)
    assert cfg.max_env_steps == 1_000_000 and cfg.target_reward is None and cfg.device == "cpu"
    assert OmegaConf.to_container(cfg.rollout_evaluator) == {
        "_target_": "maze.train.evaluators.RolloutEvaluator",
        "deterministic": True,
        "n_episodes": 8,
    }
    for key, value in defaults.items():
        assert cfg[key] == value
    # the seeds' values, one switch away
    seeds = compose("conf_train", [f"algorithm={algorithm}", "+experiment=original_defaults"]).algorithm
    assert set(seeds) == expected
    assert (seeds.gamma, seeds.gae_lambda, seeds.max_grad_norm, seeds.reward_scaling) == (0.98, 1.0, 0.0, False)
    assert seeds.max_env_steps is None
    for key, value in original.items():
        assert seeds[key] == value


@pytest.mark.parametrize("algorithm", ["a2c", "ppo"])
@pytest.mark.parametrize("runner", ["dev", "local"])
def test_algorithm_runner_specialization(algorithm: str, runner: str) -> None:
    cfg = compose("conf_train", [f"algorithm={algorithm}", f"runner={runner}"]).runner
    name = algorithm.upper()
    assert (cfg._target_, cfg.backend) == (f"maze.train.trainers.{algorithm}.runner.{name}Runner", runner)
    assert cfg.trainer_class == f"maze.train.trainers.{algorithm}.{name}"
    assert (cfg.concurrency, cfg.eval_concurrency) == (0, 0)
    assert cfg.state_dict_dump_file == "state_dict.pt" and cfg.spaces_config_dump_file == "spaces_config.yaml"
    assert cfg.normalization_samples == {"dev": 1000, "local": 10000}[runner]
    assert cfg.dump_interval is None


def test_experiment_cartpole_ppo_wrappers() -> None:
    cfg = compose("conf_train", ["+experiment=cartpole_ppo_wrappers"])
    assert compose("conf_train").wrappers == {}  # the experiment replaces the default no_wrappers
    assert cfg.runner.trainer_class == "maze.train.trainers.ppo.PPO"
    assert cfg.algorithm.lr == 0.0001 and "clip_range" in cfg.algorithm
    assert list(cfg.wrappers) == ["ObservationNormalizationWrapper", "MazeEnvMonitoringWrapper"]


def test_critic_group_fills_the_model_critic() -> None:
    cfg = compose("conf_train", ["model=vector_obs", "critic=template_state"])
    assert cfg.model.critic._target_ == "maze.perception.models.critics.StateCriticComposer"
    assert cfg.model.policy._target_ == "maze.perception.models.policies.ProbabilisticPolicyComposer"


def test_torch_policy_reads_the_model_and_the_input_dir() -> None:
    cfg = compose("conf_rollout", ["policy=torch_policy", "model=vector_obs", "input_dir=/runs/ppo"])
    OmegaConf.resolve(cfg)
    assert cfg.policy.model == cfg.model
    assert cfg.policy.state_dict_file == "/runs/ppo/state_dict.pt"
    assert cfg.policy.spaces_dict_file == "/runs/ppo/spaces_config.yaml"


GROUP_OPTIONS = [
    ("conf_train", group, option)
    for group in ("env", "wrappers", "algorithm", "runner")
    for option in own_options(group)
    if not (group == "runner" and option in ("parallel", "sequential"))
] + [
    ("conf_rollout", group, option)
    for group in ("env", "wrappers", "policy", "runner")
    for option in own_options(group)
    if not (group == "runner" and option in ("dev", "local"))
]


@pytest.mark.parametrize(("root", "group", "option"), GROUP_OPTIONS, ids=[f"{r}-{g}={o}" for r, g, o in GROUP_OPTIONS])
def test_every_group_option_composes(root: str, group: str, option: str) -> None:
    cfg = compose(root, [f"{group}={option}"])
    assert isinstance(cfg[group], DictConfig)
    with hydra_config(root, [f"{group}={option}"]):  # job configs may use ${hydra:runtime.cwd} (runner.launch_dir)
        OmegaConf.resolve(cfg)
    if group in ("env", "policy", "runner"):
        assert "_target_" in cfg[group]


@pytest.mark.parametrize("group", ["model", "critic"])
def test_every_perception_option_composes(group: str) -> None:
    for option in options(group):
        cfg = compose("conf_train", [f"{group}={option}"])
        assert "critic" in cfg.model, f"{group}={option} did not land in the model config"


def test_every_experiment_composes() -> None:
    for option in own_options("experiment"):
        assert compose("conf_train", [f"+experiment={option}"]).algorithm


def test_every_algorithm_has_one_runner_file_for_every_runner_option() -> None:
    assert set(own_options("algorithm_runner")) == set(own_options("algorithm"))
    assert len(own_options("algorithm_runner")) <= 7  # one per algorithm, none per algorithm and backend
    training_runners = ("dev", "local", "ray")
    for algorithm in own_options("algorithm"):
        for runner in training_runners:
            cfg = compose("conf_train", [f"algorithm={algorithm}", f"runner={runner}"]).runner
            assert cfg.backend == runner and cfg._target_.startswith(f"maze.train.trainers.{algorithm.rstrip('fd')}")


@pytest.mark.parametrize("runner", ["dev", "local", "ray"])
def test_the_runner_names_of_earlier_releases_compose_the_same_runner(runner: str) -> None:
    current = compose("conf_train", ["algorithm=ppo", f"runner={runner}"]).runner
    legacy = compose("conf_train", ["algorithm=ppo", f"runner={runner}", f"algorithm_runner=ppo-{runner}"]).runner
    assert OmegaConf.to_container(legacy) == OmegaConf.to_container(current)


BC_KEYS = {
    "n_epochs",
    "max_seconds",
    "optimizer",
    "device",
    "batch_size",
    "eval_every_k_iterations",
    "validation_percentage",
    "n_eval_episodes",
    "entropy_coef",
}


def test_bc_config_holds_the_documented_keys() -> None:
    from maze.train.trainers.bc import BCAlgorithmConfig

    cfg = compose("conf_train", ["algorithm=bc"]).algorithm
    assert set(cfg) == BC_KEYS
    assert (cfg.n_epochs, cfg.batch_size, cfg.eval_every_k_iterations) == (1000, 100, 500)
    assert (cfg.validation_percentage, cfg.n_eval_episodes, cfg.entropy_coef) == (20, 8, 0.0)
    assert cfg.optimizer.lr == 0.001 and cfg.device == "cpu"
    assert BCAlgorithmConfig.from_config(cfg) == BCAlgorithmConfig()


@pytest.mark.parametrize("runner", ["dev", "local"])
def test_bc_runner_specialization(runner: str) -> None:
    overrides = ["algorithm=bc", f"runner={runner}"]
    cfg = compose("conf_train", overrides)
    with hydra_config("conf_train", overrides):
        OmegaConf.resolve(cfg)
    assert (cfg.runner._target_, cfg.runner.backend) == ("maze.train.trainers.bc.runner.BCRunner", runner)
    assert cfg.runner.trainer_class == "maze.train.trainers.bc.BCTrainer"
    assert cfg.runner.launch_dir == os.getcwd() and cfg.runner.eval_concurrency == 0
    dataset = OmegaConf.to_container(cfg.runner.dataset)
    assert dataset["_target_"] == "maze.rollout.datasets.InMemoryDataset"
    assert (dataset["input_data"], dataset["dir_or_file"], dataset["n_workers"]) == ("trajectory_data", None, 1)
    assert dataset["trajectory_processor"] == {"_target_": "maze.rollout.datasets.IdentityTrajectoryProcessor"}
