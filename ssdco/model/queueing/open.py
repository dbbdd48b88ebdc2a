"""Open (Poisson arrival) network: stability, utilisation and latency from M/G/c approximations.

Each station copy is treated as an M/G/c queue fed by its share of the arrival stream. The mean
queueing delay is Erlang C's M/M/c wait scaled by (c_a^2 + c_s^2)/2 with c_a^2 = 1 (Allen-Cunneen);
for c = 1 this is exactly Pollaczek-Khinchine's M/G/1 mean wait. A multi-transaction request's
transactions arrive together: M^X/G/c, from the M^X/M/c chain where the batch sizes are known (see
:func:`solve_open`). The
``response_us`` here adds every visit; ``whatif`` takes the request's latency along the route instead
(the fork-join makespan, ``route_mva.route_latency``), and at a core group or accelerator that a request
visits in runs or by batches it takes the request's time there from work conservation (``open_runs.py``).

References
----------
A. O. Allen, *Probability, Statistics and Queueing Theory*, 2nd ed., 1990 (Allen-Cunneen).
Kleinrock, *Queueing Systems Vol. 1*, 1975 (Erlang C, P-K).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ssdco.model.queueing.erlang import erlang_c
from ssdco.model.queueing.priority import FG_COLUMNS, reads_first_wait


@dataclass(frozen=True)
class OpenSolution:
    """Per-copy results of the open network at ``arrival_per_us`` requests per us."""

    arrival_per_us: float
    stable: bool
    utilization: np.ndarray  # per server of one copy
    residence_us: np.ndarray  # per request at one copy (inf when unstable)
    p_wait: np.ndarray
    response_us: float


def batch_erlang_c(servers: int, batch_rate: float, service: float, batch_pmf) -> tuple[float, float]:
    """M^X/M/c: (P(N >= c), E[(N - c)+]) for batches arriving at ``batch_rate`` with P(X = x) = ``batch_pmf[x]``
    and exponential service of mean ``service`` on ``servers`` servers (time averages, which Poisson batch
    arrivals see). The chain crosses level n upwards when a batch lands from below it with enough jobs and
    downwards by one service, so pi_n min(n, c) / S = lam_b sum_{i < n} pi_i P(X >= n - i), a forward
    recursion. Beyond c + max X its terms fall geometrically: it stops once they are below 1e-12 of the
    mass, or once their ratio r has settled, summing the rest in closed form, sum_j pi_n r^j (n + j - c)."""
    c = int(servers)
    pmf = np.asarray(batch_pmf, dtype=float)
    above = pmf[::-1].cumsum()[::-1]  # above[k] = P(X >= k)
    x_max = pmf.size - 1
    rho = batch_rate * float(np.dot(np.arange(pmf.size), pmf)) * service / c
    if rho >= 1.0:
        return 1.0, math.inf
    if rho <= 0.0:
        return 0.0, 0.0
    pi = [1.0]
    total, p_busy, queued = 1.0, 0.0, 0.0
    n, ratio = 0, math.nan
    while True:
        n += 1
        flow = sum(pi[i] * above[n - i] for i in range(max(0, n - x_max), n))
        value = batch_rate * flow * service / min(n, c)
        pi.append(value)
        total += value
        if n >= c:
            p_busy += value
            queued += (n - c) * value
        if n > c + x_max:
            if value < 1e-12 * total:
                break
            r = value / pi[-2]
            settled = abs(r - ratio) <= 1e-10 * r
            ratio = r
            if settled and r < 1.0:
                # the geometric rest: sum_{j >= 1} value r^j and sum_{j >= 1} value r^j (n + j - c)
                rest = value * r / (1.0 - r)
                total += rest
                p_busy += rest
                queued += rest * (n - c) + value * r / (1.0 - r) ** 2
                break
    return p_busy / total, queued / total


def batch_first_wait(servers: int, batch_rate: float, service: float, batch_pmf, residual_factor: float,
                     batch_excess: float) -> tuple[float, float]:
    """(mean wait, P(wait)) of the first of a batch at an M^X/G/c station: batches at ``batch_rate`` (per us)
    of X jobs, P(X = x) = ``batch_pmf[x]``, service of mean ``service`` (us). In M^X/M/c the first of a batch
    waits for E[(N - c)+] + P(N >= c) services of S / c (:func:`batch_erlang_c`); for general service that
    is scaled by the batch's work against the exponential's, E[B^2] / E[B^2]_M = (2 f + bx) / (1 + E[X^2] /
    E[X]), with f = ``residual_factor`` ((1 + scv) / 2) and bx = ``batch_excess`` (``Network.batch_excess``:
    E[X^2] / E[X] - 1 weighted by the operation's mean service squared). Single jobs (X = 1) give
    Allen-Cunneen's M/G/c wait, one server M^X/G/1's exactly (Gross & Harris). Against a simulation of
    M^X/D/c (2-4 servers, batches of 1-4, 30-80 % load) the first wait is 6-61 % low, 15-19 % in the
    median (the Erlang C form with the batch term: 7-88 %, 24-37 %); deterministic batches that occupy
    every server at once and end together make the next batch wait more than the chain's."""
    c = int(servers)
    pmf = np.asarray(batch_pmf, dtype=float)
    sizes = np.arange(pmf.size)
    ratio = float(np.dot(sizes * sizes, pmf) / np.dot(sizes, pmf))  # E[X^2] / E[X]
    p_wait, queued = batch_erlang_c(c, batch_rate, service, pmf)
    return (queued + p_wait) * service / c * (2.0 * residual_factor + batch_excess) / (1.0 + ratio), p_wait


def _with_reads_first(res, waits, d, v, c, gamma, arrival_per_us: float, fg) -> None:
    """Replace in ``res`` the residence at each reads-first station whose own visits are reads and writes (``fg``:
    ``route_mva.RouteArrays.fg_reads_first``) by the one of the priority split of its wait (``reads_first_wait``)."""
    for k in np.flatnonzero(fg[:, 0] > 0.0):
        if d[k] > 0.0 and np.isfinite(res[k]):
            wait = reads_first_wait(waits[k], arrival_per_us * d[k] / c[k], arrival_per_us, v[k], fg[k])
            res[k] = v[k] * (d[k] / v[k] + gamma[k] * wait)


def solve_open(demand_us, visits, servers, copies, scv, delay_us: float, arrival_per_us: float,
               bg_demand_us=None, bg_m2_us2=None, batch_excess=None, residual_factor=None,
               batches=None, arrival_gamma=None, bg_behind=None, bg_suspend_us2=None,
               fg_reads_first=None) -> OpenSolution:
    """Solve the open network.

    A request's transactions arrive at a station together (a batch: the fork of a multi-transaction
    request). ``batch_excess`` per station is E[X^2] / E[X] - 1 for the batch X that a transaction arrives
    in (0: one at a time), weighted by the squared mean service of the batch's operation in units of S^2
    where reads and writes differ (``Network.batch_excess``: a batch is all reads or all programs). The
    first of a batch waits for the work of the batches ahead; for M^X/G/1 that is
    the M/G/1 wait at the transactions' rate plus rho / (1 - rho) (E[X^2] / E[X] - 1) S / 2 (Gross & Harris,
    *Fundamentals of Queueing Theory*, M^X/G/1), and on c servers the batch's work ahead is taken as spread
    over the c servers, C(c, a) / (1 - rho) (E[X^2] / E[X] - 1) S / (2 c). Where the batch sizes at a copy
    are known (``batches`` per station: batches per request and P(X = x), ``Network.copy_batches``) the
    M^X/M/c chain replaces Erlang C (:func:`batch_first_wait`): batches keep the servers busy together, so
    an arriving batch finds them all busy more often than Erlang C says (a die of three planes fed 16 KiB
    writes over two dies at 50 % load: P(wait) 0.33 against 0.24; on a 16 KiB design at 50 % load the error
    against the DES is -12.1 % with the chain and -16.9 % with Erlang C). That first-of-batch wait is what
    ``residence_us`` reports per visit; the own transactions ahead in the batch are the route's serialisation
    (``route_mva.py``, 1.).

    ``arrival_gamma`` per station scales its wait by (ca^2 + cs^2) / (1 + cs^2), the Kingman / Allen-Cunneen
    ratio to the Poisson-arrival wait, where its arrivals are not Poisson (a channel fed by deterministic
    dies: :func:`~ssdco.model.queueing.route_mva.routed_arrival_gamma`); 1 (Poisson) by default.

    ``residual_factor`` per station replaces (1 + scv) / 2, the residual service an arrival waits for in
    units of S: jobs that rejoin the queue they just left wait for a full service (``route_mva.py``, 2.,
    :func:`~ssdco.model.queueing.route_mva.residual_factors`). Stations with background work keep the mixture's
    residual.

    Background work (FTL, :mod:`ssdco.network.ftl_effects`) is a second Poisson class at the same rate: it adds
    ``bg_demand_us`` per request to a station's load and ``bg_m2_us2`` (visits x E[S^2] per request) to
    its second moment; the wait is that of the mixed FCFS M/G/c station (Allen-Cunneen with the
    mixture's residual), and the request's residence counts only its own visits. Where the background queues behind
    the requests (``bg_behind`` per station: a reads-first die) the wait is the high class's of non-preemptive
    priority: c - a becomes c - a_requests (M/M/c with priorities, the FCFS wait's 1 - rho replaced by 1 - rho_high;
    Cobham, Oper. Res. 2(1), 1954, at one server). Background work that a request's visit suspends instead
    (``bg_suspend_us2``: its demand x the suspension time per request; ``bg_m2_us2`` then holds the rest's) costs the
    visit the suspension time where it finds that work in service (with probability its utilisation, PASTA):
    preemptive-resume priority at the suspension's price. Where a reads-first station's own visits are reads and
    write requests' operations (``fg_reads_first`` per station: the shares and sums of
    ``route_mva.RouteArrays.fg_reads_first``), the first-come-first-served wait is split as priority splits it
    (``priority.reads_first_wait``: Cobham's waits at one server with Poisson arrivals, and where reads suspend
    the writes' programs, preemptive-resume priority at the suspension's price).

    Parameters
    ----------
    demand_us, visits, servers, copies, scv : array-like per distinct station
        Per-copy demand per request (us), per-copy visits per request, servers per copy, copies, and
        the service-time scv.
    delay_us : float
        Pure delay per request (us).
    arrival_per_us : float
        Poisson arrival rate of requests (1/us).
    """
    d = np.asarray(demand_us, dtype=float)
    v = np.asarray(visits, dtype=float)
    c = np.asarray(servers, dtype=int)
    m = np.asarray(copies, dtype=float)
    cs2 = np.asarray(scv, dtype=float)
    bd = np.zeros(d.shape) if bg_demand_us is None else np.asarray(bg_demand_us, dtype=float)
    bm2 = np.zeros(d.shape) if bg_m2_us2 is None else np.asarray(bg_m2_us2, dtype=float)
    bx = np.zeros(d.shape) if batch_excess is None else np.asarray(batch_excess, dtype=float)
    fr = (1.0 + cs2) / 2.0 if residual_factor is None else np.asarray(residual_factor, dtype=float)
    gamma = np.ones(d.shape) if arrival_gamma is None else np.asarray(arrival_gamma, dtype=float)
    behind = np.zeros(d.shape, dtype=bool) if bg_behind is None else np.asarray(bg_behind, dtype=bool)
    util = arrival_per_us * (d + bd) / c
    suspend = np.zeros(d.shape) if bg_suspend_us2 is None else np.asarray(bg_suspend_us2, dtype=float)
    util = util + np.where(behind, arrival_per_us * v * arrival_per_us * suspend / c ** 2, 0.0)  # suspending
    fg = np.zeros((d.size, FG_COLUMNS)) if fg_reads_first is None else np.asarray(fg_reads_first, dtype=float)
    util = util + fg[:, 0] * v * arrival_per_us * arrival_per_us * fg[:, 5] / c ** 2  # the foreground's suspensions
    stable = bool(np.all(util < 1.0))
    res = np.full(d.shape, np.inf)
    pw = np.ones(d.shape)
    waits = np.zeros(d.shape)
    for k in range(d.size):
        if d[k] == 0:
            res[k], pw[k] = 0.0, 0.0
            continue
        if util[k] >= 1.0:
            continue
        s = d[k] / v[k]
        a = arrival_per_us * (d[k] + bd[k])  # offered load in servers
        pw[k] = erlang_c(int(c[k]), a)
        batch = None if batches is None else batches[k]
        if batch is not None and bd[k] == 0:
            per_request, pmf = batch
            wait, pw[k] = batch_first_wait(int(c[k]), arrival_per_us * per_request, s, pmf, fr[k], bx[k])
        else:
            if bd[k] > 0:
                # mixture residual E[S^2] / (2 E[S]) over both classes' visits
                m2 = v[k] * s * s * (1.0 + cs2[k]) + bm2[k]
                ahead = arrival_per_us * d[k] if behind[k] else a  # the load a request's visit queues behind
                p_tau = arrival_per_us * suspend[k] / c[k] if behind[k] else 0.0  # suspension time per visit
                u_s = arrival_per_us * v[k] * p_tau  # servers busy suspending
                wait = pw[k] * m2 / (2.0 * (d[k] + bd[k])) / max(c[k] - ahead - u_s, 1e-9) + p_tau
            else:
                wait = pw[k] * s / (c[k] - a) * fr[k]
            wait += pw[k] * bx[k] * s / (2.0 * (c[k] - a))  # the batches' extra work ahead
        waits[k] = wait
        res[k] = v[k] * (s + gamma[k] * wait)
    _with_reads_first(res, waits, d, v, c, gamma, arrival_per_us, fg)
    response = float(delay_us + np.dot(m, res)) if stable else float("inf")
    return OpenSolution(arrival_per_us=arrival_per_us, stable=stable, utilization=util, residence_us=res,
                        p_wait=pw, response_us=response)
