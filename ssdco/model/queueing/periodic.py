"""The periodic schedule of a closed network whose requests all walk the same deterministic route.

With deterministic service, one operation (read-only or write-only), one request size and no FTL events
drawn at random, every request takes the same time at every step; what differs between requests is only
which die (and so which channel) their addresses pick. A closed network of N such requests settles into a
periodic schedule. This module runs the deterministic event recursion of the N requests with the DES's rules
(FCFS at every station; simultaneous events in the DES's order; all N requests issued at time 0) with every
address-routed station collapsed to a single copy, as if every transaction picked the same die and channel, until
the state at a request's completion repeats. If over that period no transaction waits at an address-routed
station, no transaction would wait there for any choice of copies either, so the period is also a trajectory of
the real network whatever the addresses, and its throughput, latencies and waits are exact for it.

Two users:

* :func:`periodic_schedule` at queue depth 1 gives one request's own latency exactly (``solvers.schedules.
  latency_alone_us``: the population bound and the zero-load latency), including the waits of a request's own
  transactions at its channel.
* :func:`platoon_throughput_per_us` runs the *skeleton*, the same recursion with the address-routed stations (dies,
  channels) taken as pure delays, over a fixed horizon: what the cores, accelerators and PCIe sustain where the
  requests, once in step, stay in step (``platoon_stage.py``).

The recursion is not monotone in servers, because the DES is not: a different order at a core can cost more than
the extra server gains (``tests/model/queueing/test_periodic.py``: a fourth core, -1.1 % in the DES).

Reference for the max-plus view of deterministic closed networks and their periodic regime: F. Baccelli,
G. Cohen, G. J. Olsder, J.-P. Quadrat, "Synchronization and Linearity", Wiley, 1992, ch. 2 and 3.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from ssdco.network.build import Network, fork_join_block_ends

MAX_QUEUE_DEPTH = 8  # beyond it the search costs tens of ms
# the state is looked for among completions after this many events per request; the budget bounds the cost
EVENTS_PER_STEP_AND_REQUEST = 64
MAX_EVENTS = 60_000
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


def _skeleton(network: Network):
    """The skeleton of a closed network of one deterministic route of one-transaction requests at queue depth 2 or
    more that passes an address-routed station: the route with those stations as pure delays (their service). None
    elsewhere."""
    found = _route(network, max_queue_depth=1 << 30)  # any queue depth: no repeat is searched for
    if found is None or network.queue_depth < 2 or not network.steps[0].per_request:
        return None
    route, transactions = found
    if transactions != 1 or not any(routed for _, _, _, routed, _, _ in route):
        return None  # no address-routed station: the requests cannot fall out of step at the dies
    return [(-1, service + delay, 0.0, False, skipped, per_request) if routed
            else (station, service, delay, routed, skipped, per_request)
            for station, service, delay, routed, skipped, per_request in route]


def skeleton_applies(network: Network) -> bool:
    """Whether ``network`` has the skeleton at any queue depth (:func:`_skeleton`), as
    :func:`platoon_throughput_per_us` needs, without running it."""
    return _skeleton(network) is not None


def platoon_throughput_per_us(network: Network, completions_per_request: int = PLATOON_COMPLETIONS_PER_REQUEST
                              ) -> float | None:
    """Throughput (requests per us) of the skeleton (module docstring: the dies and channels as
    pure delays, every request issued at time 0) over a fixed horizon, ``completions_per_request`` times the queue
    depth in completions (the second half measured), at any queue depth: what the network sustains where its
    requests, once in step, stay in step. None where the skeleton does not apply (see :func:`_skeleton`)."""
    skeleton = _skeleton(network)
    if skeleton is None:
        return None
    n = int(network.queue_depth)
    horizon = max(2, completions_per_request * n)
    schedule = _search(skeleton, 1, [s.servers for s in network.stations], n, network, horizon=horizon)
    return None if schedule is None else schedule.throughput_per_us


def periodic_schedule(network: Network) -> PeriodicSchedule | None:
    """The exact periodic schedule of ``network`` (closed, one deterministic route: see the module docstring), or
    None where it does not apply or depends on the addresses."""
    found = _route(network)
    if found is None:
        return None
    route, transactions = found
    return _search(route, transactions, [s.servers for s in network.stations], int(network.queue_depth), network)


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
    seen: dict[tuple, tuple[int, float, int, np.ndarray, np.ndarray, np.ndarray]] = {}
    while True:
        done = rec.next_completion(budget)
        if done is None:
            return None
        if window is not None:
            t0, t1, period, stats = window
            if sum(t0 <= issued < t1 for issued, _ in rec.latencies[stats[0]:]) == period:
                lat = [latency for issued, latency in rec.latencies[stats[0]:] if t0 <= issued < t1]
                return _summary(network, rec.route, rec.n, period / (t1 - t0), lat, *stats[1:], period)
            continue
        key = rec.key()
        if key in seen:
            first, t0, waits0, wait0, waited0, visits0 = seen[key]
            if rec.routed_waits > waits0:
                return None  # the collapsed copies queue within the period: the addresses decide who waits
            # one period [t0, t): its waits are final; its latencies are those of the requests issued in it
            window = (t0, rec.t, done - first,
                      (first, rec.step_wait - wait0, rec.step_waited - waited0, rec.step_visits - visits0))
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
             wait: np.ndarray, waited: np.ndarray, visits: np.ndarray, period: int) -> PeriodicSchedule:
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
                            period_requests=period)
