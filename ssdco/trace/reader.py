"""Streamed trace input: open (gzip by its magic bytes), detect the format, parse block by block.

Memory does not grow with the trace: the file is read a block of whole lines at a time and its records yielded
as a chunk of arrays (or one by one by :func:`read_trace`).
A malformed line raises :class:`~ssdco.errors.ConfigError` naming the file, ``line N: field``, the value and
what is accepted; with ``skip_bad`` it is counted in :class:`~ssdco.trace.record.ParseStats` and skipped
(an unreadable file, a truncated gzip stream, an empty file and a bad fio header are never skipped).
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

from ssdco.errors import ConfigError
from ssdco.trace.blkparse import blkparse_line_parser, is_issue_line, looks_like_blkparse
from ssdco.trace.chunk import EMPTY_CHUNK, TraceChunk, unchunked
from ssdco.trace.fio import fio_block_parser, fio_line_parser, iolog_version, looks_like_fio
from ssdco.trace.msr import looks_like_msr, parse_msr_block, parse_msr_line
from ssdco.trace.record import BadField, ParseStats, TraceRecord

FORMATS = ("msr", "blkparse", "fio")
GZIP_MAGIC = b"\x1f\x8b"
_DETECT_LINES = 20
BLOCK_BYTES = 4 << 20  # bytes of whole lines read and parsed at a time
MAX_LINE_BYTES = 1 << 20  # a longer line is refused (a binary file has no line ends to stop at)
PEEL_LINES = 64  # lines at each end of a block that the line parser may take off before the fast path
LineParser = Callable[[str], "TraceRecord | None"]


def _open(path: str | Path) -> BinaryIO:
    """The file at ``path`` opened for binary reading, through gzip when it starts with gzip's magic bytes."""
    try:
        with open(path, "rb") as probe:
            compressed = probe.read(2) == GZIP_MAGIC
        return gzip.open(path, "rb") if compressed else open(path, "rb")
    except OSError as e:
        raise ConfigError(str(path), "file", str(path), f"expected a readable trace file ({e.strerror or e})") from None


def raw_lines(path: str | Path) -> Iterator[tuple[int, bytes]]:
    """``(line number, undecoded line)`` of the file at ``path``, gunzipped when it starts with gzip's magic."""
    source = str(path)
    handle = _open(path)
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
    return unchunked(read_trace_chunks(path, fmt, skip_bad, stats))


def read_trace_chunks(path: str | Path, fmt: str = "auto", skip_bad: bool = False,
                      stats: ParseStats | None = None) -> Iterator[TraceChunk]:
    """The records of the trace at ``path`` as :class:`~ssdco.trace.chunk.TraceChunk` s, in file order; the same
    records, errors and ``stats`` as :func:`read_trace`.

    The file is read in blocks of whole lines (:data:`BLOCK_BYTES`). An MSR or fio block is parsed by pyarrow's
    CSV reader (:func:`~ssdco.trace.msr.parse_msr_block`, :func:`~ssdco.trace.fio.fio_block_parser`), past the
    lines at its ends that the line parser ignores; a block it declines, and every blkparse block, is parsed line
    by line, so a bad line is reported by its number whichever path meets it."""
    if fmt != "auto" and fmt not in FORMATS:
        raise ConfigError(str(path), "format", fmt, f"expected auto or one of: {', '.join(FORMATS)}")
    stats = stats if stats is not None else ParseStats()
    first_lines(path, 1)  # an unreadable or empty file fails here, whatever the format
    chosen = detect_format(path) if fmt == "auto" else fmt
    parse = _line_parser(path, chosen)
    source = str(path)
    parse_block = _block_parser(path, chosen)
    for first_number, block in raw_blocks(path):
        chunk = None
        if parse_block is not None:
            start, end, ignored = _ignorable_ends(block, parse)
            chunk = parse_block(block[start:end]) if start < end else EMPTY_CHUNK
            if chunk is not None:
                stats.ignored_lines += ignored
        if chunk is None:
            chunk = _parse_lines(block, first_number, source, parse, skip_bad, stats)
        stats.records += len(chunk)
        if len(chunk):
            yield chunk


def raw_blocks(path: str | Path, block_bytes: int = 0) -> Iterator[tuple[int, bytes]]:
    """``(number of the first line, undecoded whole lines)`` of the file at ``path``, about ``block_bytes`` (default
    :data:`BLOCK_BYTES`) at a time, gunzipped when it starts with gzip's magic; the last line may lack its newline."""
    source = str(path)
    handle = _open(path)
    lines_before = 0
    carry = b""
    with handle:
        while True:
            try:
                data = handle.read(block_bytes or BLOCK_BYTES)
            except (EOFError, gzip.BadGzipFile, zlib.error) as e:
                number = lines_before + carry.count(b"\n") + 1
                raise ConfigError(source, f"line {number}: gzip stream", str(e),
                                  "expected a complete gzip file (the stream ends or breaks before its end)") from None
            if not data:
                break
            data = carry + data
            end = data.rfind(b"\n") + 1
            if end == 0:
                if len(data) > MAX_LINE_BYTES:
                    raise ConfigError(source, f"line {lines_before + 1}: length", f"over {MAX_LINE_BYTES:,} bytes",
                                      "expected text lines of a block trace (is this a trace file?)")
                carry = data
                continue
            carry = data[end:]
            yield lines_before + 1, data[:end]
            lines_before += data.count(b"\n", 0, end)
    if carry:
        yield lines_before + 1, carry


def _block_parser(path: str | Path, fmt: str) -> Callable[[bytes], TraceChunk | None] | None:
    """The format's parser of whole blocks (pyarrow's CSV reader), or None where there is none (blkparse)."""
    if fmt == "msr":
        return parse_msr_block
    if fmt == "fio":
        return fio_block_parser(iolog_version(first_lines(path, 1)[0][1]))
    return None


def _ignored_line(raw: bytes, parse: LineParser) -> int | None:
    """``None`` when the line parser takes ``raw`` to a record or an error; else what it adds to the ignored
    lines: 1, or 0 for a blank line."""
    try:
        text = raw.decode("utf-8").strip()
        if text and parse(text) is not None:
            return None
    except (UnicodeDecodeError, BadField):
        return None
    return int(bool(text))


def _ignorable_ends(block: bytes, parse: LineParser) -> tuple[int, int, int]:
    """Where the block's data lines start and end, past up to :data:`PEEL_LINES` lines at each end that the line
    parser ignores (a header, fio's ``add``/``open``/``close``), so that the rest can take the fast path; and how
    many of the lines passed count as ignored lines (the blank ones do not)."""
    start = ignored = 0
    for _ in range(PEEL_LINES):
        end = block.find(b"\n", start)
        line_end = len(block) if end < 0 else end
        counted = None if start >= len(block) else _ignored_line(block[start:line_end], parse)
        if counted is None:
            break
        ignored += counted
        start = line_end + 1
    stop = len(block) - block.endswith(b"\n")  # the end of the last line's text
    body_end = len(block)
    for _ in range(PEEL_LINES):
        if stop <= start:
            break
        newline = block.rfind(b"\n", start, stop)
        line_start = start if newline < 0 else newline + 1
        counted = _ignored_line(block[line_start:stop], parse)
        if counted is None:
            break
        ignored += counted
        body_end, stop = line_start, max(line_start - 1, start)
    return min(start, len(block)), max(body_end, min(start, len(block))), ignored


def _parse_lines(block: bytes, first_number: int, source: str, parse: LineParser, skip_bad: bool,
                 stats: ParseStats) -> TraceChunk:
    """The records of ``block`` parsed line by line, its first line numbered ``first_number``."""
    lines = block.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    records = []
    for number, raw in enumerate(lines, start=first_number):
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
        records.append(record)
    return TraceChunk.from_records(records)
