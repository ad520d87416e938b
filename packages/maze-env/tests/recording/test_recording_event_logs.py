import math

import numpy as np
import pytest
from maze.env.core.events import EventService, Pubsub
from maze.env.log_events.episode_event_log import EpisodeEventLog
from maze.env.log_events.log_events_writer import (
    EventLogFormatError,
    EventRow,
    LogEventsWriter,
    LogEventsWriterTSV,
    read_event_log_tsv,
)
from maze.env.log_events.log_events_writer_registry import LogEventsWriterRegistry
from maze.env.log_events.logging_setup import SimpleEventLoggingSetup
from maze.env.log_events.step_event_log import StepEventLog


class CuttingEvents:
    def invalid_cut(self, piece_id, reason="unknown"):
        """A cut was impossible."""

    def valid_cut(self, size):
        """A piece was cut."""


class FreeEvents:
    def anything(self, **kwargs):
        """Takes any attributes."""


@pytest.fixture(autouse=True)
def _empty_registry():
    LogEventsWriterRegistry.clear()
    yield
    LogEventsWriterRegistry.clear()


def _episode(episode_id, steps):
    """Fires ``steps`` (a list of lists of (topic, method name, attributes)) through a Pubsub."""
    service = EventService()
    pubsub = Pubsub(service)
    topics = {}
    log = EpisodeEventLog(episode_id)
    for env_time, step in enumerate(steps):
        service.clear_step_events()
        for topic, name, attributes in step:
            proxy = topics.setdefault(topic, pubsub.create_event_topic(topic))
            getattr(proxy, name)(**attributes)
        log.append(StepEventLog(env_time, list(service.step_events)))
    return log


def test_one_file_per_event_type_with_documented_columns(tmp_path):
    log = _episode(
        "ep-1",
        [
            [(CuttingEvents, "invalid_cut", {"piece_id": 3, "reason": "too small"})],
            [(CuttingEvents, "valid_cut", {"size": [10, 20]}), (CuttingEvents, "invalid_cut", {"piece_id": 4})],
        ],
    )
    LogEventsWriterTSV(tmp_path / "event_logs").write(log)
    files = sorted(path.name for path in (tmp_path / "event_logs").iterdir())
    assert files == ["CuttingEvents.invalid_cut.tsv", "CuttingEvents.valid_cut.tsv"]
    lines = (tmp_path / "event_logs" / "CuttingEvents.invalid_cut.tsv").read_text().splitlines()
    assert lines == ["episode_id\tenv_time\tpiece_id\treason", 'ep-1\t0\t3\t"too small"', "ep-1\t1\t4\t"]
    rows = read_event_log_tsv(tmp_path / "event_logs" / "CuttingEvents.invalid_cut.tsv")
    assert rows == [EventRow("ep-1", 0, {"piece_id": 3, "reason": "too small"}), EventRow("ep-1", 1, {"piece_id": 4})]


def test_round_trip_of_attribute_values(tmp_path):
    values = {
        "int": 7,
        "float": 0.1,
        "nan": float("nan"),
        "inf": -math.inf,
        "np_float32": np.float32(1.25),
        "np_int": np.int64(-3),
        "text": "tab\there\nnew line, ünïcode",
        "none": None,
        "flag": True,
        "tuple": (1, 2),
        "array": np.arange(6).reshape(2, 3),
        "mapping": {"a": [1.5, None]},
        "object": CuttingEvents,
    }
    LogEventsWriterTSV(tmp_path).write(_episode("ep", [[(FreeEvents, "anything", values)]]))
    (row,) = read_event_log_tsv(tmp_path / "FreeEvents.anything.tsv")
    read = row.attributes
    assert list(read) == sorted(values)  # kwargs columns are sorted
    assert read["int"] == 7 and type(read["int"]) is int
    assert read["float"] == 0.1
    assert math.isnan(read["nan"]) and read["inf"] == -math.inf
    assert read["np_float32"] == 1.25 and read["np_int"] == -3
    assert read["text"] == values["text"]
    assert read["none"] is None and read["flag"] is True
    assert read["tuple"] == [1, 2]
    assert read["array"] == [[0, 1, 2], [3, 4, 5]]
    assert read["mapping"] == {"a": [1.5, None]}
    assert read["object"] == str(CuttingEvents)


def test_appends_across_episodes_and_writers(tmp_path):
    first = _episode("ep-1", [[(CuttingEvents, "valid_cut", {"size": 1})]])
    second = _episode("ep-2", [[], [(CuttingEvents, "valid_cut", {"size": 2})]])
    writer = LogEventsWriterTSV(tmp_path)
    writer.write(first)
    writer.write(second)
    LogEventsWriterTSV(tmp_path).write(first)  # a new writer reuses the matching file
    rows = read_event_log_tsv(tmp_path / "CuttingEvents.valid_cut.tsv")
    assert [(row.episode_id, row.env_time, row.attributes["size"]) for row in rows] == [
        ("ep-1", 0, 1),
        ("ep-2", 1, 2),
        ("ep-1", 0, 1),
    ]


def test_existing_file_with_other_header_is_refused(tmp_path):
    (tmp_path / "CuttingEvents.valid_cut.tsv").write_text("episode_id\tenv_time\twidth\n")
    with pytest.raises(EventLogFormatError, match="CuttingEvents.valid_cut.tsv has the header"):
        LogEventsWriterTSV(tmp_path).write(_episode("ep", [[(CuttingEvents, "valid_cut", {"size": 1})]]))


def test_undeclared_attribute_is_refused(tmp_path):
    log = _episode("ep", [[(CuttingEvents, "valid_cut", {"size": 1, "colour": "red"})]])
    with pytest.raises(EventLogFormatError, match=r"\['colour'\].*declare them as parameters"):
        LogEventsWriterTSV(tmp_path).write(log)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "is empty"),
        ("step\tvalue\n", "header must start with 'episode_id<TAB>env_time'"),
        ("episode_id\tenv_time\tsize\nep\t0\n", "line 2: expected 3 tab-separated cells"),
        ("episode_id\tenv_time\tsize\nep\t0\t1\nep\tlate\t1\n", "line 3: env_time must be an integer"),
        ("episode_id\tenv_time\tsize\nep\t0\tnot json\n", "line 2: the value of 'size' is not valid JSON"),
    ],
)
def test_malformed_files_raise_naming_the_file(tmp_path, content, message):
    path = tmp_path / "broken.tsv"
    path.write_text(content)
    with pytest.raises(EventLogFormatError, match=message) as error:
        read_event_log_tsv(path)
    assert str(path) in str(error.value)


class _CollectingWriter(LogEventsWriter):
    def __init__(self):
        self.episodes = []

    def write(self, episode_event_log):
        self.episodes.append(episode_event_log)


def test_registry_is_a_no_op_without_writers():
    assert LogEventsWriterRegistry.writers == []
    # Any writer would read the log; with none registered the registry must not touch it.
    LogEventsWriterRegistry.record_event_logs(object())


def test_registry_hands_logs_to_every_writer():
    first, second = _CollectingWriter(), _CollectingWriter()
    LogEventsWriterRegistry.register_writer(first)
    LogEventsWriterRegistry.register_writer(second)
    log = EpisodeEventLog("ep")
    LogEventsWriterRegistry.record_event_logs(log)
    assert first.episodes == [log] and second.episodes == [log]
    LogEventsWriterRegistry.clear()
    LogEventsWriterRegistry.record_event_logs(EpisodeEventLog("later"))
    assert len(first.episodes) == 1
    with pytest.raises(TypeError, match="expects a LogEventsWriter"):
        LogEventsWriterRegistry.register_writer(object())


class _ResetCountingEnv:
    def __init__(self):
        self.resets = 0

    def reset(self):
        self.resets += 1
        LogEventsWriterRegistry.record_event_logs(_episode("unfinished", [[(CuttingEvents, "valid_cut", {"size": 9})]]))


def test_simple_event_logging_setup_registers_and_finishes_the_episode(tmp_path):
    env = _ResetCountingEnv()
    with SimpleEventLoggingSetup(env, log_dir=tmp_path / "logs") as setup:
        assert LogEventsWriterRegistry.writers == [setup.writer]
        LogEventsWriterRegistry.record_event_logs(_episode("ep", [[(CuttingEvents, "valid_cut", {"size": 1})]]))
    assert LogEventsWriterRegistry.writers == []
    assert env.resets == 1
    rows = read_event_log_tsv(tmp_path / "logs" / "CuttingEvents.valid_cut.tsv")
    assert [row.episode_id for row in rows] == ["ep", "unfinished"]
