"""The platoon stage: the core groups, dies and channels event by event, the rest of the route as fixed delays.

**Why.** A core group that serves several steps of a request, first come first served between the visits, serves
the requests that reach it together round robin and lets them go together: they move in step (a platoon), and the
group idles while the whole platoon is at the NAND. The route MVA takes the requests as mixed and has the group
busier than it is (by up to about +44 % IOPS on the Hypothesis draws of docs/accuracy.md). The deterministic
skeleton (``periodic.platoon_throughput_per_us``: the dies and channels as fixed
delays) keeps the platoon for ever, and is as far off the other way where the dies' and channels' random
collisions break it up. Which of the two the network does, or how much of each, depends on how often the
collisions split a platoon and how often the round robin joins the parts again; neither mean values nor the
skeleton say (docs/accuracy.md, per solver). The skeleton as the answer (min(model, skeleton), and two
narrower rules) puts held-out answers out by up to -29 %.

**Mixes.** Where reads and programs mix and a core group is the bottleneck, the requests held behind programs at
the dies reach the group in bursts, which mean values do not see either (the knee's caveats: the route MVA -8.8 to
+11.8 % there); the same stage answers, each request drawing its operation.

**What.** Where the route MVA's bottleneck is a core group serving several steps, or a core group while reads and
programs mix, or wherever the Markov chain outgrew its budget at queue depth 2-5, or wherever the route MVA would
answer at queue depth 6-24 with a core group, the dies or the channels the bottleneck (``stage.stage_answers``;
requests of one size, deterministic service, no random FTL events or background work, closed), the stations that
decide the platoon run event by event, seeded
(:data:`SEED`), over :data:`REQUESTS` completed requests after a warm-up of a tenth as many: every core group (FCFS
over its visits, its servers), the dies (picked uniformly at random per transaction, its planes as servers) and the
channels (die d's channel d % channels, as in the DES). Every other step is a fixed delay: its pure delay, and at a
station (accelerators, the PCIe link) the route MVA's residence per visit there (service and wait). The same kind of
estimate as the routed stage's (``routed_stage.py``, ``route_mva.py`` 6. and 7.), with the core groups in it; its
own kernel, not the DES's code.

**Forks.** A request of several transactions (8-16 KiB at a 4 KiB mapping unit) forks, as in the DES, into that many
jobs at the first step of each run of per-transaction steps (cache lookup to the transfer): they enter the run in
order, queue at the core groups, dies and channels on their own, each picking its die, and the request goes on once
the last has left it (with one transaction the request is its only job).

**Evidence** (docs/accuracy.md, per solver; the DES's runs of 60,000-100,000 requests): on the cached and
held-out Hypothesis draws and the core-run designs of ``benchmarks/accuracy.py`` where it replaces the route MVA's
answer, the stage is within the DES's tolerances nearly everywhere the route MVA misses (its one miss there is
within against 1,000,000-request runs: the DES's shorter run sits in a slower pattern), for one operation and for
mixes behind a core group alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numba as nb
import numpy as np

from ssdco.network.build import Network

SEED = 20261129  # one fixed stream: the answer is the same on every run
REQUESTS = 50_000  # completed requests per estimate, after a warm-up of a tenth as many
SETTLED_DRIFT = 0.005  # the measured halves' X further apart than this: the run had not settled ...
EXTEND = 8  # ... and one this many times as long answers
EVENT_KINDS = ("cores", "die", "channel")  # the stations run event by event; the rest are fixed delays
SATURATED_SLACK = 1e-9  # a station busy this close to all of the measured time was busy throughout
_ROUTING = {"single": 0, "uniform": 1, "die_channel": 2}


@dataclass(frozen=True)
class PlatoonStage:
    """The platoon stage's estimate: ``throughput_per_us`` (requests per us), ``response_us`` (mean latency, us),
    ``p99_us`` (the 99th percentile of the measured latencies, us) and ``residence_us``, per ``network.loads()``
    station and per copy as the solvers report them (us per request): measured at the stations run event by event,
    the given residences elsewhere."""

    throughput_per_us: float
    response_us: float
    p99_us: float
    residence_us: np.ndarray
    # the stations run event by event whose servers were all busy throughout the measured window: X is then their
    # capacity, which the run's count of completions resolves only to about one request in its window
    saturated: tuple[str, ...] = ()


def platoon_stage(network: Network, loads, residence: np.ndarray, seed: int = SEED,
                  requests: int = REQUESTS) -> PlatoonStage | None:
    """The platoon stage's estimate for ``network`` (module docstring), or None where it does not apply (not one
    deterministic route of requests of one size, open, or a routed step the kernel does not model).
    ``loads`` and ``residence`` are the route MVA's (``network.loads()`` and the residence per request and copy,
    us): the fixed delays of the stations not run event by event are the residences per visit. A run whose
    measured halves' X differ by more than ``SETTLED_DRIFT`` is still leaving the platoon all requests start in,
    and one ``EXTEND`` times as long answers."""
    args = stage_arguments(network, loads, residence)
    if args is None:
        return None
    x, latency, p99, step_res, drift, full_busy = _estimate(*args, int(seed), int(requests))
    if drift > SETTLED_DRIFT:
        x, latency, p99, step_res, drift, full_busy = _estimate(*args, int(seed), int(requests) * EXTEND)
    read_fraction, step_station, read_us, write_us, copies = args[1], args[2], args[3], args[4], args[8]
    transactions, per_transaction = args[9], args[10]
    measured = np.array(residence, dtype=float)
    kept = [s.name for s in network.stations if s.kind in EVENT_KINDS]
    for k, name in enumerate(kept):
        # per request: each step's mean residence over the jobs that visit it, times their share and the request's
        # jobs there
        per_request = sum(step_res[j] * (read_fraction * (read_us[j] >= 0.0)
                                         + (1.0 - read_fraction) * (write_us[j] >= 0.0))
                          * (transactions if per_transaction[j] else 1)
                          for j, s in enumerate(step_station) if s == k)
        measured[[ld.name for ld in loads].index(name)] = float(per_request) / copies[k]
    saturated = tuple(name for name, share in zip(kept, full_busy) if share >= 1.0 - SATURATED_SLACK)
    return PlatoonStage(throughput_per_us=x, response_us=latency, p99_us=p99, residence_us=measured,
                        saturated=saturated)


def _step_row(step, name: str | None, times: tuple[float, float], delay: float, kept_index: dict[str, int],
              index: dict[str, int], loads, residence: np.ndarray
              ) -> tuple[int, tuple[float, float], float, int] | None:
    """One step's kernel inputs (:func:`stage_arguments`): (the station run event by event or -1, (a read's time,
    a program's; -1: that operation skips the step) us, the pure delay after it us, its routing), or None where a
    station run event by event is reached by a routing the kernel does not have. A step elsewhere is a fixed
    delay: its service (or the route MVA's residence at its station) and its pure delay."""
    if name in kept_index:
        routing = _ROUTING.get(step.routing)
        if routing is None:
            return None
        return kept_index[name], times, delay, routing
    if name is not None and max(times) >= 0.0:
        held = _per_visit_us(loads[index[name]], residence[index[name]], max(times))
        times = tuple(t if t < 0.0 else held + delay for t in times)
    else:
        times = tuple(t if t < 0.0 else t + delay for t in times)
    return -1, times, 0.0, 0


def stage_arguments(network: Network, loads, residence: np.ndarray) -> tuple | None:
    """The kernel's inputs for ``network`` (:func:`_estimate`'s arguments but the seed and the request count:
    queue depth; the reads' share; per step the station run event by event or -1, a read's time and a program's
    (-1: that operation skips the step), its pure delay after, its routing; per station its servers and copies), or
    None where the stage does not apply (:func:`platoon_stage`)."""
    found = _route_by_operation(network)
    if found is None:
        return None
    transactions, route = found
    index = {ld.name: k for k, ld in enumerate(loads)}
    kept = [s.name for s in network.stations if s.kind in EVENT_KINDS]
    if any(name not in index for name in kept):
        return None
    kept_index = {name: k for k, name in enumerate(kept)}
    step_station, read_us, write_us, step_after, step_route = [], [], [], [], []
    for step, (name, times, delay) in zip(network.steps, route):
        row = _step_row(step, name, times, delay, kept_index, index, loads, residence)
        if row is None:
            return None
        at, times, after, routing = row
        step_station.append(at)
        read_us.append(float(times[0]))
        write_us.append(float(times[1]))
        step_after.append(float(after))
        step_route.append(routing)
    stations = {s.name: s for s in network.stations}
    per_transaction = tuple(transactions > 1 and not step.per_request for step in network.steps)
    return (int(network.queue_depth), float(network.read_fraction), tuple(step_station), tuple(read_us),
            tuple(write_us), tuple(step_after), tuple(step_route), tuple(int(stations[n].servers) for n in kept),
            tuple(int(stations[n].copies) for n in kept), transactions, per_transaction)


def _route_by_operation(network: Network):
    """(The transactions of every request, and per step (station name or None, (a read's service us, a program's;
    -1 where that operation skips it), pure delay us)), or None unless every request is of one size on one
    deterministic route for its operation, closed (no random FTL events, no background work, no variable
    service)."""
    if network.queue_depth is None or network.queue_depth < 1:
        return None
    sizes = [k for k, p in enumerate(network.request_probs) if p > 0]
    if len(sizes) != 1:
        return None
    size_bytes = network.request_bytes[sizes[0]]
    route = []
    for step in network.steps:
        if step.background or step.scv != 0.0 or step.probability < 1.0:
            return None
        times = []
        for op, base in (("read", step.read_us), ("write", step.write_us)):
            visits = step.ops in ("both", op)
            times.append(base + (step.per_byte_us * size_bytes if step.per_request else 0.0) if visits else -1.0)
        route.append((step.station, tuple(times), step.delay_us))
    return int(network.transactions[sizes[0]]), route


def _per_visit_us(load, residence_us: float, service_us: float) -> float:
    """The route MVA's residence per visit (us) at a station run as a fixed delay: its residence per request and
    copy over the visits per request and copy; the service alone where the station has no visits."""
    return float(residence_us) / load.visits if load.visits > 0 else service_us


@lru_cache(maxsize=256)
def _estimate(population, read_fraction, step_station, read_us, write_us, step_after, step_route, servers, copies,
              transactions, per_transaction, seed, requests):
    """(X per us, mean latency us, p99 us, mean residence per step us, how far apart the measured halves' X are,
    relative, and per station the share of the measured time during which all its servers were busy) of the stage;
    cached by its inputs."""
    offset = np.zeros(len(servers) + 1, dtype=np.int64)
    for s, c in enumerate(copies):
        offset[s + 1] = offset[s] + c
    latencies = np.zeros(requests)
    step_res = np.zeros(len(step_station))
    full_busy = np.zeros(len(servers))
    x, first, second = _kernel(population, read_fraction, np.array(step_station, dtype=np.int64),
                               np.array(read_us, dtype=np.float64), np.array(write_us, dtype=np.float64),
                               np.array(step_after, dtype=np.float64), np.array(step_route, dtype=np.int64),
                               np.array(servers, dtype=np.int64), np.array(copies, dtype=np.int64), offset,
                               transactions, np.array(per_transaction, dtype=np.bool_), requests, requests // 10,
                               seed, latencies, step_res, full_busy)
    window_us = requests / x
    return (float(x), float(np.mean(latencies)), float(np.quantile(latencies, 0.99, method="inverted_cdf")),
            tuple(float(r) for r in step_res), abs(first / second - 1.0),
            tuple(float(b / window_us) for b in full_busy))


@nb.njit(cache=True)
def _push(heap_t, heap_s, heap_j, size, t, seq, job):
    """Add (t, seq, job) to the heap of ``size`` entries, ordered by time, then by the order of pushing."""
    i = size
    while i > 0:
        parent = (i - 1) // 2
        if heap_t[parent] < t or (heap_t[parent] == t and heap_s[parent] < seq):
            break
        heap_t[i], heap_s[i], heap_j[i] = heap_t[parent], heap_s[parent], heap_j[parent]
        i = parent
    heap_t[i], heap_s[i], heap_j[i] = t, seq, job


@nb.njit(cache=True)
def _pop(heap_t, heap_s, heap_j, size):
    """Remove the root of the heap of ``size`` entries; the caller read it first."""
    size -= 1
    t, seq, job = heap_t[size], heap_s[size], heap_j[size]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and (heap_t[child + 1] < heap_t[child]
                                 or (heap_t[child + 1] == heap_t[child] and heap_s[child + 1] < heap_s[child])):
            child += 1
        if heap_t[child] > t or (heap_t[child] == t and heap_s[child] > seq):
            break
        heap_t[i], heap_s[i], heap_j[i] = heap_t[child], heap_s[child], heap_j[child]
        i = child
    heap_t[i], heap_s[i], heap_j[i] = t, seq, job


@nb.njit(cache=True)
def _kernel(population, read_fraction, step_station, read_us, write_us, step_after, step_route, servers, copies,
            offset, transactions, per_transaction, requests, warm_requests, seed, latencies, step_res, full_busy):
    """Run the stage: ``population`` requests issued at time 0, each completing request replaced at once by the
    next, a read with probability ``read_fraction`` (drawn only where both operations occur). Per step: a station
    (its index, or -1 for a fixed delay of the step's time), a read's time ``read_us`` and a program's
    ``write_us`` (negative: that operation passes the step at once), then ``step_after`` of pure delay, and the
    routing (0 copy 0, 1 a copy at random, 2 copy d % copies with d the job's latest random pick). A request of
    ``transactions`` forks into that many jobs at the first step of each run of steps marked ``per_transaction``
    (a fork-join block; the jobs enter it in order) and goes on, as its first job, once all of them have left it;
    with one transaction the request is its only job. Fills ``latencies`` (the measured requests') and
    ``step_res`` (mean residence per step over the jobs that visit it: wait and service at a station, the delay
    elsewhere) and ``full_busy`` (per station, the measured time during which all its servers on all its copies
    were busy, us); returns X (requests per us) over the measured requests, over their first half and over their
    second."""
    np.random.seed(seed)
    mixed = 0.0 < read_fraction < 1.0
    n_steps = step_station.shape[0]
    n_copies = offset[-1]
    jobs = population * transactions  # request r's jobs are r * transactions + 0 .. transactions - 1
    fifo = np.zeros((n_copies, jobs), dtype=np.int64)
    head = np.zeros(n_copies, dtype=np.int64)
    count = np.zeros(n_copies, dtype=np.int64)
    busy = np.zeros(n_copies, dtype=np.int64)
    station_busy = np.zeros(servers.shape[0], dtype=np.int64)  # busy servers over a station's copies
    pos = np.zeros(jobs, dtype=np.int64)
    phase = np.zeros(jobs, dtype=np.int64)  # 0: at the step's service (or its fixed delay), 1: pure delay
    copy_of = np.zeros(jobs, dtype=np.int64)
    picked = np.zeros(jobs, dtype=np.int64)  # the latest random pick (the die)
    arrived = np.zeros(jobs)
    issued = np.zeros(population)
    pending = np.zeros(population, dtype=np.int64)  # a forked request's jobs not yet out of their block
    is_read = np.zeros(population, dtype=np.bool_)
    for r in range(population):
        is_read[r] = np.random.random() < read_fraction if mixed else read_fraction > 0.0
    heap_t = np.zeros(jobs)
    heap_s = np.zeros(jobs, dtype=np.int64)
    heap_j = np.zeros(jobs, dtype=np.int64)
    res_sum = np.zeros(n_steps)
    res_n = np.zeros(n_steps)
    size = 0
    seq = 0
    completed = 0
    start = 0.0
    middle = 0.0
    entering = np.zeros(jobs, dtype=np.int64)  # jobs that enter their step ``pos`` now, in order
    n_entering = population
    for r in range(population):
        entering[r] = r * transactions
    now = 0.0
    while True:
        e = 0
        while e < n_entering:
            j = entering[e]
            e += 1
            k = pos[j]
            r = j // transactions
            if per_transaction[k] and (k == 0 or not per_transaction[k - 1]) and j % transactions == 0:
                # the request forks: its other jobs enter the block's first step after it
                pending[r] = transactions
                for m in range(1, transactions):
                    pos[j + m] = k
                    entering[n_entering] = j + m
                    n_entering += 1
            arrived[j] = now
            phase[j] = 0
            s = step_station[k]
            t_k = read_us[k] if is_read[r] else write_us[k]
            if t_k < 0.0:  # not this operation's step
                phase[j] = 2
                _push(heap_t, heap_s, heap_j, size, now, seq, j)
                size += 1
                seq += 1
                continue
            if s < 0:
                _push(heap_t, heap_s, heap_j, size, now + t_k, seq, j)
                size += 1
                seq += 1
                continue
            if step_route[k] == 1:
                picked[j] = int(np.random.random() * copies[s])
                g = offset[s] + picked[j]
            elif step_route[k] == 2:
                g = offset[s] + picked[j] % copies[s]
            else:
                g = offset[s]
            copy_of[j] = g
            if busy[g] < servers[s]:
                busy[g] += 1
                station_busy[s] += 1
                _push(heap_t, heap_s, heap_j, size, now + t_k, seq, j)
                size += 1
                seq += 1
            else:
                tail = head[g] + count[g]
                fifo[g, tail - jobs if tail >= jobs else tail] = j
                count[g] += 1
        n_entering = 0
        if completed >= warm_requests:
            for q in range(servers.shape[0]):
                if station_busy[q] == servers[q] * copies[q]:
                    full_busy[q] += heap_t[0] - now
        now, j = heap_t[0], heap_j[0]
        _pop(heap_t, heap_s, heap_j, size)
        size -= 1
        k = pos[j]
        s = step_station[k]
        if phase[j] == 0:
            if completed >= warm_requests:
                res_sum[k] += now - arrived[j]
                res_n[k] += 1.0
            if s >= 0:
                g = copy_of[j]
                if count[g] > 0:  # the copy's next job starts
                    h = fifo[g, head[g]]
                    head[g] += 1
                    if head[g] == jobs:
                        head[g] = 0
                    count[g] -= 1
                    _push(heap_t, heap_s, heap_j, size,
                          now + (read_us[pos[h]] if is_read[h // transactions] else write_us[pos[h]]), seq, h)
                    size += 1
                    seq += 1
                else:
                    busy[g] -= 1
                    station_busy[s] -= 1
                if step_after[k] > 0.0:
                    phase[j] = 1
                    _push(heap_t, heap_s, heap_j, size, now + step_after[k], seq, j)
                    size += 1
                    seq += 1
                    continue
        r = j // transactions
        if per_transaction[k] and (k + 1 == n_steps or not per_transaction[k + 1]):  # a job leaves its block
            pending[r] -= 1
            if pending[r] > 0:
                continue
            j = r * transactions  # the request goes on as its first job
        if k + 1 < n_steps:
            pos[j] = k + 1
        else:  # the request completes; the next one takes its place at step 0
            if completed >= warm_requests:
                latencies[completed - warm_requests] = now - issued[r]
            completed += 1
            if completed == warm_requests:
                start = now
            if completed == warm_requests + requests // 2:
                middle = now
            if completed == warm_requests + requests:
                for q in range(n_steps):
                    step_res[q] = res_sum[q] / res_n[q] if res_n[q] > 0 else 0.0
                half = requests // 2
                return requests / (now - start), half / (middle - start), (requests - half) / (now - middle)
            issued[r] = now
            pos[j] = 0
            if mixed:
                is_read[r] = np.random.random() < read_fraction
        entering[0] = j
        n_entering = 1
