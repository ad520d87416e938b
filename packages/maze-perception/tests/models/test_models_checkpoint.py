"""Checkpoints: tensors-only state dicts, plain-data spaces, atomic writes, SerializedTorchPolicy."""

import os
import pickle
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from gymnasium import spaces
from maze.env import GymMazeEnv
from maze.env.core.actor import ActorID
from maze.env.errors import ConfigurationError
from maze.env.testing.fake_envs import build_multi_agent_env
from maze.env.utils import files
from maze.env.utils.spaces import ordered_dict_space
from maze.perception.checkpoint import SerializedTorchPolicy, load_checkpoint, save_checkpoint
from maze.perception.models import SpacesConfig, build_model_composer
from maze.perception.serialization import load_state_dict_file, save_state_dict

MODEL = {
    "_target_": "maze.perception.models.template_model_composer.TemplateModelComposer",
    "distribution_mapper_config": [],
    "model_builder": {
        "_target_": "maze.perception.builders.ConcatModelBuilder",
        "shared_embedding_keys": ["latent"],
        "observation_modality_mapping": {"observation": "feature"},
        "modality_config": {
            "feature": {
                "block_type": "maze.perception.blocks.DenseBlock",
                "block_params": {"hidden_units": [16], "non_lin": "torch.nn.Tanh"},
            },
            "hidden": {},
            "recurrence": {},
        },
    },
    "policy": {"_target_": "maze.perception.models.policies.ProbabilisticPolicyComposer"},
    "critic": {"_target_": "maze.perception.models.critics.StateCriticComposer"},
}


def trained_run(tmp_path: Path, env=None) -> tuple:
    env = env or GymMazeEnv("CartPole-v1")
    spaces_config = SpacesConfig.from_env(env)
    composer = build_model_composer(MODEL, spaces_config)
    actor_critic = composer.torch_actor_critic()
    with torch.no_grad():
        for parameter in actor_critic.parameters():
            parameter.add_(torch.randn_like(parameter))
    save_checkpoint(tmp_path, actor_critic, spaces_config, MODEL)
    return env, actor_critic, spaces_config


def test_saved_policy_reloads_with_weights_only_and_acts_identically(tmp_path: Path) -> None:
    env, actor_critic, _ = trained_run(tmp_path)
    raw = torch.load(tmp_path / "state_dict.pt", weights_only=True)
    assert set(raw) == {"policy_0", "critic_0"}
    assert all(isinstance(tensor, torch.Tensor) for network in raw.values() for tensor in network.values())
    model_config = yaml.safe_load((tmp_path / "model_config.yaml").read_text())
    policy = SerializedTorchPolicy(
        model_config, tmp_path / "state_dict.pt", tmp_path / "spaces_config.yaml", device="cpu"
    )
    observations = np.random.default_rng(0).normal(size=(64, 4)).astype(np.float32)
    original = actor_critic.policy.compute_action({"observation": observations}, deterministic=True)["action"]
    reloaded = policy.compute_action({"observation": observations}, deterministic=True)["action"]
    np.testing.assert_array_equal(original, reloaded)
    actor_critic.policy.seed(5)
    sampled = actor_critic.policy.compute_action({"observation": observations})["action"]
    policy.seed(5)
    np.testing.assert_array_equal(sampled, policy.compute_action({"observation": observations})["action"])
    obs, _ = env.reset(seed=0)
    assert policy.compute_action(obs, actor_id=ActorID(0, 0), deterministic=True)["action"] in (0, 1)


def test_separate_agent_nets_round_trip(tmp_path: Path) -> None:
    env = build_multi_agent_env(n_agents=2)
    config = {
        "_target_": "maze.perception.models.CustomModelComposer",
        "distribution_mapper_config": [],
        "policy": {
            "_target_": "ProbabilisticPolicyComposer",
            "networks": [
                {
                    "_target_": "maze.perception.models.built_in.FlattenConcatPolicyNet",
                    "hidden_units": [8],
                    "non_lin": "Tanh",
                }
            ],
            "substeps_with_separate_agent_nets": [0],
        },
    }
    spaces_config = SpacesConfig.from_env(env)
    policy = build_model_composer(config, spaces_config).torch_policy()
    save_checkpoint(tmp_path, policy, spaces_config, config)
    reloaded = SerializedTorchPolicy(config, tmp_path / "state_dict.pt", tmp_path / "spaces_config.yaml")
    obs = {"observation": np.ones((3, 4), np.float32), "agent": np.ones((3, 1), np.float32)}
    for agent in (0, 1):
        expected = policy.compute_logits_dict(obs, ActorID(0, agent))["action"]
        assert torch.equal(expected, reloaded.compute_logits_dict(obs, ActorID(0, agent))["action"])


def test_mismatching_spaces_give_a_clear_error(tmp_path: Path) -> None:
    trained_run(tmp_path)
    other_env = GymMazeEnv("Acrobot-v1")
    other_spaces = SpacesConfig.from_env(other_env)
    with pytest.raises(ConfigurationError, match=r"sub-step 0, observation key 'observation'"):
        SerializedTorchPolicy(
            MODEL, tmp_path / "state_dict.pt", tmp_path / "spaces_config.yaml", env_spaces=other_spaces
        )
    other_model = build_model_composer(MODEL, other_spaces).torch_actor_critic()
    with pytest.raises(ConfigurationError, match="observation key 'observation'"):
        load_checkpoint(tmp_path, other_model, expected_spaces=other_spaces)
    with pytest.raises(ConfigurationError, match=r"policy_0\..*shape \[16, 4\].*expects \[16, 6\]"):
        load_checkpoint(tmp_path, other_model)


def test_spaces_config_round_trips_as_yaml_and_json(tmp_path: Path) -> None:
    config = SpacesConfig(
        action_spaces_dict={
            0: ordered_dict_space(
                {"c": spaces.MultiBinary(5), "a": spaces.Discrete(3, start=1), "b": spaces.MultiDiscrete([2, 4])}
            ),
            "place": spaces.Dict(
                {"p": spaces.Box(np.array([-1.0, 0.0], np.float32), np.array([1.0, 2.0], np.float32), dtype=np.float32)}
            ),
        },
        observation_spaces_dict={
            0: spaces.Dict([("x", spaces.Box(-np.inf, np.inf, (2, 3), np.float32)), ("w", spaces.Discrete(2))]),
            "place": spaces.Dict({"y": spaces.Box(0, 255, (3, 4, 4), np.uint8)}),
        },
        agent_counts_dict={0: 2, "place": 1},
    )
    for name in ("spaces_config.yaml", "spaces_config.json"):
        config.save(tmp_path / name)
        loaded = SpacesConfig.load(tmp_path / name)
        assert loaded == config
        for kind in ("action_spaces_dict", "observation_spaces_dict"):
            for step_key, space in getattr(config, kind).items():
                assert list(getattr(loaded, kind)[step_key].spaces) == list(space.spaces)
        loaded.check_compatible(config)
    assert "!!python" not in (tmp_path / "spaces_config.yaml").read_text()


ORDER_MODEL = {
    **MODEL,
    "model_builder": {
        **MODEL["model_builder"],
        "shared_embedding_keys": None,
        "observation_modality_mapping": {"b": "feature", "a": "identity"},
        "modality_config": {
            **MODEL["model_builder"]["modality_config"],
            "identity": {"block_type": "maze.perception.blocks.FlattenBlock", "block_params": {"num_flatten_dims": 1}},
        },
    },
    "critic": None,
}


def test_unsorted_observation_keys_keep_their_order_through_a_checkpoint(tmp_path: Path) -> None:
    torch.manual_seed(0)
    box = spaces.Box(-1, 1, (3,), np.float32)
    observation_space = spaces.Dict([("b", box), ("a", spaces.Box(-1, 1, (2,), np.float32))])
    spaces_config = SpacesConfig(
        {0: spaces.Dict({"action": spaces.Box(-1, 1, (1,), np.float32)})}, {0: observation_space}, {0: 1}
    )
    policy = build_model_composer(ORDER_MODEL, spaces_config).torch_policy()
    save_checkpoint(tmp_path, policy, spaces_config, ORDER_MODEL)
    stored = SpacesConfig.load(tmp_path / "spaces_config.yaml")
    assert list(stored.observation_spaces_dict[0].spaces) == ["b", "a"]
    reloaded = SerializedTorchPolicy(
        ORDER_MODEL, tmp_path / "state_dict.pt", tmp_path / "spaces_config.yaml", env_spaces=spaces_config
    )
    observation = {"a": np.array([0.3, -0.2], np.float32), "b": np.array([0.9, 0.1, -0.5], np.float32)}
    np.testing.assert_array_equal(
        policy.compute_action(observation, deterministic=True)["action"],
        reloaded.compute_action(observation, deterministic=True)["action"],
    )
    sorted_spaces = SpacesConfig(spaces_config.action_spaces_dict, {0: spaces.Dict(dict(observation_space))}, {0: 1})
    with pytest.raises(ConfigurationError, match=r"orders the observation keys \['b', 'a'\].*\['a', 'b'\]"):
        stored.check_compatible(sorted_spaces)


def test_malformed_spaces_config_names_the_file_and_the_problem(tmp_path: Path) -> None:
    config = SpacesConfig.from_env(GymMazeEnv("CartPole-v1"))
    data = config.to_data()
    del data["sub_steps"][0]["agent_count"]
    path = tmp_path / "spaces_config.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigurationError, match=r"spaces_config.yaml.*sub_steps\[0\] has no key 'agent_count'"):
        SpacesConfig.load(path)
    path.write_text(yaml.safe_dump({"format": data["format"]}))
    with pytest.raises(ConfigurationError, match=r"spaces_config.yaml.*missing key 'sub_steps'"):
        SpacesConfig.load(path)
    data = config.to_data()
    data["sub_steps"][0]["action_space"] = {"type": "Discrete", "n": 2}
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigurationError, match=r"spaces_config.yaml.*action_space of sub-step 0 must be a Dict"):
        SpacesConfig.load(path)


def test_pickled_spaces_and_foreign_state_dicts_are_refused(tmp_path: Path) -> None:
    (tmp_path / "spaces_config.pkl").write_bytes(pickle.dumps({"observation": 1}))
    with pytest.raises(ConfigurationError, match="spaces config"):
        SpacesConfig.load(tmp_path / "spaces_config.pkl")
    torch.save({"policy_0": {"w": torch.zeros(1)}, "extra": object()}, tmp_path / "bad.pt")
    with pytest.raises(ConfigurationError, match="weights_only=True"):
        load_state_dict_file(tmp_path / "bad.pt")
    with pytest.raises(ConfigurationError, match=r"\['step'\] is a int"):
        save_state_dict({"policy_0": {"w": torch.zeros(1)}, "step": 3}, tmp_path / "x.pt")
    torch.save({"policy_0": {"w": torch.zeros(1), "step": 3}}, tmp_path / "numbers.pt")
    with pytest.raises(ConfigurationError, match=r"numbers.pt'\['policy_0'\]\['step'\] is a int"):
        load_state_dict_file(tmp_path / "numbers.pt")
    torch.save([torch.zeros(1)], tmp_path / "list.pt")
    with pytest.raises(ConfigurationError, match="holds a list, not a state dict"):
        load_state_dict_file(tmp_path / "list.pt")
    with pytest.raises(FileNotFoundError, match="missing.pt"):
        load_state_dict_file(tmp_path / "missing.pt")


def test_a_failed_write_keeps_the_previous_checkpoint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "state_dict.pt"
    save_state_dict({"policy_0": {"w": torch.ones(2)}}, path)

    def crash(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(files.os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        save_state_dict({"policy_0": {"w": torch.zeros(2)}}, path)
    monkeypatch.undo()
    assert torch.equal(load_state_dict_file(path)["policy_0"]["w"], torch.ones(2))
    assert os.listdir(tmp_path) == ["state_dict.pt"]


def test_a_model_config_with_yaml_aliases_is_refused_naming_the_file(tmp_path: Path) -> None:
    """A run directory's ``model_config.yaml`` may come from anyone: anchors and aliases (billion laughs) are refused."""
    from maze.env.utils.timeout import Timeout
    from maze.env.utils.untrusted_files import UntrustedFileError

    trained_run(tmp_path)
    laughs = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    laughs += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 9)]
    path = tmp_path / "model_config.yaml"
    path.write_text("\n".join([*laughs, yaml.safe_dump(MODEL).replace("[]", "*l8")]))
    with Timeout(10), pytest.raises(UntrustedFileError, match="model_config.yaml' uses the YAML anchor &l0"):
        SerializedTorchPolicy(None, tmp_path / "state_dict.pt", tmp_path / "spaces_config.yaml", model_config_file=path)
