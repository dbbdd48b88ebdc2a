"""``blkparse`` default text output (Linux blktrace).

An event line is ``MAJ,MIN CPU SEQ SECONDS PID ACTION RWBS SECTOR + COUNT [PROCESS]``. Only one action is taken:
``D`` (issued to the driver) when the trace has any ``D`` line, else ``Q`` (queued), so a request is counted
once. Other actions, RWBS fields without ``R`` or ``W`` (e.g. a bare flush ``FN``), flushes without data
(``FWS 0 + 0``) and lines that are not event lines (blkparse's summary) are ignored. Sectors are 512 B.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ssdco.trace.record import MAX_BYTES, BadField, TraceRecord, parse_int, parse_time

SECTOR_BYTES = 512
_EVENT = re.compile(r"^\s*\d+,\d+\s+\d+\s+\d+\s+(\S+)\s+\d+\s+([A-Za-z]{1,2})\s+(\S+)\s*(.*)$")
_EVENT_BYTES_D = re.compile(rb"^\s*\d+,\d+\s+\d+\s+\d+\s+\S+\s+\d+\s+D\s")


def looks_like_blkparse(line: str) -> bool:
    """Whether ``line`` has the shape of a blkparse event line."""
    return _EVENT.match(line) is not None


def is_issue_line(raw: bytes) -> bool:
    """Whether the undecoded line ``raw`` is a blkparse ``D`` (issue) event."""
    return _EVENT_BYTES_D.match(raw) is not None


def blkparse_line_parser(action: str) -> Callable[[str], TraceRecord | None]:
    """A parser of blkparse lines that takes events of ``action`` ("D" or "Q") and ignores the rest (``None``);
    times in us (blkparse prints seconds), offset and size in bytes."""

    def parse(line: str) -> TraceRecord | None:
        event = _EVENT.match(line)
        if event is None or event.group(2) != action:
            return None
        seconds, _, rwbs, rest = event.groups()
        if "W" in rwbs:
            is_write = True
        elif "R" in rwbs:
            is_write = False
        else:
            return None
        return _record(seconds, is_write, rwbs, rest)

    return parse


def _record(seconds: str, is_write: bool, rwbs: str, rest: str) -> TraceRecord | None:
    parts = rest.split()
    if len(parts) < 3 or parts[1] != "+":
        raise BadField("sector + count", rest, "expected 'SECTOR + COUNT' (512 B sectors) after the RWBS field")
    time_us = parse_time(seconds, "time", 1e6, "seconds since the trace start")
    sector = parse_int(parts[0], "sector", 0, "a sector number", MAX_BYTES // SECTOR_BYTES)
    if parts[2] == "0" and "F" in rwbs:
        return None  # a flush carries no data
    count = parse_int(parts[2], "count", 1, "a sector count", MAX_BYTES // SECTOR_BYTES)
    return TraceRecord(time_us, is_write, sector * SECTOR_BYTES, count * SECTOR_BYTES)
