"""Least-recently-used page buffer: a hit moves the page to the most recent end; a miss in a full buffer evicts
the least recently used page (a dirty one is written back alone)."""

from __future__ import annotations

from collections import OrderedDict

from ssdco.trace.buffers.base import BufferPolicy, FlashSink


class LruBuffer(BufferPolicy):
    """LRU over pages; dirty flags kept per page."""

    name = "lru"

    def __init__(self, capacity_pages: int, sink: FlashSink, pages_per_block: int = 64):
        super().__init__(capacity_pages, sink, pages_per_block)
        self._pages: OrderedDict[int, bool] = OrderedDict()  # lpn -> dirty, least recent first

    def access(self, lpn: int, is_write: bool) -> None:
        """Serve one page access: a hit refreshes the page, a miss may evict the least recently used page."""
        pages = self._pages
        if lpn in pages:
            self.hits += 1
            pages.move_to_end(lpn)
            if is_write:
                pages[lpn] = True
            return
        self._miss(lpn, is_write)
        if len(pages) >= self.capacity_pages:
            victim, dirty = pages.popitem(last=False)
            self._evicted(victim, dirty)
        pages[lpn] = is_write

    def resident(self) -> set[int]:
        """The buffered pages."""
        return set(self._pages)

    def dirty_pages(self) -> set[int]:
        """The buffered pages not yet written back."""
        return {lpn for lpn, dirty in self._pages.items() if dirty}
