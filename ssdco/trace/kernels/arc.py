"""ARC (:class:`~ssdco.trace.buffers.arc.ArcBuffer`) compiled: T1, T2 and the ghost lists B1, B2 as ordered sets
over one node pool (a page is in at most one of them), and the target size ``p`` of T1."""

from __future__ import annotations

import numba as nb
import numpy as np

from ssdco.trace.kernels.counters import EVICTIONS, FLASH_READS, FLUSHED, HITS, MISSES, BufferKernel, grown
from ssdco.trace.kernels.lists import (
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

T1, T2, B1, B2 = range(4)


class ArcKernel(BufferKernel):
    """ARC over ``capacity_pages`` pages as a buffer engine (:class:`~ssdco.trace.engines.BufferEngine`)."""

    def __init__(self, capacity_pages: int, pages_per_block: int = 64):
        if capacity_pages < 2:
            raise ValueError(f"capacity_pages must be >= 2, got {capacity_pages}")
        self.capacity_pages = int(capacity_pages)
        self._pool = NodePool(4, 2 * capacity_pages + 1)  # |T1| + |T2| + |B1| + |B2| <= 2c, and the page coming in
        self._dirty = np.zeros(self._pool.allocated, np.bool_)
        self._p = np.zeros(1, np.float64)
        self._state = np.zeros(5, np.int64)

    p = property(lambda self: float(self._p[0]), doc="The target size of T1 (pages).")

    def _reserve(self, accesses: int) -> None:
        self._dirty = grown(self._dirty, self._pool.reserve(accesses + 1), False)  # <= one node an access

    def _run(self, lpns: np.ndarray, writes: np.ndarray, out: np.ndarray) -> int:
        pool = self._pool
        return _feed(lpns, writes, self.capacity_pages, pool.node_of, pool.page, pool.links, pool.ends, pool.free,
                     pool.free_count, self._dirty, self._p, self._state, out)

    def resident(self) -> set[int]:
        """The buffered pages (T1 and T2)."""
        return set(self._pool.members(T1)) | set(self._pool.members(T2))

    def flush_all(self) -> np.ndarray:
        """Every dirty page in address order, counted as written back (the pages stay buffered)."""
        pool = self._pool
        pages = sorted(page for page in self.resident() if self._dirty[pool.node_of[page]])
        self._state[FLUSHED] += len(pages)
        return np.array(pages, dtype=np.int64)


@nb.njit(cache=True)
def _replace(in_b2, p, page, links, ends, dirty, state, out, n_out):
    """REPLACE: the LRU page of T1 (to B1) while T1 is above ``p``, else of T2 (to B2)."""
    t1 = ends[T1, LENGTH]
    if t1 > 0 and (t1 > p[0] or (in_b2 and t1 == p[0])):
        victim = pop_front(links, ends, T1)
        push_back(links, ends, B1, victim)
    else:
        victim = pop_front(links, ends, T2)
        push_back(links, ends, B2, victim)
    state[EVICTIONS] += 1
    if dirty[victim]:
        out[n_out] = page[victim]
        state[FLUSHED] += 1
        return n_out + 1
    return n_out


@nb.njit(cache=True)
def _make_room_for_new(c, p, node_of, page, links, ends, free, free_count, dirty, state, out, n_out):
    """Case IV's room: trim B1 or T1 when T1 + B1 holds c pages, else B2 when the directory holds 2c."""
    t1, b1 = ends[T1, LENGTH], ends[B1, LENGTH]
    total = t1 + ends[T2, LENGTH] + b1 + ends[B2, LENGTH]
    if t1 + b1 == c:
        if t1 < c:
            drop_node(node_of, page, free, free_count, pop_front(links, ends, B1))
            return _replace(False, p, page, links, ends, dirty, state, out, n_out)
        victim = pop_front(links, ends, T1)
        state[EVICTIONS] += 1
        if dirty[victim]:
            out[n_out] = page[victim]
            state[FLUSHED] += 1
            n_out += 1
        drop_node(node_of, page, free, free_count, victim)
        return n_out
    if total >= c:
        if total == 2 * c:
            drop_node(node_of, page, free, free_count, pop_front(links, ends, B2))
        return _replace(False, p, page, links, ends, dirty, state, out, n_out)
    return n_out


@nb.njit(cache=True)
def _feed(lpns, writes, c, node_of, page, links, ends, free, free_count, dirty, p, state, out):
    n_out = 0
    for i in range(lpns.shape[0]):
        lpn, is_write = lpns[i], writes[i]
        node = node_of[lpn] if lpn in node_of else -1
        if node >= 0 and (member(links, T1, node) or member(links, T2, node)):  # case I
            state[HITS] += 1
            dirty[node] = dirty[node] or is_write
            remove(links, ends, T1, node)
            move_to_back(links, ends, T2, node)
            continue
        state[MISSES] += 1
        if not is_write:
            state[FLASH_READS] += 1
        if node >= 0 and member(links, B1, node):  # case II
            p[0] = min(float(c), p[0] + max(ends[B2, LENGTH] / ends[B1, LENGTH], 1.0))
            n_out = _replace(False, p, page, links, ends, dirty, state, out, n_out)
            remove(links, ends, B1, node)
            push_back(links, ends, T2, node)
        elif node >= 0:  # case III: in B2
            p[0] = max(0.0, p[0] - max(ends[B1, LENGTH] / ends[B2, LENGTH], 1.0))
            n_out = _replace(True, p, page, links, ends, dirty, state, out, n_out)
            remove(links, ends, B2, node)
            push_back(links, ends, T2, node)
        else:  # case IV
            n_out = _make_room_for_new(c, p, node_of, page, links, ends, free, free_count, dirty, state, out, n_out)
            node = new_node(node_of, page, free, free_count, lpn)
            push_back(links, ends, T1, node)
        dirty[node] = is_write
    return n_out
