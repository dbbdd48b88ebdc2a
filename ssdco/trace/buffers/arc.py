"""ARC, the adaptive replacement cache: T1 (pages seen once recently) and T2 (seen at least twice) hold the
buffer; the ghost lists B1 and B2 remember pages evicted from them; a hit in B1 grows the target size ``p`` of
T1, a hit in B2 shrinks it; REPLACE evicts from T1 while it is above ``p``, else from T2.

Reference: N. Megiddo, D. S. Modha, "ARC: a self-tuning, low overhead replacement cache", FAST 2003
(Fig. 4, cases I-IV).
"""

from __future__ import annotations

from collections import OrderedDict

from ssdco.trace.buffers.base import BufferPolicy, FlashSink


class ArcBuffer(BufferPolicy):
    """ARC over pages; every list is least recent first."""

    name = "arc"

    def __init__(self, capacity_pages: int, sink: FlashSink, pages_per_block: int = 64):
        super().__init__(capacity_pages, sink, pages_per_block)
        self.p = 0.0
        self.t1: OrderedDict[int, None] = OrderedDict()
        self.t2: OrderedDict[int, None] = OrderedDict()
        self.b1: OrderedDict[int, None] = OrderedDict()
        self.b2: OrderedDict[int, None] = OrderedDict()
        self._dirty: dict[int, bool] = {}

    def access(self, lpn: int, is_write: bool) -> None:
        """Serve one page access following ARC's cases I (hit), II (B1 ghost), III (B2 ghost), IV (new)."""
        if lpn in self.t1 or lpn in self.t2:
            self.hits += 1
            self._dirty[lpn] = self._dirty[lpn] or is_write
            self.t1.pop(lpn, 0)
            self.t2[lpn] = None
            self.t2.move_to_end(lpn)
            return
        self._miss(lpn, is_write)
        c = self.capacity_pages
        if lpn in self.b1:
            self.p = min(float(c), self.p + max(len(self.b2) / len(self.b1), 1.0))
            self._replace(in_b2=False)
            del self.b1[lpn]
            self.t2[lpn] = None
        elif lpn in self.b2:
            self.p = max(0.0, self.p - max(len(self.b1) / len(self.b2), 1.0))
            self._replace(in_b2=True)
            del self.b2[lpn]
            self.t2[lpn] = None
        else:
            self._make_room_for_new()
            self.t1[lpn] = None
        self._dirty[lpn] = is_write

    def _make_room_for_new(self) -> None:
        c = self.capacity_pages
        if len(self.t1) + len(self.b1) == c:
            if len(self.t1) < c:
                self.b1.popitem(last=False)
                self._replace(in_b2=False)
            else:
                victim, _ = self.t1.popitem(last=False)
                self._evicted(victim, self._dirty.pop(victim))
        elif len(self.t1) + len(self.t2) + len(self.b1) + len(self.b2) >= c:
            if len(self.t1) + len(self.t2) + len(self.b1) + len(self.b2) == 2 * c:
                self.b2.popitem(last=False)
            self._replace(in_b2=False)

    def _replace(self, in_b2: bool) -> None:
        t1 = len(self.t1)
        if t1 and (t1 > self.p or (in_b2 and t1 == self.p)):
            victim, _ = self.t1.popitem(last=False)
            self.b1[victim] = None
        else:
            victim, _ = self.t2.popitem(last=False)
            self.b2[victim] = None
        self._evicted(victim, self._dirty.pop(victim))

    def resident(self) -> set[int]:
        """The buffered pages (T1 and T2)."""
        return set(self._dirty)

    def dirty_pages(self) -> set[int]:
        """The buffered pages not yet written back."""
        return {lpn for lpn, dirty in self._dirty.items() if dirty}
