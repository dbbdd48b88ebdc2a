"""The periodic schedule of a closed network whose requests all walk the same deterministic route.

With deterministic service, one operation (read-only or write-only), one request size and no FTL events
drawn at random, every request takes the same time at every step; what differs between requests is only
which die (and so which channel) their addresses pick. A closed network of N such requests settles into a
periodic schedule, and at queue depths 2-4 that schedule is far from what the route MVA's mean-value
waits assume (an arrival finds the others spread over the route at random):

* two requests that once collided at a die keep the spacing the collision gave them and never wait again
  (two dies, 4 KiB reads at QD 2: the route MVA -8.4 %, the DES shows no wait at any station);
* a core running two modules serves both requests' first module, then both second ones, and idles while
  they are at the NAND (translate and dispatch on one slow core at QD 2: the route MVA +9.1 %).

This module computes that schedule exactly where it does not depend on the addresses. It runs the
deterministic event recursion of the N requests with the DES's rules (FCFS at every station; simultaneous
events in the DES's order; all N requests issued at time 0) with every address-routed station collapsed
to a single copy, as if every transaction picked the same die and channel, until the state at a request's
completion repeats. If over that period no transaction waits at an address-routed station, no transaction
would wait there for any choice of copies either, so the period is also a trajectory of the real network
whatever the addresses, and its throughput, latencies and waits are exact for it. That the real network,
from its own start, reaches this orbit (and not another collision-free one) is not proven; it is measured
(``benchmarks/accuracy.py``): on nearly all the sampled configurations that get a schedule the DES's
IOPS and mean latency agree to within 0.003 % and its p99 to within 1 %. Elsewhere the DES settles in another
orbit: of lower throughput on a few (long transients: 2,000,000-request DES runs end in the schedule's orbit),
or of the same throughput with the requests taking turns differently (p99 off by up to 5.7 %; the orbit can
depend on the DES's seed). A transaction queued at a collapsed copy and served at the instant it arrived is
not the cause of the latter: counting that as a wait, which rejects such schedules, leaves them as they are. A
likely cause is the order of simultaneous events at different copies, which the addresses still decide. Where
the collapsed copies do queue (the addresses decide who waits), or the state does not repeat within the
event budget, there is no schedule (the convoy below, or the route MVA, applies).

The real network's start is not the collapsed one's where transactions wait at a collapsed copy before the
period begins (``PeriodicSchedule.start_routed_waits``): whether they do depends on the addresses, and the other
outcomes may lead elsewhere. ``whatif`` then runs the Markov chain of the draws with its draw-free orbits kept
(``schedule_chain.attempt_chain(orbits=True)``) and keeps the schedule only where its orbit is the most likely
pattern (e.g. where one outcome of the start's collision leads to the schedule's orbit and the other to a
pattern 6.5 % slower whose transfers keep colliding at random: docs/accuracy.md, per solver).

The schedule is not monotone in servers, because the DES is not: a different order at a core can cost
more than the extra server gains (``tests/model/queueing/test_periodic.py``: a fourth core, -1.1 % in the DES).

Where the collapsed copies do queue, a second estimate, the *convoy* (:func:`convoy_estimate`), keeps the
schedule for what it is sure of and leaves the rest to the addresses. It runs the same recursion with the
address-routed stations (dies, channels) taken as pure delays, which gives the requests' order, and so
their waits, at the cores, accelerators and PCIe; that time (service, delays and waits) then becomes one
pure delay in front of the dies and channels, where the addresses decide who waits. The N requests in the
dies and channels behind that delay are run event by event, seeded (``routed_stage.py``, the delay as the
time between a request's completion and the next one's arrival); the route MVA solves them only where
that stage does not describe them (some requests skip a die or channel, or NAND times vary). The route MVA
runs 1-4 % low where a few multi-plane dies hold nearly all N requests (7 reads over two four-plane dies:
-3.3 %, the stage -0.1 %; docs/accuracy.md, per solver). Requests of one
transaction only: with several, the skeleton runs a request's transactions in parallel on their channel,
which the DES serialises. ``whatif`` takes the convoy only where it gives more throughput than the route
MVA's answer (with its dies and channels run behind the rest of the route where that applies,
``route_mva.py``, 7.), the case the route MVA is known to miss: at low queue depth the DES's requests fall
into step at a busy core and keep it busy, where the mean-value waits assume arrivals at random times (4 KiB
reads at QD 4, one slow core 95 % busy: the route MVA -16 %, the convoy +0.3 %). Where the convoy is the lower
of the two, its synchronised start has locked into a worse order than the DES's collisions let it keep, and
the route MVA stays.
(At queue depth 2-8 ``whatif`` tries the Markov chain of the requests' draws, ``schedule_chain.py``, first;
the convoy applies where that chain outgrows its state budget. The convoy is searched up to queue depth 12,
beyond the schedule's 8: ``CONVOY_MAX_QUEUE_DEPTH``.) That rule is measured, not derived
(``benchmarks/accuracy.py``): on the sampled Hypothesis and uniform configurations, the convoy is taken
on a few percent of them; where taken it brings answers into the tolerances that the route MVA misses and
moves hardly any out (its IOPS error within -2.3 % to +2.7 % on the Hypothesis set, -3.5 % to +5.7 % on the
uniform designs; docs/accuracy.md has the counts).

It is not monotone in servers (``benchmarks/monotonicity.py``: of 4,850 additions of a core or accelerator
unit, the default solver's IOPS drops in 44, at worst by 1.24 % where the DES moves by -0.03 %; docs/accuracy.md):
there the extra core drops the convoy below the route MVA, which is below the convoy before. Adding the route
MVA's die waits, taken from the whole network at the route MVA's throughput, to the skeleton's latency would
lower IOPS on many more additions, because those waits grow when an extra core lets the route MVA run faster.

Reference for the max-plus view of deterministic closed networks and their periodic regime: F. Baccelli,
G. Cohen, G. J. Olsder, J.-P. Quadrat, "Synchronization and Linearity", Wiley, 1992, ch. 2 and 3.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, replace

import numpy as np

from ssdco.model.queueing.route_mva import route_arrays, solve_route
from ssdco.model.queueing.routed_stage import routed_stage_per_us, routed_stages
from ssdco.network.build import Network, fork_join_block_ends

MAX_QUEUE_DEPTH = 8  # beyond it the search costs tens of ms, and the schedules found match the route MVA
# The convoy estimate goes further, to queue depth 12. Its skeleton (no address-routed station) costs 2 ms
# (median) to 20 ms (95th percentile) at queue depth 9-16. Against 60,000-request DES runs, with the rule taken
# where above the route MVA, on docs/accuracy.md's one-transaction draws and uniform designs: up to 12 it brings
# answers into the tolerances and moves few out; beyond 12 it moves more out for each brought in.
CONVOY_MAX_QUEUE_DEPTH = 12
# the state is looked for among completions after this many events per request; the budget bounds the cost
EVENTS_PER_STEP_AND_REQUEST = 64
MAX_EVENTS = 60_000
# try only where the route MVA's throughput does not already overload a collapsed address-routed station by
# more than this factor (there the collapsed copies must queue; the route MVA is within 20 % of the DES)
COLLAPSED_LOAD_GATE = 1.5
PLATOON_COMPLETIONS_PER_REQUEST = 40  # platoon_throughput_per_us's horizon, per request of the queue depth
TIME_DIGITS = 7  # remaining times (us) are compared rounded to 0.1 ps when looking for the repeated state
WAIT_RESOLUTION_US = 1e-9  # a queued transaction served at the instant it arrived has not waited


@dataclass(frozen=True)
class PeriodicSchedule:
    """One period of the schedule: throughput (requests per us), per-station figures (one entry per
    ``network.loads()`` station, per copy as the solvers report them) and the period's latencies."""

    throughput_per_us: float
    response_us: float  # mean latency, N / X
    mean_jobs: np.ndarray  # mean jobs at one copy of each station (waiting or served)
    wait_us: np.ndarray  # mean wait per request at each station (all copies, all visits)
    p_wait: np.ndarray  # fraction of visits that queue
    latencies_us: np.ndarray  # latency of each request completed in one period
    period_requests: int
    # transactions that waited at a collapsed address-routed copy before the period began: where there are any,
    # the real network's start depends on the addresses and may settle elsewhere (whatif checks with the chain)
    start_routed_waits: int = 0

    def latency_quantile_us(self, q: float) -> float:
        """The q-quantile of the latency (us): the smallest latency that at least q of the period's requests
        do not exceed (the schedule repeats, so this is the long-run quantile of its orbit)."""
        return float(np.quantile(self.latencies_us, q, method="inverted_cdf"))


def _route(network: Network, max_queue_depth: int = MAX_QUEUE_DEPTH):
    """The steps every request takes (station index or -1, service us, delay us, address-routed, skipped,
    per-request) or None when requests may differ (mixed operations or sizes, random FTL events, variable
    service, background work) or the queue depth is above ``max_queue_depth``."""
    if (network.queue_depth is None or network.queue_depth > max_queue_depth
            or network.read_fraction not in (0.0, 1.0)):
        return None
    sizes = [k for k, p in enumerate(network.request_probs) if p > 0]
    if len(sizes) != 1:
        return None
    size = sizes[0]
    op = "read" if network.read_fraction == 1.0 else "write"
    index = {s.name: k for k, s in enumerate(network.stations)}
    route = []
    for step in network.steps:
        if step.background or step.scv != 0.0:
            return None
        skipped = step.ops not in ("both", op)
        if not skipped and step.probability < 1.0:
            return None
        base = step.read_us if op == "read" else step.write_us
        service = base + (step.per_byte_us * network.request_bytes[size] if step.per_request else 0.0)
        station = -1 if step.station is None else index[step.station]
        routed = step.routing != "single" and network.stations[station].copies > 1  # the address picks a copy
        route.append((station, service, step.delay_us, routed, skipped, step.per_request))
    return route, network.transactions[size]


@dataclass(frozen=True)
class ConvoyEstimate:
    """The convoy estimate (module docstring): throughput (requests per us) and, per ``network.loads()``
    station and per copy as the solvers report them, the residence per request, the fraction of visits that
    queue and the mean jobs."""

    throughput_per_us: float
    response_us: float  # mean latency, N / X
    residence_us: np.ndarray
    p_wait: np.ndarray
    mean_jobs: np.ndarray


def _skeleton(network: Network, max_queue_depth: int):
    """(route, skeleton) of a closed network of one deterministic route of one-transaction requests at queue depth
    2 to ``max_queue_depth`` that passes an address-routed station: the skeleton is the route with those stations
    as pure delays (their service). None elsewhere."""
    found = _route(network, max_queue_depth)
    if found is None or network.queue_depth < 2 or not network.steps[0].per_request:
        return None
    route, transactions = found
    if transactions != 1 or not any(routed for _, _, _, routed, _, _ in route):
        return None  # no address-routed station: nothing for the route MVA to add to the periodic schedule
    skeleton = [(-1, service + delay, 0.0, False, skipped, per_request) if routed
                else (station, service, delay, routed, skipped, per_request)
                for station, service, delay, routed, skipped, per_request in route]
    return route, skeleton


def skeleton_applies(network: Network) -> bool:
    """Whether ``network`` has the convoy's skeleton at any queue depth (:func:`_skeleton`), as
    :func:`platoon_throughput_per_us` needs, without running it."""
    return _skeleton(network, max_queue_depth=1 << 30) is not None


def platoon_throughput_per_us(network: Network, completions_per_request: int = PLATOON_COMPLETIONS_PER_REQUEST
                              ) -> float | None:
    """Throughput (requests per us) of the convoy's skeleton (:func:`convoy_estimate`: the dies and channels as
    pure delays, every request issued at time 0) over a fixed horizon, ``completions_per_request`` times the queue
    depth in completions (the second half measured), at any queue depth: what the network sustains where its
    requests, once in step, stay in step. None where the skeleton does not apply (see :func:`_skeleton`)."""
    found = _skeleton(network, max_queue_depth=1 << 30)  # any queue depth: no repeat is searched for
    if found is None:
        return None
    n = int(network.queue_depth)
    horizon = max(2, completions_per_request * n)
    schedule = _search(found[1], 1, [s.servers for s in network.stations], n, network, horizon=horizon)
    return None if schedule is None else schedule.throughput_per_us


def _nand_network(network: Network, route, schedule: PeriodicSchedule) -> tuple[Network, set[str]]:
    """(``network`` with only its address-routed stations, the names of those stations): the route with the
    stations the address does not pick emptied, their time in the skeleton's ``schedule`` (service, delays
    and waits, us) on the first step (a per-request one: the route MVA counts a station-less step's delay only
    there)."""
    routed_names = {network.stations[station].name for station, _, _, routed, _, _ in route if routed}
    elsewhere_us = float(np.sum(schedule.wait_us))
    steps = []
    for step, (station, service, delay, routed, skipped, _) in zip(network.steps, route):
        if station >= 0 and not routed:
            step = replace(step, station=None, read_us=0.0, write_us=0.0, per_byte_us=0.0, delay_us=0.0)
            elsewhere_us += 0.0 if skipped else service + delay
        steps.append(step)
    steps[0] = replace(steps[0], delay_us=steps[0].delay_us + elsewhere_us)
    nand = replace(network, stations=tuple(s for s in network.stations if s.name in routed_names),
                   steps=tuple(steps))
    return nand, routed_names


def _routed_stage_answer(nand: Network, nand_loads, n: int, x: float, routed_residence: np.ndarray,
                         routed_names: set[str]) -> tuple[float, np.ndarray]:
    """(throughput per us, residence per copy us) of ``nand`` at queue depth ``n``: where its address-routed
    stations are the dies and channels that routed_stage.py describes, that stage's throughput behind the fixed
    time elsewhere, event by event, with the route MVA's residences kept in proportion; else the route MVA's
    ``x`` and ``routed_residence``."""
    stages = routed_stages(nand)
    if {st.station for st in stages} != routed_names:
        return x, routed_residence
    # the dies and channels behind the fixed time elsewhere, event by event (routed_stage.py): the route
    # MVA's waits there run 1-4 % long where a few multi-plane dies hold nearly all N requests (module
    # docstring); its residences are kept in proportion for the per-station figures
    think_us = float(sum(step.delay_us for step in nand.steps))
    x = routed_stage_per_us(n, (1,), (1.0,), stages, think_us=think_us)
    per_request = float(np.sum(routed_residence * np.array([ld.copies for ld in nand_loads])))
    routed_residence *= max(n / x - think_us, 0.0) / max(per_request, 1e-12)  # residences are per copy
    return x, routed_residence


def convoy_estimate(network: Network) -> ConvoyEstimate | None:
    """The convoy estimate of ``network`` (closed, one deterministic route of one-transaction requests, queue
    depth 2 to ``CONVOY_MAX_QUEUE_DEPTH``; None elsewhere, or where the skeleton's state does not repeat within the
    event budget). The period of the deterministic skeleton, with address-routed stations as pure delays,
    gives each request's time at the other stations (service, delays and the schedule's waits); that time
    as one pure delay in front of the address-routed stations is then solved by the route MVA. See the
    module docstring."""
    found = _skeleton(network, CONVOY_MAX_QUEUE_DEPTH)
    if found is None:
        return None
    route, skeleton = found
    n = int(network.queue_depth)
    schedule = _search(skeleton, 1, [s.servers for s in network.stations], n, network)
    if schedule is None:
        return None
    nand, routed_names = _nand_network(network, route, schedule)
    nand_loads = nand.loads()
    solution = solve_route(route_arrays(nand, nand_loads), n)
    at = {ld.name: k for k, ld in enumerate(nand_loads)}
    x, routed_residence = _routed_stage_answer(nand, nand_loads, n, solution.throughput_per_us,
                                               solution.residence_us.copy(), routed_names)
    loads = network.loads()
    residence = np.array([routed_residence[at[ld.name]] if ld.name in at else ld.demand_us + wait
                          for ld, wait in zip(loads, schedule.wait_us)])
    p_wait = np.array([solution.p_wait[at[ld.name]] if ld.name in at else p
                       for ld, p in zip(loads, schedule.p_wait)])
    return ConvoyEstimate(throughput_per_us=x, response_us=n / x, residence_us=residence, p_wait=p_wait,
                          mean_jobs=x * residence)


def periodic_schedule(network: Network, x_hint_per_us: float | None = None) -> PeriodicSchedule | None:
    """The exact periodic schedule of ``network`` (closed, one deterministic route: see the module
    docstring), or None where it does not apply or depends on the addresses. ``x_hint_per_us`` (the route
    MVA's throughput, requests per us) skips the search where a collapsed address-routed station would be
    overloaded by more than ``COLLAPSED_LOAD_GATE`` at that rate."""
    found = _route(network)
    if found is None:
        return None
    route, transactions = found
    servers = [s.servers for s in network.stations]
    if x_hint_per_us is not None:
        work = np.zeros(len(servers))
        for station, service, _, routed, skipped, per_request in route:
            if routed and not skipped:
                work[station] += service * (1 if per_request else transactions)
        if np.any(x_hint_per_us * work > COLLAPSED_LOAD_GATE * np.asarray(servers)):
            return None
    return _search(route, transactions, servers, int(network.queue_depth), network)


class _Recursion:
    """The event recursion of :func:`_search`: ``n`` requests on ``route`` (address-routed stations as one copy),
    every request issued at time 0 and again as it completes; times in us. Jobs 0..n-1 are the requests,
    n + r * T + i transaction i of request r."""

    def __init__(self, route, transactions: int, servers: list[int], n: int):
        self.route = route
        self.transactions = transactions
        self.servers = servers
        self.n = n
        self.nsteps = len(route)
        self.block_end = fork_join_block_ends([r[5] for r in route]).tolist()  # first step after a block
        jobs = n * (1 + transactions)
        self.pos = [0] * jobs
        self.phase = [0] * jobs
        self.arrived = [0.0] * jobs
        self.remaining = [0] * n
        self.started = [0.0] * n
        self.busy = [0] * len(servers)
        self.queue: list[list[int]] = [[] for _ in servers]
        self.heap: list[tuple[float, int, int]] = []
        self.seq = 0
        self.entering: list[tuple[int, int]] = [(r, 0) for r in range(n - 1, -1, -1)]  # a stack, as the DES's
        # wait and visits per step, latencies
        self.step_wait = np.zeros(self.nsteps)
        self.step_waited = np.zeros(self.nsteps)
        self.step_visits = np.zeros(self.nsteps)
        self.latencies: list[tuple[float, float]] = []  # (issued, latency) per completion
        self.routed_waits = 0  # transactions that waited at an address-routed (collapsed) copy
        self.t = 0.0
        self.events = 0

    def push(self, time: float, job: int) -> None:
        """Schedule ``job``'s next event at ``time`` (us), after the events already scheduled for that time."""
        heapq.heappush(self.heap, (time, self.seq, job))
        self.seq += 1

    def serve_queued(self, h: int, t: float) -> None:
        """Start serving the queued job ``h`` at time ``t`` (us), recording its wait."""
        sh = self.pos[h]
        self.step_wait[sh] += t - self.arrived[h]
        self.step_waited[sh] += 1
        if self.route[sh][3] and t - self.arrived[h] > WAIT_RESOLUTION_US:
            self.routed_waits += 1
        self.push(t + self.route[sh][1], h)

    def fork(self, j: int, s: int) -> None:
        """Request ``j`` forks into its transactions at step ``s``: they enter it in order."""
        transactions = self.transactions
        self.remaining[j] = transactions
        base = self.n + j * transactions
        self.entering.extend((base + i, s) for i in range(transactions - 1, -1, -1))

    def complete(self, j: int) -> int:
        """Request ``j`` completes at the current time and is issued again at once: the completions so far."""
        t = self.t
        self.latencies.append((self.started[j], t - self.started[j]))
        self.started[j] = t
        self.entering.append((j, 0))
        return len(self.latencies)

    def next_completion(self, budget: int) -> int | None:
        """Run to the next completion: the completions so far, or None where the events run out (``budget``
        taken, or none pending). Every job entering a step at the current time enters it first (a request forks
        into its transactions, a skipped step or a pure delay schedules its end, a station serves the job or
        queues it); then the next event moves its job on (a server that finishes takes the first queued job, if
        any, else idles)."""
        route, entering, n, block_end, nsteps = self.route, self.entering, self.n, self.block_end, self.nsteps
        pos, phase, busy, servers, push, heap = self.pos, self.phase, self.busy, self.servers, self.push, self.heap
        arrived, queue, remaining, step_visits = self.arrived, self.queue, self.remaining, self.step_visits
        t, events = self.t, self.events
        while True:
            while entering:
                j, s = entering.pop()
                pos[j] = s
                arrived[j] = t
                station, service, delay, routed, skipped, per_request = route[s]
                if j < n and not per_request:
                    self.fork(j, s)
                elif skipped:
                    phase[j] = 1
                    push(t, j)
                elif station < 0:
                    phase[j] = 1
                    push(t + service + delay, j)
                else:
                    phase[j] = 0
                    step_visits[s] += 1
                    if busy[station] < servers[station]:
                        busy[station] += 1
                        push(t + service, j)
                    else:
                        queue[station].append(j)
            if events >= budget or not heap:
                self.t, self.events = t, events
                return None
            t, _, j = heapq.heappop(heap)
            events += 1
            s = pos[j]
            station, service, delay, routed, skipped, per_request = route[s]
            if phase[j] == 0:
                if queue[station]:
                    self.serve_queued(queue[station].pop(0), t)
                else:
                    busy[station] -= 1
                if delay > 0.0:
                    phase[j] = 1
                    push(t + delay, j)
                    continue
            nxt = s + 1
            if j >= n:  # a transaction
                if nxt < block_end[s]:
                    entering.append((j, nxt))
                    continue
                r = (j - n) // self.transactions
                remaining[r] -= 1
                if remaining[r] > 0:
                    continue
                j, nxt = r, block_end[s]
            if nxt < nsteps:
                entering.append((j, nxt))
                continue
            self.t, self.events = t, events
            return self.complete(j)

    def statistics(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Copies of the per-step summed waits (us), waits and visits so far."""
        return self.step_wait.copy(), self.step_waited.copy(), self.step_visits.copy()

    def key(self) -> tuple:
        """The state at a completion: requests are interchangeable, so it is the order and remaining time of
        the pending events, the steps they belong to and the queues (the completing request's re-entry at
        step 0 is the same each time)."""
        t, pos, phase = self.t, self.pos, self.phase
        return (tuple((round(time - t, TIME_DIGITS), pos[job], phase[job]) for time, _, job in sorted(self.heap)),
                tuple(tuple(pos[job] for job in q) for q in self.queue))


def _search_horizon(rec: _Recursion, network: Network, horizon: int) -> PeriodicSchedule | None:
    """:func:`_search` with ``horizon``: the figures of the completions after the first ``horizon // 2``, up to
    ``horizon``, or None where the events run out."""
    budget = horizon * rec.nsteps * (1 + rec.transactions) * 4  # far more than the horizon's completions need
    warm = horizon // 2
    window = None  # (t0, (completions, statistics)) once warm
    while True:
        done = rec.next_completion(budget)
        if done is None:
            return None
        if done == warm:
            window = (rec.t, (done, *rec.statistics()))
        elif done >= horizon:
            t0, (first, wait0, waited0, visits0) = window
            measured = done - first
            return _summary(network, rec.route, rec.n, measured / (rec.t - t0),
                            [lat for _, lat in rec.latencies[first:]], rec.step_wait - wait0,
                            rec.step_waited - waited0, rec.step_visits - visits0, measured)


def _search_repeat(rec: _Recursion, network: Network) -> PeriodicSchedule | None:
    """:func:`_search` without a horizon: run until the state at a completion repeats, then over one period."""
    budget = min(MAX_EVENTS, EVENTS_PER_STEP_AND_REQUEST * rec.nsteps * rec.n * rec.transactions)
    window = None  # once the state repeats: (t0, t1, requests per period, statistics over the period)
    start_routed_waits = 0  # routed_waits where the period began
    seen: dict[tuple, tuple[int, float, int, np.ndarray, np.ndarray, np.ndarray]] = {}
    while True:
        done = rec.next_completion(budget)
        if done is None:
            return None
        if window is not None:
            t0, t1, period, stats = window
            if sum(t0 <= issued < t1 for issued, _ in rec.latencies[stats[0]:]) == period:
                lat = [latency for issued, latency in rec.latencies[stats[0]:] if t0 <= issued < t1]
                return _summary(network, rec.route, rec.n, period / (t1 - t0), lat, *stats[1:], period,
                                start_routed_waits)
            continue
        key = rec.key()
        if key in seen:
            first, t0, waits0, wait0, waited0, visits0 = seen[key]
            if rec.routed_waits > waits0:
                return None  # the collapsed copies queue within the period: the addresses decide who waits
            # one period [t0, t): its waits are final; its latencies are those of the requests issued in it
            window = (t0, rec.t, done - first,
                      (first, rec.step_wait - wait0, rec.step_waited - waited0, rec.step_visits - visits0))
            start_routed_waits = waits0
            continue
        seen[key] = (done, rec.t, rec.routed_waits, *rec.statistics())


def _search(route, transactions: int, servers: list[int], n: int, network: Network,
            horizon: int | None = None) -> PeriodicSchedule | None:
    """Run the event recursion of ``n`` requests on ``route`` (address-routed stations as one copy) until the
    state at a completion repeats; the period's figures, or None (queueing at a collapsed copy, or no repeat
    within the event budget). With ``horizon`` (completions), no repeat is looked for: the figures are those of
    the completions after the first ``horizon // 2``, up to ``horizon`` (an orbit the recursion may not have
    closed yet; ``period_requests`` is then the number of requests measured), and None only if the events run out
    (a budget of four times what the horizon needs)."""
    rec = _Recursion(route, transactions, servers, n)
    if horizon is not None:
        return _search_horizon(rec, network, horizon)
    return _search_repeat(rec, network)


def _summary(network: Network, route, n: int, x_per_us: float, latencies: list[float],
             wait: np.ndarray, waited: np.ndarray, visits: np.ndarray, period: int,
             start_routed_waits: int = 0) -> PeriodicSchedule:
    """Per-station figures over one period, in the order of ``network.loads()``."""
    loads = network.loads()
    order = {ld.name: k for k, ld in enumerate(loads)}
    names = [s.name for s in network.stations]
    station_wait = np.zeros(len(loads))
    station_waited = np.zeros(len(loads))
    station_visits = np.zeros(len(loads))
    for s, (station, *_rest) in enumerate(route):
        if station >= 0 and names[station] in order:
            k = order[names[station]]
            station_wait[k] += wait[s]
            station_waited[k] += waited[s]
            station_visits[k] += visits[s]
    demand = np.array([ld.demand_us * ld.copies for ld in loads])  # all copies, per request
    copies = np.array([ld.copies for ld in loads], dtype=float)
    wait_per_request = station_wait / period
    mean_jobs = x_per_us * (demand + wait_per_request) / copies
    p_wait = np.divide(station_waited, station_visits, out=np.zeros(len(loads)), where=station_visits > 0)
    return PeriodicSchedule(throughput_per_us=x_per_us, response_us=n / x_per_us, mean_jobs=mean_jobs,
                            wait_us=wait_per_request, p_wait=p_wait, latencies_us=np.asarray(latencies),
                            period_requests=period, start_routed_waits=start_routed_waits)
