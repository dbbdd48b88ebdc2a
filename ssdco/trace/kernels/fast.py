"""FAST (:class:`~ssdco.trace.mapping.fast.FastFtl`) compiled: a hash map from logical block to its row of
valid-page flags, the sequential log block's flags, a ring of random log blocks (oldest first) and a hash map from
page to the serial number of the random log block holding its latest copy."""

from __future__ import annotations

import numba as nb
import numpy as np
from numba import types
from numba.typed import Dict

from ssdco.trace.kernels.counters import COPIES, ERASES, FULL, HOST_WRITES, PARTIAL, ROWS, SWITCH, BlockMappingKernel

# the rest of FastKernel._state (the counters first: kernels/counters.py)
SW_LBN, SW_NEXT, RW_HEAD, RW_COUNT, RW_SERIAL = range(8, 13)


class FastKernel(BlockMappingKernel):
    """FAST with one sequential and ``log_blocks - 1`` random log blocks as a mapping engine
    (:class:`~ssdco.trace.engines.MappingEngine`)."""

    name = "fast"

    def __init__(self, pages_per_block: int, log_blocks: int = 16, **_):
        if pages_per_block < 2 or log_blocks < 2:
            raise ValueError(f"expected pages_per_block >= 2 and log_blocks >= 2, got {pages_per_block}, {log_blocks}")
        random_blocks = int(log_blocks) - 1
        super().__init__(pages_per_block, 13)
        self._sw_valid = np.zeros(pages_per_block, np.bool_)  # the sequential log block's live pages
        self._home = Dict.empty(types.int64, types.int64)  # page -> serial of the random log block holding it
        self._rw_pages = np.zeros((random_blocks, pages_per_block), np.int64)  # ring, pages in write order
        self._rw_len = np.zeros(random_blocks, np.int64)
        self._rw_serial = np.zeros(random_blocks, np.int64)
        self._state[SW_LBN] = -1

    def _write(self, written: np.ndarray) -> None:
        _write(written, self._row_of, self._valid, self._sw_valid, self._home, self._rw_pages, self._rw_len,
               self._rw_serial, self._state)


@nb.njit(cache=True)
def _data_row(lbn, row_of, valid, state):
    """The row of ``lbn``'s data block, made (no valid page) when it has none; and whether it had one."""
    if lbn in row_of:
        return row_of[lbn], 1
    row = state[ROWS]
    state[ROWS] += 1
    row_of[lbn] = row
    valid[row, :] = False
    return row, 0


@nb.njit(cache=True)
def _merge_sw(row_of, valid, sw_valid, state):
    """Merge the sequential log block (switch when full, else partial: the data block's later pages copied)."""
    lbn, written = state[SW_LBN], state[SW_NEXT]
    row, old = _data_row(lbn, row_of, valid, state)
    ppb = valid.shape[1]
    if written == ppb:
        state[SWITCH] += 1
    else:
        state[PARTIAL] += 1
        state[COPIES] += np.sum(valid[row, written:])
    state[ERASES] += old
    valid[row, :written] = sw_valid[:written]
    sw_valid[:] = False
    state[SW_LBN], state[SW_NEXT] = -1, 0


@nb.njit(cache=True)
def _supersede(lpn, lbn, offset, row_of, valid, sw_valid, home, state):
    if lbn in row_of:
        valid[row_of[lbn], offset] = False
    if lpn in home:
        del home[lpn]
    if lbn == state[SW_LBN]:
        sw_valid[offset] = False


@nb.njit(cache=True)
def _full_merge(lbn, row_of, valid, sw_valid, home, state):
    """Copy every live page of ``lbn`` (data block and random log blocks) to a new data block."""
    if lbn == state[SW_LBN]:
        _merge_sw(row_of, valid, sw_valid, state)
    row, old = _data_row(lbn, row_of, valid, state)
    ppb = valid.shape[1]
    for offset in range(ppb):
        page = lbn * ppb + offset
        if page in home:
            del home[page]
            valid[row, offset] = True
    state[COPIES] += np.sum(valid[row])
    state[FULL] += 1
    state[ERASES] += old


@nb.njit(cache=True)
def _reclaim_oldest(row_of, valid, sw_valid, home, rw_pages, rw_len, rw_serial, state):
    """Free the oldest random log block: a full merge of each block whose latest copy of a page it holds."""
    ppb = valid.shape[1]
    slot = state[RW_HEAD]
    serial = rw_serial[slot]
    for k in range(rw_len[slot]):
        page = rw_pages[slot, k]
        if page in home and home[page] == serial:  # a merged block leaves no page of it at home here
            _full_merge(page // ppb, row_of, valid, sw_valid, home, state)
    state[ERASES] += 1
    state[RW_HEAD] = (slot + 1) % rw_len.shape[0]
    state[RW_COUNT] -= 1


@nb.njit(cache=True)
def _write_random(lpn, lbn, offset, row_of, valid, sw_valid, home, rw_pages, rw_len, rw_serial, state):
    _supersede(lpn, lbn, offset, row_of, valid, sw_valid, home, state)
    ppb, blocks = valid.shape[1], rw_len.shape[0]
    last = (state[RW_HEAD] + state[RW_COUNT] - 1) % blocks
    if state[RW_COUNT] == 0 or rw_len[last] == ppb:
        if state[RW_COUNT] == blocks:
            _reclaim_oldest(row_of, valid, sw_valid, home, rw_pages, rw_len, rw_serial, state)
        state[RW_SERIAL] += 1
        last = (state[RW_HEAD] + state[RW_COUNT]) % blocks
        state[RW_COUNT] += 1
        rw_len[last], rw_serial[last] = 0, state[RW_SERIAL]
    rw_pages[last, rw_len[last]] = lpn
    rw_len[last] += 1
    home[lpn] = rw_serial[last]


@nb.njit(cache=True)
def _write(lpns, row_of, valid, sw_valid, home, rw_pages, rw_len, rw_serial, state):
    ppb = valid.shape[1]
    for i in range(lpns.shape[0]):
        lpn = lpns[i]
        state[HOST_WRITES] += 1
        lbn, offset = lpn // ppb, lpn % ppb
        if offset == 0:
            if state[SW_LBN] >= 0:
                _merge_sw(row_of, valid, sw_valid, state)
            _supersede(lpn, lbn, offset, row_of, valid, sw_valid, home, state)
            state[SW_LBN], state[SW_NEXT] = lbn, 1
            sw_valid[0] = True
        elif lbn == state[SW_LBN] and offset == state[SW_NEXT]:
            _supersede(lpn, lbn, offset, row_of, valid, sw_valid, home, state)
            state[SW_NEXT] += 1
            sw_valid[offset] = True
        else:
            _write_random(lpn, lbn, offset, row_of, valid, sw_valid, home, rw_pages, rw_len, rw_serial, state)
        if state[SW_NEXT] == ppb:
            _merge_sw(row_of, valid, sw_valid, state)
