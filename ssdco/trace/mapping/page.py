"""Page-level mapping with one write frontier shared by host writes and GC copies, greedy victim selection.

The physical space follows the logical pages written so far: with ``L`` distinct logical pages there are
``max(ceil(L * (1 + over_provisioning) / Np), ceil(L / Np) + 3)`` blocks, so a trace's working set gets the
stated spare space, and at least three spare blocks (two kept free by GC, one frontier) on a small working set.
After each host write, GC collects the closed block with the fewest valid pages until two blocks are free,
copying its valid pages to the frontier and erasing it.

Reference: P. Desnoyers, "Analytic modeling of SSD write performance", SYSTOR 2012 (the greedy page-mapped
FTL that :func:`ssdco.ftl.waf.waf_greedy` models).
"""

from __future__ import annotations

import math
from collections import deque

from ssdco.trace.mapping.base import Mapping

MIN_FREE_BLOCKS = 2
MIN_SPARE_BLOCKS = MIN_FREE_BLOCKS + 1  # the free blocks GC keeps and the frontier


class PageFtl(Mapping):
    """Page-mapped FTL; valid-count buckets make each victim choice O(pages per block)."""

    name = "page"

    def __init__(self, pages_per_block: int, over_provisioning: float = 0.07, logical_pages: int = 0, **_):
        super().__init__(pages_per_block)
        if not over_provisioning > 0:
            raise ValueError(f"over_provisioning must be > 0, got {over_provisioning}")
        self.alpha = 1.0 + float(over_provisioning)
        self._l2p: dict[int, int] = {}
        self._p2l: list[int] = []
        self._valid: list[int] = []
        self._free: deque[int] = deque()
        self._buckets: list[dict[int, None]] = [{} for _ in range(self.pages_per_block + 1)]  # closed blocks
        self._active = -1
        self._wp = self.pages_per_block
        self._grow(logical_pages)

    @property
    def physical_blocks(self) -> int:
        """The blocks the mapping has now."""
        return len(self._valid)

    def _grow(self, logical_pages: int) -> None:
        need = max(math.ceil(logical_pages * self.alpha / self.pages_per_block),
                   math.ceil(logical_pages / self.pages_per_block) + MIN_SPARE_BLOCKS)
        while len(self._valid) < need:
            self._free.append(len(self._valid))
            self._valid.append(0)
            self._p2l.extend([-1] * self.pages_per_block)

    def _write_page(self, lpn: int) -> None:
        old = self._l2p.get(lpn)
        if old is None:
            self._grow(len(self._l2p) + 1)
        else:
            self._invalidate(old)
        self._program(lpn)
        while len(self._free) < MIN_FREE_BLOCKS and self._collect():
            pass

    def _invalidate(self, ppn: int) -> None:
        block = ppn // self.pages_per_block
        self._p2l[ppn] = -1
        valid = self._valid[block]
        self._valid[block] = valid - 1
        if block != self._active:
            del self._buckets[valid][block]
            self._buckets[valid - 1][block] = None

    def _program(self, lpn: int) -> None:
        if self._wp == self.pages_per_block:
            self._open()
        ppn = self._active * self.pages_per_block + self._wp
        self._wp += 1
        self._p2l[ppn] = lpn
        self._l2p[lpn] = ppn
        self._valid[self._active] += 1

    def _open(self) -> None:
        if self._active >= 0:
            self._buckets[self._valid[self._active]][self._active] = None
        if not self._free:
            raise RuntimeError("page FTL: no free block (spare space exhausted)")
        self._active = self._free.popleft()
        self._wp = 0

    def _collect(self) -> bool:
        for valid in range(self.pages_per_block):
            if self._buckets[valid]:
                victim = next(iter(self._buckets[valid]))
                del self._buckets[valid][victim]
                break
        else:
            return False
        first = victim * self.pages_per_block
        for ppn in range(first, first + self.pages_per_block):
            lpn = self._p2l[ppn]
            if lpn >= 0:
                self._p2l[ppn] = -1
                self.copies += 1
                self._program(lpn)
        self._valid[victim] = 0
        self.erases += 1
        self._free.append(victim)
        return True
