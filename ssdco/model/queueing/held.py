"""Servers held through later steps, for the mean-value solvers (``Step.hold_through``: a die whose page register
holds a read's data until its transfer on the channel ends).

A held server is busy for its own service, then for every step it holds through (the waits at their stations
included). The DES runs exactly that. The mean-value solvers keep the route as it is (each step's own service on
the request's path) and give the holder's station the longer busy time: its per-visit service grows by those
steps' service and waits (:func:`absorbed_loads`), so that the waits for it and its utilisation are those of a
server held so long. This is the usual treatment of simultaneous resource possession in mean-value analysis
(E. D. Lazowska et al., *Quantitative System Performance*, 1984, ch. 11: the held resource's service time is
inflated by the residence at the resource it waits for). A holder's residence then counts the held-through steps'
time, which their stations report too: :func:`held_extra_us` is what the answers take off it.

The wait at a held-through station (:func:`release_waits_us`) is the finite-source (machine-repairman) wait at its
utilisation: the sources are the holder servers and write-buffer flush slots behind one copy, each holding back
while its own visit is there, and no more than the transactions the queue depth allows. It depends on the
throughput: an open workload takes it at the arrival rate, a closed one at the X it gives (a fixed point,
:func:`held_route_arrays`). The routed stage (``routed_stage.py``), where the dies or channels are the busiest,
runs the stage with the hold itself.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from scipy.optimize import brentq

from ssdco.model.queueing.erlang import machine_repairman
from ssdco.network.build import Network, StationLoad


def held_steps(network: Network, holder: int, release: int) -> list:
    """The steps a holder holds its server through: those after it up to its release step, inclusive."""
    return list(network.steps[holder + 1:release + 1])


def release_stations(network: Network) -> tuple[str, ...]:
    """The stations of the steps that some step holds its server through (a held die's channel)."""
    return tuple(dict.fromkeys(s.station for h, r in network.holds for s in held_steps(network, h, r) if s.station))


def finite_source_wait_us(sources: float, servers: int, utilization: float, service_us: float, scv: float) -> float:
    """Mean wait (us) at a station of ``servers`` fed by ``sources`` sources that each hold back while theirs is
    there (the machine-repairman M/M/c//K, Kleinrock 1975, Sec. 3.8), at per-server ``utilization``: the think
    time that gives that utilization is found, then the wait is the response less one service. Scaled by
    (1 + scv) / 2 for a service of that scv, as M/G/1's wait is M/M/1's (Pollaczek-Khinchine). At or above the
    utilization that K sources can bring, the K - c others are all ahead."""
    k = int(math.floor(sources))
    if k <= servers or utilization <= 0.0 or service_us <= 0.0:
        return 0.0
    factor = (1.0 + scv) / 2.0
    top = min(k, servers) / servers
    if utilization >= top * (1.0 - 1e-12):
        return factor * (k - servers) * service_us / servers

    def busy(log_think: float) -> float:
        return machine_repairman(k, math.exp(log_think), service_us, servers)[0] * service_us / servers - utilization

    lo, hi = math.log(service_us) - 40.0, math.log(service_us) + 40.0
    if busy(hi) >= 0.0:
        return 0.0
    think = math.exp(brentq(busy, lo, hi, xtol=1e-12))
    return factor * max(machine_repairman(k, think, service_us, servers)[1] - service_us, 0.0)


def release_waits_us(network: Network, loads: tuple[StationLoad, ...], x_per_us: float) -> dict[str, float]:
    """Per release station, the mean wait (us) of a visit at throughput ``x_per_us`` (requests per us): the
    finite-source wait (:func:`finite_source_wait_us`) at the copy's utilisation, with the mean and scv of every
    visit's service there (foreground and background work), the sources the K holder servers that share one copy
    of it and the write buffer's flushes, fewer where fewer transactions can be in the system (module
    docstring)."""
    by_name = {ld.name: ld for ld in loads}
    background = {b.name: b for b in network.background_loads()}
    in_system = math.inf if network.queue_depth is None else network.queue_depth * max(network.transactions)
    waits = {}
    for name in release_stations(network):
        ld = by_name[name]
        bg = background.get(name)
        work = [w for w in (ld, bg) if w is not None and w.visits > 0.0]  # every visit's service, the flushes' too
        visits = sum(w.visits for w in work)
        demand = sum(w.demand_us for w in work)
        service = demand / visits
        scv = sum(w.visits * w.service_us ** 2 * (1.0 + w.scv) for w in work) / visits / service ** 2 - 1.0
        holder_stations = {network.steps[h].station for h, r in network.holds
                           if any(s.station == name for s in held_steps(network, h, r))}
        behind_copy = sum(network.station(h).servers * network.station(h).copies for h in holder_stations) / ld.copies
        if bg is not None and bg.demand_us > 0.0:  # the write buffer's flushes are sources there too
            behind_copy += network.background_slots / ld.copies
        waits[name] = finite_source_wait_us(min(behind_copy, in_system), ld.servers, x_per_us * demand / ld.servers,
                                            service, scv)
    return waits


def absorbed(network: Network, waits_us: dict[str, float]) -> Network:
    """``network`` with every hold absorbed: each holder's service grows by the service of every step it holds
    through and the wait at each of their stations (``waits_us``), and those steps leave the route (the holders'
    busy time, for :func:`absorbed_loads`)."""
    steps = list(network.steps)
    released = set()
    for h, r in network.holds:
        through = held_steps(network, h, r)
        wait = sum(waits_us.get(s.station, 0.0) for s in through if s.station)
        steps[h] = replace(steps[h], read_us=steps[h].read_us + sum(s.read_us for s in through) + wait,
                           write_us=steps[h].write_us + sum(s.write_us for s in through) + wait,
                           per_byte_us=steps[h].per_byte_us + sum(s.per_byte_us for s in through), hold_through="")
        released.update(range(h + 1, r + 1))
    return replace(network, steps=tuple(s for k, s in enumerate(steps) if k not in released))


def absorbed_loads(network: Network, flat: Network) -> tuple[StationLoad, ...]:
    """The station loads the mean-value solvers see for a network with holds: the absorbed network ``flat``'s
    (holders busy through what they hold through), but the held-through stations' own loads from ``network``, in
    its order."""
    keep = set(release_stations(network))
    inflated = {ld.name: ld for ld in flat.loads()}
    return tuple(ld if ld.name in keep or ld.name not in inflated else inflated[ld.name] for ld in network.loads())


def held_extra_us(network: Network, loads: tuple[StationLoad, ...], waits_us: dict[str, float]) -> np.ndarray:
    """Per station of ``loads``: the time (us per request at one copy) that its residence in the absorbed network
    holds beyond its own, the held-through steps' service and waits, which their stations report themselves."""
    index = {ld.name: k for k, ld in enumerate(loads)}
    extra = np.zeros(len(loads))
    for h, r in network.holds:
        holder = network.steps[h]
        if holder.background or network.visits(holder) <= 0:
            continue
        k = index[holder.station]
        time = sum(network.step_moments(replace(s, ops=holder.ops))[0] + waits_us.get(s.station, 0.0)
                   for s in held_steps(network, h, r))
        extra[k] += network.visits(holder) * time / loads[k].copies
    return extra


def held_loads(network: Network, x_per_us: float, waits_us: dict[str, float] | None = None
               ) -> tuple[tuple[StationLoad, ...], np.ndarray]:
    """The station loads the mean-value solvers take (:func:`absorbed_loads`: the holders busy through the steps
    they hold through and the waits there) and the extra residence per station (:func:`held_extra_us`), with the
    waits ``waits_us`` (us per visit, by held-through station), or where None those of :func:`release_waits_us`
    at throughput ``x_per_us`` (requests per us). The route keeps every step's own service on the request's
    path."""
    waits = release_waits_us(network, network.loads(), x_per_us) if waits_us is None else waits_us
    return absorbed_loads(network, absorbed(network, waits)), held_extra_us(network, network.loads(), waits)


def held_route_arrays(network: Network, features: int) -> tuple[object, np.ndarray, tuple[StationLoad, ...]]:
    """The route arrays of ``network`` over the held loads (``route_mva.route_arrays``), the extra residence per
    station (:func:`held_extra_us`) and the loads (:func:`held_loads`), the waits at the held-through stations
    taken at the throughput: the arrival rate of an open workload; for a closed one the X that the route MVA gives
    with the waits at that X (one root: X falls as the waits, which rise with X, lengthen the hold)."""
    from ssdco.model.queueing.route_mva import route_arrays, solve_route

    if network.queue_depth is None:
        loads, extra = held_loads(network, network.arrival_iops / 1e6)
        return route_arrays(network, loads), extra, loads

    def solved(x_per_us: float):
        loads, extra = held_loads(network, x_per_us)
        arrays = route_arrays(network, loads)
        return solve_route(arrays, network.queue_depth, features), arrays, extra, loads

    # X = the route's X with the waits at X: the route's X falls as the waits rise with X, so one root
    top = solved(0.0)[0].throughput_per_us
    x = top
    if solved(top)[0].throughput_per_us < top:
        x = brentq(lambda x: solved(x)[0].throughput_per_us - x, 0.0, top, xtol=1e-15, rtol=1e-10)
    _, arrays, extra, loads = solved(x)
    return arrays, extra, loads
