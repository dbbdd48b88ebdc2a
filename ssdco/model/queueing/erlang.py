"""Closed forms of the M/M/c queue and the finite-source (machine-repairman) queue.

Times in any consistent unit; rates are their reciprocals. Erlang B and C are compiled (numba), so that the route
MVA's kernels call the same functions as the Python solvers.

References
----------
Kleinrock, *Queueing Systems Vol. 1*, 1975: M/M/c and Erlang C (Sec. 3.5), finite-source (machine-repairman)
queue (Sec. 3.8).
"""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True)
def erlang_b(servers: int, offered_load: float) -> float:
    """Erlang B blocking probability for ``servers`` and offered load a = lambda x S (stable recursion)."""
    b = 1.0
    for k in range(1, servers + 1):
        b = offered_load * b / (k + offered_load * b)
    return b


@nb.njit(cache=True)
def erlang_c(servers: int, offered_load: float) -> float:
    """Erlang C: probability an arrival waits in M/M/c, offered load a = lambda x S < c (1 at or above c)."""
    rho = offered_load / servers
    if rho >= 1.0:
        return 1.0
    b = erlang_b(servers, offered_load)
    return b / (1.0 - rho * (1.0 - b))


def machine_repairman(machines: int, think_time: float, repair_time: float, servers: int = 1) -> tuple[float, float]:
    """Finite-source M/M/c//N queue: returns (throughput, mean response time at the repair station).

    Birth-death chain on j jobs at the station: birth rate (N - j)/Z, death rate min(j, c)/S; the balance is
    taken in log space, so that large N neither overflows nor underflows.
    """
    log_w = np.zeros(machines + 1)
    for j in range(1, machines + 1):
        log_w[j] = log_w[j - 1] + np.log((machines - j + 1) * repair_time / (min(j, servers) * think_time))
    p = np.exp(log_w - log_w.max())
    p /= p.sum()
    jobs = np.arange(machines + 1)
    throughput = float(np.dot(np.minimum(jobs, servers), p) / repair_time)
    queue = float(np.dot(jobs, p))
    return throughput, queue / throughput
