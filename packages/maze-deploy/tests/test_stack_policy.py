"""StackPolicy: single actions for observations of the bare env, equal to the deployment's."""

from __future__ import annotations

import itertools
from typing import Any, Optional

import numpy as np
import pytest
from deploy_test_support import CARTPOLE_STATISTICS, NORMALIZED, NORMALIZED_STACKED, torch_vector_obs_policy
from maze.deploy import AgentDeployment, ObservationOutsideSpaceError, StackPolicy, WrapperStackError
from maze.env import DummyCartPolePolicy, GymMazeEnv
from maze.env.agent.policy import Policy
from maze.env.core.actor import ActorID
from maze.env.wrappers.wrapper import ObservationWrapper
from maze.env.wrappers.wrapper_factory import WrapperFactory


class RecordingPolicy(Policy):
    """Pushes left and keeps the observations it was given."""

    def __init__(self) -> None:
        self.seen: list[Any] = []

    def compute_action(
        self,
        observation: dict[str, Any],
        maze_state: Optional[Any] = None,
        env: Optional[Any] = None,
        actor_id: Optional[ActorID] = None,
        deterministic: bool = False,
    ) -> dict[str, Any]:
        self.seen.append(observation)
        return {"action": 0}


class BrokenObservationWrapper(ObservationWrapper):
    """Fails on every observation."""

    def observation(self, observation: Any) -> Any:
        raise ValueError("broken")


STATES = [np.array(state, dtype=np.float32) for state in itertools.product([-2, 2], [-2, 2], [-0.2, 0.2], [-2, 2])]
"""CartPole MazeStates (gymnasium observations) for which a fresh torch policy asks for both actions."""


def test_the_policy_sees_normalized_observations_of_states_and_maze_env_observations() -> None:
    policy = RecordingPolicy()
    stack_policy = StackPolicy(policy, GymMazeEnv("CartPole-v1"), NORMALIZED)
    state = STATES[-1]
    assert stack_policy.compute_maze_action(state) == 0  # the gymnasium action
    assert stack_policy.compute_action({"observation": state}) == {"action": 0}  # the MazeEnv's action
    assert stack_policy.compute_action({"observation": state}, preprocessed=True) == {"action": 0}
    normalized = state / np.asarray(CARTPOLE_STATISTICS["std"], dtype=np.float32)
    np.testing.assert_allclose(policy.seen[0]["observation"], normalized, rtol=1e-6)
    np.testing.assert_allclose(policy.seen[1]["observation"], normalized, rtol=1e-6)
    np.testing.assert_array_equal(policy.seen[2]["observation"], state)


def test_actions_equal_the_deployments_first_act_for_a_torch_policy() -> None:
    stack = WrapperFactory.wrap_from_config(GymMazeEnv("CartPole-v1"), NORMALIZED)
    policy = torch_vector_obs_policy(stack)
    stack_policy = StackPolicy(policy, GymMazeEnv("CartPole-v1"), NORMALIZED)
    agent = AgentDeployment(policy=policy, env=GymMazeEnv("CartPole-v1"), wrappers=NORMALIZED, deterministic=True)
    deployed, from_states, from_observations, from_inputs, raw_as_inputs = [], [], [], [], []
    for state in STATES:
        agent.reset()
        deployed.append(agent.act(state))
        from_states.append(stack_policy.compute_maze_action(state, deterministic=True))
        from_observations.append(stack_policy.compute_action({"observation": state}, deterministic=True)["action"])
        policy_input = stack.get_observation_and_action_dicts(state, None, True)[0][0]
        from_inputs.append(stack_policy.compute_action(policy_input, deterministic=True, preprocessed=True)["action"])
        raw = stack_policy.compute_action({"observation": state}, deterministic=True, preprocessed=True)["action"]
        raw_as_inputs.append(raw)
    assert set(deployed) == {0, 1}
    assert from_states == deployed
    assert from_observations == deployed
    assert from_inputs == deployed
    assert raw_as_inputs != deployed  # without normalization the policy acts differently


def test_bad_observations_and_stateful_stacks_raise_naming_the_fix() -> None:
    stack_policy = StackPolicy(DummyCartPolePolicy(), GymMazeEnv("CartPole-v1"), NORMALIZED)
    state = STATES[-1]
    with pytest.raises(ObservationOutsideSpaceError, match="use compute_maze_action"):
        stack_policy.compute_action(state)  # a MazeState handed to compute_action
    with pytest.raises(ObservationOutsideSpaceError, match="made of the maze_state.*use compute_action"):
        stack_policy.compute_maze_action({"observation": state})  # a MazeEnv observation handed in as a MazeState
    stacked = StackPolicy(DummyCartPolePolicy(), GymMazeEnv("CartPole-v1"), NORMALIZED_STACKED)
    with pytest.raises(WrapperStackError, match=r"\['ObservationStackWrapper'\].*Use AgentDeployment"):
        stacked.compute_maze_action(state)
    broken = StackPolicy(DummyCartPolePolicy(), BrokenObservationWrapper(GymMazeEnv("CartPole-v1")))
    with pytest.raises(WrapperStackError, match=r"BrokenObservationWrapper.observation\(\).*ValueError: broken"):
        broken.compute_action({"observation": state})
