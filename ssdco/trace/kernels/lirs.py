"""LIRS (:class:`~ssdco.trace.buffers.lirs.LirsBuffer`) compiled: the stack S, the queue Q of resident HIR pages
and S's non-resident HIR entries (oldest first) as ordered sets over one node pool; a page's node lives while the
page is resident or in S."""

from __future__ import annotations

import numba as nb
import numpy as np

from ssdco.trace.buffers.lirs import HIR_FRACTION, NONRESIDENT_FACTOR
from ssdco.trace.kernels.counters import EVICTIONS, FLASH_READS, FLUSHED, HITS, MISSES, BufferKernel, grown
from ssdco.trace.kernels.lists import (
    FRONT,
    LENGTH,
    NodePool,
    drop_node,
    member,
    move_to_back,
    new_node,
    pop_front,
    push_back,
    remove,
)

S, Q, NR = range(3)
# the rest of LirsKernel._state (the counters first: kernels/counters.py)
RESIDENT, LIR = range(5, 7)
# the flags in LirsKernel._flags
IS_LIR, IS_RESIDENT, IS_DIRTY = range(3)


class LirsKernel(BufferKernel):
    """LIRS over ``capacity_pages`` pages, with the class's default HIR share and bound on non-resident entries, as
    a buffer engine (:class:`~ssdco.trace.engines.BufferEngine`)."""

    def __init__(self, capacity_pages: int, pages_per_block: int = 64):
        if capacity_pages < 2:
            raise ValueError(f"capacity_pages must be >= 2, got {capacity_pages}")
        self.capacity_pages = int(capacity_pages)
        hir = max(1, round(HIR_FRACTION * self.capacity_pages))
        self.lir_pages = self.capacity_pages - hir
        self.max_nonresident = NONRESIDENT_FACTOR * self.capacity_pages
        nodes = self.capacity_pages + self.max_nonresident + 2  # resident, S's non-resident, one over, one coming
        self._pool = NodePool(3, nodes)
        self._flags = np.zeros((3, self._pool.allocated), np.bool_)
        self._state = np.zeros(7, np.int64)

    def _reserve(self, accesses: int) -> None:
        self._flags = grown(self._flags, self._pool.reserve(accesses + 1), False)  # <= one node an access

    def _run(self, lpns: np.ndarray, writes: np.ndarray, out: np.ndarray) -> int:
        pool = self._pool
        limits = np.array([self.capacity_pages, self.lir_pages, self.max_nonresident], np.int64)
        return _feed(lpns, writes, limits, pool.node_of, pool.page, pool.links, pool.ends, pool.free,
                     pool.free_count, self._flags, self._state, out)

    def resident(self) -> set[int]:
        """The buffered pages (LIR and resident HIR)."""
        pool = self._pool
        return {int(pool.page[node]) for node in np.flatnonzero(self._flags[IS_RESIDENT])}

    def stack(self) -> list[int]:
        """The stack S, bottom first."""
        return self._pool.members(S)

    def queue(self) -> list[int]:
        """The queue Q of resident HIR pages, front (next victim) first."""
        return self._pool.members(Q)

    def flush_all(self) -> np.ndarray:
        """Every dirty page in address order, counted as written back (the pages stay buffered)."""
        pool = self._pool
        nodes = np.flatnonzero(self._flags[IS_RESIDENT] & self._flags[IS_DIRTY])
        pages = np.sort(pool.page[nodes])
        self._state[FLUSHED] += len(pages)
        return pages


@nb.njit(cache=True)
def _release(node, node_of, page, links, free, free_count, flags):
    """Free ``node`` when its page is neither resident nor in S or Q."""
    if not flags[IS_RESIDENT, node] and not member(links, S, node) and not member(links, Q, node):
        flags[:, node] = False
        drop_node(node_of, page, free, free_count, node)


@nb.njit(cache=True)
def _prune(node_of, page, links, ends, free, free_count, flags):
    """Remove HIR entries from the bottom of S until an LIR page is there."""
    while ends[S, LENGTH] > 0:
        bottom = ends[S, FRONT]
        if flags[IS_LIR, bottom]:
            return
        remove(links, ends, S, bottom)
        remove(links, ends, NR, bottom)
        _release(bottom, node_of, page, links, free, free_count, flags)


@nb.njit(cache=True)
def _demote_bottom(node_of, page, links, ends, free, free_count, flags, state):
    """S's bottom LIR page becomes a resident HIR page at the end of Q; then prune S."""
    bottom = pop_front(links, ends, S)
    flags[IS_LIR, bottom] = False
    state[LIR] -= 1
    push_back(links, ends, Q, bottom)
    _prune(node_of, page, links, ends, free, free_count, flags)


@nb.njit(cache=True)
def _make_lir(node, node_of, page, links, ends, free, free_count, flags, state):
    """``node``, an HIR page in S, moves to S's top as LIR; S's bottom LIR page is demoted."""
    move_to_back(links, ends, S, node)
    flags[IS_LIR, node] = True
    state[LIR] += 1
    _demote_bottom(node_of, page, links, ends, free, free_count, flags, state)


@nb.njit(cache=True)
def _evict_front(limits, node_of, page, links, ends, free, free_count, flags, state, out, n_out):
    """Evict Q's front page; it stays in S (counted among the non-resident entries, the oldest beyond the bound
    leaving S) or is forgotten."""
    victim = pop_front(links, ends, Q)
    flags[IS_RESIDENT, victim] = False
    state[RESIDENT] -= 1
    state[EVICTIONS] += 1
    if flags[IS_DIRTY, victim]:
        out[n_out] = page[victim]
        n_out += 1
        state[FLUSHED] += 1
    flags[IS_DIRTY, victim] = False
    if member(links, S, victim):
        push_back(links, ends, NR, victim)
        while ends[NR, LENGTH] > limits[2]:
            oldest = pop_front(links, ends, NR)
            remove(links, ends, S, oldest)
            _release(oldest, node_of, page, links, free, free_count, flags)
    else:
        _release(victim, node_of, page, links, free, free_count, flags)
    return n_out


@nb.njit(cache=True)
def _load(lpn, is_write, limits, node_of, page, links, ends, free, free_count, flags, state, out, n_out):
    """A miss: the page comes in as LIR while LIR has room, else as resident HIR (LIR when S remembers it)."""
    if state[LIR] < limits[1]:
        node = new_node(node_of, page, free, free_count, lpn)
        flags[IS_LIR, node] = True
        state[LIR] += 1
        push_back(links, ends, S, node)
    else:
        if state[RESIDENT] >= limits[0]:
            n_out = _evict_front(limits, node_of, page, links, ends, free, free_count, flags, state, out, n_out)
        node = node_of[lpn] if lpn in node_of else -1  # the eviction may have made S forget it
        if node >= 0:  # a non-resident HIR page in S
            remove(links, ends, NR, node)
            _make_lir(node, node_of, page, links, ends, free, free_count, flags, state)
        else:
            node = new_node(node_of, page, free, free_count, lpn)
            push_back(links, ends, S, node)
            push_back(links, ends, Q, node)
    flags[IS_RESIDENT, node], flags[IS_DIRTY, node] = True, is_write
    state[RESIDENT] += 1
    return n_out


@nb.njit(cache=True)
def _feed(lpns, writes, limits, node_of, page, links, ends, free, free_count, flags, state, out):
    n_out = 0
    for i in range(lpns.shape[0]):
        lpn, is_write = lpns[i], writes[i]
        node = node_of[lpn] if lpn in node_of else -1
        if node >= 0 and flags[IS_RESIDENT, node]:
            state[HITS] += 1
            flags[IS_DIRTY, node] = flags[IS_DIRTY, node] or is_write
            if flags[IS_LIR, node]:
                at_bottom = ends[S, FRONT] == node
                move_to_back(links, ends, S, node)
                if at_bottom:
                    _prune(node_of, page, links, ends, free, free_count, flags)
            elif member(links, S, node):  # its new recency beats the bottom LIR page's
                remove(links, ends, Q, node)
                _make_lir(node, node_of, page, links, ends, free, free_count, flags, state)
            else:
                push_back(links, ends, S, node)
                move_to_back(links, ends, Q, node)
            continue
        state[MISSES] += 1
        if not is_write:
            state[FLASH_READS] += 1
        n_out = _load(lpn, is_write, limits, node_of, page, links, ends, free, free_count, flags, state, out, n_out)
    return n_out
