"""What the pyarrow-parsed readers share: a block of whole lines read as a table, or declined.

A reader's line parser is the specification; a block parser built on :func:`block_reader` gives the same records or
``None`` (then the caller parses the block line by line and reports a bad line by its number). It declines non-ASCII
text (the line parser decodes UTF-8 and strips Unicode whitespace), a carriage return that does not end a line
(pyarrow takes it for a line end), anything pyarrow cannot convert (with no null values and no quoting), a
direction outside the reader's names, and values out of a record's range.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from ssdco.trace.chunk import TraceChunk
from ssdco.trace.record import MAX_BYTES


def block_reader(names: list[str], types: Mapping[str, pa.DataType],
                 delimiter: str = ",") -> Callable[[bytes], pa.Table | None]:
    """A reader of blocks of lines of the columns ``names`` (``types``: the ones kept, and their types): the table,
    or ``None`` for a block pyarrow would read differently from a line parser (module docstring)."""
    read = pacsv.ReadOptions(column_names=names, use_threads=False, block_size=1 << 26)
    parse = pacsv.ParseOptions(delimiter=delimiter, quote_char=False, ignore_empty_lines=True)
    convert = pacsv.ConvertOptions(column_types=dict(types), include_columns=list(types), null_values=[],
                                   strings_can_be_null=False, quoted_strings_can_be_null=False)

    def read_block(data: bytes) -> pa.Table | None:
        if not data.isascii() or (b"\r" in data and data.count(b"\r") != data.count(b"\r\n")):
            return None
        try:
            return pacsv.read_csv(pa.py_buffer(data), read_options=read, parse_options=parse, convert_options=convert)
        except pa.ArrowInvalid:
            return None

    return read_block


def write_flags(column: pa.ChunkedArray, direction: Callable[[str], bool | None]) -> np.ndarray | None:
    """Each row's write flag from its direction text (``direction``: True for a write, False for a read, None for
    anything else); ``None`` when a row's text is none of them."""
    words = column.combine_chunks().dictionary_encode()
    flags = [direction(text) for text in words.dictionary.to_pylist()]
    if None in flags:
        return None
    return np.array(flags, dtype=bool)[words.indices.to_numpy(zero_copy_only=False)]


def checked_chunk(time_us: np.ndarray, is_write: np.ndarray, offsets: np.ndarray,
                  sizes: np.ndarray) -> TraceChunk | None:
    """The records as a chunk when every one is in range (a finite time >= 0, an offset in ``[0, MAX_BYTES]``, a
    size in ``[1, MAX_BYTES]``), else ``None``."""
    if not (np.all(time_us >= 0.0) and np.all(np.isfinite(time_us)) and np.all(offsets >= 0) and np.all(sizes >= 1)
            and np.all(offsets <= MAX_BYTES) and np.all(sizes <= MAX_BYTES)):
        return None
    return TraceChunk(time_us, is_write, offsets, sizes)
