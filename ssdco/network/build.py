"""Configuration -> queueing network (stations and the request's route). No solving here.

The controller is a tandem network that every request walks through:

    fetch (fixed PCIe latency) -> parse -> [per transaction: cache_lookup -> translate -> dispatch
    -> die (array busy tR / tPROG) -> channel bus (page transfer)] -> PCIe data transfer -> complete
    -> completion post (fixed PCIe latency)

Stations:

* ``pcie`` - the host link, one server; occupancy = (request bytes + command bytes) / bandwidth.
* ``cores:<group>`` - a core group of ``count`` cores serving all its modules FCFS (multi-server).
* ``accel:<module>`` - ``units`` hardware units; each unit is busy for the initiation interval and the
  rest of its latency is a pipeline delay that does not hold the unit.
* ``die`` - ``copies`` = number of dies. **Address-routed**: a transaction goes to the one die its address
  maps to (uniformly at random by default) and waits there even if another die is idle. This is *not* a
  single shared queue with ``dies`` servers (which would let any idle die take any transaction and so
  would overstate throughput at moderate load). Inside a die, planes are servers when the device reads
  planes independently.
* ``channel`` - ``copies`` = number of channels; a transaction uses the bus of its die's channel. With
  ``nand.die_held_through_transfer`` the die stays busy until that transfer ends (``Step.hold_through``).

Identical address-routed copies are one :class:`Station` with ``copies > 1``; solvers exploit the
symmetry (each copy has the same demand) so cost does not grow with the die count.

With an ``[ftl]`` table (:mod:`ssdco.network.ftl_effects`) the route gains, per read transaction, the mapping
cache's critical-path NAND work (translation-page read on a miss; with plain DFTL a dirty victim's
write-back before it), data reads skip nothing, and writes are acknowledged from the DRAM write buffer:
their page programs, GC copies, erases and mapping-page traffic are **background** steps. A background
step is visited by a clone of the job: the clone queues FCFS at the station like any job, the job itself
goes on at once (the DES spawns clones from a pool of ``background_slots``; when the pool is empty the
job does the work itself, which is the write buffer's back-pressure). The analytic solvers treat
background steps as an open stream sharing the stations (``Network.background_loads``).

Steps may be visited by one operation only (``ops``) and with a probability (``probability``;
``follow`` reuses the job's previous draw, so nested events such as "miss" and "miss with a dirty
victim" stay consistent). Visits of such a step = base visits x operation share x probability.

Requests of several sizes split into ``ceil(size / mapping unit)`` transactions that run in parallel
(fork-join) in the DES; the analytic model sums their demands (visit ratio = mean transactions).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import networkx as nx
import numpy as np
from scipy.stats import binom

from ssdco.network.ftl_effects import FtlEffects, ftl_effects
from ssdco.spec import KIB, MODULES, Config
from ssdco.spec.schema import CQE_BYTES

ROUTING = ("single", "uniform", "die_channel", "stripe")
STEP_OPS = ("both", "read", "write")


@dataclass(frozen=True)
class Station:
    """A service centre. ``servers`` per copy; ``copies`` identical address-routed replicas."""

    name: str
    kind: str  # "link" | "cores" | "accel" | "die" | "channel"
    servers: int
    copies: int = 1
    # a read request's visits go ahead of the queued visits of write requests and of the write buffer's background
    # work (programs, erases, garbage collection), first come first served within each, non-preemptive
    reads_first: bool = False
    # program/erase suspend (``nand.suspend``): the time (us) a read spends suspending a program or an erase of a
    # job queued behind it that it finds in service; None: that operation is not suspended
    suspend_program_us: float | None = None
    suspend_erase_us: float | None = None

    @property
    def suspends(self) -> bool:
        """Whether a read suspends some operation in service here: the preemptive form of ``reads_first``, at a
        station serving one operation at a time."""
        return (self.reads_first and self.servers == 1
                and (self.suspend_program_us is not None or self.suspend_erase_us is not None))

    def suspension_us(self, array: str) -> float | None:
        """The time (us) a read spends suspending an operation of ``Step.array`` kind ``array`` ("program",
        "erase") in service here; None where it does not suspend it."""
        if not self.suspends:
            return None
        return {"program": self.suspend_program_us, "erase": self.suspend_erase_us}.get(array)


@dataclass(frozen=True)
class Step:
    """One visit on the request's route.

    Service time of a visit = (``read_us`` for a read, ``write_us`` for a write)
    + ``per_byte_us`` x request bytes; then ``delay_us`` of pure latency that holds no server.
    ``station`` is None for a pure delay (infinite server): then the service part is itself a delay,
    drawn with ``scv`` like any service. ``per_request`` False means once per transaction.
    ``hold_through``: the label of a later step of the same job in the same fork-join block (no background step
    between); the server this step used stays busy, without serving anyone else, until the job has finished
    (or skipped) that step: a die whose page register holds a read's data until its transfer on the channel
    ends. Empty: the server is free when the service ends. ``behind``: the operations whose visits queue behind the
    station's other waiting visits (a channel's commands behind the reads' data-outs).
    """

    label: str
    station: str | None
    per_request: bool
    read_us: float
    write_us: float
    per_byte_us: float = 0.0
    scv: float = 0.0
    delay_us: float = 0.0
    routing: str = "single"
    dram_accesses: float = 0.0
    sram_accesses: float = 0.0  # mapping lookups served by on-chip SRAM ([sram] mapping_mib)
    # NAND array work the power model prices: "read", "program", "erase", or "data" (the request's own: a read's
    # read, a write's program); "" none
    array: str = ""
    ops: str = "both"  # "both" | "read" | "write": which operations visit the step
    probability: float = 1.0  # chance that a job of those operations visits it
    follow: bool = False  # reuse the job's previous probability draw (nested events)
    background: bool = False  # done by a background clone; the job does not wait for it
    hold_through: str = ""  # label of a later step: the server stays busy until the job has done that one too
    # which operations' visits ("read", "write", "both"; "": none) queue behind the station's other waiting visits
    # (a second queue, first come first served, non-preemptive)
    behind: str = ""


@dataclass(frozen=True)
class StationLoad:
    """Per-request load on one copy of a station (what MVA and the open solver need)."""

    name: str
    kind: str
    servers: int
    copies: int
    visits: float  # visits per request to one copy
    service_us: float  # mean per-visit service time
    scv: float  # squared coefficient of variation of a visit's service time

    @property
    def demand_us(self) -> float:
        """Service demand per request on one copy (visits x service), us."""
        return self.visits * self.service_us


def striped_loads(transactions: int, copies: int) -> tuple[int, ...]:
    """The loads of the copies that ``transactions`` consecutive jobs occupy when they go to consecutive copies
    (a sequential stream striped over the dies, ``"stripe"`` routing): T // m + 1 at T % m copies, T // m at the
    others (only the occupied ones: min(T, m) copies)."""
    q, r = divmod(int(transactions), int(copies))
    return (q + 1,) * r + ((q,) * (int(copies) - r) if q > 0 else ())


def same_copy_pairs(transactions: int, copies: int, striped: bool) -> float:
    """E[sum over the copies of X (X - 1)]: the ordered pairs of a request's ``transactions`` that share a copy
    when each picks one of ``copies`` at random (T (T - 1) / m) or, ``striped``, they go to consecutive copies."""
    t = int(transactions)
    if striped:
        return float(sum(k * (k - 1) for k in striped_loads(t, copies)))
    return t * (t - 1) / copies


def fork_join_block_ends(per_request) -> np.ndarray:
    """Per step, for a per-transaction step (``per_request`` false) the index of the first step after its
    fork-join block (the run of consecutive per-transaction steps it belongs to); ``len(per_request)`` for
    per-request steps."""
    flags = [bool(f) for f in per_request]
    ns = len(flags)
    block_end = np.full(ns, ns, dtype=np.int64)
    k = 0
    while k < ns:
        if flags[k]:
            k += 1
            continue
        j = k
        while j < ns and not flags[j]:
            j += 1
        block_end[k:j] = j
        k = j
    return block_end


@dataclass(frozen=True)
class Network:
    """Stations, the ordered route, and the workload facts the route depends on."""

    stations: tuple[Station, ...]
    steps: tuple[Step, ...]
    read_fraction: float
    request_bytes: tuple[float, ...]
    request_probs: tuple[float, ...]
    transactions: tuple[int, ...]
    queue_depth: int | None
    arrival_iops: float | None
    background_slots: int = 0  # DES clone pool for background steps (the write buffer, in transactions)
    ftl: FtlEffects | None = field(default=None, compare=False, repr=False)  # what the steps were built from

    @cached_property
    def mean_transactions(self) -> float:
        """Mean transactions per request."""
        return float(np.dot(self.transactions, self.request_probs))

    @cached_property
    def mean_request_bytes(self) -> float:
        """Mean request size in bytes."""
        return float(np.dot(self.request_bytes, self.request_probs))

    @cached_property
    def holds(self) -> tuple[tuple[int, int], ...]:
        """(holder, release) step index pairs: the holder's server stays busy until the job has done the release
        step too (``Step.hold_through``; the first later step of that label in the holder's block, or for a
        per-request holder the first later per-request one). A ``hold_through`` that names no such step has no
        pair (the DES refuses it)."""
        ends = fork_join_block_ends([s.per_request for s in self.steps])
        out = []
        for i, st in enumerate(self.steps):
            if st.hold_through:
                end = len(self.steps) if st.per_request else int(ends[i])
                found = [k for k in range(i + 1, end) if self.steps[k].label == st.hold_through
                         and self.steps[k].per_request == st.per_request]
                if found:
                    out.append((i, found[0]))
        return tuple(out)

    @cached_property
    def striped_steps(self) -> frozenset[int]:
        """Indices of the steps whose copy follows a request's striping: the ``"stripe"`` steps (transaction k at
        the k-th copy after the request's first) and the ``"die_channel"`` steps whose die came from one (dies are
        numbered channel first, so consecutive dies sit on consecutive channels)."""
        out = set()
        die_from_stripe = False
        for i, st in enumerate(self.steps):
            if st.station is None:
                continue
            if st.routing in ("uniform", "stripe"):
                die_from_stripe = st.routing == "stripe" and not st.per_request
            if st.routing == "stripe" or (st.routing == "die_channel" and die_from_stripe and not st.per_request):
                out.add(i)
        return frozenset(out)

    @cached_property
    def behind_in_effect(self) -> bool:
        """Whether some station serves part of its visits ahead of the others: dies serving reads first
        (:attr:`reads_first_in_effect`), or a station where some visits queue behind (``Step.behind``) and others do
        not. Solvers that run first-come-first-served queues decline such a network."""
        return self.reads_first_in_effect or self.step_order_in_effect

    @cached_property
    def step_order_in_effect(self) -> bool:
        """Whether some station serves visits of both kinds: those that queue behind (``Step.behind``) and those
        that do not."""
        for st in self.stations:
            classes = set()
            for s in self.steps:
                if s.station != st.name or self.op_weight(s) <= 0:
                    continue
                ops = ("read", "write") if s.ops == "both" else (s.ops,)
                for op in ops:
                    if (op == "read" and self.read_fraction <= 0) or (op == "write" and self.read_fraction >= 1):
                        continue
                    classes.add(s.behind in (op, "both"))
            if len(classes) > 1:
                return True
        return False

    @cached_property
    def reads_first_in_effect(self) -> bool:
        """Whether a ``reads_first`` station serves both read requests' visits and visits of write requests or of
        the background work at the same time (only then does its order differ from first come first served). A
        closed workload at queue depth 1 has one request in flight, all reads or all writes: there a write
        request's visits never meet a read's, and only background work can."""
        requests_meet = self.queue_depth is None or self.queue_depth > 1
        for st in self.stations:
            if not st.reads_first:
                continue
            ops = {s.ops if s.ops != "both" else "any" for s in self.steps if s.station == st.name
                   and not s.background and self.op_weight(s) > 0}
            reads = self.read_fraction > 0 and bool(ops & {"read", "any"})
            others = (requests_meet and self.read_fraction < 1 and bool(ops & {"write", "any"})) or any(
                b.name == st.name and b.demand_us > 0 for b in self.background_loads())
            if reads and others:
                return True
        return False

    def suspension_terms(self, name: str) -> tuple[float, float]:
        """At station ``name``, per copy and request: (visits x E[S^2] / 2 of the background work a read waits behind
        when it finds it in service, in us^2; sum over the background work a read suspends instead
        (``Station.suspend_program_us``/``suspend_erase_us``) of its demand x the suspension time, in us^2). Where
        nothing is suspended, the first is all the background work's and the second 0."""
        st = self.station(name)
        waited = suspended = 0.0
        for step in self.steps:
            if step.station != name or not step.background:
                continue
            v = self.visits(step) / st.copies
            s1, s2 = self.step_moments(step)
            t = st.suspension_us(step.array)
            if t is None:
                waited += v * s2 / 2.0
            else:
                suspended += v * s1 * t
        return waited, suspended

    def is_striped(self, step: Step) -> bool:
        """Whether ``step`` (one of this network's) places a request's transactions by striping
        (:attr:`striped_steps`)."""
        return any(self.steps[i] is step for i in self.striped_steps)

    def station(self, name: str) -> Station:
        """The station called ``name``."""
        for s in self.stations:
            if s.name == name:
                return s
        raise KeyError(name)

    def op_weight(self, step: Step) -> float:
        """Fraction of the base visits (per request or per transaction) that make ``step``."""
        share = {"both": 1.0, "read": self.read_fraction, "write": 1.0 - self.read_fraction}[step.ops]
        return share * step.probability

    def visits(self, step: Step) -> float:
        """Mean visits per request made by ``step`` (1 or mean transactions, x :meth:`op_weight`)."""
        return (1.0 if step.per_request else self.mean_transactions) * self.op_weight(step)

    def step_moments(self, step: Step, op: str | None = None) -> tuple[float, float]:
        """First and second moment (us, us^2) of one visit's service time, mixing reads/writes and sizes
        (over the operations that visit the step), or of operation ``op`` ("read" or "write") alone."""
        return self.step_raw_moments(step, op)[:2]

    def step_raw_moments(self, step: Step, op: str | None = None) -> tuple[float, float, float]:
        """First three moments (us, us^2, us^3) of one visit's service time, as :meth:`step_moments`
        (a service of scv > 0 taken as a gamma: E[S^3] = E[S]^3 (1 + scv) (1 + 2 scv))."""
        m1 = m2 = m3 = 0.0
        ops = ((True, self.read_fraction), (False, 1.0 - self.read_fraction))
        if op is not None:
            ops = ((op == "read", 1.0),)
        elif step.ops != "both":
            ops = ((step.ops == "read", 1.0),)
        for is_read, p_op in ops:
            if p_op <= 0:
                continue
            base = step.read_us if is_read else step.write_us
            sizes = self.request_bytes if step.per_request else (0.0,)
            probs = self.request_probs if step.per_request else (1.0,)
            for b, p in zip(sizes, probs):
                mean = base + step.per_byte_us * b
                m1 += p_op * p * mean
                m2 += p_op * p * mean * mean * (1.0 + step.scv)
                m3 += p_op * p * mean ** 3 * (1.0 + step.scv) * (1.0 + 2.0 * step.scv)
        return m1, m2, m3

    @cached_property
    def residual_scv(self) -> dict[str, float]:
        """Per station: the squared coefficient of variation of the residual service an arrival finds there,
        over all the work it serves (foreground and background, weighted by visits). The residual R of a
        service S has E[R] = E[S^2] / (2 E[S]) and E[R^2] = E[S^3] / (3 E[S]), so
        cv_R^2 = 4 E[S] E[S^3] / (3 E[S^2]^2) - 1: 1/3 for one deterministic service, 1 for the
        exponential, more when long operations are rare (erases among programs). Stations without work
        are left out."""
        moments: dict[str, tuple[float, float, float]] = {}
        for step in self.steps:
            v = self.visits(step)
            if step.station is None or v <= 0:
                continue
            m1, m2, m3 = moments.get(step.station, (0.0, 0.0, 0.0))
            s1, s2, s3 = self.step_raw_moments(step)
            moments[step.station] = (m1 + v * s1, m2 + v * s2, m3 + v * s3)
        return {name: 4.0 * m1 * m3 / (3.0 * m2 * m2) - 1.0 for name, (m1, m2, m3) in moments.items() if m2 > 0}

    @cached_property
    def batch_excess(self) -> dict[str, float]:
        """Per station: the batch term of its M^X/G/c wait, E[X^2] / E[X] - 1 for the batch X that its visits
        arrive in, averaged over the visits and weighted by the squared mean service of the batch's operation
        (in units of the station's mean service squared). Used by the open solver (``open.py``, M^X/G/c).

        A request's T transactions reach a per-transaction step together (the fork): all T at a single
        station, 1 + Bin(T - 1, 1/m) at each of m address-routed copies, so a transaction's batch is larger
        on average by (E[T^2] / E[T] - 1) / m (sizes weighted by their transactions); per-request steps
        arrive one at a time. The transactions of a batch make the same step for the same operation, so the
        batch's work B = X S_op has E[B^2] = E[X] Var(S_op) + E[X^2] m_op^2: the siblings' part,
        E[X (X - 1)] m_op^2, goes with the operation's mean, not the station's (a write request's four
        programs arrive together; reads and programs mixed at random would understate the work they bring,
        by a third on 16 KiB requests at 70 % reads). With one service time per station this is the plain
        E[X^2] / E[X] - 1."""
        t = np.asarray(self.transactions, dtype=float)
        p = np.asarray(self.request_probs, dtype=float)
        excess = float(np.dot(p, t * t) / np.dot(p, t) - 1.0)
        t_mean = float(np.dot(p, t))
        copies = {st.name: st.copies for st in self.stations}
        mean_service = {ld.name: ld.service_us for ld in self.loads()}
        visits: dict[str, float] = {}
        batched: dict[str, float] = {}
        for step in self.steps:
            v = self.visits(step)
            if step.station is None or step.background or v <= 0:
                continue
            visits[step.station] = visits.get(step.station, 0.0) + v
            if not step.per_request and excess > 0 and mean_service[step.station] > 0:
                # E[T (T - 1)] / E[T] / m at random copies: the siblings that share a transaction's copy
                spread = copies[step.station] if step.routing != "single" else 1
                siblings = sum(q * same_copy_pairs(k, spread, self.is_striped(step))
                               for k, q in zip(self.transactions, self.request_probs)) / t_mean
                batched[step.station] = (batched.get(step.station, 0.0) + v * siblings
                                         * self._op_mean_square(step) / mean_service[step.station] ** 2)
        return {name: batched.get(name, 0.0) / v for name, v in visits.items()}

    @cached_property
    def copy_batches(self) -> dict[str, tuple[float, np.ndarray]]:
        """Per station whose foreground work is one per-transaction step that every request of its operation
        makes (a die's array step, a channel's transfer): (batches per request at one copy, P(X = x) for
        x = 0 .. max T), X the number of a request's T transactions that land on that copy, given that it
        gets any: Bin(T, 1 / m) over m address-routed copies (T at a single station; striped over consecutive
        copies: T // m + 1 at a share (T % m) / m of them, T // m at the others), mixed over the request sizes.
        Used by the open solver for the batch arrivals of M^X/G/c (``open.py``)."""
        t_max = int(max(self.transactions))
        copies = {st.name: st.copies for st in self.stations}
        steps: dict[str, list[Step]] = {}
        for step in self.steps:
            if step.station is not None and not step.background and self.visits(step) > 0:
                steps.setdefault(step.station, []).append(step)
        out = {}
        for name, own in steps.items():
            if len(own) != 1 or own[0].per_request or own[0].probability != 1.0:
                continue
            m = copies[name] if own[0].routing != "single" else 1
            pmf = np.zeros(t_max + 1)
            for t, p in zip(self.transactions, self.request_probs):
                if self.is_striped(own[0]):
                    q, r = divmod(int(t), m)
                    pmf[q + 1] += p * r / m
                    pmf[q] += p * (m - r) / m
                    continue
                x = np.arange(int(t) + 1)
                pmf[: int(t) + 1] += p * binom.pmf(x, int(t), 1.0 / m)
            pmf[0] = 0.0
            rate = float(pmf.sum())
            out[name] = (self.op_weight(own[0]) * rate, pmf / rate)
        return out

    @cached_property
    def sibling_work_ratio(self) -> dict[str, float]:
        """Per address-routed station: E[m_op^2] / S^2 over its per-transaction visits, where m_op is the mean
        service of the visit's step for its operation and S the station's mean service. A transaction queued
        behind its own siblings has their operation (a write request's programs wait behind each other), so
        such transactions bring E[m_op^2] / E[m_op] of work each, not S: 1 when reads and writes take the
        same time there, (0.7 tR^2 + 0.3 tPROG^2) / (0.7 tR + 0.3 tPROG)^2 at a die at 70 % reads (2.2 for
        tR 50 us and tPROG 450 us). Used by the closed solver for the others' queue (``route_mva.py``, 1.)."""
        mean_service = {ld.name: ld.service_us for ld in self.loads()}
        visits: dict[str, float] = {}
        squares: dict[str, float] = {}
        for step in self.steps:
            v = self.visits(step)
            if (step.station is None or step.background or step.per_request or step.routing == "single" or v <= 0
                    or mean_service[step.station] <= 0):
                continue
            visits[step.station] = visits.get(step.station, 0.0) + v
            squares[step.station] = (squares.get(step.station, 0.0)
                                     + v * self._op_mean_square(step) / mean_service[step.station] ** 2)
        return {name: squares[name] / v for name, v in visits.items()}

    @cached_property
    def copy_work_correlation(self) -> dict[str, float]:
        """Per address-routed station with several copies: the correlation between the work one request brings
        to two of its copies, Cov(Y_1, Y_2) / Var(Y_1), the heavy-traffic correlation of the two copies'
        workloads (a reflected Brownian motion's covariance is its input's).

        The request's T transactions split over m copies as a multinomial (X_1, .., X_m), all of its
        operation, so with m_op the work per transaction for that operation (its mean service times the visit
        probability, 0 where the operation does not visit): E[Y_1 Y_2] = E[T (T - 1)] / m^2 E[m_op^2],
        E[Y_1] = E[T] / m E[m_op] and E[Y_1^2] = E[T] / m E[m_op^2] + E[T (T - 1)] / m^2 E[m_op^2]. Background
        work (page programs, GC) lands on one copy at a time and adds its second moment to Var(Y_1) only.
        Negative for one operation and one size (the split puts fewer on one copy when more go to another),
        positive when programs and reads mix (a write request's programs land on several dies at once) or
        sizes vary enough."""
        t = np.asarray(self.transactions, dtype=float)
        p = np.asarray(self.request_probs, dtype=float)
        t_mean = float(np.dot(p, t))
        t_square = float(np.dot(p, t * t))
        background = {b.name: b for b in self.background_loads()}
        out: dict[str, float] = {}
        for st in self.stations:
            steps = [s for s in self.steps if s.station == st.name and not s.background and not s.per_request
                     and s.routing != "single" and self.op_weight(s) > 0]
            if st.copies < 2 or not steps:
                continue
            m = float(st.copies)
            # ordered sibling pairs at one copy, E[sum X (X - 1)]; at random copies E[T (T - 1)] / m
            pairs = sum(q * same_copy_pairs(k, st.copies, self.is_striped(steps[0]))
                        for k, q in zip(self.transactions, self.request_probs))
            mean = square = 0.0
            for op, share in (("read", self.read_fraction), ("write", 1.0 - self.read_fraction)):
                work = sum(s.probability * self.step_moments(s, op)[0] for s in steps if s.ops in ("both", op))
                mean += share * work
                square += share * work * work
            # E[X_1 X_2] over two distinct copies and E[X_1^2], from E[sum X^2] = E[T] + pairs, E[(sum X)^2] = E[T^2]
            cross = (t_square - t_mean - pairs) / (m * (m - 1.0))
            cov = cross * square - (t_mean / m * mean) ** 2
            var = (t_mean + pairs) / m * square - (t_mean / m * mean) ** 2
            if st.name in background:
                b = background[st.name]
                var += b.visits * b.service_us ** 2 * (1.0 + b.scv)
            if var > 0.0:
                out[st.name] = cov / var
        return out

    def _op_mean_square(self, step: Step) -> float:
        """E[m_op^2] (us^2) over the operations that visit ``step``: m_op the mean service of one visit for a
        read or for a write."""
        shares = {"both": (("read", self.read_fraction), ("write", 1.0 - self.read_fraction)),
                  "read": (("read", 1.0),), "write": (("write", 1.0),)}[step.ops]
        return sum(share * self.step_moments(step, op)[0] ** 2 for op, share in shares if share > 0)

    @cached_property
    def operation_visits(self) -> tuple[tuple[float, dict[str, float], dict[str, float]], ...]:
        """(probability, visits per request, visits on one transaction's path) per station, for reads and
        for writes (foreground steps; steps taken with a probability count that probability). The request's
        visits count each of its transactions; a request's transactions run in parallel, so one
        transaction's path is the request's path."""
        out = []
        for op, prob in (("read", self.read_fraction), ("write", 1.0 - self.read_fraction)):
            if prob <= 0.0:
                continue
            per_request: dict[str, float] = {}
            per_path: dict[str, float] = {}
            for s in self.steps:
                if s.station is None or s.background or s.ops not in ("both", op):
                    continue
                per_request[s.station] = per_request.get(s.station, 0.0) + s.probability * (
                    1.0 if s.per_request else self.mean_transactions)
                per_path[s.station] = per_path.get(s.station, 0.0) + s.probability
            out.append((prob, per_request, per_path))
        return tuple(out)

    @cached_property
    def operation_paths(self) -> tuple[tuple[float, float, float, float], ...]:
        """(probability, mean, variance, variable mean) of the service and delay on one transaction's path
        (us, us^2, us), for reads and for writes: a request is all reads or all writes, so these are the
        modes of the latency. The variance comes from request sizes, configured service variability and
        steps taken with a probability; the variable mean is the part of the mean that those steps
        contribute (the rest of the path is a fixed time)."""
        out = []
        for is_read, prob in ((True, self.read_fraction), (False, 1.0 - self.read_fraction)):
            if prob <= 0.0:
                continue
            op = "read" if is_read else "write"
            mean = var = variable = 0.0
            for step in self.steps:
                if step.background or step.ops not in ("both", op):
                    continue
                m1, m2 = self.step_moments(step, op)
                q = step.probability
                mean += q * (m1 + step.delay_us)
                step_var = q * (m2 - m1 * m1) + q * (1.0 - q) * m1 * m1
                var += step_var
                if step_var > 1e-12 * max(m1 * m1, 1e-300):
                    variable += q * m1
            out.append((prob, mean, max(var, 0.0), variable))
        return tuple(out)

    @cached_property
    def delay_us(self) -> float:
        """Total pure delay per request (us): fixed host latencies, accelerator pipeline tails and the
        service part of station-less steps (a station-less step is an infinite-server delay)."""
        total = 0.0
        for s in self.steps:
            if s.background:
                continue
            total += self.visits(s) * s.delay_us
            if s.station is None:
                total += self.visits(s) * self.step_moments(s)[0]
        return float(total)

    def loads(self, background: bool = False) -> tuple[StationLoad, ...]:
        """Per-copy load of every station, aggregating the steps that visit it (mixture service).

        Foreground steps only (the request's route); ``background=True`` gives the background steps'
        load instead (see :meth:`background_loads`). Computed once per network (it is immutable)."""
        return self._background_loads if background else self._foreground_loads

    @cached_property
    def _foreground_loads(self) -> tuple[StationLoad, ...]:
        return self._aggregate_loads(background=False)

    @cached_property
    def _background_loads(self) -> tuple[StationLoad, ...]:
        return self._aggregate_loads(background=True)

    def _aggregate_loads(self, background: bool) -> tuple[StationLoad, ...]:
        out = []
        for st in self.stations:
            v_tot = m1 = m2 = 0.0
            for step in self.steps:
                if step.station != st.name or step.background != background:
                    continue
                v = self.visits(step)
                s1, s2 = self.step_moments(step)
                v_tot += v
                m1 += v * s1
                m2 += v * s2
            if v_tot == 0:
                if not background and any(x.background and x.station == st.name and self.visits(x) > 0
                                          for x in self.steps):
                    # only background work visits it (e.g. dies under a write-only workload)
                    out.append(StationLoad(name=st.name, kind=st.kind, servers=st.servers, copies=st.copies,
                                           visits=0.0, service_us=0.0, scv=0.0))
                continue
            mean = m1 / v_tot
            second = m2 / v_tot
            scv = max(second / (mean * mean) - 1.0, 0.0) if mean > 0 else 0.0
            out.append(StationLoad(name=st.name, kind=st.kind, servers=st.servers, copies=st.copies,
                                   visits=v_tot / st.copies, service_us=mean, scv=scv))
        return tuple(out)

    def background_loads(self) -> tuple[StationLoad, ...]:
        """Per-copy load of the background steps (work per request that no request waits for)."""
        return self.loads(background=True)

    @property
    def has_background(self) -> bool:
        """True when some step is background work."""
        return any(s.background for s in self.steps)

    def graph(self) -> nx.DiGraph:
        """The station graph: nodes are stations (attrs servers, copies, kind, demand_us), edges follow the
        route with ``visits`` per request. Draw it with ``networkx.draw`` or inspect ``G.nodes(data=True)``."""
        g = nx.DiGraph()
        g.add_node("host", kind="source", servers=0, copies=1, demand_us=0.0)
        for ld in self.loads():
            g.add_node(ld.name, kind=ld.kind, servers=ld.servers, copies=ld.copies,
                       demand_us=ld.demand_us * ld.copies)
        prev = "host"
        for step in self.steps:
            if step.station is None or step.background:
                continue
            v = self.visits(step)
            if g.has_edge(prev, step.station):
                g[prev][step.station]["visits"] += v
                g[prev][step.station]["labels"].append(step.label)
            else:
                g.add_edge(prev, step.station, visits=v, labels=[step.label])
            prev = step.station
        g.add_edge(prev, "host", visits=1.0, labels=["done"])
        return g


def build_network(config: Config) -> Network:
    """Build the station graph and route for ``config`` (its controller, device and workload)."""
    nand, host, w, var = config.nand, config.host, config.workload, config.variability
    transfer = nand.transfer_us(w.mapping_unit_kib * KIB)
    fx = ftl_effects(config)
    mapping_steps, background, slots, data_ops = _ftl_steps(config, fx, transfer)
    nscv = var.nand_scv
    to_host, to_device = _link_steps(host, var.host_scv)
    steps = [
        Step("fetch", None, True, 0.0, 0.0, delay_us=host.command_fetch_us),
        *to_device,
        _module_step(config, "parse"),
        _module_step(config, "cache_lookup"),
        _module_step(config, "translate", 0.0 if fx is None else fx.mapping_sram_share),
        *mapping_steps,
        _module_step(config, "dispatch"),
        *_nand_steps(nand, (nand.transfer_us(w.read_bytes_per_transaction), transfer), nscv, data_ops,
                     _data_routing(config),
                     probability=1.0 if fx is None else fx.read_nand_fraction),
        *background,
        *to_host,
        _module_step(config, "complete"),
        Step("completion", None, True, 0.0, 0.0, delay_us=host.completion_post_us),
    ]
    assert [s.label for s in steps if s.label in MODULES] == list(MODULES)
    sizes = tuple(s * KIB for s in w.request_sizes_kib)
    return Network(
        stations=tuple(_stations(config)),
        steps=tuple(steps),
        read_fraction=w.read_fraction,
        request_bytes=sizes,
        request_probs=w.request_size_probs,
        transactions=tuple(w.transactions_for(s) for s in w.request_sizes_kib),
        queue_depth=w.queue_depth,
        arrival_iops=w.arrival_iops,
        background_slots=slots,
        ftl=fx,
    )


def _link_steps(host, scv: float) -> tuple[list[Step], list[Step]]:
    """The PCIe link's steps: (toward the host, toward the device). One shared link (``pcie``): every request's
    command bytes and data in one step after the NAND. Full duplex (``host.full_duplex``): toward the host
    (``pcie``, after the NAND) a read's data and every completion entry; toward the device (``pcie_in``, at the
    start) a write's data and every request's other command bytes (submission entry, doorbells)."""
    link = 1.0 / host.bytes_per_us
    if not host.full_duplex:
        t = host.command_bytes * link
        return [Step("pcie_transfer", "pcie", True, t, t, per_byte_us=link, scv=scv)], []
    cqe, sqe = CQE_BYTES * link, (host.command_bytes - CQE_BYTES) * link
    to_host = [Step("pcie_transfer", "pcie", True, cqe, cqe, per_byte_us=link, scv=scv, ops="read"),
               Step("pcie_completion", "pcie", True, cqe, cqe, scv=scv, ops="write")]
    to_device = [Step("pcie_command_in", "pcie_in", True, sqe, sqe, scv=scv, ops="read"),
                 Step("pcie_transfer_in", "pcie_in", True, sqe, sqe, per_byte_us=link, scv=scv, ops="write")]
    return to_host, to_device


def _data_routing(config: Config) -> str:
    """How a request's transactions pick their dies: "stripe" (consecutive dies, channel first) for a sequential
    stream with ``nand.sequential_allocation = "channel_first"``, else "uniform" (a die at random)."""
    striped = config.workload.address_pattern == "sequential" and config.nand.sequential_allocation == "channel_first"
    return "stripe" if striped else "uniform"


def _nand_steps(nand, transfer_us: tuple[float, float], nscv: float, ops: str, routing: str = "uniform",
                probability: float = 1.0) -> list[Step]:
    """A transaction's NAND steps: the array operation at its die (picked by ``routing``), then the transfer on the
    die's channel (``transfer_us``: a read's, its own sectors, and a write's, the mapping unit); held through that
    transfer with ``nand.die_held_through_transfer``. With ``nand.command_us``
    (which needs the hold) the die is picked and held first, its command and address cycles go over its channel,
    then the array operation runs (a delay: the die is already held), then the transfer. With
    ``nand.channel_scheduling = "data_out_first"`` the commands and the programs' data queue behind the reads' data
    (``Step.behind``). ``probability`` < 1 (reads only: ``ops`` is "read"): a transaction takes the steps with that
    probability, all of them or none (a read found in the buffer, ``ftl.read_hit_fraction``)."""
    assert probability == 1.0 or ops == "read" or ops == "both", ops
    hold = "nand_transfer" if nand.die_held_through_transfer else ""
    out_first = nand.channel_scheduling == "data_out_first"
    drawn = {} if probability == 1.0 else {"probability": probability}  # the first step draws
    follow = {} if probability == 1.0 else {"probability": probability, "follow": True}  # the rest reuse its draw
    xfer = Step("nand_transfer", "channel", False, transfer_us[0], transfer_us[1], scv=nscv, routing="die_channel",
                ops=ops, behind="write" if out_first else "", **follow)
    if nand.command_us <= 0.0:
        return [Step("nand_array", "die", False, nand.t_read_us, nand.t_prog_us, scv=nscv, routing=routing,
                     ops=ops, hold_through=hold, array="data", **drawn), xfer]
    return [Step("nand_die", "die", False, 0.0, 0.0, routing=routing, ops=ops, hold_through=hold, **drawn),
            Step("nand_command", "channel", False, nand.command_us, nand.command_us, routing="die_channel", ops=ops,
                 behind="both" if out_first else "", **follow),
            Step("nand_array", None, False, nand.t_read_us, nand.t_prog_us, scv=nscv, ops=ops, array="data",
                 **follow), xfer]


def _stations(config: Config) -> list[Station]:
    """The stations of ``config``: the PCIe link, a core group or accelerator per placement, the dies and channels."""
    nand, ctrl = config.nand, config.controller
    stations: list[Station] = [Station("pcie", "link", 1)]
    if config.host.full_duplex:
        stations.append(Station("pcie_in", "link", 1))  # toward the device
    for g in ctrl.core_groups:
        stations.append(Station(f"cores:{g.name}", "cores", g.count))
    for m, units in ctrl.accelerator_units.items():
        stations.append(Station(f"accel:{m}", "accel", units))
    program = nand.t_suspend_program_us if nand.suspend in ("program", "program_erase") else None
    erase = nand.t_suspend_erase_us if nand.suspend in ("erase", "program_erase") else None
    stations.append(Station("die", "die", nand.read_servers_per_die, nand.dies,
                            reads_first=nand.die_scheduling == "reads_first", suspend_program_us=program,
                            suspend_erase_us=erase))
    stations.append(Station("channel", "channel", 1, nand.channels))
    return stations


def _module_step(config: Config, m: str, sram_share: float = 0.0) -> Step:
    """Module ``m``'s step: at its accelerator (busy for the initiation interval, the rest of its latency a pure
    delay) or at its core group (its cycles on the group's core spec). ``sram_share``: the share of translate's
    mapping lookups on-chip SRAM serves instead of DRAM (:mod:`ssdco.network.ftl_effects`)."""
    spec = config.modules[m]
    share = sram_share if m == "translate" else 0.0
    dram, sram = spec.dram_accesses_per_visit * (1.0 - share), spec.dram_accesses_per_visit * share
    kind, where = config.controller.placement(m)
    if kind == "accel":
        a = config.accelerator_specs[m]
        ii = a.initiation_interval_us
        return Step(m, f"accel:{m}", spec.per_request, ii, ii, scv=0.0,
                    delay_us=a.latency_us - ii, dram_accesses=dram, sram_accesses=sram)
    group = next(g for g in config.controller.core_groups if g.name == where)
    t = spec.service_on(config.core_specs[group.spec])
    return Step(m, f"cores:{group.name}", spec.per_request, t, t, scv=config.variability.firmware_scv,
                dram_accesses=dram, sram_accesses=sram)


def _ftl_steps(config: Config, fx, transfer: float) -> tuple[list[Step], list[Step], int, str]:
    """The FTL's steps (:mod:`ssdco.network.ftl_effects`): (the mapping-table steps of a read, the background steps
    of a write, the write buffer's slots, the operations that visit the data's die and channel)."""
    nand, w, nscv = config.nand, config.workload, config.variability.nand_scv
    mapping_steps: list[Step] = []
    background: list[Step] = []
    if fx is None:
        return mapping_steps, background, 0, "both"
    page_transfer = nand.transfer_us(nand.page_size_kib * KIB)
    if fx.read_map_writebacks > 0 and w.read_fraction > 0:  # plain DFTL: dirty victim written first
        p = fx.read_map_writebacks
        mapping_steps.append(Step("map_writeback", "die", False, nand.t_prog_us, nand.t_prog_us, scv=nscv,
                                  routing="uniform", ops="read", probability=p, array="program"))
        if fx.read_map_rmw_reads > 0:
            mapping_steps.append(Step("map_rmw_read", "die", False, nand.t_read_us, nand.t_read_us, scv=nscv,
                                      routing="uniform", ops="read", probability=p, follow=True, array="read"))
    if fx.read_map_reads > 0 and w.read_fraction > 0:
        follow = bool(mapping_steps)
        p = fx.read_map_reads
        mapping_steps.append(Step("map_read", "die", False, nand.t_read_us, nand.t_read_us, scv=nscv,
                                  routing="uniform", ops="read", probability=p, follow=follow, array="read",
                                  hold_through="map_transfer" if nand.die_held_through_transfer else ""))
        mapping_steps.append(Step("map_transfer", "channel", False, page_transfer, page_transfer, scv=nscv,
                                  routing="die_channel", ops="read", probability=p, follow=True))
    if w.read_fraction >= 1.0:
        return mapping_steps, background, 0, "both"
    slots = fx.write_buffer_slots
    write_through = slots == 0  # no buffer: every write waits for its own NAND work

    def bg(label: str, station: str, count: float, t_us: float, routing: str, behind: str = "",
           array: str = "") -> None:
        if count <= 0:
            return
        p = min(1.0, count)
        svc = t_us * count / p  # more than one operation per write: done back to back
        background.append(Step(label, station, False, svc, svc, scv=nscv, routing=routing, ops="write",
                               probability=p, background=not write_through, behind=behind, array=array))

    bg("bg_program", "die", fx.bg_programs, nand.t_prog_us, "uniform", array="program")
    bg("bg_read", "die", fx.bg_reads, nand.t_read_us, "uniform", array="read")
    bg("bg_erase", "die", fx.bg_erases, nand.t_erase_us, "uniform", array="erase")
    bg("bg_transfer", "channel", fx.bg_transfers_units, transfer, "die_channel",
       "write" if nand.channel_scheduling == "data_out_first" else "")  # a program's data, behind the reads' data
    return mapping_steps, background, slots, "read"  # writes end at the DRAM buffer; their NAND work is background
