"""StateIndependentStd: Gaussian heads get one learned log-std per action dimension, other heads stay as they are."""

from __future__ import annotations

import torch
from gymnasium import spaces
from maze.distributions import DistributionMapper
from maze.perception.models.policies import ProbabilisticPolicyComposer
from maze.perception.models.policies.state_independent_std import StateIndependentStd
from torch import nn


class TwoHeads(nn.Module):
    """Logits for a Box(2) head (mean and log-std: 4 values) and a Discrete(3) head."""

    def __init__(self, obs_shapes: dict, action_logits_shapes: dict) -> None:
        super().__init__()
        self.box = nn.Linear(3, 4)
        self.choice = nn.Linear(3, 3)

    def forward(self, tensor_dict: dict) -> dict:
        observation = tensor_dict["observation"]
        return {"power": self.box(observation), "choice": self.choice(observation)}


def composer(state_independent_std: bool) -> ProbabilisticPolicyComposer:
    action_space = spaces.Dict({"power": spaces.Box(-1.0, 1.0, (2,)), "choice": spaces.Discrete(3)})
    return ProbabilisticPolicyComposer(
        action_spaces_dict={0: action_space},
        observation_spaces_dict={0: spaces.Dict({"observation": spaces.Box(-1.0, 1.0, (3,))})},
        agent_counts_dict={0: 1},
        distribution_mapper=DistributionMapper(action_space, []),
        networks=[TwoHeads],
        state_independent_std=state_independent_std,
    )


def test_only_the_gaussian_head_gets_a_log_std_parameter_starting_at_zero() -> None:
    network = composer(state_independent_std=True).networks[0]
    assert isinstance(network, StateIndependentStd)
    assert list(network.log_std) == ["power"] and torch.equal(network.log_std["power"], torch.zeros(2))
    observation = torch.randn(5, 3)
    outputs = network({"observation": observation})
    assert outputs["power"].shape == (5, 4) and torch.equal(outputs["power"][:, 2:], torch.zeros(5, 2))
    assert torch.equal(outputs["choice"], network.network.choice(observation))


def test_the_mean_comes_from_the_network_and_the_log_std_learns() -> None:
    network = composer(state_independent_std=True).networks[0]
    observation = torch.randn(5, 3)
    outputs = network({"observation": observation})
    assert torch.allclose(outputs["power"][:, :2], network.network.box(observation)[:, :2])
    outputs["power"][:, 2:].sum().backward()
    assert torch.equal(network.log_std["power"].grad, torch.full((2,), 5.0))


def test_off_the_network_is_used_as_it_is() -> None:
    assert isinstance(composer(state_independent_std=False).networks[0], TwoHeads)
