"""The event-based reward aggregator and the raw-piece KPI."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from maze.env import TimeLimitWrapper
from maze.env.core.events import EventRecord
from maze.env.examples.cutting_2d import (
    Cutting2DCoreEnvironment,
    Cutting2dKpiCalculator,
    Cutting2DMazeAction,
    CuttingEvents,
    DefaultRewardAggregator,
    InventoryEvents,
    maze_env_factory,
    struct_env_factory,
)
from maze.env.log_events import EpisodeEventLog, StepEventLog

SETTINGS = dict(max_pieces_in_inventory=20, raw_piece_size=(10, 8), static_demand=[(3, 2), (4, 4), (1, 5), (6, 3)])


def record(method) -> EventRecord:
    topic = {"CuttingEvents": CuttingEvents, "InventoryEvents": InventoryEvents}[method.__qualname__.split(".")[0]]
    return EventRecord(topic, method, {})


def paired_envs() -> tuple[Cutting2DCoreEnvironment, Cutting2DCoreEnvironment]:
    aggregator = DefaultRewardAggregator(invalid_action_penalty=-2, raw_piece_usage_penalty=-1)
    built_in, with_aggregator = (
        Cutting2DCoreEnvironment(**SETTINGS),
        Cutting2DCoreEnvironment(**SETTINGS, reward_aggregator=aggregator),
    )
    built_in.reset(seed=0)
    with_aggregator.reset(seed=0)
    return built_in, with_aggregator


def random_action(rng: np.random.Generator, max_piece_id: int) -> Cutting2DMazeAction:
    return Cutting2DMazeAction(int(rng.integers(max_piece_id)), bool(rng.integers(2)), bool(rng.integers(2)))


def test_aggregator_equals_the_built_in_reward_on_valid_selections() -> None:
    built_in, with_aggregator = paired_envs()
    rng = np.random.default_rng(7)
    kinds = set()
    for _ in range(200):
        action = random_action(rng, built_in.inventory.size())  # a stocked piece
        _, expected, _, _, info = built_in.step(action)
        _, reward, _, _, same_info = with_aggregator.step(action)
        assert reward == expected and info == same_info
        kinds.add(expected)
    assert kinds == {0, -1, -2}  # the sequence exercises every kind of reward


def test_aggregator_equals_the_built_in_reward_on_any_action_sequence() -> None:
    built_in, with_aggregator = paired_envs()
    rng = np.random.default_rng(11)
    invalid_selections = 0
    for _ in range(200):
        action = random_action(rng, SETTINGS["max_pieces_in_inventory"])  # often an empty slot
        _, expected, _, _, info = built_in.step(action)
        _, reward, *_ = with_aggregator.step(action)
        invalid_selections += info.get("error") == "piece_id_out_of_bounds"
        assert reward == expected
    assert 0 < invalid_selections < 200


def test_aggregator_sums_the_penalties_of_a_step() -> None:
    aggregator = DefaultRewardAggregator(invalid_action_penalty=-3, raw_piece_usage_penalty=-0.5)
    assert aggregator.get_interfaces() == [CuttingEvents, InventoryEvents]
    for method in (InventoryEvents.piece_replenished, InventoryEvents.piece_replenished, CuttingEvents.invalid_cut):
        aggregator.notify_event(record(method))
    aggregator.notify_event(record(CuttingEvents.valid_cut))
    assert aggregator.summarize_reward() == -4.0


def test_factory_env_uses_the_default_aggregator() -> None:
    env = maze_env_factory(**SETTINGS)
    assert isinstance(env.core_env.reward_aggregator, DefaultRewardAggregator)
    env.reset(seed=0)
    _, reward, *_ = env.step({"piece_idx": 15, "cut_rotation": 0, "cut_order": 0})
    assert reward == -2.0


def step_log(env_time: int, *methods) -> StepEventLog:
    return StepEventLog(env_time, [record(method) for method in methods])


def test_kpi_is_replenishments_per_step() -> None:
    log = EpisodeEventLog(
        "episode",
        [
            step_log(0, InventoryEvents.piece_replenished),
            step_log(1, CuttingEvents.valid_cut),
            step_log(2, InventoryEvents.piece_replenished, CuttingEvents.valid_cut),
            step_log(3),
        ],
    )
    assert Cutting2dKpiCalculator().calculate_kpis(log, None) == {"raw_piece_usage_per_step": 0.5}
    assert Cutting2dKpiCalculator().calculate_kpis(EpisodeEventLog("empty"), None) == {"raw_piece_usage_per_step": 0.0}


def test_kpi_counts_the_two_sub_steps_of_an_env_step_once() -> None:
    log = EpisodeEventLog(
        "episode", [step_log(0), step_log(0, InventoryEvents.piece_replenished), step_log(1), step_log(1)]
    )
    assert Cutting2dKpiCalculator().calculate_kpis(log, None) == {"raw_piece_usage_per_step": 0.5}


def test_kpi_of_a_recorded_episode_matches_the_counted_events() -> None:
    env = TimeLimitWrapper(maze_env_factory(**SETTINGS), max_episode_steps=50)
    assert isinstance(env.get_kpi_calculator(), Cutting2dKpiCalculator)
    rng = np.random.default_rng(5)
    observation, _ = env.reset(seed=5)
    log, replenishments, done = EpisodeEventLog(env.get_episode_id()), 0, False
    while not done:
        env_time = env.get_env_time()
        action = {"piece_idx": int(rng.integers(observation["inventory_size"][0])), "cut_rotation": 0, "cut_order": 1}
        observation, _, terminated, truncated, _ = env.step(action)
        events = list(env.get_step_events())
        log.append(StepEventLog(env_time, events))
        replenishments += sum(event.interface_method is InventoryEvents.piece_replenished for event in events)
        done = terminated or truncated
    assert len(log) == 50 and replenishments > 0
    kpis = env.get_kpi_calculator().calculate_kpis(log, env.get_maze_state())
    assert kpis == {"raw_piece_usage_per_step": replenishments / 50}


@pytest.mark.skipif(
    importlib.util.find_spec("maze.env.wrappers.log_stats_wrapper") is None, reason="LogStatsWrapper not available"
)
def test_log_stats_wrapper_reports_the_kpi_of_the_structured_env() -> None:
    from maze.env.log_stats.event_decorators import LogStatsLevel
    from maze.env.wrappers.log_stats_wrapper import LogStatsWrapper

    env = LogStatsWrapper(TimeLimitWrapper(struct_env_factory(), max_episode_steps=12), logging_prefix="test")
    env.reset(seed=0)
    done = False
    while not done:  # always cut slot 0, unrotated
        action = {"piece_idx": 0} if env.actor_id().step_key == 0 else {"cut_rotation": 0, "cut_order": 0}
        *_, terminated, truncated, _ = env.step(action)
        done = terminated or truncated
    stats = env.get_stats(LogStatsLevel.EPISODE)
    kpi = [value for key, value in stats.items() if "raw_piece_usage_per_step" in str(key)]
    assert kpi, stats
    replenished = [value for key, value in stats.items() if "piece_replenished" in str(key)]
    assert replenished and kpi[0] == pytest.approx(replenished[0] / 12)
