"""Open (Poisson arrival) network: stability, utilisation and latency from M/G/c approximations.

Each station copy is treated as an M/G/c queue fed by its share of the arrival stream. The mean
queueing delay is Erlang C's M/M/c wait scaled by (c_a^2 + c_s^2)/2 with c_a^2 = 1 (Allen-Cunneen);
for c = 1 this is exactly Pollaczek-Khinchine's M/G/1 mean wait. A multi-transaction request's
transactions arrive together, which adds the batch term of M^X/G/c (see :func:`solve_open`). The
``response_us`` here adds every visit; ``whatif`` takes the request's latency along the route instead
(the fork-join makespan, ``route_mva.route_latency``), and at a core group or accelerator that a request
visits in runs or by batches it takes the request's time there from work conservation (``open_runs.py``).

References
----------
A. O. Allen, *Probability, Statistics and Queueing Theory*, 2nd ed., 1990 (Allen-Cunneen).
Kleinrock, *Queueing Systems Vol. 1*, 1975 (Erlang C, P-K).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .references import erlang_c


@dataclass(frozen=True)
class OpenSolution:
    """Per-copy results of the open network at ``arrival_per_us`` requests per us."""

    arrival_per_us: float
    stable: bool
    utilization: np.ndarray  # per server of one copy
    residence_us: np.ndarray  # per request at one copy (inf when unstable)
    p_wait: np.ndarray
    response_us: float


def solve_open(demand_us, visits, servers, copies, scv, delay_us: float, arrival_per_us: float,
               bg_demand_us=None, bg_m2_us2=None, batch_excess=None, residual_factor=None) -> OpenSolution:
    """Solve the open network.

    A request's transactions arrive at a station together (a batch: the fork of a multi-transaction
    request). ``batch_excess`` per station is E[X^2] / E[X] - 1 for the batch X that a transaction arrives
    in (0: one at a time), weighted by the squared mean service of the batch's operation in units of S^2
    where reads and writes differ (``Network.batch_excess``: a batch is all reads or all programs). The
    first of a batch waits for the work of the batches ahead; for M^X/G/1 that is
    the M/G/1 wait at the transactions' rate plus rho / (1 - rho) (E[X^2] / E[X] - 1) S / 2 (Gross & Harris,
    *Fundamentals of Queueing Theory*, M^X/G/1), and on c servers the batch's work ahead is taken as spread
    over the c servers, C(c, a) / (1 - rho) (E[X^2] / E[X] - 1) S / (2 c). That first-of-batch wait is
    what ``residence_us`` reports per visit; the own transactions ahead in the batch are the route's
    serialisation (``route_mva.py``, 1.).

    ``residual_factor`` per station replaces (1 + scv) / 2, the residual service an arrival waits for in
    units of S: jobs that rejoin the queue they just left wait for a full service (``route_mva.py``, 2.,
    :func:`~ssdco.model.route_mva.residual_factors`). Stations with background work keep the mixture's
    residual.

    Background work (FTL, :mod:`ssdco.model.ftl`) is a second Poisson class at the same rate: it adds
    ``bg_demand_us`` per request to a station's load and ``bg_m2_us2`` (visits x E[S^2] per request) to
    its second moment; the wait is that of the mixed FCFS M/G/c station (Allen-Cunneen with the
    mixture's residual), and the request's residence counts only its own visits.

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
    util = arrival_per_us * (d + bd) / c
    stable = bool(np.all(util < 1.0))
    res = np.full(d.shape, np.inf)
    pw = np.ones(d.shape)
    for k in range(d.size):
        if d[k] == 0:
            res[k], pw[k] = 0.0, 0.0
            continue
        if util[k] >= 1.0:
            continue
        s = d[k] / v[k]
        a = arrival_per_us * (d[k] + bd[k])  # offered load in servers
        pw[k] = erlang_c(int(c[k]), a)
        if bd[k] > 0:
            # mixture residual E[S^2] / (2 E[S]) over both classes' visits
            m2 = v[k] * s * s * (1.0 + cs2[k]) + bm2[k]
            resid = m2 / (2.0 * (d[k] + bd[k]))
            wait = pw[k] * resid / (c[k] - a)
        else:
            wait = pw[k] * s / (c[k] - a) * fr[k]
        wait += pw[k] * bx[k] * s / (2.0 * (c[k] - a))  # the batches' extra work ahead
        res[k] = v[k] * (s + wait)
    response = float(delay_us + np.dot(m, res)) if stable else float("inf")
    return OpenSolution(arrival_per_us=arrival_per_us, stable=stable, utilization=util, residence_us=res,
                        p_wait=pw, response_us=response)
