"""The documented template model examples, shared embeddings, masks and the packaged model configs."""

from importlib.resources import files

import numpy as np
import pytest
import torch
import yaml
from gymnasium import spaces
from maze.env import GymMazeEnv
from maze.env.errors import ConfigurationError
from maze.env.testing.fake_envs import build_multi_step_env
from maze.env.utils.factory import Factory
from maze.perception.blocks import InferenceBlock
from maze.perception.models import BaseModelComposer, TemplateModelComposer

CONF = files("maze.perception") / "conf"

FEATURE = {
    "block_type": "maze.perception.blocks.DenseBlock",
    "block_params": {"hidden_units": [32, 32], "non_lin": "torch.nn.ReLU"},
}
IMAGE = {
    "block_type": "maze.perception.blocks.VGGConvolutionDenseBlock",
    "block_params": {"hidden_channels": [8, 16, 32], "hidden_units": [32], "non_lin": "torch.nn.ReLU"},
}
HIDDEN = {
    "block_type": "maze.perception.blocks.DenseBlock",
    "block_params": {"hidden_units": [128], "non_lin": "torch.nn.ReLU"},
}
RECURRENCE = {
    "block_type": "maze.perception.blocks.LSTMLastStepBlock",
    "block_params": {"hidden_size": 32, "num_layers": 1, "bidirectional": False, "non_lin": "torch.nn.SELU"},
}


def model_config(composer: str, shared=None, recurrence=None, mapping=None, modalities=None) -> dict:
    return {
        "_target_": composer,
        "distribution_mapper_config": [],
        "model_builder": {
            "_target_": "maze.perception.builders.ConcatModelBuilder",
            "shared_embedding_keys": shared,
            "observation_modality_mapping": mapping
            or {"observation_inventory": "feature", "observation_screen": "image"},
            "modality_config": modalities
            or {"feature": FEATURE, "image": IMAGE, "hidden": HIDDEN, "recurrence": recurrence or {}},
        },
        "policy": {"_target_": "maze.perception.models.policies.ProbabilisticPolicyComposer"},
        "critic": {"_target_": "maze.perception.models.critics.StateCriticComposer"},
    }


def build(config: dict, spaces_kwargs: dict) -> BaseModelComposer:
    return Factory(BaseModelComposer).instantiate(config, **spaces_kwargs)


def random_obs(space: spaces.Dict, batch: int) -> dict:
    return {key: torch.rand(batch, *sub.shape) for key, sub in space.items()}


def test_feed_forward_two_modality_example(two_modality_spaces: dict) -> None:
    composer = build(
        model_config("maze.perception.models.template_model_composer.TemplateModelComposer"), two_modality_spaces
    )
    policy_net = composer.policy.networks[0]
    assert isinstance(policy_net, InferenceBlock)
    assert {
        "observation_inventory_DenseBlock",
        "observation_screen_VGGConvolutionDenseBlock",
        "concat",
        "latent",
    } <= set(policy_net.perception_blocks)
    out = policy_net(random_obs(two_modality_spaces["observation_spaces_dict"][0], 5))
    assert out["action_move"].shape == (5, 4) and out["action_use"].shape == (5, 16)
    value = composer.critic.networks[0](random_obs(two_modality_spaces["observation_spaces_dict"][0], 5))["value"]
    assert value.shape == (5, 1)
    assert set(composer.graph_structures()) == {"policy_0", "critic_0"}


def test_recurrent_example_through_default_model_composer_alias(two_modality_spaces: dict) -> None:
    config = model_config("maze.perception.models.default_model_composer.DefaultModelComposer", recurrence=RECURRENCE)
    composer = build(config, two_modality_spaces)
    assert isinstance(composer, TemplateModelComposer)
    policy_net = composer.policy.networks[0]
    assert type(policy_net.perception_blocks["latent"]).__name__ == "LSTMLastStepBlock"
    assert policy_net.tensor_shapes()["latent"] == (32,)
    out = policy_net(random_obs(two_modality_spaces["observation_spaces_dict"][0], 3))
    assert out["action_move"].shape == (3, 4)


def test_single_observation_cartpole_example(cartpole_spaces: dict) -> None:
    config = model_config(
        "maze.perception.models.template_model_composer.TemplateModelComposer",
        mapping={"observation": "feature"},
        modalities={"feature": FEATURE, "hidden": {}, "recurrence": {}},
    )
    composer = build(config, cartpole_spaces)
    policy_net = composer.policy.networks[0]
    assert policy_net.producer_of("observation_DenseBlock") == "observation_DenseBlock"
    assert policy_net.tensor_shapes()["latent"] == (32,)  # the concatenation of one input is an identity
    assert policy_net.out_shapes() == [(2,)]
    policy = composer.torch_policy()
    from maze.env.core.actor import ActorID

    action = policy.compute_action({"observation": np.zeros(4, np.float32)}, actor_id=ActorID(0, 0), deterministic=True)
    assert set(action) == {"action"} and action["action"] in (0, 1)


def test_shared_embedding_routes_the_policy_latent_into_the_critic(two_modality_spaces: dict) -> None:
    composer = build(
        model_config("maze.perception.models.template_model_composer.TemplateModelComposer", shared=["latent"]),
        two_modality_spaces,
    )
    policy_net, critic_net = composer.policy.networks[0], composer.critic.networks[0]
    assert "latent" in policy_net.out_keys
    assert critic_net.in_keys == ["latent"] and list(critic_net.perception_blocks) == ["value"]
    actor_critic = composer.torch_actor_critic()
    obs = random_obs(two_modality_spaces["observation_spaces_dict"][0], 4)
    output = actor_critic.policy.compute_substep_policy_output(obs)
    assert output.embedding_logits["latent"].shape == (4, 128)
    value = actor_critic.critic.predict_value({"latent": output.embedding_logits["latent"]})
    assert value.shape == (4,)
    value.sum().backward()
    first_dense = policy_net.perception_blocks["observation_inventory_DenseBlock"]
    assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in first_dense.parameters())


def test_shared_intermediate_embedding_keeps_the_critic_blocks_after_it(two_modality_spaces: dict) -> None:
    key = "observation_screen_VGGConvolutionDenseBlock"
    composer = build(
        model_config("maze.perception.models.template_model_composer.TemplateModelComposer", shared=[key]),
        two_modality_spaces,
    )
    critic_net = composer.critic.networks[0]
    assert set(critic_net.in_keys) == {"observation_inventory", key}
    assert key not in critic_net.perception_blocks


def test_action_mask_observation_masks_its_head() -> None:
    spaces_kwargs = {
        "observation_spaces_dict": {
            0: spaces.Dict({"observation": spaces.Box(-1, 1, (4,)), "action_mask": spaces.Box(0, 1, (3,))})
        },
        "action_spaces_dict": {0: spaces.Dict({"action": spaces.Discrete(3)})},
        "agent_counts_dict": {0: 1},
    }
    config = model_config(
        "maze.perception.models.template_model_composer.TemplateModelComposer",
        mapping={"observation": "feature"},
        modalities={"feature": FEATURE, "hidden": {}, "recurrence": {}},
    )
    composer = build(config, spaces_kwargs)
    assert type(composer.policy.networks[0].perception_blocks["action"]).__name__ == "ActionMaskingBlock"
    policy = composer.torch_policy()
    obs = {
        "observation": np.random.default_rng(0).normal(size=(1000, 4)).astype(np.float32),
        "action_mask": np.tile(np.array([1, 0, 1], np.float32), (1000, 1)),
    }
    actions = policy.compute_action(obs)["action"]
    assert actions.shape == (1000,) and not np.any(actions == 1) and set(np.unique(actions)) == {0, 2}
    assert composer.critic.networks[0].in_keys == ["observation"]


def test_unmapped_observation_and_unknown_modality_give_clear_errors(two_modality_spaces: dict) -> None:
    config = model_config(
        "maze.perception.models.template_model_composer.TemplateModelComposer",
        mapping={"observation_inventory": "feature"},
    )
    with pytest.raises(ConfigurationError, match="observation_screen"):
        build(config, two_modality_spaces)
    config = model_config(
        "maze.perception.models.template_model_composer.TemplateModelComposer",
        mapping={"observation_inventory": "feature", "observation_screen": "pixels"},
    )
    with pytest.raises(ConfigurationError, match="'pixels'"):
        build(config, two_modality_spaces)
    config = model_config("maze.perception.models.template_model_composer.TemplateModelComposer", shared=["latnt"])
    with pytest.raises(ConfigurationError, match="latnt"):
        build(config, two_modality_spaces)


def load_config(model: str, critic: str) -> dict:
    config = yaml.safe_load((CONF / "model" / f"{model}.yaml").read_text())
    config.update(yaml.safe_load((CONF / "critic" / f"{critic}.yaml").read_text()))
    return config


def env_spaces(env) -> dict:
    return {
        "observation_spaces_dict": env.observation_spaces_dict,
        "action_spaces_dict": env.action_spaces_dict,
        "agent_counts_dict": env.agent_counts_dict,
    }


PIXEL_SPACES = {
    "observation_spaces_dict": {0: spaces.Dict({"observation": spaces.Box(0, 1, (3, 32, 32), np.float32)})},
    "action_spaces_dict": {0: spaces.Dict({"action": spaces.Discrete(5)})},
    "agent_counts_dict": {0: 1},
}


@pytest.mark.parametrize(
    ("model", "critic", "env_name"),
    [
        ("vector_obs", "template_state", "CartPole-v1"),
        ("vector_obs", "template_shared", "Pendulum-v1"),
        ("vector_obs", "template_state_action", "Pendulum-v1"),
        ("vector_obs_rnn", "template_state", "CartPole-v1"),
        ("pixel_obs", "template_state", None),
        ("flatten_concat", "flatten_concat_state", "CartPole-v1"),
        ("flatten_concat", "flatten_concat_shared", "CartPole-v1"),
        ("flatten_concat", "flatten_concat_state_action", "CartPole-v1"),
    ],
)
def test_packaged_model_configs_build_and_act(model: str, critic: str, env_name) -> None:
    spaces_kwargs = env_spaces(GymMazeEnv(env_name)) if env_name else PIXEL_SPACES
    composer = build(load_config(model, critic), spaces_kwargs)
    policy = composer.torch_policy()
    space = spaces_kwargs["observation_spaces_dict"][0]
    observation = {key: sub.sample() for key, sub in space.items()}
    action = policy.compute_action(observation)
    assert spaces_kwargs["action_spaces_dict"][0].contains(
        {
            key: np.asarray(value, dtype=spaces_kwargs["action_spaces_dict"][0][key].dtype)
            for key, value in action.items()
        }
    )
    assert composer.critic is not None and len(composer.critic.networks) == 1


def test_packaged_template_critic_on_custom_model_explains_the_mismatch(cartpole_spaces: dict) -> None:
    with pytest.raises(ConfigurationError, match="has no networks"):
        build(load_config("flatten_concat", "template_state"), cartpole_spaces)


def test_template_model_on_a_multi_step_env() -> None:
    env = build_multi_step_env()
    config = multi_step_template("template_state")
    composer = build(config, env_spaces(env))
    assert set(composer.policy.networks) == {0, 1} and set(composer.critic.networks) == {0, 1}
    assert composer.critic.networks[1].in_keys == ["latent"]


def test_vector_obs_rnn_runs_the_lstm_over_stacked_observations() -> None:
    spaces_kwargs = {
        "observation_spaces_dict": {0: spaces.Dict({"observation": spaces.Box(-1, 1, (3, 4), np.float32)})},
        "action_spaces_dict": {0: spaces.Dict({"action": spaces.Discrete(2)})},
        "agent_counts_dict": {0: 1},
    }
    composer = build(load_config("vector_obs_rnn", "template_state"), spaces_kwargs)
    shapes = composer.policy.networks[0].tensor_shapes()
    assert shapes["observation_DenseBlock"] == (3, 128) and shapes["hidden"] == (3, 128) and shapes["latent"] == (32,)
    actions = composer.torch_policy().compute_action({"observation": np.zeros((5, 3, 4), np.float32)})["action"]
    assert actions.shape == (5,)


def multi_step_template(critic: str) -> dict:
    """vector_obs on the multi-step env, its policy's latent shared with the critic (vector_obs's default: not)."""
    config = load_config("vector_obs", critic)
    config["model_builder"]["observation_modality_mapping"] = {"items": "feature", "step": "feature"}
    config["model_builder"]["shared_embedding_keys"] = ["latent"]
    return config


def test_delta_critic_with_shared_embeddings_still_reads_prev_value() -> None:
    config = multi_step_template("template_state")
    config["critic"]["_target_"] = "maze.perception.models.critics.DeltaStateCriticComposer"
    composer = build(config, env_spaces(build_multi_step_env()))
    network = composer.critic.networks[1]
    assert network.in_keys == ["latent", "prev_value"]
    inputs = {"latent": torch.randn(5, 128), "prev_value": torch.zeros(5, 1)}
    changed = network({**inputs, "prev_value": torch.full((5, 1), 3.0)})["value"]
    assert not torch.allclose(network(inputs)["value"], changed)


def test_q_critic_with_shared_embeddings_still_reads_the_action() -> None:
    composer = build(multi_step_template("template_state_action"), env_spaces(build_multi_step_env()))
    network = composer.critic.networks[1]
    assert network.in_keys == ["latent", "position"]
    latent = torch.randn(5, 128)
    first = network({"latent": latent, "position": torch.zeros(5, 2)})["q_value"]
    assert not torch.allclose(first, network({"latent": latent, "position": torch.ones(5, 2)})["q_value"])


def test_template_critic_refuses_to_stack_keys_of_several_sub_steps() -> None:
    config = multi_step_template("template_shared")
    config["critic"]["stack_observations"] = True
    with pytest.raises(ConfigurationError, match=r"would stack \['items', 'latent'\].*stack_observations: false"):
        build(config, env_spaces(build_multi_step_env()))
    config["critic"]["stack_observations"] = False
    composer = build(config, env_spaces(build_multi_step_env()))
    assert composer.critic.networks[0].in_keys == ["latent"]
