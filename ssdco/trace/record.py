"""The common trace record every reader yields, and the bookkeeping of skipped lines."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple


class TraceRecord(NamedTuple):
    """One host request: arrival time (us), direction, byte offset and byte length (> 0)."""

    time_us: float
    is_write: bool
    offset_bytes: int
    size_bytes: int


@dataclass
class ParseStats:
    """Counts of a reader's lines: records yielded, bad lines skipped (with ``skip_bad``) and lines ignored by
    design (e.g. blkparse actions other than the one taken, fio ``open``/``close``), plus the first bad-line
    messages (at most ``keep`` of them)."""

    records: int = 0
    bad_lines: int = 0
    ignored_lines: int = 0
    first_errors: list[str] = field(default_factory=list)
    keep: int = 5

    def note_bad(self, message: str) -> None:
        """Count one skipped bad line and keep its message while fewer than ``keep`` are kept."""
        self.bad_lines += 1
        if len(self.first_errors) < self.keep:
            self.first_errors.append(message)


class BadField(ValueError):
    """A line's field that a reader cannot take: its name, its text and what would be accepted."""

    def __init__(self, field_name: str, value: object, allowed: str):
        super().__init__(f"{field_name} = {value!r}: {allowed}")
        self.field_name = field_name
        self.value = value
        self.allowed = allowed


MAX_BYTES = 1 << 62  # the largest byte offset or size a record takes (4 EiB): offset + size stays in int64


def parse_int(text: str, field_name: str, minimum: int, what: str, maximum: int = MAX_BYTES) -> int:
    """``text`` as a base-10 integer in ``[minimum, maximum]``; :class:`BadField` naming ``field_name`` otherwise.

    ``what`` says in words what the field holds (e.g. "a byte offset"); a zero below a minimum of 1 is
    reported apart from a negative value, since a zero-length request is a distinct mistake. The default
    ``maximum`` (:data:`MAX_BYTES`) keeps offsets and sizes in 64-bit arithmetic."""
    try:
        value = int(text)
    except ValueError:
        raise BadField(field_name, text, f"expected {what}, an integer") from None
    if value < minimum:
        if value == 0:
            raise BadField(field_name, text, f"expected {what} > 0 (a zero-length request moves no data)")
        raise BadField(field_name, text, f"expected {what} >= {minimum}, got a negative value")
    if value > maximum:
        raise BadField(field_name, text, f"expected {what} <= {maximum} (offsets and sizes up to 4 EiB)")
    return value


def parse_time(text: str, field_name: str, scale_us: float, what: str) -> float:
    """``text`` as a finite, non-negative number times ``scale_us`` (microseconds per unit of the field)."""
    try:
        value = float(text)
    except ValueError:
        raise BadField(field_name, text, f"expected {what}, a non-negative number") from None
    if not (value >= 0.0 and value != float("inf")):
        raise BadField(field_name, text, f"expected {what}, a finite non-negative number")
    return value * scale_us
