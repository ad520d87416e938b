"""RunContext.compute_action and compute_maze_action on raw observations: through the run's wrappers."""

from __future__ import annotations

import itertools

import gymnasium as gym
import numpy as np
import pytest
from maze.deploy import AgentDeployment, ObservationOutsideSpaceError
from maze.rl.api import RunContext

TINY_NORMALIZED = {
    "env.name": "CartPole-v1",
    "algorithm.n_epochs": 1,
    "algorithm.epoch_length": 2,
    "algorithm.n_rollout_steps": 20,
    "algorithm.rollout_evaluator.n_episodes": 1,
    "runner.normalization_samples": 50,
    "wrappers.MazeEnvMonitoringWrapper.action_logging": False,  # no action histograms: saves importing maze.viz
    "seeding.env_base_seed": 1,
    "seeding.agent_base_seed": 2,
}
"""A PPO run of a few CartPole steps whose wrappers normalize observations with estimated statistics."""

STATES = [np.array(state, dtype=np.float32) for state in itertools.product([-2, 2], [-2, 2], [-0.2, 0.2], [-2, 2])]
"""CartPole MazeStates (gymnasium observations) spread over the observation space."""


@pytest.fixture(scope="module")
def normalized_run(tmp_path_factory: pytest.TempPathFactory) -> RunContext:
    rc = RunContext(
        env="gym_env",
        wrappers="vector_obs",
        algorithm="ppo",
        model="vector_obs",
        overrides=TINY_NORMALIZED,
        silent=True,
        run_dir=tmp_path_factory.mktemp("run") / "normalized",
    )
    rc.train()
    assert (rc.run_dir / "statistics.npz").is_file()
    return rc


def test_raw_observations_give_the_deployments_action(normalized_run: RunContext) -> None:
    rc = normalized_run
    deployment = AgentDeployment.from_run_dir(rc.run_dir, deterministic=True)
    stack = rc.runner.env_factory()  # the run's env with its wrappers and statistics
    deployed, from_states, from_observations, from_inputs = [], [], [], []
    for state in STATES:
        deployment.reset()
        deployed.append(int(deployment.act(state)))
        from_states.append(int(rc.compute_maze_action(state, deterministic=True)))
        from_observations.append(int(rc.compute_action({"observation": state}, deterministic=True)["action"]))
        policy_input = stack.get_observation_and_action_dicts(state, None, True)[0][0]
        assert np.abs(policy_input["observation"] - state).max() > 0.5  # the statistics change the observation
        from_inputs.append(int(rc.compute_action(policy_input, deterministic=True, preprocessed=True)["action"]))
    assert set(deployed) == {0, 1}
    assert from_states == deployed  # a plain gymnasium observation
    assert from_observations == deployed  # a GymMazeEnv observation
    assert from_inputs == deployed  # the normalized policy input, marked preprocessed


def test_a_gymnasium_env_is_driven_by_compute_maze_action_and_bad_input_names_the_fix(
    normalized_run: RunContext,
) -> None:
    env = gym.make("CartPole-v1")
    state, _ = env.reset(seed=0)
    for _ in range(5):
        state, _, terminated, truncated, _ = env.step(normalized_run.compute_maze_action(state))
        assert not (terminated or truncated)
    with pytest.raises(ObservationOutsideSpaceError, match="use compute_maze_action.*preprocessed=True"):
        normalized_run.compute_action(state)
