"""EventColumns: a sequence of EventRecords stored column by column, and the service keeping its step events in one."""

from __future__ import annotations

import gc

import pytest
from maze.env import EventRecord, EventService
from maze.env.core.events import EventColumns


class KitchenEvents:
    def kettle_boiled(self, litres: float) -> None:
        """Water boiled."""

    def cup_poured(self, cup: str, millilitres: int) -> None:
        """A cup was filled."""


BOILED = EventRecord(KitchenEvents, KitchenEvents.kettle_boiled, {"litres": 1.5})
POURED_A = EventRecord(KitchenEvents, KitchenEvents.cup_poured, {"cup": "a", "millilitres": 200})
POURED_B = EventRecord(KitchenEvents, KitchenEvents.cup_poured, {"cup": "b", "millilitres": 150})


def test_columns_behave_like_a_list_of_records():
    columns = EventColumns([BOILED, POURED_A])
    columns.append(POURED_B)
    assert len(columns) == 3 and columns == [BOILED, POURED_A, POURED_B]
    assert columns[0] == BOILED and type(columns[0]) is EventRecord and columns[-1] == POURED_B
    assert columns[1:] == [POURED_A, POURED_B] and columns[1:2] == [POURED_A]
    assert list(columns) == [BOILED, POURED_A, POURED_B] and POURED_A in columns
    assert columns.topics == [KitchenEvents] * 3
    assert columns.methods == [KitchenEvents.kettle_boiled, KitchenEvents.cup_poured, KitchenEvents.cup_poured]
    assert columns != [BOILED] and columns != [BOILED, POURED_B, POURED_A]
    with pytest.raises(IndexError):
        columns[3]
    with pytest.raises(TypeError, match="unhashable"):
        hash(columns)


def test_extend_takes_records_iterables_and_other_columns():
    columns = EventColumns()
    columns.extend(iter([BOILED]))
    columns.extend(EventColumns([POURED_A, POURED_B]))
    assert columns == [BOILED, POURED_A, POURED_B]
    columns.clear()
    assert len(columns) == 0 and columns == [] and not columns


def test_query_returns_the_records_of_the_asked_methods_in_order():
    columns = EventColumns([POURED_A, BOILED, POURED_B])
    assert columns.query((KitchenEvents.cup_poured,)) == [POURED_A, POURED_B]
    assert columns.query((KitchenEvents.kettle_boiled, KitchenEvents.cup_poured)) == [POURED_A, BOILED, POURED_B]
    assert EventColumns([BOILED]).query((KitchenEvents.cup_poured,)) == []


def test_the_service_keeps_step_events_in_one_columns_object_and_no_record_per_event():
    service = EventService()
    step_events = service.step_events
    fire = service.event_firer(KitchenEvents, KitchenEvents.cup_poured)
    fire(cup="a", millilitres=200)
    assert service.step_events is step_events and step_events == [POURED_A]
    # Plain attribute values leave nothing for the garbage collector to track.
    assert not gc.is_tracked(step_events.attributes[0])
    service.clear_step_events()
    assert service.step_events is step_events and len(step_events) == 0
