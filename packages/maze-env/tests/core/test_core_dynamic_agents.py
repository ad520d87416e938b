"""Envs with dynamic agents: the fake env's contract, unbatched vector stepping, per-actor returns in the statistics."""

from __future__ import annotations

from typing import Optional

import numpy as np
import pytest
from maze.env.core.actor import ActorID
from maze.env.errors import InvalidActionError
from maze.env.log_stats.event_decorators import LogStatsLevel
from maze.env.log_stats.log_stats import LogStatsKey
from maze.env.testing.env_checker import check_env
from maze.env.testing.fake_envs import build_dummy_maze_env, build_dynamic_agents_env
from maze.env.vector.sequential import SequentialVectorEnv
from maze.env.wrappers.log_stats_wrapper import LogStatsWrapper


def returns_key(step_key: str, name: Optional[str] = None) -> LogStatsKey:
    return LogStatsKey("ActorEvents", "actor_return", name, (step_key,))


def test_fake_env_creates_and_finishes_workers() -> None:
    env = build_dynamic_agents_env(n_rounds=3)
    check_env(env, n_steps=20)
    env.reset(seed=3)
    actors, done = [], []
    terminated = False
    while not terminated:
        actors.append(env.actor_id())
        _, _, terminated, _, _ = env.step({"choice": 0} if actors[-1][0] == "spawn" else {"move": 0})
        done.append(env.is_actor_done())
    workers = [actor for actor in actors if actor[0] == "work"]
    assert env.agent_counts_dict == {"spawn": 1, "work": -1}
    assert actors.count(ActorID("spawn", 0)) == 3
    assert sorted({actor.agent_id for actor in workers}) == [0, 1, 2]
    # a worker is done after its last action and never acts again
    assert [actors[index] for index, flag in enumerate(done) if flag] == sorted(set(workers))


def test_step_each_steps_envs_waiting_for_different_sub_steps() -> None:
    env = SequentialVectorEnv([build_dynamic_agents_env] * 3)
    observations, _ = env.reset_each(seed=0)
    diverged = False
    for _ in range(12):
        actor_ids = env.actor_ids()
        assert [set(observation) for observation in observations] == [
            {"cue", "round"} if actor[0] == "spawn" else {"life", "target"} for actor in actor_ids
        ]
        diverged |= len({actor[0] for actor in actor_ids}) > 1
        actions = [{"choice": 1} if actor[0] == "spawn" else {"move": 1} for actor in actor_ids]
        observations, rewards, terminated, truncated, infos = env.step_each(actions)
        assert rewards.shape == terminated.shape == truncated.shape == (3,) and len(infos) == 3
    assert diverged
    with pytest.raises(InvalidActionError, match="one action dict per env"):
        env.step_each([{"move": 1}])


def test_log_stats_wrapper_reports_every_actors_return() -> None:
    env = LogStatsWrapper.wrap(build_dynamic_agents_env(n_rounds=2))
    env.reset(seed=5)
    rewards, terminated, worker_rewards = [], False, {}
    while not terminated:
        actor = env.actor_id()
        _, reward, terminated, _, _ = env.step({"choice": 1} if actor[0] == "spawn" else {"move": 1})
        rewards.append(reward)
        if actor[0] == "work":
            worker_rewards[actor] = worker_rewards.get(actor, 0.0) + reward

    episode = env.get_stats(LogStatsLevel.EPISODE)

    # the spawner lives the whole episode, so every reward counts for it; a worker's own rewards count for it
    assert episode[returns_key("spawn")] == pytest.approx(sum(rewards))
    assert episode[returns_key("work")] == pytest.approx(np.mean(list(worker_rewards.values())))
    assert episode[returns_key("work", "count")] == 2


def test_flat_envs_log_no_actor_returns() -> None:
    env = LogStatsWrapper.wrap(build_dummy_maze_env(max_steps=3))
    env.reset(seed=0)
    env.action_space.seed(0)
    truncated = terminated = False
    while not (terminated or truncated):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
    assert not [key for key in env.get_stats(LogStatsLevel.EPISODE) if key.topic == "ActorEvents"]
