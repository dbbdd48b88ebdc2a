"""The address-routed stage alone: what the dies (or the channels) sustain with all N requests in them.

The capacity bound c / D of a station is what it sustains with an endless queue. At queue depth N the
dies and channels never have one: a request's T transactions pick their copies at random, and a copy
whose share of the N requests' transactions has run out idles while the request waits for its slowest
transaction elsewhere. New work arrives only when a request completes, so the copies' backlogs drift
apart and are pulled back only by idling (a zero-drift random walk reflected at a distance of about N
requests: the idle fraction falls as about 1 / N). Measured with the embedded DES on 16 KiB reads over
two channels of one die each (2026-11-27), the channels are 91.4, 96.1, 97.4, 98.2, 98.8 and 99.6 % busy at
QD 4, 7, 10, 14, 20 and 64, where the route MVA reaches c / D at QD 7 (+4.1 % IOPS).

**The stage alone.** N requests, each forking its T transactions (T drawn from the request sizes) to m
copies uniformly at random, c servers per copy, one deterministic service S per transaction, FCFS in
arrival order, a request leaving when its last transaction ends and the next one taking its place at once.
Every service there starts at a multiple of S: all start at time 0, and a server starts work only when a
service ends or a request arrives, which happens only when a service ends. So the stage runs in slots of
S, and its throughput is the mean number of requests completed per slot over S. The rest of the route
only holds requests away from the stage, so this is taken as an upper bound on X(N) (argued, not proven:
the loop has no product form; on the 8,296 cached DES comparisons where it applies the DES is never above
it by more than its own noise, below). The route MVA holds its X(N) to it (``route_mva.solve_route``), as
it holds it to c / D.

It is estimated by running the slots, seeded (:data:`SEED`), so the answer is the same on every run: the
loop has no product form (deterministic service, fork-join), and its exact chain (the N requests' remaining
transactions per copy, in arrival order) grows exponentially in N. The estimate's standard error is at most
about 0.1 % of it (eight seeds on each of seven stages of 2-32 copies, 2026-11-27), and an estimate takes at
most about 40 ms. The DES of whole designs whose dies are the bottleneck at QD 27-48, run for 1,000,000
requests, lands 0.03-0.14 % above it (within the DES's own 95 % CI, 0.14-0.22 %): there the rest of the route
holds almost no requests and the stage alone is the design.

Where it applies (:func:`routed_stages`): a closed workload, a die or channel station that only the data
step visits (no mapping-table reads, no background work), deterministic (NAND scv 0), every request's
transactions visiting it with one service time (reads only, programs only, or equal times as for the
channel's transfers). Mixed reads and programs at the dies have no common slot and are left to the MVA.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numba as nb
import numpy as np

from .network import Network

SEED = 20261127  # the slots' seed: one fixed stream, so the bound is the same on every run
SLOT_WORK = 4_000_000  # per estimate: slots x (copies + transactions served per slot), at most about 40 ms
MIN_SLOTS, MAX_SLOTS = 50_000, 1_000_000  # after a warm-up of a tenth as many
SCREEN_SLOTS = 20_000  # the short run that tells whether the bound can hold a given X at all
SCREEN_MARGIN = 0.05
ROUTED_KINDS = ("die", "channel")


@dataclass(frozen=True)
class RoutedStage:
    """A die or channel station where :func:`routed_stage_per_slot` applies: ``copies`` x ``servers``,
    every visit ``service_us`` long."""

    station: str
    copies: int
    servers: int
    service_us: float


def routed_stages(network: Network) -> tuple[RoutedStage, ...]:
    """The die and channel stations of ``network`` that the slotted stage alone describes (see the module
    docstring); empty for an open workload."""
    if network.queue_depth is None:
        return ()
    found = []
    for st in network.stations:
        if st.kind not in ROUTED_KINDS:
            continue
        steps = [s for s in network.steps if s.station == st.name]
        if len(steps) != 1:
            continue
        s = steps[0]
        if (s.background or s.per_request or s.probability != 1.0 or s.scv != 0.0 or s.per_byte_us != 0.0
                or s.routing == "single"):
            continue
        shares = {"read": network.read_fraction, "write": 1.0 - network.read_fraction}
        visiting = [op for op in ("read", "write") if shares[op] > 0.0]
        if s.ops != "both" and visiting != [s.ops]:
            continue  # some requests do not visit: their transactions are not in the stage's loop
        times = {s.read_us if op == "read" else s.write_us for op in visiting}
        if len(times) != 1:
            continue
        service = times.pop()
        if service <= 0.0:
            continue
        found.append(RoutedStage(st.name, int(st.copies), int(st.servers), float(service)))
    return tuple(found)


def stage_bound_per_us(stage: RoutedStage, population: int, transactions: tuple[int, ...],
                       probs: tuple[float, ...], x_per_us: float = math.inf) -> float:
    """What ``stage`` alone sustains (requests/us) with ``population`` requests of ``transactions``
    transactions each (with probabilities ``probs``): :func:`routed_stage_per_slot` / S.

    Where a throughput ``x_per_us`` is given and a short run (:data:`SCREEN_SLOTS`) puts the stage more than
    :data:`SCREEN_MARGIN` above it, the bound cannot hold that X and inf is returned without the full run
    (the short run's standard error is at most about 0.4 %, so the margin is over ten of them)."""
    if x_per_us < math.inf:
        quick = routed_stage_per_slot(population, transactions, probs, stage.copies, stage.servers,
                                      slots=SCREEN_SLOTS) / stage.service_us
        if x_per_us < quick * (1.0 - SCREEN_MARGIN):
            return math.inf
    return routed_stage_per_slot(population, transactions, probs, stage.copies, stage.servers) / stage.service_us


def routed_stage_per_slot(population: int, transactions: tuple[int, ...], probs: tuple[float, ...],
                          copies: int, servers: int, seed: int = SEED, slots: int | None = None) -> float:
    """Requests completed per slot (one service time) by ``population`` requests in the stage alone, each
    forking ``transactions[j]`` transactions (with probability ``probs[j]``) over ``copies`` copies of
    ``servers`` servers; the mean over ``slots`` slots (default: 50,000-1,000,000, the fewer the more work
    a slot is) after a warm-up of a tenth as many."""
    if population < 1:
        raise ValueError(f"population must be >= 1, got {population}")
    if copies < 1 or servers < 1:
        raise ValueError(f"copies and servers must be >= 1, got {copies} and {servers}")
    if slots is not None and slots < 1:
        raise ValueError(f"slots must be >= 1, got {slots}")
    return _per_slot(int(population), tuple(int(t) for t in transactions), tuple(float(p) for p in probs),
                     int(copies), int(servers), int(seed), None if slots is None else int(slots))


@lru_cache(maxsize=1024)
def _per_slot(population, transactions, probs, copies, servers, seed, slots) -> float:
    sizes = np.array(transactions, dtype=np.int64)
    if slots is None:
        per_slot_work = copies + min(copies * servers, population * float(np.dot(sizes, probs)))
        slots = int(min(MAX_SLOTS, max(MIN_SLOTS, SLOT_WORK // per_slot_work)))
    cumulative = np.cumsum(np.array(probs, dtype=np.float64))
    cumulative[-1] = 1.0
    return float(_slot_kernel(population, sizes, cumulative, copies, servers, slots, slots // 10, seed))


@nb.njit(cache=True)
def _slot_kernel(population, sizes, cumulative, copies, servers, slots, warm_slots, seed):
    np.random.seed(seed)
    depth = population * sizes.max()  # the most transactions one copy can hold
    fifo = np.zeros((copies, depth), dtype=np.int64)  # per copy, the request of each queued transaction
    head = np.zeros(copies, dtype=np.int64)
    count = np.zeros(copies, dtype=np.int64)
    left = np.zeros(population, dtype=np.int64)  # per request, its transactions not yet served
    arriving = np.arange(population)  # the requests that take their places before the next slot
    n_arriving = population
    n_sizes = sizes.shape[0]
    completed = 0
    for s in range(warm_slots + slots):
        for j in range(n_arriving):  # each forks its transactions over the copies at random
            r = arriving[j]
            size = 0
            if n_sizes > 1:
                u = np.random.random()
                while size < n_sizes - 1 and u >= cumulative[size]:
                    size += 1
            t = sizes[size]
            left[r] = t
            for _ in range(t):
                k = int(np.random.random() * copies)
                tail = head[k] + count[k]
                fifo[k, tail - depth if tail >= depth else tail] = r
                count[k] += 1
        n_arriving = 0
        for k in range(copies):  # each copy serves up to c transactions in arrival order
            for _ in range(min(servers, count[k])):
                r = fifo[k, head[k]]
                head[k] += 1
                if head[k] == depth:
                    head[k] = 0
                count[k] -= 1
                left[r] -= 1
                if left[r] == 0:
                    arriving[n_arriving] = r
                    n_arriving += 1
        if s >= warm_slots:
            completed += n_arriving
    return completed / slots
