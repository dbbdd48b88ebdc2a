"""The Markov chain of a closed network with deterministic service whose only randomness is the requests'
draws (operation, size, die addresses, FTL events), solved for its stationary throughput.

Why. At queue depths of a few requests, deterministic firmware and NAND timings make the DES's requests
keep a few fixed phase relations (two requests taking turns at a slow core without waiting, three moving
as a convoy, a collision at a die shifting them into another pattern for good). A mean-value model takes
the others' positions as independent at every arrival and misses these patterns by up to 17 %
(docs/accuracy.md).

What. Between two draws the network evolves deterministically, exactly as the DES's event loop (FCFS at
every station copy, simultaneous events in scheduling order, a request's transactions forking and
joining, all N requests issued at time 0). The state at an event is the pending events (their remaining
times and the steps, phases, dies and requests of their jobs), the queues and each request's operation,
size and outstanding transactions. Requests are interchangeable, and so are the dies of a channel and the
channels: the state is kept in a canonical form (requests, channels and dies relabelled in order of first
appearance), and a uniform die draw has as outcomes each die some job still refers to, one fresh die in
each channel in use and one fresh die in a fresh channel, each with its probability. From each state
after a draw the recursion runs to the next event that draws; each of that event's outcomes leads to a
state after a draw. These states and the outcomes' probabilities form a finite Markov chain (a Markov
renewal process: each transition carries the time it took, the requests it completed and the time-
integrals of the jobs at each station). Its stationary distribution pi gives each station's mean jobs and
busy servers (time-integrals over sum_i pi_i time_i) and the fraction of visits that queue; the long-run
throughput X is read off the busy servers by work conservation, X = sum_k B_k / sum_k D_k
(:func:`_work_conserving`; counting completions, sum_i pi_i completions_i / sum_i pi_i time_i, is exact only
without lumping), and the mean latency is N / X (Little's law; a request is reissued as it completes).

Lumping. With incommensurate service times the remaining times of the pending events need not repeat
exactly, and the number of states can grow without bound. States whose remaining times agree on a grid of
``grid_us`` are lumped: the first one found stands for all of them (its exact times drive its successors,
so no service time is rounded). The grid is a fraction of one request's zero-load latency (1e-4, else the
finest of 10 %, 5 % and 2 % on which the chain fits its budget: at queue depths 3-5 400,000 states on the 10 % grid,
400,000 on the 5 % grid once the 10 % grid fit within 100,000, and 100,000 on the 2 % grid, ``GRID_STEPS``; at queue
depth 2 the 10 % grid may take 400,000, the finer ones 100,000, ``SHALLOW_GRID_STEPS``; from queue depth 6 on the 5 %
and 2 % grids 40,000, ``HIGH_GRID_STEPS``); the error
this lumping brings is measured against the DES, not bounded (``benchmarks/accuracy.py``). Where the chain
fits no grid there is no answer (None), and the route MVA answers.

Scope: closed workloads, every service deterministic (``scv == 0``), no background steps (a write
buffer's clones), address-routed stations of one die count and one channel count with ``dies`` a
multiple of ``channels`` (die d on channel d mod channels, as the DES and ``build_network`` have it).

Reference: the embedded Markov chain of a Markov renewal process and its reward ratio, e.g. S. M. Ross,
"Applied Probability Models with Optimization Applications", 1970, ch. 5; E. Cinlar, "Introduction to
Stochastic Processes", 1975, ch. 10.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import numba as nb
import numpy as np
from numba import types
from numba.typed import Dict
from scipy import sparse
from scipy.sparse import csgraph
from scipy.sparse.linalg import LinearOperator, gmres, spilu, splu

from ssdco.model.bounds import asymptotic_bounds
from ssdco.network.build import Network, fork_join_block_ends

# (lumping grid as a fraction of one request's zero-load latency, most states), see schedule_chain: a small
# chain is solved (nearly) exactly; otherwise the coarsest grid is tried and, while they fit, finer ones.
# Against the DES (100,000 requests) on 145 low-queue-depth draws that some grid solves within 100,000 states,
# each taken on the finest grid that fits: 2 % on 121 (worst IOPS error 0.56 %), 5 % on 10 (0.40 %), 10 % on 14
# (0.36 %). A 10 % grid on a small chain can be off by 4.4 % (65 states: the lumping merges phases that matter),
# and a 20 % grid on large ones by 4.6 %: the finest grid that fits is taken, and none coarser than 10 %. Coarse
# first, since a chain that outgrows the budget costs the time of exploring it, and one that does not fit on
# 10 % does not fit on finer grids: a step is skipped where a grid at least as coarse outgrew a budget at least
# as large (exploring every step on its own, skipping changes no answer and halves the explorations' time).
# A step marked REFINE_ONLY is tried only after a coarser grid fit within a REFINE_GROWTH-th of its budget: its
# budget is there to refine an answer, not to find one (a design whose coarser grids all outgrew would only pay the
# time of outgrowing it, and so would one whose coarser fit needed so many states that the finer grid will not fit).
# Halving the grid multiplies the states by a median 3.8 (1.8 to 44, on the QD 3-4 designs of docs/accuracy.md's
# draws); after a 10 % fit of 100,000-400,000 states the 5 % grid rarely fits
# 400,000, and the designs where it does are within the tolerances on the 10 % grid already.
REFINE_ONLY = "refine-only"
REFINE_GROWTH = 4
# Where the finest grid that fits closes on fewer states than the coarser grid before it, its representatives have
# fallen into an orbit of their own: halving a grid multiplies the states (a median 3.8, above). walk_grid_steps
# then explores a grid this many times finer within the same budget and takes it where it fits. For writes at
# QD 4, one request per die server: 64 states on the 10 % grid (-7.0 % against the DES), 628 on the 5 % grid
# (+0.15 %), 64 again on the 2 % grid (-7.0 %), 8,217 on the 1 % grid (0.00 %).
COLLAPSE_REFINE_FACTOR = 2
GridStep = tuple[float, int] | tuple[float, int, str]  # (grid fraction, most states[, REFINE_ONLY])
# Queue depths 3-5: up to 400,000 states on the 10 % grid, and on the 5 % grid after a 10 % fit within 100,000.
# On docs/accuracy.md's cached Hypothesis draws the refined answers are closer to the DES (mean |IOPS error|
# 0.74 % -> 0.30 % on the 10 % answers that refine, none worse by more than 0.5 points; 8 KiB writes at QD 3:
# -4.0 % on the 10 % grid, -0.1 % on the 5 % grid). The 10 % grid's 400,000 states, with the throughput read off
# the busy time (_work_conserving), fix misses of the route MVA and make none; a larger budget still fixes some
# misses and makes others. The price: a design that outgrows 400,000 takes a median 2.2 s to give up (90th
# percentile 4.0 s), where 100,000 takes about 0.5 s. docs/accuracy.md has the figures.
GRID_STEPS = ((1e-4, 3_000), (0.1, 400_000), (0.05, 400_000, REFINE_ONLY), (0.02, 100_000))
CHAIN_GRID_STEPS_MAX_QUEUE_DEPTH = 5  # GRID_STEPS up to this queue depth, then HIGH_GRID_STEPS
# Queue depth 6-8 (whatif tries the chain up to 8): the 5 % and 2 % grids, 40,000 states. Most designs there outgrow
# any budget, and giving up costs the exploring: 0.23 s median (0.56 s worst) at 40,000 on 80 sampled designs,
# 0.63 s (0.94 s) at 100,000. On the closed deterministic configurations at queue depth 6-8 of docs/accuracy.md's
# cached draws and uniform designs, the chain's answers are within 0.8 % of the DES (60,000 requests) and bring
# misses of the route MVA in (reads and programs on one die at QD 8: the route MVA -3.4 to -3.9 %,
# the chain 7,712 states); 40,000 states keep nearly all of them.
HIGH_GRID_STEPS = ((1e-4, 3_000), (0.05, 40_000), (0.02, 40_000))
# Queue depth 2: up to 400,000 states on the 10 % grid. Two requests of several transactions over many dies can
# need more than 100,000 states there, and the route MVA that answers instead tends to be low at this depth
# (against 200,000-request DES runs: 16 KiB designs where the route MVA is
# -4 to -7.4 % need 117,438-306,344 states, and the chain brings them within 1 %). Beyond 400,000 a larger budget
# fixes one miss and makes another, so the budget stops there; a chain that outgrows it costs the time of
# exploring it (benchmarks/speed.py schedule-chain). Where the 10 % grid fits beyond 100,000 states the finer
# grids are not explored (walk_grid_steps' states_of).
SHALLOW_GRID_STEPS = ((1e-4, 3_000), (0.1, 400_000), (0.05, 100_000), (0.02, 100_000))
SHALLOW_QUEUE_DEPTH = 2  # at this queue depth, SHALLOW_GRID_STEPS
# whatif --fast (markov_chain=False) at queue depth 1-2: the first step alone, the chain on the exact grid within 3,000
# states (a few ms to fit or to give up). On the sampled designs it brings answers within the DES tolerances at
# QD 1-2 and moves none out (docs/accuracy.md, whatif --fast). At QD 3-5 it fits few configurations, at about
# 12 ms a design against about 1 ms, so --fast skips the chain there.
FAST_GRID_STEPS = ((1e-4, 3_000),)
FAST_CHAIN_MAX_QUEUE_DEPTH = 2
PATTERN_TOLERANCE = 1e-6  # closed classes whose throughputs agree to this are one pattern
PATTERN_WEIGHT_DIGITS = 9  # patterns whose probabilities agree to this many decimals are equally likely
MAX_SEGMENT_EVENTS = 20_000  # events without a draw: beyond it the route draws nothing that matters
MAX_DRAWS = 64  # draws within one event
WAIT_RESOLUTION_US = 1e-9  # a queued job served this soon after it queued has not waited

_SINGLE, _UNIFORM, _DIE_CHANNEL = 0, 1, 2
_OPS = {"both": 0, "read": 1, "write": 2}
DESC = 7  # ints describing a job in the canonical key

# status codes of the exploration
OK, TOO_MANY_STATES, NO_DRAWS, BUG = 0, 1, 2, 3


@dataclass(frozen=True)
class _Route:
    """The network as flat arrays for the compiled recursion (one row per step / station / station copy)."""

    ints: tuple  # arrays, see _compile
    service: np.ndarray  # [step, op, size] us
    delay: np.ndarray
    prob: np.ndarray
    breakpoints: np.ndarray  # the probability draws' interval ends, for the key
    size_probs: np.ndarray
    scalars: np.ndarray  # N, T_pool, dies, channels, stations, units
    read_fraction: float

    @property
    def queue_depth(self) -> int:
        """N, the closed workload's requests."""
        return int(self.scalars[0])


_ROUTING_CODES = {"single": _SINGLE, "uniform": _UNIFORM, "die_channel": _DIE_CHANNEL}


def _station_kinds(network: Network, index: dict[str, int], copies: np.ndarray) -> np.ndarray | None:
    """Per station, how its steps pick a copy (_SINGLE, _UNIFORM or _DIE_CHANNEL; -1 where no step visits
    it, _SINGLE for one copy), or None where the address reaches a station in one step and not in another."""
    station_kind = np.full(len(copies), -1, dtype=np.int64)
    for s in network.steps:
        if s.station is None:
            continue
        k = index[s.station]
        kind = _ROUTING_CODES[s.routing] if copies[k] > 1 else _SINGLE
        if station_kind[k] not in (-1, kind):
            return None  # a station reached by the address in one step and not in another
        station_kind[k] = kind
    return station_kind


def _dies_and_channels(copies: np.ndarray, station_kind: np.ndarray) -> tuple[int, int] | None:
    """(dies, channels): the copies of the uniformly routed stations and of the die-channel ones (1 where
    there are none), or None where either count differs between stations or the channels do not divide the
    dies."""
    uniform = {int(copies[k]) for k in range(len(copies)) if station_kind[k] == _UNIFORM}
    channel = {int(copies[k]) for k in range(len(copies)) if station_kind[k] == _DIE_CHANNEL}
    if len(uniform) > 1 or len(channel) > 1:
        return None
    dies = uniform.pop() if uniform else 1
    channels = channel.pop() if channel else 1
    if dies % channels:
        return None
    return dies, channels


def _channel_needed(routing: np.ndarray, per_req: np.ndarray, block_end: np.ndarray) -> np.ndarray:
    """Per step, 1 if after it a job still needs its die's channel: a die_channel step follows in its scope
    before a uniform step draws a new die."""
    ns = len(routing)
    channel_needed = np.zeros(ns, dtype=np.int64)
    for s in range(ns):
        for k in range(s + 1, block_end[s] if not per_req[s] else ns):
            if not per_req[s] or per_req[k]:
                if routing[k] == _UNIFORM:
                    break
                if routing[k] == _DIE_CHANNEL:
                    channel_needed[s] = 1
                    break
    return channel_needed


def _service_table(network: Network) -> np.ndarray:
    """The service of each step, [step, operation (read, write), request size class], in us: the step's
    read or write time, plus its per-byte time for the request's bytes at a per-request step."""
    steps = network.steps
    nb_ = len(network.request_bytes)
    service = np.zeros((len(steps), 2, nb_))
    for i, s in enumerate(steps):
        sizes = np.asarray(network.request_bytes, dtype=float) if s.per_request else np.zeros(nb_)
        service[i, 0] = s.read_us + s.per_byte_us * sizes
        service[i, 1] = s.write_us + s.per_byte_us * sizes
    return service


def _step_routing(network: Network, index: dict[str, int], copies: np.ndarray) -> np.ndarray:
    """Per step, how it picks a copy of its station (_SINGLE at no station or at a station of one copy)."""
    return np.array([_ROUTING_CODES[s.routing] if s.station is not None and copies[index[s.station]] > 1
                     else _SINGLE for s in network.steps], dtype=np.int64)


def _step_columns(network: Network, index: dict[str, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per step, its station's index (-1 at no station), its operations' code (_OPS) and its follow flag."""
    steps = network.steps
    return (np.array([-1 if s.station is None else index[s.station] for s in steps], dtype=np.int64),
            np.array([_OPS[s.ops] for s in steps], dtype=np.int64),
            np.array([int(s.follow) for s in steps], dtype=np.int64))


def _compile(network: Network) -> _Route | None:
    """The route as arrays, or None where the chain does not apply (see the module docstring)."""
    if network.queue_depth is None:
        return None
    steps = network.steps
    if any(s.background or s.scv != 0.0 for s in steps):
        return None
    index = {s.name: k for k, s in enumerate(network.stations)}
    copies = np.array([int(s.copies) for s in network.stations], dtype=np.int64)
    servers = np.array([int(s.servers) for s in network.stations], dtype=np.int64)
    base = np.concatenate(([0], np.cumsum(copies)[:-1])).astype(np.int64)
    unit_station = np.repeat(np.arange(len(copies), dtype=np.int64), copies)
    station_kind = _station_kinds(network, index, copies)
    counts = None if station_kind is None else _dies_and_channels(copies, station_kind)
    if counts is None:
        return None
    dies, channels = counts
    per_req = np.array([bool(s.per_request) for s in steps], dtype=np.int64)
    block_end = fork_join_block_ends(per_req)
    routing = _step_routing(network, index, copies)
    channel_needed = _channel_needed(routing, per_req, block_end)
    service = _service_table(network)
    probs = np.asarray(network.request_probs, dtype=float)
    trans = np.asarray(network.transactions, dtype=np.int64)
    tx_pool = int(trans[probs > 0].max()) if np.any(per_req == 0) else 0
    prob = np.array([float(s.probability) for s in steps])
    breakpoints = np.unique(np.concatenate(([0.0, 1.0], prob)))
    station, ops, follow = _step_columns(network, index)
    ints = (station, routing, per_req, ops, follow, block_end, channel_needed, servers, copies, base, unit_station,
            station_kind, trans)
    scalars = np.array([int(network.queue_depth), tx_pool, dies, channels, len(copies), len(unit_station)],
                       dtype=np.int64)
    return _Route(ints=ints, service=service, delay=np.array([float(s.delay_us) for s in steps]), prob=prob,
                  breakpoints=breakpoints, size_probs=probs, scalars=scalars,
                  read_fraction=float(network.read_fraction))


# --------------------------------------------------------------------------------------------------
# The compiled recursion. Working state (one network's jobs; J = N (1 + T_pool) job slots, requests
# first, then T_pool transaction slots per request):
#   job[j] = (step, phase, die, unit, u_lo, u_hi)  phase 0: at the station (queued or served), 1: after it;
#            u_lo, u_hi index the breakpoints: the interval the job's last probability draw lies in
#   req[r] = (op, size, outstanding transactions)
#   ev_t, ev_s, ev_j, pending events (time, scheduling sequence, job); at most one per job
#   qb[unit, :ql[unit]]  FCFS queue of each station copy; busy[unit] servers busy
#   stj, sts: jobs entering a step at the current time (a stack, as the DES's)
#   sc = [events pending, next sequence, stack height, draws made, prefix length]; now[0] = time
# --------------------------------------------------------------------------------------------------
J_STEP, J_PHASE, J_DIE, J_UNIT, J_ULO, J_UHI = 0, 1, 2, 3, 4, 5
S_NEV, S_SEQ, S_NSTACK, S_NDRAW, S_NPRE = 0, 1, 2, 3, 4

# The kernels below, all but _explore, _decode and the growing helpers (which allocate), are compiled without
# numba's reference counting (``_nrt=False``): they only read and write the arrays _explore owns, and each
# array passed or viewed in a counted function costs an atomic increment and decrement. With counting, those
# counts are most of the exploring time (about 75 % under perf); without them, and with _event's 47 arguments
# passed packed (_event_packed), exploring is faster, the answers bit for bit the same (benchmarks/speed.py
# schedule-chain measures the counted and uncounted kernels side by side). ``_nrt`` is a numba option its own tests
# use, not a documented one:
# a function compiled so that needs the runtime (an allocation) fails to compile, it cannot go wrong quietly.

@nb.njit(cache=True, _nrt=False)
def _draw(weights, nw, sc, prefix, taken, options, prob):
    """The oracle: the prefix's choice at this draw, else option 0; records the draw."""
    d = sc[S_NDRAW]
    k = prefix[d] if d < sc[S_NPRE] else 0
    taken[d] = k
    options[d] = nw
    prob[0] *= weights[k]
    sc[S_NDRAW] = d + 1
    return k


@nb.njit(cache=True, _nrt=False)
def _push(t, j, ev_t, ev_s, ev_j, sc):
    n = sc[S_NEV]
    ev_t[n] = t
    ev_s[n] = sc[S_SEQ]
    ev_j[n] = j
    sc[S_NEV] = n + 1
    sc[S_SEQ] += 1


@nb.njit(cache=True, _nrt=False)
def _needs_exact(job, j, routing):
    return routing[job[j, J_STEP]] == _UNIFORM and job[j, J_PHASE] == 0


@nb.njit(cache=True, _nrt=False)
def _needs_channel(job, j, routing, channel_needed):
    s = job[j, J_STEP]
    return (routing[s] == _DIE_CHANNEL and job[j, J_PHASE] == 0) or channel_needed[s] == 1


@nb.njit(cache=True, _nrt=False)
def _mark(j, job, routing, channel_needed, channels, exact, used_class):
    d = job[j, J_DIE]
    if d < 0:
        return
    if _needs_exact(job, j, routing):
        exact[d] = 1
        used_class[d % channels] = 1
    elif _needs_channel(job, j, routing, channel_needed):
        used_class[d % channels] = 1


@nb.njit(cache=True, _nrt=False)
def _draw_die(job, ev_j, qb, ql, stj, sc, routing, channel_needed, dies, channels,
              prefix, taken, options, prob, wbuf, obuf):
    """A uniform die; dies no job refers to are collapsed by symmetry (module docstring). ``obuf`` holds
    2 dies + 2 options, then dies + channels marks."""
    exact = obuf[2 * dies + 2:3 * dies + 2]
    used_class = obuf[3 * dies + 2:3 * dies + 2 + channels]
    exact[:] = 0
    used_class[:] = 0
    for e in range(sc[S_NEV]):
        _mark(ev_j[e], job, routing, channel_needed, channels, exact, used_class)
    for u in range(ql.shape[0]):
        for q in range(ql[u]):
            _mark(qb[u, q], job, routing, channel_needed, channels, exact, used_class)
    for q in range(sc[S_NSTACK]):
        _mark(stj[q], job, routing, channel_needed, channels, exact, used_class)
    per = dies // channels
    n = 0
    for d in range(dies):
        if exact[d] == 1:
            obuf[n] = d
            wbuf[n] = 1.0 / dies
            n += 1
    free_classes = 0
    for cl in range(channels):
        if used_class[cl] == 0:
            free_classes += 1
            continue
        used = 0
        first = -1
        for i in range(per):
            if exact[cl + channels * i] == 1:
                used += 1
            elif first < 0:
                first = cl + channels * i
        if used < per:
            obuf[n] = first
            wbuf[n] = (per - used) / dies
            n += 1
    if free_classes > 0:
        for cl in range(channels):
            if used_class[cl] == 0:
                obuf[n] = cl
                wbuf[n] = free_classes * per / dies
                n += 1
                break
    if n == 1:
        return obuf[0]
    return obuf[_draw(wbuf, n, sc, prefix, taken, options, prob)]


@nb.njit(cache=True, _nrt=False)
def _draw_request(read_fraction, size_probs, sc, prefix, taken, options, prob, wbuf):
    op = 0
    if read_fraction <= 0.0:
        op = 1
    elif read_fraction < 1.0:
        wbuf[0] = read_fraction
        wbuf[1] = 1.0 - read_fraction
        op = _draw(wbuf, 2, sc, prefix, taken, options, prob)
    size = 0
    if size_probs.shape[0] > 1:
        for k in range(size_probs.shape[0]):
            wbuf[k] = size_probs[k]
        size = _draw(wbuf, size_probs.shape[0], sc, prefix, taken, options, prob)
    return op, size


@nb.njit(cache=True, _nrt=False)
def _enter(now, job, req, ev_t, ev_s, ev_j, qb, ql, busy, jq, stj, sts, sc, visits, queued,
           station, routing, per_req, ops, follow, servers, copies, base, trans, channel_needed,
           service, delay, prob_step, breakpoints, n_req, tx_pool, dies, channels,
           prefix, taken, options, prob, wbuf, obuf):
    """Jobs on the stack enter their steps at time ``now`` (the DES's entering loop)."""
    while sc[S_NSTACK] > 0:
        sc[S_NSTACK] -= 1
        j = stj[sc[S_NSTACK]]
        s = sts[sc[S_NSTACK]]
        job[j, J_STEP] = s
        if j < n_req and per_req[s] == 0:  # a request forks into its transactions
            T = trans[req[j, 1]]
            req[j, 2] = T
            tb = n_req + j * tx_pool
            for k in range(T - 1, -1, -1):
                job[tb + k, J_DIE] = -1
                job[tb + k, J_ULO] = 0
                job[tb + k, J_UHI] = breakpoints.shape[0] - 1
                stj[sc[S_NSTACK]] = tb + k
                sts[sc[S_NSTACK]] = s
                sc[S_NSTACK] += 1
            continue
        r = j if j < n_req else (j - n_req) // tx_pool
        op = req[r, 0]
        size = req[r, 1]
        skip = ops[s] != 0 and ops[s] != op + 1
        if not skip and prob_step[s] < 1.0:
            p = prob_step[s]
            lo = breakpoints[job[j, J_ULO]] if follow[s] == 1 else 0.0
            hi = breakpoints[job[j, J_UHI]] if follow[s] == 1 else 1.0
            if p <= lo:
                skip = True
            elif p >= hi:
                skip = False
            else:
                w = (p - lo) / (hi - lo)
                wbuf[0] = w
                wbuf[1] = 1.0 - w
                skip = _draw(wbuf, 2, sc, prefix, taken, options, prob) == 1
            pi = np.searchsorted(breakpoints, p)
            lo_i = np.searchsorted(breakpoints, lo)
            hi_i = np.searchsorted(breakpoints, hi)
            if skip:
                job[j, J_ULO] = max(pi, lo_i)
                job[j, J_UHI] = hi_i
            else:
                job[j, J_ULO] = lo_i
                job[j, J_UHI] = min(pi, hi_i)
        if skip:
            job[j, J_PHASE] = 1
            _push(now, j, ev_t, ev_s, ev_j, sc)
            continue
        st = station[s]
        svc = service[s, op, size]
        if st < 0:
            job[j, J_PHASE] = 1
            _push(now + svc + delay[s], j, ev_t, ev_s, ev_j, sc)
            continue
        rt = routing[s]
        if rt == _SINGLE:
            u = base[st]
        elif rt == _UNIFORM:
            job[j, J_DIE] = -1
            d = _draw_die(job, ev_j, qb, ql, stj, sc, routing, channel_needed, dies, channels,
                          prefix, taken, options, prob, wbuf, obuf)
            job[j, J_DIE] = d
            u = base[st] + d
        else:
            d = job[j, J_DIE]
            if d < 0:  # its die step was skipped: any die
                d = _draw_die(job, ev_j, qb, ql, stj, sc, routing, channel_needed, dies, channels,
                              prefix, taken, options, prob, wbuf, obuf)
                job[j, J_DIE] = d
            u = base[st] + d % copies[st]
        job[j, J_UNIT] = u
        job[j, J_PHASE] = 0
        visits[st] += 1.0
        if busy[u] < servers[st]:
            busy[u] += 1
            _push(now + svc, j, ev_t, ev_s, ev_j, sc)
        else:
            qb[u, ql[u]] = j
            ql[u] += 1
            jq[j] = now


@nb.njit(cache=True, _nrt=False)
def _event(now, job, req, ev_t, ev_s, ev_j, qb, ql, busy, jq, stj, sts, sc, visits, queued,
           station, routing, per_req, ops, follow, servers, copies, base, trans, channel_needed, block_end,
           service, delay, prob_step, breakpoints, n_req, tx_pool, dies, channels, read_fraction, size_probs,
           prefix, taken, options, prob, wbuf, obuf):
    """Pop the earliest event and process what it sets in motion (the DES's loop body); requests completed."""
    best = 0
    for e in range(1, sc[S_NEV]):
        if ev_t[e] < ev_t[best] or (ev_t[e] == ev_t[best] and ev_s[e] < ev_s[best]):
            best = e
    t = ev_t[best]
    j = ev_j[best]
    last = sc[S_NEV] - 1
    ev_t[best] = ev_t[last]
    ev_s[best] = ev_s[last]
    ev_j[best] = ev_j[last]
    sc[S_NEV] = last
    now[0] = t
    s = job[j, J_STEP]
    if job[j, J_PHASE] == 0:
        u = job[j, J_UNIT]
        if ql[u] > 0:
            h = qb[u, 0]
            for q in range(1, ql[u]):
                qb[u, q - 1] = qb[u, q]
            ql[u] -= 1
            if t - jq[h] > WAIT_RESOLUTION_US:  # a job served at the instant it queued has not waited
                queued[station[job[h, J_STEP]]] += 1.0
            rh = h if h < n_req else (h - n_req) // tx_pool
            _push(t + service[job[h, J_STEP], req[rh, 0], req[rh, 1]], h, ev_t, ev_s, ev_j, sc)
        else:
            busy[u] -= 1
        if delay[s] > 0.0:
            job[j, J_PHASE] = 1
            _push(t + delay[s], j, ev_t, ev_s, ev_j, sc)
            return 0
    nxt = s + 1
    done = 0
    if j >= n_req:
        if nxt < block_end[s]:
            stj[sc[S_NSTACK]] = j
            sts[sc[S_NSTACK]] = nxt
            sc[S_NSTACK] += 1
            nxt = -1
        else:
            r = (j - n_req) // tx_pool
            req[r, 2] -= 1
            if req[r, 2] > 0:
                nxt = -1
            else:
                j = r
                nxt = block_end[s]
    if nxt >= 0:
        if nxt >= station.shape[0]:  # the request completes and is issued again at once
            done = 1
            op, size = _draw_request(read_fraction, size_probs, sc, prefix, taken, options, prob, wbuf)
            req[j, 0] = op
            req[j, 1] = size
            job[j, J_ULO] = 0
            job[j, J_UHI] = breakpoints.shape[0] - 1
            nxt = 0
        stj[sc[S_NSTACK]] = j
        sts[sc[S_NSTACK]] = nxt
        sc[S_NSTACK] += 1
    _enter(t, job, req, ev_t, ev_s, ev_j, qb, ql, busy, jq, stj, sts, sc, visits, queued,
           station, routing, per_req, ops, follow, servers, copies, base, trans, channel_needed,
           service, delay, prob_step, breakpoints, n_req, tx_pool, dies, channels,
           prefix, taken, options, prob, wbuf, obuf)
    return done


@nb.njit(cache=True, _nrt=False)
def _event_packed(now, job, req, ev_t, ev_s, ev_j, qb, ql, busy, jq, stj, sts, sc, visits, queued, fixed, draws):
    """:func:`_event` with its fixed and draw arguments packed in two tuples. A call of more than 30 arguments
    passes them as one tuple built at each call (CPython's bytecode for long calls), and in a function with
    reference counting that tuple costs an atomic increment and decrement per array."""
    (station, routing, per_req, ops, follow, servers, copies, base, trans, channel_needed, block_end, service,
     delay, prob_step, breakpoints, n_req, tx_pool, dies, channels, read_fraction, size_probs) = fixed
    prefix, taken, options, prob, wbuf, obuf = draws
    return _event(now, job, req, ev_t, ev_s, ev_j, qb, ql, busy, jq, stj, sts, sc, visits, queued,
                  station, routing, per_req, ops, follow, servers, copies, base, trans, channel_needed, block_end,
                  service, delay, prob_step, breakpoints, n_req, tx_pool, dies, channels, read_fraction, size_probs,
                  prefix, taken, options, prob, wbuf, obuf)


@nb.njit(cache=True, _nrt=False)
def _describe(j, job, key, p, lab_req, lab_cls, lab_die, per_class, routing, channel_needed, n_req, tx_pool,
              dies, channels):
    """Append job j's canonical description (DESC ints) to ``key`` at ``p``."""
    r = j if j < n_req else (j - n_req) // tx_pool
    if lab_req[r] < 0:
        lab_req[r] = lab_req[n_req]
        lab_req[n_req] += 1
    d = job[j, J_DIE]
    dl = -1
    if d >= 0:
        exact = _needs_exact(job, j, routing)
        if exact or _needs_channel(job, j, routing, channel_needed):
            cl = d % channels
            if lab_cls[cl] < 0:
                lab_cls[cl] = lab_cls[channels]
                lab_cls[channels] += 1
            ncl = lab_cls[cl]
            if exact:
                if lab_die[d] < 0:
                    lab_die[d] = ncl + channels * per_class[ncl]
                    per_class[ncl] += 1
                dl = lab_die[d]
            else:
                dl = ncl + channels * (dies // channels + 1)  # only its channel matters
    key[p] = lab_req[r]
    key[p + 1] = 1 if j < n_req else 0
    key[p + 2] = job[j, J_STEP]
    key[p + 3] = job[j, J_PHASE]
    key[p + 4] = dl
    key[p + 5] = job[j, J_ULO]
    key[p + 6] = job[j, J_UHI]
    return p + DESC


@nb.njit(cache=True, _nrt=False)
def _canonical(now, job, req, ev_t, ev_s, ev_j, qb, ql, jq, sc, routing, channel_needed, base, unit_station,
               station_kind, n_req, tx_pool, dies, channels, grid, key, times, work):
    """The canonical key of the state (ints; remaining times on the grid) and, in key order, the exact remaining
    times of its events and the (negative) times since its queued jobs queued; returns (key length, number of
    times, hash)."""
    nev = sc[S_NEV]
    nunits = ql.shape[0]
    lab_req = work[:n_req + 1]
    lab_cls = work[n_req + 1:n_req + channels + 2]
    lab_die = work[n_req + channels + 2:n_req + channels + dies + 2]
    per_class = work[n_req + channels + dies + 2:n_req + 2 * channels + dies + 2]
    order = work[n_req + 2 * channels + dies + 2:n_req + 2 * channels + dies + 2 + nev]
    rest = work[n_req + 2 * channels + dies + 2 + nev:]
    lab_req[:] = -1
    lab_req[n_req] = 0  # the next label
    lab_cls[:] = -1
    lab_cls[channels] = 0
    lab_die[:] = -1
    per_class[:] = 0
    # events by (time, sequence): insertion sort (a few events)
    for i in range(nev):
        e = i
        k = i
        while k > 0:
            f = order[k - 1]
            if ev_t[f] < ev_t[e] or (ev_t[f] == ev_t[e] and ev_s[f] < ev_s[e]):
                break
            order[k] = f
            k -= 1
        order[k] = e
    p = 0
    key[p] = nev
    p += 1
    for i in range(nev):
        e = order[i]
        rel = ev_t[e] - now
        times[i] = rel
        key[p] = np.int64(np.floor(rel / grid + 0.5))
        p = _describe(ev_j[e], job, key, p + 1, lab_req, lab_cls, lab_die, per_class, routing, channel_needed,
                      n_req, tx_pool, dies, channels)
    qs = rest[:nunits]
    ql_lab = rest[nunits:2 * nunits]
    nq = 0
    for u in range(nunits):
        if ql[u] == 0:
            continue
        st = unit_station[u]
        copy = u - base[st]
        lab = 0
        if station_kind[st] == _UNIFORM:
            if lab_die[copy] < 0:  # not reached: a queued die has its served job among the events
                lab_die[copy] = dies + copy
            lab = lab_die[copy]
        elif station_kind[st] == _DIE_CHANNEL:
            if lab_cls[copy] < 0:
                lab_cls[copy] = channels + copy
            lab = lab_cls[copy]
        # insertion by label
        v = st * (4 * dies + 4) + lab
        k = nq
        while k > 0 and ql_lab[k - 1] > v:
            ql_lab[k] = ql_lab[k - 1]
            qs[k] = qs[k - 1]
            k -= 1
        ql_lab[k] = v
        qs[k] = u
        nq += 1
    key[p] = nq
    p += 1
    nt = nev
    for i in range(nq):
        u = qs[i]
        key[p] = ql_lab[i]
        key[p + 1] = ql[u]
        p += 2
        for q in range(ql[u]):
            times[nt] = jq[qb[u, q]] - now
            # whether it queued at this instant (served now, it has not waited): the dynamics do not depend on
            # it, the count of visits that wait does
            key[p] = 1 if times[nt] > -WAIT_RESOLUTION_US else 0
            nt += 1
            p = _describe(qb[u, q], job, key, p + 1, lab_req, lab_cls, lab_die, per_class, routing,
                          channel_needed, n_req, tx_pool, dies, channels)
    inverse = rest[2 * nunits:2 * nunits + n_req]
    for r in range(n_req):
        inverse[lab_req[r]] = r
    for k in range(n_req):
        r = inverse[k]
        key[p] = req[r, 0]
        key[p + 1] = req[r, 1]
        key[p + 2] = req[r, 2]
        p += 3
    h = np.uint64(14695981039346656037)
    for i in range(p):
        h = (h ^ np.uint64(key[i] & 0xFFFFFFFFFFFF)) * np.uint64(1099511628211)
    return p, nt, np.int64(h >> np.uint64(1))


@nb.njit(cache=True)
def _decode(key, times, job, req, ev_t, ev_s, ev_j, qb, ql, busy, jq, sc, station, routing, copies, base, n_req,
            tx_pool, dies, channels):
    """Set the working state to the stored state (its time is 0)."""
    _fill(job, 0)
    job[:, J_DIE] = -1
    job[:, J_UHI] = 0
    _fill(ql, 0)
    _fill(busy, 0)
    _fill(sc, 0)
    # the requests' part is at the key's end: find it by walking the key
    nev = key[0]
    p = 1 + nev * (1 + DESC)
    nq = key[p]
    p += 1
    for i in range(nq):
        p += 2 + key[p + 1] * (1 + DESC)
    for r in range(n_req):
        req[r, 0] = key[p]
        req[r, 1] = key[p + 1]
        req[r, 2] = key[p + 2]
        p += 3
    next_tx = np.zeros(n_req, dtype=np.int64)
    p = 1
    for i in range(nev):
        j = _job_from(key, p + 1, job, next_tx, station, routing, copies, base, n_req, tx_pool)
        _push(times[i], j, ev_t, ev_s, ev_j, sc)
        if job[j, J_PHASE] == 0 and station[job[j, J_STEP]] >= 0:
            busy[job[j, J_UNIT]] += 1
        p += 1 + DESC
    p += 1
    nt = nev
    for i in range(nq):
        length = key[p + 1]
        p += 2
        for q in range(length):
            j = _job_from(key, p + 1, job, next_tx, station, routing, copies, base, n_req, tx_pool)
            u = job[j, J_UNIT]
            qb[u, ql[u]] = j
            ql[u] += 1
            jq[j] = times[nt]
            nt += 1
            p += 1 + DESC


@nb.njit(cache=True, _nrt=False)
def _job_from(key, p, job, next_tx, station, routing, copies, base, n_req, tx_pool):
    r = key[p]
    if key[p + 1] == 1:
        j = r
    else:
        j = n_req + r * tx_pool + next_tx[r]
        next_tx[r] += 1
    s = key[p + 2]
    job[j, J_STEP] = s
    job[j, J_PHASE] = key[p + 3]
    job[j, J_DIE] = key[p + 4]
    job[j, J_ULO] = key[p + 5]
    job[j, J_UHI] = key[p + 6]
    st = station[s]
    if key[p + 3] == 0 and st >= 0:
        if routing[s] == _SINGLE:
            job[j, J_UNIT] = base[st]
        elif routing[s] == _UNIFORM:
            job[j, J_UNIT] = base[st] + key[p + 4]
        else:
            job[j, J_UNIT] = base[st] + key[p + 4] % copies[st]
    return j


@nb.njit(cache=True)
def _grow(a, need):
    """``a`` (1-D) with room for ``need`` entries: itself, or a copy of at least twice its length."""
    if need <= a.shape[0]:
        return a
    b = np.empty(max(need, 2 * a.shape[0]), dtype=a.dtype)
    b[:a.shape[0]] = a
    return b


@nb.njit(cache=True)
def _grow_f2(a, need):
    if need <= a.shape[0]:
        return a
    b = np.zeros((max(need, 2 * a.shape[0]), a.shape[1]))
    b[:a.shape[0]] = a
    return b


@nb.njit(cache=True, _nrt=False)
def _fill(dst, value):
    """dst[:] = value, without reference counting (a view made here is not counted)."""
    dst[:] = value


@nb.njit(cache=True, _nrt=False)
def _copy1(dst, src):
    """dst[:] = src (1-D, same length), without reference counting."""
    for i in range(dst.shape[0]):
        dst[i] = src[i]


@nb.njit(cache=True, _nrt=False)
def _copy2(dst, src):
    """dst[:, :] = src (2-D, same shape), without reference counting."""
    for i in range(dst.shape[0]):
        for k in range(dst.shape[1]):
            dst[i, k] = src[i, k]


@nb.njit(cache=True, _nrt=False)
def _add_scaled(acc, x, w):
    """acc += x * w (1-D), without a temporary array."""
    for i in range(acc.shape[0]):
        acc[i] += x[i] * w


@nb.njit(cache=True, _nrt=False)
def _same_key(rep_key, rep_koff, k, key, klen):
    """Whether stored state k's key is ``key[:klen]``."""
    a = rep_koff[k]
    if rep_koff[k + 1] - a != klen:
        return False
    for i in range(klen):
        if rep_key[a + i] != key[i]:
            return False
    return True


@nb.njit(cache=True, _nrt=False)
def _next_event(ev_t, ev_s, sc):
    """Index of the earliest pending event (ties in scheduling order)."""
    best = 0
    for e in range(1, sc[S_NEV]):
        if ev_t[e] < ev_t[best] or (ev_t[e] == ev_t[best] and ev_s[e] < ev_s[best]):
            best = e
    return best


@nb.njit(cache=True, _nrt=False)
def _step_may_draw(s, routing, prob_step):
    return routing[s] != _SINGLE or prob_step[s] < 1.0


@nb.njit(cache=True, _nrt=False)
def _may_draw(j, job, req, routing, per_req, block_end, prob_step, delay, n_req, tx_pool, request_draws):
    """Whether the event of job j can draw (conservative): the steps it, or its request after the join, or a
    request reissued after completing, enters next."""
    s = job[j, J_STEP]
    if job[j, J_PHASE] == 0 and delay[s] > 0.0:
        return False  # it only starts its delay (and a queued job's service)
    nxt = s + 1
    if j >= n_req:
        if nxt < block_end[s]:
            return _step_may_draw(nxt, routing, prob_step)
        if req[(j - n_req) // tx_pool, 2] > 1:
            return False  # its siblings are still out
        nxt = block_end[s]
    if nxt >= routing.shape[0]:
        return request_draws or _step_may_draw(0, routing, prob_step)
    return _step_may_draw(nxt, routing, prob_step)


@nb.njit(cache=True, _nrt=False)
def _occupancy(job, ev_j, ql, sc, station, unit_station, jobs, busy_now):
    """Jobs (queued or served) and busy servers at each station now."""
    jobs[:] = 0.0
    busy_now[:] = 0.0
    for e in range(sc[S_NEV]):
        jj = ev_j[e]
        if job[jj, J_PHASE] == 0:
            st = station[job[jj, J_STEP]]
            if st >= 0:
                jobs[st] += 1.0
                busy_now[st] += 1.0
    for u in range(ql.shape[0]):
        jobs[unit_station[u]] += ql[u]


@nb.njit(cache=True)
def _explore(station, routing, per_req, ops, follow, block_end, channel_needed, servers, copies, base,
             unit_station, station_kind, trans, service, delay, prob_step, breakpoints, size_probs, scalars,
             read_fraction, grid, max_states, max_segment):
    """Build the chain. A state is kept at the instant of its first pending event (nothing changes between a
    draw and the next event, so states that differ only in the time since the draw are one). Returns status,
    the transitions (from, to, probability), the start's distribution and per state the expected time to the
    next state, completions, job-time and busy-time integrals per station, visits and queued visits per
    station.

    A state from which ``max_segment`` events pass without a draw has entered a draw-free orbit: the whole
    exploration stops with NO_DRAWS (:func:`attempt_chain`)."""
    n_req, tx_pool, dies, channels, nst, nunits = (scalars[0], scalars[1], scalars[2], scalars[3], scalars[4],
                                                   scalars[5])
    request_draws = (0.0 < read_fraction < 1.0) or size_probs.shape[0] > 1
    nj = n_req * (1 + tx_pool)
    job = np.zeros((nj, 6), dtype=np.int64)
    req = np.zeros((n_req, 3), dtype=np.int64)
    ev_t = np.zeros(nj)
    ev_s = np.zeros(nj, dtype=np.int64)
    ev_j = np.zeros(nj, dtype=np.int64)
    qb = np.zeros((nunits, nj), dtype=np.int64)
    ql = np.zeros(nunits, dtype=np.int64)
    busy = np.zeros(nunits, dtype=np.int64)
    jq = np.zeros(nj)  # when each queued job queued
    stj = np.zeros(2 * nj + 2, dtype=np.int64)
    sts = np.zeros(2 * nj + 2, dtype=np.int64)
    sc = np.zeros(5, dtype=np.int64)
    now = np.zeros(1)
    # a snapshot before the event that draws
    job0 = job.copy()
    req0 = req.copy()
    ev_t0 = ev_t.copy()
    ev_s0 = ev_s.copy()
    ev_j0 = ev_j.copy()
    qb0 = qb.copy()
    ql0 = ql.copy()
    busy0 = busy.copy()
    jq0 = jq.copy()
    sc0 = sc.copy()
    prefix = np.zeros(MAX_DRAWS, dtype=np.int64)
    taken = np.zeros(MAX_DRAWS, dtype=np.int64)
    options = np.zeros(MAX_DRAWS, dtype=np.int64)
    prob = np.ones(1)
    wbuf = np.zeros(max(2 * dies + 2, size_probs.shape[0] + 2))
    obuf = np.zeros(3 * dies + 2 + channels, dtype=np.int64)
    pending = np.zeros((4096, MAX_DRAWS), dtype=np.int64)  # choice prefixes still to run
    pending_len = np.zeros(4096, dtype=np.int64)
    visits = np.zeros(nst)
    queued = np.zeros(nst)
    jobs_now = np.zeros(nst)
    busy_now = np.zeros(nst)
    klen = 2 + nj * (1 + DESC) + nunits * 2 + nj * (1 + DESC) + 3 * n_req + 4
    key = np.zeros(klen, dtype=np.int64)
    times = np.zeros(2 * nj)
    work = np.zeros(2 * n_req + 3 * channels + dies + 3 + nj + 2 * nunits, dtype=np.int64)
    # the states: keys and exact times, flat
    rep_key = np.zeros(1024 * klen, dtype=np.int64)
    rep_koff = np.zeros(1025, dtype=np.int64)
    rep_time = np.zeros(1024 * nj)
    rep_toff = np.zeros(1025, dtype=np.int64)
    table = Dict.empty(key_type=types.int64, value_type=types.int64)
    n_states = 0
    tr_from = np.zeros(4096, dtype=np.int64)
    tr_to = np.zeros(4096, dtype=np.int64)
    tr_p = np.zeros(4096)
    n_tr = 0
    r_time = np.zeros(1024)
    r_done = np.zeros(1024)
    r_jobs = np.zeros((1024, nst))
    r_busy = np.zeros((1024, nst))
    r_visits = np.zeros((1024, nst))
    r_queued = np.zeros((1024, nst))
    init_to = np.zeros(4096, dtype=np.int64)
    init_p = np.zeros(4096)
    n_init = 0
    empty_i = np.zeros(0, dtype=np.int64)
    empty_f = np.zeros(0)
    empty_f2 = np.zeros((0, nst))
    seg_done = 0.0
    t_before = 0.0
    jobs_area = np.zeros(nst)
    busy_area = np.zeros(nst)
    seg_visits = np.zeros(nst)
    seg_queued = np.zeros(nst)
    # _event's fixed and draw arguments, passed packed (see _event_packed)
    fixed = (station, routing, per_req, ops, follow, servers, copies, base, trans, channel_needed, block_end,
             service, delay, prob_step, breakpoints, n_req, tx_pool, dies, channels, read_fraction, size_probs)
    draws = (prefix, taken, options, prob, wbuf, obuf)
    state = -1  # the state being expanded; -1: the start (all N requests drawn and issued at time 0)
    while True:
        # ---- from the state (its first event at time 0): run to the first event that may draw
        if state >= 0:
            _decode(rep_key[rep_koff[state]:rep_koff[state + 1]], rep_time[rep_toff[state]:rep_toff[state + 1]],
                    job, req, ev_t, ev_s, ev_j, qb, ql, busy, jq, sc, station, routing, copies, base, n_req,
                    tx_pool, dies, channels)
            now[0] = 0.0
            seg = 0
            _fill(jobs_area, 0.0)
            _fill(busy_area, 0.0)
            _fill(seg_visits, 0.0)
            _fill(seg_queued, 0.0)
            seg_done = 0.0
            while True:
                e = _next_event(ev_t, ev_s, sc)
                dt = ev_t[e] - now[0]
                if dt > 0.0:
                    _occupancy(job, ev_j, ql, sc, station, unit_station, jobs_now, busy_now)
                    _add_scaled(jobs_area, jobs_now, dt)
                    _add_scaled(busy_area, busy_now, dt)
                drawing = _may_draw(ev_j[e], job, req, routing, per_req, block_end, prob_step, delay, n_req,
                                    tx_pool, request_draws)
                if drawing:
                    _copy2(job0, job)
                    _copy2(req0, req)
                    _copy1(ev_t0, ev_t)
                    _copy1(ev_s0, ev_s)
                    _copy1(ev_j0, ev_j)
                    _copy2(qb0, qb)
                    _copy1(ql0, ql)
                    _copy1(busy0, busy)
                    _copy1(jq0, jq)
                    _copy1(sc0, sc)
                    t_before = now[0]
                sc[S_NDRAW] = 0
                sc[S_NPRE] = 0
                prob[0] = 1.0
                _fill(visits, 0.0)
                _fill(queued, 0.0)
                d = _event_packed(now, job, req, ev_t, ev_s, ev_j, qb, ql, busy, jq, stj, sts, sc, visits, queued,
                                  fixed, draws)
                seg_done += d
                if sc[S_NDRAW] > 0:
                    if not drawing:
                        return BUG, empty_i, empty_i, empty_f, empty_i, empty_f, empty_f, empty_f, empty_f2, \
                            empty_f2, empty_f2, empty_f2
                    break
                _add_scaled(seg_visits, visits, 1.0)
                _add_scaled(seg_queued, queued, 1.0)
                seg += 1
                if seg > max_segment:
                    return NO_DRAWS, empty_i, empty_i, empty_f, empty_i, empty_f, empty_f, empty_f, empty_f2, \
                        empty_f2, empty_f2, empty_f2
        else:
            _fill(job0, 0)
            job0[:, J_DIE] = -1
            job0[:, J_UHI] = breakpoints.shape[0] - 1
            _fill(ql0, 0)
            _fill(busy0, 0)
            _fill(sc0, 0)
            t_before = 0.0
        # ---- the drawing event, one run per outcome (depth-first over the choices)
        npend = 1
        pending_len[0] = 0
        while npend > 0:
            npend -= 1
            plen = pending_len[npend]
            for i in range(plen):
                prefix[i] = pending[npend, i]
            _copy2(job, job0)
            _copy2(req, req0)
            _copy1(ev_t, ev_t0)
            _copy1(ev_s, ev_s0)
            _copy1(ev_j, ev_j0)
            _copy2(qb, qb0)
            _copy1(ql, ql0)
            _copy1(busy, busy0)
            _copy1(jq, jq0)
            _copy1(sc, sc0)
            now[0] = t_before
            sc[S_NDRAW] = 0
            sc[S_NPRE] = plen
            prob[0] = 1.0
            _fill(visits, 0.0)
            _fill(queued, 0.0)
            if state >= 0:
                _event_packed(now, job, req, ev_t, ev_s, ev_j, qb, ql, busy, jq, stj, sts, sc, visits, queued,
                              fixed, draws)
            else:
                for r in range(n_req - 1, -1, -1):
                    op, size = _draw_request(read_fraction, size_probs, sc, prefix, taken, options, prob, wbuf)
                    req[r, 0] = op
                    req[r, 1] = size
                    stj[sc[S_NSTACK]] = r
                    sts[sc[S_NSTACK]] = 0
                    sc[S_NSTACK] += 1
                _enter(0.0, job, req, ev_t, ev_s, ev_j, qb, ql, busy, jq, stj, sts, sc, visits, queued,
                       station, routing, per_req, ops, follow, servers, copies, base, trans, channel_needed,
                       service, delay, prob_step, breakpoints, n_req, tx_pool, dies, channels,
                       prefix, taken, options, prob, wbuf, obuf)
            ndraw = sc[S_NDRAW]
            for depth in range(plen, ndraw):
                for alt in range(1, options[depth]):
                    if npend >= pending.shape[0]:
                        return TOO_MANY_STATES, empty_i, empty_i, empty_f, empty_i, empty_f, empty_f, empty_f, \
                            empty_f2, empty_f2, empty_f2, empty_f2
                    for i in range(depth):
                        pending[npend, i] = taken[i]
                    pending[npend, depth] = alt
                    pending_len[npend] = depth + 1
                    npend += 1
            # the outcome's state, kept at the instant of its first event
            t_next = ev_t[_next_event(ev_t, ev_s, sc)]
            klen_used, ntimes, h = _canonical(t_next, job, req, ev_t, ev_s, ev_j, qb, ql, jq, sc, routing,
                                              channel_needed, base, unit_station, station_kind, n_req, tx_pool,
                                              dies, channels, grid, key, times, work)
            target = -1
            while h in table:
                k = table[h]
                if _same_key(rep_key, rep_koff, k, key, klen_used):
                    target = k
                    break
                h += 1  # a hash collision: probe on
            if target < 0:
                if n_states >= max_states:
                    return TOO_MANY_STATES, empty_i, empty_i, empty_f, empty_i, empty_f, empty_f, empty_f, \
                        empty_f2, empty_f2, empty_f2, empty_f2
                target = n_states
                table[h] = target
                rep_koff = _grow(rep_koff, n_states + 2)
                rep_toff = _grow(rep_toff, n_states + 2)
                a = rep_koff[n_states]
                rep_key = _grow(rep_key, a + klen_used)
                rep_key[a:a + klen_used] = key[:klen_used]
                rep_koff[n_states + 1] = a + klen_used
                b = rep_toff[n_states]
                rep_time = _grow(rep_time, b + ntimes)
                rep_time[b:b + ntimes] = times[:ntimes]
                rep_toff[n_states + 1] = b + ntimes
                n_states += 1
                r_time = _grow(r_time, n_states)
                r_done = _grow(r_done, n_states)
                r_jobs = _grow_f2(r_jobs, n_states)
                r_busy = _grow_f2(r_busy, n_states)
                r_visits = _grow_f2(r_visits, n_states)
                r_queued = _grow_f2(r_queued, n_states)
                r_time[target] = 0.0
                r_done[target] = 0.0
                r_jobs[target, :] = 0.0
                r_busy[target, :] = 0.0
                r_visits[target, :] = 0.0
                r_queued[target, :] = 0.0
            p = prob[0]
            if state >= 0:
                tr_from = _grow(tr_from, n_tr + 1)
                tr_to = _grow(tr_to, n_tr + 1)
                tr_p = _grow(tr_p, n_tr + 1)
                tr_from[n_tr] = state
                tr_to[n_tr] = target
                tr_p[n_tr] = p
                n_tr += 1
                # this outcome's share: its visits, and from the draw to the next state's instant
                _occupancy(job, ev_j, ql, sc, station, unit_station, jobs_now, busy_now)
                gap = t_next - now[0]
                r_time[state] += p * t_next
                for x in range(nst):
                    r_visits[state, x] += p * visits[x]
                    r_queued[state, x] += p * queued[x]
                    r_jobs[state, x] += p * jobs_now[x] * gap
                    r_busy[state, x] += p * busy_now[x] * gap
            else:
                init_to = _grow(init_to, n_init + 1)
                init_p = _grow(init_p, n_init + 1)
                init_to[n_init] = target
                init_p[n_init] = p
                n_init += 1
        if state >= 0:
            r_done[state] += seg_done
            for x in range(nst):
                r_jobs[state, x] += jobs_area[x]
                r_busy[state, x] += busy_area[x]
                r_visits[state, x] += seg_visits[x]
                r_queued[state, x] += seg_queued[x]
        state += 1
        if state >= n_states:
            break
    return OK, tr_from[:n_tr], tr_to[:n_tr], tr_p[:n_tr], init_to[:n_init], init_p[:n_init], \
        r_time[:n_states], r_done[:n_states], r_jobs[:n_states], r_busy[:n_states], r_visits[:n_states], \
        r_queued[:n_states]


POWER_ITERATIONS = 20_000
POWER_TOLERANCE = 1e-13  # L1 change over one step of the lazy chain; its residual ||pi Q - pi||_1 is twice that
POWER_RATE_WINDOW = 1024  # steps over which the rate of convergence is measured (see _power_iteration)
# The iterative fallbacks (see _stationary): an incomplete LU of the pinned system (COLAMD order, entries below
# the drop tolerance times their column's norm dropped, at most the fill factor times the matrix's entries)
# preconditions restarted GMRES; first a sparse one, then, where it misses the tolerance, a denser one.
ILU_STEPS = ((1e-2, 3.0), (1e-4, 10.0))  # (drop tolerance, fill factor)
GMRES_RESTART = 50
# At most 16 cycles each: a 158,164-state closed class (QD 5, the 2 % grid) needs 5 cycles, and the exact LU
# behind it fills in for more than 15 minutes; a 313,864-state class needs 18 with the sparse incomplete LU (39 s)
# and 6 with the denser one (23 s).
GMRES_RESTARTS = 16
# The exact LU, the last fallback, only for closed classes of at most this many states: beyond it the factors may
# fill in without bound (above), and the chain then gives no answer (as one that outgrew its budget).
LU_MAX_STATES = 50_000


def _stationary(Q: sparse.csr_matrix) -> np.ndarray | None:
    """The stationary distribution of the irreducible stochastic matrix ``Q``, to an L1 residual
    ||pi Q - pi||_1 of at most 2 ``POWER_TOLERANCE``; None where the first two solvers miss it and ``Q`` has more
    than ``LU_MAX_STATES`` states. Three solvers, each tried where the one before fails:

    1. power iteration of the lazy chain (I + Q) / 2 (aperiodic, same distribution), which mixes in a few
       hundred to a few thousand steps on most of these chains (:func:`_power_iteration`);
    2. where it would not converge within ``POWER_ITERATIONS`` steps: GMRES on pi (Q - I) = 0 with the
       most likely state's pi pinned, preconditioned by an incomplete LU and started from the power
       iterate; the answer is kept where its residual meets the tolerance; a denser incomplete LU where the
       first misses it (``ILU_STEPS``);
    3. otherwise, up to ``LU_MAX_STATES`` states, the sparse LU solve of that pinned system, which is exact but
       may fill in (a row of ones for the normalisation would fill the factors in further).

    Timed: a 381,981-state closed class at QD 3 on the 10 % grid takes
    8.7 s (power iteration gives up after 2,048 steps; ILU-GMRES), where power iteration's full 20,000 steps and
    then the LU take 296 s. Of the 120 classes of at least 15,000 states that ``whatif`` solves on
    the sampled low-queue-depth designs, power iteration solves 116, ILU-GMRES 3 and the LU 1. ILU-GMRES is second:
    alone, from a uniform start, it is slower than power iteration on 116 of the 120 and misses the tolerance
    on 16.
    """
    m = Q.shape[0]
    QT = Q.T.tocsr()
    pi, converged = _power_iteration(QT)
    if converged:
        return pi
    k = int(np.argmax(pi))  # pinned: the most likely state so far, so no pi_j / pi_k overflows
    A = (QT - sparse.identity(m, format="csr")).tocoo()
    kept = A.row != k  # row k becomes pi_k = 1
    A = sparse.csc_matrix((np.append(A.data[kept], 1.0), (np.append(A.row[kept], k), np.append(A.col[kept], k))),
                          shape=(m, m))
    b = np.zeros(m)
    b[k] = 1.0
    for drop_tolerance, fill_factor in ILU_STEPS:
        x = _ilu_gmres(A, b, pi / pi[k], lambda x: np.abs(QT @ x - x).sum() <= 2 * POWER_TOLERANCE * x.sum(),
                       drop_tolerance, fill_factor)
        if x is not None:
            x = np.maximum(x, 0.0)  # GMRES leaves the least likely states at +-1e-30 or so
            return x / x.sum()
    if m > LU_MAX_STATES:
        return None
    pi = splu(A, permc_spec="MMD_AT_PLUS_A").solve(b)
    return pi / pi.sum()


def _power_iteration(QT: sparse.csr_matrix) -> tuple[np.ndarray, bool]:
    """Power iteration of the lazy chain from the uniform distribution: (iterate, converged). Converged where
    the L1 change over one step, checked every 32 steps, is below ``POWER_TOLERANCE``. Given up after
    ``POWER_ITERATIONS`` steps, or earlier where the rate at which the change fell over the last
    ``POWER_RATE_WINDOW`` steps, kept up, would not bring it below the tolerance within them: a chain that
    mixes slowly (the change on the 381,981-state class in :func:`_stationary` falls by a factor of 0.9 in
    2,000 steps)."""
    m = QT.shape[0]
    pi = np.full(m, 1.0 / m)
    window_start_change = None
    for it in range(POWER_ITERATIONS):
        new = 0.5 * (pi + QT @ pi)
        if it % 32 == 31:
            change = np.abs(new - pi).sum()
            if change < POWER_TOLERANCE:
                return new / new.sum(), True
            if (it + 1) % POWER_RATE_WINDOW == 0:
                if window_start_change is not None:
                    rate = change / window_start_change
                    if rate >= 1.0 or it + POWER_RATE_WINDOW * np.log(POWER_TOLERANCE / change) / np.log(rate) \
                            > POWER_ITERATIONS:
                        return new / new.sum(), False
                window_start_change = change
        pi = new
    return pi / pi.sum(), False


def _ilu_gmres(A: sparse.csc_matrix, b: np.ndarray, x0: np.ndarray, solved: Callable[[np.ndarray], bool],
               drop_tolerance: float, fill_factor: float) -> np.ndarray | None:
    """A solution of A x = b that ``solved`` accepts, by up to ``GMRES_RESTARTS`` cycles of GMRES(``GMRES_RESTART``)
    from ``x0``, preconditioned by an incomplete LU of A with this drop tolerance and fill factor (``spilu``); None
    where no cycle's end is accepted or the incomplete factorisation fails (a zero pivot)."""
    try:
        ilu = spilu(A, drop_tol=drop_tolerance, fill_factor=fill_factor, permc_spec="COLAMD")
    except RuntimeError:
        return None
    m = A.shape[0]
    preconditioner = LinearOperator((m, m), ilu.solve)
    x = x0
    for _ in range(GMRES_RESTARTS):
        x, _ = gmres(A, b, x0=x, M=preconditioner, rtol=1e-15, atol=0.0, restart=GMRES_RESTART, maxiter=1)
        if solved(x):
            return x
    return None


@dataclass(frozen=True)
class ChainSolution:
    """The chain's stationary figures. Per station (``network.stations`` order), summed over its copies:
    mean jobs (queued or served), mean busy servers, and the fraction of visits that queue.

    ``patterns``: (probability, throughput per us) of each long-run pattern the start can settle in, most
    likely first. Usually one; where the chain has several closed classes (a deterministic network can keep
    either of two orders for good), the figures are those of the most likely, as the DES, which settles in
    one of them, most often shows."""

    throughput_per_us: float
    response_us: float  # mean latency, N / X
    mean_jobs: np.ndarray
    busy_servers: np.ndarray
    p_wait: np.ndarray
    states: int
    grid_us: float
    seconds: float
    patterns: tuple[tuple[float, float], ...]
    # the throughput counted from the chain's completions, before :func:`_work_conserving` read it off the busy time
    counted_throughput_per_us: float | None = None
    # from the start (all N requests issued at time 0) until the requests enter a long-run pattern (a closed class):
    # the expected requests completed and time taken (us); 0 where the start is in a closed class already
    settle_requests: float = 0.0
    settle_us: float = 0.0

    @property
    def start_throughput_per_us(self) -> float | None:
        """The throughput over the start's transient (requests per us: ``settle_requests`` / ``settle_us``, counted
        from the chain's completions), or None where there is none. Where the start's pattern is left only
        after many requests (rarely, at a collision), a DES run shorter than that measures this, not the long run
        (docs/accuracy.md)."""
        return self.settle_requests / self.settle_us if self.settle_us > 0.0 else None


@dataclass(frozen=True)
class ChainAttempt:
    """What :func:`attempt_chain` found: the solution (None where there is none) and whether the chain applies
    to the network but outgrew the state budget on every grid tried, or its finest fit was not solved
    (:func:`_stationary`, ``LU_MAX_STATES``; then ``unsolved`` too). Either way the route MVA answers and whatif
    gives the same caveat, worded for which of the two it was (``trust_caveats``)."""

    solution: ChainSolution | None
    outgrown: bool
    unsolved: bool = False  # the finest grid that fit was not solved (outgrown is True as well)


def schedule_chain(network: Network, zero_load_us: float, *,
                   steps: tuple[GridStep, ...] | None = None) -> ChainSolution | None:
    """The stationary solution of the chain of ``network``, or None (:func:`attempt_chain`)."""
    return attempt_chain(network, zero_load_us, steps=steps).solution


def default_grid_steps(queue_depth: int) -> tuple[GridStep, ...]:
    """The (grid fraction, most states) steps :func:`attempt_chain` tries at ``queue_depth``: ``SHALLOW_GRID_STEPS``
    at queue depth 2, ``GRID_STEPS`` up to ``CHAIN_GRID_STEPS_MAX_QUEUE_DEPTH`` and ``HIGH_GRID_STEPS`` beyond."""
    if queue_depth <= SHALLOW_QUEUE_DEPTH:
        return SHALLOW_GRID_STEPS
    return GRID_STEPS if queue_depth <= CHAIN_GRID_STEPS_MAX_QUEUE_DEPTH else HIGH_GRID_STEPS


def chain_applies(network: Network) -> bool:
    """True where the chain of the requests' draws applies to ``network`` (closed, deterministic service, no
    background work, each station reached one way; the module docstring), whatever its size: what
    :func:`attempt_chain` would try before any state budget. ``whatif --fast`` uses it to say that it skipped
    the chain."""
    return _compile(network) is not None


def attempt_chain(network: Network, zero_load_us: float, *,
                  steps: tuple[GridStep, ...] | None = None) -> ChainAttempt:
    """The stationary solution of the chain of ``network`` (module docstring), on the finest lumping grid that
    fits. ``steps``: (grid as a fraction of ``zero_load_us``, one request's latency alone in us; most states),
    tried in turn until one fits, skipping those no coarser than one that outgrew as large a budget; after that
    only finer grids are tried, while they fit; a step marked ``REFINE_ONLY`` only after one fit within a
    ``REFINE_GROWTH``-th of its budget (default: :func:`default_grid_steps`). None where the chain does
    not apply, where the route draws nothing that matters, or where no step fits (then
    ``outgrown``). Answers are kept by their inputs
    (:func:`_recalled`): a network met again, under any station names, is not explored again."""
    route = _compile(network)
    if route is None or not zero_load_us > 0:
        return ChainAttempt(None, False)
    if steps is None:
        steps = default_grid_steps(network.queue_depth)
    t0 = time.perf_counter()
    found = _recalled(_Inputs(_memo_key(route, zero_load_us, steps), route, zero_load_us, tuple(steps)))
    if found.solution is None:
        return found
    solution = replace(found.solution, seconds=time.perf_counter() - t0)  # this call's time, recalled or not
    return replace(found, solution=_within_capacity(_work_conserving(solution, network), network))


@dataclass(frozen=True, eq=False)
class _Inputs:
    """What an exploration reads, hashed and compared by its digest (:func:`_memo_key`) alone, so that
    :func:`_recalled` can keep answers by it."""

    key: bytes
    route: _Route  # it holds the queue depth
    zero_load_us: float
    steps: tuple[GridStep, ...]

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other) -> bool:
        return isinstance(other, _Inputs) and other.key == self.key


# Answers by their inputs. The chain is a pure function of the compiled route, the grid and the budgets, and
# callers meet the same network again: each ``optimize`` call has its own cache of verified designs, so another
# call on the same device (other targets, the ILP re-solve variant, a sweep) verifies many of them anew, and
# designs that differ only where the queues do not see it share a network. On the search test's slowest example
# (tests/optimizer/test_search.py: two optimize calls and a brute force per example) about a third of the
# explorations repeat an earlier input, and the repeats take about 30 % of the time.
MEMO_SIZE = 4096


@lru_cache(maxsize=MEMO_SIZE)
def _recalled(inputs: _Inputs) -> ChainAttempt:
    """:func:`_attempt` on ``inputs``, kept for the most recently used ``MEMO_SIZE`` inputs."""
    return _attempt(inputs.route, inputs.zero_load_us, inputs.steps)


def _memo_key(route: _Route, zero_load_us: float, steps: tuple[GridStep, ...]) -> bytes:
    """A digest of everything :func:`_attempt` reads: the route's arrays (values, types, shapes), the latency
    that scales the grids and the steps."""
    h = hashlib.blake2b(digest_size=32)
    for a in (*route.ints, route.service, route.delay, route.prob, route.breakpoints, route.size_probs,
              route.scalars):
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    h.update(repr((float(route.read_fraction), float(zero_load_us), tuple(steps),
                   MAX_SEGMENT_EVENTS)).encode())
    return h.digest()


@dataclass(frozen=True)
class GridWalk:
    """Where :func:`walk_grid_steps` ended: the finest step that fit (``fraction`` and what its exploration
    returned; None if none fit), the steps that outgrew their budget, and whether an exploration failed
    otherwise (``aborted``: then there is no answer at all)."""

    fraction: float | None
    found: Any
    outgrown: tuple[tuple[float, int], ...]
    aborted: bool = False


def _skips_step(fraction: float, max_states: int, marks, best: tuple[float, Any] | None,
                outgrown: list[tuple[float, int]], skip: bool, states_of: Callable[[Any], int] | None) -> bool:
    """Whether :func:`walk_grid_steps` skips the step of grid ``fraction`` and budget ``max_states`` (states):
    a refine-only step without a small enough coarser fit, or (``skip``) one that a coarser grid's outgrowing
    or its fit's states show would outgrow its budget."""
    if REFINE_ONLY in marks and (best is None or (states_of is not None
                                                and states_of(best[1]) * REFINE_GROWTH > max_states)):
        return True  # a budget to refine an answer: no coarser grid gave one, or one too large for this budget
    if skip and any(f >= fraction and m >= max_states for f, m in outgrown):
        return True  # a grid as coarse outgrew as large a budget: this one would too
    if skip and best is not None and states_of is not None and states_of(best[1]) > max_states:
        return True  # a coarser grid needed more states than this budget: a finer one would outgrow it
    return False


def _collapse_refine(best: tuple[float, Any] | None, fits: list[tuple[int, int]],
                     explore: Callable[[float, int], tuple[int, Any]]) -> tuple[tuple[float, Any] | None, bool]:
    """(the finest fit, whether exploring aborted) after :func:`walk_grid_steps`' steps: where the finest grid
    closed on fewer states than a coarser one (``fits``: (states, most states) of each fit), a grid
    COLLAPSE_REFINE_FACTOR times finer explored within the same budget, taken where it fits; else ``best``."""
    if len(fits) >= 2 and fits[-1][0] < fits[-2][0]:
        # the finest grid closed on fewer states than a coarser one: its representatives fell into an orbit of their
        # own (COLLAPSE_REFINE_FACTOR); a grid that much finer, within the same budget, is taken where it fits
        fraction = best[0] / COLLAPSE_REFINE_FACTOR
        status, found = explore(fraction, fits[-1][1])
        if status == OK:
            return (fraction, found), False
        if status != TOO_MANY_STATES:
            return best, True
    return best, False


def walk_grid_steps(steps: Iterable[GridStep], explore: Callable[[float, int], tuple[int, Any]],
                    skip: bool = True, states_of: Callable[[Any], int] | None = None) -> GridWalk:
    """The step policy of :func:`attempt_chain`. ``steps`` are (grid fraction, most states) in the order to try
    them; ``explore(fraction, max_states)`` returns (status, result). Steps are tried in turn until one fits; a
    step no coarser than one that outgrew as large a budget is skipped (``skip``; GRID_STEPS), and so is one
    whose budget is smaller than the states a coarser grid needed (``states_of(result)``, where given:
    SHALLOW_GRID_STEPS, whose 10 % grid may fit beyond the finer grids' budget); after a fit only finer steps are
    tried, while they fit. A step marked ``REFINE_ONLY`` (a third item) is tried only after a coarser grid fit, and
    (where ``states_of`` is given) only where that fit needed at most 1 / ``REFINE_GROWTH`` of its budget. Where
    (with ``states_of``) the finest fit has fewer states than the fit before it, one grid ``COLLAPSE_REFINE_FACTOR``
    times finer is explored within the finest fit's budget, and taken where it fits.
    Exploring every step on its own instead gives the same answers at about twice the time."""
    best: tuple[float, Any] | None = None  # (fraction, result) of the finest step that fit so far
    outgrown: list[tuple[float, int]] = []  # (fraction, most states) of the steps that outgrew their budget
    fits: list[tuple[int, int]] = []  # (states, most states) of each step that fit, in order (with states_of)
    for fraction, max_states, *marks in steps:
        if best is not None and fraction >= best[0]:
            break  # the next steps are no finer than what fits
        if _skips_step(fraction, max_states, marks, best, outgrown, skip, states_of):
            continue
        status, found = explore(fraction, max_states)
        if status == TOO_MANY_STATES:
            if best is not None:
                break  # a finer grid than one that fit overflows: finer ones would too
            outgrown.append((fraction, max_states))
            continue
        if status != OK:
            return GridWalk(None, None, tuple(outgrown), aborted=True)
        best = (fraction, found)
        if states_of is not None:
            fits.append((states_of(found), max_states))
    best, aborted = _collapse_refine(best, fits, explore)
    if aborted:
        return GridWalk(None, None, tuple(outgrown), aborted=True)
    return GridWalk(*(best or (None, None)), tuple(outgrown))


def _attempt(route: _Route, zero_load_us: float, steps: tuple[GridStep, ...]) -> ChainAttempt:
    """:func:`attempt_chain` on a compiled route, before the capacity hold (its arrays read-only, as the
    answer is shared through :func:`_recalled`)."""

    def explore(fraction: float, max_states: int):
        found = _explore(*route.ints, route.service, route.delay, route.prob, route.breakpoints, route.size_probs,
                         route.scalars, route.read_fraction, fraction * zero_load_us, max_states,
                         MAX_SEGMENT_EVENTS)
        return found[0], found

    walk = walk_grid_steps(steps, explore, states_of=explored_states)
    if walk.aborted:
        return ChainAttempt(None, False)
    if walk.fraction is None:
        return ChainAttempt(None, bool(walk.outgrown))
    solution = _solve(walk.found, route.queue_depth, walk.fraction * zero_load_us)
    if solution is None:
        return ChainAttempt(None, True, unsolved=True)  # not solved within LU_MAX_STATES: as if it had outgrown
    for a in (solution.mean_jobs, solution.busy_servers, solution.p_wait):
        a.setflags(write=False)
    return ChainAttempt(solution, False)


def _work_conserving(solution: ChainSolution, network: Network) -> ChainSolution:
    """``solution`` with its throughput read off its busy time: X = sum_k B_k / sum_k D_k (per us), with B_k the
    chain's mean busy servers at station k (summed over its copies) and D_k one request's demand there (us, over
    the copies), so that the mean latency is N / X (Little's law) and the patterns move with it.

    Why. In the true process every station conserves work, B_k = X D_k. The lumped chain does not: its completions
    and its busy time are rewards of the representatives' exact times, and where lumping merges states whose phases
    matter the two disagree, most at the stations that hold most of a request's time. Each station then gives an
    estimate B_k / D_k of X; weighted by D_k they give X above. Against the DES (the chain's answers among the
    cached draws of docs/accuracy.md, 60,000-request runs): RMS IOPS error 0.33 % counted from completions, 0.28 %
    read off the busy time; on the 10 % grid 1.21 % and 0.61 %, on the 5 % grid 0.43 % and 0.36 %, on the finer
    grids the same to 0.01 points. On 4 KiB at QD 4, 70 % reads with 829 us programs over 36 planes (the chain on
    the 10 % grid; finer grids outgrow 2,000,000 states) the count is -5.8 % against a 1,000,000-request run, the
    dies 5.7 % busier than X D, and the busy time gives -0.6 %."""
    loads = network.loads()
    demand = np.array([ld.demand_us * ld.copies for ld in loads])
    index = {s.name: k for k, s in enumerate(network.stations)}
    busy = np.array([solution.busy_servers[index[ld.name]] for ld in loads])
    x = float(busy.sum() / demand.sum())
    ratio = x / solution.throughput_per_us
    return replace(solution, throughput_per_us=x, response_us=network.queue_depth / x,
                   patterns=tuple((w, y * ratio) for w, y in solution.patterns),
                   counted_throughput_per_us=solution.throughput_per_us)


def _within_capacity(solution: ChainSolution, network: Network) -> ChainSolution:
    """``solution`` with its throughputs held to the capacity bound min_k c_k / D_k (``bounds.py``), which no
    schedule exceeds: the bottleneck's busy servers are X D_k <= c_k. Lumping can break that law, since the
    completions and the busy time of lumped states come from different exact times: on a 10 % grid, 16 KiB
    reads at QD 4 behind one slow core running dispatch and complete have X D = 1.026 at that core, whose busy
    time the same chain put at 1.0 (the DES: 1.0, at the bound; ``configs/gallery/reads-over-a-coarse-grid.toml``).
    As the true throughput is at most the bound, the held answer is never further from it."""
    loads = network.loads()
    capacity = asymptotic_bounds([ld.name for ld in loads], [ld.demand_us for ld in loads],
                                 [ld.servers for ld in loads], [ld.copies for ld in loads], 0.0, None).capacity_per_us
    if solution.throughput_per_us <= capacity:
        return solution
    return replace(solution, throughput_per_us=capacity, response_us=network.queue_depth / capacity,
                   patterns=tuple((w, min(x, capacity)) for w, x in solution.patterns))


def explored_states(found) -> int:
    """The number of states of an exploration that fit its budget (what ``_explore`` returned with status OK)."""
    return found[6].shape[0]  # r_time, one entry per state (see _solve)


def _solve(found, n: int, grid: float) -> ChainSolution | None:
    """Stationary figures of the explored chain (the most likely closed class from the start); ``seconds`` is
    left 0 for :func:`attempt_chain`, which times each call, recalled or not. None where a closed class's
    stationary distribution is not solved (:func:`_stationary`)."""
    (_, tr_from, tr_to, tr_p, init_to, init_p, r_time, r_done, r_jobs, r_busy, r_visits, r_queued) = found
    m = r_time.shape[0]
    P = sparse.csr_matrix((tr_p, (tr_from, tr_to)), shape=(m, m))
    _, labels = csgraph.connected_components(P, directed=True, connection="strong")
    leaving = np.zeros(labels.max() + 1, dtype=bool)
    cross = labels[tr_from] != labels[tr_to]
    leaving[labels[tr_from[cross]]] = True
    closed = np.flatnonzero(~leaving)
    start = np.zeros(m)
    np.add.at(start, init_to, init_p)
    transient, visits_before = _transient_visits(P, start, labels, closed)
    absorbed = _absorption(P, start, labels, closed, transient, visits_before)
    solutions = []
    for k, weight in zip(closed, absorbed):
        members = np.flatnonzero(labels == k)
        pi = _stationary(P[members][:, members])
        if pi is None:
            return None
        total_time = float(pi @ r_time[members])
        solutions.append((weight, float(pi @ r_done[members]) / total_time, members, pi, total_time))
    # classes of one throughput (copies of one pattern under the symmetry the key does not see) add up
    patterns: list[list[float]] = []
    for weight, x, *_ in solutions:
        for pattern in patterns:
            if abs(pattern[1] / x - 1.0) < PATTERN_TOLERANCE:
                pattern[0] += weight
                break
        else:
            patterns.append([weight, x])
    # most likely first; where two are equally likely (to PATTERN_WEIGHT_DIGITS), the lower throughput: a DES run
    # shows either, and the lower one is the answer a design can be held to (e.g. two channels, where the start's
    # collision at one of them sends the requests to either pattern with probability 1/2)
    patterns.sort(key=lambda w_x: (-round(w_x[0], PATTERN_WEIGHT_DIGITS), w_x[1]))
    best = patterns[0][1]
    _, x, members, pi, total_time = max((s for s in solutions if abs(s[1] / best - 1.0) < PATTERN_TOLERANCE),
                                        key=lambda s: s[0])
    visits = pi @ r_visits[members]
    p_wait = np.divide(pi @ r_queued[members], visits, out=np.zeros_like(visits), where=visits > 0)
    return ChainSolution(throughput_per_us=x, response_us=n / x, mean_jobs=(pi @ r_jobs[members]) / total_time,
                         busy_servers=(pi @ r_busy[members]) / total_time, p_wait=p_wait, states=m, grid_us=grid,
                         seconds=0.0,
                         patterns=tuple((float(w), float(x_)) for w, x_ in patterns),
                         settle_requests=float(visits_before @ r_done[transient]),
                         settle_us=float(visits_before @ r_time[transient]))


def _transient_visits(P: sparse.csr_matrix, start: np.ndarray, labels: np.ndarray,
                      closed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The transient states (in no closed class) and the expected visits y to each from the distribution ``start``
    before the chain enters a closed class: (I - P_TT)^T y = start_T (the fundamental matrix of an absorbing
    chain, e.g. J. G. Kemeny and J. L. Snell, "Finite Markov Chains", 1960, ch. 3). Rewards summed over y give the
    expected totals before settling (``ChainSolution.settle_requests``)."""
    transient = np.flatnonzero(~np.isin(labels, closed))
    if len(transient) == 0 or start[transient].sum() <= 0.0:
        return transient, np.zeros(len(transient))
    A = (sparse.identity(len(transient), format="csr") - P[transient][:, transient]).T.tocsc()
    return transient, splu(A, permc_spec="MMD_AT_PLUS_A").solve(start[transient])


def _absorption(P: sparse.csr_matrix, start: np.ndarray, labels: np.ndarray, closed: np.ndarray,
                transient: np.ndarray, visits_before: np.ndarray) -> np.ndarray:
    """Probability of ending in each closed class from the distribution ``start``: with y the expected visits
    to the transient states (:func:`_transient_visits`), class C gets start_C + y P_TC 1."""
    if len(closed) == 1:
        return np.ones(1)
    out = np.array([start[labels == k].sum() for k in closed])
    if len(transient) and start[transient].sum() > 0:
        flow = sparse.csr_matrix(visits_before) @ P[transient]
        flow = np.asarray(flow.todense()).ravel()
        out += np.array([flow[labels == k].sum() for k in closed])
    return out / out.sum()
