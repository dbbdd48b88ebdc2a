"""Mean value analysis of the closed (queue-depth N) network, single class.

One compiled kernel, two variants:

* exponential (``scv = 1`` everywhere) - Reiser & Lavenberg's exact MVA for product-form networks
  with load-dependent (multi-server) stations via marginal queue-length probabilities [1]_, [2]_
  (Ch. 8). In double precision the idle probability of a multi-server station, 1 - sum(marginals),
  loses its digits just before that station saturates and the error grows through the recursion
  (about 1e-8 relative at worst, in a narrow window of populations); ``solve_closed(exact=True)``
  therefore uses the log-space convolution algorithm (``convolution.py``), which has no
  subtraction.
* residual-corrected (the default for the controller model) - the same recursion with a residual-service
  correction for non-exponential FCFS service: a job arriving at a busy server waits for the
  *residual* of the job in service, S(1 + scv)/2 instead of S [3]_ (Reiser's heuristic for FCFS
  general service), and for multi-server stations the queueing delay is scaled by (1 + scv)/2, as in
  Allen & Cunneen's M/G/c approximation [4]_. With scv = 1 everywhere it reduces to the exact MVA.

Identical address-routed copies (dies, channels) are one station with ``copies`` replicas: by symmetry
each copy has the same marginals, so the recursion runs once per distinct station and the response
time counts ``copies x`` its residence time. The cost is O(N^2 x distinct stations), independent of
the number of dies.

References
----------
.. [1] M. Reiser, S. S. Lavenberg, "Mean-value analysis of closed multichain queueing networks",
       JACM 27(2), 1980.
.. [2] E. D. Lazowska et al., *Quantitative System Performance*, Prentice-Hall, 1984, Ch. 6 and 8.
.. [3] M. Reiser, "A queueing network analysis of computer communication networks with window flow
       control", IEEE Trans. Commun. 27(8), 1979 (residual-time correction for FCFS stations).
.. [4] A. O. Allen, *Probability, Statistics and Queueing Theory*, 2nd ed., 1990 (Allen-Cunneen).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ssdco.model.queueing.closed import ClosedSolution
from ssdco.model.queueing.convolution import solve_closed_convolution


@nb.njit(cache=True)
def _mva_kernel(demand, servers, copies, scv, delay, n_max, exponential):
    """Run the MVA recursion to population ``n_max``.

    All station arrays have length K (per-copy quantities, us). Returns
    (x_by_n[n_max+1], residence[K], queue[K], p_wait[K]): the last three at population n_max, where residence
    is per request on one copy (us) and p_wait the probability that an arriving job must queue.
    """
    k_count = demand.shape[0]
    x_by_n = np.zeros(n_max + 1)
    queue = np.zeros(k_count)
    util = np.zeros(k_count)
    residence = np.zeros(k_count)
    p_wait = np.zeros(k_count)
    # marginal probabilities p[k, j] of j jobs at one copy of k (only used when servers > 1)
    marg = np.zeros((k_count, n_max + 1))
    marg[:, 0] = 1.0
    tail_jobs = np.zeros(k_count)
    tail_prob = np.zeros(k_count)
    capacity = np.inf
    for k in range(k_count):
        if demand[k] > 0.0:
            capacity = min(capacity, servers[k] / demand[k])
    for n in range(1, n_max + 1):
        total = delay
        for k in range(k_count):
            d = demand[k]
            c = servers[k]
            factor = 1.0 if exponential else 0.5 * (1.0 + scv[k])
            if d <= 0.0:
                residence[k] = 0.0
                p_wait[k] = 0.0
                continue
            if c >= n:
                # no more jobs than servers: an arrival never queues
                residence[k] = d
                p_wait[k] = 0.0
            elif c == 1:
                # arrival theorem: the arriving job sees the (n-1)-population state
                busy = min(util[k], 1.0)
                residence[k] = d * (1.0 + queue[k]) + (factor - 1.0) * d * busy
                p_wait[k] = busy
            else:
                # E[(jobs - c + 1)^+] and P(jobs >= c) of the (n-1) state, summed during its update
                residence[k] = d + factor * (d / c) * tail_jobs[k]
                p_wait[k] = tail_prob[k]
            total += copies[k] * residence[k]
        # Two safeguards for the residual heuristic (the exponential recursion never triggers either):
        # the discount for scv < 1 can push it a hair past saturation, but throughput never exceeds
        # the bottleneck's capacity c_k / D_k; the inflation for scv > 1 assumes Poisson arrivals and
        # at small n can make X(n) < X(n-1), but closed-network throughput does not fall when a job
        # is added (Shanthikumar & Yao, Oper. Res. 37(4), 1989), so X(n) is floored at X(n-1).
        x = min(max(n / total, x_by_n[n - 1]), capacity)
        x_by_n[n] = x
        for k in range(k_count):
            queue[k] = x * residence[k]
            util[k] = x * demand[k] / servers[k] if servers[k] == 1 else 0.0
            c = servers[k]
            if 1 < c < n_max and demand[k] > 0.0:
                xd = x * demand[k]
                s = 0.0
                tj = 0.0
                tp = 0.0
                for j in range(n, 0, -1):
                    p = xd / (j if j < c else c) * marg[k, j - 1]
                    marg[k, j] = p
                    s += p
                    if j >= c:
                        tj += (j - c + 1) * p
                        tp += p
                p0 = 1.0 - s
                if p0 < 0.0:
                    # only the corrected variant can overshoot; renormalise to a distribution
                    for j in range(1, n + 1):
                        marg[k, j] /= s
                    tj /= s
                    tp /= s
                    p0 = 0.0
                marg[k, 0] = p0
                tail_jobs[k] = tj
                tail_prob[k] = tp
    return x_by_n, residence, queue, p_wait


@nb.njit(cache=True, parallel=True)
def _mva_batch_kernel(demand, servers, copies, scv, delay, n_max, exponential):
    """Vectorised over B configurations (rows); returns throughput (1/us) at ``n_max`` per row."""
    b_count = demand.shape[0]
    out = np.zeros(b_count)
    for b in nb.prange(b_count):
        xs, _, _, _ = _mva_kernel(demand[b], servers[b], copies[b], scv[b], delay[b], n_max, exponential)
        out[b] = xs[n_max]
    return out


def solve_closed(demand_us, servers, copies, scv, delay_us: float, population: int,
                 exact: bool = False) -> ClosedSolution:
    """Solve the closed network at queue depth ``population`` by MVA.

    Parameters
    ----------
    demand_us, servers, copies, scv : array-like, one entry per distinct station
        Per-copy service demand per request (us), servers per copy,
        identical copies, and squared coefficient of variation of service.
    delay_us : float
        Pure delay per request (infinite-server time, us).
    population : int
        Number of requests in the system (queue depth).
    exact : bool
        True: the exact exponential product-form solution (log-space convolution, numerically stable).
        False: residual-corrected MVA for general (e.g. deterministic) service; with every scv = 1 this
        is the exponential MVA recursion.
    """
    if exact:
        return solve_closed_convolution(demand_us, servers, copies, delay_us, population)
    d = np.ascontiguousarray(demand_us, dtype=np.float64)
    c = np.ascontiguousarray(servers, dtype=np.int64)
    m = np.ascontiguousarray(copies, dtype=np.float64)
    v = np.ascontiguousarray(scv, dtype=np.float64)
    if population < 1:
        raise ValueError(f"population must be >= 1, got {population}")
    xs, res, q, pw = _mva_kernel(d, c, m, v, float(delay_us), int(population), False)
    x = float(xs[population])
    return ClosedSolution(population=population, throughput_per_us=x, throughput_by_n=xs,
                          residence_us=res, queue=q, p_wait=pw, response_us=population / x)


def solve_closed_batch(demand_us, servers, copies, scv, delay_us, population: int,
                       exponential: bool = False) -> np.ndarray:
    """Throughput (requests/us) of B closed networks at once; arrays are (B, K), ``delay_us`` is (B,).

    Pad networks with fewer stations with zero-demand columns (servers 1, copies 0)."""
    return _mva_batch_kernel(np.ascontiguousarray(demand_us, dtype=np.float64),
                             np.ascontiguousarray(servers, dtype=np.int64),
                             np.ascontiguousarray(copies, dtype=np.float64),
                             np.ascontiguousarray(scv, dtype=np.float64),
                             np.ascontiguousarray(delay_us, dtype=np.float64), int(population), bool(exponential))
