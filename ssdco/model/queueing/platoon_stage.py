"""The platoon stage: the core groups, dies and channels event by event, the rest of the route as fixed delays.

**Why.** A core group that serves several steps of a request, first come first served between the visits, serves
the requests that reach it together round robin and lets them go together: they move in step (a platoon), and the
group idles while the whole platoon is at the NAND. The route MVA takes the requests as mixed and has the group
busier than it is (by up to about +44 % IOPS on the Hypothesis draws of docs/accuracy.md). A deterministic
skeleton (the dies and channels as fixed delays) keeps the platoon for ever, and is as far off the other way where
the dies' and channels' random collisions break it up. Which of the two the network does, or how much of each,
depends on how often the collisions split a platoon and how often the round robin joins the parts again; mean
values do not say.

**Mixes.** Where reads and programs mix and a core group is the bottleneck, the requests held behind programs at
the dies reach the group in bursts, which mean values do not see either (the knee's caveats: the route MVA -8.8 to
+11.8 % there); the same stage answers, each request drawing its operation.

**What.** Where the route MVA's bottleneck is a core group serving several steps, or a core group while reads and
programs mix, or wherever the Markov chain outgrew its budget (or does not take the network: a striped stream) at queue
depth 2-5, or wherever the route MVA would answer at queue depth 6-24 with a core group, the dies or the channels the
bottleneck (``stage.stage_answers``; requests of one size, deterministic service, no random FTL events or background
work, closed), the stations that decide the platoon run event by event, seeded (:data:`SEED`), over :data:`REQUESTS`
completed requests after a warm-up of a tenth as many: every core group (FCFS over its visits, its servers), the dies
(picked uniformly at random per transaction, or consecutive ones for a striped stream, its planes as servers) and the
channels (die d's channel d % channels, as in the DES). Every other step is a fixed delay: its pure delay, and at a
station (accelerators, the PCIe link) the route MVA's residence per visit there (service and wait). The DES
(:mod:`ssdco.sim.des`) runs it: :func:`stage_network` is the stage as a network of those stations and station-less fixed
delays, seeded by its own ``numba_seed``. The same kind of estimate as the routed stage's (``routed_stage.py``,
``route_mva.py`` 6. and 7.), with the core groups in it.

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

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ssdco.network.build import Network, Station, Step
from ssdco.sim.des import simulate

SEED = 20261129  # one fixed stream: the answer is the same on every run
REQUESTS = 50_000  # completed requests per estimate, after a warm-up of a tenth as many
SETTLED_DRIFT = 0.005  # the measured halves' X further apart than this: the run had not settled ...
EXTEND = 8  # ... and one this many times as long answers
EVENT_KINDS = ("cores", "die", "channel")  # the stations run event by event; the rest are fixed delays
SATURATED_SLACK = 1e-9  # a station whose servers were busy this close to all of the measured time were so throughout
_ROUTING = {"single": 0, "uniform": 1, "die_channel": 2, "stripe": 3}
_ROUTING_NAMES = {code: name for name, code in _ROUTING.items()}


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
    x, latency, p99, step_res, drift, busy = _estimate(*args, int(seed), int(requests))
    if drift > SETTLED_DRIFT:
        x, latency, p99, step_res, drift, busy = _estimate(*args, int(seed), int(requests) * EXTEND)
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
    saturated = tuple(name for name, share in zip(kept, busy) if share >= 1.0 - SATURATED_SLACK)
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
    relative, and per station its utilisation: busy server time over its servers' measured time) of the stage:
    the DES (:func:`ssdco.sim.des.simulate`) of :func:`stage_network`, ``requests`` measured after a warm-up of a
    tenth as many, in two batches (the halves); cached by its inputs."""
    network = stage_network(population, read_fraction, step_station, read_us, write_us, step_after, step_route,
                            servers, copies, transactions, per_transaction)
    warm = requests // 10
    total = requests + warm
    run = simulate(network, requests=total, warmup_fraction=(warm + 0.5) / total, batches=2, numba_seed=seed,
                   trace_requests=total + population)  # every request among the first ``total`` to complete
    first, second = run.batch_iops
    steps = [run.step_residence_us[label] for label in _step_labels(len(step_station))]
    return (run.iops.value / 1e6, run.mean_latency_us.value, _measured_p99_us(run.trace, warm, requests),
            tuple(0.0 if math.isnan(r) else float(r) for r in steps), abs(first / second - 1.0),
            tuple(run.utilization[_station_name(k)] for k in range(len(servers))))


def _measured_p99_us(trace, warm: int, requests: int) -> float:
    """The 99th percentile (us, the inverted CDF) of the latencies of the requests that completed ``warm`` + 1st
    to ``warm`` + ``requests``-th, in order of completion (ties in the order the requests started)."""
    order = np.argsort(trace.end_us, kind="stable")[warm:warm + requests]
    return float(np.quantile(trace.latency_us[order], 0.99, method="inverted_cdf"))


def _station_name(k: int) -> str:
    return f"stage-{k}"


def _step_labels(n_steps: int) -> list[str]:
    return [f"step-{k}" for k in range(n_steps)]


def stage_network(population, read_fraction, step_station, read_us, write_us, step_after, step_route, servers,
                  copies, transactions, per_transaction) -> Network:
    """The stage as a network the DES runs (:func:`stage_arguments`' figures): the stations run event by event
    (their servers and copies), every other step a station-less fixed delay of its time; one request size of
    ``transactions`` transactions, forking at the per-transaction steps; a step's time of -1 for an operation
    makes it that operation's skip (its ``ops``)."""
    stations = tuple(Station(_station_name(k), EVENT_KINDS[0], int(n), int(c))
                     for k, (n, c) in enumerate(zip(servers, copies)))
    steps = []
    for k, label in enumerate(_step_labels(len(step_station))):
        ops = "write" if read_us[k] < 0.0 else "read" if write_us[k] < 0.0 else "both"
        at = step_station[k]
        steps.append(Step(label, _station_name(at) if at >= 0 else None, per_request=not per_transaction[k],
                          read_us=max(read_us[k], 0.0), write_us=max(write_us[k], 0.0), delay_us=step_after[k],
                          routing=_ROUTING_NAMES[step_route[k]] if at >= 0 else "single", ops=ops))
    return Network(stations=stations, steps=tuple(steps), read_fraction=read_fraction, request_bytes=(0.0,),
                   request_probs=(1.0,), transactions=(int(transactions),), queue_depth=int(population),
                   arrival_iops=None)
