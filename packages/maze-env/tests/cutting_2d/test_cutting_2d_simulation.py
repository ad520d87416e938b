"""The Cutting-2D envs as simulations: clone_from, set_maze_state and check_simulated_env."""

from __future__ import annotations

import copy

import pytest
from maze.env.core.mixins import SimulatedEnvMixin
from maze.env.core.simulation import require_simulated_env
from maze.env.errors import SimulationUnsupportedError
from maze.env.examples.cutting_2d import (
    Cutting2DGreedyPolicy,
    Cutting2DMazeState,
    masked_struct_env_factory,
    maze_env_factory,
    struct_env_factory,
)
from maze.env.examples.cutting_2d.core_env import Cutting2DCoreEnvironment
from maze.env.testing import build_dummy_maze_env, check_simulated_env
from maze.env.wrappers.time_limit import TimeLimitWrapper


@pytest.mark.parametrize(
    "factory",
    [masked_struct_env_factory, struct_env_factory, lambda: maze_env_factory(5, (4, 3), [(1, 2), (2, 2), (1, 1)])],
)
def test_cutting_envs_pass_the_simulation_checker(factory) -> None:
    env = factory()
    assert isinstance(env, SimulatedEnvMixin)
    check_simulated_env(env)
    check_simulated_env(TimeLimitWrapper.wrap(factory(), max_episode_steps=100), make_env=factory)


def greedy_state(steps: int) -> tuple:
    env = masked_struct_env_factory()
    observation, _ = env.reset()
    policy = Cutting2DGreedyPolicy()
    for _ in range(steps):
        observation, *_ = env.step(policy.compute_action(observation, actor_id=env.actor_id()))
    return env, env.get_maze_state()


def test_set_maze_state_continues_the_demand_cycle_and_the_sub_step() -> None:
    env, state = greedy_state(7)  # mid-step: a piece is selected
    assert state.selected_piece_id is not None
    other = masked_struct_env_factory()
    other.reset()
    other.set_maze_state(state)
    assert other.get_maze_state() == state and other.actor_id() == env.actor_id()
    assert other.core_env.current_demand == env.core_env.current_demand


def test_clone_shares_no_inventory_list() -> None:
    env, state = greedy_state(6)
    clone = masked_struct_env_factory()
    clone.clone_from(env)
    assert clone.core_env.inventory.pieces == env.core_env.inventory.pieces
    assert clone.core_env.inventory.pieces is not env.core_env.inventory.pieces
    clone.core_env.inventory.pieces.append((1, 1))
    assert env.get_maze_state() == state


def test_mismatching_states_and_envs_are_refused() -> None:
    env = masked_struct_env_factory()
    env.reset()
    with pytest.raises(ValueError, match="capacity"):
        env.set_maze_state(Cutting2DMazeState([(4, 3)], 7, (1, 2), (4, 3)))
    with pytest.raises(ValueError, match="demand cycle"):
        env.set_maze_state(Cutting2DMazeState([(4, 3)], 50, (3, 3), (4, 3)))
    with pytest.raises(ValueError, match="clone_from"):
        env.clone_from(maze_env_factory(5, (4, 3), (1, 2)))


def test_the_checker_catches_a_clone_that_shares_its_inventory() -> None:
    class SharingCore(Cutting2DCoreEnvironment):
        def clone_from(self, env) -> None:
            super().clone_from(env)
            self.inventory = env.inventory  # the bug: both envs cut the same pieces

    def factory():
        env = maze_env_factory(5, (4, 3), [(1, 2), (2, 2)])
        env.core_env.__class__ = SharingCore
        return env

    with pytest.raises(AssertionError, match="independence"):
        check_simulated_env(factory(), make_env=factory)


def test_an_env_without_the_mixin_gets_one_clear_error() -> None:
    env = build_dummy_maze_env()
    with pytest.raises(SimulationUnsupportedError, match=r"does not implement SimulatedEnvMixin.*SimulatedMazeEnv"):
        require_simulated_env(env, "AgentDeployment.recommend")
    with pytest.raises(SimulationUnsupportedError):
        check_simulated_env(env)


def test_deep_copies_of_an_env_fire_events_into_their_own_log() -> None:
    env = maze_env_factory(5, (4, 3), (1, 2))
    env.reset()
    before = list(env.get_step_events())
    copied = copy.deepcopy(env)
    copied.step({"piece_idx": 0, "cut_rotation": 0, "cut_order": 0})
    assert len(list(copied.get_step_events())) > 0 and list(env.get_step_events()) == before
