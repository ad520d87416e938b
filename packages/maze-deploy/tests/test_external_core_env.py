"""ExternalCoreEnv, MazeAction comparison, observation checks and structured (multi-step) envs in deployment."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from deploy_test_support import RecordingWriter
from gymnasium import spaces
from maze.deploy import AgentDeployment, ExternalCoreEnv, WrapperStackError
from maze.deploy.external_core_env import same_maze_action
from maze.deploy.observation_check import ObservationCheck, space_check
from maze.env import RandomPolicy
from maze.env.core.actor import ActorID
from maze.env.testing.fake_envs import build_multi_step_env
from maze.env.wrappers.log_stats_wrapper import LogStatsWrapper


class Plain:
    """An object without __eq__ (compared field by field)."""

    def __init__(self, value: Any) -> None:
        self.value = value


class ArrayEq:
    """An object whose __eq__ returns an array of several entries."""

    def __eq__(self, other: object) -> Any:
        return np.array([True, False])

    __hash__ = object.__hash__


def test_same_maze_action() -> None:
    assert same_maze_action(np.array([1.0, np.nan]), np.array([1.0, np.nan]))
    assert not same_maze_action(np.array([1, 2]), np.array([1, 3]))
    assert same_maze_action({"a": np.int64(1), "b": (1, [2.0])}, {"a": 1, "b": (1, [2.0])})
    assert not same_maze_action({"a": 1}, {"a": 1, "b": 2})
    assert not same_maze_action((1, 2), [1, 2])
    assert same_maze_action(Plain(np.arange(3)), Plain(np.arange(3)))
    assert not same_maze_action(Plain(1), Plain(2))
    assert not same_maze_action(ArrayEq(), ArrayEq())


def test_observation_checks() -> None:
    discrete = space_check(spaces.Discrete(3, start=1))
    assert discrete(np.int64(2)) is None and discrete(np.array(3)) is None
    assert "outside [1, 3]" in discrete(0)
    assert "is not an integer" in discrete(1.5)
    check = ObservationCheck({0: spaces.Dict({"mask": spaces.MultiBinary(2), "x": spaces.Box(0, 1, (2,))})})
    assert check.problem({"mask": np.array([0, 1], dtype=np.int8), "x": np.zeros(2)}, 0) is None
    assert "has no key 'x'" in check.problem({"mask": np.array([0, 1], dtype=np.int8)}, 0)
    assert "['mask'] = array([2, 1]" in check.problem({"mask": np.array([2, 1]), "x": np.zeros(2)}, 0)
    assert "not a dict" in check.problem([0.0], 0)


def test_step_without_an_expected_action_and_delegation() -> None:
    env = build_multi_step_env()
    replaced = env.core_env
    external = ExternalCoreEnv(replaced)
    assert external.context is replaced.context and external.agent_counts_dict == {0: 1, 1: 1}
    state = {"position": np.zeros(4)}
    external.supply(state, 1.0, False, False, {"k": 1}, ActorID(1, 0))
    assert external.reset() == (state, {"k": 1}) and external.get_maze_state() is state
    assert external.actor_id() == ActorID(1, 0) and external.get_kpi_calculator() is None
    with pytest.raises(WrapperStackError, match=r"stepped the env on its own"):
        external.step({"item": 0})
    external.expect({"item": 0})
    with pytest.raises(WrapperStackError, match=r"executed the MazeAction \{'item': 1\}, but the deployment"):
        external.step({"item": 1})


def test_multi_step_env_matches_a_direct_rollout(recorder: RecordingWriter) -> None:
    """The external simulation is a multi-step core env; the caller names the acting actor."""
    direct_env = LogStatsWrapper.wrap(build_multi_step_env(max_steps=6))
    direct_policy = RandomPolicy(direct_env.action_spaces_dict, seed=1)
    direct_env.reset(seed=0)
    expected, done = [], False
    while not done:
        action = direct_policy.compute_action(None, actor_id=direct_env.actor_id())
        _, _, terminated, truncated, _ = direct_env.step(action)
        expected.append(direct_env.get_maze_action())
        done = terminated or truncated
    env_steps = direct_env.get_env_time()

    simulation = build_multi_step_env(max_steps=6).core_env  # the "production" simulation
    deployed_env = build_multi_step_env(max_steps=6)
    agent = AgentDeployment(policy=RandomPolicy(deployed_env.action_spaces_dict, seed=1), env=deployed_env)
    maze_state, info = simulation.reset(seed=0)
    reward, done, maze_actions = 0.0, False, []
    while not done:
        maze_action = agent.act(maze_state, reward, done, info, actor_id=simulation.actor_id())
        maze_actions.append(maze_action)
        maze_state, reward, terminated, truncated, info = simulation.step(maze_action)
        done = terminated or truncated
    agent.close(maze_state, reward, terminated=terminated, truncated=truncated)

    assert len(maze_actions) == len(expected) and all(map(same_maze_action, maze_actions, expected))
    # rewards are summed per env step: the deployment counted the same env steps as the direct rollout
    assert recorder.values("deployment", "BaseEnvEvents", "reward", "total_step_count") == [env_steps]


def test_sub_steps_with_different_action_spaces_convert_with_the_acting_sub_step() -> None:
    """Select-then-cut: the pending selection is converted as a selection although the cutter acts next."""
    from maze.env.examples.cutting_2d.maze_action import Cutting2DMazeAction, Cutting2DPieceSelection
    from maze.env.examples.cutting_2d.struct_env_masked import masked_struct_env_factory

    simulation = masked_struct_env_factory().core_env
    deployed_env = masked_struct_env_factory()
    agent = AgentDeployment(policy=RandomPolicy(deployed_env.action_spaces_dict, seed=2), env=deployed_env)
    maze_state, info = simulation.reset(seed=0)
    reward, kinds = 0.0, []
    for _ in range(10):
        maze_action = agent.act(maze_state, reward, info=info, actor_id=simulation.actor_id())
        kinds.append(type(maze_action))
        maze_state, reward, _, _, info = simulation.step(maze_action)
    agent.close(maze_state, reward, truncated=True)
    assert kinds == [Cutting2DPieceSelection, Cutting2DMazeAction] * 5
