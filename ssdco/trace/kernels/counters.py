"""What the compiled engines share: where their counters sit in their state array, and reading them out.

Every buffer kernel keeps hits, misses, evictions, flash reads and written-back pages at the front of its ``_state``
(:data:`HITS` ...); every mapping kernel its host reads and writes, copies and erases (:data:`HOST_READS` ...), the
block mappings then switch, partial and full merges (:data:`SWITCH` ...).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.typed import Dict

from ssdco.trace.mapping.base import FlashCounts

HITS, MISSES, EVICTIONS, FLASH_READS, FLUSHED = range(5)
HOST_READS, HOST_WRITES, COPIES, ERASES = range(4)
SWITCH, PARTIAL, FULL = range(4, 7)
ROWS = 7  # the block mappings' data blocks made so far (rows of their valid-page flags)


class BufferKernel:
    """What the compiled buffers share: their counters (``self._state``), named as
    :class:`~ssdco.trace.buffers.BufferPolicy` names them, and :meth:`feed`, which grows the kernel's arrays
    (``_reserve``) and runs it (``_run``) on a chunk."""

    _state: np.ndarray

    hits = property(lambda self: int(self._state[HITS]), doc="Accesses found in the buffer.")
    misses = property(lambda self: int(self._state[MISSES]), doc="Accesses not found in the buffer.")
    evictions = property(lambda self: int(self._state[EVICTIONS]), doc="Pages evicted.")
    flash_reads = property(lambda self: int(self._state[FLASH_READS]), doc="Read misses (each a flash read).")
    flushed_pages = property(lambda self: int(self._state[FLUSHED]), doc="Dirty pages written back.")

    def feed(self, lpns: np.ndarray, writes: np.ndarray) -> tuple[int, np.ndarray]:
        """Serve the accesses: the flash reads they cause and the dirty pages written back, in order."""
        self._reserve(len(lpns))
        out = np.empty(self._most_written(len(lpns)), np.int64)
        reads_before = self._state[FLASH_READS]
        n = self._run(lpns, writes, out)
        return int(self._state[FLASH_READS] - reads_before), out[:n]

    def _reserve(self, accesses: int) -> None:
        """Grow the arrays for ``accesses`` more accesses (each brings in one page at most)."""
        raise NotImplementedError

    def _most_written(self, accesses: int) -> int:
        """The most pages ``accesses`` accesses can write back: one eviction each."""
        return accesses

    def _run(self, lpns: np.ndarray, writes: np.ndarray, out: np.ndarray) -> int:
        """Run the compiled kernel; the pages written back go to ``out``, their number is returned."""
        raise NotImplementedError


def flash_counts(state: np.ndarray, merges: bool = True) -> FlashCounts:
    """A mapping kernel's counts, as :meth:`~ssdco.trace.mapping.base.Mapping.counts` gives them (no merges
    without ``merges``)."""
    s = [int(x) for x in state]
    switch, partial, full = (s[SWITCH], s[PARTIAL], s[FULL]) if merges else (0, 0, 0)
    return FlashCounts(s[HOST_READS], s[HOST_WRITES], s[HOST_READS] + s[COPIES], s[HOST_WRITES] + s[COPIES],
                       s[COPIES], s[ERASES], switch, partial, full)


INITIAL_SLOTS = 1024  # a compiled buffer's first allocation; it grows with the pages it holds, up to its capacity


def grown(array: np.ndarray, size: int, fill, axis: int = -1) -> np.ndarray:
    """``array`` with its ``axis`` lengthened to ``size`` (the new entries ``fill``); ``array`` itself when it is
    that long already."""
    if array.shape[axis] >= size:
        return array
    shape = list(array.shape)
    shape[axis] = size
    out = np.full(shape, fill, array.dtype)
    index = [slice(None)] * array.ndim
    index[axis] = slice(0, array.shape[axis])
    out[tuple(index)] = array
    return out


def next_allocation(allocated: int, need: int, capacity: int | None = None) -> int:
    """The slots to hold ``need`` (of at most ``capacity``, when given): ``allocated`` when it holds them, else
    at least double it."""
    cap = max(need, 2 * allocated) if capacity is None else capacity
    need = min(need, cap)
    return allocated if need <= allocated else max(need, min(cap, 2 * allocated))


class BlockMappingKernel:
    """What the compiled block mappings (BAST, FAST) share: a hash map from logical block to its data block's row of
    valid-page flags (the rows grow with the data blocks made), the counters, and :meth:`take`, which calls the
    mapping's own ``_write``."""

    name = ""

    def __init__(self, pages_per_block: int, state_size: int):
        self._row_of = Dict.empty(types.int64, types.int64)  # logical block -> row of _valid
        self._valid = np.zeros((INITIAL_SLOTS, pages_per_block), np.bool_)  # pages whose latest copy it holds
        self._state = np.zeros(state_size, np.int64)

    def take(self, reads: int, written: np.ndarray) -> None:
        """Count the host reads and write the pages in order."""
        self._state[HOST_READS] += reads
        rows = next_allocation(len(self._valid), int(self._state[ROWS]) + len(written))  # <= a data block a write
        self._valid = grown(self._valid, rows, False, 0)
        self._write(written)

    def _write(self, written: np.ndarray) -> None:
        raise NotImplementedError

    def counts(self) -> FlashCounts:
        """The counts so far, as :meth:`~ssdco.trace.mapping.base.Mapping.counts` gives them."""
        return flash_counts(self._state)
