"""FAB (:class:`~ssdco.trace.buffers.fab.FabBuffer`) compiled: a hash map from flash block to a slot holding its
buffered pages, and per page count a bucket of slots in recency order (a linked list), so a full buffer evicts the
least recently used of the blocks with the most pages, as the class does."""

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
from ssdco.trace.kernels.lists import bucket_append, bucket_remove

# the rest of FabKernel._state (the counters first: kernels/counters.py)
SIZE, TOP, FREE = range(5, 8)
# the rows of FabKernel._slots
LBN, COUNT, PREV, NEXT, STACK = range(5)  # PREV, NEXT adjacent: the bucket links of lists.bucket_append


class FabKernel(BufferKernel):
    """FAB over ``capacity_pages`` pages as a buffer engine (:class:`~ssdco.trace.engines.BufferEngine`)."""

    def __init__(self, capacity_pages: int, pages_per_block: int = 64):
        if capacity_pages < 2:
            raise ValueError(f"capacity_pages must be >= 2, got {capacity_pages}")
        self.capacity_pages = int(capacity_pages)
        self._slot_of = Dict.empty(types.int64, types.int64)
        # a block holds >= 1 page: <= capacity blocks; the slots grow with the pages held (_reserve)
        self._slots = np.full((5, 0), -1, np.int64)  # its STACK row: the free slots, popped from the end
        self._present = np.zeros((0, pages_per_block), np.bool_)
        self._dirty = np.zeros((0, pages_per_block), np.bool_)
        self._buckets = np.full((2, pages_per_block + 1), -1, np.int64)  # head and tail of each count's bucket
        self._state = np.zeros(8, np.int64)
        self._reserve(min(self.capacity_pages, INITIAL_SLOTS))

    def _reserve(self, accesses: int) -> None:
        """Room for the blocks of the pages held and ``accesses`` more: new slots on the free stack."""
        old = self._slots.shape[1]
        slots = next_allocation(old, int(self._state[SIZE]) + accesses, self.capacity_pages)
        if slots == old:
            return
        self._slots = grown(self._slots, slots, -1)
        free = int(self._state[FREE])
        self._slots[STACK, free:free + slots - old] = np.arange(slots - 1, old - 1, -1)
        self._state[FREE] = free + slots - old
        self._present, self._dirty = grown(self._present, slots, False, 0), grown(self._dirty, slots, False, 0)

    def _most_written(self, accesses: int) -> int:
        return int(self._state[SIZE]) + accesses  # whole blocks leave: the pages held and those coming

    def _run(self, lpns: np.ndarray, writes: np.ndarray, out: np.ndarray) -> int:
        return _feed(lpns, writes, self.capacity_pages, self._slot_of, self._slots, self._present, self._dirty,
                     self._buckets, self._state, out)

    def _held(self, dirty_only: bool) -> np.ndarray:
        slots = np.array(list(self._slot_of.values()), dtype=np.int64)
        lbns = np.array(list(self._slot_of.keys()), dtype=np.int64)
        held = (self._dirty if dirty_only else self._present)[slots]
        rows, offsets = np.nonzero(held)
        return np.sort(lbns[rows] * self._present.shape[1] + offsets)

    def flush_all(self) -> np.ndarray:
        """Every dirty page in address order, counted as written back (the pages stay buffered)."""
        pages = self._held(dirty_only=True) if len(self._slot_of) else np.zeros(0, np.int64)
        self._state[FLUSHED] += len(pages)
        return pages

    def resident(self) -> set[int]:
        """The buffered pages."""
        return set(self._held(dirty_only=False).tolist()) if len(self._slot_of) else set()


@nb.njit(cache=True)
def _evict_block(slot_of, slots, present, dirty, buckets, state, out, n_out):
    """Evict the least recently used block among those with the most pages; its dirty pages go to ``out``."""
    ppb = present.shape[1]
    while buckets[0, state[TOP]] < 0:
        state[TOP] -= 1
    slot = buckets[0, state[TOP]]
    bucket_remove(slots[PREV:NEXT + 1], buckets, state[TOP], slot)
    lbn = slots[LBN, slot]
    del slot_of[lbn]
    state[SIZE] -= slots[COUNT, slot]
    state[EVICTIONS] += slots[COUNT, slot]
    for offset in range(ppb):
        if present[slot, offset] and dirty[slot, offset]:
            out[n_out] = lbn * ppb + offset
            n_out += 1
            state[FLUSHED] += 1
        present[slot, offset] = False
        dirty[slot, offset] = False
    slots[STACK, state[FREE]] = slot
    state[FREE] += 1
    return n_out


@nb.njit(cache=True)
def _feed(lpns, writes, capacity, slot_of, slots, present, dirty, buckets, state, out):
    ppb = present.shape[1]
    n_out = 0
    for i in range(lpns.shape[0]):
        lpn, is_write = lpns[i], writes[i]
        lbn, offset = lpn // ppb, lpn % ppb
        slot = slot_of[lbn] if lbn in slot_of else -1
        if slot >= 0 and present[slot, offset]:
            state[HITS] += 1
            if is_write:
                dirty[slot, offset] = True
            bucket_remove(slots[PREV:NEXT + 1], buckets, slots[COUNT, slot], slot)
            bucket_append(slots[PREV:NEXT + 1], buckets, slots[COUNT, slot], slot)
            continue
        state[MISSES] += 1
        if not is_write:
            state[FLASH_READS] += 1
        if state[SIZE] >= capacity:
            n_out = _evict_block(slot_of, slots, present, dirty, buckets, state, out, n_out)
            slot = slot_of[lbn] if lbn in slot_of else -1
        if slot < 0:
            state[FREE] -= 1
            slot = slots[STACK, state[FREE]]
            slot_of[lbn] = slot
            slots[LBN, slot], slots[COUNT, slot] = lbn, 0
        else:
            bucket_remove(slots[PREV:NEXT + 1], buckets, slots[COUNT, slot], slot)
        present[slot, offset], dirty[slot, offset] = True, is_write
        slots[COUNT, slot] += 1
        bucket_append(slots[PREV:NEXT + 1], buckets, slots[COUNT, slot], slot)
        state[SIZE] += 1
        state[TOP] = max(state[TOP], slots[COUNT, slot])
    return n_out
