"""Streamed trace input: open (gzip by its magic bytes), detect the format, parse line by line.

Memory does not grow with the trace: lines are read one at a time and records yielded as they are parsed.
A malformed line raises :class:`~ssdco.errors.ConfigError` naming the file, ``line N: field``, the value and
what is accepted; with ``skip_bad`` it is counted in :class:`~ssdco.trace.record.ParseStats` and skipped
(an unreadable file, a truncated gzip stream, an empty file and a bad fio header are never skipped).
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

from ssdco.errors import ConfigError
from ssdco.trace.blkparse import blkparse_line_parser, is_issue_line, looks_like_blkparse
from ssdco.trace.fio import fio_line_parser, iolog_version, looks_like_fio
from ssdco.trace.msr import looks_like_msr, parse_msr_line
from ssdco.trace.record import BadField, ParseStats, TraceRecord

FORMATS = ("msr", "blkparse", "fio")
GZIP_MAGIC = b"\x1f\x8b"
_DETECT_LINES = 20
LineParser = Callable[[str], "TraceRecord | None"]


def raw_lines(path: str | Path) -> Iterator[tuple[int, bytes]]:
    """``(line number, undecoded line)`` of the file at ``path``, gunzipped when it starts with gzip's magic."""
    source = str(path)
    try:
        with open(path, "rb") as probe:
            compressed = probe.read(2) == GZIP_MAGIC
        handle = gzip.open(path, "rb") if compressed else open(path, "rb")
    except OSError as e:
        raise ConfigError(source, "file", source, f"expected a readable trace file ({e.strerror or e})") from None
    number = 0
    with handle:
        try:
            for number, raw in enumerate(handle, start=1):
                yield number, raw
        except (EOFError, gzip.BadGzipFile, zlib.error) as e:
            raise ConfigError(source, f"line {number + 1}: gzip stream", str(e),
                              "expected a complete gzip file (the stream ends or breaks before its end)") from None


def _decoded(source: str, number: int, raw: bytes) -> str:
    try:
        return raw.decode("utf-8").strip()
    except UnicodeDecodeError as e:
        raise BadField("encoding", raw[e.start:e.end], "expected UTF-8 text") from None


def first_lines(path: str | Path, count: int = _DETECT_LINES) -> list[tuple[int, str]]:
    """The first ``count`` non-blank decoded lines of the trace; ConfigError when it has none."""
    out = []
    for number, raw in raw_lines(path):
        try:
            text = _decoded(str(path), number, raw)
        except BadField as bad:
            raise _error(str(path), number, bad) from None
        if text:
            out.append((number, text))
            if len(out) == count:
                break
    if not out:
        raise ConfigError(str(path), "line 1: content", "", "expected trace lines, the file is empty")
    return out


def detect_format(path: str | Path) -> str:
    """The format of the trace at ``path`` (one of :data:`FORMATS`) from its first non-blank line."""
    number, line = first_lines(path, 1)[0]
    if looks_like_fio(line):
        return "fio"
    if looks_like_msr(line):
        return "msr"
    if looks_like_blkparse(line):
        return "blkparse"
    raise ConfigError(str(path), f"line {number}: format", line[:80],
                      "expected an MSR/SNIA CSV line (7 comma-separated fields), a blkparse event line or a fio "
                      "iolog header ('fio version 2 iolog'); or name the format (--format msr|blkparse|fio)")


def _line_parser(path: str | Path, fmt: str) -> LineParser:
    if fmt == "msr":
        return parse_msr_line
    if fmt == "blkparse":
        has_issue = any(is_issue_line(raw) for _, raw in raw_lines(path))
        return blkparse_line_parser("D" if has_issue else "Q")
    number, header = first_lines(path, 1)[0]
    try:
        return fio_line_parser(iolog_version(header))
    except BadField as bad:
        raise _error(str(path), number, bad) from None


def _error(source: str, number: int, bad: BadField) -> ConfigError:
    return ConfigError(source, f"line {number}: {bad.field_name}", bad.value, bad.allowed)


def read_trace(path: str | Path, fmt: str = "auto", skip_bad: bool = False,
               stats: ParseStats | None = None) -> Iterator[TraceRecord]:
    """The records of the trace at ``path`` in file order (times in us, offsets and sizes in bytes).

    ``fmt`` is ``"auto"`` (detected from the first line) or one of :data:`FORMATS`. ``stats``, when given,
    collects the counts of records, skipped bad lines and ignored lines."""
    if fmt != "auto" and fmt not in FORMATS:
        raise ConfigError(str(path), "format", fmt, f"expected auto or one of: {', '.join(FORMATS)}")
    stats = stats if stats is not None else ParseStats()
    first_lines(path, 1)  # an unreadable or empty file fails here, whatever the format
    chosen = detect_format(path) if fmt == "auto" else fmt
    parse = _line_parser(path, chosen)
    source = str(path)
    for number, raw in raw_lines(path):
        try:
            text = _decoded(source, number, raw)
            record = parse(text) if text else None
        except BadField as bad:
            error = _error(source, number, bad)
            if not skip_bad:
                raise error from None
            stats.note_bad(str(error))
            continue
        if record is None:
            stats.ignored_lines += bool(text)
            continue
        stats.records += 1
        yield record
