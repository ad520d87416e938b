"""The four documented custom model examples, written here from their contracts, built by the CustomModelComposer."""

from collections.abc import Mapping

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from maze.env.errors import ConfigurationError
from maze.env.utils.factory import Factory
from maze.perception.blocks import (
    ConcatenationBlock,
    DenseBlock,
    InferenceBlock,
    LinearOutputBlock,
    LSTMLastStepBlock,
    VGGConvolutionDenseBlock,
)
from maze.perception.models import BaseModelComposer, CustomModelComposer
from maze.perception.weight_init import make_module_init_normc
from torch import nn

HERE = __name__


class CartpolePolicyNet(nn.Module):
    """Example 1 policy: one dense block and a linear action head."""

    def __init__(self, obs_shapes: Mapping, action_logits_shapes: Mapping, non_lin, hidden_units: list) -> None:
        super().__init__()
        blocks = {"latent": DenseBlock("observation", "latent", obs_shapes["observation"], hidden_units, non_lin)}
        blocks["action"] = LinearOutputBlock(
            "latent", "action", blocks["latent"].out_shapes(), int(np.prod(action_logits_shapes["action"]))
        )
        self.perception_net = InferenceBlock("observation", "action", obs_shapes["observation"], blocks)
        self.perception_net.apply(make_module_init_normc(1.0))
        blocks["action"].apply(make_module_init_normc(0.01))

    def forward(self, x: Mapping) -> dict:
        return self.perception_net(x)


class CartpoleCriticNet(nn.Module):
    """Example 1 critic: one dense block and a value head."""

    def __init__(self, obs_shapes: Mapping, non_lin, hidden_units: list) -> None:
        super().__init__()
        blocks = {"latent": DenseBlock("observation", "latent", obs_shapes["observation"], hidden_units, non_lin)}
        blocks["value"] = LinearOutputBlock("latent", "value", blocks["latent"].out_shapes(), 1)
        self.perception_net = InferenceBlock("observation", "value", obs_shapes["observation"], blocks)

    def forward(self, x: Mapping) -> dict:
        return self.perception_net(x)


def complex_latent_blocks(obs_shapes: Mapping, non_lin, hidden_units: list, with_screen: bool = True) -> dict:
    """Examples 2 and 4: inventory and screen embeddings, concatenated, dense, LSTM."""
    blocks = {
        "latent_inventory": DenseBlock(
            "observation_inventory", "latent_inventory", obs_shapes["observation_inventory"], [128], non_lin
        )
    }
    if with_screen:
        blocks["latent_screen"] = VGGConvolutionDenseBlock(
            "observation_screen", "latent_screen", obs_shapes["observation_screen"], [8, 16, 32], [32], non_lin
        )
    screen_shape = blocks["latent_screen"].out_shapes() if with_screen else [obs_shapes["latent_screen"]]
    blocks["latent_concat"] = ConcatenationBlock(
        ["latent_inventory", "latent_screen"], "latent_concat", blocks["latent_inventory"].out_shapes() + screen_shape
    )
    blocks["latent_dense"] = DenseBlock(
        "latent_concat", "latent_dense", blocks["latent_concat"].out_shapes(), hidden_units, non_lin
    )
    blocks["latent"] = LSTMLastStepBlock(
        "latent_dense", "latent", blocks["latent_dense"].out_shapes(), hidden_size=32, non_lin=non_lin
    )
    return blocks


class ComplexPolicyNet(nn.Module):
    """Example 2 (and 4 with ``share_screen``) policy: heads on the complex latent."""

    def __init__(
        self,
        obs_shapes: Mapping,
        action_logits_shapes: Mapping,
        non_lin,
        hidden_units: list,
        share_screen: bool = False,
    ) -> None:
        super().__init__()
        blocks = complex_latent_blocks(obs_shapes, non_lin, hidden_units)
        for head, shape in action_logits_shapes.items():
            blocks[head] = LinearOutputBlock("latent", head, blocks["latent"].out_shapes(), int(np.prod(shape)))
        in_keys = list(obs_shapes)
        out_keys = list(action_logits_shapes) + (["latent_screen"] if share_screen else [])
        self.perception_net = InferenceBlock(in_keys, out_keys, [obs_shapes[k] for k in in_keys], blocks)

    def forward(self, x: Mapping) -> dict:
        return self.perception_net(x)


class ComplexCriticNet(nn.Module):
    """Example 2 critic (Example 4 when ``latent_screen`` comes from the policy)."""

    def __init__(self, obs_shapes: Mapping, non_lin, hidden_units: list) -> None:
        super().__init__()
        blocks = complex_latent_blocks(obs_shapes, non_lin, hidden_units, with_screen="latent_screen" not in obs_shapes)
        blocks["value"] = LinearOutputBlock("latent", "value", blocks["latent"].out_shapes(), 1)
        in_keys = [key for key in obs_shapes if key != "observation_screen" or "latent_screen" not in obs_shapes]
        self.perception_net = InferenceBlock(in_keys, "value", [obs_shapes[k] for k in in_keys], blocks)

    def forward(self, x: Mapping) -> dict:
        return self.perception_net(x)


class PlainCartpolePolicyNet(nn.Module):
    """Example 3 policy: plain torch, no perception blocks."""

    def __init__(
        self,
        obs_shapes: Mapping,
        action_logits_shapes: Mapping,
        hidden_layer_0: int,
        hidden_layer_1: int,
        use_bias: bool,
    ) -> None:
        super().__init__()
        self.observation_name, self.action_name = next(iter(obs_shapes)), next(iter(action_logits_shapes))
        self.l0 = nn.Linear(4, hidden_layer_0, bias=use_bias)
        self.l1 = nn.Linear(hidden_layer_0, hidden_layer_1, bias=use_bias)
        self.l2 = nn.Linear(hidden_layer_1, 2, bias=use_bias)

    def forward(self, x: Mapping) -> dict:
        return {self.action_name: self.l2(F.relu(self.l1(F.relu(self.l0(x[self.observation_name])))))}


class PlainCartpoleCriticNet(nn.Module):
    """Example 3 critic: plain torch."""

    def __init__(self, obs_shapes: Mapping, hidden_layer_0: int, hidden_layer_1: int, use_bias: bool) -> None:
        super().__init__()
        self.observation_name = next(iter(obs_shapes))
        self.net = nn.Sequential(
            nn.Linear(4, hidden_layer_0, bias=use_bias),
            nn.ReLU(),
            nn.Linear(hidden_layer_0, hidden_layer_1, bias=use_bias),
            nn.ReLU(),
            nn.Linear(hidden_layer_1, 1, bias=use_bias),
        )

    def forward(self, x: Mapping) -> dict:
        return {"value": self.net(x[self.observation_name])}


def custom_config(policy_net: dict, critic_net: dict, critic: str = "StateCriticComposer") -> dict:
    return {
        "_target_": "maze.perception.models.custom_model_composer.CustomModelComposer",
        "distribution_mapper_config": [],
        "policy": {
            "_target_": "maze.perception.models.policies.ProbabilisticPolicyComposer",
            "networks": [policy_net],
            "substeps_with_separate_agent_nets": [],
        },
        "critic": {"_target_": f"maze.perception.models.critics.{critic}", "networks": [critic_net]},
    }


def one_training_step(composer: BaseModelComposer, observation: dict) -> float:
    """A tiny actor-critic loss step: proves gradients reach every parameter group."""
    actor_critic = composer.torch_actor_critic()
    optimizer = torch.optim.Adam(actor_critic.parameters(), lr=1e-3)
    output = actor_critic.policy.compute_substep_policy_output(observation)
    critic_input = {**observation, **output.embedding_logits}
    value = actor_critic.critic.predict_value(critic_input)
    actions = output.prob_dist.sample()
    loss = -(output.log_prob(actions) * value.detach()).mean() + value.pow(2).mean() - 0.01 * output.entropy.mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return float(loss.detach())


@pytest.mark.parametrize(
    ("policy_net", "critic_net"),
    [
        (
            {"_target_": f"{HERE}.CartpolePolicyNet", "non_lin": "torch.nn.ReLU", "hidden_units": [16, 32]},
            {"_target_": f"{HERE}.CartpoleCriticNet", "non_lin": "torch.nn.ReLU", "hidden_units": [16, 32]},
        ),
        (
            {
                "_target_": f"{HERE}.PlainCartpolePolicyNet",
                "hidden_layer_0": 16,
                "hidden_layer_1": 32,
                "use_bias": True,
            },
            {
                "_target_": f"{HERE}.PlainCartpoleCriticNet",
                "hidden_layer_0": 16,
                "hidden_layer_1": 32,
                "use_bias": True,
            },
        ),
    ],
    ids=["example1_blocks", "example3_plain_torch"],
)
def test_cartpole_custom_examples(cartpole_spaces: dict, policy_net: dict, critic_net: dict) -> None:
    composer = Factory(BaseModelComposer).instantiate(custom_config(policy_net, critic_net), **cartpole_spaces)
    assert isinstance(composer, CustomModelComposer)
    observation = {"observation": torch.randn(8, 4)}
    assert composer.policy.networks[0](observation)["action"].shape == (8, 2)
    assert np.isfinite(one_training_step(composer, observation))
    expected_graphs = {"policy_0", "critic_0"} if "Plain" not in policy_net["_target_"] else set()
    assert set(composer.graph_structures()) == expected_graphs


def test_complex_custom_example(two_modality_spaces: dict) -> None:
    config = custom_config(
        {"_target_": f"{HERE}.ComplexPolicyNet", "non_lin": "torch.nn.ReLU", "hidden_units": [128]},
        {"_target_": f"{HERE}.ComplexCriticNet", "non_lin": "torch.nn.ReLU", "hidden_units": [128]},
    )
    composer = Factory(BaseModelComposer).instantiate(config, **two_modality_spaces)
    observation = {"observation_inventory": torch.rand(2, 16), "observation_screen": torch.rand(2, 3, 64, 64)}
    logits = composer.policy.networks[0](observation)
    assert logits["action_move"].shape == (2, 4) and logits["action_use"].shape == (2, 16)
    assert composer.policy.embedding_shapes(0) == {}
    assert np.isfinite(one_training_step(composer, observation))


def test_shared_embedding_custom_example(two_modality_spaces: dict) -> None:
    config = custom_config(
        {
            "_target_": f"{HERE}.ComplexPolicyNet",
            "non_lin": "torch.nn.ReLU",
            "hidden_units": [128],
            "share_screen": True,
        },
        {"_target_": f"{HERE}.ComplexCriticNet", "non_lin": "torch.nn.ReLU", "hidden_units": [128]},
    )
    composer = Factory(BaseModelComposer).instantiate(config, **two_modality_spaces)
    assert composer.policy.embedding_shapes(0) == {"latent_screen": (32,)}
    critic_net = composer.critic.networks[0]
    assert set(critic_net.perception_net.in_keys) == {"observation_inventory", "latent_screen"}
    observation = {"observation_inventory": torch.rand(2, 16), "observation_screen": torch.rand(2, 3, 64, 64)}
    assert np.isfinite(one_training_step(composer, observation))


class FirstHeadOnlyPolicyNet(nn.Module):
    """Returns logits for the first action head only (a broken policy net)."""

    def __init__(self, obs_shapes: Mapping, action_logits_shapes: Mapping) -> None:
        super().__init__()
        self.head, shape = next(iter(action_logits_shapes.items()))
        self.linear = nn.Linear(16, shape[0])

    def forward(self, x: Mapping) -> dict:
        return {self.head: self.linear(x["observation_inventory"])}


def test_policy_net_missing_a_head_is_named(two_modality_spaces: dict) -> None:
    config = custom_config(
        {"_target_": f"{HERE}.FirstHeadOnlyPolicyNet"},
        {"_target_": f"{HERE}.ComplexCriticNet", "non_lin": "torch.nn.ReLU", "hidden_units": [8]},
    )
    with pytest.raises(ConfigurationError, match="not the action head 'action_use'"):
        Factory(BaseModelComposer).instantiate(config, **two_modality_spaces)


def test_wrong_number_of_network_configs_is_explained(cartpole_spaces: dict) -> None:
    net = {"_target_": f"{HERE}.CartpolePolicyNet", "non_lin": "torch.nn.ReLU", "hidden_units": [8]}
    config = custom_config(
        net, {"_target_": f"{HERE}.CartpoleCriticNet", "non_lin": "torch.nn.ReLU", "hidden_units": [8]}
    )
    config["policy"]["networks"] = [net, net]
    with pytest.raises(ConfigurationError, match="2 network configs"):
        Factory(BaseModelComposer).instantiate(config, **cartpole_spaces)


def test_unknown_network_argument_names_the_network(cartpole_spaces: dict) -> None:
    config = custom_config(
        {"_target_": f"{HERE}.CartpolePolicyNet", "non_lin": "torch.nn.ReLU", "hidden_unit": [8]},
        {"_target_": f"{HERE}.CartpoleCriticNet", "non_lin": "torch.nn.ReLU", "hidden_units": [8]},
    )
    with pytest.raises(ConfigurationError, match="hidden_unit"):
        Factory(BaseModelComposer).instantiate(config, **cartpole_spaces)
