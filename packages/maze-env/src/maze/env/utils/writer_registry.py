"""A process-wide registry that hands each finished episode's record to the registered writers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Generic, Protocol, TypeVar

__all__ = ["RecordWriter", "WriterRegistry"]

RecordT = TypeVar("RecordT")
RecordT_contra = TypeVar("RecordT_contra", contravariant=True)


class RecordWriter(Protocol[RecordT_contra]):
    """Anything that stores records (e.g. a ``LogEventsWriter`` or a ``TrajectoryWriter``)."""

    def write(self, record: RecordT_contra, /) -> None:
        """Stores the record of one finished episode."""


class WriterRegistry(Generic[RecordT]):
    """Hands the record of every finished episode (an event log, a trajectory, ...) to the registered writers.

    The code that finishes an episode calls :meth:`record`. While no writer is registered
    that call returns at once, so recording costs nothing unless it was asked for.

    One registry per kind of record is module-level state: one set of writers per process.
    Worker processes of a parallel rollout register their own writers. An env that should write
    to writers of its own (e.g. two envs of a service recording to different places) gets a
    registry instance from :meth:`with_writers` instead.

    Args:
        name: The registry's public name (used in error messages).
        writer_type: The class every writer must be an instance of.
        example: A writer class to name when something else is registered.
    """

    def __init__(self, name: str, writer_type: type[RecordWriter[RecordT]], example: str) -> None:
        self.name = name
        self.writer_type = writer_type
        self.example = example
        self.writers: list[RecordWriter[RecordT]] = []

    def __repr__(self) -> str:
        return f"<{self.name}: {len(self.writers)} writer(s)>"

    def register_writer(self, writer: RecordWriter[RecordT]) -> None:
        """Adds a writer; it receives every episode recorded from now on.

        Raises:
            TypeError: ``writer`` is not an instance of the registry's writer type.
        """
        if not isinstance(writer, self.writer_type):
            raise TypeError(
                f"{self.name}.register_writer expects a {self.writer_type.__name__} (e.g. {self.example}), "
                f"got {type(writer).__name__}"
            )
        self.writers.append(writer)

    def unregister_writer(self, writer: RecordWriter[RecordT]) -> None:
        """Removes a registered writer (nothing happens if it is not registered)."""
        if writer in self.writers:
            self.writers.remove(writer)

    def record(self, record: RecordT) -> None:
        """Passes the record of a finished episode to every registered writer."""
        for writer in self.writers:
            writer.write(record)

    def clear(self) -> None:
        """Removes all writers."""
        self.writers.clear()

    def with_writers(self, writers: Sequence[RecordWriter[RecordT]]) -> WriterRegistry[RecordT]:
        """A registry of the same kind that holds only ``writers``: for one env writing to writer instances of its own.

        The process-wide registry (this one) is left as it is.

        Raises:
            TypeError: A writer is not an instance of the registry's writer type.
        """
        own: WriterRegistry[RecordT] = WriterRegistry(f"{self.name} (own writers)", self.writer_type, self.example)
        for writer in writers:
            own.register_writer(writer)
        return own
