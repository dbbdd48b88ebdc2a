"""BAST, block-associative sector translation: a block mapping with one log block per data block.

Every host page write goes to its logical block's log block (a free one is taken, merging the least recently
written log block when all ``log_blocks`` are in use). A log block is merged when it fills or is the victim:

* switch merge: it holds pages 0..Np-1 in order; it becomes the data block, the old data block is erased;
* partial merge: it holds pages 0..k-1 in order, k < Np; the old data block's valid pages k.. are copied into
  it, it becomes the data block, the old one is erased;
* full merge: otherwise; every valid page (from the log block or the data block) is copied to a new block,
  and the log block and the old data block are erased.

Reference: J. Kim, J. M. Kim, S. H. Noh, S. L. Min, Y. Cho, "A space-efficient flash translation layer for
CompactFlash systems", IEEE Trans. Consumer Electronics 48(2), 2002.
"""

from __future__ import annotations

from collections import OrderedDict

from ssdco.trace.mapping.base import Mapping


class BastFtl(Mapping):
    """BAST with ``log_blocks`` log blocks, the least recently written merged first."""

    name = "bast"

    def __init__(self, pages_per_block: int, log_blocks: int = 16, **_):
        super().__init__(pages_per_block)
        if log_blocks < 1:
            raise ValueError(f"log_blocks must be >= 1, got {log_blocks}")
        self.log_blocks = int(log_blocks)
        self._data: dict[int, int] = {}  # logical block -> bit mask of the pages whose latest copy it holds
        self._logs: OrderedDict[int, list[int]] = OrderedDict()  # logical block -> page offsets in write order
        self._in_order = list(range(self.pages_per_block))

    def _write_page(self, lpn: int) -> None:
        lbn, offset = divmod(lpn, self.pages_per_block)
        log = self._logs.get(lbn)
        if log is None:
            if len(self._logs) >= self.log_blocks:
                victim, victim_log = self._logs.popitem(last=False)
                self._merge(victim, victim_log)
            log = self._logs[lbn] = []
        else:
            self._logs.move_to_end(lbn)
        log.append(offset)
        if len(log) == self.pages_per_block:
            del self._logs[lbn]
            self._merge(lbn, log)

    def _merge(self, lbn: int, log: list[int]) -> None:
        data = self._data.get(lbn)
        old = 0 if data is None else 1  # the old data block to erase
        written = len(log)
        if log == self._in_order[:written]:
            prefix = (1 << written) - 1
            tail = (data or 0) & ~prefix
            if written == self.pages_per_block:
                self.switch_merges += 1
            else:
                self.partial_merges += 1
                self.copies += tail.bit_count()
            self._data[lbn] = prefix | tail
            self.erases += old
            return
        valid = data or 0
        for offset in log:
            valid |= 1 << offset
        self.copies += valid.bit_count()
        self.full_merges += 1
        self.erases += 1 + old
        self._data[lbn] = valid
