"""The page-level mapping (:class:`~ssdco.trace.mapping.page.PageFtl`) compiled: a hash map from logical to
physical page, and per block its valid count, its place in a valid-count bucket (a linked list in insertion order,
so the victim is the block its class would pick) and a ring of free blocks."""

from __future__ import annotations

import math

import numba as nb
import numpy as np
from numba import types
from numba.typed import Dict

from ssdco.trace.kernels.counters import COPIES, ERASES, HOST_READS, HOST_WRITES, flash_counts, grown
from ssdco.trace.kernels.lists import bucket_append, bucket_remove
from ssdco.trace.mapping.base import FlashCounts
from ssdco.trace.mapping.page import MIN_FREE_BLOCKS, MIN_SPARE_BLOCKS

# the rest of PageKernel._state (the counters first: kernels/counters.py)
BLOCKS, ACTIVE, WP, FREE_HEAD, FREE_COUNT = range(4, 9)
# the rows of PageKernel._blocks
VALID, PREV, NEXT, RING = range(4)  # PREV, NEXT adjacent: the bucket links of lists.bucket_append


def _blocks_needed(logical_pages: int, alpha: float, ppb: int) -> int:
    return max(math.ceil(logical_pages * alpha / ppb), math.ceil(logical_pages / ppb) + MIN_SPARE_BLOCKS)


class PageKernel:
    """Page-mapped FTL with greedy GC as a mapping engine (:class:`~ssdco.trace.engines.MappingEngine`)."""

    name = "page"

    def __init__(self, pages_per_block: int, over_provisioning: float = 0.07, **_):
        if pages_per_block < 2 or not over_provisioning > 0:
            raise ValueError(f"expected pages_per_block >= 2 and over_provisioning > 0, got {pages_per_block}, "
                             f"{over_provisioning}")
        self.ppb, self.alpha = int(pages_per_block), 1.0 + float(over_provisioning)
        self._l2p = Dict.empty(types.int64, types.int64)
        self._p2l = np.zeros(0, np.int64)
        self._blocks = np.zeros((4, 0), np.int64)
        self._buckets = np.full((2, self.ppb + 1), -1, np.int64)  # head and tail of each valid-count bucket
        self._state = np.zeros(9, np.int64)
        self._state[ACTIVE], self._state[WP] = -1, self.ppb
        self._reserve(0)
        _grow(0, self.alpha, self.ppb, self._blocks, self._state)

    def _reserve(self, logical_pages: int) -> None:
        """Room for the blocks ``logical_pages`` logical pages need (the free ring kept in its order)."""
        need = _blocks_needed(logical_pages, self.alpha, self.ppb)
        capacity = self._blocks.shape[1]
        if need <= capacity:
            return
        new_capacity = max(need, 2 * capacity, 64)
        blocks = np.full((4, new_capacity), -1, np.int64)
        blocks[VALID] = 0
        blocks[:3, :capacity] = self._blocks[:3]
        head, count = int(self._state[FREE_HEAD]), int(self._state[FREE_COUNT])
        if capacity:
            blocks[RING, :count] = self._blocks[RING, (head + np.arange(count)) % capacity]
        self._state[FREE_HEAD] = 0
        self._blocks, self._p2l = blocks, grown(self._p2l, new_capacity * self.ppb, -1)

    def take(self, reads: int, written: np.ndarray) -> None:
        """Count the host reads and write the pages in order (GC after each write)."""
        self._state[HOST_READS] += reads
        self._reserve(len(self._l2p) + len(written))
        if not _write(written, self.alpha, self._l2p, self._p2l, self._blocks, self._buckets, self._state):
            raise RuntimeError("page FTL: no free block (spare space exhausted)")

    @property
    def physical_blocks(self) -> int:
        """The blocks the mapping has now."""
        return int(self._state[BLOCKS])

    def counts(self) -> FlashCounts:
        """The counts so far, as :meth:`~ssdco.trace.mapping.base.Mapping.counts` gives them (no merges)."""
        return flash_counts(self._state, merges=False)


@nb.njit(cache=True)
def _grow(logical_pages, alpha, ppb, blocks, state):
    """Add free blocks until ``logical_pages`` have their spare space (as ``PageFtl._grow``)."""
    need = max(math.ceil(logical_pages * alpha / ppb), math.ceil(logical_pages / ppb) + MIN_SPARE_BLOCKS)
    while state[BLOCKS] < need:
        _free_push(state[BLOCKS], blocks, state)
        state[BLOCKS] += 1


@nb.njit(cache=True)
def _free_push(block, blocks, state):
    capacity = blocks.shape[1]
    blocks[RING, (state[FREE_HEAD] + state[FREE_COUNT]) % capacity] = block
    state[FREE_COUNT] += 1


@nb.njit(cache=True)
def _program(lpn, l2p, p2l, blocks, buckets, state):
    """Program ``lpn`` at the write frontier (opening the next free block when it is full); False when none is
    free."""
    ppb = buckets.shape[1] - 1
    if state[WP] == ppb:
        active = state[ACTIVE]
        if active >= 0:
            bucket_append(blocks[PREV:NEXT + 1], buckets, blocks[VALID, active], active)
        if state[FREE_COUNT] == 0:
            return False
        state[ACTIVE] = blocks[RING, state[FREE_HEAD]]
        state[FREE_HEAD] = (state[FREE_HEAD] + 1) % blocks.shape[1]
        state[FREE_COUNT] -= 1
        state[WP] = 0
    ppn = state[ACTIVE] * ppb + state[WP]
    state[WP] += 1
    p2l[ppn] = lpn
    l2p[lpn] = ppn
    blocks[VALID, state[ACTIVE]] += 1
    return True


@nb.njit(cache=True)
def _collect(l2p, p2l, blocks, buckets, state):
    """Collect the closed block with the fewest valid pages: 1 done, 0 no victim, -1 no free block."""
    ppb = buckets.shape[1] - 1
    victim = -1
    for k in range(ppb):
        if buckets[0, k] >= 0:
            victim = buckets[0, k]
            bucket_remove(blocks[PREV:NEXT + 1], buckets, k, victim)
            break
    if victim < 0:
        return 0
    for ppn in range(victim * ppb, (victim + 1) * ppb):
        lpn = p2l[ppn]
        if lpn >= 0:
            p2l[ppn] = -1
            state[COPIES] += 1
            if not _program(lpn, l2p, p2l, blocks, buckets, state):
                return -1
    blocks[VALID, victim] = 0
    state[ERASES] += 1
    _free_push(victim, blocks, state)
    return 1


@nb.njit(cache=True)
def _write(lpns, alpha, l2p, p2l, blocks, buckets, state):
    """Write the pages in order, each followed by GC until two blocks are free; False when a block runs out."""
    ppb = buckets.shape[1] - 1
    for i in range(lpns.shape[0]):
        lpn = lpns[i]
        state[HOST_WRITES] += 1
        if lpn in l2p:
            old = l2p[lpn]
            block = old // ppb
            p2l[old] = -1
            valid = blocks[VALID, block]
            blocks[VALID, block] = valid - 1
            if block != state[ACTIVE]:
                bucket_remove(blocks[PREV:NEXT + 1], buckets, valid, block)
                bucket_append(blocks[PREV:NEXT + 1], buckets, valid - 1, block)
        else:
            _grow(len(l2p) + 1, alpha, ppb, blocks, state)
        if not _program(lpn, l2p, p2l, blocks, buckets, state):
            return False
        while state[FREE_COUNT] < MIN_FREE_BLOCKS:
            done = _collect(l2p, p2l, blocks, buckets, state)
            if done < 0:
                return False
            if done == 0:
                break
    return True
