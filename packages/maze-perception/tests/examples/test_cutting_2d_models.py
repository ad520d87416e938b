"""The Cutting-2D tutorial models: built from their packaged configs against the real envs, run and stepped."""

from collections.abc import Callable
from importlib.resources import files
from typing import Any

import numpy as np
import pytest
import torch
from maze.env.core.actor import ActorID
from maze.env.errors import ConfigurationError
from maze.env.examples.cutting_2d import (
    CuttingEvents,
    masked_struct_env_factory,
    maze_env_factory,
    struct_env_factory,
)
from maze.env.trajectory_recording.spaces_records import SpacesRecord, StructuredSpacesRecord
from maze.env.wrappers.wrapper_factory import WrapperFactory
from maze.perception.examples.cutting_2d import (
    Cutting2DCuttingPolicyNet,
    Cutting2DFlatPolicyNet,
    Cutting2DSelectionPolicyNet,
    Cutting2DStateValueNet,
)
from maze.perception.models.base_model_composer import BaseModelComposer, build_model_composer
from maze.perception.models.spaces_config import SpacesConfig
from omegaconf import OmegaConf

CONF = files("maze.perception") / "conf" / "model"


def flat_env() -> Any:
    """The flat env at the tutorial's sizes."""
    return maze_env_factory(max_pieces_in_inventory=200, raw_piece_size=[100, 100], static_demand=[30, 15])


ENVS: dict[str, Callable[[], Any]] = {
    "flat": flat_env,
    "struct": struct_env_factory,
    "struct_masked": masked_struct_env_factory,
}

POLICY_NETS = {
    "flat": [Cutting2DFlatPolicyNet],
    "struct": [Cutting2DSelectionPolicyNet, Cutting2DCuttingPolicyNet],
    "struct_masked": [Cutting2DSelectionPolicyNet, Cutting2DCuttingPolicyNet],
}

TUTORIAL_WRAPPERS = {
    "TimeLimitWrapper": {"max_episode_steps": 180},
    "PreProcessingWrapper": {
        "pre_processor_mapping": [
            {
                "observation": "inventory",
                "_target_": "FlattenPreProcessor",
                "keep_original": True,
                "config": {"num_flatten_dims": 2},
            }
        ]
    },
    "ObservationNormalizationWrapper": {
        "default_strategy": "RangeZeroOneObservationNormalizationStrategy",
        "default_statistics": {"min": 0, "max": 3},
        "exclude": ["inventory_mask", "cutting_mask", "inventory_size"],
    },
}
"""The wrappers of the struct tutorial's training runs (time limit, flattened inventory copy, normalization)."""


@pytest.fixture(autouse=True)
def _deterministic_torch() -> None:
    torch.set_num_threads(1)
    torch.manual_seed(0)


def build(model: str, env: Any) -> BaseModelComposer:
    """The packaged model config ``tutorial_cutting_2d_<model>`` built for the spaces of ``env``."""
    config = OmegaConf.load(str(CONF / f"tutorial_cutting_2d_{model}.yaml"))
    spaces_config = SpacesConfig(env.action_spaces_dict, env.observation_spaces_dict, env.agent_counts_dict)
    return build_model_composer(config, spaces_config)


def play(env: Any, policy: Any, env_steps: int, seed: int = 0) -> list[tuple[ActorID, dict, dict, float, list]]:
    """Samples the policy's actions for ``env_steps`` env steps; returns (actor, obs, action, reward, events) per sub-step."""
    observation, _ = env.reset(seed=seed)
    transitions, completed = [], 0
    while completed < env_steps:
        actor_id = env.actor_id()
        action = policy.compute_action(observation, actor_id=actor_id, deterministic=False)
        assert env.action_spaces_dict[actor_id.step_key].contains(action)
        next_observation, reward, terminated, truncated, _ = env.step(action)
        transitions.append((actor_id, observation, action, float(reward), list(env.get_step_events())))
        observation = next_observation
        completed += actor_id.step_key == max(env.action_spaces_dict)
        if terminated or truncated:
            observation, _ = env.reset()
    return transitions


def batched_record(transitions: list, step_keys: list) -> StructuredSpacesRecord:
    """One record whose sub-steps hold the stacked observations and actions of all transitions, ``[B, ...]``."""
    record = StructuredSpacesRecord()
    for step_key in step_keys:
        steps = [(obs, action) for actor, obs, action, _, _ in transitions if actor.step_key == step_key]
        observation = {key: torch.as_tensor(np.stack([obs[key] for obs, _ in steps])) for key in steps[0][0]}
        action = {key: torch.as_tensor(np.stack([act[key] for _, act in steps])) for key in steps[0][1]}
        record.append(SpacesRecord(ActorID(step_key, 0), observation, action, 0.0))
    return record


@pytest.mark.parametrize("model", list(ENVS))
def test_model_config_builds_the_tutorial_networks_with_graphs(model: str) -> None:
    env = ENVS[model]()
    composer = build(model, env)
    step_keys = list(env.action_spaces_dict)
    assert [type(composer.policy.networks[key]) for key in step_keys] == POLICY_NETS[model]
    assert all(isinstance(composer.critic.networks[key], Cutting2DStateValueNet) for key in step_keys)
    graphs = composer.graph_structures()
    expected = {f"{prefix}_{key}" for prefix in ("policy", "critic") for key in step_keys}
    assert set(graphs) == expected
    assert all(graph.nodes and graph.edges and graph.total_params > 0 for graph in graphs.values())
    masking = [node for graph in graphs.values() for node in graph.nodes if "ActionMaskingBlock" in node.label]
    assert len(masking) == (2 if model == "struct_masked" else 0)


@pytest.mark.parametrize("model", list(ENVS))
def test_batched_actor_critic_output_from_real_observations(model: str) -> None:
    env = ENVS[model]()
    composer = build(model, env)
    actor_critic = composer.torch_actor_critic()
    transitions = play(env, actor_critic.policy, env_steps=12)
    step_keys = list(env.action_spaces_dict)
    record = batched_record(transitions, step_keys)
    policy_output, critic_output = actor_critic.compute_actor_critic_output(record)
    assert [values.shape for values in critic_output.values] == [(12,)] * len(step_keys)
    for step_key, substep in zip(step_keys, policy_output, strict=True):
        for head, space in env.action_spaces_dict[step_key].spaces.items():
            assert substep.action_logits[head].shape == (12, space.n)
        samples = substep.prob_dist.sample()
        assert all(
            env.action_spaces_dict[step_key].contains({k: int(v[i]) for k, v in samples.items()}) for i in range(12)
        )
    loss = sum(values.sum() for values in critic_output.values)
    loss = loss + sum(
        substep.prob_dist.log_prob(step.action).sum() for substep, step in zip(policy_output, record, strict=True)
    )
    loss.backward()
    networks = {**composer.policy.networks, **{f"critic_{k}": v for k, v in composer.critic.networks.items()}}
    for name, network in networks.items():
        missing = [param_name for param_name, param in network.named_parameters() if param.grad is None]
        assert not missing, f"{name}: parameters without gradient {missing}"


@pytest.mark.parametrize("model", list(ENVS))
def test_networks_take_single_and_batched_observations(model: str) -> None:
    env = ENVS[model]()
    composer = build(model, env)
    transitions = play(env, composer.torch_policy(), env_steps=3)
    for actor, observation, *_ in transitions:
        step_key = actor.step_key
        first = {key: torch.as_tensor(value) for key, value in observation.items()}
        batch = {key: torch.stack([value, value + 1.0]) for key, value in first.items()}
        for network in (composer.policy.networks[step_key], composer.critic.networks[step_key]):
            with torch.no_grad():
                single, batched = network(first), network(batch)
            for key, value in single.items():
                assert batched[key].shape == (2, *value.shape)
                assert torch.allclose(batched[key][0], value, atol=1e-6)
                assert not torch.allclose(batched[key][1], value)


def test_masked_model_never_samples_masked_actions() -> None:
    env = masked_struct_env_factory()
    policy = build("struct_masked", env).torch_policy()
    transitions = play(env, policy, env_steps=300)
    selections = [(obs, action) for actor, obs, action, _, _ in transitions if actor.step_key == 0]
    cuts = [(obs, action) for actor, obs, action, _, _ in transitions if actor.step_key == 1]
    assert len(selections) == len(cuts) == 300
    assert all(obs["inventory_mask"][action["piece_idx"]] == 1 for obs, action in selections)
    assert all(obs["cutting_mask"][action["cut_rotation"]] == 1 for obs, action in cuts)
    assert {action["cut_order"] for _, action in cuts} == {0, 1}  # the unmasked head still samples freely
    invalid = (CuttingEvents.invalid_cut, CuttingEvents.invalid_piece_selected)
    assert not [event for *_, events in transitions for event in events if event.interface_method in invalid]
    assert min(reward for *_, reward, _ in transitions) >= -1.0


def test_unmasked_struct_model_does_sample_masked_actions() -> None:
    env = masked_struct_env_factory()
    policy = build("struct", env).torch_policy()  # same spaces; the unmasked nets ignore the masks
    transitions = play(env, policy, env_steps=100)
    masked_picks = [
        obs
        for actor, obs, action, _, _ in transitions
        if actor.step_key == 0 and obs["inventory_mask"][action["piece_idx"]] == 0
    ]
    assert len(masked_picks) > 10
    assert min(reward for *_, reward, _ in transitions) == -2.0


@pytest.mark.parametrize("model", ["struct", "struct_masked"])
def test_models_run_behind_the_tutorial_training_wrappers(model: str) -> None:
    wrappers = dict(TUTORIAL_WRAPPERS)
    if model == "struct":  # the wrapper rejects excluding keys the env does not have
        wrappers["ObservationNormalizationWrapper"] = {
            **TUTORIAL_WRAPPERS["ObservationNormalizationWrapper"],
            "exclude": ["inventory_size"],
        }
    env = WrapperFactory.wrap_from_config(ENVS[model](), wrappers)
    assert "inventory-flatten" in env.observation_spaces_dict[0].spaces
    composer = build(model, env)
    masks = ["inventory_mask"] if model == "struct_masked" else []
    assert set(composer.policy.networks[0].perception_net.in_keys) == {"inventory", "ordered_piece", *masks}
    transitions = play(env, composer.torch_policy(), env_steps=200)
    assert sum(1 for actor, *_ in transitions if actor.step_key == 1) == 200  # across the 180-step time limit


def test_sizes_come_from_the_observation_shapes() -> None:
    env = masked_struct_env_factory(max_pieces_in_inventory=7, raw_piece_size=[10, 8], static_demand=[3, 2])
    composer = build("struct_masked", env)
    observation, _ = env.reset(seed=0)
    logits = composer.torch_policy().compute_logits_dict(observation, actor_id=ActorID(0, 0))
    assert logits["piece_idx"].shape == (7,)
    assert torch.isfinite(logits["piece_idx"][0]) and (logits["piece_idx"][1:] == torch.finfo(torch.float32).min).all()


def test_a_missing_mask_observation_names_the_mask_key() -> None:
    with pytest.raises(ConfigurationError, match=r"mask_key 'inventory_mask' is not an observation.*masked_struct_env"):
        build("struct_masked", struct_env_factory())


def test_a_flattened_inventory_without_the_original_is_reported() -> None:
    wrappers = {
        "PreProcessingWrapper": {
            "pre_processor_mapping": [
                {**TUTORIAL_WRAPPERS["PreProcessingWrapper"]["pre_processor_mapping"][0], "keep_original": False}
            ]
        }
    }
    env = WrapperFactory.wrap_from_config(flat_env(), wrappers)
    with pytest.raises(
        ConfigurationError, match=r"Cutting2DFlatPolicyNet needs the observations \['inventory'\].*keep_original"
    ):
        build("flat", env)
