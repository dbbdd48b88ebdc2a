"""What every buffer policy shares: the page counters and the flash traffic it sends to its sink.

A buffer of ``capacity_pages`` pages holds read and written pages. A hit costs no flash operation; a read miss
reads the page from flash (``sink.read``); a write miss takes a buffer page without reading (a request covers
whole pages); evicting a dirty page writes it (``sink.write``, a list of pages written together). Pages left
dirty at the end of the trace stay unflushed unless :meth:`BufferPolicy.flush_all` writes them (a shutdown's
flush: ``ssdco trace --flush-at-end``).
"""

from __future__ import annotations

from typing import Protocol


class FlashSink(Protocol):
    """Where a buffer sends its flash traffic: a page read, and a group of page writes flushed together."""

    def read(self, lpn: int) -> None: ...

    def write(self, lpns: list[int]) -> None: ...


class BufferPolicy:
    """Base of the policies: ``access(lpn, is_write)`` per page; counts hits, misses, evictions, flash reads and
    flushed (written-back) pages."""

    name = ""

    def __init__(self, capacity_pages: int, sink: FlashSink, pages_per_block: int = 64):
        if capacity_pages < 2:
            raise ValueError(f"capacity_pages must be >= 2, got {capacity_pages}")
        self.capacity_pages = int(capacity_pages)
        self.pages_per_block = int(pages_per_block)
        self.sink = sink
        self.hits = 0
        self.misses = 0
        self.evictions = 0
        self.flash_reads = 0
        self.flushed_pages = 0

    def access(self, lpn: int, is_write: bool) -> None:
        """Serve one page access (logical page number ``lpn``)."""
        raise NotImplementedError

    def resident(self) -> set[int]:
        """The pages the buffer holds."""
        raise NotImplementedError

    def dirty_pages(self) -> set[int]:
        """The buffered pages written since they were last flushed."""
        raise NotImplementedError

    def flush_all(self) -> int:
        """Write every dirty page back in one group, in address order (a shutdown's flush); the pages stay buffered
        but clean for the counts' sake (no access follows). Returns the pages written."""
        pages = sorted(self.dirty_pages())
        if pages:
            self._flush(pages)
        return len(pages)

    def _miss(self, lpn: int, is_write: bool) -> None:
        self.misses += 1
        if not is_write:
            self.flash_reads += 1
            self.sink.read(lpn)

    def _flush(self, lpns: list[int]) -> None:
        self.flushed_pages += len(lpns)
        self.sink.write(lpns)

    def _evicted(self, lpn: int, dirty: bool) -> None:
        self.evictions += 1
        if dirty:
            self._flush([lpn])
