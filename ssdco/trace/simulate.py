"""One pass over a trace through every (buffer policy, buffer size) and, behind each buffer, every mapping.

Each record splits into the pages it touches (``page_bytes`` pages, partial pages count whole); each page is
one access to every buffer; each buffer's flash traffic fans out to its own instance of every mapping. The trace
passes a chunk of records at a time (:mod:`ssdco.trace.chunk`) through the engines of :mod:`ssdco.trace.engines`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ssdco.errors import ConfigError
from ssdco.trace.buffers import POLICIES
from ssdco.trace.chunk import TraceChunk, chunked
from ssdco.trace.cost import CostWeights, weighted_time
from ssdco.trace.engines import buffer_engine, mapping_engine
from ssdco.trace.mapping import MAPPINGS, FlashCounts
from ssdco.trace.record import TraceRecord

MIB = 1 << 20


@dataclass(frozen=True)
class TraceSetup:
    """What to simulate: buffer ``policies`` (names of :data:`~ssdco.trace.buffers.POLICIES`) of each size in
    ``buffer_bytes``, each in front of every mapping in ``mappings`` (:data:`~ssdco.trace.mapping.MAPPINGS`)."""

    policies: tuple[str, ...] = ("lru", "fab", "lirs", "arc")
    buffer_bytes: tuple[int, ...] = (16 * MIB,)
    mappings: tuple[str, ...] = ("page", "bast", "fast")
    page_bytes: int = 4096
    pages_per_block: int = 64
    log_blocks: int = 16
    over_provisioning: float = 0.07
    flush_at_end: bool = False  # write every page still dirty when the trace ends (a shutdown's flush)
    compiled: bool = True  # the compiled engines; False runs the Python classes (the specification) instead

    def __post_init__(self):
        _check_names("buffer", self.policies, POLICIES)
        _check_names("ftl", self.mappings, MAPPINGS)
        for size in self.buffer_bytes:
            if size < 2 * self.page_bytes:
                raise ConfigError("--buffer-mib", "buffer-mib", size / MIB, "expected a buffer of at least 2 pages")
        if self.page_bytes < 512 or self.pages_per_block < 2:
            raise ConfigError("trace", "geometry", (self.page_bytes, self.pages_per_block),
                              "expected pages of >= 512 B and >= 2 pages per block")
        if self.log_blocks < 2:
            raise ConfigError("--log-blocks", "log-blocks", self.log_blocks, "expected >= 2 log blocks")


def _check_names(option: str, names: tuple[str, ...], known: dict) -> None:
    if not names:
        raise ConfigError(f"--{option}", option, "", f"expected one or more of: {','.join(known)}")
    for name in names:
        if name not in known:
            raise ConfigError(f"--{option}", option, name, f"expected one or more of: {','.join(known)}")


@dataclass(frozen=True)
class TraceResult:
    """One (policy, buffer size, mapping): page accesses, buffer hits and misses, the mapping's flash counts and
    their weighted execution time in ``time_unit``."""

    policy: str
    buffer_bytes: int
    mapping: str
    page_accesses: int
    hits: int
    misses: int
    flash: FlashCounts
    weighted_time: float
    time_unit: str

    @property
    def hit_ratio(self) -> float:
        """Buffer hits per page access (0 for an empty trace)."""
        return self.hits / self.page_accesses if self.page_accesses else 0.0


def simulate_trace(records: Iterable[TraceRecord], setup: TraceSetup = TraceSetup(),
                   weights: CostWeights = CostWeights()) -> list[TraceResult]:
    """Run ``records`` once through every buffer and mapping of ``setup``; the results in the order policy,
    buffer size, mapping."""
    return simulate_chunks(chunked(records), setup, weights)


def simulate_chunks(chunks: Iterable[TraceChunk], setup: TraceSetup = TraceSetup(),
                    weights: CostWeights = CostWeights()) -> list[TraceResult]:
    """:func:`simulate_trace` over a trace given as :class:`~ssdco.trace.chunk.TraceChunk` s (the fast path of
    :func:`~ssdco.trace.reader.read_trace_chunks` and :func:`~ssdco.trace.synthetic.synthetic_chunks`)."""
    stacks = [_Stack(policy, size, setup) for policy in setup.policies for size in setup.buffer_bytes]
    for chunk in chunks:
        lpns, writes = chunk.page_accesses(setup.page_bytes)
        for stack in stacks:
            stack.feed(lpns, writes)
    if setup.flush_at_end:
        for stack in stacks:
            stack.flush_all()
    return [TraceResult(stack.policy, stack.buffer_bytes, mapping.name, stack.buffer.hits + stack.buffer.misses,
                        stack.buffer.hits, stack.buffer.misses, mapping.counts(),
                        weighted_time(mapping.counts(), weights), weights.unit)
            for stack in stacks for mapping in stack.mappings]


class _Stack:
    """One buffer (policy, size) and its own instance of every mapping."""

    def __init__(self, policy: str, buffer_bytes: int, setup: TraceSetup):
        self.policy, self.buffer_bytes = policy, buffer_bytes
        self.buffer = buffer_engine(policy, buffer_bytes // setup.page_bytes, setup.pages_per_block, setup.compiled)
        self.mappings = [mapping_engine(name, setup.pages_per_block, setup.log_blocks, setup.over_provisioning,
                                        setup.compiled) for name in setup.mappings]

    def feed(self, lpns: np.ndarray, writes: np.ndarray) -> None:
        reads, written = self.buffer.feed(lpns, writes)
        for mapping in self.mappings:
            mapping.take(reads, written)

    def flush_all(self) -> None:
        written = self.buffer.flush_all()
        for mapping in self.mappings:
            mapping.take(0, written)
