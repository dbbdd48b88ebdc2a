"""The collapsed schedule: a closed network whose requests all walk one deterministic route, with every
address-routed station as a single copy, run by the DES.

With deterministic service, one operation (read-only or write-only), one request size and no FTL events drawn at
random, every request takes the same time at every step; what differs between requests is only which die (and so
which channel) their addresses pick. With every address-routed station collapsed to one copy, as if every
transaction picked the same die and channel, nothing is drawn: the DES (:mod:`ssdco.sim.des`, its rules: FCFS at
every station, simultaneous events in scheduling order, all N requests issued at time 0) runs the one schedule the
N requests settle into. Where no transaction waits at a collapsed copy over the measured requests, none would wait
there for any choice of copies either, so the run is also a trajectory of the real network whatever the addresses,
and its throughput, latencies and waits are those of the real network.

:func:`alone_us` is one request's own latency at queue depth 1 (``solvers.schedules.latency_alone_us``: the
population bound and the zero-load latency), including the waits of a request's own transactions at its channel:
with one request in the network every request repeats the first, so two requests give it exactly.

The schedule is not monotone in servers, because the DES is not: a different order at a core can cost more than the
extra server gains (``tests/model/queueing/test_collapsed.py``: a fourth core, -1.1 % in the DES).

Reference for the max-plus view of deterministic closed networks and their periodic regime: F. Baccelli,
G. Cohen, G. J. Olsder, J.-P. Quadrat, "Synchronization and Linearity", Wiley, 1992, ch. 2 and 3.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ssdco.network.build import Network
from ssdco.sim.des import DesResult, simulate, step_labels

REQUESTS = 20_000  # completed requests of a collapsed run at queue depth 2 or more, a tenth of them warm-up
WAIT_RESOLUTION_US = 1e-9  # a mean wait this short at a collapsed copy is no wait


@dataclass(frozen=True)
class CollapsedSchedule:
    """The collapsed network's run: throughput (requests per us), mean latency (us) and the DES's result, whose
    per-station and per-step figures are the real network's (module docstring)."""

    throughput_per_us: float
    response_us: float
    des: DesResult


def collapsed(network: Network) -> tuple[Network, tuple[int, ...]] | None:
    """(``network`` with every address-routed station as one copy and its steps routed to it, the indices of the
    steps that were address-routed), or None where requests may differ (:func:`_one_route`)."""
    if not _one_route(network):
        return None
    copies = {s.name: s.copies for s in network.stations}
    routed = {step.station for step in network.steps
              if step.station is not None and step.routing != "single" and copies[step.station] > 1}
    stations = tuple(replace(s, copies=1) if s.name in routed else s for s in network.stations)
    steps = tuple(replace(s, routing="single") if s.station is not None else s for s in network.steps)
    return (replace(network, stations=stations, steps=steps),
            tuple(k for k, s in enumerate(network.steps) if s.station in routed))


def _one_route(network: Network) -> bool:
    """Whether every request of ``network`` walks one deterministic route: closed, one operation, one size, no FTL
    event drawn at random, deterministic service, no background work."""
    if network.queue_depth is None or network.read_fraction not in (0.0, 1.0):
        return False
    if sum(p > 0 for p in network.request_probs) != 1:
        return False
    op = "read" if network.read_fraction == 1.0 else "write"
    return not any(step.background or step.scv != 0.0 or (step.ops in ("both", op) and step.probability < 1.0)
                   for step in network.steps)


def collapsed_schedule(network: Network, requests: int = REQUESTS) -> CollapsedSchedule | None:
    """The DES of ``network`` collapsed (:func:`collapsed`) over ``requests`` completed requests, a tenth of them
    warm-up; None where it does not apply or where a transaction waits at a collapsed copy over the measured
    requests (then the addresses decide who waits)."""
    found = collapsed(network)
    if found is None:
        return None
    one, routed = found
    run = simulate(one, requests=requests, seed=0, batches=2)
    labels = step_labels(one.steps)
    if any(run.step_wait_us[labels[k]] > WAIT_RESOLUTION_US for k in routed):
        return None
    x = run.iops.value / 1e6
    return CollapsedSchedule(throughput_per_us=x, response_us=run.mean_latency_us.value, des=run)


def alone_us(network: Network) -> float | None:
    """One request's latency (us) with the network otherwise empty (open or closed), exactly: the collapsed schedule
    at queue depth 1 (two requests, the second repeating the first); None where it does not apply
    (:func:`collapsed_schedule`)."""
    schedule = collapsed_schedule(replace(network, queue_depth=1, arrival_iops=None), requests=2)
    return None if schedule is None else schedule.response_us

