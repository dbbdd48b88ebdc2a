"""BAST (:class:`~ssdco.trace.mapping.bast.BastFtl`) compiled: a hash map from logical block to its row of
valid-page flags, and ``log_blocks`` log-block slots with the page offsets in write order."""

from __future__ import annotations

import numba as nb
import numpy as np
from numba import types
from numba.typed import Dict

from ssdco.trace.kernels.counters import COPIES, ERASES, FULL, HOST_WRITES, PARTIAL, ROWS, SWITCH, BlockMappingKernel

# the rest of BastKernel._state (the counters first: kernels/counters.py)
SERIAL, LOGS = range(8, 10)


class BastKernel(BlockMappingKernel):
    """BAST with ``log_blocks`` log blocks as a mapping engine (:class:`~ssdco.trace.engines.MappingEngine`)."""

    name = "bast"

    def __init__(self, pages_per_block: int, log_blocks: int = 16, **_):
        if pages_per_block < 2 or log_blocks < 1:
            raise ValueError(f"expected pages_per_block >= 2 and log_blocks >= 1, got {pages_per_block}, {log_blocks}")
        super().__init__(pages_per_block, 10)
        self._log_of = Dict.empty(types.int64, types.int64)  # logical block -> log slot
        self._log_lbn = np.full(log_blocks, -1, np.int64)
        self._log_len = np.zeros(log_blocks, np.int64)
        self._log_serial = np.zeros(log_blocks, np.int64)  # last write; the smallest is merged first
        self._log_pages = np.zeros((log_blocks, pages_per_block), np.int64)  # page offsets in write order

    def _write(self, written: np.ndarray) -> None:
        _write(written, self._row_of, self._valid, self._log_of, self._log_lbn, self._log_len, self._log_serial,
               self._log_pages, self._state)


@nb.njit(cache=True)
def _write(lpns, row_of, valid, log_of, log_lbn, log_len, log_serial, log_pages, state):
    ppb = valid.shape[1]
    for i in range(lpns.shape[0]):
        state[HOST_WRITES] += 1
        lbn, offset = lpns[i] // ppb, lpns[i] % ppb
        slot = log_of[lbn] if lbn in log_of else -1
        if slot < 0:
            if state[LOGS] == log_lbn.shape[0]:  # merge the least recently written log block
                victim = np.argmin(np.where(log_lbn >= 0, log_serial, np.iinfo(np.int64).max))
                del log_of[log_lbn[victim]]
                _merge(log_lbn[victim], victim, row_of, valid, log_lbn, log_len, log_pages, state)
            slot = np.argmin(log_lbn)  # a free slot holds -1
            log_of[lbn] = slot
            log_lbn[slot], log_len[slot] = lbn, 0
            state[LOGS] += 1
        state[SERIAL] += 1
        log_serial[slot] = state[SERIAL]
        log_pages[slot, log_len[slot]] = offset
        log_len[slot] += 1
        if log_len[slot] == ppb:
            del log_of[lbn]
            _merge(lbn, slot, row_of, valid, log_lbn, log_len, log_pages, state)


@nb.njit(cache=True)
def _merge(lbn, slot, row_of, valid, log_lbn, log_len, log_pages, state):
    """Merge the log block in ``slot`` with its data block (switch, partial or full) and free the slot."""
    ppb = valid.shape[1]
    written = log_len[slot]
    row = row_of[lbn] if lbn in row_of else -1
    old = 1 if row >= 0 else 0
    if row < 0:
        row = state[ROWS]
        state[ROWS] += 1
        row_of[lbn] = row
        valid[row, :] = False
    in_order = True
    for k in range(written):
        if log_pages[slot, k] != k:
            in_order = False
            break
    if in_order:
        tail = 0
        for k in range(written, ppb):
            tail += valid[row, k]
        if written == ppb:
            state[SWITCH] += 1
        else:
            state[PARTIAL] += 1
            state[COPIES] += tail
        valid[row, :written] = True
        state[ERASES] += old
    else:
        for k in range(written):
            valid[row, log_pages[slot, k]] = True
        state[COPIES] += np.sum(valid[row])
        state[FULL] += 1
        state[ERASES] += 1 + old
    log_lbn[slot] = -1
    state[LOGS] -= 1
