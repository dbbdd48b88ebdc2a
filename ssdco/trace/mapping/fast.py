"""FAST, fully-associative sector translation: one sequential (SW) log block plus shared random (RW) log blocks.

A write of page 0 of a block starts the SW log block (merging the one in use); the next page of the SW block's
logical block in order goes on filling it (a full SW block is switch-merged); any other write goes to the RW log
blocks, written in turn and shared by all logical blocks. When every RW block is full, the oldest is reclaimed:
each logical block with a valid page in it gets a full merge (its latest pages copied to a new block, the old
data block erased), then the RW block is erased. A SW block merged before it is full is a partial merge.
``log_blocks`` counts both kinds (one SW, ``log_blocks - 1`` RW) so BAST and FAST compare at equal log space.

Reference: S.-W. Lee, D.-J. Park, T.-S. Chung, D.-H. Lee, S. Park, H.-J. Song, "A log buffer-based flash
translation layer using fully-associative sector translation", ACM TECS 6(3), 2007.
"""

from __future__ import annotations

from collections import deque

from ssdco.trace.mapping.base import Mapping


class FastFtl(Mapping):
    """FAST with one SW log block and ``log_blocks - 1`` RW log blocks (at least one)."""

    name = "fast"

    def __init__(self, pages_per_block: int, log_blocks: int = 16, **_):
        super().__init__(pages_per_block)
        if log_blocks < 2:
            raise ValueError(f"log_blocks must be >= 2 (one sequential, one random), got {log_blocks}")
        self.random_log_blocks = int(log_blocks) - 1
        self._data: dict[int, int] = {}  # logical block -> bit mask of the pages whose latest copy it holds
        self._sw_lbn = -1
        self._sw_next = 0
        self._sw_mask = 0
        self._rw: deque[tuple[int, list[int]]] = deque()  # (serial, pages written), oldest first
        self._rw_serial = 0
        self._rw_home: dict[int, int] = {}  # page -> serial of the RW block with its latest copy

    def _write_page(self, lpn: int) -> None:
        lbn, offset = divmod(lpn, self.pages_per_block)
        if offset == 0:
            if self._sw_lbn >= 0:
                self._merge_sw()
            self._supersede(lpn, lbn, offset)
            self._sw_lbn, self._sw_next, self._sw_mask = lbn, 1, 1
        elif lbn == self._sw_lbn and offset == self._sw_next:
            self._supersede(lpn, lbn, offset)
            self._sw_next += 1
            self._sw_mask |= 1 << offset
        else:
            self._write_random(lpn, lbn, offset)
        if self._sw_next == self.pages_per_block:
            self._merge_sw()

    def _supersede(self, lpn: int, lbn: int, offset: int) -> None:
        bit = 1 << offset
        if lbn in self._data:
            self._data[lbn] &= ~bit
        self._rw_home.pop(lpn, None)
        if lbn == self._sw_lbn:
            self._sw_mask &= ~bit

    def _write_random(self, lpn: int, lbn: int, offset: int) -> None:
        self._supersede(lpn, lbn, offset)
        if not self._rw or len(self._rw[-1][1]) == self.pages_per_block:
            if len(self._rw) == self.random_log_blocks:
                self._reclaim_oldest()
            self._rw_serial += 1
            self._rw.append((self._rw_serial, []))
        serial, pages = self._rw[-1]
        pages.append(lpn)
        self._rw_home[lpn] = serial

    def _merge_sw(self) -> None:
        lbn, written = self._sw_lbn, self._sw_next
        prefix = (1 << written) - 1
        tail = self._data.get(lbn, 0) & ~prefix
        if written == self.pages_per_block:
            self.switch_merges += 1
        else:
            self.partial_merges += 1
            self.copies += tail.bit_count()
        self.erases += lbn in self._data
        self._data[lbn] = self._sw_mask | tail
        self._sw_lbn, self._sw_next, self._sw_mask = -1, 0, 0

    def _reclaim_oldest(self) -> None:
        serial, pages = self._rw.popleft()
        blocks = dict.fromkeys(lpn // self.pages_per_block for lpn in pages if self._rw_home.get(lpn) == serial)
        for lbn in blocks:
            self._full_merge(lbn)
        self.erases += 1

    def _full_merge(self, lbn: int) -> None:
        if lbn == self._sw_lbn:
            self._merge_sw()
        valid = self._data.get(lbn, 0)
        first = lbn * self.pages_per_block
        for offset in range(self.pages_per_block):
            if self._rw_home.pop(first + offset, None) is not None:
                valid |= 1 << offset
        self.copies += valid.bit_count()
        self.full_merges += 1
        self.erases += lbn in self._data
        self._data[lbn] = valid
