"""A trace's host workload as the analytic model takes it: read share, request-size mix and sequential share.

``ssdco whatif CONFIG --trace TRACE`` sets ``workload.read_fraction`` and ``workload.request_size_kib`` (a size
mix) from :func:`trace_workload`; the queue depth, the address pattern and everything else stay as configured.
Sizes are whole 512 B sectors (a request's bytes rounded up); more distinct sizes than ``max_sizes`` are grouped
into powers of two of sectors (each size rounded up to the next one), so the mix stays small enough for the
model's size classes.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from ssdco.trace.chunk import TraceChunk, chunked
from ssdco.trace.record import TraceRecord

SECTOR_BYTES = 512
MAX_SIZES = 16  # distinct request sizes kept as they are; more are grouped into powers of two of sectors


@dataclass(frozen=True)
class TraceWorkload:
    """What :func:`trace_workload` measured on a trace."""

    records: int
    read_fraction: float
    sizes_kib: tuple[float, ...]  # ascending
    probabilities: tuple[float, ...]  # per size, summing to 1
    sequential_fraction: float  # share of requests that start where the previous one ended
    mean_size_kib: float  # before any grouping

    def overrides(self) -> list[str]:
        """The ``--set`` overrides that give a device file this workload (read share and size mix)."""
        mix = (f"{{sizes = {json.dumps(list(self.sizes_kib))}, "
               f"probabilities = {json.dumps(list(self.probabilities))}}}")
        return [f"workload.read_fraction={self.read_fraction!r}", f"workload.request_size_kib={mix}"]

    def to_dict(self) -> dict:
        """The JSON form (sizes in KiB)."""
        return {"records": self.records, "read_fraction": self.read_fraction, "sizes_kib": list(self.sizes_kib),
                "probabilities": list(self.probabilities), "sequential_fraction": self.sequential_fraction,
                "mean_size_kib": self.mean_size_kib}


def _grouped(counts: Counter, max_sizes: int) -> Counter:
    """``counts`` (requests per size in sectors) with each size rounded up to a power of two of sectors when there
    are more than ``max_sizes`` distinct sizes."""
    if len(counts) <= max_sizes:
        return counts
    out: Counter = Counter()
    for sectors, n in counts.items():
        out[1 << (sectors - 1).bit_length()] += n
    return out


def trace_workload(records: Iterable[TraceRecord], max_sizes: int = MAX_SIZES) -> TraceWorkload:
    """Read share, request-size mix (KiB, whole sectors) and sequential share of ``records``, in one pass.
    Raises ValueError on a trace with no records."""
    return chunks_workload(chunked(records), max_sizes)


def chunks_workload(chunks: Iterable[TraceChunk], max_sizes: int = MAX_SIZES) -> TraceWorkload:
    """:func:`trace_workload` of a trace given as :class:`~ssdco.trace.chunk.TraceChunk` s (a request is
    sequential when it starts where the one before it, in this chunk or the last, ended)."""
    tally = WorkloadTally()
    for chunk in chunks:
        tally.add(chunk)
    return tally.workload(max_sizes)


class WorkloadTally:
    """The counts :func:`chunks_workload` keeps, one chunk at a time (:meth:`passing` counts the chunks of a
    trace on their way to another consumer, so that one read of the trace serves both)."""

    def __init__(self):
        self.sizes: Counter = Counter()  # requests per size in sectors
        self.total = self.reads = self.sequential = self.sectors = 0
        self.previous_end = -1

    def add(self, chunk: TraceChunk) -> None:
        """Count the records of ``chunk``."""
        if not len(chunk):
            return
        self.total += len(chunk)
        self.reads += int(np.count_nonzero(~chunk.is_write))
        sectors = -(-chunk.size_bytes // SECTOR_BYTES)
        values, n = np.unique(sectors, return_counts=True)
        self.sizes.update(dict(zip(values.tolist(), n.tolist())))
        self.sectors += int(sectors.sum())
        ends = chunk.offset_bytes + chunk.size_bytes
        self.sequential += int(chunk.offset_bytes[0] == self.previous_end) + int(np.count_nonzero(
            chunk.offset_bytes[1:] == ends[:-1]))
        self.previous_end = int(ends[-1])

    def passing(self, chunks: Iterable[TraceChunk]) -> Iterator[TraceChunk]:
        """``chunks`` passed through, each counted."""
        for chunk in chunks:
            self.add(chunk)
            yield chunk

    def workload(self, max_sizes: int = MAX_SIZES) -> TraceWorkload:
        """The workload of the records counted; ValueError when there were none."""
        if self.total == 0:
            raise ValueError("the trace has no records")
        grouped = _grouped(self.sizes, max_sizes)
        sizes = sorted(grouped)
        return TraceWorkload(
            records=self.total, read_fraction=self.reads / self.total,
            sizes_kib=tuple(s * SECTOR_BYTES / 1024 for s in sizes),
            probabilities=tuple(grouped[s] / self.total for s in sizes),
            sequential_fraction=self.sequential / self.total,
            mean_size_kib=self.sectors * SECTOR_BYTES / 1024 / self.total)
