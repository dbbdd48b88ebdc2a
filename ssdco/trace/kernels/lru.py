"""LRU (:class:`~ssdco.trace.buffers.lru.LruBuffer`) compiled: a hash map from page to slot and a doubly linked
recency list over the slots."""

from __future__ import annotations

import numba as nb
import numpy as np
from numba import types
from numba.typed import Dict

from ssdco.trace.kernels.counters import (
    EVICTIONS,
    FLASH_READS,
    FLUSHED,
    HITS,
    INITIAL_SLOTS,
    MISSES,
    BufferKernel,
    grown,
    next_allocation,
)

# the rest of LruKernel._state (the counters first: kernels/counters.py)
SIZE, HEAD, TAIL = range(5, 8)


class LruKernel(BufferKernel):
    """LRU over ``capacity_pages`` pages as a buffer engine (:class:`~ssdco.trace.engines.BufferEngine`)."""

    def __init__(self, capacity_pages: int, pages_per_block: int = 64):
        if capacity_pages < 2:
            raise ValueError(f"capacity_pages must be >= 2, got {capacity_pages}")
        self.capacity_pages = int(capacity_pages)
        self._slot_of = Dict.empty(types.int64, types.int64)
        slots = min(self.capacity_pages, INITIAL_SLOTS)  # grown as pages come in (_reserve)
        self._page = np.zeros(slots, np.int64)
        self._dirty = np.zeros(slots, np.bool_)
        self._prev = np.full(slots, -1, np.int64)
        self._next = np.full(slots, -1, np.int64)
        self._state = np.zeros(8, np.int64)
        self._state[HEAD] = self._state[TAIL] = -1

    def _run(self, lpns: np.ndarray, writes: np.ndarray, out: np.ndarray) -> int:
        return _feed(lpns, writes, self.capacity_pages, self._slot_of, self._page, self._dirty, self._prev,
                     self._next, self._state, out)

    def _reserve(self, accesses: int) -> None:
        slots = next_allocation(len(self._page), int(self._state[SIZE]) + accesses, self.capacity_pages)
        self._page, self._dirty = grown(self._page, slots, 0), grown(self._dirty, slots, False)
        self._prev, self._next = grown(self._prev, slots, -1), grown(self._next, slots, -1)

    def flush_all(self) -> np.ndarray:
        """Every dirty page in address order, counted as written back (the pages stay buffered)."""
        size = int(self._state[SIZE])
        pages = np.sort(self._page[:size][self._dirty[:size]])
        self._state[FLUSHED] += len(pages)
        return pages

    def resident(self) -> set[int]:
        """The buffered pages."""
        return set(self._page[: int(self._state[SIZE])].tolist())


@nb.njit(cache=True)
def _feed(lpns, writes, capacity, slot_of, page, dirty, prev, nxt, state, out):
    head, tail, size = state[HEAD], state[TAIL], state[SIZE]
    n_out = 0
    for i in range(lpns.shape[0]):
        lpn = lpns[i]
        is_write = writes[i]
        slot = slot_of[lpn] if lpn in slot_of else -1
        if slot >= 0:
            state[HITS] += 1
            if is_write:
                dirty[slot] = True
            if slot != tail:  # move to the most recent end
                before, after = prev[slot], nxt[slot]
                if before >= 0:
                    nxt[before] = after
                else:
                    head = after
                prev[after] = before
                prev[slot], nxt[slot], nxt[tail] = tail, -1, slot
                tail = slot
            continue
        state[MISSES] += 1
        if not is_write:
            state[FLASH_READS] += 1
        if size >= capacity:  # evict the least recently used page
            slot = head
            head = nxt[slot]
            if head >= 0:
                prev[head] = -1
            else:
                tail = -1
            del slot_of[page[slot]]
            state[EVICTIONS] += 1
            if dirty[slot]:
                out[n_out] = page[slot]
                n_out += 1
                state[FLUSHED] += 1
        else:
            slot = size
            size += 1
        page[slot], dirty[slot] = lpn, is_write
        prev[slot], nxt[slot] = tail, -1
        if tail >= 0:
            nxt[tail] = slot
        else:
            head = slot
        tail = slot
        slot_of[lpn] = slot
    state[HEAD], state[TAIL], state[SIZE] = head, tail, size
    return n_out
