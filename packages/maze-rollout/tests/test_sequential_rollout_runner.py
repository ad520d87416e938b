"""SequentialRolloutRunner: statistics table, recordings, seeding, policies, structured envs, repeated calls."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest
from maze.env import (
    BaseEnvEvents,
    DummyCartPolePolicy,
    GymMazeEnv,
    LogEventsWriterRegistry,
    MazeSeeding,
    RewardScalingWrapper,
    TrajectoryWriterRegistry,
    load_trajectory,
)
from maze.env.errors import ConfigurationError
from maze.env.log_stats.global_state import GlobalLogState
from maze.env.log_stats.log_stats_env import stats_value
from maze.env.testing.fake_envs import build_multi_agent_env, build_multi_step_env
from maze.env.wrappers.normalization import load_normalization_statistics, save_normalization_statistics
from maze.rollout import SequentialRolloutRunner
from rollout_support import CARTPOLE, RANDOM_POLICY, SpyFactory, reward_rows, trajectory_lengths

REWARD = BaseEnvEvents.reward


def reward_stat(runner: SequentialRolloutRunner, name: str) -> float:
    return stats_value(runner.last_stats, REWARD, name)


def test_documented_python_example_prints_the_scaled_rewards(run_dir: Path, capsys: pytest.CaptureFixture) -> None:
    runner = SequentialRolloutRunner(n_episodes=10, max_episode_steps=100, render=False)
    mean = runner.run_with(
        env=GymMazeEnv("CartPole-v1"), wrappers={RewardScalingWrapper: {"scale": 0.1}}, agent=DummyCartPolePolicy()
    )
    output = capsys.readouterr().out
    assert (
        "rollout_stats  BaseEnvEvents         reward                episode_count         |              10.000"
        in output
    )
    assert reward_stat(runner, "episode_count") == 10
    assert reward_stat(runner, "max") <= 10.0 + 1e-9
    assert mean == pytest.approx(reward_stat(runner, "mean"))
    lengths = trajectory_lengths(run_dir)
    assert len(lengths) == 10 and sum(lengths) == reward_stat(runner, "total_step_count")
    rows = reward_rows(run_dir)
    assert len(rows) == sum(lengths) and len({row.episode_id for row in rows}) == 10
    assert all(row.attributes["value"] == pytest.approx(0.1) for row in rows)


def test_each_call_writes_its_own_table_and_unregisters_every_writer(run_dir: Path) -> None:
    runner = SequentialRolloutRunner(n_episodes=4, max_episode_steps=8)
    runner.run_with(CARTPOLE, None, RANDOM_POLICY)
    first_total = reward_stat(runner, "total_step_count")
    runner.n_episodes = 3
    runner.run_with(CARTPOLE, None, RANDOM_POLICY)
    assert reward_stat(runner, "episode_count") == 3 and reward_stat(runner, "total_episode_count") == 3
    assert sum(trajectory_lengths(run_dir)) == first_total + reward_stat(runner, "total_step_count")
    assert GlobalLogState.step == 2
    assert (
        GlobalLogState.writers == []
        and LogEventsWriterRegistry.writers == []
        and TrajectoryWriterRegistry.writers == []
    )


def test_same_seeds_give_the_same_episodes_and_other_seeds_other_ones(run_dir: Path) -> None:
    def rollout(env_seed: int) -> dict:
        runner = SequentialRolloutRunner(n_episodes=5, max_episode_steps=0, record_trajectory=False)
        runner.seeding = MazeSeeding(env_seed, 7)
        runner.run_with(CARTPOLE, None, RANDOM_POLICY)
        return runner.last_stats

    assert rollout(1) == rollout(1)
    assert rollout(1) != rollout(2)


def test_explicit_seeds_are_used_one_per_episode(run_dir: Path) -> None:
    spy = SpyFactory()
    runner = SequentialRolloutRunner(n_episodes=3, max_episode_steps=5, record_trajectory=False)
    runner.setup(
        {
            "env": CARTPOLE,
            "policy": spy,
            "seeding": {"env_base_seed": 0, "agent_base_seed": 0, "explicit_agent_seeds": [11, 12]},
        }
    )
    runner.run()
    assert spy.policies[0].seeds == [11, 12, 11] and spy.policies[0].resets == 3


def test_policy_gets_the_deterministic_flag_state_env_and_actor(run_dir: Path) -> None:
    for deterministic, needs in ((True, "state"), (False, "env")):
        runner = SequentialRolloutRunner(
            n_episodes=1, max_episode_steps=3, deterministic=deterministic, record_trajectory=False
        )
        spy = SpyFactory(needs)
        runner.run_with(build_multi_step_env(), None, spy)
        calls = spy.policies[0].calls
        assert {call["deterministic"] for call in calls} == {deterministic}
        assert [call["actor_id"].step_key for call in calls[:4]] == [0, 1, 0, 1]
        if needs == "state":
            assert all(call["maze_state"] is not None and call["env"] is None for call in calls)
        else:
            assert all(call["env"] is not None and call["maze_state"] is None for call in calls)


@pytest.mark.parametrize("build_env", [build_multi_step_env, build_multi_agent_env])
def test_structured_envs_count_env_steps(run_dir: Path, build_env) -> None:
    runner = SequentialRolloutRunner(n_episodes=2, max_episode_steps=4)
    runner.run_with(build_env(), None, RANDOM_POLICY)
    assert reward_stat(runner, "episode_count") == 2
    lengths = trajectory_lengths(run_dir)
    assert sum(lengths) > reward_stat(runner, "total_step_count")  # the records hold sub-steps
    assert 2 <= reward_stat(runner, "total_step_count") <= 8


def test_max_episode_steps_zero_leaves_the_limit_to_the_env(run_dir: Path) -> None:
    runner = SequentialRolloutRunner(n_episodes=3, max_episode_steps=0, record_trajectory=False)
    runner.run_with(CARTPOLE, None, DummyCartPolePolicy())
    assert reward_stat(runner, "max") > 200  # CartPole-v1 itself stops at 500; the heuristic balances long


def test_by_default_the_envs_own_limit_ends_the_episodes(run_dir: Path) -> None:
    runner = SequentialRolloutRunner(n_episodes=5, record_trajectory=False, record_event_logs=False)
    runner.run_with(CARTPOLE, None, DummyCartPolePolicy())  # a heuristic that solves CartPole-v1
    assert reward_stat(runner, "mean") > 400  # CartPole-v1's own limit is 500, not the runner's fallback 200
    runner.run_with(CARTPOLE, {"TimeLimitWrapper": {"max_episode_steps": 50}}, DummyCartPolePolicy())
    assert reward_stat(runner, "max") == 50  # the env's wrappers set its limit


def test_by_default_an_env_without_a_limit_of_its_own_is_cut_at_the_fallback(run_dir: Path) -> None:
    from gymnasium.envs.classic_control import CartPoleEnv
    from maze.rollout.rollout_job import FALLBACK_EPISODE_STEPS

    runner = SequentialRolloutRunner(n_episodes=1, record_trajectory=False, record_event_logs=False)
    runner.run_with(GymMazeEnv(CartPoleEnv()), None, DummyCartPolePolicy())  # no registered limit
    assert reward_stat(runner, "max") == FALLBACK_EPISODE_STEPS


def test_env_instances_stay_open_and_configs_are_closed(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    closed: list[str] = []
    monkeypatch.setattr(GymMazeEnv, "close", lambda self: closed.append("closed"))
    runner = SequentialRolloutRunner(n_episodes=1, max_episode_steps=3, record_trajectory=False)
    env = GymMazeEnv("CartPole-v1")
    runner.run_with(env, None, RANDOM_POLICY)
    assert closed == []
    runner.run_with(CARTPOLE, None, RANDOM_POLICY)
    assert closed == ["closed"]


def test_an_env_exception_propagates_and_keeps_the_finished_episodes(run_dir: Path) -> None:
    runner = SequentialRolloutRunner(n_episodes=4, max_episode_steps=10)
    runner.seeding = MazeSeeding(0, 0, explicit_env_seeds=[5, 6, 7, 8])
    with pytest.raises(RuntimeError, match="exploded on purpose") as raised:
        runner.run_with({"_target_": "rollout_support.make_failing_cartpole", "fail_seed": 7}, None, RANDOM_POLICY)
    if sys.version_info >= (3, 11):  # exception notes
        (note,) = raised.value.__notes__
        assert re.fullmatch(
            r"in rollout episode 2 \(env seed 7, agent seed (\d+)\); runner=sequential runner.n_episodes=1 "
            r"seeding.explicit_env_seeds=\[7\] seeding.explicit_agent_seeds=\[\1\] replays it",
            note,
        )
    assert trajectory_lengths(run_dir) and len(trajectory_lengths(run_dir)) == 2
    assert len({row.episode_id for row in reward_rows(run_dir)}) == 2
    assert TrajectoryWriterRegistry.writers == [] and LogEventsWriterRegistry.writers == []


def test_setup_reads_the_job_config_and_run_needs_it(run_dir: Path) -> None:
    runner = SequentialRolloutRunner(n_episodes=2, max_episode_steps=5, record_trajectory=False)
    with pytest.raises(RuntimeError, match=r"setup\(cfg\) first"):
        runner.run()
    with pytest.raises(ConfigurationError, match="no `policy`"):
        runner.setup({"env": CARTPOLE, "wrappers": None})
    with pytest.raises(ConfigurationError, match="input_dir .*does not exist"):
        runner.setup({"env": CARTPOLE, "policy": RANDOM_POLICY, "input_dir": str(run_dir / "missing")})
    runner.setup({"env": CARTPOLE, "wrappers": {"TimeLimitWrapper": {"max_episode_steps": 3}}, "policy": RANDOM_POLICY})
    assert runner.run() == pytest.approx(reward_stat(runner, "mean"))
    assert reward_stat(runner, "max") <= 3


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"n_episodes": 0}, "runner.n_episodes must be an int of at least 1"),
        ({"max_episode_steps": -1}, "runner.max_episode_steps must be an int of at least 0"),
        ({"render": "yes"}, "runner.render must be true or false"),
        ({"deterministic": 1}, "runner.deterministic must be true or false"),
    ],
)
def test_bad_arguments_name_the_config_key(arguments: dict, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        SequentialRolloutRunner(**arguments)


def test_observations_are_normalized_with_the_statistics_of_input_dir(run_dir: Path, tmp_path_factory) -> None:
    training_run = tmp_path_factory.mktemp("training_run")
    mean, std = np.array([1.0, 2.0, 3.0, 4.0], np.float32), np.array([2.0, 4.0, 8.0, 16.0], np.float32)
    save_normalization_statistics({"observation": {"mean": mean, "std": std}}, training_run / "stats.npz")
    strategy_config = {"clip_range": [None, None], "axis": [0]}
    wrappers = {
        "ObservationNormalizationWrapper": {"default_strategy_config": strategy_config, "statistics_dump": "stats.npz"}
    }
    spy = SpyFactory()
    runner = SequentialRolloutRunner(n_episodes=1, max_episode_steps=5)
    runner.setup({"env": CARTPOLE, "wrappers": wrappers, "policy": spy, "input_dir": str(training_run)})
    runner.run()
    (trajectory,) = [load_trajectory(path) for path in (run_dir / "trajectory_data").glob("*.traj.npz")]
    raw = np.stack([record.maze_state for record in trajectory.step_records])
    seen = np.stack([call["observation"]["observation"] for call in spy.policies[0].calls])
    np.testing.assert_allclose(seen, (raw - mean) / std, rtol=1e-5, atol=1e-6)

    runner.setup({"env": CARTPOLE, "wrappers": wrappers, "policy": RANDOM_POLICY, "input_dir": str(run_dir)})
    with pytest.raises(ConfigurationError, match=r"input_dir .* has no stats.npz"):
        runner.run()


def test_without_input_dir_missing_normalization_statistics_are_estimated_and_written(
    run_dir: Path, capsys: pytest.CaptureFixture
) -> None:
    wrappers = {"ObservationNormalizationWrapper": {"statistics_dump": "stats.npz"}}  # mean 0, std 1, no clipping
    spy = SpyFactory()
    runner = SequentialRolloutRunner(n_episodes=1, max_episode_steps=5, normalization_samples=300)
    runner.setup({"env": CARTPOLE, "wrappers": wrappers, "policy": spy})
    runner.run()
    assert (
        "the ObservationNormalizationWrapper has no statistics for ['observation'] and no input_dir: estimated them "
        "from 300 observations of its sampling policy (as training does), written to stats.npz"
    ) in capsys.readouterr().out
    statistics = load_normalization_statistics(run_dir / "stats.npz")["observation"]
    assert np.all(statistics["std"] > 0)
    (trajectory,) = [load_trajectory(path) for path in (run_dir / "trajectory_data").glob("*.traj.npz")]
    raw = np.stack([record.maze_state for record in trajectory.step_records])
    seen = np.stack([call["observation"]["observation"] for call in spy.policies[0].calls])
    np.testing.assert_allclose(seen, (raw - statistics["mean"]) / statistics["std"], rtol=1e-5, atol=1e-6)
