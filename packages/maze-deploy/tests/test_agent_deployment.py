"""AgentDeployment driven by an external gymnasium CartPole, as in the docs' deployment example."""

from __future__ import annotations

import threading

import gymnasium as gym
import numpy as np
import pytest
from deploy_test_support import (
    NORMALIZED,
    NORMALIZED_STACKED,
    RecordingWriter,
    cartpole_stack,
    deployed_rollout,
    direct_rollout,
    torch_vector_obs_policy,
)
from maze.deploy import AgentDeployment, ExternalCoreEnv
from maze.env import DummyCartPolePolicy, GymMazeEnv, RandomPolicy, TimeLimitWrapper
from maze.env.wrappers.log_stats_wrapper import LogStatsWrapper

SEEDS = [3, 11]


def test_docs_example_random_policy_ten_steps_then_close(recorder: RecordingWriter) -> None:
    env = GymMazeEnv("CartPole-v1")
    agent = AgentDeployment(policy=RandomPolicy(env.action_spaces_dict, seed=0), env=env)
    external_env = gym.make("CartPole-v1")
    maze_state, info = external_env.reset(seed=0)
    reward, done = 0.0, False
    for _ in range(10):
        maze_action = agent.act(maze_state, reward, done, info)
        assert maze_action in (0, 1)  # the gymnasium action itself, not {'action': ...}
        maze_state, reward, terminated, truncated, info = external_env.step(maze_action)
        done = terminated or truncated
        if done:
            break
    agent.close(maze_state, reward, done, info)
    assert recorder.values("deployment", "BaseEnvEvents", "reward", "total_step_count")


def test_the_env_core_is_replaced_and_a_log_stats_wrapper_added() -> None:
    env = GymMazeEnv("CartPole-v1")
    agent = AgentDeployment(policy=DummyCartPolePolicy(), env=env)
    assert isinstance(env.core_env, ExternalCoreEnv)
    assert type(agent.env) is LogStatsWrapper and agent.env.env is env
    own = LogStatsWrapper.wrap(GymMazeEnv("CartPole-v1"), logging_prefix="mine")
    assert AgentDeployment(policy=DummyCartPolePolicy(), env=own).env is own


def test_actions_equal_a_direct_rollout_over_two_episodes_with_normalization(recorder: RecordingWriter) -> None:
    expected = direct_rollout(cartpole_stack(NORMALIZED), DummyCartPolePolicy(), SEEDS)
    agent = AgentDeployment(policy=DummyCartPolePolicy(), env=GymMazeEnv("CartPole-v1"), wrappers=NORMALIZED)
    episodes, returns = deployed_rollout(agent, SEEDS)
    assert [len(episode) for episode in episodes] == [len(episode) for episode in expected]
    assert all(len(episode) >= 10 for episode in episodes)
    assert episodes == expected
    # one statistics write per close, each with that episode's return, at consecutive log steps
    assert recorder.values("deployment", "BaseEnvEvents", "reward", "mean") == pytest.approx(returns)
    assert recorder.values("deployment", "BaseEnvEvents", "reward", "episode_count") == [1, 1]
    assert sorted({step for path, step, _ in recorder.rows}) == [1, 2]


def test_torch_vector_obs_policy_with_normalization_and_frame_stacking(recorder: RecordingWriter) -> None:
    policy = torch_vector_obs_policy(cartpole_stack(NORMALIZED_STACKED), "observation-flatten")
    expected = direct_rollout(cartpole_stack(NORMALIZED_STACKED), policy, SEEDS)
    agent = AgentDeployment(
        policy=policy, env=GymMazeEnv("CartPole-v1"), wrappers=NORMALIZED_STACKED, deterministic=True
    )
    episodes, returns = deployed_rollout(agent, SEEDS)
    assert all(len(episode) >= 10 for episode in episodes)
    assert episodes == expected
    assert recorder.values("deployment", "BaseEnvEvents", "reward", "mean") == pytest.approx(returns)
    # the monitoring wrapper's action events reach the statistics as well
    assert any(key.topic == "DiscreteActionEvents" for _, _, stats in recorder.rows for key in stats)


def test_frame_stack_sees_the_callers_states_in_order() -> None:
    seen = []

    class Recording(DummyCartPolePolicy):
        def compute_action(self, observation, maze_state=None, env=None, actor_id=None, deterministic=False):
            seen.append(observation["observation"].copy())
            return {"action": 0}

    stacked = {"ObservationStackWrapper": {"stack_config": [{"observation": "observation", "stack_steps": 2}]}}
    agent = AgentDeployment(policy=Recording(), env=GymMazeEnv("CartPole-v1"), wrappers=stacked)
    states = [np.full(4, value, dtype=np.float32) / 100 for value in range(5)]
    for index, state in enumerate(states):
        agent.act(state, 1.0, False, {})
        previous = states[index - 1] if index else np.zeros(4, dtype=np.float32)
        np.testing.assert_array_equal(seen[-1], np.stack([previous, state]))
    agent.close(states[-1], 1.0, True, {})
    agent.reset()
    agent.act(states[3], 0.0, False, {})  # a new episode: the stack starts from zero padding again
    np.testing.assert_array_equal(seen[-1], np.stack([np.zeros(4, dtype=np.float32), states[3]]))


def test_built_from_configs_and_mixed(recorder: RecordingWriter) -> None:
    env_config = {"_target_": "maze.env.gym_adapter.gym_maze_env.make_gym_maze_env", "name": "CartPole-v1"}
    random_config = {"_target_": "maze.env.agent.random_policy.RandomPolicy", "seed": 0}
    for policy, env in (
        (random_config, env_config),  # RandomPolicy gets the stack's action spaces
        (DummyCartPolePolicy(), env_config),
        (random_config, GymMazeEnv("CartPole-v1")),
    ):
        agent = AgentDeployment(policy=policy, env=env, wrappers=NORMALIZED)
        episodes, _ = deployed_rollout(agent, [0], max_steps=12)
        assert episodes[0]  # valid CartPole actions (checked by deployed_rollout)
    assert len(recorder.values("deployment", "BaseEnvEvents", "reward", "episode_count")) == 3


def test_closing_early_ends_the_episode_as_truncated(recorder: RecordingWriter) -> None:
    agent = AgentDeployment(policy=DummyCartPolePolicy(), env=GymMazeEnv("CartPole-v1"))
    episodes, returns = deployed_rollout(agent, [0, 1], max_steps=10)
    assert [len(episode) for episode in episodes] == [10, 10]
    assert recorder.values("deployment", "BaseEnvEvents", "reward", "mean") == [10.0, 10.0]


def test_gymnasium_flags_and_seeded_resets() -> None:
    agent = AgentDeployment(
        policy=RandomPolicy(GymMazeEnv("CartPole-v1").action_spaces_dict), env=GymMazeEnv("CartPole-v1")
    )
    state = np.zeros(4, dtype=np.float32)
    runs = []
    for _ in range(2):
        agent.reset(seed=5)  # seeds the policy (and the stack's reset) for the next episode
        runs.append([int(agent.act(state, 1.0, terminated=False, truncated=False)) for _ in range(20)])
        agent.close(state, 1.0, terminated=False, truncated=True)
    assert runs[0] == runs[1]


def test_a_wrapper_that_ends_episodes_restarts_the_stack_episode(recorder: RecordingWriter) -> None:
    env = TimeLimitWrapper.wrap(GymMazeEnv("CartPole-v1"), max_episode_steps=4)
    agent = AgentDeployment(policy=DummyCartPolePolicy(), env=env)
    episodes, _ = deployed_rollout(agent, [0], max_steps=10)
    assert len(episodes[0]) == 10  # the caller's episode goes on
    # the stack's episodes: 4 steps (time limit), 4 steps (time limit), the last 2 (closed)
    assert recorder.values("deployment", "BaseEnvEvents", "reward", "total_step_count") == [10]
    assert recorder.values("deployment", "BaseEnvEvents", "reward", "episode_count") == [3]


def test_external_events_reach_the_statistics(recorder: RecordingWriter) -> None:
    from maze.env.core.events import EventRecord
    from maze.env.log_stats.base_events import BaseEnvEvents

    agent = AgentDeployment(policy=DummyCartPolePolicy(), env=GymMazeEnv("CartPole-v1"))
    state = np.zeros(4, dtype=np.float32)
    agent.act(state)
    kpi = EventRecord(BaseEnvEvents, BaseEnvEvents.kpi, {"name": "uptime", "value": 0.5})
    agent.act(state, 1.0, False, {}, events=[kpi])
    agent.close(state, 1.0, True, {})
    assert any(key.topic == "BaseEnvEvents" and key.event == "kpi" for _, _, stats in recorder.rows for key in stats)


def test_no_thread_is_started_or_left_behind() -> None:
    before = {thread.ident for thread in threading.enumerate()}
    agent = AgentDeployment(policy=DummyCartPolePolicy(), env=GymMazeEnv("CartPole-v1"))
    deployed_rollout(agent, SEEDS, max_steps=20)
    assert {thread.ident for thread in threading.enumerate()} == before
