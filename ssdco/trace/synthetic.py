"""Seeded synthetic block traces: uniform, hot/cold, sequential runs and a database-like mix.

Records come in numpy-drawn chunks from one generator of :mod:`ssdco.rng` (same seed => same trace); memory
does not grow with the number of records. Arrivals are Poisson (exponential gaps, mean ``mean_gap_us``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ssdco.errors import ConfigError
from ssdco.rng import SeedLike, as_generator
from ssdco.trace.chunk import TraceChunk, unchunked
from ssdco.trace.record import TraceRecord

PATTERNS = ("uniform", "hotcold", "sequential", "database")
_CHUNK = 1 << 16


@dataclass(frozen=True)
class SyntheticSpec:
    """A synthetic trace: ``pattern`` (one of :data:`PATTERNS`), ``records`` requests over a footprint of
    ``footprint_bytes`` in ``page_bytes`` pages.

    * uniform: one-page requests, uniformly over the footprint, ``write_fraction`` of them writes;
    * hotcold: as uniform, ``hot_access_fraction`` of the requests on the first ``hot_space_fraction`` of it;
    * sequential: runs of ``run_records`` requests of ``run_pages`` pages each at consecutive offsets from a
      random start, each run all reads or all writes;
    * database: ``log_fraction`` of the requests append ``log_pages`` pages to a log (the footprint's last
      eighth, written in a circle); the rest are one-page hot/cold requests on the data region, reads with
      probability ``1 - write_fraction`` and in-place updates otherwise.
    """

    pattern: str
    records: int
    footprint_bytes: int = 256 << 20
    page_bytes: int = 4096
    write_fraction: float = 0.3
    hot_access_fraction: float = 0.8
    hot_space_fraction: float = 0.2
    run_records: int = 32
    run_pages: int = 8
    log_fraction: float = 0.1
    log_pages: int = 2
    mean_gap_us: float = 100.0

    def __post_init__(self):
        if self.pattern not in PATTERNS:
            raise ConfigError("--synthetic", "pattern", self.pattern, f"expected one of: {', '.join(PATTERNS)}")
        if self.records < 0:
            raise ConfigError("--records", "records", self.records, "expected a count >= 0")
        if self.footprint_bytes < 64 * self.page_bytes:
            raise ConfigError("synthetic", "footprint_bytes", self.footprint_bytes, "expected at least 64 pages")


def _hotcold_pages(gen: np.random.Generator, n: int, pages: int, spec: SyntheticSpec) -> np.ndarray:
    hot_pages = max(1, int(pages * spec.hot_space_fraction))
    hot = gen.random(n) < spec.hot_access_fraction
    return np.where(hot, gen.integers(0, hot_pages, n), gen.integers(hot_pages, pages, n) if pages > hot_pages
                    else 0)


def _uniform_chunk(gen, n, spec, state):
    pages = spec.footprint_bytes // spec.page_bytes
    return gen.integers(0, pages, n), gen.random(n) < spec.write_fraction, np.ones(n, dtype=np.int64)


def _hotcold_chunk(gen, n, spec, state):
    pages = spec.footprint_bytes // spec.page_bytes
    return _hotcold_pages(gen, n, pages, spec), gen.random(n) < spec.write_fraction, np.ones(n, dtype=np.int64)


def _sequential_chunk(gen, n, spec, state):
    pages = spec.footprint_bytes // spec.page_bytes
    run_span = spec.run_records * spec.run_pages
    index = state["index"] + np.arange(n)
    runs = index // spec.run_records
    # each run's start and direction come from its own index, drawn once per run in the chunk
    first, last = int(runs[0]), int(runs[-1]) if n else int(runs[0])
    starts = gen.integers(0, max(1, pages - run_span), last - first + 1)
    writes = gen.random(last - first + 1) < spec.write_fraction
    state["index"] += n
    lpn = starts[runs - first] + (index % spec.run_records) * spec.run_pages
    return lpn, writes[runs - first], np.full(n, spec.run_pages, dtype=np.int64)


def _database_chunk(gen, n, spec, state):
    pages = spec.footprint_bytes // spec.page_bytes
    log_space = pages // 8
    data_pages = pages - log_space
    is_log = gen.random(n) < spec.log_fraction
    data_lpn = _hotcold_pages(gen, n, data_pages, spec)
    appends = np.cumsum(is_log) - is_log  # appends before each request in this chunk
    log_lpn = data_pages + (state["log_cursor"] + appends * spec.log_pages) % (log_space - spec.log_pages + 1)
    state["log_cursor"] = int((state["log_cursor"] + int(is_log.sum()) * spec.log_pages)
                              % (log_space - spec.log_pages + 1))
    writes = np.where(is_log, True, gen.random(n) < spec.write_fraction)
    sizes = np.where(is_log, spec.log_pages, 1)
    return np.where(is_log, log_lpn, data_lpn), writes, sizes


_CHUNKERS = {"uniform": _uniform_chunk, "hotcold": _hotcold_chunk, "sequential": _sequential_chunk,
             "database": _database_chunk}


def synthetic_trace(spec: SyntheticSpec, seed: SeedLike) -> Iterator[TraceRecord]:
    """The records of ``spec`` drawn from ``seed`` (see :mod:`ssdco.rng`): times in us from 0, page-aligned
    byte offsets and sizes."""
    return unchunked(synthetic_chunks(spec, seed))


def synthetic_chunks(spec: SyntheticSpec, seed: SeedLike) -> Iterator[TraceChunk]:
    """The records of :func:`synthetic_trace` as :class:`~ssdco.trace.chunk.TraceChunk` s."""
    gen = as_generator(seed)
    chunker = _CHUNKERS[spec.pattern]
    state = {"index": 0, "log_cursor": 0}
    clock_us = 0.0
    left = spec.records
    while left > 0:
        n = min(left, _CHUNK)
        lpn, writes, pages = chunker(gen, n, spec, state)
        times = clock_us + np.cumsum(gen.exponential(spec.mean_gap_us, n))
        clock_us = float(times[-1])
        yield TraceChunk(times, np.asarray(writes, dtype=bool), np.asarray(lpn, dtype=np.int64) * spec.page_bytes,
                         np.asarray(pages, dtype=np.int64) * spec.page_bytes)
        left -= n
