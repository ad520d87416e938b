"""The template models' weight initialisation schemes and the ``hidden_units`` short key."""

from __future__ import annotations

import math
from importlib.resources import files

import pytest
import torch
import yaml
from maze.env import GymMazeEnv
from maze.env.errors import ConfigurationError
from maze.env.utils.factory import Factory
from maze.perception.models import BaseModelComposer
from maze.perception.weight_init import make_module_init, make_module_init_orthogonal
from torch import nn

CONF = files("maze.perception") / "conf"


def vector_obs(**changes: object) -> dict:
    """The packaged ``model=vector_obs`` with ``critic=template_state`` (``changes`` at the top or, ``builder_*``, in
    the model builder)."""
    config = yaml.safe_load((CONF / "model" / "vector_obs.yaml").read_text())
    config.update(yaml.safe_load((CONF / "critic" / "template_state.yaml").read_text()))
    for key, value in changes.items():
        if key.startswith("builder_"):
            config["model_builder"][key[len("builder_") :]] = value
        else:
            config[key] = value
    return config


def build(config: dict) -> BaseModelComposer:
    env = GymMazeEnv("CartPole-v1")
    return Factory(BaseModelComposer).instantiate(
        config,
        observation_spaces_dict=env.observation_spaces_dict,
        action_spaces_dict=env.action_spaces_dict,
        agent_counts_dict=env.agent_counts_dict,
    )


def linear_layers(net: nn.Module) -> list[nn.Linear]:
    return [module for module in net.modules() if isinstance(module, nn.Linear)]


def gram_gain(weight: torch.Tensor) -> torch.Tensor:
    """``W W^T / gain^2`` is the identity for a (semi-)orthogonal ``[out, in]`` weight with ``out <= in``: the gain."""
    return torch.sqrt(torch.diagonal(weight @ weight.T))


def test_orthogonal_init_gives_hidden_layers_gain_sqrt2_policy_heads_001_value_heads_1() -> None:
    torch.manual_seed(0)
    composer = build(vector_obs(hidden_units=[2, 3], builder_weight_init="orthogonal"))
    policy_layers = linear_layers(composer.policy.networks[0])
    critic_layers = linear_layers(composer.critic.networks[0])
    assert [tuple(layer.weight.shape) for layer in policy_layers] == [(2, 4), (3, 2), (2, 3)]
    first, hidden, head = (layer.weight.detach() for layer in policy_layers)
    assert torch.allclose(first @ first.T, 2 * torch.eye(2), atol=1e-5)  # rows orthogonal, gain sqrt(2)
    assert torch.allclose(hidden.T @ hidden, 2 * torch.eye(2), atol=1e-5)  # more rows than columns
    assert torch.allclose(head @ head.T, 1e-4 * torch.eye(2), atol=1e-9)
    value_head = critic_layers[-1].weight.detach()
    assert value_head.shape == (1, 3) and float(value_head.norm()) == pytest.approx(1.0, rel=1e-5)
    assert all(torch.count_nonzero(layer.bias) == 0 for layer in policy_layers + critic_layers)


def test_normc_gives_unit_norm_rows_and_small_policy_heads() -> None:
    torch.manual_seed(0)
    composer = build(vector_obs(builder_weight_init="normc"))
    *hidden, head = linear_layers(composer.policy.networks[0])
    for layer in hidden:
        assert torch.allclose(layer.weight.norm(dim=1), torch.ones(layer.out_features), rtol=1e-5)
    assert torch.allclose(head.weight.norm(dim=1), torch.full((2,), 0.01), rtol=1e-5)
    assert not torch.allclose(hidden[0].weight @ hidden[0].weight.T, torch.eye(128), atol=1e-2)  # not orthogonal


@pytest.mark.parametrize("scheme", ["normc", "orthogonal"])
def test_value_head_gain_scales_the_critic_head_only(scheme: str) -> None:
    torch.manual_seed(0)
    default = build(vector_obs(builder_weight_init=scheme))
    torch.manual_seed(0)
    small = build(vector_obs(builder_weight_init=scheme, builder_value_head_gain=0.01))
    default_layers, small_layers = (linear_layers(c.critic.networks[0]) for c in (default, small))
    for default_layer, small_layer in zip(default_layers[:-1], small_layers[:-1], strict=True):
        assert torch.equal(default_layer.weight, small_layer.weight)  # hidden layers as before
    assert float(default_layers[-1].weight.norm()) == pytest.approx(1.0, rel=1e-5)
    assert float(small_layers[-1].weight.norm()) == pytest.approx(0.01, rel=1e-5)
    for default_layer, small_layer in zip(
        linear_layers(default.policy.networks[0]), linear_layers(small.policy.networks[0]), strict=True
    ):
        assert torch.equal(default_layer.weight, small_layer.weight)  # the policy is untouched
    observation = {"observation": torch.randn(16, 4) * 100}  # raw inputs far from unit scale
    values = small.critic.networks[0](observation)["value"]
    assert float(values.abs().max()) <= 0.01 * math.sqrt(128) + 1e-6  # 0.01 x the norm of a 128-wide tanh latent


def test_an_unknown_init_scheme_is_named_with_the_known_ones() -> None:
    with pytest.raises(ConfigurationError, match=r"model_builder.weight_init='xavier' .* one of normc, orthogonal"):
        build(vector_obs(builder_weight_init="xavier"))
    with pytest.raises(ConfigurationError, match=r"model_builder.value_head_gain=0 must be positive"):
        build(vector_obs(builder_value_head_gain=0))
    with pytest.raises(ConfigurationError, match="gain must be positive"):
        make_module_init_orthogonal(0.0)
    with pytest.raises(ConfigurationError, match="one of normc, orthogonal"):
        make_module_init("he", 1.0)


def test_orthogonal_init_of_a_convolution_flattens_its_kernel() -> None:
    conv = nn.Conv2d(2, 3, kernel_size=2)
    conv.apply(make_module_init(scheme="orthogonal", gain=math.sqrt(2)))
    rows = conv.weight.detach().reshape(3, -1)
    assert torch.allclose(rows @ rows.T, 2 * torch.eye(3), atol=1e-5)


@pytest.mark.parametrize(
    ("hidden_units", "shapes"),
    [
        ([64, 64], [(64, 4), (64, 64), (2, 64)]),
        ([16], [(16, 4), (2, 16)]),
        ([8, 16, 4], [(8, 4), (16, 8), (4, 16), (2, 4)]),
    ],
)
def test_hidden_units_sets_the_dense_layers_from_observation_to_latent(hidden_units: list, shapes: list) -> None:
    composer = build(vector_obs(hidden_units=hidden_units, builder_shared_embedding_keys=[]))
    assert [tuple(layer.weight.shape) for layer in linear_layers(composer.policy.networks[0])] == shapes
    critic_shapes = [tuple(layer.weight.shape) for layer in linear_layers(composer.critic.networks[0])]
    assert critic_shapes == [*shapes[:-1], (1, shapes[-1][1])]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"hidden_units": []}, r"model.hidden_units=\[\] needs at least one positive layer size"),
        ({"hidden_units": [64, 0]}, "needs at least one positive layer size"),
        ({"hidden_units": 64}, r"model.hidden_units=64 must be a list of layer sizes, e.g. \[64\]"),
        ({"hidden_units": "64"}, r"model.hidden_units='64' must be a list of layer sizes"),
        ({"hidden_units": [64, 32.5]}, r"model.hidden_units=\[64, 32.5\] must be a list of layer sizes"),
        ({"hidden_units": [True]}, "must be a list of layer sizes"),
        (
            {"hidden_units": [64, 64], "builder_modality_config": {"feature": {"block_type": "DenseBlock"}}},
            "is no DenseBlock; give one size or configure modality_config.hidden",
        ),
        (
            {
                "hidden_units": [64],
                "builder_modality_config": {
                    "feature": {"block_type": "VGGConvolutionDenseBlock", "block_params": {"hidden_units": [8]}}
                },
            },
            "the model_builder has none",
        ),
    ],
)
def test_hidden_units_that_do_not_fit_the_builder_are_explained(changes: dict, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        build(vector_obs(**changes))
