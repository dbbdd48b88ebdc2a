"""Ordered sets of nodes for the compiled buffers: each list a doubly linked list over a node pool, in insertion
order (what ``OrderedDict`` gives the Python classes), with a hash map from page to node and a stack of free nodes.

``links[list, 0, node]`` is the previous node, ``links[list, 1, node]`` the next (-1 at an end, -2 when the node is
not in the list); ``ends[list]`` holds the front, the back and the length.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from numba import types
from numba.typed import Dict

from ssdco.trace.kernels.counters import INITIAL_SLOTS, grown, next_allocation

OUT = -2  # a node's link when it is not in the list
FRONT, BACK, LENGTH = range(3)


class NodePool:
    """``lists`` ordered sets over at most ``capacity`` nodes, each node a page (``page``) with a free-node stack;
    the arrays grow with the nodes in use (:meth:`reserve`), not to ``capacity`` at once."""

    def __init__(self, lists: int, capacity: int):
        self.capacity = int(capacity)
        self.node_of = Dict.empty(types.int64, types.int64)
        self.page = np.full(0, -1, np.int64)
        self.links = np.full((lists, 2, 0), OUT, np.int64)
        self.ends = np.zeros((lists, 3), np.int64)
        self.ends[:, FRONT] = self.ends[:, BACK] = -1
        self.free = np.zeros(0, np.int64)  # free nodes, popped from the end
        self.free_count = np.array([0], np.int64)
        self.reserve(min(self.capacity, INITIAL_SLOTS))

    @property
    def allocated(self) -> int:
        """The nodes the arrays hold now."""
        return len(self.page)

    def reserve(self, more: int) -> int:
        """Room for ``more`` nodes beyond those in use (up to the capacity): new nodes on the free stack. Returns
        the nodes allocated, so that the owner can grow its own per-node arrays to match."""
        old = self.allocated
        nodes = next_allocation(old, old - int(self.free_count[0]) + more, self.capacity)
        if nodes > old:
            self.page, self.links = grown(self.page, nodes, -1), grown(self.links, nodes, OUT)
            free = int(self.free_count[0])
            self.free = grown(self.free, nodes, 0)
            self.free[free:free + nodes - old] = np.arange(nodes - 1, old - 1, -1)
            self.free_count[0] = free + nodes - old
        return nodes

    def members(self, which: int) -> list[int]:
        """The pages of list ``which``, front first."""
        out, node = [], int(self.ends[which, FRONT])
        while node >= 0:
            out.append(int(self.page[node]))
            node = int(self.links[which, 1, node])
        return out


@nb.njit(cache=True, inline="always")
def member(links, which, node):
    """Whether ``node`` is in list ``which``."""
    return links[which, 0, node] != OUT


@nb.njit(cache=True)
def push_back(links, ends, which, node):
    """Put ``node`` (not in the list) at the back of list ``which``."""
    back = ends[which, BACK]
    links[which, 0, node], links[which, 1, node] = back, -1
    if back >= 0:
        links[which, 1, back] = node
    else:
        ends[which, FRONT] = node
    ends[which, BACK] = node
    ends[which, LENGTH] += 1


@nb.njit(cache=True)
def remove(links, ends, which, node):
    """Take ``node`` out of list ``which`` (nothing when it is not in it)."""
    before, after = links[which, 0, node], links[which, 1, node]
    if before == OUT:
        return
    if before >= 0:
        links[which, 1, before] = after
    else:
        ends[which, FRONT] = after
    if after >= 0:
        links[which, 0, after] = before
    else:
        ends[which, BACK] = before
    links[which, 0, node] = links[which, 1, node] = OUT
    ends[which, LENGTH] -= 1


@nb.njit(cache=True)
def move_to_back(links, ends, which, node):
    """``node`` to the back of list ``which`` (added when it is not in it)."""
    remove(links, ends, which, node)
    push_back(links, ends, which, node)


@nb.njit(cache=True)
def pop_front(links, ends, which):
    """Take the front node out of list ``which`` and return it."""
    node = ends[which, FRONT]
    remove(links, ends, which, node)
    return node


@nb.njit(cache=True)
def new_node(node_of, page, free, free_count, lpn):
    """A free node for page ``lpn``, entered in the page map."""
    free_count[0] -= 1
    node = free[free_count[0]]
    page[node] = lpn
    node_of[lpn] = node
    return node


@nb.njit(cache=True)
def drop_node(node_of, page, free, free_count, node):
    """Return ``node`` (in no list) to the free stack and forget its page."""
    del node_of[page[node]]
    page[node] = -1
    free[free_count[0]] = node
    free_count[0] += 1


@nb.njit(cache=True)
def bucket_append(links, buckets, k, node):
    """Put ``node`` at the back of bucket ``k``, where each node is in one bucket at most: ``links[0]`` and
    ``links[1]`` hold each node's previous and next node in its bucket, ``buckets[0, k]`` and ``buckets[1, k]``
    the bucket's front and back (-1: none)."""
    back = buckets[1, k]
    links[0, node], links[1, node] = back, -1
    if back >= 0:
        links[1, back] = node
    else:
        buckets[0, k] = node
    buckets[1, k] = node


@nb.njit(cache=True)
def bucket_remove(links, buckets, k, node):
    """Take ``node`` out of bucket ``k`` (laid out as for :func:`bucket_append`)."""
    before, after = links[0, node], links[1, node]
    if before >= 0:
        links[1, before] = after
    else:
        buckets[0, k] = after
    if after >= 0:
        links[0, after] = before
    else:
        buckets[1, k] = before
