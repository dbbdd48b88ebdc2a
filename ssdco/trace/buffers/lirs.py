"""LIRS, the low inter-reference recency set replacement.

Pages are LIR (low inter-reference recency, always resident) or HIR. The stack S holds the LIR pages and
recently seen HIR pages (resident or not) in recency order, its bottom always LIR (stack pruning removes HIR
entries from the bottom); the queue Q holds the resident HIR pages, of which a full buffer evicts the front.
``hir_pages`` resident pages are kept for HIR (1 % of the buffer by default, at least 1); the rest for LIR.
S keeps at most ``max_nonresident`` non-resident HIR entries (the buffer's size by default): beyond it the least
recently seen one leaves S, so that memory is bounded by the buffer, not by the pages a trace touches (the bound
the LIRS paper leaves open; a page so forgotten is treated as never seen). With ``max_nonresident`` past the
trace's length it gives the same misses and evicts the same pages, in the same order, as the authors' simulator
(lirs.c; tests/trace/test_lirs_reference.py); the default bound moves the misses on those traces by under 1 %.

Reference: S. Jiang, X. Zhang, "LIRS: an efficient low inter-reference recency set replacement policy to
improve buffer cache performance", SIGMETRICS 2002.
"""

from __future__ import annotations

from collections import OrderedDict

from ssdco.trace.buffers.base import BufferPolicy, FlashSink

HIR_FRACTION = 0.01
NONRESIDENT_FACTOR = 1  # non-resident HIR entries kept in S, per page of buffer


class LirsBuffer(BufferPolicy):
    """LIRS over pages. Non-resident HIR entries stay in S until pruning removes them or, beyond
    ``max_nonresident`` of them, the least recently seen leaves."""

    name = "lirs"

    def __init__(self, capacity_pages: int, sink: FlashSink, pages_per_block: int = 64,
                 hir_pages: int | None = None, max_nonresident: int | None = None):
        super().__init__(capacity_pages, sink, pages_per_block)
        hir = max(1, round(HIR_FRACTION * self.capacity_pages)) if hir_pages is None else int(hir_pages)
        if not 1 <= hir < self.capacity_pages:
            raise ValueError(f"hir_pages must be in [1, {self.capacity_pages - 1}], got {hir}")
        self.hir_pages = hir
        self.max_nonresident = (NONRESIDENT_FACTOR * self.capacity_pages if max_nonresident is None
                                else int(max_nonresident))
        if self.max_nonresident < 1:
            raise ValueError(f"max_nonresident must be >= 1, got {self.max_nonresident}")
        self.lir_pages = self.capacity_pages - hir
        self._stack: OrderedDict[int, None] = OrderedDict()  # bottom first, top last
        self._queue: OrderedDict[int, None] = OrderedDict()  # resident HIR, front first
        self._lir: set[int] = set()
        self._dirty: dict[int, bool] = {}  # every resident page -> dirty
        self._nonresident: OrderedDict[int, None] = OrderedDict()  # S's non-resident HIR entries, oldest first

    def access(self, lpn: int, is_write: bool) -> None:
        """Serve one page access following LIRS's three cases (LIR hit, resident HIR hit, miss)."""
        if lpn in self._lir:
            self.hits += 1
            self._dirty[lpn] = self._dirty[lpn] or is_write
            at_bottom = next(iter(self._stack)) == lpn
            self._stack.move_to_end(lpn)
            if at_bottom:
                self._prune()
        elif lpn in self._queue:
            self.hits += 1
            self._dirty[lpn] = self._dirty[lpn] or is_write
            self._touch_hir(lpn)
        else:
            self._miss(lpn, is_write)
            self._load(lpn, is_write)

    def _touch_hir(self, lpn: int) -> None:
        if lpn in self._stack:  # its new inter-reference recency beats the bottom LIR page's recency
            self._stack.move_to_end(lpn)
            del self._queue[lpn]
            self._lir.add(lpn)
            self._demote_bottom()
        else:
            self._stack[lpn] = None
            self._queue.move_to_end(lpn)

    def _load(self, lpn: int, is_write: bool) -> None:
        if len(self._lir) < self.lir_pages:  # filling: the first pages become LIR
            self._lir.add(lpn)
            self._stack[lpn] = None
            self._dirty[lpn] = is_write
            return
        if len(self._dirty) >= self.capacity_pages:
            victim, _ = self._queue.popitem(last=False)
            self._evicted(victim, self._dirty.pop(victim))  # it stays in S (if there) as non-resident HIR
            if victim in self._stack:
                self._forget_beyond_bound(victim)
        self._dirty[lpn] = is_write
        if lpn in self._stack:  # a non-resident HIR page seen recently: it becomes LIR
            self._nonresident.pop(lpn, None)
            self._stack.move_to_end(lpn)
            self._lir.add(lpn)
            self._demote_bottom()
        else:
            self._stack[lpn] = None
            self._queue[lpn] = None

    def _forget_beyond_bound(self, victim: int) -> None:
        """Count ``victim`` among S's non-resident entries; beyond ``max_nonresident`` the oldest leaves S (never
        S's bottom, which is LIR)."""
        self._nonresident[victim] = None
        while len(self._nonresident) > self.max_nonresident:
            oldest, _ = self._nonresident.popitem(last=False)
            del self._stack[oldest]

    def _demote_bottom(self) -> None:
        bottom, _ = self._stack.popitem(last=False)
        self._lir.discard(bottom)
        self._queue[bottom] = None
        self._prune()

    def _prune(self) -> None:
        stack = self._stack
        while stack:
            bottom = next(iter(stack))
            if bottom in self._lir:
                return
            del stack[bottom]
            self._nonresident.pop(bottom, None)

    def resident(self) -> set[int]:
        """The buffered pages (LIR and resident HIR)."""
        return set(self._dirty)

    def lir(self) -> set[int]:
        """The LIR pages."""
        return set(self._lir)

    def stack(self) -> list[int]:
        """The stack S, bottom first."""
        return list(self._stack)

    def queue(self) -> list[int]:
        """The queue Q of resident HIR pages, front (next victim) first."""
        return list(self._queue)

    def dirty_pages(self) -> set[int]:
        """The buffered pages not yet written back."""
        return {lpn for lpn, dirty in self._dirty.items() if dirty}
