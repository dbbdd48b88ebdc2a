"""The address-routed stage: the dies and channels run event by event, the rest of the route a fixed time.

**Why.** The route MVA's waits at deterministic dies and channels of few servers run long at moderate load (4 KiB
reads at QD 14 with the channels 74 % busy; 70 %-read mixes over one or two multi-plane dies 85-97 % busy): a die
(or a channel) whose share of the N requests' transactions has run out idles while the others wait, and a channel
fed by a few dies idles while none of them has a read done, which mean values do not see.
``route_mva.stage_behind_rest`` therefore runs the dies and channels here, behind the route MVA's own time for the
rest of the route, where a die or channel is the busiest station.

**The stage.** N requests, each forking its T transactions (T drawn from the request sizes) to the dies uniformly
at random, c servers (planes) per die, then each to its die's channel (die d to channel d % channels, as in the
DES), FCFS in arrival order at each, a request leaving when its last transaction ends and the next one taking its
place after a fixed time ``think_us`` (the rest of the route; 0: at once); deterministic service, a read's or a
program's (a request's transactions share its operation). Where only one of the two stations qualifies, that one
alone.

It is estimated by running the stage event by event in the DES (:func:`stage_network`, seeded by :data:`SEED`
as its ``numba_seed``), so the answer is the same on every run: its exact chain (the N requests' remaining
transactions per copy, in arrival order) grows exponentially in N. For one station with one service time S every
service starts at a multiple of S (all start at time 0, and a server starts work only when a service ends or a
request arrives, which happens only when a service ends), so that stage runs in slots, and for small N its slotted
chain is solved exactly in ``tests/model/queueing/test_routed_stage.py``: the estimate is within 0.25 % of it.
Over :data:`REQUESTS` requests its standard error is 0.02-0.1 % with one service time per station and up to about
0.25 % where reads and programs mix.

Where it applies (:func:`routed_stages`): a closed workload, a die or channel station that only the data
step visits (no mapping-table reads, no background work), deterministic (NAND scv 0), and every request's
transactions visiting it. A die held through its transfer (``Step.hold_through``) is run so, with both the dies
and their channels in the stage.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from ssdco.network.build import Network, Station, Step
from ssdco.sim.des import simulate

SEED = 20261127  # the DES's own seed (``numba_seed``) for the estimate: one fixed stream, the same on every run
REQUESTS = 200_000  # completed requests per estimate, after a warm-up of a tenth as many
ROUTED_KINDS = ("die", "channel")


@dataclass(frozen=True)
class RoutedStage:
    """A die or channel station that the stage describes (:func:`routed_stage_per_us`): ``copies`` x
    ``servers``, a read's visit ``read_us`` long and a write's ``write_us``, ``read_fraction`` of the requests
    reads (a request's transactions share its operation); ``hold``: a die stays busy through its transfer on the
    channel (the stage after it)."""

    station: str
    copies: int
    servers: int
    read_us: float
    write_us: float
    read_fraction: float
    hold: bool = False  # a die held through its channel transfer (``Step.hold_through``): busy until it ends
    striped: bool = False  # a request's transactions go to consecutive copies (``"stripe"`` routing), not at random


def _stage_of(network: Network, st: Station) -> RoutedStage | None:
    """The stage of die or channel station ``st``, or None where it is not one (module docstring): visited by one
    step only, per transaction, routed, deterministic, every request's transactions making it."""
    steps = [s for s in network.steps if s.station == st.name]
    if len(steps) != 1:
        return None
    s = steps[0]
    if (s.background or s.per_request or s.probability != 1.0 or s.scv != 0.0 or s.per_byte_us != 0.0
            or s.routing == "single"):
        return None
    shares = {"read": network.read_fraction, "write": 1.0 - network.read_fraction}
    visiting = [op for op in ("read", "write") if shares[op] > 0.0]
    if s.ops != "both" and visiting != [s.ops]:
        return None  # some requests do not visit: their transactions are not in the stage's loop
    if min(s.read_us if op == "read" else s.write_us for op in visiting) <= 0.0:
        return None
    return RoutedStage(st.name, int(st.copies), int(st.servers), float(s.read_us), float(s.write_us),
                       float(network.read_fraction), hold=bool(s.hold_through), striped=network.is_striped(s))


def routed_stages(network: Network) -> tuple[RoutedStage, ...]:
    """The die and channel stations of ``network`` that the stage describes (see the module
    docstring), dies first: with both, the stage is the dies feeding their channels; empty for an open
    workload, where a station serves some visits ahead of others (``Network.behind_in_effect``), and for a die held
    through a step other than its channel's transfer."""
    if network.queue_depth is None or network.behind_in_effect:
        return ()
    found = [stage for st in network.stations if st.kind in ROUTED_KINDS
             for stage in [_stage_of(network, st)] if stage is not None]
    found.sort(key=lambda st: ROUTED_KINDS.index(st.station))
    if any(st.hold for st in found):
        # a die held through its transfer: the stage is the dies and their channels, the hold through that step
        channel = [s for s in network.steps if s.station == found[-1].station]
        die_step = next(s for s in network.steps if s.station == found[0].station)
        if len(found) != 2 or found[1].hold or die_step.hold_through != channel[0].label:
            return ()
    return tuple(found)


def _check_request_sizes(transactions: tuple[int, ...], probs: tuple[float, ...]) -> None:
    """Raise ValueError unless ``transactions`` are request sizes of >= 1 transactions and ``probs`` their
    probabilities, summing to 1."""
    if (not transactions or len(probs) != len(transactions) or min(transactions) < 1 or min(probs) < 0.0
            or not math.isclose(sum(probs), 1.0, rel_tol=1e-9)):
        raise ValueError(f"expected request sizes of >= 1 transactions with probabilities summing to 1, got "
                         f"{transactions} and {probs}")


def _check_stage_figures(stages: tuple[RoutedStage, ...]) -> None:
    """Raise ValueError unless every stage has >= 1 copies and servers, a read fraction in [0, 1] (the same
    for all), and positive service times (us) for the operations it draws."""
    read_fraction = stages[0].read_fraction
    for st in stages:
        if st.copies < 1 or st.servers < 1:
            raise ValueError(f"{st.station}: copies and servers must be >= 1, got {st.copies} and {st.servers}")
        if not (0.0 <= st.read_fraction <= 1.0 and (st.read_us > 0.0 or st.read_fraction == 0.0)
                and (st.write_us > 0.0 or st.read_fraction == 1.0)):
            raise ValueError(f"{st.station}: expected a read fraction in [0, 1] and positive service times for the "
                             f"operations it draws, got {st.read_fraction}, {st.read_us} and {st.write_us}")
        if st.read_fraction != read_fraction:
            raise ValueError(f"the stages' read fractions differ: {[x.read_fraction for x in stages]}")


def routed_stage_per_us(population: int, transactions: tuple[int, ...], probs: tuple[float, ...],
                        stages: tuple[RoutedStage, ...], seed: int = SEED, requests: int | None = None,
                        think_us: float = 0.0) -> float:
    """Requests completed per us by ``population`` requests in ``stages`` alone (one station, or the dies then
    their channels, die d feeding channel d % channels as in the DES), each request forking
    ``transactions[j]`` transactions (with probability ``probs[j]``) over the first stage's copies at random,
    a read's visit ``read_us`` long (the stages' ``read_fraction`` of the requests) and a program's
    ``write_us``: event by event, over ``requests`` completed requests (default :data:`REQUESTS`) after a
    warm-up of a tenth as many. ``think_us``: a fixed time (us) between a request's completion and the arrival
    of the one that takes its place (0: at once; ``route_mva.stage_behind_rest`` puts the rest of the route
    there)."""
    if population < 1:
        raise ValueError(f"population must be >= 1, got {population}")
    if not 1 <= len(stages) <= 2:
        raise ValueError(f"expected one or two stages, got {len(stages)}")
    _check_request_sizes(transactions, probs)
    _check_stage_figures(stages)
    if requests is not None and requests < 1:
        raise ValueError(f"requests must be >= 1, got {requests}")
    if not (math.isfinite(think_us) and think_us >= 0.0):
        raise ValueError(f"think_us must be finite and >= 0, got {think_us}")
    return _per_us(int(population), tuple(int(t) for t in transactions), tuple(float(p) for p in probs),
                   tuple(stages), int(seed), REQUESTS if requests is None else int(requests), float(think_us))


@lru_cache(maxsize=1024)
def _per_us(population, transactions, probs, stages, seed, requests, think_us) -> float:
    warm = requests // 10
    total = requests + warm
    run = simulate(stage_network(population, transactions, probs, stages, think_us), requests=total,
                   warmup_fraction=(warm + 0.5) / total, batches=2, numba_seed=seed)
    return run.iops.value / 1e6


def stage_network(population: int, transactions: tuple[int, ...], probs: tuple[float, ...],
                  stages: tuple[RoutedStage, ...], think_us: float = 0.0) -> Network:
    """The stage as a network the DES runs (:func:`routed_stage_per_us`' figures): per transaction the first
    stage's copies picked at random (``striped``: consecutive copies), then the second's (copy d % copies of the
    first's pick d); a request's sizes and operation drawn as given; then ``think_us`` (us) of fixed delay before
    the next request starts."""
    stations = tuple(Station(st.station, st.station if st.station in ROUTED_KINDS else ROUTED_KINDS[0],
                             st.servers, st.copies) for st in stages)
    steps = [Step(st.station, st.station, per_request=False, read_us=st.read_us, write_us=st.write_us,
                  routing="die_channel" if k > 0 else "stripe" if st.striped else "uniform",
                  hold_through=stages[1].station if st.hold and k == 0 and len(stages) == 2 else "")
             for k, st in enumerate(stages)]
    steps.append(Step("think", None, per_request=True, read_us=think_us, write_us=think_us))
    return Network(stations=stations, steps=tuple(steps), read_fraction=stages[0].read_fraction,
                   request_bytes=tuple(0.0 for _ in transactions), request_probs=probs, transactions=transactions,
                   queue_depth=population, arrival_iops=None)
