"""The write buffer as a finite pool of slots in a closed workload (``route_mva.py``, 5.).

A buffered write hands each transaction's background run (its program, GC copies, erase) to a slot of the
buffer and completes at once; a write that finds too few free slots does its run itself, on its critical
path (the DES's clone pool, :mod:`ssdco.sim.des`). How often that happens depends on the pool's
dynamics, not on the mean load alone: at queue depth 1 a write-only host fills 64 slots in about 280 us and
then waits for its own program while the pool drains and the dies idle, so the DES runs at 73 k IOPS where
the throughput bound of the buffer alone is 113 k.

The model is a flow-equivalent decomposition (K. M. Chandy, U. Herzog, L. Woo, "Parametric analysis of
queuing networks", IBM J. Res. Dev. 19(1), 1975): the rest of the route is one load-dependent server whose
rate with n requests on it is the route solver's X(n) without the buffer (``fast_per_us``), and the
background stations are another, whose rate with k runs in progress (the buffer's slots plus the runs that
blocked writes do themselves) is the exact product-form throughput of k transaction-sized jobs over the
dies and channels (:func:`~ssdco.model.queueing.convolution.closed_throughput_by_n`; it keeps the idling of randomly
chosen dies), each station slowed by the requests' own use of it (shadow servers, demand / (1 - U)). The
state is (i, j): i requests doing their own run, j busy slots. A request leaving the fast part is a write
with probability w; it takes its T slots, or, when fewer than T are free, does its whole run itself (i + 1)
and leaves the free slots to the next write (the DES's write takes them and runs only the rest; taking them
in the chain as well would count their work twice among the runs in progress, and a 16 KiB write-only load
at queue depth 32 would come out 7 % low). A run in progress ends at the background's rate shared in proportion
to the runs, and a request doing its own run returns to the fast part when its run ends (its T transactions
counted as one run of the request's mean size). The stationary distribution of this Markov chain gives
X = sum pi(i, j) X_fast(N - i).

On the PM9A3 grid of ``benchmarks/accuracy.py`` (pm9a3-buffer: 4, 64 and 512 slots) 19 of the 36 buffered
combinations are within the DES tolerances (14 with the buffer's bound alone) and the errors span
-28..+16 % (-58..+56 %). What remains: at queue depth 1 with 4 or 64 slots the model is 10-28 % low (the
chain takes the runs' times as exponential, where the DES's runs start and end almost together), and there a
faster rest of the route can lower X slightly (up to 0.7 %: a request held by a full buffer shares the drain,
which goes on while no write arrives; tests/model/queueing/test_write_buffer.py); 16 KiB
writes at queue depth 4-32 (and 1, with 512 slots) are +10..+16 % (the partial takes the chain leaves out);
write-only work at queue depth 2-4 with 512 slots, where the DES oscillates, +6..+25 %; 70 % reads at queue
depth 32 with 4 or 64 slots -3.5..-4.4 %. ``whatif`` flags all of these (docs/accuracy.md, caveats on the misses).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import spsolve
from scipy.stats import poisson

from ssdco.model.queueing.convolution import closed_throughput_by_n
from ssdco.network.build import Network, StationLoad

MAX_DRAIN_JOBS = 1024  # runs in progress (slots + queue depth x largest request): the exact drain rate's range
MAX_STATES = 6_000  # (queue depth + 1) x (slots + 1): the chain's size (its LU takes 0.2 s at 17,000)


@dataclass(frozen=True)
class BufferPool:
    """What the write buffer's chain needs (see the module docstring)."""

    slots: int  # write transactions the buffer holds
    queue_depth: int  # the chain's population
    write_fraction: float  # of the requests
    sizes: tuple[int, ...]  # transactions per request, by size class
    probs: tuple[float, ...]
    stations: tuple[int, ...]  # the background stations, as indices into the solver's station loads
    run_demand_us: tuple[float, ...]  # per copy, per write transaction's run
    servers: tuple[int, ...]
    copies: tuple[float, ...]
    max_runs: int  # runs in progress at most: slots + queue depth x largest request

    @property
    def mean_transactions(self) -> float:
        return float(np.dot(self.sizes, self.probs))

    def drain_per_us(self, foreground_util: np.ndarray) -> np.ndarray:
        """Background transactions/us with k = 0 .. ``max_runs`` runs in progress, when the requests keep each
        background station busy ``foreground_util`` of the time (per server, in station order): the runs get
        the rest (the shadow-server approximation, cf. Lazowska et al. 1984, ch. 9: demand / (1 - U))."""
        left = 1.0 - np.minimum(np.asarray(foreground_util, dtype=float), MAX_FOREGROUND_UTIL)
        return _drain(tuple((d / u, c, m) for d, u, c, m in zip(self.run_demand_us, left, self.servers,
                                                                   self.copies)), self.max_runs)


MAX_FOREGROUND_UTIL = 0.95  # of a background station taken by the requests, in the drain's shadow servers


def buffer_pool(network: Network, loads: tuple[StationLoad, ...]) -> BufferPool | None:
    """The write buffer's pool for :func:`pool_throughput` (``loads``: the solver's station order), or None
    where it does not apply: open workloads, no writes, no background work, write-through (no slots), more
    than ``MAX_DRAIN_JOBS`` runs in progress (the exact drain rate would cost too much) or more than
    ``MAX_STATES`` states (a 2 MiB buffer beyond queue depth 10). The solver then keeps the buffer's
    throughput bound alone: on the PM9A3 grid of ``benchmarks/accuracy.py`` (pm9a3-buffer)
    that bound is within 1 % of the DES at queue depth 32 with 512 slots, where the buffer is full all the
    time."""
    writes = 1.0 - network.read_fraction
    slots = int(network.background_slots)
    index = {ld.name: i for i, ld in enumerate(loads)}
    runs = [b for b in network.background_loads() if b.demand_us > 0.0 and b.name in index]
    if network.queue_depth is None or writes <= 0.0 or slots <= 0 or not runs:
        return None
    max_runs = slots + network.queue_depth * max(network.transactions)
    if max_runs > MAX_DRAIN_JOBS or (slots + 1) * (network.queue_depth + 1) > MAX_STATES:
        return None
    per_tx = writes * network.mean_transactions  # write transactions per request
    return BufferPool(slots=slots, queue_depth=int(network.queue_depth), write_fraction=writes,
                      sizes=tuple(int(t) for t in network.transactions),
                      probs=tuple(float(p) for p in network.request_probs),
                      stations=tuple(index[b.name] for b in runs),
                      run_demand_us=tuple(b.demand_us / per_tx for b in runs),
                      servers=tuple(int(b.servers) for b in runs), copies=tuple(float(b.copies) for b in runs),
                      max_runs=int(max_runs))


@lru_cache(maxsize=256)
def _drain(stations: tuple[tuple[float, int, float], ...], n_max: int) -> np.ndarray:
    """Background transactions/us with k = 0 .. n_max runs in progress (exact product form; read-only)."""
    demand, servers, copies = (list(col) for col in zip(*stations))
    x = closed_throughput_by_n(demand, servers, copies, 0.0, n_max)
    x.setflags(write=False)
    return x


def pool_throughput(pool: BufferPool, fast_per_us: np.ndarray, drain_per_us: np.ndarray) -> tuple[float, float]:
    """Requests/us of the closed workload with the write buffer, and the fraction of write requests that find
    too few free slots and do their run themselves (see the module docstring). ``fast_per_us[n]``: the
    route's throughput (requests/us) with n requests and the buffer never full, n = 0 .. queue depth;
    ``drain_per_us``: :meth:`BufferPool.drain_per_us`."""
    fast = np.asarray(fast_per_us, dtype=float)[: pool.queue_depth + 1]
    n_req = pool.queue_depth
    if _never_full(pool, fast[n_req], drain_per_us):
        return float(fast[n_req]), 0.0
    width = pool.slots + 1
    state = np.arange((n_req + 1) * width)
    i, j = np.divmod(state, width)  # i requests doing their own run, j busy slots
    arrive = fast[n_req - i] * pool.write_fraction  # writes leaving the rest of the route, per us
    rows, cols, rates = [], [], []
    blocked_rate = np.zeros(state.shape[0])
    for t, p in zip(pool.sizes, pool.probs):
        # a write of t transactions takes t slots, or, with fewer free, does its run itself (and leaves the
        # free slots to the next: taking them as well would count their work twice in the runs in progress)
        fits = j + t <= pool.slots
        rows.append(state)
        cols.append(np.where(fits, state + t, state + width))
        rates.append(arrive * p)
        blocked_rate += np.where(fits, 0.0, arrive * p)
    running = j + i * pool.mean_transactions  # runs in progress, in transactions
    k = np.minimum(running, drain_per_us.shape[0] - 1)
    per_run = np.interp(k, np.arange(drain_per_us.shape[0]), drain_per_us) / np.maximum(running, 1e-300)
    for moves, target, rate in ((j > 0, state - 1, per_run * j), (i > 0, state - width, per_run * i)):
        rows.append(state[moves])
        cols.append(target[moves])
        rates.append(rate[moves])
    rates = np.concatenate(rates)
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    moves = rates > 0.0
    q = sp.csr_matrix((rates[moves], (rows[moves], cols[moves])), shape=(state.shape[0],) * 2)
    pi = _stationary(q)
    x = float(np.dot(pi, fast[n_req - i]))
    writes_per_us = float(np.dot(pi, arrive))
    return x, (float(np.dot(pi, blocked_rate)) / writes_per_us if writes_per_us > 0.0 else 0.0)


NEVER_FULL_TAIL = 1e-12  # P(the buffer is nearly full) below which the chain is not solved


def _never_full(pool: BufferPool, fast_per_us: float, drain_per_us: np.ndarray) -> bool:
    """True when the buffer is (almost) never too full for a write: P(busy slots > slots - largest request)
    < ``NEVER_FULL_TAIL`` in a system that dominates the chain. Writes arrive at most at the route's rate
    ``fast_per_us`` times w, in batches of T slots; every busy slot is released at least at the per-run rate of
    the fullest background (the product-form X(k) / k falls with k), so a batch holds a slot for at most the
    max of T such exponentials, H_T / rate on average, and the batches holding slots are at most an M/G/inf
    queue's: Poisson with mean arrivals x holding time (insensitive to the holding time's distribution)."""
    rate = drain_per_us[-1] / (drain_per_us.shape[0] - 1)
    t_max = max(pool.sizes)
    holding = sum(1.0 / k for k in range(1, t_max + 1)) / rate
    batches = math.floor((pool.slots - t_max) / t_max) + 1  # this many batches can leave < t_max slots free
    return bool(poisson.sf(batches - 1, fast_per_us * pool.write_fraction * holding) < NEVER_FULL_TAIL)


POWER_STEPS = 200  # of the uniformised chain, to find a likely state to pin (see _stationary)


def _stationary(rates: sp.csr_matrix) -> np.ndarray:
    """Stationary distribution of the CTMC with off-diagonal ``rates`` (row: from, column: to).

    pi Q = 0 is solved by sparse LU with pi(k) = 1 at one state k, the others from the remaining balance
    equations. k must be a state of substantial probability: pinned at a state of probability 1e-20 the
    solution is lost to rounding. k is the most likely state after ``POWER_STEPS`` steps of the uniformised
    chain from the uniform distribution (the normalisation as a row of ones instead costs 30-100 times as much:
    the dense row fills the LU factors)."""
    out = np.asarray(rates.sum(axis=1)).ravel()
    size = out.shape[0]
    step = (rates.T / out.max()).tocsr()
    stay = 1.0 - out / out.max()
    guess = np.full(size, 1.0 / size)
    for _ in range(POWER_STEPS):
        guess = step @ guess + stay * guess
    k = int(np.argmax(guess))
    balance = (rates - sp.diags(out)).T.tocsc()  # Q^T pi = 0
    keep = np.arange(size) != k
    pi = np.ones(size)
    pi[keep] = spsolve(balance[keep][:, keep], -balance[keep][:, [k]].toarray().ravel())
    if not np.all(np.isfinite(pi)) or pi.min() < -1e-9 * pi.max():
        # the pinned state was too unlikely after all: normalise by a row of ones instead (slow, but exact)
        balance = sp.vstack([balance.tocsr()[:-1], sp.csr_matrix(np.ones((1, size)))], format="csc")
        pi = spsolve(balance, np.eye(1, size, size - 1).ravel())
    pi = np.maximum(pi, 0.0)
    return pi / pi.sum()
