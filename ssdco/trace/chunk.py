"""Consecutive trace records held as arrays, the unit the fast readers and the trace simulation pass along.

A chunk holds at most a few tens of thousands of records, so memory stays flat however long the trace is, while
the work on each record runs in NumPy or compiled code instead of one Python call per record.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from ssdco.trace.record import TraceRecord

CHUNK_RECORDS = 65_536  # records per chunk built from a record iterator


@dataclass(frozen=True)
class TraceChunk:
    """Records in file order as four arrays of one length: arrival time (us, float64), write flag (bool), byte
    offset and byte length (int64, length > 0)."""

    time_us: np.ndarray
    is_write: np.ndarray
    offset_bytes: np.ndarray
    size_bytes: np.ndarray

    def __len__(self) -> int:
        return len(self.time_us)

    def records(self) -> Iterator[TraceRecord]:
        """The chunk's records one by one (Python floats, bools and ints)."""
        columns = (self.time_us.tolist(), self.is_write.tolist(), self.offset_bytes.tolist(), self.size_bytes.tolist())
        for record in zip(*columns):
            yield TraceRecord(*record)

    def page_accesses(self, page_bytes: int) -> tuple[np.ndarray, np.ndarray]:
        """The logical pages the records touch, in order (a partial page counts whole), and each access's write
        flag: two arrays of one length, int64 page numbers and bools."""
        first = self.offset_bytes // page_bytes
        last = (self.offset_bytes + self.size_bytes - 1) // page_bytes
        counts = last - first + 1
        starts = np.repeat(first - np.concatenate(([0], np.cumsum(counts)[:-1])), counts)
        return starts + np.arange(int(counts.sum()), dtype=np.int64), np.repeat(self.is_write, counts)

    @classmethod
    def from_records(cls, records: list[TraceRecord]) -> TraceChunk:
        """A chunk holding ``records``."""
        if not records:
            return EMPTY_CHUNK
        times, writes, offsets, sizes = zip(*records)
        return cls(np.array(times, dtype=np.float64), np.array(writes, dtype=bool),
                   np.array(offsets, dtype=np.int64), np.array(sizes, dtype=np.int64))


EMPTY_CHUNK = TraceChunk(np.empty(0, np.float64), np.empty(0, bool), np.empty(0, np.int64), np.empty(0, np.int64))


def chunked(records: Iterable[TraceRecord], size: int = CHUNK_RECORDS) -> Iterator[TraceChunk]:
    """``records`` grouped into chunks of ``size`` (the last one shorter); no empty chunk."""
    batch: list[TraceRecord] = []
    for record in records:
        batch.append(record)
        if len(batch) == size:
            yield TraceChunk.from_records(batch)
            batch = []
    if batch:
        yield TraceChunk.from_records(batch)


def unchunked(chunks: Iterable[TraceChunk]) -> Iterator[TraceRecord]:
    """The records of ``chunks`` one by one, in order."""
    for chunk in chunks:
        yield from chunk.records()
