"""Open workloads: a request's time at a core group (or accelerator) that it visits in runs or in batches.

The open solver's per-visit M^X/G/c wait (``open.py``) treats every visit to a station as a fresh arrival.
Where a request visits one single-copy station several times in a row (a core group running parse and
then each transaction's translate, or cache lookup and translate for each transaction) the visits are
not independent, and on c servers a batch of T >= c transactions keeps every server busy. On one core
group fed 16 KiB requests (``benchmarks/accuracy.py``, open-core-group) the per-visit view is +37..+78 % for
[parse, translate] and -6..-26 % for [cache_lookup, translate] against the DES, and -4..-10 % for a
[translate] batch on two or three cores. At such stations this module gives the request's time instead,
by work conservation on a single server c times as fast, which puts those designs within -3..+6 %.

**The first wait.** Requests arrive as a Poisson stream at rate lam. A request's work at the station in
one *group* of visits (below) is Y: its first jobs (the first step's, one or T) are queued on arrival,
the rest is released by the request's own progress. Were all of Y queued on arrival, an arrival would
find V' = lam E[Y^2] / (2 (1 - rho)) (M/G/1 with the group as one job). The real work in queue is
V = V' - U, U the work that the requests present have not released yet, because the server never idles
while some is pending (the request is then queued or in service there itself). So a group's first job
waits W_1 = E[V] = V' - E[U], with E[U] = lam sum_j w_j E[r_j] over the later jobs (work w_j, released
r_j after the request's arrival; Little's law). W_1 + E[U](W_1) rises with W_1, and W_1 is found by
bisection.

**The later jobs.** FCFS serves a job after everything released before it. A job of level l (the step's
place in its group) released at r finishes after W_1, the own jobs released before it, and the others'
work released in between: the pending work of the requests ahead (their levels up to l, and of higher
levels the share released by r, evenly up to the mean own release of that level); the level-m work of
the requests that arrive before the own job m - 1 levels back was released (a later arrival's chain runs
one step behind: its cache lookup queues behind the own one, so its translate is released after the own
translate but before the own dispatch); and the other groups' work at its mean rate. The request's
excess at the station is the last job's finish less its own work. For two levels this is exact on one
server: [parse, translate] gives the parse's wait W_1 and the transactions' rho (W_1 + A), the work that
arrived during the parse's stay; both match the DES within 1 % at 50 and 80 % load, and W_1 of
[cache_lookup, translate] within 4 %. On a three-step chain the middle step's wait comes out 14 % short
(random design 7, 4 KiB, -7.5 % latency; -3.3 % with the per-visit waits).

**Groups.** Consecutive steps at the station form a run; a run that starts less than one mean service
after the previous one ends (an accelerator's cache lookup between parse and translate) joins its group,
the gap in its release times. Runs further apart (a core that also runs ``complete``, after the NAND) are
separate groups, taken as independent arrivals of their own work. A step an operation does not make has
no work in that operation's schedule. **c servers.** The station is one server of speed c: a batch of
T >= c transactions occupies every core (the [translate] batch waits on two and three cores are within
3 % of the DES, where Erlang C's discount for an idle core is 12-52 % low). A request that brings one job
to c > 1 cores may find one idle: there the fast server is high at light load (the first wait +26 % on
three cores at 50 % load).

The station's own zero-load schedule (what ``route_mva.route_latency`` charges) is left as it is; the
excess replaces the waits of the station's visits in the route latency. Stations with several copies
(dies, channels), background work (FTL) or a single per-request visit keep the per-visit M/G/c wait.
Arrivals are taken as Poisson: behind a busy deterministic station they are more regular, and a
core group there waits less than this (random design 7, 16 KiB: +21 % at 80 % load).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ssdco.model.queueing.erlang import erlang_c
from ssdco.network.build import Network, StationLoad, Step


def eligible_stations(network: Network, loads: tuple[StationLoad, ...]) -> tuple[str, ...]:
    """Stations whose waits :func:`run_times` gives: one copy, no background work, foreground work, and
    either a per-transaction visit (batches) or several visits per request."""
    background = {b.name for b in network.background_loads() if b.demand_us > 0}
    out = []
    for ld in loads:
        steps = _station_steps(network, ld.name)
        if (ld.copies != 1 or ld.name in background or ld.demand_us <= 0 or not steps
                or any(s.routing != "single" for s in steps)):
            continue
        if len(steps) > 1 or any(not s.per_request for s in steps):
            out.append(ld.name)
    return tuple(out)


@dataclass(frozen=True)
class RunTime:
    """A request's time at a station visited in runs or by batches (us; inf when the station saturates)."""

    excess_us: float  # its last job's finish beyond the zero-load schedule: what the latency adds
    job_wait_us: float  # the waits of all its jobs there, summed (the station's queue by Little's law)


def run_times(network: Network, loads: tuple[StationLoad, ...], arrival_per_us: float) -> dict[str, RunTime]:
    """Per eligible station (:func:`eligible_stations`): a request's time there by work conservation on one
    server of the station's speed (module docstring)."""
    lam = float(arrival_per_us)
    out = {}
    for name in eligible_stations(network, loads):
        servers = next(ld.servers for ld in loads if ld.name == name)
        classes = [(_class_groups(network, name, servers, is_read, t, nbytes), p_op * p_size)
                   for is_read, p_op in ((True, network.read_fraction), (False, 1.0 - network.read_fraction))
                   for t, nbytes, p_size in zip(network.transactions, network.request_bytes, network.request_probs)
                   if p_op * p_size > 0]
        out[name] = RunTime(*_station_times(classes, lam, servers))
    return out


@dataclass(frozen=True)
class _StationWork:
    """The work of one station's request classes (:func:`_station_times`) on the fast server: ``classes``
    [(groups, probability)], the arrival rate ``lam`` (per us), each group's levels, the work a request brings
    per group and level (us), and the utilisation of each group and of the station."""

    classes: list
    lam: float
    levels: list[int]
    level_work: list[list[float]]
    group_rho: list[float]
    rho: float


def _station_work(classes, lam: float) -> _StationWork:
    """The levels, the work per group and level (us) and the utilisations of ``classes`` at rate ``lam``."""
    n_groups = len(classes[0][0])
    levels = [1 + max(job[4] for cls, _ in classes for job in cls[g]) for g in range(n_groups)]
    # per group and level: the work a request brings (us, on the fast server)
    level_work = [[sum(p * sum(w for w, _, _, _, lv in groups[g] if lv == m) for groups, p in classes)
                   for m in range(levels[g])] for g in range(n_groups)]
    group_rho = [lam * sum(ws) for ws in level_work]
    return _StationWork(classes, lam, levels, level_work, group_rho, sum(group_rho))


def _work_ahead_us(work: _StationWork, g: int, level: int, release: float, chain: list[float],
                   pending: list[list[float]]) -> float:
    """The others' work (us) a job of group ``g`` and level ``level`` released ``release`` us after its
    request's arrival finds ahead of it beyond the first wait (``chain``: the own release times, level 0 to
    this job's; ``pending``: E[U] per group and level), as :func:`_schedule` describes."""
    lam, level_work = work.lam, work.level_work
    ahead = 0.0
    for m in range(1, work.levels[g]):
        if m <= level:
            ahead += pending[g][m]
        elif pending[g][m] > 0.0:
            ahead += pending[g][m] * min(1.0, release * lam * level_work[g][m] / pending[g][m])
    ahead += sum(lam * level_work[g][m] * chain[level - m] for m in range(level + 1))
    ahead += (work.rho - work.group_rho[g]) * release
    return ahead


def _schedule(work: _StationWork, first_wait: float, pending: list[list[float]]
              ) -> tuple[list[list[float]], list[float], list[float]]:
    """(E[U] per group and level that the release times imply, the mean excess per group, the jobs'
    summed mean wait per group), us, for a first wait and the work ``pending`` (E[U] per group and level).
    A job of level l released r after the request's arrival finishes after the first wait, the own work up
    to it (FCFS) and the others' work released before it: the requests ahead's pending work of levels up to
    l, and of a higher level the share released by r (evenly until that level's mean release); the level-m
    work of the requests that arrive before the own level-(l - m) release (a later arrival's chain runs one
    step behind: its level-m job is ahead only if it arrived before the own job m levels back was
    released); and the other groups' work at their mean rate. Not before r plus its own work."""
    n_groups = len(work.levels)
    implied = [[0.0] * work.levels[g] for g in range(n_groups)]
    excess = [0.0] * n_groups
    job_wait = [0.0] * n_groups
    for groups, p in work.classes:
        for g, jobs in enumerate(groups):
            done = [0.0] * len(jobs)
            chain: list[list[float]] = [[] for _ in jobs]  # own release times, level 0 .. this job's
            own = 0.0
            for n, (w, _, pred, gap, level) in enumerate(jobs):
                if pred:
                    last = max(pred, key=lambda q: done[q])
                    release = done[last] + gap
                    chain[n] = chain[last] + [release]
                else:
                    release = 0.0
                    chain[n] = [0.0]
                ahead = _work_ahead_us(work, g, level, release, chain[n], pending)
                own += w
                done[n] = max(first_wait + ahead + own, release + w)
                implied[g][level] += work.lam * p * w * release
                job_wait[g] += p * (done[n] - release - w)
            excess[g] += p * (max(done) - own)
    return implied, excess, job_wait


def _pending_at(work: _StationWork, first_wait: float) -> list[list[float]]:
    """E[U] per group and level (us) consistent with the release times it implies at the first wait
    ``first_wait`` (us): :func:`_schedule` iterated to its fixed point (a contraction)."""
    pending = [[0.0] * n_levels for n_levels in work.levels]
    for _ in range(200):
        nxt = _schedule(work, first_wait, pending)[0]
        change = max(abs(a - b) for row_a, row_b in zip(nxt, pending) for a, b in zip(row_a, row_b))
        pending = nxt
        if change <= 1e-12 * max(1.0, max(max(row) for row in nxt)):
            break
    return pending


def _total(pending: list[list[float]]) -> float:
    """The pending work summed over groups and levels (us)."""
    return sum(sum(row) for row in pending)


def _first_wait_us(work: _StationWork, v_all: float) -> float:
    """The first job's wait W_1 = V' - E[U] (us), ``v_all`` = V': W_1 + E[U](W_1) rises with W_1 (later
    releases), so bisect."""
    lo, hi = 0.0, v_all
    if _total(_pending_at(work, 0.0)) >= v_all:
        hi = 0.0
    while hi - lo > 1e-10 * max(hi, 1.0):
        mid = 0.5 * (lo + hi)
        if mid + _total(_pending_at(work, mid)) > v_all:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def _idle_core_scaled(work: _StationWork, servers: int, excess: list[float],
                      job_wait: list[float]) -> tuple[float, float]:
    """(the mean excess, the jobs' summed mean wait), us, on c = ``servers`` > 1 cores: a group that brings
    fewer than c jobs at a time may find a core idle. M/M/c waits C(c, a) / rho times as long as the M/M/1
    c times as fast: that factor for one job at a time, none for batches of c or more, linear between."""
    rho = work.rho
    idle_factor = erlang_c(servers, rho * servers) / rho
    total_excess = total_wait = 0.0
    for g, n_levels in enumerate(work.levels):
        batch = max(sum(1 for job in groups[g] if job[4] == m) for groups, _ in work.classes for m in range(n_levels))
        factor = 1.0 - (1.0 - idle_factor) * max(0.0, (servers - batch) / (servers - 1.0))
        total_excess += factor * excess[g]
        total_wait += factor * job_wait[g]
    return total_excess, total_wait


def _station_times(classes, lam: float, servers: int) -> tuple[float, float]:
    """(a request's mean excess, its jobs' summed mean wait), us, at one station of ``servers`` servers:
    ``classes`` is [(groups, probability)] per operation and size (:func:`_class_groups`; every class has
    the same groups and levels)."""
    work = _station_work(classes, lam)
    rho = work.rho
    if rho >= 1.0:
        return math.inf, math.inf
    square = sum(p * sum(sum(w for w, *_ in g) ** 2 + sum(w * w * scv for w, scv, *_ in g) for g in groups)
                 for groups, p in classes)
    v_all = lam * square / (2.0 * (1.0 - rho))  # each group's work all queued on arrival: M/G/1
    first_wait = _first_wait_us(work, v_all)
    _, excess, job_wait = _schedule(work, first_wait, _pending_at(work, first_wait))
    if servers == 1:
        return sum(excess), sum(job_wait)
    return _idle_core_scaled(work, servers, excess, job_wait)


def _station_steps(network: Network, name: str) -> list[Step]:
    return [s for s in network.steps if s.station == name and not s.background and network.op_weight(s) > 0]


def _route(network: Network) -> list[Step]:
    return [s for s in network.steps if not s.background and network.op_weight(s) > 0]


def _service_us(step: Step, is_read: bool, nbytes: float) -> float:
    """One visit's mean service (us) for the operation, with the per-byte part of a per-request step."""
    return (step.read_us if is_read else step.write_us) + (step.per_byte_us * nbytes if step.per_request else 0.0)


def relaxation_time_us(service_us: float, servers: int, utilisation: float) -> float:
    """Relaxation time (us) of a station's queue: 1 / (c mu (1 - sqrt(rho))^2) with mu = 1 / ``service_us``
    and rho the per-server ``utilisation``, the slowest exponential in the autocorrelation of the M/M/1
    queue-length process (J. Abate and W. Whitt, "Simple spectral representations for the M/M/1 queue",
    Queueing Systems 3, 1988), taken for c servers as one server c times as fast. 0 for an idle station."""
    rho = min(max(utilisation, 0.0), 1.0 - 1e-9)
    if rho <= 0.0:
        return 0.0
    return service_us / servers / (1.0 - math.sqrt(rho)) ** 2


def path_wait_weight(network: Network, name: str, is_read: bool, relaxation_us: float) -> float:
    """How many times one visit's wait variance the waits of one transaction's path at station ``name`` add
    up to, for reads or writes: sum over its groups g, h (module docstring) of n_g n_h r_gh, with n_g the
    group's visits. One group's visits see the same backlog (r = 1); two groups a zero-load time t apart
    see backlogs correlated by r = exp(-t / tau), tau the queue's ``relaxation_us``
    (:func:`relaxation_time_us`), which overstates the correlation at short gaps (the autocorrelation is
    a mixture of exponentials, this one the slowest). Used by the p99 estimate (``whatif.py``)."""
    spans = _group_spans(network, name, is_read, network.mean_request_bytes)
    total = 0.0
    for i, (visits_i, _, end_i) in enumerate(spans):
        total += visits_i * visits_i
        for visits_j, start_j, _ in spans[i + 1:]:
            gap = max(start_j - end_i, 0.0)
            total += 2.0 * visits_i * visits_j * (math.exp(-gap / relaxation_us) if relaxation_us > 0.0 else 0.0)
    return total


def _group_spans(network: Network, name: str, is_read: bool, nbytes: float) -> list[tuple[float, float, float]]:
    """Per group of the station's visits (:func:`_groups`): (visits on one transaction's path, zero-load
    time from the request's start to the group's first visit and to the end of its last), us."""
    op = "read" if is_read else "write"
    starts, ends, t = [], [], 0.0
    for step in _route(network):
        visited = step.ops in ("both", op)
        took = step.probability * (_service_us(step, is_read, nbytes) + step.delay_us) if visited else 0.0
        if step.station == name:
            starts.append(t)
            ends.append(t + took)
        t += took
    spans, i = [], 0
    for group in _groups(network, name, is_read, nbytes):
        visits = sum(step.probability for step, _ in group if step.ops in ("both", op))
        spans.append((visits, starts[i], ends[i + len(group) - 1]))
        i += len(group)
    return spans


def _groups(network: Network, name: str, is_read: bool, nbytes: float) -> list[list[tuple[Step, float]]]:
    """The station's visits in route order, grouped: (step, the zero-load gap since the group's previous
    step for this operation and request size, ``nbytes``). Where the runs split into groups is the same
    for every operation and size, as the schedules of :func:`_station_times` need: a run joins the group
    before it when the gap between them, mixed over the operations and sizes (as the mean service is),
    is under one mean service. Split by each one's own gap, a write's program or a large request's
    transfer could separate two runs that a read's or a small request's gap joined."""
    mean_service = next(ld.service_us for ld in network.loads() if ld.name == name)
    mean_bytes = network.mean_request_bytes  # the per-byte part of a gap is linear in the size
    shares = [(o, share) for o, share in (("read", network.read_fraction), ("write", 1.0 - network.read_fraction))
              if share > 0.0]
    op = "read" if is_read else "write"
    groups: list[list[tuple[Step, float]]] = []
    gap = math.inf  # this operation and size
    mixed = dict.fromkeys(("read", "write"), math.inf)  # each operation at the mean size
    previous_at_station = False
    for step in _route(network):
        if step.station == name:
            mixed_gap = sum(share * mixed[o] for o, share in shares)
            if previous_at_station or (groups and mixed_gap < mean_service):
                groups[-1].append((step, 0.0 if previous_at_station else gap))
            else:
                groups.append([(step, 0.0)])
            gap = step.delay_us if step.ops in ("both", op) else 0.0
            for o in mixed:
                mixed[o] = step.delay_us if step.ops in ("both", o) else 0.0
            previous_at_station = True
        else:  # another station or a pure delay: zero-load time on one transaction's way
            if step.ops in ("both", op):
                gap += step.probability * (_service_us(step, is_read, nbytes) + step.delay_us)
            for o in mixed:
                if step.ops in ("both", o):
                    mixed[o] += step.probability * (_service_us(step, o == "read", mean_bytes) + step.delay_us)
            previous_at_station = False
    return groups


def _class_groups(network: Network, name: str, servers: int, is_read: bool, transactions: int,
                  nbytes: float) -> list[list[tuple[float, float, tuple[int, ...], float, int]]]:
    """The station's groups of visits for one operation and request size: per group its jobs in FCFS
    order as (work on the fast server us, scv, indices of the jobs whose completion releases it (none: on
    arrival), gap us, level: the step's place in the group). A transaction's next step is released when
    it finishes the step before, a per-request step after per-transaction ones when the last transaction
    has, and a per-transaction step after a per-request one as the request's T transactions at once. The
    groups are the same for every operation: a step the operation does not make has no work."""
    op = "read" if is_read else "write"
    out = []
    for group in _groups(network, name, is_read, nbytes):
        jobs: list[tuple[float, float, tuple[int, ...], float, int]] = []
        previous: list[int] = []  # indices of the previous step's jobs
        for level, (step, step_gap) in enumerate(group):
            visited = step.ops in ("both", op)
            w = step.probability * _service_us(step, is_read, nbytes) / servers if visited else 0.0
            count = 1 if step.per_request else transactions
            if level == 0:
                preds = [()] * count
            elif len(previous) == count:
                preds = [(q,) for q in previous]
            else:  # the request's step after its transactions (after the last), or the transactions after it
                preds = [tuple(previous)] * count
            previous = []
            for pred in preds:
                previous.append(len(jobs))
                jobs.append((w, step.scv, pred, step_gap, level))
        out.append(jobs)
    return out
