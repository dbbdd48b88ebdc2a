"""Engines: what the one-pass simulation drives, a buffer or a mapping that takes a chunk's accesses as arrays.

A buffer engine serves a chunk's page accesses and returns the flash traffic they cause (page reads, and the pages
written back, in order); a mapping engine takes that traffic. Each policy and mapping of
:mod:`ssdco.trace.buffers` and :mod:`ssdco.trace.mapping` is the specification: its engine is either the Python
class itself behind an adapter, or a compiled kernel (:mod:`ssdco.trace.kernels`) that gives the same counts,
evictions and writes in the same order (tests/trace/test_kernels.py).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from ssdco.trace.buffers import POLICIES, BufferPolicy
from ssdco.trace.kernels.arc import ArcKernel
from ssdco.trace.kernels.bast import BastKernel
from ssdco.trace.kernels.fab import FabKernel
from ssdco.trace.kernels.fast import FastKernel
from ssdco.trace.kernels.lirs import LirsKernel
from ssdco.trace.kernels.lru import LruKernel
from ssdco.trace.kernels.page import PageKernel
from ssdco.trace.mapping import MAPPINGS, FlashCounts, Mapping


class BufferEngine(Protocol):
    """A buffer policy fed chunk by chunk; its counters follow :class:`~ssdco.trace.buffers.BufferPolicy`."""

    hits: int
    misses: int

    def feed(self, lpns: np.ndarray, writes: np.ndarray) -> tuple[int, np.ndarray]:
        """Serve page accesses in order: the flash page reads they cause and the pages written back (int64)."""
        ...

    def flush_all(self) -> np.ndarray:
        """Write every dirty page back (a shutdown's flush): the pages written, in address order."""
        ...


class MappingEngine(Protocol):
    """A mapping fed chunk by chunk with a buffer's flash traffic."""

    name: str

    def take(self, reads: int, written: np.ndarray) -> None:
        """Count ``reads`` host page reads and program the pages of ``written`` in order."""
        ...

    def counts(self) -> FlashCounts:
        """The mapping's counts so far."""
        ...


class _Collector:
    """The flash sink of a Python policy: counts reads, keeps the written pages until taken."""

    def __init__(self):
        self.reads = 0
        self.written: list[int] = []

    def read(self, lpn: int) -> None:
        self.reads += 1

    def write(self, lpns: list[int]) -> None:
        self.written.extend(lpns)

    def take(self) -> tuple[int, np.ndarray]:
        reads, written = self.reads, np.array(self.written, dtype=np.int64)
        self.reads, self.written = 0, []
        return reads, written


class PythonBuffer:
    """A :class:`~ssdco.trace.buffers.BufferPolicy` as an engine: one ``access`` call per page."""

    def __init__(self, policy: type[BufferPolicy], capacity_pages: int, pages_per_block: int):
        self._sink = _Collector()
        self.policy = policy(capacity_pages, self._sink, pages_per_block)

    @property
    def hits(self) -> int:
        return self.policy.hits

    @property
    def misses(self) -> int:
        return self.policy.misses

    def feed(self, lpns: np.ndarray, writes: np.ndarray) -> tuple[int, np.ndarray]:
        """Serve the accesses one by one through the policy."""
        access = self.policy.access
        for lpn, is_write in zip(lpns.tolist(), writes.tolist()):
            access(lpn, is_write)
        return self._sink.take()

    def flush_all(self) -> np.ndarray:
        """The policy's shutdown flush."""
        self.policy.flush_all()
        return self._sink.take()[1]


class PythonMapping:
    """A :class:`~ssdco.trace.mapping.Mapping` as an engine."""

    def __init__(self, mapping: Mapping):
        self.mapping = mapping
        self.name = mapping.name

    def take(self, reads: int, written: np.ndarray) -> None:
        """Count the reads, write the pages."""
        self.mapping.host_reads += reads
        self.mapping.write(written.tolist())

    def counts(self) -> FlashCounts:
        """The mapping's counts."""
        return self.mapping.counts()


COMPILED_BUFFERS = {"lru": LruKernel, "fab": FabKernel, "lirs": LirsKernel, "arc": ArcKernel}
COMPILED_MAPPINGS = {"page": PageKernel, "bast": BastKernel, "fast": FastKernel}


def buffer_engine(policy: str, capacity_pages: int, pages_per_block: int, compiled: bool = True) -> BufferEngine:
    """The engine of the buffer policy named ``policy`` (a key of :data:`~ssdco.trace.buffers.POLICIES`): its
    compiled kernel where there is one (and ``compiled``), else its Python class."""
    if compiled and policy in COMPILED_BUFFERS:
        return COMPILED_BUFFERS[policy](capacity_pages, pages_per_block)
    return PythonBuffer(POLICIES[policy], capacity_pages, pages_per_block)


def mapping_engine(name: str, pages_per_block: int, log_blocks: int, over_provisioning: float,
                   compiled: bool = True) -> MappingEngine:
    """The engine of the mapping named ``name`` (a key of :data:`~ssdco.trace.mapping.MAPPINGS`): its compiled
    kernel where there is one (and ``compiled``), else its Python class."""
    if compiled and name in COMPILED_MAPPINGS:
        return COMPILED_MAPPINGS[name](pages_per_block, log_blocks=log_blocks, over_provisioning=over_provisioning)
    return PythonMapping(MAPPINGS[name](pages_per_block, log_blocks=log_blocks, over_provisioning=over_provisioning))
