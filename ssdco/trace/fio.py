"""fio I/O logs, versions 2 and 3 (``write_iolog`` / ``read_iolog``).

The first line is ``fio version 2 iolog`` or ``fio version 3 iolog``. Then a line is ``FILE ACTION [OFFSET
LENGTH]`` (v2) or ``TIMESTAMP FILE ACTION [OFFSET LENGTH]`` (v3, the timestamp in microseconds since the run
start, as fio's writer logs it). ``read`` and ``write`` become records; ``trim``, ``sync``, ``datasync``,
``wait``, ``add``, ``open`` and ``close`` are ignored. v2 lines carry no time: their records have time 0.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ssdco.trace.arrow_block import block_reader, checked_chunk, write_flags
from ssdco.trace.chunk import TraceChunk
from ssdco.trace.record import BadField, TraceRecord, parse_int, parse_time

HEADER_PREFIX = "fio version"
_HEADER = re.compile(r"^fio version (\S*) ?iolog$")
_DATA = {"read": False, "write": True}
_IGNORED = frozenset({"trim", "sync", "datasync", "wait", "add", "open", "close"})
_ACTIONS = "read, write, trim, sync, datasync, wait, add, open, close"


def looks_like_fio(line: str) -> bool:
    """Whether ``line`` is (or tries to be) a fio iolog header."""
    return line.startswith(HEADER_PREFIX)


def iolog_version(header: str) -> int:
    """The version (2 or 3) of the iolog header line ``header``; :class:`BadField` when it names none of them."""
    match = _HEADER.match(header.strip())
    if match is None or match.group(1) not in ("2", "3"):
        raise BadField("iolog header version", header.strip(),
                       "expected 'fio version 2 iolog' or 'fio version 3 iolog'")
    return int(match.group(1))


def fio_line_parser(version: int) -> Callable[[str], TraceRecord | None]:
    """A parser of the lines of a version-``version`` iolog: records for read/write (times in us, offset and
    length in bytes), ``None`` for the header and the ignored actions."""
    skip = 1 if version == 3 else 0

    def parse(line: str) -> TraceRecord | None:
        if line.startswith(HEADER_PREFIX):
            return None
        fields = line.split()
        if len(fields) < 2 + skip:
            raise BadField("columns", len(fields), _columns(version))
        action = fields[1 + skip]
        if action in _IGNORED:
            return None
        if action not in _DATA:
            raise BadField("action", action, f"expected one of: {_ACTIONS}")
        if len(fields) != 4 + skip:
            raise BadField("columns", len(fields), _columns(version))
        time_us = parse_time(fields[0], "timestamp", 1.0, "microseconds since the run start") if skip else 0.0
        offset = parse_int(fields[2 + skip], "offset", 0, "a byte offset")
        size = parse_int(fields[3 + skip], "length", 1, "a length in bytes")
        return TraceRecord(time_us, _DATA[action], offset, size)

    return parse


def _columns(version: int) -> str:
    head = "TIMESTAMP " if version == 3 else ""
    return f"expected '{head}FILE ACTION OFFSET LENGTH' for read/write (iolog version {version})"


_ODD_WHITESPACE = b"\t\x0b\x0c\x1c\x1d\x1e\x1f"  # split() takes these apart; pyarrow's space delimiter does not


def fio_block_parser(version: int) -> Callable[[bytes], TraceChunk | None]:
    """A parser of blocks of whole version-``version`` iolog lines by pyarrow's CSV reader (single spaces between
    fields): the block's records, or ``None`` when a line is not a read or write that :func:`fio_line_parser`
    takes with the same result (then the caller parses the lines one by one): other whitespace, an empty field,
    another action, a value out of range (:mod:`ssdco.trace.arrow_block`)."""
    names = (["Timestamp"] if version == 3 else []) + ["File", "Action", "Offset", "Length"]
    types = {"File": pa.string(), "Action": pa.string(), "Offset": pa.int64(), "Length": pa.int64()}
    if version == 3:
        types["Timestamp"] = pa.float64()
    read_block = block_reader(names, types, delimiter=" ")

    def parse_block(data: bytes) -> TraceChunk | None:
        table = None if any(c in data for c in _ODD_WHITESPACE) else read_block(data)
        if table is None or pc.any(pc.equal(pc.utf8_length(table.column("File")), 0)).as_py():
            return None  # an empty field is two spaces in a row: split() sees one field fewer
        is_write = write_flags(table.column("Action"), _DATA.get)
        if is_write is None:
            return None
        offsets = table.column("Offset").to_numpy()
        times = table.column("Timestamp").to_numpy() * 1.0 if version == 3 else np.zeros(len(offsets))
        return checked_chunk(times, is_write, offsets, table.column("Length").to_numpy())

    return parse_block
