"""State critics (shared, step, delta), state-action critics and TorchActorCritic."""

import copy

import numpy as np
import pytest
import torch
from gymnasium import spaces
from maze.env import GymMazeEnv
from maze.env.core.actor import ActorID
from maze.env.errors import ConfigurationError
from maze.env.testing.fake_envs import build_multi_agent_env, build_multi_step_env
from maze.env.trajectory_recording.spaces_records import SpacesRecord, StructuredSpacesRecord
from maze.env.utils.factory import Factory
from maze.perception.agent import (
    StateCriticInput,
    TorchActorCritic,
    TorchDeltaStateCritic,
    TorchSharedStateActionCritic,
    TorchSharedStateCritic,
    TorchStepStateActionCritic,
    TorchStepStateCritic,
)
from maze.perception.models import BaseModelComposer
from torch import nn

FLAT_VALUE = {
    "_target_": "maze.perception.models.built_in.FlattenConcatStateValueNet",
    "hidden_units": [16],
    "non_lin": "Tanh",
}
FLAT_Q = {
    "_target_": "maze.perception.models.built_in.FlattenConcatStateActionValueNet",
    "hidden_units": [16],
    "non_lin": "Tanh",
}
FLAT_POLICY = {
    "_target_": "maze.perception.models.built_in.FlattenConcatPolicyNet",
    "hidden_units": [16],
    "non_lin": "Tanh",
}


def spaces_of(env) -> dict:
    return {
        "action_spaces_dict": env.action_spaces_dict,
        "observation_spaces_dict": env.observation_spaces_dict,
        "agent_counts_dict": env.agent_counts_dict,
    }


def composer_for(env_spaces: dict, critic: dict) -> BaseModelComposer:
    config = {
        "_target_": "maze.perception.models.CustomModelComposer",
        "distribution_mapper_config": [],
        "policy": {"_target_": "ProbabilisticPolicyComposer", "networks": [FLAT_POLICY]},
        "critic": critic,
    }
    return Factory(BaseModelComposer).instantiate(config, **env_spaces)


def multi_step_spaces() -> dict:
    return spaces_of(build_multi_step_env())


def multi_step_record(batch: int = 6) -> StructuredSpacesRecord:
    record = StructuredSpacesRecord()
    record.append(
        SpacesRecord(
            ActorID(0, 0), {"items": torch.randn(batch, 4)}, {"item": torch.zeros(batch, dtype=torch.long)}, 0.0
        )
    )
    record.append(
        SpacesRecord(
            ActorID(1, 0),
            {"items": torch.randn(batch, 4), "step": torch.ones(batch, 1)},
            {"position": torch.zeros(batch, 2)},
            0.0,
        )
    )
    return record


@pytest.mark.parametrize(
    ("critic", "critic_class", "num_critics"),
    [
        ({"_target_": "StepStateCriticComposer", "networks": [FLAT_VALUE]}, TorchStepStateCritic, 2),
        ({"_target_": "StateCriticComposer", "networks": [FLAT_VALUE, FLAT_VALUE]}, TorchStepStateCritic, 2),
        ({"_target_": "DeltaStateCriticComposer", "networks": [FLAT_VALUE]}, TorchDeltaStateCritic, 2),
        (
            {"_target_": "SharedStateCriticComposer", "networks": [FLAT_VALUE], "stack_observations": True},
            TorchSharedStateCritic,
            1,
        ),
    ],
)
def test_state_critics_value_every_sub_step(critic: dict, critic_class: type, num_critics: int) -> None:
    composer = composer_for(multi_step_spaces(), critic)
    actor_critic = composer.torch_actor_critic()
    assert isinstance(actor_critic.critic, critic_class) and actor_critic.critic.num_critics == num_critics
    policy_output, critic_output = actor_critic.compute_actor_critic_output(multi_step_record())
    assert [values.shape for values in critic_output.values] == [(6,), (6,)]
    assert critic_output.actor_ids == [ActorID(0, 0), ActorID(1, 0)]
    assert not critic_output.detached_values[0].requires_grad and critic_output.values[0].requires_grad
    if critic_class is TorchSharedStateCritic:
        assert torch.equal(critic_output.values[0], critic_output.values[1])
        assert composer.critic.networks[0].obs_shapes == {"items": (2, 4), "step": (1,)}


def test_delta_critic_adds_a_delta_to_the_previous_value() -> None:
    composer = composer_for(multi_step_spaces(), {"_target_": "DeltaStateCriticComposer", "networks": [FLAT_VALUE]})
    critic = composer.critic.torch_critic()
    record = multi_step_record()
    output = critic.predict_values(StateCriticInput.from_record(record))
    prev = output.values[0].detach().unsqueeze(-1)
    delta = critic.networks[1]({**record.observations[1], "prev_value": prev})["value"].squeeze(-1)
    assert torch.allclose(output.values[1], prev.squeeze(-1) + delta)
    assert torch.allclose(
        critic.predict_value({**record.observations[1], "prev_value": prev}, ActorID(1, 0)), output.values[1]
    )


def test_shared_critic_without_stacking_on_a_flat_env(cartpole_spaces: dict) -> None:
    composer = composer_for(cartpole_spaces, {"_target_": "SharedStateCriticComposer", "networks": [FLAT_VALUE]})
    critic = composer.critic.torch_critic()
    assert critic.predict_value({"observation": np.zeros((3, 4), np.float32)}).shape == (3,)
    assert critic.predict_value({"observation": np.zeros(4, np.float32)}).shape == ()


def test_discrete_state_action_critic_values_all_actions(cartpole_spaces: dict) -> None:
    composer = composer_for(cartpole_spaces, {"_target_": "StateActionCriticComposer", "networks": [FLAT_Q]})
    critic = composer.critic.torch_critic()
    assert isinstance(critic, TorchStepStateActionCritic)
    q_values = critic.predict_q_values({"observation": torch.randn(5, 4)}, actor_id=ActorID(0, 0))
    assert set(q_values) == {"action_q_values"} and q_values["action_q_values"].shape == (5, 2)


def test_continuous_state_action_critic_takes_the_action() -> None:
    spaces_kwargs = {
        "observation_spaces_dict": {0: spaces.Dict({"observation": spaces.Box(-1, 1, (3,), np.float32)})},
        "action_spaces_dict": {
            0: spaces.Dict({"force": spaces.Box(-1, 1, (2,), np.float32), "mode": spaces.Discrete(3)})
        },
        "agent_counts_dict": {0: 1},
    }
    composer = composer_for(spaces_kwargs, {"_target_": "SharedStateActionCriticComposer", "networks": [FLAT_Q]})
    critic = composer.critic.torch_critic()
    assert isinstance(critic, TorchSharedStateActionCritic)
    assert composer.critic.shapes[0]["obs_shapes"] == {"observation": (3,), "force": (2,)}
    observation = {"observation": torch.randn(4, 3)}
    q_values = critic.predict_q_values(observation, {"force": torch.zeros(4, 2)})
    assert q_values["q_value"].shape == (4,) and q_values["mode_q_values"].shape == (4, 3)
    other = critic.predict_q_values(observation, {"force": torch.ones(4, 2)})
    assert not torch.allclose(q_values["q_value"], other["q_value"])
    with pytest.raises(KeyError, match="force"):
        critic.predict_q_values(observation)


def test_actor_critic_state_dict_and_modes(cartpole_spaces: dict) -> None:
    composer = composer_for(cartpole_spaces, {"_target_": "StateCriticComposer", "networks": [FLAT_VALUE]})
    actor_critic = composer.torch_actor_critic()
    assert isinstance(actor_critic, TorchActorCritic)
    state = actor_critic.state_dict()
    assert set(state) == {"policy_0", "critic_0"}
    other = composer_for(
        cartpole_spaces, {"_target_": "StateCriticComposer", "networks": [FLAT_VALUE]}
    ).torch_actor_critic()
    other.load_state_dict(state)
    for name, network in other.named_networks().items():
        for key, tensor in network.state_dict().items():
            assert torch.equal(tensor, state[name][key])
    actor_critic.eval()
    assert not any(network.training for network in actor_critic.named_networks().values())
    actor_critic.train()
    assert all(network.training for network in actor_critic.named_networks().values())
    assert len(actor_critic.parameters()) == len(actor_critic.policy.parameters()) + len(
        actor_critic.critic.parameters()
    )


def test_model_without_critic_cannot_build_an_actor_critic(cartpole_spaces: dict) -> None:
    with pytest.raises(ConfigurationError, match="no critic"):
        composer_for(cartpole_spaces, None).torch_actor_critic()


def test_critic_net_without_value_output_is_rejected(cartpole_spaces: dict) -> None:
    with pytest.raises(ConfigurationError, match="'value'"):
        composer_for(
            cartpole_spaces,
            {
                "_target_": "StateCriticComposer",
                "networks": [{**FLAT_POLICY, "_target_": FLAT_Q["_target_"], "output_shapes": {"v": (1,)}}],
            },
        )


def test_shared_critic_without_stacking_values_each_sub_step_on_the_common_keys() -> None:
    composer = composer_for(multi_step_spaces(), {"_target_": "SharedStateCriticComposer", "networks": [FLAT_VALUE]})
    assert composer.critic.networks[0].obs_shapes == {"items": (4,)}
    actor_critic = composer.torch_actor_critic()
    record = multi_step_record()
    _, output = actor_critic.compute_actor_critic_output(record)
    assert [values.shape for values in output.values] == [(6,), (6,)]
    critic = actor_critic.critic
    assert critic.input_keys == ["items"]
    for values, observation in zip(output.values, record.observations, strict=True):
        torch.testing.assert_close(values, critic.predict_value(observation))
    with pytest.raises(KeyError, match=r"lacks \['items'\]"):
        critic.predict_value({"step": torch.ones(6, 1)})


def test_shared_critic_needs_a_common_key_without_stacking() -> None:
    observation_spaces = {
        0: spaces.Dict({"a": spaces.Box(-1, 1, (2,), np.float32)}),
        1: spaces.Dict({"b": spaces.Box(-1, 1, (3,), np.float32)}),
    }
    env_spaces_kwargs = {
        "observation_spaces_dict": observation_spaces,
        "action_spaces_dict": {key: spaces.Dict({f"act_{key}": spaces.Discrete(2)}) for key in observation_spaces},
        "agent_counts_dict": {0: 1, 1: 1},
    }
    with pytest.raises(ConfigurationError, match="no key is common.*stack_observations=True"):
        composer_for(env_spaces_kwargs, {"_target_": "SharedStateCriticComposer", "networks": [FLAT_VALUE]})


def test_shared_q_critic_values_each_sub_step_on_common_keys_and_its_own_heads() -> None:
    box = spaces.Box(-1, 1, (4,), np.float32)
    env_spaces_kwargs = {
        "observation_spaces_dict": {
            0: spaces.Dict({"items": box}),
            1: spaces.Dict({"items": box, "step": spaces.Box(0, 9, (1,), np.float32)}),
        },
        "action_spaces_dict": {
            0: spaces.Dict({"item": spaces.Discrete(4)}),
            1: spaces.Dict({"slot": spaces.Discrete(3)}),
        },
        "agent_counts_dict": {0: 1, 1: 1},
    }
    composer = composer_for(env_spaces_kwargs, {"_target_": "SharedStateActionCriticComposer", "networks": [FLAT_Q]})
    assert composer.critic.shapes[0]["obs_shapes"] == {"items": (4,)}
    critic = composer.critic.torch_critic()
    first = critic.predict_q_values({"items": torch.randn(5, 4)}, actor_id=ActorID(0, 0))
    second = critic.predict_q_values({"items": torch.randn(5, 4), "step": torch.ones(5, 1)}, actor_id=ActorID(1, 0))
    assert {key: value.shape for key, value in first.items()} == {"item_q_values": (5, 4)}
    assert {key: value.shape for key, value in second.items()} == {"slot_q_values": (5, 3)}


def test_shared_q_critic_rejects_sub_steps_with_different_action_inputs() -> None:
    with pytest.raises(ConfigurationError, match=r"different non-discrete action inputs.*StepStateActionCritic"):
        composer_for(multi_step_spaces(), {"_target_": "SharedStateActionCriticComposer", "networks": [FLAT_Q]})


def test_delta_critic_values_every_agent_of_the_first_sub_step_without_a_delta() -> None:
    composer = composer_for(
        spaces_of(build_multi_agent_env(n_agents=2)),
        {"_target_": "DeltaStateCriticComposer", "networks": [FLAT_VALUE]},
    )
    critic = composer.critic.torch_critic()
    first = {"observation": torch.randn(3, 4), "agent": torch.zeros(3, 1)}
    second = {"observation": first["observation"], "agent": torch.ones(3, 1)}
    output = critic.predict_values(StateCriticInput.build([first, second], [ActorID(0, 0), ActorID(0, 1)]))
    torch.testing.assert_close(output.values[0], critic.predict_value(first, ActorID(0, 0)))
    torch.testing.assert_close(output.values[1], critic.predict_value(second, ActorID(0, 1)))
    with pytest.raises(ValueError, match="sub-step 0 does not take 'prev_value'"):
        critic.predict_value({**second, "prev_value": torch.zeros(3, 1)}, ActorID(0, 1))


def test_delta_critic_requires_prev_value_after_the_first_key() -> None:
    composer = composer_for(multi_step_spaces(), {"_target_": "DeltaStateCriticComposer", "networks": [FLAT_VALUE]})
    critic = composer.critic.torch_critic()
    with pytest.raises(ValueError, match="sub-step 1 needs 'prev_value'"):
        critic.predict_value(multi_step_record().observations[1], ActorID(1, 0))
    record = multi_step_record()
    reversed_input = StateCriticInput.build(record.observations[::-1], record.actor_ids[::-1])
    with pytest.raises(ValueError, match="comes before any sub-step of the first key"):
        critic.predict_values(reversed_input)


class RankZeroValueNet(nn.Module):
    """A critic returning ``{'value': [B]}`` (no trailing 1)."""

    def __init__(self, obs_shapes: dict) -> None:
        super().__init__()
        self.linear = nn.Linear(4, 1)

    def forward(self, tensor_dict: dict) -> dict:
        return {"value": self.linear(tensor_dict["observation"])[..., 0]}


@pytest.mark.parametrize("network", [FLAT_VALUE, RankZeroValueNet])
@pytest.mark.parametrize("critic", ["StepStateCriticComposer", "SharedStateCriticComposer"])
def test_values_keep_the_batch_dim_for_a_batch_of_one(cartpole_spaces: dict, network, critic: str) -> None:
    composer = composer_for(cartpole_spaces, {"_target_": critic, "networks": [copy.deepcopy(network)]})
    state_critic = composer.critic.torch_critic()
    for batch in (1, 3):
        assert state_critic.predict_value({"observation": torch.randn(batch, 4)}).shape == (batch,)
    if network is FLAT_VALUE:
        assert state_critic.predict_value({"observation": torch.randn(4)}).shape == ()


@pytest.mark.parametrize("critic", ["StepStateCriticComposer", "SharedStateCriticComposer"])
def test_discrete_observations_single_and_batched(critic: str) -> None:
    env = GymMazeEnv("FrozenLake-v1")
    composer = composer_for(spaces_of(env), {"_target_": critic, "networks": [FLAT_VALUE]})
    policy = composer.torch_policy()
    state_critic = composer.critic.torch_critic()
    observation, _ = env.reset(seed=0)
    action = policy.compute_action(observation, actor_id=ActorID(0, 0))["action"]
    assert np.ndim(action) == 0 and env.action_space["action"].contains(np.int64(action))
    assert state_critic.predict_value(observation).shape == ()
    for states in ([5], [5, 1, 2]):
        batch = {"observation": np.array(states)}
        actions = policy.compute_action(batch, actor_id=ActorID(0, 0), deterministic=True)["action"]
        assert actions.shape == (len(states),)
        assert state_critic.predict_value(batch).shape == (len(states),)
    single = policy.compute_action({"observation": 5}, deterministic=True)["action"]
    assert single == policy.compute_action({"observation": np.array([5])}, deterministic=True)["action"][0]
