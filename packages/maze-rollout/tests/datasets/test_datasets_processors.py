"""Trajectory processors on hand-built episodes: identity, next observations, dead-end clipping."""

from __future__ import annotations

import pytest
from maze.env.core.actor import ActorID
from maze.env.trajectory_recording import SpacesRecord, SpacesTrajectoryRecord, StructuredSpacesRecord
from maze.rollout.datasets import (
    DeadEndClippingTrajectoryProcessor,
    IdentityTrajectoryProcessor,
    IdentityWithNextObservationTrajectoryProcessor,
)

FLAT = ActorID(0, 0)


def flat_episode(n_steps: int, terminated: bool = False, truncated: bool = False) -> SpacesTrajectoryRecord:
    """Observation ``{'t': i}`` and action ``{'a': i}`` at step ``i``; the flags on the last step."""
    episode = SpacesTrajectoryRecord(id="flat")
    for i in range(n_steps):
        last = i == n_steps - 1
        record = SpacesRecord(FLAT, {"t": i}, {"a": i}, reward=1.0, terminated=terminated and last)
        record.truncated = truncated and last
        episode.append(StructuredSpacesRecord([record]))
    return episode


def two_step_episode(n_steps: int, terminated: bool) -> SpacesTrajectoryRecord:
    """Env steps of a selection (actor (0, 0)) and a cutting (actor (1, 0)) sub-step."""
    episode = SpacesTrajectoryRecord(id="structured")
    for i in range(n_steps):
        select = SpacesRecord(ActorID(0, 0), {"s": i}, {"piece": i}, reward=0.0)
        cut = SpacesRecord(ActorID(1, 0), {"c": i}, {"cut": i}, reward=-1.0, terminated=terminated and i == n_steps - 1)
        episode.append(StructuredSpacesRecord([select, cut]))
    return episode


def observations(episode: SpacesTrajectoryRecord) -> list:
    return [record.observation for step in episode.step_records for record in step]


def next_observations(episode: SpacesTrajectoryRecord) -> list:
    return [record.next_observation for step in episode.step_records for record in step]


def test_identity_keeps_the_episode():
    episode = flat_episode(4)
    assert IdentityTrajectoryProcessor().process(episode) is episode


def test_a_terminated_ten_step_episode_clipped_by_three_keeps_its_first_seven_steps():
    episode = flat_episode(10, terminated=True)
    clipped = DeadEndClippingTrajectoryProcessor(clip_k=3).process(episode)
    assert observations(clipped) == [{"t": i} for i in range(7)]
    assert len(episode) == 10  # the input is not modified


@pytest.mark.parametrize("flags", [{"truncated": True}, {}], ids=["truncated", "unfinished"])
def test_episodes_that_did_not_terminate_are_not_clipped(flags):
    episode = flat_episode(10, **flags)
    assert len(DeadEndClippingTrajectoryProcessor(clip_k=3).process(episode)) == 10


def test_clipping_more_steps_than_a_dead_end_has_leaves_it_empty_and_clip_zero_keeps_it():
    assert len(DeadEndClippingTrajectoryProcessor(clip_k=5).process(flat_episode(3, terminated=True))) == 0
    assert len(DeadEndClippingTrajectoryProcessor(clip_k=0).process(flat_episode(3, terminated=True))) == 3
    with pytest.raises(ValueError, match="clip_k >= 0"):
        DeadEndClippingTrajectoryProcessor(clip_k=-1)


def test_next_observation_is_the_following_step_and_a_terminal_step_keeps_its_own():
    episode = flat_episode(4, terminated=True)
    processed = IdentityWithNextObservationTrajectoryProcessor().process(episode)
    assert next_observations(processed) == [{"t": 1}, {"t": 2}, {"t": 3}, {"t": 3}]
    assert next_observations(episode) == [None] * 4  # the input is not modified


@pytest.mark.parametrize("flags", [{"truncated": True}, {}], ids=["truncated", "unfinished"])
def test_a_last_step_whose_successor_was_not_recorded_is_dropped(flags):
    processed = IdentityWithNextObservationTrajectoryProcessor().process(flat_episode(4, **flags))
    assert observations(processed) == [{"t": 0}, {"t": 1}, {"t": 2}]
    assert next_observations(processed) == [{"t": 1}, {"t": 2}, {"t": 3}]


def test_recorded_next_observations_are_kept():
    episode = flat_episode(2, truncated=True)
    episode.step_records[-1].substep_records[0].next_observation = {"t": "recorded"}
    processed = IdentityWithNextObservationTrajectoryProcessor().process(episode)
    assert next_observations(processed) == [{"t": 1}, {"t": "recorded"}]


def test_structured_next_observations_follow_the_same_actor():
    processed = IdentityWithNextObservationTrajectoryProcessor().process(two_step_episode(3, terminated=True))
    assert [step.actor_ids for step in processed.step_records] == [[ActorID(0, 0), ActorID(1, 0)]] * 2 + [
        [ActorID(1, 0)]  # the last selection has no successor and did not end the episode
    ]
    assert next_observations(processed) == [{"s": 1}, {"c": 1}, {"s": 2}, {"c": 2}, {"c": 2}]
