"""TensorBoard logging: a statistics writer, config/command text, and readers for event files.

:class:`LogStatsWriterTensorboard` turns every statistics write into one TensorBoard
event, named like the console table's path::

    writer = LogStatsWriterTensorboard("outputs/my_run")
    register_log_stats_writer(writer)
    increment_log_step()
    get_stats_logger("train").log_stats(stats)
    # scalar tags: train_BaseEnvEvents/reward/mean, train_BaseEnvEvents/kpi/mean/raw_piece_usage_per_step, ...

* Tags are ``<prefix>_<Topic>/<event>[/<name>][/<group>...]`` (no ``<prefix>_`` part
  for the prefix None): the statistic's topic class, event method, ``output_name`` and
  group values, so every prefix and topic is one section of the SCALARS tab.
* Numbers become scalars; lists, tuples and arrays of numbers become histograms (their
  entries flattened, non-finite entries dropped); other values (dicts, strings, empty
  lists) are not written.
* With ``figures=True`` the figures of the statistics (action distributions of the
  monitoring wrapper's action events, figures declared with ``define_plot``) go into
  the IMAGES tab (:mod:`maze.train.tensorboard_figures`).
* Every ``write`` is flushed to disk before it returns, so a killed run keeps every
  epoch it logged.

The training runner logs the resolved config and the command line into the TEXT tab
with :meth:`LogStatsWriterTensorboard.write_config`.

Implementation note: events are written with tensorboard's ``EventFileWriter`` and its
protobuf messages. Importing it costs about 0.15 s (measured on the development
machine), the same as ``torch.utils.tensorboard`` once torch is loaded and far less
than its 1 s without torch, so the import happens in the writer's constructor and
``import maze.train.tensorboard`` loads no tensorboard module at all.
"""

from __future__ import annotations

import os
import re
import time
from numbers import Real
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np
from maze.env.log_stats.log_stats import LogStats, LogStatsKey, LogStatsValue
from maze.env.log_stats.writers import LogStatsWriter
from maze.train.tensorboard_figures import figure_images

__all__ = [
    "LogStatsWriterTensorboard",
    "preload_writer_modules",
    "stats_tag",
    "markdown_code_block",
    "read_scalars",
    "read_texts",
]

_FLUSH_SECONDS = 2
"""The event file writer thread wakes at least this often (see ``LogStatsWriterTensorboard.__init__``)."""


def preload_writer_modules() -> None:
    """Imports what the writer needs (tensorboard's event writer and protobuf messages) now.

    For a process that forks many jobs (the sweep launcher): each job's writer then finds them
    imported instead of importing them again (about 0.15 s per job).
    """
    from tensorboard.compat.proto import event_pb2, summary_pb2, tensor_pb2  # noqa: F401
    from tensorboard.summary.writer.event_file_writer import EventFileWriter  # noqa: F401


_HISTOGRAM_BINS = 30
"""Number of equal-width buckets of a histogram (between the smallest and largest value)."""

_TEXT_PLUGIN = "text"
"""Name of TensorBoard's text plugin (the TEXT tab) in a summary's metadata."""


def stats_tag(path: Optional[str], key: LogStatsKey) -> str:
    """The TensorBoard tag of one statistic, e.g. ``train_BaseEnvEvents/reward/mean``.

    Args:
        path: The logging prefix (None: no prefix).
        key: The statistic's key; its name and group values are appended when present.
    """
    section = key.topic if path is None else f"{path}_{key.topic}"
    return "/".join(part for part in (section, key.event, key.label) if part)


def markdown_code_block(text: str, language: str = "") -> str:
    """``text`` as a fenced markdown code block, so TensorBoard's TEXT tab shows it verbatim.

    The fence is longer than any run of backticks inside ``text``.
    """
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text.rstrip(chr(10))}\n{fence}"


def _numbers(value: LogStatsValue) -> Union[float, np.ndarray, None]:
    """A statistic as a float (scalar), a 1-d float64 array of finite values (histogram) or None (not written)."""
    if isinstance(value, (Real, np.integer, np.floating, np.bool_)):
        return float(value)
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return _numbers(value.item())
    if not isinstance(value, (list, tuple, np.ndarray)):
        return None
    try:
        flat = np.ravel(np.asarray(value))
    except ValueError:  # entries of several shapes, which numpy refuses to stack
        try:
            flat = np.concatenate([np.ravel(np.asarray(entry)) for entry in value])
        except (TypeError, ValueError):  # entries that are ragged themselves
            return None
    if flat.dtype.kind not in "biuf":  # no numbers (dicts, strings, None)
        return None
    flat = flat.astype(np.float64)[np.isfinite(flat)]
    return flat if flat.size else None


class LogStatsWriterTensorboard(LogStatsWriter):
    """Writes statistics as TensorBoard scalars and histograms into an event file in ``log_dir``.

    Args:
        log_dir: Directory of the event file (created when missing); point ``tensorboard
            --logdir`` at it or at a parent directory.
        figures: Also draw the figures of the statistics (action distributions,
            ``define_plot``) into the IMAGES tab; see :mod:`maze.train.tensorboard_figures`.
    """

    def __init__(self, log_dir: Union[str, os.PathLike], figures: bool = True) -> None:
        from tensorboard.summary.writer.event_file_writer import EventFileWriter

        self.log_dir = Path(log_dir)
        self.figures = figures
        # Every write flushes anyway. A short flush interval bounds how long close() can wait: a Ctrl-C that
        # lands inside the writer's queue operations can lose the wake-up of its thread, which then slept
        # through the default 120 s before the process could exit.
        self._writer: Optional[EventFileWriter] = EventFileWriter(str(self.log_dir), flush_secs=_FLUSH_SECONDS)

    def write(self, path: Optional[str], step: int, stats: LogStats) -> None:
        """Writes the numeric statistics of ``stats`` at ``step`` as one event and flushes it to disk.

        Args:
            path: The logging prefix (None: no prefix).
            step: The log step (the x axis in TensorBoard).
            stats: The statistics; scalars and histograms as described in the module docs.

        Raises:
            RuntimeError: The writer is closed.
        """
        from tensorboard.compat.proto.summary_pb2 import Summary

        values = []
        for key, value in stats.items():
            numbers = _numbers(value)
            if numbers is None:
                continue
            tag = stats_tag(path, key)
            if isinstance(numbers, float):
                values.append(Summary.Value(tag=tag, simple_value=numbers))
            else:
                values.append(Summary.Value(tag=tag, histo=_histogram(numbers)))
        if self.figures:
            values.extend(figure_images(stats, lambda key: stats_tag(path, key)))
        if values:
            self._add(Summary(value=values), step)

    def write_text(self, tag: str, text: str, step: int = 0) -> None:
        """Writes ``text`` (markdown) into the TEXT tab under ``tag`` and flushes it to disk.

        Args:
            tag: Name of the entry in the TEXT tab (e.g. ``config``).
            text: Markdown; see :func:`markdown_code_block` for text to show verbatim.
            step: The step the entry belongs to.

        Raises:
            RuntimeError: The writer is closed.
        """
        from tensorboard.compat.proto.summary_pb2 import Summary, SummaryMetadata
        from tensorboard.compat.proto.tensor_pb2 import TensorProto
        from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
        from tensorboard.compat.proto.types_pb2 import DT_STRING

        metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name=_TEXT_PLUGIN))
        tensor = TensorProto(dtype=DT_STRING, tensor_shape=TensorShapeProto(), string_val=[text.encode("utf-8")])
        self._add(Summary(value=[Summary.Value(tag=tag, metadata=metadata, tensor=tensor)]), step)

    def write_config(self, config_yaml: str, command: str) -> None:
        """Writes the resolved config (tag ``config``) and the command line (tag ``command``) into the TEXT tab.

        Args:
            config_yaml: The config as YAML (e.g. ``OmegaConf.to_yaml(cfg, resolve=True)``).
            command: The command line that started the run (e.g. ``shlex.join(sys.argv)``).

        Raises:
            RuntimeError: The writer is closed.
        """
        self.write_text("config", markdown_code_block(config_yaml, "yaml"))
        self.write_text("command", markdown_code_block(command, "shell"))

    def close(self) -> None:
        """Flushes and closes the event file (again: nothing)."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def _add(self, summary: Any, step: int) -> None:
        """Appends one event holding ``summary`` and flushes the file."""
        from tensorboard.compat.proto.event_pb2 import Event

        if self._writer is None:
            raise RuntimeError(
                f"the TensorBoard writer of {self.log_dir} is closed; create a new LogStatsWriterTensorboard "
                "to write again (unregister_log_stats_writer and clear_global_state close registered writers)"
            )
        self._writer.add_event(Event(wall_time=time.time(), step=step, summary=summary))
        self._writer.flush()


def _histogram(values: np.ndarray) -> Any:
    """A ``HistogramProto`` of ``values`` (1-d, finite, not empty) with equal-width buckets.

    ``bucket_limit[i]`` is the right edge of bucket ``i``; the left edge of the first
    bucket is ``min``.
    """
    from tensorboard.compat.proto.summary_pb2 import HistogramProto

    counts, edges = np.histogram(values, bins=_HISTOGRAM_BINS)
    return HistogramProto(
        min=float(values.min()),
        max=float(values.max()),
        num=float(values.size),
        sum=float(values.sum()),
        sum_squares=float(np.dot(values, values)),
        bucket_limit=edges[1:].tolist(),
        bucket=counts.astype(np.float64).tolist(),
    )


def _accumulator(log_dir: Union[str, os.PathLike]) -> Any:
    """An ``EventAccumulator`` that has loaded every event of the event files in ``log_dir``."""
    from tensorboard.backend.event_processing.event_accumulator import (
        STORE_EVERYTHING_SIZE_GUIDANCE,
        EventAccumulator,
    )

    if not Path(log_dir).is_dir():
        raise FileNotFoundError(
            f"no TensorBoard log directory {str(log_dir)!r}; pass the directory holding the events.out.tfevents.* "
            "files (the run's output directory)"
        )
    accumulator = EventAccumulator(
        str(log_dir), size_guidance=STORE_EVERYTHING_SIZE_GUIDANCE, purge_orphaned_data=False
    )
    accumulator.Reload()
    return accumulator


def read_scalars(log_dir: Union[str, os.PathLike]) -> dict[str, list[tuple[int, float]]]:
    """The scalars of the event files in ``log_dir``: ``(step, value)`` pairs per tag, in the order written.

    Raises:
        FileNotFoundError: ``log_dir`` is no directory.
    """
    accumulator = _accumulator(log_dir)
    return {
        tag: [(event.step, event.value) for event in accumulator.Scalars(tag)] for tag in accumulator.Tags()["scalars"]
    }


def read_texts(log_dir: Union[str, os.PathLike]) -> dict[str, str]:
    """The TEXT-tab entries of the event files in ``log_dir``: the last text written per tag.

    Raises:
        FileNotFoundError: ``log_dir`` is no directory.
    """
    accumulator = _accumulator(log_dir)
    return {
        tag: accumulator.Tensors(tag)[-1].tensor_proto.string_val[0].decode("utf-8")
        for tag in accumulator.Tags()["tensors"]
        if accumulator.SummaryMetadata(tag).plugin_data.plugin_name == _TEXT_PLUGIN
    }
