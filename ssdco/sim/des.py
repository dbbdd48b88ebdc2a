"""Embedded discrete-event simulator (DES) of a :class:`~ssdco.network.build.Network`.

It simulates exactly the semantics documented in :mod:`ssdco.network.build`, so its numbers can be set
against the analytic solvers station by station:

* **Workload.** Closed (``queue_depth`` = N): N requests are always in the system; a completing request is
  replaced at once by a new one (no think time beyond the route's own delays). Open (``arrival_iops``):
  Poisson arrivals at that rate per second (times are microseconds).
* **A request** is a read with probability ``read_fraction`` (else a write) of size index k with probability
  ``request_probs[k]``; it has ``transactions[k]`` transactions. Steps run in route order. A maximal run of
  consecutive per-transaction steps is a fork-join block: the request forks into its T transactions, each
  walks the block on its own, and the request continues after the block once all T have finished.
* **A step at a station**: the job joins the single FCFS queue of one copy of the station (every step
  visiting that station shares its servers and its queue; a job that queues behind, ``Step.behind`` for its
  operation or a write request's or background job at a ``reads_first`` station, waits in a second queue that the
  station serves only when the first is empty, FCFS within each, without preempting one in service), is served,
  frees the server, then waits the step's ``delay_us`` holding no server (pipeline tail), then moves on. A
  station-less step is a pure delay (infinite server) of a sampled service time plus ``delay_us``.
* **Service time** mean = ``read_us`` or ``write_us`` + ``per_byte_us`` x request bytes for per-request
  steps. Per-transaction steps use 0 bytes, exactly as :meth:`Network.step_moments` (the analytic
  model's input) does. ``scv == 0`` gives a deterministic time; otherwise ``service_family`` decides:
  ``"auto"`` = exponential when scv == 1, else log-normal with that mean and scv; ``"exponential"`` or
  ``"lognormal"`` force the family (the scv is then ignored by "exponential", which always has scv 1).
* **Routing**: ``"single"`` uses copy 0; ``"uniform"`` picks one copy uniformly at random per visit and the
  job waits there even if other copies idle (address routing); ``"die_channel"`` uses copy
  ``d % copies`` where d is the copy the same job chose at its latest earlier ``"uniform"`` or ``"stripe"``
  step (die -> its channel); ``"stripe"`` (foreground steps) sends transaction k of a request to copy
  ``(first + k) % copies`` (a per-request step: copy ``first % copies``), where ``first`` is the number of
  transactions all earlier requests had: a sequential stream's pages over consecutive dies, which are numbered
  channel first.

* **Operation filter and probability** (FTL steps, :mod:`ssdco.network.ftl_effects`): a step with ``ops`` "read" or
  "write" is skipped by the other operation; a step with ``probability`` p < 1 is visited with that chance
  (one uniform draw per job and step; ``follow`` reuses the job's previous draw, so "miss" and "miss with a
  dirty victim" stay nested). A skipped step takes no time.
* **Background steps**: a job reaching a run of consecutive ``background`` steps hands them to a clone
  from a pool of ``Network.background_slots`` (the write buffer) and goes on at once; the clone queues
  FCFS at each station like any job (with the job's operation and die) and returns to the pool after the
  run. When the pool is empty the job does the run itself (back-pressure of a full write buffer).
* **NAND operations per read**: every foreground die visit of a read transaction is counted;
  :attr:`DesResult.nand_ops_per_read_tx` is the histogram (0 .. 7+) and
  :attr:`DesResult.read_latency_percentiles_us` the latency percentiles of reads alone.

Engine: the network is compiled to flat arrays (:func:`compile_network`) and a ``numba.njit(cache=True)``
event loop runs over preallocated state - a binary heap of (time, FIFO sequence | job id) in two arrays,
one intrusive linked-list FCFS queue per station copy, and fixed job pools (a request slot plus
``max transactions`` transaction slots per request; N slots for a closed network, ``max_in_system`` for an
open one, which fails clearly when an unstable system overflows it). Each job has at most one pending
event, so an event is a heap pop: a service completion, the end of a delay, or an open arrival. Equal
event times pop in scheduling (FIFO) order. All state lives in arrays, so the loop can stop after any
completion and resume (chunks for the progress bar) with bit-identical results. Limits: 2**24 jobs
(request plus transaction slots) and 2**39 scheduled events per run (days of simulation at 10 M events/s).

Randomness: ``seed`` (int, Generator or None; see :mod:`ssdco.rng`) is turned into one 32-bit integer by
:func:`ssdco.rng.derive_seed` and numba's internal per-thread generator is seeded with it by
``np.random.seed`` inside an njit function. Same seed => bit-identical :class:`DesResult` (apart from the
wall-clock fields ``wall_seconds`` and ``events_per_second``).

Output analysis: the first ``warmup_fraction`` of the completed requests is discarded (all time averages
restart at that completion); the rest is cut into ``batches`` batches of consecutive completions for batch
means with Student-t intervals; latencies go into a fixed log-binned histogram (8192 bins over
[1e-3, 1e7] us, percentile error <= 0.28 %, exact for a point mass).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, fields
from typing import Callable

import numpy as np
from numba import njit

from ssdco.errors import SsdcoError, unstable_open_workload
from ssdco.network.build import ROUTING, Network, fork_join_block_ends
from ssdco.rng import SeedLike, derive_seed
from ssdco.sim import stats as _st

__all__ = ["DesError", "DesResult", "DesTrace", "CompiledNetwork", "compile_network", "simulate",
           "SERVICE_FAMILIES", "step_labels", "HIST_LO_US", "HIST_HI_US", "HIST_BINS"]

SERVICE_FAMILIES = ("auto", "exponential", "lognormal")

HIST_LO_US = 1e-3
HIST_HI_US = 1e7
HIST_BINS = 8192

_DET, _EXP, _LOGN = 0, 1, 2
_ROUTE_CODE = {"single": 0, "uniform": 1, "die_channel": 2, "stripe": 3}

MAX_REQUESTS = 10**12  # requests per run: a day of simulation at 10 M events/s is about 10**11
DEFAULT_WARMUP_FRACTION = 0.1
DEFAULT_BATCHES = 20


def min_requests(warmup_fraction: float = DEFAULT_WARMUP_FRACTION, batches: int = DEFAULT_BATCHES) -> int:
    """The fewest requests :func:`simulate` accepts: enough that the measured ones fill every batch."""
    n = batches
    while n - math.floor(n * warmup_fraction) < batches:
        n += 1
    return n


JOB_BITS = 24  # heap payload = (FIFO sequence << JOB_BITS) | job id
JOB_MASK = (1 << JOB_BITS) - 1
MAX_JOBS = JOB_MASK - 1

_LOG_LO = math.log(HIST_LO_US)
_INV_DLOG = HIST_BINS / (math.log(HIST_HI_US) - math.log(HIST_LO_US))

# integer scalar state (ist)
I_INIT, I_HN, I_COMPLETED, I_STARTED, I_EVENTS, I_SEQ, I_FREE_TOP, I_NSYS = 0, 1, 2, 3, 4, 5, 6, 7
I_STATUS, I_WARMUP, I_MEASURED, I_BATCHES, I_CLOSED, I_R, I_TPOOL, I_NTRACE = 8, 9, 10, 11, 12, 13, 14, 15
I_BGTOP, I_STRIPE, I_SUSPENSIONS = 16, 17, 18
N_IST = 19
NAND_HIST = 8  # histogram of die visits per read transaction: 0 .. NAND_HIST - 1 (last bin = or more)
# float scalar state (fst)
F_T, F_TWARM, F_TLAST_SYS, F_AREA_SYS, F_LAT_MIN, F_LAT_MAX, F_IA_MEAN, F_READ_FRAC = 0, 1, 2, 3, 4, 5, 6, 7
N_FST = 8

ST_OK, ST_OVERFLOW, ST_EMPTY = 0, 1, 2


class DesError(SsdcoError, ValueError):
    """A network the DES cannot simulate, bad simulation options, or an open system that overflowed."""


# --------------------------------------------------------------------------------------------------
# Compilation: Network -> flat arrays
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CompiledNetwork:
    """The network as flat arrays for the event loop (one row per step / station / station copy)."""

    station_names: tuple[str, ...]
    station_servers: np.ndarray  # per station, servers per copy
    station_copies: np.ndarray
    step_labels: tuple[str, ...]  # unique keys (a repeated label gets "#<index>")
    step_station: np.ndarray  # station index, -1 for a pure delay
    step_route: np.ndarray  # 0 single, 1 uniform, 2 die_channel
    step_per_request: np.ndarray  # bool
    step_family: np.ndarray  # 0 deterministic, 1 exponential, 2 log-normal
    step_delay: np.ndarray  # us, holds no server
    step_mean: np.ndarray  # [step, op (0 read, 1 write), size] mean service us
    step_mu: np.ndarray  # log-normal location per [step, op, size]
    step_sigma: np.ndarray  # log-normal shape per step
    step_base: np.ndarray  # first unit (station copy) index of the step's station
    step_copies: np.ndarray
    step_block_end: np.ndarray  # per-transaction step: index of the first step after its block
    unit_servers: np.ndarray  # per station copy
    unit_station: np.ndarray
    size_cdf: np.ndarray
    size_transactions: np.ndarray
    tx_pool: int  # transaction slots per request (0 if the route has no per-transaction step)
    read_fraction: float
    closed: bool
    queue_depth: int
    arrival_iops: float
    step_ops: np.ndarray = None  # 0 both, 1 read only, 2 write only
    step_prob: np.ndarray = None
    step_follow: np.ndarray = None
    step_bg: np.ndarray = None
    step_bgend: np.ndarray = None  # background step: first step after its run of background steps
    step_isdie: np.ndarray = None  # the step's station is a die ("die" kind): counted as a NAND operation
    bg_slots: int = 0
    step_hold: np.ndarray = None  # index of the step through which the step holds its server, -1: none
    step_behind: np.ndarray = None  # per step: which operations' jobs queue behind the others (BEHIND_CODES)
    # per [step, op]: the time (us) a read takes to suspend that job's operation in service, -1: not suspended
    step_suspend: np.ndarray = None


def _fail(msg: str) -> DesError:
    return DesError(msg)


def _station_arrays(stations) -> tuple[tuple[str, ...], np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Validate ``stations`` and return (their names, copies, servers per copy, each station's first unit
    (station copy) index, per unit its station and its servers)."""
    names = tuple(s.name for s in stations)
    if len(set(names)) != len(names):
        raise _fail(f"station names are not unique: {names}")
    for s in stations:
        if int(s.servers) < 1 or int(s.copies) < 1:
            raise _fail(f"station {s.name!r}: servers and copies must be >= 1 (got {s.servers}, {s.copies})")
    copies = np.array([int(s.copies) for s in stations], dtype=np.int64)
    servers = np.array([int(s.servers) for s in stations], dtype=np.int64)
    base = np.concatenate(([0], np.cumsum(copies)[:-1])).astype(np.int64) if len(stations) else np.zeros(0, np.int64)
    unit_station = np.repeat(np.arange(len(stations), dtype=np.int64), copies)
    unit_servers = np.repeat(servers, copies).astype(np.int64)
    return names, copies, servers, base, unit_station, unit_servers


def _request_sizes(network: Network) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
    """Validate the request mix of ``network`` and return (the size classes' probabilities, their transactions,
    the reads' share, the sizes' cumulative distribution, its last entry exactly 1)."""
    nb = len(network.request_bytes)
    if nb < 1 or len(network.request_probs) != nb or len(network.transactions) != nb:
        raise _fail("request_bytes, request_probs and transactions must be non-empty and equally long")
    probs = np.asarray(network.request_probs, dtype=float)
    if np.any(probs < 0) or not np.all(np.isfinite(probs)) or abs(probs.sum() - 1.0) > 1e-9:
        raise _fail(f"request_probs must be >= 0 and sum to 1, got {network.request_probs}")
    trans = np.asarray(network.transactions, dtype=np.int64)
    if np.any(trans < 1):
        raise _fail(f"transactions must be >= 1, got {network.transactions}")
    rf = float(network.read_fraction)
    if not 0.0 <= rf <= 1.0:
        raise _fail(f"read_fraction must be in [0, 1], got {rf}")
    cdf = np.cumsum(probs)
    cdf[-1] = 1.0
    return probs, trans, rf, cdf


def step_labels(steps) -> tuple[str, ...]:
    """Unique keys of ``steps``: each step's label, a repeated one with "#<index>" appended."""
    labels = []
    seen: set[str] = set()
    for i, st in enumerate(steps):
        lab = st.label if st.label not in seen else f"{st.label}#{i}"
        seen.add(lab)
        labels.append(lab)
    return tuple(labels)


def _check_step(i: int, st, index: dict[str, int], names: tuple[str, ...]) -> None:
    """Raise DesError unless step ``i`` has finite non-negative times (us) and scv, a known routing that a
    station-less step does not use, a known station, known operations, a probability in [0, 1], a known
    ``behind``, and is at a station and per transaction where it is a background step."""
    where = f"step {i} ({st.label!r})"
    for attr in ("read_us", "write_us", "per_byte_us", "scv", "delay_us"):
        v = float(getattr(st, attr))
        if not math.isfinite(v) or v < 0:
            raise _fail(f"{where}: {attr} must be finite and >= 0, got {v}")
    if st.routing not in ROUTING:
        raise _fail(f"{where}: routing must be one of {ROUTING}, got {st.routing!r}")
    if st.station is not None and st.station not in index:
        raise _fail(f"{where}: unknown station {st.station!r} (stations: {names})")
    if st.station is None and st.routing != "single":
        raise _fail(f"{where}: a station-less (pure delay) step cannot have routing {st.routing!r}")
    if st.ops not in ("both", "read", "write"):
        raise _fail(f"{where}: ops must be 'both', 'read' or 'write', got {st.ops!r}")
    if st.behind not in BEHIND_CODES:
        raise _fail(f"{where}: behind must be one of {tuple(BEHIND_CODES)}, got {st.behind!r}")
    if not 0.0 <= float(st.probability) <= 1.0:
        raise _fail(f"{where}: probability must be in [0, 1], got {st.probability}")
    if st.background and (st.per_request or st.station is None):
        raise _fail(f"{where}: a background step must be a per-transaction step at a station")
    if st.routing == "stripe" and st.background:
        raise _fail(f"{where}: 'stripe' routing places a request's transactions: a foreground step")


def _step_placement(steps, index: dict[str, int], base: np.ndarray, copies: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per step: its station's index (-1 for a pure delay), its routing code, its station's first unit index
    and its station's copies (1 for a pure delay)."""
    ns = len(steps)
    step_station = np.full(ns, -1, dtype=np.int64)
    step_route = np.zeros(ns, dtype=np.int64)
    sbase = np.zeros(ns, dtype=np.int64)
    scop = np.ones(ns, dtype=np.int64)
    for i, st in enumerate(steps):
        if st.station is not None:
            k = index[st.station]
            step_station[i] = k
            sbase[i] = base[k]
            scop[i] = copies[k]
            step_route[i] = _ROUTE_CODE[st.routing]
    return step_station, step_route, sbase, scop


def _family_code(scv: float, service_family: str) -> int:
    """The service time's family for a step of squared coefficient of variation ``scv``: deterministic at 0,
    else exponential (forced, or at scv 1 under "auto") or log-normal."""
    if scv == 0.0:
        return _DET
    if service_family == "exponential" or (service_family == "auto" and scv == 1.0):
        return _EXP
    return _LOGN


def _step_services(steps, request_bytes: np.ndarray, service_family: str
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per step: its service family code, its delay (us), its mean service and log-normal location per
    [op (0 read, 1 write), size] (us; the per-byte part at per-request steps only, as Network.step_moments
    has it), and its log-normal shape."""
    ns, nb = len(steps), len(request_bytes)
    fam = np.zeros(ns, dtype=np.int64)
    delay = np.zeros(ns, dtype=float)
    mean = np.zeros((ns, 2, nb), dtype=float)
    mu = np.zeros((ns, 2, nb), dtype=float)
    sigma = np.zeros(ns, dtype=float)
    for i, st in enumerate(steps):
        delay[i] = float(st.delay_us)
        scv = float(st.scv)
        fam[i] = _family_code(scv, service_family)
        s2 = math.log1p(scv)
        sigma[i] = math.sqrt(s2)
        bytes_ = request_bytes if st.per_request else np.zeros(nb)  # as Network.step_moments
        for op, b in ((0, float(st.read_us)), (1, float(st.write_us))):
            m = b + float(st.per_byte_us) * bytes_
            mean[i, op, :] = m
            with np.errstate(divide="ignore"):
                mu[i, op, :] = np.where(m > 0, np.log(np.maximum(m, 1e-300)) - 0.5 * s2, 0.0)
    return fam, delay, mean, mu, sigma


def _check_die_channel(steps, per_req: np.ndarray) -> None:
    """Raise DesError where a 'die_channel' step has no earlier 'uniform' step of the same job (the same
    fork-join block for a per-transaction step) to take its die from."""
    for i, st in enumerate(steps):
        if st.station is None or st.routing != "die_channel":
            continue
        if st.per_request:
            prior = [k for k in range(i) if per_req[k]]
        else:
            start = i
            while start > 0 and not per_req[start - 1]:
                start -= 1
            prior = list(range(start, i))
        if not any(steps[k].station is not None and steps[k].routing in ("uniform", "stripe") for k in prior):
            raise _fail(f"step {i} ({st.label!r}): 'die_channel' routing needs an earlier 'uniform' or 'stripe' step "
                        "of the same job (same fork-join block for a per-transaction step)")


def _hold_targets(network: Network) -> np.ndarray:
    """Per step, the index of the step through which it holds its server (``Network.holds``), -1 where it does
    not; DesError unless every ``hold_through`` names a later step of the same job's block with no background step
    between, and the holder is a foreground step at a station."""
    steps = network.steps
    out = np.full(len(steps), -1, dtype=np.int64)
    for i, k in network.holds:
        out[i] = k
    for i, st in enumerate(steps):
        if not st.hold_through:
            continue
        where = f"step {i} ({st.label!r}): hold_through {st.hold_through!r}"
        if st.station is None or st.background:
            raise _fail(f"{where}: only a foreground step at a station can hold its server")
        if out[i] < 0:
            raise _fail(f"{where} must name a later step of the same job (the same fork-join block for a "
                        "per-transaction step)")
        if any(steps[m].background for m in range(i + 1, out[i] + 1)):
            raise _fail(f"{where}: no background step may lie between a step and the one it holds through")
    return out


def _background_ends(bgm: np.ndarray, block_end: np.ndarray) -> np.ndarray:
    """Per step, the first step after its run of consecutive background steps (within one fork-join block);
    the next step for a step that is not a background one."""
    ns = len(bgm)
    bgend = np.arange(1, ns + 1, dtype=np.int64)
    for i in range(ns - 1, -1, -1):
        if bgm[i] and i + 1 < ns and bgm[i + 1] and block_end[i + 1] == block_end[i]:
            bgend[i] = bgend[i + 1]
    return bgend


def _workload(network: Network) -> tuple[bool, int, float]:
    """Validate the workload of ``network`` and return (closed, queue depth (0 if open), arrival IOPS (0 if
    closed))."""
    closed = network.queue_depth is not None
    if closed == (network.arrival_iops is not None):
        raise _fail("exactly one of queue_depth (closed) and arrival_iops (open) must be set")
    qd = int(network.queue_depth) if closed else 0
    if closed and qd < 1:
        raise _fail(f"queue_depth must be >= 1, got {network.queue_depth}")
    iops = float(network.arrival_iops) if not closed else 0.0
    if not closed and not (iops > 0 and math.isfinite(iops)):
        raise _fail(f"arrival_iops must be a positive finite rate, got {network.arrival_iops}")
    return closed, qd, iops


BEHIND_CODES = {"": 0, "read": 1, "write": 2, "both": 3}  # Step.behind; a job of operation op (0 read, 1 write)
# queues behind where the code is 3 or op + 1


def _behind(network: Network) -> np.ndarray:
    """Per step, the operations whose jobs queue behind the station's other waiting jobs: ``Step.behind``, and at a
    ``reads_first`` station a write's jobs and background work."""
    first = {st.name for st in network.stations if st.reads_first}
    codes = []
    for st in network.steps:
        code = BEHIND_CODES[st.behind]
        if st.station in first:
            code |= 3 if st.background else 2
        codes.append(code)
    return np.array(codes, dtype=np.int64)


def _suspend_times(network: Network, behind: np.ndarray) -> np.ndarray:
    """Per [step, op (0 read, 1 write)]: the time (us) a read arriving at the step's station copy spends suspending
    that job's program or erase in service there (``Station.suspend_program_us``/``suspend_erase_us``), -1 where the
    job is not suspended: only jobs queued behind the reads (a write's, the background work's) at a single-server
    station, and only their programs and erases (``Step.array``)."""
    out = np.full((len(network.steps), 2), -1.0)
    stations = {st.name: st for st in network.stations}
    for i, step in enumerate(network.steps):
        st = stations.get(step.station) if step.station is not None else None
        if st is None or not st.suspends:
            continue
        for op in (0, 1):
            t = st.suspension_us(("read", "program")[op] if step.array == "data" else step.array)
            if t is not None and behind[i] & (op + 1):
                out[i, op] = t
    return out


def compile_network(network: Network, service_family: str = "auto") -> CompiledNetwork:
    """Validate ``network`` and flatten it into arrays for the event loop."""
    if service_family not in SERVICE_FAMILIES:
        raise _fail(f"service_family must be one of {SERVICE_FAMILIES}, got {service_family!r}")
    stations = network.stations
    names, copies, servers, base, unit_station, unit_servers = _station_arrays(stations)
    index = {n: i for i, n in enumerate(names)}
    probs, trans, rf, cdf = _request_sizes(network)
    steps = network.steps
    if not steps:
        raise _fail("the route has no steps")
    labels = step_labels(steps)
    for i, st in enumerate(steps):
        _check_step(i, st, index, names)
    step_station, step_route, sbase, scop = _step_placement(steps, index, base, copies)
    per_req = np.array([bool(s.per_request) for s in steps], dtype=np.bool_)
    fam, delay, mean, mu, sigma = _step_services(steps, np.asarray(network.request_bytes, dtype=float),
                                                 service_family)
    # fork-join blocks and die_channel provenance
    has_tx = bool(np.any(~per_req))
    block_end = fork_join_block_ends(per_req)
    _check_die_channel(steps, per_req)
    tx_pool = int(trans[probs > 0].max()) if has_tx else 0
    ops = np.array([{"both": 0, "read": 1, "write": 2}[st.ops] for st in steps], dtype=np.int64)
    prob = np.array([float(st.probability) for st in steps], dtype=float)
    follow = np.array([bool(st.follow) for st in steps], dtype=np.bool_)
    bgm = np.array([bool(st.background) for st in steps], dtype=np.bool_)
    bgend = _background_ends(bgm, block_end)
    hold = _hold_targets(network)
    kinds = {s.name: s.kind for s in stations}
    isdie = np.array([st.station is not None and kinds[st.station] == "die" for st in steps], dtype=np.bool_)
    bg_slots = max(1, int(network.background_slots)) if bgm.any() else 0
    closed, qd, iops = _workload(network)
    behind = _behind(network)
    return CompiledNetwork(
        station_names=names, station_servers=servers, station_copies=copies, step_labels=labels,
        step_station=step_station, step_route=step_route, step_per_request=per_req, step_family=fam,
        step_delay=delay, step_mean=mean, step_mu=mu, step_sigma=sigma, step_base=sbase, step_copies=scop,
        step_block_end=block_end, unit_servers=unit_servers, unit_station=unit_station, size_cdf=cdf,
        size_transactions=trans, tx_pool=tx_pool, read_fraction=rf, closed=closed, queue_depth=qd,
        arrival_iops=iops, step_ops=ops, step_prob=prob, step_follow=follow, step_bg=bgm, step_bgend=bgend,
        step_isdie=isdie, bg_slots=bg_slots, step_hold=hold, step_behind=behind,
        step_suspend=_suspend_times(network, behind))


# --------------------------------------------------------------------------------------------------
# Compiled kernels
# --------------------------------------------------------------------------------------------------
@njit(cache=True)
def _seed_numba(s):
    """Seed numba's internal (per-thread) generator; only an njit call reaches it."""
    np.random.seed(s)


@njit(cache=True)
def _push(hk, hv, hn, key, val):
    i = hn
    while i > 0:
        p = (i - 1) >> 1
        pk = hk[p]
        if pk < key or (pk == key and hv[p] < val):
            break
        hk[i] = pk
        hv[i] = hv[p]
        i = p
    hk[i] = key
    hv[i] = val
    return hn + 1


@njit(cache=True)
def _sample(fam, mean, mu, sigma):
    if fam == 0 or mean <= 0.0:
        return mean
    if fam == 1:
        return -mean * math.log(1.0 - np.random.random())
    return math.exp(mu + sigma * np.random.standard_normal())


@njit(cache=True)
def _draw_request(read_frac, size_cdf):
    if read_frac >= 1.0:
        op = 0
    elif read_frac <= 0.0:
        op = 1
    elif np.random.random() < read_frac:
        op = 0
    else:
        op = 1
    n = size_cdf.shape[0]
    sz = 0
    if n > 1:
        u = np.random.random()
        while sz < n - 1 and u >= size_cdf[sz]:
            sz += 1
    return op, sz


@njit(cache=True, inline="always")
def _job_op(j, R, Tp, BG0, r_op, c_op):
    """The operation (0 read, 1 write) of job ``j``: a background clone's own, else its request's."""
    if j >= BG0:
        return c_op[j - BG0]
    return r_op[j if j < R else (j - R) // Tp]


@njit(cache=True, inline="always")
def _suspension_us(u, t, u_svc, u_susp, j_unit, j_phase, j_tend, j_step, step_susp, R, Tp, BG0, r_op, c_op):
    """The time (us) a read arriving at busy copy ``u`` at ``t`` spends suspending the operation in service there,
    -1 where it waits instead: one operation already suspended, none in service (a held server), or one that is not
    suspended (``step_susp``)."""
    p = u_svc[u]
    if u_susp[u] >= 0 or p < 0 or j_unit[p] != u or j_phase[p] != 0 or j_tend[p] <= t:
        return -1.0
    return step_susp[j_step[p], _job_op(p, R, Tp, BG0, r_op, c_op)]


@njit(cache=True, inline="always")
def _head_service(h, u, fam, mean, mu, sigma, j_rem, u_susp):
    """The service (us) of job ``h`` starting at copy ``u``: the rest of its suspended operation, which resumes
    (``u`` has none suspended then), else a fresh draw."""
    if j_rem[h] >= 0.0:
        d = j_rem[h]
        j_rem[h] = -1.0
        u_susp[u] = -1
        return d
    return _sample(fam, mean, mu, sigma)


@njit(cache=True, error_model="numpy")
def _run(target, ist, fst,
         step_st, step_route, step_perreq, step_fam, step_delay, step_mean, step_mu, step_sigma,
         step_base, step_copies, step_blkend, unit_servers, size_cdf, size_T,
         hk, hv, j_step, j_phase, j_die, j_unit, j_tarr, j_tsvc, j_next,
         r_op, r_size, r_rem, r_start, r_seq, r_first, free_stack, es_j, es_s,
         u_busy, u_head, u_tail, s_nin, s_busy, s_area_n, s_area_b, s_tlast,
         p_visits, p_res, p_wait, p_svc, hist, b_end, b_cnt, b_lat,
         tr_start, tr_end, tr_fork, tr_T, tr_txend, tr_txdie,
         step_ops, step_prob, step_follow, step_bg, step_bgend, step_isdie,
         j_u, j_sync, j_admit, j_nand, c_op, bg_stack, nand_hist, hist_r,
         step_hold, unit_station, j_hold_u, j_hold_end, step_behind, u_head2, u_tail2,
         step_susp, u_svc, u_susp, j_tend, j_rem, j_stale):
    """Process events until ``target`` requests have completed (all state in the arrays)."""
    if target <= ist[I_COMPLETED]:
        return
    hn = ist[I_HN]
    completed = ist[I_COMPLETED]
    started = ist[I_STARTED]
    events = ist[I_EVENTS]
    seq = ist[I_SEQ]
    free_top = ist[I_FREE_TOP]
    nsys = ist[I_NSYS]
    warm = ist[I_WARMUP]
    measured_total = ist[I_MEASURED]
    nbatch = ist[I_BATCHES]
    closed = ist[I_CLOSED] != 0
    R = ist[I_R]
    Tp = ist[I_TPOOL]
    ntrace = ist[I_NTRACE]
    t = fst[F_T]
    tlast_sys = fst[F_TLAST_SYS]
    area_sys = fst[F_AREA_SYS]
    lat_min = fst[F_LAT_MIN]
    lat_max = fst[F_LAT_MAX]
    ia_mean = fst[F_IA_MEAN]
    read_frac = fst[F_READ_FRAC]
    nsteps = step_st.shape[0]
    nbins = hist.shape[0] - 2
    ARR = R * (1 + Tp)
    BG0 = ARR + 1
    bg_top = ist[I_BGTOP]
    stripe = ist[I_STRIPE]
    suspensions = ist[I_SUSPENSIONS]
    status = ST_OK
    ns = 0

    if ist[I_INIT] == 0:
        ist[I_INIT] = 1
        if closed:
            for r in range(R - 1, -1, -1):
                op, sz = _draw_request(read_frac, size_cdf)
                r_op[r] = op
                r_size[r] = sz
                r_first[r] = stripe
                stripe += size_T[sz]
                r_start[r] = t
                r_seq[r] = started
                if started < ntrace:
                    tr_start[started] = t
                started += 1
                es_j[ns] = r
                es_s[ns] = 0
                ns += 1
            nsys = R
        else:
            hn = _push(hk, hv, hn, t - ia_mean * math.log(1.0 - np.random.random()), (seq << JOB_BITS) | ARR)
            seq += 1

    while True:
        # ---- jobs entering a step at time t
        while ns > 0:
            ns -= 1
            j = es_j[ns]
            s = es_s[ns]
            j_step[j] = s
            j_tarr[j] = t
            if j < R and not step_perreq[s]:
                # a request reaching a per-transaction step forks into its T transactions
                T = size_T[r_size[j]]
                r_rem[j] = T
                q = r_seq[j]
                if q < ntrace:
                    tr_fork[q] = t
                    tr_T[q] = T
                tb = R + j * Tp
                for k in range(T - 1, -1, -1):
                    j_die[tb + k] = -1
                    j_nand[tb + k] = 0
                    j_sync[tb + k] = 0
                    es_j[ns] = tb + k
                    es_s[ns] = s
                    ns += 1
                continue
            if j >= BG0:
                op = c_op[j - BG0]
                sz = 0
            else:
                r = j if j < R else (j - R) // Tp
                op = r_op[r]
                sz = r_size[r]
            # ---- visit filter: operation, probability, background spawn
            if j_admit[j] != 0:
                j_admit[j] = 0
            else:
                if not step_bg[s]:
                    j_sync[j] = 0
                skip = step_ops[s] != 0 and step_ops[s] != op + 1
                if not skip and step_prob[s] < 1.0:
                    if not step_follow[s]:
                        j_u[j] = np.random.random()
                    skip = j_u[j] >= step_prob[s]
                if skip:
                    j_phase[j] = 1
                    hn = _push(hk, hv, hn, t, (seq << JOB_BITS) | j)
                    seq += 1
                    continue
                if step_bg[s] and j < BG0 and j_sync[j] == 0:
                    if bg_top > 0:
                        bg_top -= 1
                        cj = bg_stack[bg_top]
                        c_op[cj - BG0] = op
                        j_die[cj] = j_die[j]
                        j_u[cj] = j_u[j]
                        j_admit[cj] = 1
                        es_j[ns] = cj
                        es_s[ns] = s
                        ns += 1
                        # the job itself skips the whole run of background steps
                        j_step[j] = step_bgend[s] - 1
                        j_phase[j] = 1
                        hn = _push(hk, hv, hn, t, (seq << JOB_BITS) | j)
                        seq += 1
                        continue
                    j_sync[j] = 1  # write buffer full: the job does its own flush
            st = step_st[s]
            if st < 0:
                j_phase[j] = 1
                d = _sample(step_fam[s], step_mean[s, op, sz], step_mu[s, op, sz], step_sigma[s]) + step_delay[s]
                hn = _push(hk, hv, hn, t + d, (seq << JOB_BITS) | j)
                seq += 1
                continue
            rt = step_route[s]
            if rt == 0:
                u = step_base[s]
            elif rt == 1:
                nc = step_copies[s]
                c = 0
                if nc > 1:
                    c = int(np.random.random() * nc)
                    if c >= nc:
                        c = nc - 1
                j_die[j] = c
                u = step_base[s] + c
            elif rt == 3:  # a sequential stream's transaction k: the k-th die after the request's first
                if j < R:  # a per-request step: the request's first die
                    c = r_first[j] % step_copies[s]
                else:
                    rs = (j - R) // Tp
                    c = (r_first[rs] + (j - R) - rs * Tp) % step_copies[s]
                j_die[j] = c
                u = step_base[s] + c
            else:
                dj = j_die[j]
                if dj < 0:  # its uniform step was skipped: any die
                    dj = int(np.random.random() * step_copies[s])
                    j_die[j] = dj
                u = step_base[s] + dj % step_copies[s]
            j_unit[j] = u
            j_phase[j] = 0
            dt = t - s_tlast[st]
            s_area_n[st] += s_nin[st] * dt
            s_area_b[st] += s_busy[st] * dt
            s_tlast[st] = t
            s_nin[st] += 1
            if u_busy[u] < unit_servers[u]:
                u_busy[u] += 1
                s_busy[st] += 1
                j_tsvc[j] = t
                d = _sample(step_fam[s], step_mean[s, op, sz], step_mu[s, op, sz], step_sigma[s])
                j_tend[j] = t + d
                u_svc[u] = j
                hn = _push(hk, hv, hn, t + d, (seq << JOB_BITS) | j)
                seq += 1
            elif step_behind[s] == 3 or step_behind[s] == op + 1:  # behind every job in the first queue
                j_next[j] = -1
                if u_tail2[u] < 0:
                    u_head2[u] = j
                else:
                    j_next[u_tail2[u]] = j
                u_tail2[u] = j
            else:
                d = _suspension_us(u, t, u_svc, u_susp, j_unit, j_phase, j_tend, j_step, step_susp, R, Tp, BG0, r_op,
                                   c_op)
                if d < 0.0:  # the first queue's tail
                    j_next[j] = -1
                    if u_tail[u] < 0:
                        u_head[u] = j
                    else:
                        j_next[u_tail[u]] = j
                    u_tail[u] = j
                else:
                    # program/erase suspend: the operation in service stops with its remaining time and waits at
                    # the head of the second queue; the read takes the server after the suspension time d
                    p = u_svc[u]
                    j_rem[p] = j_tend[p] - t
                    j_stale[p] += 1  # its completion event, still in the heap, is skipped when it pops
                    u_susp[u] = p
                    j_next[p] = u_head2[u]
                    u_head2[u] = p
                    if u_tail2[u] < 0:
                        u_tail2[u] = p
                    suspensions += 1
                    j_tsvc[j] = t
                    d += _sample(step_fam[s], step_mean[s, op, sz], step_mu[s, op, sz], step_sigma[s])
                    j_tend[j] = t + d
                    u_svc[u] = j
                    hn = _push(hk, hv, hn, t + d, (seq << JOB_BITS) | j)
                    seq += 1

        if completed >= target:
            break
        if hn == 0:
            status = ST_EMPTY
            break

        # ---- pop the earliest event
        t = hk[0]
        j = hv[0] & JOB_MASK
        hn -= 1
        if hn > 0:
            lk = hk[hn]
            lv = hv[hn]
            i = 0
            while True:
                c = 2 * i + 1
                if c >= hn:
                    break
                ck = hk[c]
                cv = hv[c]
                c2 = c + 1
                if c2 < hn:
                    k2 = hk[c2]
                    v2 = hv[c2]
                    if k2 < ck or (k2 == ck and v2 < cv):
                        c = c2
                        ck = k2
                        cv = v2
                if ck < lk or (ck == lk and cv < lv):
                    hk[i] = ck
                    hv[i] = cv
                    i = c
                else:
                    break
            hk[i] = lk
            hv[i] = lv
        if j != ARR and j_stale[j] > 0:  # the completion of an operation suspended since (resumed: a later event)
            j_stale[j] -= 1
            continue
        events += 1

        if j == ARR:
            # ---- open arrival
            if free_top == 0:
                status = ST_OVERFLOW
                break
            free_top -= 1
            r = free_stack[free_top]
            op, sz = _draw_request(read_frac, size_cdf)
            r_op[r] = op
            r_size[r] = sz
            r_first[r] = stripe
            stripe += size_T[sz]
            r_start[r] = t
            r_seq[r] = started
            if started < ntrace:
                tr_start[started] = t
            started += 1
            area_sys += nsys * (t - tlast_sys)
            tlast_sys = t
            nsys += 1
            es_j[ns] = r
            es_s[ns] = 0
            ns += 1
            hn = _push(hk, hv, hn, t - ia_mean * math.log(1.0 - np.random.random()), (seq << JOB_BITS) | ARR)
            seq += 1
            continue

        s = j_step[j]
        measuring = completed >= warm
        if j_phase[j] == 0:
            # ---- service completion at station copy u
            u = j_unit[j]
            st = step_st[s]
            dt = t - s_tlast[st]
            s_area_n[st] += s_nin[st] * dt
            s_area_b[st] += s_busy[st] * dt
            s_tlast[st] = t
            s_nin[st] -= 1
            if u_svc[u] == j:
                u_svc[u] = -1
            if measuring:
                p_visits[s] += 1
                p_res[s] += t - j_tarr[j]
                p_wait[s] += j_tsvc[j] - j_tarr[j]
                p_svc[s] += t - j_tsvc[j]
            if step_hold[s] >= 0:
                # the server stays busy (the job still counts as there) until the job has done step_hold[s]
                s_nin[st] += 1
                j_hold_u[j] = u
                j_hold_end[j] = step_hold[s]
            else:  # the server is free: the head of its queue starts (as at a held server's release below)
                h = u_head[u]
                if h >= 0:
                    nh = j_next[h]
                    u_head[u] = nh
                    if nh < 0:
                        u_tail[u] = -1
                elif u_head2[u] >= 0:  # a reads-first copy with no read waiting: its first queued write
                    h = u_head2[u]
                    u_head2[u] = j_next[h]
                    if j_next[h] < 0:
                        u_tail2[u] = -1
                if h >= 0:
                    j_tsvc[h] = t
                    sh = j_step[h]
                    if h >= BG0:
                        oph = c_op[h - BG0]
                        szh = 0
                    else:
                        rh = h if h < R else (h - R) // Tp
                        oph = r_op[rh]
                        szh = r_size[rh]
                    d = _head_service(h, u, step_fam[sh], step_mean[sh, oph, szh], step_mu[sh, oph, szh],
                                      step_sigma[sh], j_rem, u_susp)
                    j_tend[h] = t + d
                    u_svc[u] = h
                    hn = _push(hk, hv, hn, t + d, (seq << JOB_BITS) | h)
                    seq += 1
                else:
                    u_busy[u] -= 1
                    s_busy[st] -= 1
            if step_isdie[s] and j < BG0:
                j_nand[j] += 1
            if step_delay[s] > 0.0:
                j_phase[j] = 1
                hn = _push(hk, hv, hn, t + step_delay[s], (seq << JOB_BITS) | j)
                seq += 1
                continue
        elif step_st[s] < 0 and measuring:
            p_visits[s] += 1
            p_res[s] += t - j_tarr[j]

        # ---- job j has finished step s
        if j_hold_u[j] >= 0 and j_hold_end[j] == s:
            u = j_hold_u[j]
            st = unit_station[u]
            j_hold_u[j] = -1
            dt = t - s_tlast[st]
            s_area_n[st] += s_nin[st] * dt
            s_area_b[st] += s_busy[st] * dt
            s_tlast[st] = t
            s_nin[st] -= 1
            h = u_head[u]
            if h >= 0:
                nh = j_next[h]
                u_head[u] = nh
                if nh < 0:
                    u_tail[u] = -1
            elif u_head2[u] >= 0:
                h = u_head2[u]
                u_head2[u] = j_next[h]
                if j_next[h] < 0:
                    u_tail2[u] = -1
            if h >= 0:
                j_tsvc[h] = t
                sh = j_step[h]
                if h >= BG0:
                    oph = c_op[h - BG0]
                    szh = 0
                else:
                    rh = h if h < R else (h - R) // Tp
                    oph = r_op[rh]
                    szh = r_size[rh]
                d = _head_service(h, u, step_fam[sh], step_mean[sh, oph, szh], step_mu[sh, oph, szh], step_sigma[sh],
                                  j_rem, u_susp)
                j_tend[h] = t + d
                u_svc[u] = h
                hn = _push(hk, hv, hn, t + d, (seq << JOB_BITS) | h)
                seq += 1
            else:
                u_busy[u] -= 1
                s_busy[st] -= 1
        nxt = s + 1
        if j >= BG0:
            # a background clone: on to the next background step of its run, or back to the pool
            if nxt < step_bgend[s]:
                es_j[ns] = j
                es_s[ns] = nxt
                ns += 1
            else:
                bg_stack[bg_top] = j
                bg_top += 1
            continue
        if j >= R:
            if nxt < step_blkend[s]:
                es_j[ns] = j
                es_s[ns] = nxt
                ns += 1
                continue
            r = (j - R) // Tp
            if r_op[r] == 0 and completed >= warm:
                nn = j_nand[j]
                if nn >= NAND_HIST:
                    nn = NAND_HIST - 1
                nand_hist[nn] += 1
            q = r_seq[r]
            if q < ntrace:
                k = (j - R) - r * Tp
                tr_txend[q, k] = t
                tr_txdie[q, k] = j_die[j]
            r_rem[r] -= 1
            if r_rem[r] > 0:
                continue
            j = r
            nxt = step_blkend[s]
        # request j goes on to step nxt
        if nxt >= nsteps:
            lat = t - r_start[j]
            area_sys += nsys * (t - tlast_sys)
            tlast_sys = t
            nsys -= 1
            completed += 1
            q = r_seq[j]
            if q < ntrace:
                tr_end[q] = t
            if completed > warm:
                m = completed - warm - 1
                b = m * nbatch // measured_total
                if b >= nbatch:
                    b = nbatch - 1
                b_end[b] = t
                b_cnt[b] += 1
                b_lat[b] += lat
                if lat <= HIST_LO_US:
                    bi = 0
                elif lat >= HIST_HI_US:
                    bi = nbins + 1
                else:
                    bi = 1 + int((math.log(lat) - _LOG_LO) * _INV_DLOG)
                    if bi > nbins:
                        bi = nbins
                hist[bi] += 1
                if r_op[j] == 0:
                    hist_r[bi] += 1
                if lat < lat_min:
                    lat_min = lat
                if lat > lat_max:
                    lat_max = lat
            elif completed == warm:
                for x in range(s_area_n.shape[0]):
                    s_area_n[x] = 0.0
                    s_area_b[x] = 0.0
                    s_tlast[x] = t
                area_sys = 0.0
                tlast_sys = t
                fst[F_TWARM] = t
            if closed:
                op, sz = _draw_request(read_frac, size_cdf)
                r_op[j] = op
                r_size[j] = sz
                r_first[j] = stripe
                stripe += size_T[sz]
                r_start[j] = t
                r_seq[j] = started
                if started < ntrace:
                    tr_start[started] = t
                started += 1
                nsys += 1
                es_j[ns] = j
                es_s[ns] = 0
                ns += 1
            else:
                free_stack[free_top] = j
                free_top += 1
            continue
        es_j[ns] = j
        es_s[ns] = nxt
        ns += 1

    ist[I_BGTOP] = bg_top
    ist[I_STRIPE] = stripe
    ist[I_SUSPENSIONS] = suspensions
    ist[I_HN] = hn
    ist[I_COMPLETED] = completed
    ist[I_STARTED] = started
    ist[I_EVENTS] = events
    ist[I_SEQ] = seq
    ist[I_FREE_TOP] = free_top
    ist[I_NSYS] = nsys
    ist[I_STATUS] = status
    fst[F_T] = t
    fst[F_TLAST_SYS] = tlast_sys
    fst[F_AREA_SYS] = area_sys
    fst[F_LAT_MIN] = lat_min
    fst[F_LAT_MAX] = lat_max


# --------------------------------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------------------------------
class _State:
    """Every array the event loop reads or writes, in ``_run``'s argument order."""

    def __init__(self, cn: CompiledNetwork, slots: int, warm: int, measured: int, batches: int, ntrace: int):
        tp = cn.tx_pool
        nbg = cn.bg_slots
        jobs = slots * (1 + tp) + (1 + nbg if nbg else 0)  # requests, transactions, arrival id, clones
        nsteps = cn.step_station.size
        nst = len(cn.station_names)
        nunits = cn.unit_servers.size
        self.ist = np.zeros(N_IST, dtype=np.int64)
        self.fst = np.zeros(N_FST, dtype=float)
        self.ist[I_WARMUP] = warm
        self.ist[I_MEASURED] = measured
        self.ist[I_BATCHES] = batches
        self.ist[I_CLOSED] = 1 if cn.closed else 0
        self.ist[I_R] = slots
        self.ist[I_TPOOL] = tp
        self.ist[I_NTRACE] = ntrace
        self.ist[I_BGTOP] = nbg
        self.ist[I_FREE_TOP] = 0 if cn.closed else slots
        self.fst[F_LAT_MIN] = math.inf
        self.fst[F_LAT_MAX] = -math.inf
        self.fst[F_IA_MEAN] = 0.0 if cn.closed else 1e6 / cn.arrival_iops
        self.fst[F_READ_FRAC] = cn.read_fraction
        i64, f64 = np.int64, np.float64
        self.hk = np.zeros(jobs + 2, dtype=f64)
        self.hv = np.zeros(jobs + 2, dtype=i64)
        self.j_step = np.zeros(jobs, dtype=i64)
        self.j_phase = np.zeros(jobs, dtype=i64)
        self.j_die = np.zeros(jobs, dtype=i64)
        self.j_unit = np.zeros(jobs, dtype=i64)
        self.j_tarr = np.zeros(jobs, dtype=f64)
        self.j_tsvc = np.zeros(jobs, dtype=f64)
        self.j_next = np.zeros(jobs, dtype=i64)
        self.r_op = np.zeros(slots, dtype=i64)
        self.r_size = np.zeros(slots, dtype=i64)
        self.r_rem = np.zeros(slots, dtype=i64)
        self.r_start = np.zeros(slots, dtype=f64)
        self.r_seq = np.zeros(slots, dtype=i64)
        self.r_first = np.zeros(slots, dtype=i64)  # transactions of all earlier requests ("stripe" routing)
        # open: pop order = slot 0 first
        self.free_stack = np.arange(slots - 1, -1, -1, dtype=i64) if not cn.closed else np.zeros(1, dtype=i64)
        es = slots + tp + 2 + nbg
        self.es_j = np.zeros(es, dtype=i64)
        self.es_s = np.zeros(es, dtype=i64)
        self.u_busy = np.zeros(nunits, dtype=i64)
        self.u_head = np.full(nunits, -1, dtype=i64)
        self.u_tail = np.full(nunits, -1, dtype=i64)
        self.u_head2 = np.full(nunits, -1, dtype=i64)  # a reads-first copy's second queue: writes' jobs
        self.u_tail2 = np.full(nunits, -1, dtype=i64)
        self.s_nin = np.zeros(nst, dtype=i64)
        self.s_busy = np.zeros(nst, dtype=i64)
        self.s_area_n = np.zeros(nst, dtype=f64)
        self.s_area_b = np.zeros(nst, dtype=f64)
        self.s_tlast = np.zeros(nst, dtype=f64)
        self.p_visits = np.zeros(nsteps, dtype=i64)
        self.p_res = np.zeros(nsteps, dtype=f64)
        self.p_wait = np.zeros(nsteps, dtype=f64)
        self.p_svc = np.zeros(nsteps, dtype=f64)
        self.hist = np.zeros(HIST_BINS + 2, dtype=i64)
        self.b_end = np.zeros(batches, dtype=f64)
        self.b_cnt = np.zeros(batches, dtype=i64)
        self.b_lat = np.zeros(batches, dtype=f64)
        tw = max(tp, 1)
        bg0 = slots * (1 + tp) + 1
        self.j_u = np.zeros(jobs, dtype=f64)
        self.j_sync = np.zeros(jobs, dtype=i64)
        self.j_admit = np.zeros(jobs, dtype=i64)
        self.j_nand = np.zeros(jobs, dtype=i64)
        self.c_op = np.zeros(max(nbg, 1), dtype=i64)
        self.bg_stack = np.arange(bg0 + nbg - 1, bg0 - 1, -1, dtype=i64) if nbg else np.zeros(1, dtype=i64)
        self.nand_hist = np.zeros(NAND_HIST, dtype=i64)
        self.j_hold_u = np.full(jobs, -1, dtype=i64)  # the station copy whose server the job holds, -1: none
        self.j_hold_end = np.full(jobs, -1, dtype=i64)  # the step through which it holds it
        self.hist_r = np.zeros(HIST_BINS + 2, dtype=i64)
        self.u_svc = np.full(nunits, -1, dtype=i64)  # the job in service at a single-server copy, -1: none
        self.u_susp = np.full(nunits, -1, dtype=i64)  # the job whose operation is suspended there, -1: none
        self.j_tend = np.zeros(jobs, dtype=f64)  # when the job's service in progress ends
        self.j_rem = np.full(jobs, -1.0, dtype=f64)  # a suspended operation's remaining service, -1: not suspended
        self.j_stale = np.zeros(jobs, dtype=i64)  # completion events of suspended services still in the heap
        self.tr_start = np.full(ntrace, np.nan)
        self.tr_end = np.full(ntrace, np.nan)
        self.tr_fork = np.full(ntrace, np.nan)
        self.tr_T = np.zeros(ntrace, dtype=i64)
        self.tr_txend = np.full((ntrace, tw), np.nan)
        self.tr_txdie = np.full((ntrace, tw), -1, dtype=i64)
        self.args = (
            self.ist, self.fst,
            cn.step_station, cn.step_route, cn.step_per_request, cn.step_family, cn.step_delay, cn.step_mean,
            cn.step_mu, cn.step_sigma, cn.step_base, cn.step_copies, cn.step_block_end, cn.unit_servers,
            cn.size_cdf, cn.size_transactions,
            self.hk, self.hv, self.j_step, self.j_phase, self.j_die, self.j_unit, self.j_tarr, self.j_tsvc,
            self.j_next, self.r_op, self.r_size, self.r_rem, self.r_start, self.r_seq, self.r_first, self.free_stack,
            self.es_j, self.es_s, self.u_busy, self.u_head, self.u_tail, self.s_nin, self.s_busy,
            self.s_area_n, self.s_area_b, self.s_tlast, self.p_visits, self.p_res, self.p_wait, self.p_svc,
            self.hist, self.b_end, self.b_cnt, self.b_lat,
            self.tr_start, self.tr_end, self.tr_fork, self.tr_T, self.tr_txend, self.tr_txdie,
            cn.step_ops, cn.step_prob, cn.step_follow, cn.step_bg, cn.step_bgend, cn.step_isdie,
            self.j_u, self.j_sync, self.j_admit, self.j_nand, self.c_op, self.bg_stack, self.nand_hist, self.hist_r,
            cn.step_hold, cn.unit_station, self.j_hold_u, self.j_hold_end, cn.step_behind, self.u_head2,
            self.u_tail2, cn.step_suspend, self.u_svc, self.u_susp, self.j_tend, self.j_rem, self.j_stale)


# --------------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class DesTrace:
    """Per-request record of the first requests started (in start order, warm-up included).

    Times in us (NaN when not reached); ``tx_end_us[i, k]`` is when transaction k of request i left its
    fork-join block and ``tx_copy[i, k]`` the copy its latest ``uniform`` or ``stripe`` step chose (-1 if none).
    """

    start_us: np.ndarray
    end_us: np.ndarray
    fork_us: np.ndarray
    transactions: np.ndarray
    tx_end_us: np.ndarray
    tx_copy: np.ndarray

    @property
    def latency_us(self) -> np.ndarray:
        """Request latencies (end - start)."""
        return self.end_us - self.start_us

    @property
    def tx_latency_us(self) -> np.ndarray:
        """Transaction latencies from the fork (NaN where the request had fewer transactions)."""
        return self.tx_end_us - self.fork_us[:, None]


WALL_CLOCK_FIELDS = ("wall_seconds", "events_per_second")


@dataclass(frozen=True, eq=False)
class DesResult:
    """Measured behaviour of one DES run (post warm-up unless stated). Times in us, rates per second.

    Station-keyed dicts use :attr:`Station.name`; ``*_in_station`` and ``mean_busy_servers`` are summed over
    all copies of a station (divide by ``copies`` for one copy, as in :class:`StationLoad`);
    ``utilization`` = busy server-time / (servers x copies x measured time). Residence = FCFS wait +
    service of one visit (a step's pipeline ``delay_us`` tail is not part of its station).
    Step-keyed dicts use step labels.
    """

    iops: _st.Estimate
    mean_latency_us: _st.Estimate
    latency_percentiles_us: dict[float, float]
    latency_min_us: float
    latency_max_us: float
    latency_cdf_us: tuple[np.ndarray, np.ndarray]
    hist_edges_us: np.ndarray
    hist_counts: np.ndarray
    mean_in_system: float
    utilization: dict[str, float]
    mean_in_station: dict[str, float]
    mean_busy_servers: dict[str, float]
    station_visits_per_s: dict[str, float]
    station_residence_us: dict[str, float]
    station_wait_us: dict[str, float]
    station_service_us: dict[str, float]
    step_visits_per_s: dict[str, float]
    step_residence_us: dict[str, float]
    step_wait_us: dict[str, float]
    batch_iops: np.ndarray
    batch_latency_us: np.ndarray
    completed_requests: int
    warmup_requests: int
    measured_requests: int
    simulated_time_us: float
    measured_time_us: float
    events: int
    numba_seed: int
    service_family: str
    closed: bool
    trace: DesTrace | None
    wall_seconds: float
    events_per_second: float
    read_latency_percentiles_us: dict[float, float] | None = None  # reads only (None without reads)
    nand_ops_per_read_tx: np.ndarray | None = None  # counts of read transactions by die visits 0..7+
    suspensions: int = 0  # programs and erases a read suspended (nand.suspend), the whole run with its warm-up

    @property
    def p50_us(self) -> float:
        return self.latency_percentiles_us[50.0]

    @property
    def p99_us(self) -> float:
        return self.latency_percentiles_us[99.0]

    @property
    def p999_us(self) -> float:
        return self.latency_percentiles_us[99.9]

    def percentile_us(self, q: float) -> float:
        """Any latency percentile (0..100) from the histogram."""
        return _st.hist_percentile(self.hist_counts, self.hist_edges_us, q, self.latency_min_us,
                                   self.latency_max_us)

    def to_dict(self, wall_clock: bool = False) -> dict:
        """Plain nested dict (arrays as lists); wall-clock fields only when asked (they vary run to run)."""

        def conv(v):
            if isinstance(v, np.ndarray):
                return v.tolist()
            if isinstance(v, _st.Estimate):
                return {"value": v.value, "half_width": v.half_width, "confidence": v.confidence,
                        "batches": v.batches}
            if isinstance(v, DesTrace):
                return {f.name: conv(getattr(v, f.name)) for f in fields(v)}
            if isinstance(v, tuple):
                return [conv(x) for x in v]
            if isinstance(v, dict):
                return {k: conv(x) for k, x in v.items()}
            return v

        return {f.name: conv(getattr(self, f.name)) for f in fields(self)
                if wall_clock or f.name not in WALL_CLOCK_FIELDS}

    def fingerprint(self) -> str:
        """SHA-256 of every non-wall-clock field (exact float reprs, NaN-safe): equal iff bit-identical."""
        import hashlib

        return hashlib.sha256(repr(self.to_dict()).encode()).hexdigest()

    def summary(self) -> str:
        """A few human-readable lines."""
        lines = [f"IOPS {self.iops.value:,.0f} +- {self.iops.half_width:,.0f}   "
                 f"latency mean {self.mean_latency_us}  p50 {self.p50_us:.4g}  p99 {self.p99_us:.4g}  "
                 f"p99.9 {self.p999_us:.4g} us",
                 f"{self.measured_requests:,} requests measured ({self.warmup_requests:,} warm-up), "
                 f"{self.events:,} events, {self.events_per_second / 1e6:.2f} M events/s"]
        for name, u in self.utilization.items():
            lines.append(f"  {name:<18} util {u:6.3f}  in station {self.mean_in_station[name]:8.3f}  "
                         f"residence {self.station_residence_us[name]:9.4g} us")
        return "\n".join(lines)


# --------------------------------------------------------------------------------------------------
# Public entry point
# --------------------------------------------------------------------------------------------------
def _check_open_stability(network: Network) -> None:
    lam = float(network.arrival_iops) / 1e6  # per us
    bg = {b.name: b.demand_us for b in network.background_loads()}
    # demand per server, background work included (it loads the station too); the largest is the bottleneck
    per_server = {ld.name: (ld.demand_us + bg.get(ld.name, 0.0)) / ld.servers for ld in network.loads()}
    if not per_server:  # pure delays only: an infinite server, stable at any rate
        return
    name = max(per_server, key=per_server.get)
    rho = lam * per_server[name]
    if rho >= 1.0:
        raise _fail(f"workload.arrival_iops = {network.arrival_iops:,.0f} IOPS: "
                    + unstable_open_workload(name, rho, 1e6 / per_server[name]))


def simulate(network: Network, *, requests: int = 200_000, warmup_fraction: float = DEFAULT_WARMUP_FRACTION,
             seed: SeedLike = 0, service_family: str = "auto", batches: int = DEFAULT_BATCHES,
             progress: bool | Callable[[int, int], object] = False,
             confidence: float = 0.95, max_in_system: int | None = None,
             trace_requests: int = 0, numba_seed: int | None = None) -> DesResult:
    """Simulate ``network`` until ``requests`` requests have completed.

    Parameters
    ----------
    network : Network
        The station network (closed if ``queue_depth`` is set, open if ``arrival_iops`` is).
    requests : int
        Completed requests to simulate, warm-up included.
    warmup_fraction : float
        Fraction of ``requests`` discarded at the start (in [0, 1)).
    seed : int, numpy Generator or None
        See :mod:`ssdco.rng`; the derived integer is reported as ``numba_seed``.
    service_family : {"auto", "exponential", "lognormal"}
        Family of non-deterministic service times (scv > 0); scv == 0 is always deterministic.
    batches : int
        Batches for batch means (>= 2).
    progress : bool or callable
        True: a tqdm bar on stderr; a callable: ``progress(completed, requests)`` after each chunk of about 0.5 %
        of the run (an exception it raises stops the run). Either way the loop runs in chunks and the results
        are identical.
    confidence : float
        Two-sided level of the intervals.
    max_in_system : int, optional
        Open networks only: request slots (default scales with transactions per request, <= 100 000).
        Exceeding it stops the run with :class:`DesError`.
    trace_requests : int
        Record a :class:`DesTrace` of the first this-many requests (0 = none).
    numba_seed : int, optional
        The event loop's own seed in ``[0, 2**32)``, as a result reports it (:attr:`DesResult.numba_seed`): a run
        repeats exactly from it; given, ``seed`` is not used.
    """
    requests, batches, warm, measured = _run_options(requests, warmup_fraction, batches, trace_requests, numba_seed)
    cn = compile_network(network, service_family)
    if cn.closed:
        slots = cn.queue_depth
    else:
        _check_open_stability(network)
        if max_in_system is None:
            slots = max(1_000, min(100_000, 1_000_000 // (1 + cn.tx_pool)))
        else:
            if int(max_in_system) < 1:
                raise _fail(f"max_in_system must be >= 1, got {max_in_system}")
            slots = int(max_in_system)
    if slots * (1 + cn.tx_pool) > MAX_JOBS:
        raise _fail(f"{slots} requests x {1 + cn.tx_pool} jobs exceed the DES job limit {MAX_JOBS}")
    state = _State(cn, slots, warm, measured, batches, int(trace_requests))
    nseed = derive_seed(seed) if numba_seed is None else int(numba_seed)
    _seed_numba(np.uint32(nseed))
    _run(0, *state.args)  # compiles (or loads the cache) without touching the state: startup, not events/s
    t0 = time.perf_counter()
    if callable(progress):
        _run_in_chunks(state, requests, lambda done, new: progress(done, requests))
    elif progress:
        from tqdm.auto import tqdm

        with tqdm(total=requests, unit="req", desc="DES", leave=False) as bar:
            _run_in_chunks(state, requests, lambda done, new: bar.update(new))
    else:
        _run(requests, *state.args)
    wall = time.perf_counter() - t0
    status = int(state.ist[I_STATUS])
    if status == ST_OVERFLOW:
        raise DesError(f"open workload overflowed {slots} request slots after {int(state.ist[I_COMPLETED])} "
                       f"completions at t = {state.fst[F_T]:.6g} us: the system looks unstable or "
                       f"too bursty for max_in_system; lower arrival_iops or raise max_in_system")
    if status == ST_EMPTY:  # pragma: no cover - cannot happen for a valid network
        raise DesError("event list ran empty before the run finished")
    return _finish(cn, state, nseed, service_family, confidence, wall, requests, warm, measured)


def _run_in_chunks(state: _State, requests: int, after_chunk: Callable[[int, int], object]) -> None:
    """Run ``state`` to ``requests`` completions in chunks of about 0.5 % (results identical to one run), calling
    ``after_chunk(completed, newly completed)`` after each."""
    chunk = max(1_000, requests // 200)
    done = 0
    while done < requests and state.ist[I_STATUS] == ST_OK:
        _run(min(done + chunk, requests), *state.args)
        now = int(state.ist[I_COMPLETED])
        after_chunk(now, now - done)
        done = now


def _run_options(requests, warmup_fraction: float, batches, trace_requests: int, numba_seed: int | None
                 ) -> tuple[int, int, int, int]:
    """(requests, batches, warm-up requests, measured requests) of :func:`simulate`'s options, or DesError where
    one is out of range."""
    if isinstance(requests, bool) or int(requests) != requests or not 1 <= requests <= MAX_REQUESTS:
        raise _fail(f"requests must be an integer in [1, {MAX_REQUESTS:.0e}], got {requests!r}")
    requests = int(requests)
    if not 0.0 <= warmup_fraction < 1.0:
        raise _fail(f"warmup_fraction must be in [0, 1), got {warmup_fraction}")
    if int(batches) != batches or batches < 2:
        raise _fail(f"batches must be an integer >= 2, got {batches!r}")
    batches = int(batches)
    warm = int(math.floor(requests * warmup_fraction))
    measured = requests - warm
    if measured < batches:
        raise _fail(f"{measured} measured requests cannot fill {batches} batches; raise requests")
    if trace_requests < 0:
        raise _fail(f"trace_requests must be >= 0, got {trace_requests}")
    if numba_seed is not None and (isinstance(numba_seed, bool) or not isinstance(numba_seed, (int, np.integer))
                                   or not 0 <= numba_seed < 2**32):
        raise _fail(f"numba_seed must be an integer in [0, 2**32), got {numba_seed!r}")
    return requests, batches, warm, measured


def _finish(cn: CompiledNetwork, s: _State, nseed: int, family: str, confidence: float, wall: float,
            requests: int, warm: int, measured: int) -> DesResult:
    t_end = float(s.fst[F_T])
    t_warm = float(s.fst[F_TWARM])
    T = t_end - t_warm
    area_n = s.s_area_n + s.s_nin * (t_end - s.s_tlast)
    area_b = s.s_area_b + s.s_busy * (t_end - s.s_tlast)
    area_sys = float(s.fst[F_AREA_SYS] + s.ist[I_NSYS] * (t_end - s.fst[F_TLAST_SYS]))
    inv_T = 1.0 / T if T > 0 else math.nan

    durations = np.diff(np.concatenate(([t_warm], s.b_end)))
    cnt = s.b_cnt.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        batch_iops = cnt / durations * 1e6
        batch_lat = s.b_lat / cnt
    if np.all(durations > 0):
        r = _st.rate_estimate(cnt, durations, confidence)
        iops = _st.Estimate(r.value * 1e6, r.half_width * 1e6, confidence, r.batches)
    else:
        iops = _st.Estimate(measured * 1e6 * inv_T, math.nan, confidence, len(cnt))
    mean_latency = _st.rate_estimate(s.b_lat, cnt, confidence)

    edges = _st.log_bin_edges(HIST_LO_US, HIST_HI_US, HIST_BINS)
    lmin, lmax = float(s.fst[F_LAT_MIN]), float(s.fst[F_LAT_MAX])
    pct = {q: _st.hist_percentile(s.hist, edges, q, lmin, lmax) for q in (50.0, 99.0, 99.9)}
    cdf = _st.hist_cdf(s.hist, edges, lmax)

    names = cn.station_names
    util, nin, busy, svis, sres, swait, ssvc = {}, {}, {}, {}, {}, {}, {}
    for k, name in enumerate(names):
        cap = float(cn.station_servers[k] * cn.station_copies[k])
        at = cn.step_station == k
        v = float(s.p_visits[at].sum())
        util[name] = float(area_b[k]) * inv_T / cap
        nin[name] = float(area_n[k]) * inv_T
        busy[name] = float(area_b[k]) * inv_T
        svis[name] = v * inv_T * 1e6
        sres[name] = float(s.p_res[at].sum()) / v if v else math.nan
        swait[name] = float(s.p_wait[at].sum()) / v if v else math.nan
        ssvc[name] = float(s.p_svc[at].sum()) / v if v else math.nan
    pvis, pres, pwait = {}, {}, {}
    for i, lab in enumerate(cn.step_labels):
        v = float(s.p_visits[i])
        pvis[lab] = v * inv_T * 1e6
        pres[lab] = float(s.p_res[i]) / v if v else math.nan
        pwait[lab] = float(s.p_wait[i]) / v if v else (math.nan if cn.step_station[i] >= 0 else 0.0)

    read_pct = None
    if s.hist_r.sum() > 0:
        read_pct = {q: _st.hist_percentile(s.hist_r, edges, q, lmin, lmax) for q in (50.0, 99.0, 99.9)}
    trace = None
    if s.tr_start.size:
        trace = DesTrace(s.tr_start, s.tr_end, s.tr_fork, s.tr_T, s.tr_txend, s.tr_txdie)
    events = int(s.ist[I_EVENTS])
    return DesResult(
        iops=iops, mean_latency_us=mean_latency, latency_percentiles_us=pct, latency_min_us=lmin,
        latency_max_us=lmax, latency_cdf_us=cdf, hist_edges_us=edges, hist_counts=s.hist.copy(),
        mean_in_system=area_sys * inv_T, utilization=util, mean_in_station=nin, mean_busy_servers=busy,
        station_visits_per_s=svis, station_residence_us=sres, station_wait_us=swait, station_service_us=ssvc,
        step_visits_per_s=pvis, step_residence_us=pres, step_wait_us=pwait, batch_iops=batch_iops,
        batch_latency_us=batch_lat, completed_requests=int(s.ist[I_COMPLETED]), warmup_requests=warm,
        measured_requests=measured, simulated_time_us=t_end, measured_time_us=T, events=events,
        suspensions=int(s.ist[I_SUSPENSIONS]),
        numba_seed=nseed, service_family=family, closed=cn.closed, trace=trace, wall_seconds=wall,
        events_per_second=events / wall if wall > 0 else math.inf, read_latency_percentiles_us=read_pct,
        nand_ops_per_read_tx=s.nand_hist.copy())
