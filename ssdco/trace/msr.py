"""MSR Cambridge block traces (also the SNIA IOTTA CSV files in the same shape).

A line is ``Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime``: the timestamp in Windows filetime
ticks (100 ns), the type ``Read`` or ``Write`` (any case), offset and size in bytes. A first line naming the
columns (``Timestamp,...``) is skipped.

Reference: D. Narayanan, A. Donnelly, A. Rowstron, "Write off-loading: practical power management for
enterprise storage", FAST 2008 (the traces, hosted by SNIA IOTTA).
"""

from __future__ import annotations

import pyarrow as pa

from ssdco.trace.arrow_block import block_reader, checked_chunk, write_flags
from ssdco.trace.chunk import TraceChunk
from ssdco.trace.record import BadField, TraceRecord, parse_int, parse_time

COLUMNS = ("Timestamp", "Hostname", "DiskNumber", "Type", "Offset", "Size", "ResponseTime")
US_PER_TICK = 0.1  # a Windows filetime tick is 100 ns
_TYPES = {"read": False, "write": True, "r": False, "w": True}


def looks_like_msr(line: str) -> bool:
    """Whether ``line`` has the shape of an MSR/SNIA CSV line (7 comma-separated fields) or its header."""
    return line.startswith("Timestamp,") or line.count(",") == len(COLUMNS) - 1


def parse_msr_line(line: str) -> TraceRecord | None:
    """The record of one MSR CSV line (``None`` for the header); times in us, offset and size in bytes."""
    fields = line.split(",")
    if len(fields) != len(COLUMNS):
        raise BadField("columns", len(fields), f"expected {len(COLUMNS)} comma-separated fields: {','.join(COLUMNS)}")
    if fields[0] == COLUMNS[0]:
        return None
    time_us = parse_time(fields[0], "timestamp", US_PER_TICK, "Windows filetime ticks (100 ns)")
    kind = _TYPES.get(fields[3].strip().lower())
    if kind is None:
        raise BadField("type", fields[3], "expected Read or Write")
    offset = parse_int(fields[4], "offset", 0, "a byte offset")
    size = parse_int(fields[5], "size", 1, "a size in bytes")
    return TraceRecord(time_us, kind, offset, size)


_read_block = block_reader(list(COLUMNS), {"Timestamp": pa.float64(), "Type": pa.string(), "Offset": pa.int64(),
                                          "Size": pa.int64()})


def parse_msr_block(data: bytes) -> TraceChunk | None:
    """The records of ``data``, whole MSR CSV lines, parsed by pyarrow's CSV reader; ``None`` when a line is not
    one that :func:`parse_msr_line` takes with the same result (then the caller parses the lines one by one and
    reports the bad line by its number): 7 comma-separated fields, a Read/Write type and the values in range
    (:mod:`ssdco.trace.arrow_block`)."""
    table = _read_block(data)
    if table is None:
        return None
    is_write = write_flags(table.column("Type"), lambda text: _TYPES.get(text.strip().lower()))
    if is_write is None:
        return None
    return checked_chunk(table.column("Timestamp").to_numpy() * US_PER_TICK, is_write,
                         table.column("Offset").to_numpy(), table.column("Size").to_numpy())
