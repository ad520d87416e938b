"""One generic writer registry serves the event log and the trajectory writers."""

from __future__ import annotations

from abc import ABC, abstractmethod

import pytest
from maze.env.log_events.log_events_writer_registry import LogEventsWriterRegistry
from maze.env.trajectory_recording.trajectory_writer import TrajectoryWriterRegistry
from maze.env.utils.writer_registry import WriterRegistry


class _Writer(ABC):
    @abstractmethod
    def write(self, record: str) -> None: ...


class _Collecting(_Writer):
    def __init__(self) -> None:
        self.records: list[str] = []

    def write(self, record: str) -> None:
        self.records.append(record)


def test_registered_writers_receive_each_record_in_order_until_unregistered() -> None:
    registry = WriterRegistry("Registry", _Writer, example="_Collecting")
    first, second = _Collecting(), _Collecting()
    registry.register_writer(first)
    registry.register_writer(second)
    registry.record("a")
    registry.unregister_writer(first)
    registry.unregister_writer(first)  # not registered any more: nothing happens
    registry.record("b")
    assert first.records == ["a"] and second.records == ["a", "b"]
    registry.clear()
    registry.record("c")
    assert registry.writers == [] and second.records == ["a", "b"]


def test_a_writer_of_another_type_is_refused_naming_the_registry_and_an_example() -> None:
    registry = WriterRegistry("Registry", _Writer, example="_Collecting")
    with pytest.raises(TypeError, match=r"Registry.register_writer expects a _Writer \(e.g. _Collecting\), got object"):
        registry.register_writer(object())


def test_event_log_and_trajectory_registries_are_separate_instances_of_the_generic_one() -> None:
    assert isinstance(LogEventsWriterRegistry, WriterRegistry) and isinstance(TrajectoryWriterRegistry, WriterRegistry)
    assert LogEventsWriterRegistry.writers is not TrajectoryWriterRegistry.writers
    assert type(LogEventsWriterRegistry).record_event_logs is WriterRegistry.record
    assert type(TrajectoryWriterRegistry).record_trajectory_data is WriterRegistry.record
