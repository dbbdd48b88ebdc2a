"""MSR Cambridge block traces (also the SNIA IOTTA CSV files in the same shape).

A line is ``Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime``: the timestamp in Windows filetime
ticks (100 ns), the type ``Read`` or ``Write`` (any case), offset and size in bytes. A first line naming the
columns (``Timestamp,...``) is skipped.

Reference: D. Narayanan, A. Donnelly, A. Rowstron, "Write off-loading: practical power management for
enterprise storage", FAST 2008 (the traces, hosted by SNIA IOTTA).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from ssdco.trace.chunk import TraceChunk
from ssdco.trace.record import MAX_BYTES, BadField, TraceRecord, parse_int, parse_time

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


_COLUMN_TYPES = {"Timestamp": pa.float64(), "Type": pa.string(), "Offset": pa.int64(), "Size": pa.int64()}
_READ = pacsv.ReadOptions(column_names=list(COLUMNS), use_threads=False, block_size=1 << 26)
_PARSE = pacsv.ParseOptions(quote_char=False, ignore_empty_lines=True)
_CONVERT = pacsv.ConvertOptions(column_types=_COLUMN_TYPES, include_columns=list(_COLUMN_TYPES), null_values=[],
                                strings_can_be_null=False, quoted_strings_can_be_null=False)


def parse_msr_block(data: bytes) -> TraceChunk | None:
    """The records of ``data``, whole MSR CSV lines, parsed by pyarrow's CSV reader; ``None`` when a line is not
    one that :func:`parse_msr_line` takes with the same result (then the caller parses the lines one by one and
    reports the bad line by its number).

    Every line must be ASCII with 7 comma-separated fields, a finite non-negative timestamp, a Read/Write type,
    an offset in ``[0, MAX_BYTES]`` and a size in ``[1, MAX_BYTES]``; a lone carriage return (which pyarrow takes
    for a line end and the line parser does not) or a header line also gives ``None``."""
    if not data.isascii() or (b"\r" in data and data.count(b"\r") != data.count(b"\r\n")):
        return None
    try:
        table = pacsv.read_csv(pa.py_buffer(data), read_options=_READ, parse_options=_PARSE, convert_options=_CONVERT)
    except pa.ArrowInvalid:
        return None
    types = table.column("Type").combine_chunks().dictionary_encode()
    flags = [_TYPES.get(text.strip().lower()) for text in types.dictionary.to_pylist()]
    if None in flags:
        return None
    ticks = _column(table, "Timestamp")
    offsets, sizes = _column(table, "Offset"), _column(table, "Size")
    if not (np.all(ticks >= 0.0) and np.all(np.isfinite(ticks)) and np.all(offsets >= 0) and np.all(sizes >= 1)
            and np.all(offsets <= MAX_BYTES) and np.all(sizes <= MAX_BYTES)):
        return None
    is_write = np.array(flags, dtype=bool)[types.indices.to_numpy(zero_copy_only=False)]
    return TraceChunk(ticks * US_PER_TICK, is_write, offsets, sizes)


def _column(table: pa.Table, name: str) -> np.ndarray:
    return table.column(name).to_numpy()
