"""The 99th-percentile latency estimate of an analytic answer (us).

A request is all reads or all writes, so its latency is a mixture of components, one per operation: the
operation's own service path plus its queueing delay. The delay is a gamma matched to two moments:

* its mean is the operation's total wait, scaled so that the mixture's mean is the answer's mean latency (the
  stations' waits add up every transaction's visits; a request waits for its slowest transaction);
* its variance is the sum over stations of the wait's variance on one transaction's path (a request's
  transactions run in parallel), each wait 0 with probability 1 - P(wait) and otherwise of the M/G/1 shape the
  route MVA uses (``route_mva.py``, 1.), with the residual taken over everything the station serves, background
  programs and erases included (exact third moment of the mix, capped at the exponential).

Closed workloads: the others' jobs add up to N - 1, so a station's queue varies only as much as the rest of the
network can absorb. The station's variance is scaled by 1 - v_k / sum_j v_j (independent queues conditioned on
their sum, v in jobs^2), and a copy holding Q of the M jobs in the network varies at most as a uniform split of
them, Q (M - Q) / 3 (two identical product-form queues sharing M jobs split them uniformly).

Open workloads: a request's transactions wait at the dies and channels independently and the request waits for
the slowest, so that part of the delay takes the variance of the max of its T waits
(:func:`max_of_transactions_var`). At a station visited in runs (``open_runs.py``) the waits of one group's
visits see the same backlog: their variance adds as (visits in the group)^2 x one wait's, and separate groups are
correlated by exp(-t / tau), tau the queue's relaxation time (``open_runs.relaxation_time_us``).

Where service times vary (``[variability]``, steps taken with a probability, request sizes) the varying part of
the path is in the gamma with the wait. A step taken by fewer requests than the quantile's tail (an erase on a
write-through drive's critical path) is a component of its own (:func:`_rare_steps`). At the write buffer's bound
a write either returns at once or does its background run itself (:func:`_buffer_split`).

The estimate's accuracy against the DES is in docs/accuracy.md; ``ssdco validate`` measures the real percentile.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from scipy.optimize import brentq
from scipy.special import gammainc, gammainccinv, gammaincinv, ndtr, ndtri, roots_laguerre

from ssdco.model.queueing.open_runs import path_wait_weight, relaxation_time_us
from ssdco.network.build import Network, StationLoad

P99 = 0.99



def _wait_var_us2(network: Network, ld: StationLoad, w: float, pw: float) -> float:
    """The variance (us^2) of a visit's wait at the station of ``ld``, of mean ``w`` us and probability
    ``pw`` of waiting: 0 w.p. 1 - P, else of mean w / P and cv^2 = P + (1 - P) cv_R^2 (M/G/1; route_mva.py,
    1.), the residual over everything the station serves (background programs and erases included)."""
    if not (w > 0 and pw > 0):
        return 0.0
    p = min(pw, 1.0)
    return w * w * (1.0 + p + (1.0 - p) * min(network.residual_scv.get(ld.name, 0.0), 1.0)) / p - w * w


def _station_waits(network: Network, loads: tuple[StationLoad, ...], residence_us: np.ndarray, p_wait: np.ndarray,
                   mean_jobs: np.ndarray, closed: bool, x_per_us: float
                   ) -> tuple[dict[str, tuple[float, float, float, float]], dict[str, float]]:
    """Per station: (mean wait per visit us, its variance us^2, the jobs' variance jobs^2, copies), and its
    queue's relaxation time (us, open_runs.relaxation_time_us); closed workloads hold the jobs' variance to a
    uniform split of the jobs in the network."""
    # the jobs that can gather at a station: the requests' transactions and the background clones
    jobs_total = (network.queue_depth * network.mean_transactions + network.background_slots) if closed else math.inf
    background = {b.name: b for b in network.background_loads() if b.visits > 0}
    waits = {}  # station -> (mean wait per visit, its variance, jobs^2 variance, copies)
    relaxation_us = {}  # station -> its queue's relaxation time (open_runs.relaxation_time_us)
    for ld, res, pw, jobs_at_copy in zip(loads, residence_us, p_wait, mean_jobs):
        if ld.visits <= 0 or not math.isfinite(res):
            continue
        w = max(res - ld.demand_us, 0.0) / ld.visits  # mean wait per visit
        var_w = _wait_var_us2(network, ld, w, pw)
        visits, work = ld.visits, ld.demand_us
        if ld.name in background:  # background jobs queue there too, with the same wait
            b = background[ld.name]
            jobs_at_copy += x_per_us * b.visits * (b.service_us + w)
            visits, work = visits + b.visits, work + b.demand_us
        per_server = work / visits / ld.servers  # mean service per visit, per server
        jobs_var = var_w / (per_server * per_server) if per_server > 0 else 0.0
        if closed:
            # no more spread than a uniform split of the jobs in the network
            bound = max(jobs_at_copy * (jobs_total - jobs_at_copy), 0.0) / 3.0
            if jobs_var > bound:
                jobs_var, var_w = bound, bound * per_server * per_server
        waits[ld.name] = (w, var_w, jobs_var, ld.copies)
        relaxation_us[ld.name] = relaxation_time_us(work / visits, ld.servers, x_per_us * work / ld.servers)
    return waits, relaxation_us


def _variance_shares(waits: dict[str, tuple[float, float, float, float]], closed: bool) -> dict[str, float]:
    """Per station, the factor on its wait's variance: closed workloads' others' jobs add up to N - 1, so a
    station's queue varies only as much as the rest of the network can absorb: independent queues
    conditioned on their sum (Gaussian), which scales station k's variance by 1 - v_k / sum_j v_j (v in
    jobs^2, the sum over every copy); 1 for open workloads."""
    total_jobs_var = sum(v * m for _, _, v, m in waits.values())
    return {k: (1.0 - v / total_jobs_var if closed and total_jobs_var > 0 else 1.0)
            for k, (_, _, v, _) in waits.items()}


def _path_wait_var_us2(network: Network, is_read: bool, per_path: dict[str, float],
                       waits: dict[str, tuple[float, float, float, float]], relaxation_us: dict[str, float],
                       share: dict[str, float], correlated: tuple[str, ...], closed: bool) -> float:
    """The variance (us^2) of the waits on one transaction's path (``per_path``: visits per station) for
    reads or writes. At a station visited in runs (open_runs.py) one group's visits see the same backlog:
    their waits on a transaction's path move together, so its variance is (visits in the group)^2 x one
    wait's. Open workloads: the part at the address-routed copies varies as the max of the request's T waits."""
    var = 0.0
    own_mean, own_var = 0.0, 0.0  # the part at address-routed copies (dies, channels)
    for k, v in per_path.items():
        if k in waits:
            together = (path_wait_weight(network, k, is_read, relaxation_us[k]) if k in correlated
                        else v)
            var += together * waits[k][1] * share[k]
            if waits[k][3] > 1:
                own_mean += v * waits[k][0]
                own_var += together * waits[k][1] * share[k]
    if not closed and own_mean > 0.0 and own_var > 0.0:
        # open workloads: a request waits for its slowest transaction, and at the copies the transactions'
        # waits are independent, so that part of the delay varies as the max of the request's T of them
        # (the waits at single-copy stations are one backlog, shared by the transactions)
        var += max_of_transactions_var(own_mean, own_var, network.transactions, network.request_probs) - own_var
    return var


def _scaled_modes(modes: list, mean_latency_us: float, buffer_wait_us: float) -> tuple[list, float]:
    """(``modes`` with their mean waits scaled to the latency's queueing part, the shift in us that every mode
    shares): the stations' waits add up every transaction's visits, but a request waits for its slowest
    transaction (the fork-join makespan, in the mean latency); what is left (no waits, or a latency below the
    service paths) is the shift."""
    waiting = sum(p * wait for p, _, _, _, wait, _ in modes)
    queueing = mean_latency_us - buffer_wait_us - sum(p * path for p, path, _, _, _, _ in modes)
    if waiting > 0 and queueing > 0:
        modes = [(p, path, path_var, variable, wait * queueing / waiting, var)
                 for p, path, path_var, variable, wait, var in modes]
    shift = mean_latency_us - buffer_wait_us - sum(p * (path + wait) for p, path, _, _, wait, _ in modes)
    return modes, shift


def _mode_components(network: Network, is_read: bool, mode: tuple, shift: float, buffer_wait_us: float,
                     x_per_us: float, write_blocked: float | None) -> list[tuple[float, float, float, float]]:
    """The mixture components (probability, shift us, mean wait us, variance us^2) of one operation's mode
    (probability, path, path variance, its varying part, mean wait, wait variance): the main one (split at the
    write buffer's bound for writes, :func:`_buffer_split`) and one per rare step (:func:`_rare_steps`)."""
    prob, path, path_var, variable, wait, var = mode
    write_prob = 1.0 - network.read_fraction
    # steps a request takes less often than the quantile's tail (an erase on the critical path of a
    # write-through drive, 1 in 1,100 writes) are components of their own: folded into the gamma's
    # variance they pulled the p99 of a write-only drive at QD 1 to +129 % of the DES's
    rare = _rare_steps(network, "read" if is_read else "write")
    rare_prob = sum(q for q, _, _ in rare)
    path -= sum(q * time for q, time, _ in rare)
    path_var = max(path_var - sum(v for _, _, v in rare), 0.0)
    variable = max(variable - sum(q * time for q, time, _ in rare), 0.0)
    # the gamma covers the wait and the part of the path that varies (its steps' mean with their
    # variance); the fixed part is the shift. With the path's variance on the wait's mean alone, a
    # gamma of tiny shape put p99 below the mean wherever service times vary (NAND scv 2 at light
    # load: p99 -84 % against the DES)
    main = (prob * (1.0 - rare_prob), shift + path - variable, wait + variable, var + path_var)
    if not is_read and buffer_wait_us > 0.0 and write_prob > 0.0 and network.background_slots > 0:
        components = _buffer_split(network, main, buffer_wait_us / write_prob,
                                   x_per_us * network.mean_transactions * write_prob, write_blocked)
    else:
        components = [main]
    return components + [(prob * q, main[1] + time, main[2], main[3]) for q, time, _ in rare]


def p99_estimate_us(network: Network, loads: tuple[StationLoad, ...], residence_us: np.ndarray,
                    p_wait: np.ndarray, mean_jobs: np.ndarray, mean_latency_us: float, closed: bool,
                    x_per_us: float, buffer_wait_us: float = 0.0, correlated: tuple[str, ...] = (),
                    write_blocked: float | None = None) -> float:
    """Estimate of the 99th latency percentile, us: a mixture over reads and writes (and, at the write
    buffer's bound, the writes that do their background run themselves) of (their own service path + their
    queueing delay), each delay a gamma matched to two moments (``mean_jobs``: per station copy;
    ``buffer_wait_us``: per request). See the module docstring."""
    waits, relaxation_us = _station_waits(network, loads, residence_us, p_wait, mean_jobs, closed, x_per_us)
    share = _variance_shares(waits, closed)
    # per operation: (probability, own path, path variance, mean wait, wait variance on one transaction's path)
    modes = []
    reads = [is_read for is_read, p in ((True, network.read_fraction), (False, 1.0 - network.read_fraction)) if p > 0]
    for is_read, (prob, per_request, per_path), (_, path, path_var, path_variable) in zip(
            reads, network.operation_visits, network.operation_paths):
        mean_wait = sum(v * waits[k][0] for k, v in per_request.items() if k in waits)
        var = _path_wait_var_us2(network, is_read, per_path, waits, relaxation_us, share, correlated, closed)
        modes.append((prob, path, path_var, path_variable, mean_wait, var))
    modes, shift = _scaled_modes(modes, mean_latency_us, buffer_wait_us)
    components = []
    for is_read, mode in zip(reads, modes):
        components += _mode_components(network, is_read, mode, shift, buffer_wait_us, x_per_us, write_blocked)
    return _mixture_quantile(tuple(components), P99)


RARE_STEP_PROBABILITY = 1.0 - P99  # a step taken less often than this is its own mixture component (p99)


def _rare_steps(network: Network, op: str) -> list[tuple[float, float, float]]:
    """(probability, time us, its share of the path's variance us^2) of the critical-path steps of
    operation ``op`` that a request takes with probability below ``RARE_STEP_PROBABILITY``."""
    out = []
    for step in network.steps:
        q = step.probability
        if step.background or step.ops not in ("both", op) or not 0.0 < q < RARE_STEP_PROBABILITY:
            continue
        m1, m2 = network.step_moments(step, op)
        if m1 > 0.0:
            out.append((q, m1 + step.delay_us, q * (m2 - m1 * m1) + q * (1.0 - q) * m1 * m1))
    return out


_GAUSS_LAGUERRE = roots_laguerre(48)


def max_of_transactions_var(mean_us: float, var_us2: float, transactions: Sequence[int],
                            probs: Sequence[float]) -> float:
    """Variance (us^2) of the largest of a request's T independent waits, each a gamma of ``mean_us`` and
    ``var_us2``, with T = ``transactions[i]`` for a share ``probs[i]`` of the requests (a mixture over
    request sizes). The max of T has the quantile function Q(u^(1/T)), Q the gamma's, so its moments are
    T int_0^1 Q(v)^j v^(T-1) dv; with 1 - v = exp(-y) that is a Gauss-Laguerre integral (48 points), whose
    nodes reach the far tail that Q grows in (T = 1 gives the gamma's own)."""
    shape, scale = mean_us * mean_us / var_us2, var_us2 / mean_us
    y, w = _GAUSS_LAGUERRE
    q = gammainccinv(shape, np.exp(-y)) * scale  # Q(v) from the upper tail: accurate where 1 - v is tiny
    first = second = 0.0
    for t, p in zip(transactions, probs):
        t = int(t)
        if t <= 1:
            first += p * mean_us
            second += p * (var_us2 + mean_us * mean_us)
            continue
        density = t * np.exp((t - 1) * np.log1p(-np.exp(-y)))  # T v^(T-1)
        first += p * float(np.sum(w * density * q))
        second += p * float(np.sum(w * density * q * q))
    return max(second - first * first, 0.0)


def _buffer_split(network: Network, writes: tuple[float, float, float, float], extra_us: float,
                  runs_per_us: float, blocked: float | None = None) -> list[tuple[float, float, float, float]]:
    """Split the write mode where the write buffer holds the requests (route_mva.py, 5.): a write that finds
    too few free slots does its run itself. ``blocked``: the fraction of writes that do, from the buffer's
    chain (:mod:`~ssdco.model.queueing.write_buffer`); their run's mean sojourn is then R = extra / blocked, with
    ``extra_us`` the writes' mean wait for the buffer. At the buffer's bound alone (``blocked`` None) all
    ``slots`` are busy, and Little's law on the background runs (plus the blocked writes' own runs) gives
    R = slots / runs_per_us + extra and the blocked fraction extra / R. The run's wait (R minus its
    service) takes the exponential shape of a wait that always happens (cv^2 = P + (1 - P) cv_R^2 at P = 1).
    (With Little's law where the chain holds the requests, 4 slots at queue depth 1 and 70 % reads gave a
    p99 67 % over the DES's: the slots are not all busy there.)"""
    prob, shift, wait, var = writes
    if blocked is not None and blocked > 0.0:
        sojourn = extra_us / blocked
    else:
        sojourn = network.background_slots / runs_per_us + extra_us
        blocked = extra_us / sojourn
    service = sum(s.probability * (network.step_moments(s, "write")[0] + s.delay_us)
                  for s in network.steps if s.background)
    run_wait = max(sojourn - service, 0.0)
    return [(prob * (1.0 - blocked), shift, wait, var),
            (prob * blocked, shift + service, wait + run_wait, var + run_wait * run_wait)]


def _mixture_quantile(components: tuple[tuple[float, float, float, float], ...], q: float) -> float:
    """The q-quantile of a mixture: component (probability, shift, mean wait, variance) is shift + a gamma
    of that mean and variance (a normal when there is no wait to speak of, a point mass without variance).
    It lies between the components' own q-quantiles, which bracket the root."""
    def no_wait(shift: float, mean: float) -> bool:
        return mean <= 1e-9 * max(abs(shift), 1.0)

    def cdf(x: float, shift: float, mean: float, var: float) -> float:
        if var <= 0.0:
            return float(x >= shift + mean)
        if no_wait(shift, mean):
            return float(ndtr((x - shift - mean) / math.sqrt(var)))
        scale = var / mean
        return float(gammainc(mean / scale, max(x - shift, 0.0) / scale))

    def quantile(shift: float, mean: float, var: float) -> float:
        if var <= 0.0:
            return shift + mean
        if no_wait(shift, mean):
            return shift + mean + float(ndtri(q)) * math.sqrt(var)
        scale = var / mean
        return shift + float(gammaincinv(mean / scale, q)) * scale

    components = tuple(c for c in components if c[0] > 0.0)
    own = [quantile(shift, mean, var) for _, shift, mean, var in components]
    lo, hi = min(own), max(own)
    if len(components) == 1 or hi - lo <= 1e-9 * max(abs(hi), 1.0):
        return hi

    def excess(x: float) -> float:
        return sum(p * cdf(x, shift, mean, var) for p, shift, mean, var in components) - q

    # the bracket can fail only by rounding at its ends: a gamma of tiny shape (a wait that is almost always
    # ~0) has its quantile within a rounding error of its shift, where x - shift is 0
    f_lo, f_hi = excess(lo), excess(hi)
    if f_lo >= 0.0:
        return lo
    if f_hi <= 0.0:
        return hi
    return float(brentq(excess, lo, hi, xtol=1e-9, rtol=1e-10))


