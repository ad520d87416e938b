"""TorchPolicy on structured envs: sub-steps, separate agent nets, batches, candidates, trainer outputs."""

import numpy as np
import pytest
import torch
from gymnasium import spaces
from maze.distributions import DistributionMapper
from maze.env import GymMazeEnv
from maze.env.agent.policy import Policy
from maze.env.core.actor import ActorID
from maze.env.testing.fake_envs import build_dummy_maze_env, build_multi_agent_env, build_multi_step_env
from maze.env.trajectory_recording.spaces_records import SpacesRecord, StructuredSpacesRecord
from maze.env.utils.factory import Factory
from maze.perception.agent import TorchPolicy
from maze.perception.blocks import TorchModelBlock
from maze.perception.models import BaseModelComposer
from torch import nn


def flatten_concat_composer(env, separate=(), critic=None) -> BaseModelComposer:
    config = {
        "_target_": "maze.perception.models.CustomModelComposer",
        "distribution_mapper_config": [
            {"action_space": "Box", "distribution": "SquashedGaussianProbabilityDistribution"}
        ],
        "policy": {
            "_target_": "ProbabilisticPolicyComposer",
            "networks": [
                {
                    "_target_": "maze.perception.models.built_in.FlattenConcatPolicyNet",
                    "hidden_units": [16],
                    "non_lin": "Tanh",
                }
            ],
            "substeps_with_separate_agent_nets": list(separate),
        },
        "critic": critic,
    }
    return Factory(BaseModelComposer).instantiate(
        config,
        action_spaces_dict=env.action_spaces_dict,
        observation_spaces_dict=env.observation_spaces_dict,
        agent_counts_dict=env.agent_counts_dict,
    )


def run_episode(env, policy: Policy, steps: int = 30) -> int:
    obs, _ = env.reset(seed=1)
    for step in range(steps):
        actor = env.actor_id()
        action = policy.compute_action(obs, actor_id=actor)
        assert env.action_space.contains(action), (actor, action)
        obs, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            return step + 1
    return steps


def test_torch_policy_acts_in_a_multi_step_env() -> None:
    env = build_multi_step_env()
    policy = flatten_concat_composer(env).torch_policy()
    assert isinstance(policy, Policy) and set(policy.networks) == {0, 1}
    assert run_episode(env, policy) > 0
    with pytest.raises(ValueError, match="pass actor_id"):
        policy.compute_action({"items": np.zeros(4, np.float32)})


def test_separate_agent_nets_in_a_multi_agent_env() -> None:
    env = build_multi_agent_env(n_agents=3)
    composer = flatten_concat_composer(env, separate=[0])
    policy = composer.torch_policy()
    assert set(policy.networks) == {ActorID(0, 0), ActorID(0, 1), ActorID(0, 2)}
    assert set(policy.state_dict()) == {"policy_0_0", "policy_0_1", "policy_0_2"}
    assert policy.networks[ActorID(0, 0)] is not policy.networks[ActorID(0, 1)]
    assert run_episode(env, policy) > 0
    obs = {"observation": np.ones(4, np.float32), "agent": np.zeros(1, np.float32)}
    logits = [policy.compute_logits_dict(obs, ActorID(0, agent))["action"] for agent in range(3)]
    assert not torch.allclose(logits[0], logits[1])
    with pytest.raises(KeyError, match="no network for actor"):
        policy.compute_action(obs, actor_id=ActorID(0, 7))


def test_batched_and_deterministic_compute_action() -> None:
    env = build_dummy_maze_env()
    policy = flatten_concat_composer(env).torch_policy()
    rng = np.random.default_rng(0)
    batch = {"observation": rng.normal(size=(7, 4)).astype(np.float32), "action_mask": np.ones((7, 3), np.float32)}
    action = policy.compute_action(batch, actor_id=ActorID(0, 0))
    assert (
        action["discrete"].shape == (7,) and action["continuous"].shape == (7, 2) and action["binary"].shape == (7, 3)
    )
    single = {key: value[0] for key, value in batch.items()}
    first = policy.compute_action(single, deterministic=True)
    assert all(np.array_equal(first[key], policy.compute_action(single, deterministic=True)[key]) for key in first)
    batched = policy.compute_action(batch, deterministic=True)
    assert batched["discrete"][0] == first["discrete"]
    np.testing.assert_allclose(batched["continuous"][0], first["continuous"], rtol=1e-5)
    float64 = policy.compute_action(
        {key: value.astype(np.float64) for key, value in single.items()}, deterministic=True
    )
    assert float64["discrete"] == first["discrete"]


def test_seed_makes_sampling_reproducible() -> None:
    env = build_dummy_maze_env()
    policy = flatten_concat_composer(env).torch_policy()
    obs = {"observation": np.zeros((50, 4), np.float32), "action_mask": np.ones((50, 3), np.float32)}
    policy.seed(3)
    first = policy.compute_action(obs)
    policy.seed(3)
    second = policy.compute_action(obs)
    assert all(np.array_equal(first[key], second[key]) for key in first)


def test_low_level_example_with_a_wrapped_plain_net_and_one_mapper() -> None:
    observation_space = spaces.Dict({"observation": spaces.Box(-1, 1, (4,), np.float32)})
    action_space = spaces.Dict({"action": spaces.Discrete(2)})
    net = TorchModelBlock(
        in_keys="observation",
        out_keys="action",
        in_shapes=(4,),
        in_num_dims=[2],
        out_num_dims=2,
        net=CartpolePolicyNet(),
    )
    policy = TorchPolicy(networks={0: net}, distribution_mapper=DistributionMapper(action_space, {}), device="cpu")
    action = policy.compute_action(observation_space.sample(), actor_id=ActorID(0, 0), deterministic=True)
    assert action["action"] in (0, 1)


class CartpolePolicyNet(nn.Module):
    """A plain torch net with the dict-in, dict-out contract."""

    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))

    def forward(self, x: dict) -> dict:
        return {"action": self.net(x["observation"])}


def test_top_action_candidates_are_sorted_joint_probabilities() -> None:
    observation_space = spaces.Dict({"observation": spaces.Box(-1, 1, (4,), np.float32)})
    action_space = spaces.Dict({"a": spaces.Discrete(3), "b": spaces.Discrete(2, start=5)})
    composer = Factory(BaseModelComposer).instantiate(
        {
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
            },
        },
        action_spaces_dict={0: action_space},
        observation_spaces_dict={0: observation_space},
        agent_counts_dict={0: 1},
    )
    policy = composer.torch_policy()
    with torch.no_grad():
        for network in policy.networks.values():
            for parameter in network.parameters():
                parameter.normal_()
    obs = {"observation": np.array([0.3, -0.2, 0.5, 0.1], np.float32)}
    actions, probs = policy.compute_top_action_candidates(obs, num_candidates=3)
    assert len(actions) == 3 and probs == sorted(probs, reverse=True)
    all_actions, all_probs = policy.compute_top_action_candidates(obs, num_candidates=None)
    assert len(all_actions) == 6 and sum(all_probs) == pytest.approx(1.0, abs=1e-5)
    assert all(action["b"] in (5, 6) for action in all_actions)
    assert actions[0] == {key: value for key, value in policy.compute_action(obs, deterministic=True).items()}


def test_policy_outputs_for_trainers() -> None:
    env = build_multi_step_env()
    policy = flatten_concat_composer(env).torch_policy()
    record = StructuredSpacesRecord()
    record.append(
        SpacesRecord(ActorID(0, 0), {"items": torch.randn(5, 4)}, {"item": torch.zeros(5, dtype=torch.long)}, 0.0)
    )
    record.append(
        SpacesRecord(
            ActorID(1, 0), {"items": torch.randn(5, 4), "step": torch.ones(5, 1)}, {"position": torch.zeros(5, 2)}, 0.0
        )
    )
    output = policy.compute_policy_output(record)
    assert output.actor_ids == [ActorID(0, 0), ActorID(1, 0)]
    assert [entropy.shape for entropy in output.entropies] == [(5,), (5,)]
    log_probs = output.log_probs(record.actions)
    assert all(log_prob.shape == (5,) for log_prob in log_probs)
    sum(log_prob.sum() for log_prob in log_probs).backward()
    assert all(p.grad is not None for p in policy.parameters())
    logits = output[0].action_logits
    distribution = policy.logits_dict_to_distribution(logits, ActorID(0, 0), temperature=0.5)
    assert distribution.entropy().mean() < output[0].entropy.mean()


class DropoutPolicyNet(nn.Module):
    """A policy net with dropout: its deterministic actions are reproducible only in eval mode."""

    def __init__(self, obs_shapes: dict, action_logits_shapes: dict) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 64), nn.Dropout(0.5), nn.Linear(64, 2))

    def forward(self, tensor_dict: dict) -> dict:
        return {"action": self.body(tensor_dict["observation"])}


def test_composer_policies_are_returned_in_eval_mode() -> None:
    config = {
        "_target_": "maze.perception.models.CustomModelComposer",
        "distribution_mapper_config": [],
        "policy": {"_target_": "ProbabilisticPolicyComposer", "networks": [DropoutPolicyNet]},
        "critic": {
            "_target_": "StateCriticComposer",
            "networks": [
                {
                    "_target_": "maze.perception.models.built_in.FlattenConcatStateValueNet",
                    "hidden_units": [8],
                    "non_lin": "Tanh",
                }
            ],
        },
    }
    cartpole = GymMazeEnv("CartPole-v1")
    composer = Factory(BaseModelComposer).instantiate(
        config,
        action_spaces_dict=cartpole.action_spaces_dict,
        observation_spaces_dict=cartpole.observation_spaces_dict,
        agent_counts_dict=cartpole.agent_counts_dict,
    )
    policy = composer.torch_policy()
    assert not any(module.training for network in policy.networks.values() for module in network.modules())
    observation = {"observation": np.random.default_rng(0).normal(size=(256, 4)).astype(np.float32)}
    first = policy.compute_action(observation, deterministic=True)["action"]
    np.testing.assert_array_equal(first, policy.compute_action(observation, deterministic=True)["action"])
    assert all(network.training for network in composer.torch_actor_critic().named_networks().values())
