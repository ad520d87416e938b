"""PolicyExecutor and action candidates: the top-k actions as MazeActions, and which one was executed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from deploy_test_support import torch_vector_obs_policy
from maze.deploy import (
    ActionCandidates,
    AgentDeployment,
    DeploymentOrderError,
    MazeActionCandidates,
    PolicyExecutionError,
    PolicyExecutor,
)
from maze.env import DummyCartPolePolicy, GymMazeEnv
from maze.env.core.actor import ActorID
from maze.env.wrappers.wrapper import Wrapper

STATE = np.array([0.01, 0.0, 0.02, 0.0], dtype=np.float32)


class Ranked(DummyCartPolePolicy):
    """Ranks pushing right (70 %) over pushing left (30 %)."""

    def compute_top_action_candidates(self, observation, num_candidates, maze_state=None, env=None, actor_id=None):
        return [{"action": 1}, {"action": 0}][:num_candidates], [0.7, 0.3][:num_candidates]


class RecordSteps(Wrapper):
    """Records the actions the stack is stepped with."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self.actions: list = []

    def step(self, action: Any) -> Any:
        self.actions.append(action["action"])
        return self.env.step(action)


def test_act_returns_candidates_and_steps_the_executed_one() -> None:
    recorder = RecordSteps(GymMazeEnv("CartPole-v1"))
    agent = AgentDeployment(policy=Ranked(), env=recorder, num_candidates=2)
    candidates = agent.act(STATE)
    assert isinstance(candidates, MazeActionCandidates)
    assert candidates.maze_actions == (1, 0) and candidates.probabilities == (0.7, 0.3)
    assert list(candidates) == [(1, 0.7), (0, 0.3)]
    assert candidates.actions.actions == ({"action": 1}, {"action": 0})
    agent.act(STATE, 1.0, executed_candidate=1)  # the caller executed the second candidate
    agent.act(STATE, 1.0)  # default: the first
    agent.close(STATE, 1.0, True, {}, executed_candidate=1)
    assert recorder.actions == [0, 1, 0]


def test_candidates_on_request_and_bad_candidate_indices() -> None:
    agent = AgentDeployment(policy=Ranked(), env=GymMazeEnv("CartPole-v1"))
    with pytest.raises(DeploymentOrderError, match=r"this act starts the episode; leave executed_candidate out"):
        agent.act(STATE, executed_candidate=0)
    assert agent.act(STATE) == 1
    with pytest.raises(DeploymentOrderError, match=r"returned a single MazeAction, not candidates"):
        agent.act(STATE, 1.0, executed_candidate=0)
    assert len(agent.act(STATE, 1.0, num_candidates=1)) == 1
    with pytest.raises(DeploymentOrderError, match=r"returned 1 candidates; pass the index \(0..0\)"):
        agent.act(STATE, 1.0, executed_candidate=3)
    assert agent.act(STATE, 1.0) == 1  # the usage errors left the episode intact


def test_a_policy_without_candidates() -> None:
    agent = AgentDeployment(policy=DummyCartPolePolicy(), env=GymMazeEnv("CartPole-v1"), num_candidates=2)
    with pytest.raises(PolicyExecutionError, match=r"DummyCartPolePolicy cannot rank action candidates"):
        agent.act(STATE)


def test_torch_policy_candidates_are_ranked_probabilities() -> None:
    env = GymMazeEnv("CartPole-v1")
    policy = torch_vector_obs_policy(env)
    agent = AgentDeployment(policy=policy, env=GymMazeEnv("CartPole-v1"), num_candidates=2)
    candidates = agent.act(STATE)
    assert sorted(candidates.maze_actions) == [0, 1]
    assert candidates.probabilities[0] >= candidates.probabilities[1]
    assert sum(candidates.probabilities) == pytest.approx(1.0, abs=1e-5)
    best = policy.compute_action({"observation": STATE}, actor_id=ActorID(0, 0), deterministic=True)
    assert candidates.maze_actions[0] == best["action"]


def test_policy_executor_passes_state_and_env_only_when_needed() -> None:
    calls: list[tuple] = []

    class Planner(DummyCartPolePolicy):
        def needs_state(self) -> bool:
            return True

        def compute_action(self, observation, maze_state=None, env=None, actor_id=None, deterministic=False):
            calls.append((maze_state, env, actor_id, deterministic))
            return {"action": 0}

    PolicyExecutor(Planner(), deterministic=True).compute_action({}, "state", "env", ActorID(0, 0))
    PolicyExecutor(DummyCartPolePolicy()).compute_action({"observation": STATE}, "state", "env", ActorID(0, 0))
    assert calls == [("state", None, ActorID(0, 0), True)]


def test_action_candidates_need_matching_lengths() -> None:
    with pytest.raises(ValueError, match=r"one probability per action"):
        ActionCandidates(({"action": 0},), (0.5, 0.5))
    with pytest.raises(ValueError, match=r"at least one action"):
        ActionCandidates((), ())
