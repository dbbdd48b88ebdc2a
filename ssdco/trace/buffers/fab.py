"""FAB, the flash-aware buffer: pages grouped by flash block; a full buffer evicts the block holding the most
buffered pages (the least recently used among ties), its dirty pages written back together in page order.

Reference: H. Jo, J.-U. Kang, S.-Y. Park, J.-S. Kim, J. Lee, "FAB: flash-aware buffer management policy for
portable media players", IEEE Trans. Consumer Electronics 52(2), 2006.
"""

from __future__ import annotations

from collections import OrderedDict

from ssdco.trace.buffers.base import BufferPolicy, FlashSink


class FabBuffer(BufferPolicy):
    """FAB over pages: blocks bucketed by their buffered page count, each bucket in recency order."""

    name = "fab"

    def __init__(self, capacity_pages: int, sink: FlashSink, pages_per_block: int = 64):
        super().__init__(capacity_pages, sink, pages_per_block)
        self._blocks: dict[int, dict[int, bool]] = {}  # block -> {lpn: dirty}
        # _buckets[k]: the blocks holding k buffered pages, least recently used first
        self._buckets: list[OrderedDict[int, None]] = [OrderedDict() for _ in range(self.pages_per_block + 1)]
        self._size = 0
        self._top = 0  # no bucket above it is occupied

    def access(self, lpn: int, is_write: bool) -> None:
        """Serve one page access: a hit refreshes its block; a miss in a full buffer evicts a whole block."""
        lbn = lpn // self.pages_per_block
        block = self._blocks.get(lbn)
        if block is not None and lpn in block:
            self.hits += 1
            if is_write:
                block[lpn] = True
            self._buckets[len(block)].move_to_end(lbn)
            return
        self._miss(lpn, is_write)
        if self._size >= self.capacity_pages:
            self._evict_block()
            block = self._blocks.get(lbn)
        if block is None:
            block = self._blocks[lbn] = {}
        else:
            del self._buckets[len(block)][lbn]
        block[lpn] = is_write
        self._buckets[len(block)][lbn] = None
        self._size += 1
        self._top = max(self._top, len(block))

    def _evict_block(self) -> None:
        while not self._buckets[self._top]:
            self._top -= 1
        lbn, _ = self._buckets[self._top].popitem(last=False)
        block = self._blocks.pop(lbn)
        self._size -= len(block)
        self.evictions += len(block)
        dirty = sorted(lpn for lpn, is_dirty in block.items() if is_dirty)
        if dirty:
            self._flush(dirty)

    def resident(self) -> set[int]:
        """The buffered pages."""
        return {lpn for block in self._blocks.values() for lpn in block}

    def dirty_pages(self) -> set[int]:
        """The buffered pages not yet written back."""
        return {lpn for block in self._blocks.values() for lpn, dirty in block.items() if dirty}
