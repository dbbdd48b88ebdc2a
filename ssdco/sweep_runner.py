"""Parameter sweeps: a cartesian grid of ``--set``-style overrides, evaluated point by point into a CSV.

From Python call ``ssdco.sweep(config, grid, ...)`` (:func:`ssdco.api.sweep`; this module is callable as it):
it returns the rows as a :class:`ssdco.api.SweepTable` (``.to_frame()`` for a DataFrame).

A grid is one or more axes ``path.to.field=v1,v2,...``; every value is a TOML literal exactly as for
``ssdco whatif --set`` (a bare word that is not valid TOML is taken as a string, so
``--grid controller=c01,c07`` works). Commas inside ``[...]``, ``{...}`` or quotes do not split values,
so ``--grid 'workload.request_size_kib=4,[4, 8]'`` has two values. Points are the cartesian product in
the order given (the last axis varies fastest), made one at a time as the sweep reaches them. Every value of
every axis, and every firmware placement the grid makes, is validated before anything runs: a bad axis or value
raises :class:`~ssdco.errors.ConfigError` naming the field and value; a point whose values are each valid but
not together gets the error in its row's ``error`` column. So a sweep of any size starts writing at once.

Each point is solved by the analytic model (:func:`ssdco.evaluate`) and, when ``des_requests > 0``, also
simulated (:func:`ssdco.validation.compare.validate`, same ``seed`` at every point: common random numbers),
with ``replications`` more DES runs from other seeds to check that the DES's IOPS does not depend on its seed
(as ``ssdco validate``; default 0: one run per point, ``"auto"``: validate's default for each point), unless
the point is an open workload beyond capacity: its row is the analytic answer (``stable`` false) with empty
DES columns.
The result is flattened into one CSV row (columns in :func:`sweep_columns`).

**Resumable output.** Rows are appended strictly in grid order (results that finish early wait in memory
until the rows before them are written), each row is flushed at once and fsync'ed at least every
``FSYNC_SECONDS``. Every row carries its grid ``index``, a readable ``key`` and a ``sweep_id`` (a hash of
the configuration, controller, grid, DES settings, seed and ssdco's source code). Running the same sweep
again reads the file, checks that the header and every row's index, key and sweep_id match, drops a
half-written last line, and continues after the last complete row: nothing is lost or written twice, and
the finished file is byte-identical to an uninterrupted run (every value is deterministic; no wall-clock
columns).

**Where points run.** In this process (``workers=1``), in a local process pool
(:class:`concurrent.futures.ProcessPoolExecutor`, ``workers > 1``), or on a Dask cluster
(``scheduler="tcp://host:8786"``; needs the ``sweep`` extra, ``pip install 'ssdco[sweep]'``, and ssdco
installed on the workers). Parquet output uses ``pyarrow`` (a dependency).
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import itertools
import json
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from ssdco.atomic import check_output_path, write_bytes_atomic
from ssdco.display import POWER_PARTS, flatten_validation, flatten_whatif
from ssdco.errors import ConfigError, SsdcoError
from ssdco.spec import apply_overrides, config_from_dict, load_config, parse_override

__all__ = ["GridAxis", "GridPoint", "SweepError", "SweepPlan", "SweepSummary", "parse_grid", "parse_grid_spec",
           "plan_sweep", "run_sweep", "sweep_columns", "evaluate_point", "read_sweep_csv", "check_outputs"]

GRID_SOURCE = "--grid"
FSYNC_SECONDS = 0.5
BUDGET_NAMES = ("core_power", "dram_power", "min_iops")  # the keys of Result.to_dict()["budgets"]
WINDOW_PER_WORKER = 4  # points in flight (submitted or finished but not yet written) per worker


class SweepError(SsdcoError):
    """A sweep cannot run: missing optional dependency, unreachable scheduler, or a foreign output file."""


# --------------------------------------------------------------------------------------------------
# Grid parsing
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GridAxis:
    """One grid axis: a dotted config field and its values (literal text and parsed value)."""

    field: str
    tokens: tuple[str, ...]
    values: tuple[Any, ...]


@dataclass(frozen=True)
class GridPoint:
    """One point of the grid: its position, a readable key and the ``--set`` overrides that make it."""

    index: int
    key: str
    tokens: tuple[str, ...]
    overrides: tuple[str, ...]


def _split_values(text: str) -> list[str]:
    """Split on commas that are not inside brackets, braces or quotes."""
    parts, buf, depth, quote = [], [], 0, ""
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            buf.append(ch)
            if ch == "\\" and quote == '"' and i + 1 < len(text):
                buf.append(text[i + 1])
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
            buf.append(ch)
        elif ch in "[{":
            depth += 1
            buf.append(ch)
        elif ch in "]}":
            depth -= 1
            buf.append(ch)
        elif ch == "," and depth == 0:
            parts.append("".join(buf).strip())
            buf = []
        else:
            buf.append(ch)
        i += 1
    parts.append("".join(buf).strip())
    return parts


def parse_grid_spec(text: str) -> GridAxis:
    """Parse one ``path.to.field=v1,v2,...`` axis (values are TOML literals, as for ``--set``)."""
    if "=" not in text:
        raise ConfigError(GRID_SOURCE, text, text, "expected path.to.field=value1,value2,...")
    field, values_text = (s.strip() for s in text.split("=", 1))
    if not field or any(not p for p in field.split(".")):
        raise ConfigError(GRID_SOURCE, field or "<empty>", text,
                          "expected a dotted field path such as workload.queue_depth")
    tokens = _split_values(values_text)
    if any(not t for t in tokens):
        raise ConfigError(GRID_SOURCE, field, values_text,
                          "expected a comma-separated list of values with no empty entries")
    values = tuple(parse_override(f"{field}={t}")[1] for t in tokens)
    if len(set(tokens)) != len(tokens):
        dup = next(t for t in tokens if tokens.count(t) > 1)
        raise ConfigError(GRID_SOURCE, field, dup, "each value may appear once per axis")
    seen: dict[str, str] = {}
    for token, value in zip(tokens, values):
        key = _value_key(value)
        if key in seen:
            raise ConfigError(GRID_SOURCE, field, token, f"the same value as {seen[key]}: each value may appear once "
                                                         "per axis")
        seen[key] = token
    return GridAxis(field=field, tokens=tuple(tokens), values=values)


def _value_key(value: Any) -> str:
    """A key equal for equal grid values however they are spelled (1 and 1.0, 0.5 and 5e-1), and different for a
    boolean and a number (True is not 1 in a device file)."""
    if isinstance(value, bool):
        return f"bool:{value}"
    if isinstance(value, (int, float)):
        return f"number:{float(value)!r}"
    return f"{type(value).__name__}:{json.dumps(value, sort_keys=True, default=str)}"


def parse_grid(specs: Iterable[str]) -> tuple[GridAxis, ...]:
    """Parse every ``--grid`` argument; at least one axis, each field at most once."""
    axes = tuple(parse_grid_spec(s) for s in specs)
    if not axes:
        raise ConfigError(GRID_SOURCE, "<none>", [], "give at least one --grid path.to.field=v1,v2,...")
    seen: set[str] = set()
    for a in axes:
        if a.field in seen:
            raise ConfigError(GRID_SOURCE, a.field, list(a.tokens), "each field may be one grid axis only")
        seen.add(a.field)
    return axes


class GridPoints(Sequence[GridPoint]):
    """The cartesian product of grid axes in order (last axis fastest), each point made when asked for: the memory
    of a grid does not grow with its number of points."""

    def __init__(self, axes: Sequence[GridAxis]):
        self.axes = tuple(axes)
        self._sizes = tuple(len(a.tokens) for a in self.axes)
        self._count = math.prod(self._sizes) if self.axes else 0

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(self._count))]
        if i < 0:
            i += self._count
        if not 0 <= i < self._count:
            raise IndexError(f"grid point {i} of {self._count}")
        digits = []
        rest = i
        for size in reversed(self._sizes):
            rest, d = divmod(rest, size)
            digits.append(d)
        tokens = tuple(a.tokens[d] for a, d in zip(self.axes, reversed(digits)))
        overrides = tuple(f"{a.field}={t}" for a, t in zip(self.axes, tokens))
        return GridPoint(index=i, key=";".join(overrides), tokens=tokens, overrides=overrides)

    def __eq__(self, other) -> bool:
        return isinstance(other, GridPoints) and other.axes == self.axes

    def __hash__(self) -> int:
        return hash(self.axes)

    def __repr__(self) -> str:
        return f"GridPoints({self._count:,} points over {', '.join(a.field for a in self.axes)})"


def grid_points(axes: Sequence[GridAxis]) -> GridPoints:
    """The cartesian product of ``axes`` in order (last axis fastest), as a lazy sequence (:class:`GridPoints`)."""
    return GridPoints(axes)


def representative_points(points: GridPoints) -> list[GridPoint]:
    """The points a sweep validates before it runs: each value of each axis once (the other axes at their first
    values), and every combination of the axes that place the firmware (``controller``...), which decide the
    stations and so the CSV's columns. Their number is the sum of the axes' lengths plus the product of the
    placement axes' lengths, not the grid's size."""
    axes, sizes = points.axes, [len(a.tokens) for a in points.axes]

    def index_of(digits: Sequence[int]) -> int:
        i = 0
        for d, size in zip(digits, sizes):
            i = i * size + d
        return i

    chosen = {0}
    for k, size in enumerate(sizes):
        for d in range(size):
            chosen.add(index_of([d if j == k else 0 for j in range(len(axes))]))
    placing = [k for k, a in enumerate(axes) if a.field == "controller" or a.field.startswith("controller.")]
    for combo in itertools.product(*(range(sizes[k]) for k in placing)):
        digits = [0] * len(axes)
        for k, d in zip(placing, combo):
            digits[k] = d
        chosen.add(index_of(digits))
    return [points[i] for i in sorted(chosen)]


# --------------------------------------------------------------------------------------------------
# Columns and rows
# --------------------------------------------------------------------------------------------------
def sweep_columns(grid_fields: Sequence[str], stations: Sequence[str], des: bool) -> list[str]:
    """CSV header: identity columns, grid values, analytic metrics, then DES metrics when ``des``."""
    metric = ["controller", "stable", "method", "bottleneck", "limited_by", "iops", "latency_us.mean", "latency_us.p99",
              "bounds.capacity_iops", "caveats", "flow_correction_share"]
    # a grid field named like a metric column (only "controller" can be) replaces it: the grid value is kept
    cols = ["index", "key", "sweep_id", *grid_fields, "error", *(c for c in metric if c not in grid_fields)]
    cols += [f"utilization.{s}" for s in stations]
    cols += [f"power_mw.{p}" for p in POWER_PARTS]
    cols += ["energy_per_io_nj"]
    for b in BUDGET_NAMES:
        cols += [f"budgets.{b}.value", f"budgets.{b}.met"]
    if des:
        cols += ["des.iops", "des.iops_ci95_low", "des.iops_ci95_high", "des.latency_us.mean", "des.latency_us.p50",
                 "des.latency_us.p99", "des.latency_us.p99_9"]
        cols += [f"des.utilization.{s}" for s in stations]
        cols += [f"des.power_mw.{p}" for p in POWER_PARTS]
        cols += ["des.energy_per_io_nj"] + [f"des.budgets.{b}.met" for b in BUDGET_NAMES]
        cols += ["rel_error.iops", "rel_error.latency_mean_us", "rel_error.latency_p99_us",
                 "rel_error.power_total_mw", "agrees"]
        # the seed check (replications.py): empty where the point's DES made one run
        cols += ["des.runs", "des.runs_iops_spread", "des.unsettled"]
    return cols


def _cell(v: Any) -> str:
    """Deterministic text of one value: shortest round-trip floats, true/false, empty for missing."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else ""
    return str(v)


def _csv_line(cells: Sequence[str]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(cells)
    return buf.getvalue()


# --------------------------------------------------------------------------------------------------
# Evaluating one point (runs in a worker: module-level and picklable)
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PointTask:
    """Everything a worker needs to evaluate one grid point (plain data, picklable)."""

    index: int
    raw: Mapping[str, Any]
    source: str
    base_dir: str
    controller: str | None
    des_requests: int
    seed: int
    replications: int | str = 0  # extra DES runs of the seed check, or "auto" (compare.validate)
    fast: bool = False  # skip the Markov chain of the requests' draws (whatif --fast)


def evaluate_point(task: PointTask) -> tuple[int, dict[str, Any]]:
    """Evaluate one grid point; returns ``(index, flat metrics)``. A model error becomes an ``error`` cell."""
    from ssdco.model.whatif import evaluate

    try:
        config = config_from_dict(task.raw, source=task.source, base_dir=task.base_dir, controller=task.controller)
        # an open workload beyond capacity is an answer (stable = false); the DES would never finish
        chain = not task.fast
        analytic = (evaluate(config,
                             effort="full" if chain else "fast") if task.des_requests == 0 or not config.workload.closed
                    else None)
        if task.des_requests > 0 and (analytic is None or analytic.stable):
            from ssdco.validation.compare import validate

            row = flatten_validation(validate(config, requests=task.des_requests, seed=task.seed,
                                              replications=task.replications, markov_chain=chain).to_dict())
        else:
            row = flatten_whatif(analytic.to_dict())
    except SsdcoError as e:
        row = {"error": f"{type(e).__name__}: {e}"}
    return task.index, row


# --------------------------------------------------------------------------------------------------
# Planning
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SweepPlan:
    """A validated sweep: base configuration, grid points, CSV header and identity hash."""

    config_path: str
    base_raw: Mapping[str, Any]
    controller: str | None
    axes: tuple[GridAxis, ...]
    points: GridPoints
    columns: tuple[str, ...]
    sweep_id: str
    des_requests: int
    seed: int
    replications: int | str = 0
    fast: bool = False  # whatif --fast at every point: the Markov chain of the requests' draws skipped

    def task(self, point: GridPoint) -> PointTask:
        """The worker task of ``point``."""
        path = Path(self.config_path)
        return PointTask(index=point.index, raw=apply_overrides(dict(self.base_raw), list(point.overrides)),
                         source=str(path), base_dir=str(path.parent), controller=self.controller,
                         des_requests=self.des_requests, seed=self.seed, replications=self.replications,
                         fast=self.fast)


def _check_run_options(des_requests: int, seed: int, replications: int | str) -> None:
    """Refuse a bad ``--des-requests``, ``--seed`` or ``--replications`` (extra runs need the DES)."""
    from ssdco.sim.replications import MAX_REPLICATIONS

    if isinstance(des_requests, bool) or int(des_requests) != des_requests or des_requests < 0:
        raise ConfigError("--des-requests", "des_requests", des_requests, "expected an integer >= 0")
    if isinstance(seed, bool) or int(seed) != seed or seed < 0:
        raise ConfigError("--seed", "seed", seed, "expected an integer >= 0")
    if replications != "auto" and (isinstance(replications, bool) or not isinstance(replications, int)
                                   or not 0 <= replications <= MAX_REPLICATIONS):
        raise ConfigError("--replications", "replications", replications,
                          f"expected auto or an integer in [0, {MAX_REPLICATIONS:,}]")
    if replications != 0 and des_requests == 0:
        raise ConfigError("--replications", "replications", replications,
                          "extra DES runs need the DES: give --des-requests N as well")


def _point_stations(path: Path, base_raw: Mapping[str, Any], points: Sequence[GridPoint],
                    controller: str | None) -> list[str]:
    """Validate the configuration of each of ``points`` (an error names the point); the stations of all of them, in
    order of first appearance."""
    from ssdco.network.build import build_network

    stations: dict[str, None] = {}
    for p in points:
        raw = apply_overrides(base_raw, list(p.overrides))
        try:
            cfg = config_from_dict(raw, source=str(path), base_dir=path.parent, controller=controller)
        except ConfigError as e:
            raise ConfigError(f"{GRID_SOURCE} point {p.key}", e.field, e.value, e.allowed) from None
        for ld in build_network(cfg).loads():
            stations.setdefault(ld.name)
    return list(stations)


def plan_sweep(config_path: str | Path, grid: Sequence[str], *, controller: str | None = None,
               overrides: Sequence[str] = (), des_requests: int = 0, seed: int = 0,
               replications: int | str = 0, fast: bool = False) -> SweepPlan:
    """Parse the grid and validate its representative points (:func:`representative_points`: every value of every
    axis, every firmware placement) before anything runs; a point whose values are each valid but not together
    gets its error in its row. ``fast``: every point's analytic answer skips the Markov chain of the requests'
    draws (``whatif --fast``; part of the sweep's id).

    Raises
    ------
    ConfigError
        A malformed axis, or a value that makes an invalid configuration (naming the field and value).
    """
    _check_run_options(des_requests, seed, replications)
    axes = parse_grid(grid)
    if controller is not None and any(a.field == "controller" for a in axes):
        raise ConfigError(GRID_SOURCE, "controller", controller,
                          "a grid over 'controller' cannot be combined with --controller")
    path = Path(config_path)
    base = load_config(path, controller=controller, overrides=list(overrides))
    base_raw = dict(base.raw)
    points = grid_points(axes)
    stations = _point_stations(path, base_raw, representative_points(points), controller)
    columns = tuple(sweep_columns([a.field for a in axes], stations, des_requests > 0))
    identity = {"config": base_raw, "controller": controller, "resolved_controller": asdict(base.controller),
                "grid": [[a.field, list(a.tokens)] for a in axes], "des_requests": int(des_requests),
                "seed": int(seed), "replications": replications, "columns": list(columns),
                "code": code_fingerprint()}
    if fast:  # only when set, so that a sweep without --fast keeps the id it has without the key
        identity["fast"] = True
    sweep_id = hashlib.sha256(json.dumps(identity, sort_keys=True, default=str).encode()).hexdigest()[:12]
    return SweepPlan(config_path=str(path), base_raw=base_raw, controller=controller, axes=axes,
                     points=points, columns=columns, sweep_id=sweep_id, des_requests=int(des_requests),
                     seed=int(seed), replications=replications, fast=bool(fast))


def _row_cells(plan: SweepPlan, point: GridPoint, metrics: Mapping[str, Any]) -> list[str]:
    values: dict[str, Any] = {"index": point.index, "key": point.key, "sweep_id": plan.sweep_id}
    values.update(metrics)
    values.update({a.field: t for a, t in zip(plan.axes, point.tokens)})
    return [_cell(values.get(c)) for c in plan.columns]


# --------------------------------------------------------------------------------------------------
# Resumable CSV
# --------------------------------------------------------------------------------------------------
def code_fingerprint() -> str:
    """SHA-256 (first 12 hex digits) of ssdco's own source files: part of every ``sweep_id``, so a sweep
    is not resumed into a file that an older version of the model or the DES started."""
    return source_fingerprint()


@lru_cache(maxsize=8)
def source_fingerprint(exclude: tuple[str, ...] = ()) -> str:
    """SHA-256 (first 12 hex digits) of ssdco's ``.py`` files, leaving out the sub-packages in ``exclude``
    (e.g. ``("model",)``: what a cached DES result depends on)."""
    package_dir = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for f in sorted(package_dir.rglob("*.py")):
        rel = f.relative_to(package_dir)
        if not set(rel.parts[:-1]) & set(exclude):
            digest.update(rel.as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def _foreign(path: Path, what: str, value: Any) -> ConfigError:
    return ConfigError(str(path), what, value,
                       "the existing file was written by a different sweep (grid, config, controller, DES requests, "
                       "seed or ssdco's source code differ); delete it or choose another --out")


def resume_point(path: Path, plan: SweepPlan) -> int:
    """Prepare ``path`` for appending; return how many grid points it already holds.

    A missing or empty file (or one holding only a partial header) gets a fresh header. Otherwise the header
    must match, every complete row must be the next grid point of this sweep, and a half-written last line
    (no newline at its end) is cut off."""
    header = _csv_line(plan.columns)
    if not path.exists() or path.stat().st_size == 0:
        write_bytes_atomic(path, header.encode())
        return 0
    data = path.read_bytes()
    first_nl = data.find(b"\n")
    if first_nl < 0:
        if not header.encode().startswith(data):  # not a header this sweep was killed while writing
            got = data[:120].decode("utf-8", "replace")
            raise ConfigError(str(path), "header", got, "not a sweep's CSV (or one of another sweep): ssdco sweep "
                              "writes only to a new file or one an earlier run of the same sweep wrote; "
                              "choose another --out")
        write_bytes_atomic(path, header.encode())
        return 0
    if data[:first_nl + 1].decode("utf-8", "replace") != header:
        got = data[:first_nl].decode("utf-8", "replace")
        raise _foreign(path, "header", got[:120] + ("..." if len(got) > 120 else ""))
    last_nl = data.rfind(b"\n")
    if last_nl + 1 < len(data):  # a half-written last line: drop it
        with open(path, "r+b") as f:
            f.truncate(last_nl + 1)
            f.flush()
            os.fsync(f.fileno())
    try:
        body = data[first_nl + 1:last_nl + 1].decode("utf-8")
        rows = list(csv.reader(io.StringIO(body)))
    except (UnicodeDecodeError, csv.Error) as e:
        raise _foreign(path, "rows", f"not a CSV this sweep wrote ({e})") from None
    if len(rows) > len(plan.points):
        raise _foreign(path, "rows", len(rows))
    for i, row in enumerate(rows):
        if len(row) != len(plan.columns):
            raise _foreign(path, f"row {i + 1}", f"{len(row)} fields, header has {len(plan.columns)}")
        if row[0] != str(i) or row[1] != plan.points[i].key or row[2] != plan.sweep_id:
            raise _foreign(path, f"row {i + 1}", ",".join(row[:3]))
    return len(rows)


def read_sweep_csv(path: str | Path) -> list[dict[str, str]]:
    """Rows of a sweep CSV as dicts of strings (complete lines only)."""
    text = Path(path).read_text(encoding="utf-8")
    if not text.endswith("\n"):
        text = text[:text.rfind("\n") + 1]
    return list(csv.DictReader(io.StringIO(text)))


def _count_errors(path: Path) -> int:
    """Rows of the sweep CSV at ``path`` with an error, read a row at a time (memory independent of its length)."""
    with open(path, newline="", encoding="utf-8") as f:
        return sum(1 for row in csv.DictReader(f) if row.get("error"))


def write_parquet(csv_path: str | Path, parquet_path: str | Path) -> None:
    """Convert a finished sweep CSV to Parquet (atomically). Needs ``pyarrow``."""
    pa_csv, pq = _import_pyarrow()
    table = pa_csv.read_csv(str(csv_path))
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    write_bytes_atomic(parquet_path, buffer.getvalue())


def check_outputs(out: str | Path, parquet: str | Path | None = None) -> None:
    """Refuse, before any point runs, a ``--out`` or ``--parquet`` that could not be written (see
    :func:`ssdco.atomic.check_output_path`), or one Parquet file that would replace the CSV."""
    check_output_path(out, "--out")
    if parquet is not None:
        check_output_path(parquet, "--parquet")
        if Path(parquet).resolve() == Path(out).resolve():
            raise ConfigError("--parquet", "parquet", str(parquet),
                              f"is the same file as --out {str(out)!r}; expected another path (e.g. .parquet)")


def _import_pyarrow():
    try:
        import pyarrow.csv as pa_csv
        import pyarrow.parquet as pq
    except ImportError:
        raise SweepError("--parquet needs pyarrow, which is not installed: pip install pyarrow") from None
    return pa_csv, pq


# --------------------------------------------------------------------------------------------------
# Executors
# --------------------------------------------------------------------------------------------------
class _Done:
    """An already finished 'future'."""

    def __init__(self, value):
        self.value = value

    def result(self):
        return self.value


class _Serial:
    """Evaluates in this process; ``submit`` returns the finished result."""

    window = 1

    def submit(self, task: PointTask):
        return _Done(evaluate_point(task))

    def close(self) -> None:
        pass


PARENT_POLL_S = 0.5  # how often a worker checks that the sweep that started it is still there


def _die_with_parent(parent_pid: int) -> None:
    """Worker initializer: end this worker when the sweep that started it ends, even by ``kill -9`` (which gives
    the sweep no chance to stop its pool). On Linux the kernel sends SIGKILL at once (``prctl``'s parent-death
    signal); everywhere a daemon thread also ends the worker within ``PARENT_POLL_S`` of its parent's death (once
    the point in hand lets Python run), when the worker is handed to another parent."""
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # 1: PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass  # no prctl: the thread below still ends the worker

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(PARENT_POLL_S)
        os._exit(1)

    if os.getppid() != parent_pid:  # the parent died before the signal was set
        os._exit(1)
    threading.Thread(target=watch, name="ssdco-parent-watch", daemon=True).start()


class _Pool:
    """A local process pool whose workers end with the sweep (:func:`_die_with_parent`)."""

    def __init__(self, workers: int):
        from concurrent.futures import ProcessPoolExecutor

        # spawn: workers start clean (no inherited threads, e.g. tqdm's monitor) on every platform
        self.ex = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                                      initializer=_die_with_parent, initargs=(os.getpid(),))
        self.window = WINDOW_PER_WORKER * workers

    def submit(self, task: PointTask):
        return self.ex.submit(evaluate_point, task)

    def close(self) -> None:
        self.ex.shutdown(wait=True, cancel_futures=True)


class _Dask:
    """A Dask cluster reached through its scheduler address."""

    def __init__(self, address: str, connect_timeout_s: float):
        try:
            from dask.distributed import Client
        except ImportError:
            raise SweepError("--scheduler needs dask.distributed, which is not installed: "
                             "pip install 'ssdco[sweep]' (or pip install 'dask[distributed]')") from None
        class _ClosingClient(Client):
            """A Client that closes itself when it fails to start. Dask closes a client on a connection
            error (OSError) but not on a malformed address (ValueError: 'bogus' has no port) or a
            configuration it cannot use (TypeError: tls:// without an SSL context); that half-started
            client's __del__ would wait twice the timeout for a loop that no longer answers and print
            "Exception ignored in: <function Client.__del__ ...> Traceback ..." after our clean message."""

            def start(self, **kwargs):
                try:
                    super().start(**kwargs)
                except BaseException:
                    try:
                        self.close(timeout=max(1.0, connect_timeout_s))
                    except Exception:  # pragma: no cover - the start error is the one to report
                        pass
                    raise

        try:
            self.client = _ClosingClient(address, timeout=f"{connect_timeout_s}s", set_as_default=False)
        except (OSError, TimeoutError) as e:
            raise SweepError(f"--scheduler: cannot connect to the Dask scheduler at {address!r}: {e}") from None
        except (ValueError, TypeError) as e:  # not an address Dask can use (no port, unknown scheme, ...)
            raise SweepError(f"--scheduler: cannot connect to the Dask scheduler at {address!r}: {e}; "
                             "expected an address such as tcp://HOST:8786") from None
        try:
            threads = sum(self.client.nthreads().values())
        except BaseException:
            self.client.close()
            raise
        self.window = WINDOW_PER_WORKER * max(1, threads)

    def submit(self, task: PointTask):
        return self.client.submit(evaluate_point, task, pure=False)

    def close(self) -> None:
        self.client.close()


# --------------------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SweepSummary:
    """What a run did: the file, how many points the grid has, were already there, were computed now."""

    path: Path
    parquet: Path | None
    points: int
    resumed: int
    computed: int
    errors: int
    sweep_id: str


def run_sweep(plan: SweepPlan, out: str | Path, *, workers: int = 1, scheduler: str | None = None,
              connect_timeout_s: float = 20.0, parquet: str | Path | None = None, progress: bool = False,
              on_row: Callable[[int], None] | None = None,
              on_start: Callable[[int, int], None] | None = None) -> SweepSummary:
    """Evaluate every point of ``plan`` not yet in ``out`` and append its row, in grid order.

    Parameters
    ----------
    plan : SweepPlan
        From :func:`plan_sweep`.
    out : path
        The CSV file (created, or resumed when it holds rows of the same sweep).
    workers : int
        Local worker processes (1 = evaluate in this process).
    scheduler : str, optional
        A Dask scheduler address; the points then run on that cluster instead.
    connect_timeout_s : float
        How long to wait for that scheduler to answer before giving up (s, > 0).
    parquet : path, optional
        Also write the finished table as Parquet (needs pyarrow; checked before anything runs, as is
        that both paths can be written: :func:`check_outputs`).
    progress : bool
        A tqdm bar on stderr.
    on_row : callable, optional
        Called with the grid index after each row is durably appended (tests use it).
    on_start : callable, optional
        Called with (points in the grid, points already in ``out``) once the workers are up, before the first
        point runs (the CLI says there what it is about to do).
    """
    if isinstance(workers, bool) or int(workers) != workers or workers < 1:
        raise ConfigError("--workers", "workers", workers, "expected an integer >= 1")
    if scheduler and not (isinstance(connect_timeout_s, (int, float)) and math.isfinite(connect_timeout_s)
                          and connect_timeout_s > 0):
        raise ConfigError("--connect-timeout-s", "connect_timeout_s", connect_timeout_s, "expected a number > 0")
    check_outputs(out, parquet)
    if parquet is not None:
        _import_pyarrow()
    path = Path(out)
    with _exclusive(path):
        return _run_locked(plan, path, workers, scheduler, connect_timeout_s, parquet, progress, on_row, on_start)


@contextlib.contextmanager
def _exclusive(path: Path):
    """Hold an exclusive lock on ``path`` for one sweep: a second sweep on the same file is refused (naming the
    process that holds it) instead of writing every row twice. The lock is ``fcntl.flock`` on ``<path>.lock``,
    which the kernel releases when the holder exits, however it exits; the file is removed on the way out.

    A lock taken on a file that its previous holder removed in the meantime (it opened the file before the removal
    and locked it after) is no lock on the file now at that path: the lock is taken again until the path and the
    locked file are the same."""
    try:
        import fcntl
    except ImportError:  # no flock on this platform: run unlocked
        yield
        return
    lock_path = path.with_name(path.name + ".lock")
    path.parent.mkdir(parents=True, exist_ok=True)  # as the output itself will be (check_outputs allowed it)
    fd = _lock_current(lock_path, path, fcntl)
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        try:
            yield
        finally:
            lock_path.unlink(missing_ok=True)
    finally:
        os.close(fd)


def _lock_current(lock_path: Path, path: Path, fcntl) -> int:
    """An open descriptor of ``lock_path`` locked exclusively, the file still at that path (see :func:`_exclusive`);
    ConfigError naming the holder's pid where another sweep holds it."""
    while True:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise ConfigError(str(path), "--out", str(path),
                              f"another sweep (pid {holder}) is writing this file; wait for it to finish or "
                              f"choose another --out") from None
        try:
            current = os.stat(lock_path).st_ino
        except FileNotFoundError:
            current = None
        if current == os.fstat(fd).st_ino:
            return fd
        os.close(fd)  # locked a removed file: try the one at the path now


def _run_locked(plan: SweepPlan, path: Path, workers: int, scheduler: str | None, connect_timeout_s: float,
                parquet: str | Path | None, progress: bool, on_row: Callable[[int], None] | None,
                on_start: Callable[[int, int], None] | None = None) -> SweepSummary:
    """:func:`run_sweep` once the output is locked."""
    existed = path.exists()
    done = resume_point(path, plan)
    n = len(plan.points)
    if done < n:
        try:
            executor = (_Dask(scheduler, connect_timeout_s) if scheduler
                        else _Pool(int(workers)) if workers > 1 else _Serial())
        except SweepError:
            if not existed:  # nothing ran: leave no header-only file behind
                path.unlink(missing_ok=True)
            raise
        try:
            if on_start is not None:
                on_start(n, done)
            _drive(plan, path, done, executor, progress, on_row)
        finally:
            executor.close()
    if parquet is not None:
        write_parquet(path, parquet)
    errors = _count_errors(path)
    return SweepSummary(path=path, parquet=Path(parquet) if parquet is not None else None, points=n,
                        resumed=done, computed=n - done, errors=errors, sweep_id=plan.sweep_id)


def _drive(plan: SweepPlan, path: Path, start: int, executor, progress: bool,
           on_row: Callable[[int], None] | None) -> None:
    """Keep up to ``executor.window`` points in flight; write their rows strictly in grid order."""
    from collections import deque

    from tqdm.auto import tqdm

    n = len(plan.points)
    in_flight: deque = deque()
    next_submit = start
    last_sync = time.monotonic()
    with open(path, "a", encoding="utf-8", newline="") as f, \
            tqdm(total=n, initial=start, unit="pt", desc="sweep", file=sys.stderr, disable=not progress,
                 leave=False) as bar:
        try:
            for next_write in range(start, n):
                while next_submit < n and len(in_flight) < executor.window:
                    in_flight.append(executor.submit(plan.task(plan.points[next_submit])))
                    next_submit += 1
                index, metrics = in_flight.popleft().result()  # later points keep running meanwhile
                if index != next_write:  # pragma: no cover - guards the ordering invariant
                    raise RuntimeError(f"sweep result {index} arrived in place of {next_write}")
                f.write(_csv_line(_row_cells(plan, plan.points[next_write], metrics)))
                f.flush()
                if time.monotonic() - last_sync >= FSYNC_SECONDS:
                    os.fsync(f.fileno())
                    last_sync = time.monotonic()
                bar.update(1)
                if on_row is not None:
                    on_row(next_write)
        finally:
            f.flush()
            os.fsync(f.fileno())
