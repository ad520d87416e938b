"""LogStatsWrapper, MazeEnvMonitoringWrapper and SimpleStatsLoggingSetup on real env stacks."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
import pytest
from gymnasium import spaces
from maze.env import ActionConversionInterface, ConfigurationError, CoreEnv, GymMazeEnv, MazeEnv, Pubsub
from maze.env import ObservationConversionInterface as ObservationConversion
from maze.env.log_events.kpi_calculator import KpiCalculator
from maze.env.log_events.log_events_writer import LogEventsWriter
from maze.env.log_events.log_events_writer_registry import LogEventsWriterRegistry
from maze.env.log_stats.base_events import BaseEnvEvents, DiscreteActionEvents
from maze.env.log_stats.event_decorators import (
    LogStatsLevel,
    define_episode_stats,
    define_epoch_stats,
    define_step_stats,
)
from maze.env.log_stats.global_state import clear_global_state, increment_log_step, register_log_stats_writer
from maze.env.log_stats.log_stats import LogStatsKey
from maze.env.log_stats.log_stats_env import LogStatsEnv
from maze.env.log_stats.logging_setup import SimpleStatsLoggingSetup
from maze.env.log_stats.writers import LogStatsWriterConsole
from maze.env.testing.env_checker import check_env
from maze.env.testing.fake_envs import build_dummy_maze_env, build_multi_step_env
from maze.env.wrappers.log_stats_wrapper import LogStatsWrapper
from maze.env.wrappers.monitoring_wrapper import MazeEnvMonitoringWrapper
from maze.env.wrappers.wrapper import ObservationWrapper


class StoreEvents:
    @define_epoch_stats(np.mean, output_name="mean_episode_total")
    @define_episode_stats(sum)
    @define_step_stats(len)
    def piece_replenished(self):
        """A raw piece arrived."""


class StoreKpis(KpiCalculator):
    def __init__(self):
        self.seen_steps: list[int] = []

    def calculate_kpis(self, episode_event_log, last_maze_state):
        self.seen_steps.append(len(episode_event_log.step_event_logs))
        replenished = len(list(episode_event_log.query_events(StoreEvents.piece_replenished)))
        return {"replenish_per_step": replenished / len(episode_event_log.step_event_logs)}


class StoreCoreEnv(CoreEnv):
    """Replenishes a piece when the action is 1; the episode ends after ``length`` steps."""

    def __init__(self, length: int = 4):
        super().__init__()
        self.length = length
        self.time = 0
        self.events = Pubsub(self.context.event_service).create_event_topic(StoreEvents)
        self.kpis = StoreKpis()

    def step(self, maze_action):
        if maze_action == 1:
            self.events.piece_replenished()
        self.time += 1
        return self.time, -float(maze_action), self.time >= self.length, False, {}

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        self.time = 0
        return self.time, {}

    def get_maze_state(self) -> Any:
        return self.time

    def get_kpi_calculator(self):
        return self.kpis


class TimeObservation(ObservationConversion):
    def maze_to_space(self, maze_state):
        return {"time": np.array([maze_state], dtype=np.float32)}

    def space(self):
        return spaces.Dict({"time": spaces.Box(0.0, 100.0, shape=(1,), dtype=np.float32)})


class PieceAction(ActionConversionInterface):
    def space_to_maze(self, action, maze_state):
        return int(action["piece"])

    def maze_to_space(self, maze_action):
        return {"piece": maze_action}

    def space(self):
        return spaces.Dict({"piece": spaces.Discrete(2)})


def store_env(length: int = 4) -> MazeEnv:
    return MazeEnv(StoreCoreEnv(length), {0: PieceAction()}, {0: TimeObservation()})


@pytest.fixture(autouse=True)
def fresh_global_state():
    clear_global_state()
    yield
    clear_global_state()


def named(stats: dict, topic: str, event: str) -> dict:
    return {key.label: value for key, value in stats.items() if key.topic == topic and key.event == event}


def run_cartpole(env, n_steps: int, seed: int = 0) -> list[int]:
    """Random steps; returns the lengths of the finished episodes."""
    env.reset(seed=seed)
    env.action_space.seed(seed)
    lengths, length = [], 0
    for _ in range(n_steps):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        length += 1
        if terminated or truncated:
            lengths.append(length)
            length = 0
            env.reset()
    return lengths


def test_reward_rows_count_the_real_episodes_and_steps_across_two_epochs():
    env = LogStatsWrapper.wrap(GymMazeEnv("CartPole-v1"), logging_prefix="train")
    first = run_cartpole(env, 300)
    env.write_epoch_stats()
    epoch = named(env.get_stats(LogStatsLevel.EPOCH), "BaseEnvEvents", "reward")
    assert len(epoch) == 9
    assert epoch["episode_count"] == len(first) and epoch["total_step_count"] == sum(first)
    assert epoch["mean"] == pytest.approx(np.mean(first)) and epoch["max"] == max(first)
    assert epoch["median_step_count"] == np.median(first)
    second = run_cartpole(env, 200, seed=1)  # the reset ends the unfinished episode of the first run
    env.write_epoch_stats()
    epoch = named(env.get_stats(LogStatsLevel.EPOCH), "BaseEnvEvents", "reward")
    unfinished = 300 - sum(first)
    assert epoch["episode_count"] == len(second) + (unfinished > 0)
    assert epoch["total_episode_count"] == len(first) + len(second) + (unfinished > 0)
    assert epoch["total_step_count"] == sum(first) + unfinished + sum(second)
    assert (
        env.get_stats_value(BaseEnvEvents.reward, LogStatsLevel.EPOCH, name="episode_count") == epoch["episode_count"]
    )


def test_kpis_and_events_at_episode_end():
    env = LogStatsWrapper.wrap(store_env(length=4))
    env.reset()
    for action in (1, 0, 1, 1):
        env.step({"piece": action})
    episode = env.get_stats(LogStatsLevel.EPISODE)
    assert episode[LogStatsKey("StoreEvents", "piece_replenished")] == 3
    assert episode[LogStatsKey("BaseEnvEvents", "kpi", None, ("replenish_per_step",))] == 0.75
    assert episode[LogStatsKey("BaseEnvEvents", "reward")] == -3.0
    assert env.unwrapped.core_env.kpis.seen_steps == [4]
    env.reset()
    for action in (0, 0, 0, 1):
        env.step({"piece": action})
    env.write_epoch_stats()
    kpi = env.get_stats_value(BaseEnvEvents.kpi, LogStatsLevel.EPOCH, name="mean")
    assert kpi == {("replenish_per_step",): pytest.approx(0.5)}
    epoch = env.get_stats(LogStatsLevel.EPOCH)
    assert list(named(epoch, "BaseEnvEvents", "kpi")) == [
        f"{s}/replenish_per_step" for s in ("max", "min", "std", "mean")
    ]
    assert epoch[LogStatsKey("StoreEvents", "piece_replenished", "mean_episode_total")] == 2.0


def test_step_stats_and_missing_statistic_message():
    env = LogStatsWrapper.wrap(store_env(length=10))
    env.reset()
    assert env.get_stats(LogStatsLevel.STEP) == {}
    env.step({"piece": 1})
    assert env.get_stats(LogStatsLevel.STEP) == {
        LogStatsKey("BaseEnvEvents", "reward"): -1.0,
        LogStatsKey("StoreEvents", "piece_replenished"): 1,
    }
    with pytest.raises(KeyError, match="did an episode end yet"):
        env.get_stats_value(BaseEnvEvents.reward, LogStatsLevel.EPISODE)


class RecordingEventsWriter(LogEventsWriter):
    def __init__(self):
        self.logs = []

    def write(self, episode_event_log):
        self.logs.append(episode_event_log)


def test_episode_event_log_goes_to_the_registry_with_reward_events():
    writer = RecordingEventsWriter()
    LogEventsWriterRegistry.register_writer(writer)
    try:
        env = LogStatsWrapper.wrap(store_env(length=3))
        env.reset()
        episode_id = env.get_episode_id()
        for action in (1, 0, 0):
            env.step({"piece": action})
    finally:
        LogEventsWriterRegistry.unregister_writer(writer)
    (log,) = writer.logs
    assert log.episode_id == episode_id
    assert [step.env_time for step in log.step_event_logs] == [0, 1, 2]
    assert [event.attributes["value"] for event in log.query_events(BaseEnvEvents.reward)] == [-1.0, 0.0, 0.0]
    assert len(list(log.query_events(StoreEvents.piece_replenished))) == 1


def test_simple_stats_logging_setup_prints_one_table_at_step_one(capsys, tmp_path):
    env = LogStatsWrapper.wrap(
        MazeEnvMonitoringWrapper.wrap(
            store_env(length=100), observation_logging=False, action_logging=True, reward_logging=False
        ),
        logging_prefix="main",
    )
    with SimpleStatsLoggingSetup(env, log_dir=tmp_path):
        env.reset()
        for _ in range(15):
            env.step({"piece": 1})
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith(" step|path") and len(lines) == 2 + 1 + 9 + 1 + 4
    assert (
        "    1|main      DiscreteActionEvents  action                substep_0/piece       |     [len:15, μ:1.0]"
        in lines
    )
    assert (
        "    1|main      BaseEnvEvents         reward                total_step_count      |              15.000"
        in lines
    )
    assert (
        "    1|main      BaseEnvEvents         reward                episode_count         |               1.000"
        in lines
    )
    assert (
        "    1|main      BaseEnvEvents         kpi                   mean/replenish_per_s..|               1.000"
        in lines
    )
    assert (tmp_path / "log_stats.txt").read_text(encoding="utf-8") == out


def test_simple_stats_logging_setup_needs_a_log_stats_env():
    with pytest.raises(TypeError, match="LogStatsWrapper.wrap"):
        SimpleStatsLoggingSetup(store_env())


def test_monitoring_rows_for_every_action_space_kind():
    env = LogStatsWrapper.wrap(
        MazeEnvMonitoringWrapper.wrap(
            build_dummy_maze_env(), observation_logging=True, action_logging=True, reward_logging=True
        )
    )
    assert isinstance(env, LogStatsEnv)
    env.reset(seed=0)
    env.action_space.seed(0)
    for _ in range(10):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            env.reset()
    env.finish_episode_stats()
    env.write_epoch_stats()
    labels = {(key.topic, key.event, key.label): value for key, value in env.get_stats(LogStatsLevel.EPOCH).items()}
    assert len(labels[("DiscreteActionEvents", "action", "substep_0/discrete")]) == 10
    assert len(labels[("ContinuousActionEvents", "action", "substep_0/continuous")]) == 10
    assert len(labels[("MultiBinaryActionEvents", "action", "substep_0/binary")]) == 10
    assert len(labels[("RewardEvents", "reward_processed", "")]) == 10
    for name in ("observation", "action_mask"):
        original = labels[("ObservationEvents", "observation_original", f"substep_0/{name}")]
        processed = labels[("ObservationEvents", "observation_processed", f"substep_0/{name}")]
        assert len(original) == len(processed) == 10
        np.testing.assert_allclose(np.stack(original), np.stack(processed))
    assert env.get_stats_value(DiscreteActionEvents.action, LogStatsLevel.EPOCH)[("substep_0", "discrete")] is not None


class DoubledObservation(ObservationWrapper):
    """Doubles the ``observation`` entry, so the processed observation differs from the original."""

    def observation(self, observation: dict) -> dict:
        return {**observation, "observation": observation["observation"] * 2}


def test_observation_original_is_the_maze_env_conversion_below_other_wrappers():
    env = LogStatsWrapper.wrap(
        MazeEnvMonitoringWrapper.wrap(
            DoubledObservation(build_dummy_maze_env()),
            observation_logging=True,
            action_logging=False,
            reward_logging=False,
        )
    )
    env.reset(seed=0)
    env.action_space.seed(0)
    for _ in range(5):
        env.step(env.action_space.sample())
    env.finish_episode_stats()
    env.write_epoch_stats()
    labels = {(key.event, key.label): value for key, value in env.get_stats(LogStatsLevel.EPOCH).items()}
    original = np.stack(labels[("observation_original", "substep_0/observation")])
    processed = np.stack(labels[("observation_processed", "substep_0/observation")])
    np.testing.assert_allclose(processed, 2 * original)


def test_monitoring_wrapper_rejects_bad_arguments():
    with pytest.raises(ConfigurationError, match="action_logging must be true or false"):
        MazeEnvMonitoringWrapper(
            GymMazeEnv("CartPole-v1"), observation_logging=False, action_logging="yes", reward_logging=False
        )
    with pytest.raises(TypeError, match="logging_prefix"):
        LogStatsWrapper(GymMazeEnv("CartPole-v1"), logging_prefix=3)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_check_env_passes_on_both_wrappers():
    check_env(LogStatsWrapper.wrap(GymMazeEnv("CartPole-v1"), logging_prefix="eval"))
    monitored = MazeEnvMonitoringWrapper.wrap(
        build_dummy_maze_env(), observation_logging=True, action_logging=True, reward_logging=True
    )
    check_env(monitored)
    check_env(LogStatsWrapper.wrap(monitored))


def test_write_epoch_stats_writes_under_the_prefix_and_clear_drops_the_epoch(capsys):
    register_log_stats_writer(LogStatsWriterConsole())
    increment_log_step()
    env = LogStatsWrapper.wrap(store_env(length=2), logging_prefix="eval")
    env.reset()
    env.step({"piece": 0})
    env.step({"piece": 0})
    env.clear_epoch_stats()
    env.write_epoch_stats()
    assert capsys.readouterr().out == ""
    env.reset()
    env.step({"piece": 0})
    env.step({"piece": 0})
    env.write_epoch_stats()
    assert (
        "    1|eval      BaseEnvEvents         reward                episode_count         |               1.000"
        in capsys.readouterr().out
    )


def test_step_counts_of_structured_envs_are_env_steps():
    env = LogStatsWrapper.wrap(
        MazeEnvMonitoringWrapper.wrap(
            build_multi_step_env(max_steps=6), observation_logging=False, action_logging=True, reward_logging=False
        )
    )
    env.reset(seed=3)
    env.action_space.seed(3)
    env_times, returns, calls = [], 0.0, 0
    while True:
        env_times.append(env.get_env_time())
        _, reward, terminated, truncated, _ = env.step(env.action_space.sample())
        returns += reward
        calls += 1
        if terminated or truncated:
            break
    env.write_epoch_stats()
    epoch = named(env.get_stats(LogStatsLevel.EPOCH), "BaseEnvEvents", "reward")
    assert calls > len(set(env_times)) > 1
    assert epoch["total_step_count"] == len(set(env_times))
    assert epoch["mean"] == pytest.approx(returns)
    stats = env.get_stats(LogStatsLevel.EPOCH)
    # Sub-steps 0 (discrete head) and 1 (box head) alternate.
    assert len(named(stats, "DiscreteActionEvents", "action")["substep_0/item"]) == (calls + 1) // 2
    assert len(named(stats, "ContinuousActionEvents", "action")["substep_1/position"]) == calls // 2


def test_event_log_of_structured_envs_has_one_step_log_per_env_step():
    writer = RecordingEventsWriter()
    LogEventsWriterRegistry.register_writer(writer)
    try:
        env = LogStatsWrapper.wrap(build_multi_step_env(max_steps=3))
        env.reset(seed=0)
        env.action_space.seed(0)
        calls = 0
        while True:
            calls += 1
            _, _, terminated, truncated, _ = env.step(env.action_space.sample())
            if terminated or truncated:
                break
    finally:
        LogEventsWriterRegistry.unregister_writer(writer)
    (log,) = writer.logs
    assert [step.env_time for step in log.step_event_logs] == list(range((calls + 1) // 2))
    assert len(list(log.query_events(BaseEnvEvents.reward))) == calls
