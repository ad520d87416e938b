"""EventRecord as an immutable named tuple and the EventService's event firers."""

from __future__ import annotations

import copy
import pickle

import pytest
from maze.env import EventRecord, EventService, Pubsub, Subscriber


class PantryEvents:
    def jar_opened(self, jar: str) -> None:
        """A jar was opened."""


class PantryLog(Subscriber):
    def get_interfaces(self) -> list[type]:
        return [PantryEvents]


def test_event_record_fields_equality_and_immutability():
    record = EventRecord(PantryEvents, PantryEvents.jar_opened, {"jar": "jam"})
    assert (record.interface_class, record.interface_method, record.attributes) == (
        PantryEvents,
        PantryEvents.jar_opened,
        {"jar": "jam"},
    )
    assert record == EventRecord(PantryEvents, PantryEvents.jar_opened, {"jar": "jam"})
    assert record != EventRecord(PantryEvents, PantryEvents.jar_opened, {"jar": "honey"})
    assert record != (PantryEvents, PantryEvents.jar_opened, {"jar": "jam"})  # never equals a plain tuple
    assert EventRecord(PantryEvents, PantryEvents.jar_opened).attributes == {}
    with pytest.raises(AttributeError):
        record.attributes = {}  # type: ignore[misc]
    with pytest.raises(TypeError, match="unhashable"):
        hash(record)
    assert repr(record).startswith("EventRecord(interface_class=")
    for clone in (pickle.loads(pickle.dumps(record)), copy.deepcopy(record)):
        assert clone == record and type(clone) is EventRecord


def test_event_firer_records_events_and_reaches_subscribers_registered_later():
    service = EventService()
    fire = service.event_firer(PantryEvents, PantryEvents.jar_opened)
    fire(jar="jam")
    log = PantryLog()
    Pubsub(service).register_subscriber(log)
    fire(jar="honey")
    expected = [EventRecord(PantryEvents, PantryEvents.jar_opened, {"jar": jar}) for jar in ("jam", "honey")]
    assert service.step_events == expected
    assert log.events == expected[1:]
    step_events = service.step_events
    service.clear_step_events()
    fire(jar="pickles")
    assert service.step_events is step_events and len(step_events) == 1 and log.events == step_events


def test_topic_proxy_fires_through_the_event_firer():
    service = EventService()
    topic = Pubsub(service).create_event_topic(PantryEvents)
    topic.jar_opened(jar="jam")
    assert service.step_events == [EventRecord(PantryEvents, PantryEvents.jar_opened, {"jar": "jam"})]
    with pytest.raises(AttributeError, match="declares no event 'jar_closed'"):
        topic.jar_closed()
