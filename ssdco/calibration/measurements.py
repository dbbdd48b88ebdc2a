"""Measured operating points of a drive, read from a plain CSV file or from fio's JSON output.

Each point is one closed-loop measurement: the queue depth kept in flight, the share of reads, the IOPS and the
mean latency (us) observed, optionally the 99th-percentile latency (us) and the request size (KiB). Every malformed
input is a :class:`~ssdco.errors.ConfigError` naming the file, the field (``row 3: iops``,
``jobs[1].read.iops``), the value and what is allowed.
"""

from __future__ import annotations

import csv
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from ssdco.errors import MISSING, ConfigError

#: The CSV columns: the first four are required, the others optional.
CSV_REQUIRED = ("queue_depth", "read_fraction", "iops", "mean_latency_us")
CSV_OPTIONAL = ("p99_us", "request_size_kib")
#: fio's ``rw`` modes and the share of reads each gives (mixed modes take ``rwmixread``).
FIO_READ_MODES = {"read": 1.0, "randread": 1.0, "write": 0.0, "randwrite": 0.0}
FIO_MIXED_MODES = ("rw", "readwrite", "randrw")
#: fio's size suffixes (``kb_base=1024``, its default): multiples of one byte.
FIO_SIZE_UNITS = {"": 1, "b": 1, "k": 1024, "kb": 1024, "kib": 1024, "m": 1024 ** 2, "mb": 1024 ** 2,
                  "mib": 1024 ** 2}
MAX_QUEUE_DEPTH = 65536


@dataclass(frozen=True)
class Point:
    """One measured operating point.

    ``queue_depth`` requests in flight, ``read_fraction`` in [0, 1], ``iops`` completed requests per second,
    ``mean_latency_us`` and ``p99_us`` (None when not measured) in microseconds, ``request_size_kib`` in KiB (None:
    the configuration's size). ``source`` says where the point came from (``file.csv row 2``, ``file.json
    jobs[0] (qd4)``)."""

    queue_depth: int
    read_fraction: float
    iops: float
    mean_latency_us: float
    p99_us: float | None = None
    request_size_kib: float | None = None
    source: str = ""

    def overrides(self) -> list[str]:
        """The ``--set`` overrides that put a configuration's workload at this point."""
        out = [f"workload.queue_depth={self.queue_depth}", f"workload.read_fraction={self.read_fraction!r}"]
        if self.request_size_kib is not None:
            out.append(f"workload.request_size_kib={self.request_size_kib!r}")
        return out


def _number(source: str, field: str, text: Any, *, positive: bool = True, hi: float | None = None) -> float:
    """``text`` as a finite number (> 0 with ``positive``, else >= 0; at most ``hi``), or a ConfigError."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        value = math.nan
    low_ok = value > 0 if positive else value >= 0
    if not (math.isfinite(value) and low_ok and (hi is None or value <= hi)):
        bound = "> 0" if positive else ">= 0"
        raise ConfigError(source, field, MISSING if text is None else text,
                          f"expected a finite number {bound}" + (f" and <= {hi:g}" if hi is not None else ""))
    return value


def _queue_depth(source: str, field: str, text: Any) -> int:
    """``text`` as a queue depth: a whole number in [1, MAX_QUEUE_DEPTH]."""
    value = _number(source, field, text, hi=MAX_QUEUE_DEPTH)
    if value != int(value):
        raise ConfigError(source, field, text, f"expected a whole number of requests in [1, {MAX_QUEUE_DEPTH}]")
    return int(value)


def _csv_header(path: str, header: Sequence[str] | None) -> list[str]:
    """The CSV's column names, checked: the required ones present, nothing else, none twice."""
    if not header:
        raise ConfigError(path, "header", MISSING, "expected a header line: " + ",".join(CSV_REQUIRED)
                          + "[," + ",".join(CSV_OPTIONAL) + "]")
    names = [h.strip() for h in header]
    known = CSV_REQUIRED + CSV_OPTIONAL
    for name in names:
        if name not in known:
            raise ConfigError(path, "header", name, f"unknown column; expected columns {', '.join(CSV_REQUIRED)} "
                                                    f"and optionally {', '.join(CSV_OPTIONAL)}")
        if names.count(name) > 1:
            raise ConfigError(path, "header", name, "a column may appear once")
    missing = [c for c in CSV_REQUIRED if c not in names]
    if missing:
        raise ConfigError(path, "header", ",".join(names), f"missing column(s) {', '.join(missing)}; expected "
                                                           + ",".join(CSV_REQUIRED) + " and optionally "
                                                           + ", ".join(CSV_OPTIONAL))
    return names


def _csv_point(path: str, number: int, row: Mapping[str, str]) -> Point:
    """Data row ``number`` (1 = the first after the header) of a measurement CSV as a :class:`Point`."""
    def field(name: str) -> str:
        return f"row {number}: {name}"

    def optional(name: str) -> float | None:
        text = (row.get(name) or "").strip()
        return None if not text else _number(path, field(name), text)

    return Point(queue_depth=_queue_depth(path, field("queue_depth"), row["queue_depth"]),
                 read_fraction=_number(path, field("read_fraction"), row["read_fraction"], positive=False, hi=1.0),
                 iops=_number(path, field("iops"), row["iops"]),
                 mean_latency_us=_number(path, field("mean_latency_us"), row["mean_latency_us"]),
                 p99_us=optional("p99_us"), request_size_kib=optional("request_size_kib"),
                 source=f"{Path(path).name} row {number}")


def read_csv(path: str | Path) -> tuple[Point, ...]:
    """The points of a measurement CSV: header ``queue_depth,read_fraction,iops,mean_latency_us`` and optionally
    ``p99_us`` and ``request_size_kib`` columns (an empty cell of an optional column: not measured), one row per
    point."""
    path = str(path)
    text = _read_text(path)
    reader = csv.reader(text.splitlines())
    header = _csv_header(path, next(reader, None))
    points = []
    for number, cells in enumerate(reader, start=1):
        if not any(c.strip() for c in cells):
            continue  # a blank line
        if len(cells) != len(header):
            raise ConfigError(path, f"row {number}", ",".join(cells),
                              f"expected {len(header)} cells ({','.join(header)}), got {len(cells)}")
        points.append(_csv_point(path, number, dict(zip(header, cells))))
    if not points:
        raise ConfigError(path, "rows", MISSING, "expected at least one data row after the header")
    return tuple(points)


def _read_text(path: str) -> str:
    """The UTF-8 text of ``path``, or a ConfigError saying why it cannot be read."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigError(path, "<file>", path, "expected UTF-8 text (a CSV file or fio's JSON output)") from None
    except OSError as e:
        raise ConfigError(path, "<file>", path, f"cannot read it: {e.strerror or e}") from None


# --------------------------------------------------------------------------------------------------
# fio --output-format=json
# --------------------------------------------------------------------------------------------------
def _fio_option(job: Mapping[str, Any], global_options: Mapping[str, Any], name: str) -> Any:
    """A fio option of ``job``: its own ``job options`` first, then the run's ``global options`` (None: unset)."""
    own = job.get("job options") or {}
    return own.get(name, global_options.get(name))


def _fio_read_fraction(path: str, where: str, job: Mapping[str, Any], glob: Mapping[str, Any]) -> float:
    """The share of reads of a fio job, from ``rw`` (and ``rwmixread`` or ``rwmixwrite`` for a mixed mode)."""
    rw = _fio_option(job, glob, "rw") or _fio_option(job, glob, "readwrite") or "read"  # fio's default: read
    mode = str(rw).split(":")[0].strip()
    if mode in FIO_READ_MODES:
        return FIO_READ_MODES[mode]
    if mode not in FIO_MIXED_MODES:
        raise ConfigError(path, f"{where}.job options.rw", rw, "expected one of "
                          + ", ".join((*FIO_READ_MODES, *FIO_MIXED_MODES)) + " (trim and other modes are not modelled)")
    mix_read = _fio_option(job, glob, "rwmixread")
    mix_write = _fio_option(job, glob, "rwmixwrite")
    if mix_read is not None:
        return _number(path, f"{where}.job options.rwmixread", mix_read, positive=False, hi=100) / 100.0
    if mix_write is not None:
        return 1.0 - _number(path, f"{where}.job options.rwmixwrite", mix_write, positive=False, hi=100) / 100.0
    return 0.5  # fio's default rwmixread


def _fio_size_kib(path: str, field: str, text: Any) -> float:
    """A fio size such as ``4k`` or ``4096`` (bytes; suffixes in powers of 1024, fio's default) in KiB."""
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*", str(text))
    unit = m.group(2).lower() if m else ""
    if m is None or unit not in FIO_SIZE_UNITS or float(m.group(1)) <= 0:
        raise ConfigError(path, field, text, "expected one block size such as 4k, 16k or 4096 (bytes); "
                                             "separate read,write sizes are not modelled")
    return float(m.group(1)) * FIO_SIZE_UNITS[unit] / 1024.0


def _fio_direction(path: str, where: str, job: Mapping[str, Any], name: str) -> tuple[float, float | None,
                                                                                      float | None]:
    """(IOPS, mean latency in us, p99 in us) of one direction (``read`` or ``write``) of a fio job; the latencies
    are None where the direction did no I/O. The mean is ``lat_ns`` (submission + completion, the time a request
    is in flight, so IOPS x mean = queue depth by Little's law), else ``clat_ns``; p99 from ``clat_ns``'s
    percentiles (fio records those by default)."""
    d = job.get(name)
    if not isinstance(d, Mapping):
        raise ConfigError(path, f"{where}.{name}", d if d is not None else MISSING, "expected fio's per-direction "
                          "table (is this fio --output-format=json output?)")
    iops = _number(path, f"{where}.{name}.iops", d.get("iops"), positive=False)
    if iops == 0:
        return 0.0, None, None
    key = "lat_ns" if isinstance(d.get("lat_ns"), Mapping) else "clat_ns"
    mean_ns = _number(path, f"{where}.{name}.{key}.mean", (d.get(key) or {}).get("mean"))
    percentiles = (d.get("clat_ns") or {}).get("percentile") or {}
    p99 = percentiles.get("99.000000")
    p99_us = None if p99 is None else _number(path, f"{where}.{name}.clat_ns.percentile[\"99.000000\"]", p99) / 1e3
    return iops, mean_ns / 1e3, p99_us


def _fio_point(path: str, index: int, job: Any, glob: Mapping[str, Any]) -> Point:
    """Job ``index`` of fio's ``jobs[]`` as a :class:`Point`: IOPS of reads and writes added, latencies weighted
    by each direction's IOPS."""
    where = f"jobs[{index}]"
    if not isinstance(job, Mapping):
        raise ConfigError(path, where, job, "expected a fio job table")
    if job.get("error", 0):
        raise ConfigError(path, f"{where}.error", job.get("error"), "expected 0: the job failed in fio")
    depth = _fio_option(job, glob, "iodepth")
    qd = 1 if depth is None else _queue_depth(path, f"{where}.job options.iodepth", depth)  # fio's default: 1
    read_fraction = _fio_read_fraction(path, where, job, glob)
    directions = [_fio_direction(path, where, job, name) for name in ("read", "write")]
    iops = sum(d[0] for d in directions)
    if iops <= 0:
        raise ConfigError(path, f"{where}.read.iops", 0, "expected I/O: read.iops + write.iops > 0")
    mean_us = sum(d[0] * d[1] for d in directions if d[1] is not None) / iops
    p99s = [d[2] for d in directions if d[0] > 0]
    p99 = max(p99s) if p99s and all(p is not None for p in p99s) else None  # upper bound of the mix's p99
    bs = _fio_option(job, glob, "bs") or _fio_option(job, glob, "blocksize")
    size = None if bs is None else _fio_size_kib(path, f"{where}.job options.bs", bs)
    name = job.get("jobname", "")
    return Point(queue_depth=qd, read_fraction=read_fraction, iops=iops, mean_latency_us=mean_us, p99_us=p99,
                 request_size_kib=size, source=f"{Path(path).name} {where}" + (f" ({name})" if name else ""))


def read_fio_json(path: str | Path) -> tuple[Point, ...]:
    """The points of fio's ``--output-format=json`` output, one per job of ``jobs[]``: queue depth from the job's
    (or the global) ``iodepth``, read share from ``rw``/``rwmixread``, IOPS = read.iops + write.iops, mean latency
    (us) weighted by each direction's IOPS, p99 (us) from ``clat_ns.percentile["99.000000"]`` (of a mix: the
    larger of the two directions'), request size from ``bs``."""
    path = str(path)
    text = _read_text(path)
    start = text.find("{")  # fio may print notes before the JSON document
    try:
        doc = json.loads(text[start:] if start >= 0 else text)
    except json.JSONDecodeError as e:
        raise ConfigError(path, "<syntax>", str(e), "expected fio's JSON output (fio --output-format=json)") from None
    jobs = doc.get("jobs") if isinstance(doc, Mapping) else None
    if not isinstance(jobs, list) or not jobs:
        raise ConfigError(path, "jobs", MISSING if jobs is None else jobs, "expected a non-empty list of fio jobs")
    glob = doc.get("global options") or {}
    return tuple(_fio_point(path, i, job, glob) for i, job in enumerate(jobs))


def read_measurements(paths: Sequence[str | Path]) -> tuple[Point, ...]:
    """The points of every file in ``paths``, in order: fio JSON where the file's first character is ``{`` or it
    ends in ``.json``, a measurement CSV otherwise."""
    points: list[Point] = []
    for path in paths:
        text = _read_text(str(path))
        is_json = str(path).lower().endswith(".json") or text.lstrip().startswith("{")
        points.extend(read_fio_json(path) if is_json else read_csv(path))
    return tuple(points)
