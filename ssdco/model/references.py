"""Closed-form queueing results used as oracles by the tests (and handy in a notebook); the machine-repairman is
also the idle bound's (``idle_bound.py``).

Times in any consistent unit; rates are their reciprocals.

References
----------
Kleinrock, *Queueing Systems Vol. 1*, 1975: M/M/c and Erlang C (Sec. 3.5), Pollaczek-Khinchine (Sec. 5.7),
finite-source (machine-repairman) queue (Sec. 3.8).
"""

from __future__ import annotations

import numpy as np


def erlang_b(servers: int, offered_load: float) -> float:
    """Erlang B blocking probability for ``servers`` and offered load a = lambda x S (stable recursion)."""
    b = 1.0
    for k in range(1, servers + 1):
        b = offered_load * b / (k + offered_load * b)
    return b


def erlang_c(servers: int, offered_load: float) -> float:
    """Erlang C: probability an arrival waits in M/M/c, offered load a = lambda x S < c."""
    rho = offered_load / servers
    if rho >= 1.0:
        return 1.0
    b = erlang_b(servers, offered_load)
    return b / (1.0 - rho * (1.0 - b))


def mmc_mean_wait(arrival_rate: float, service_time: float, servers: int) -> float:
    """Mean queueing delay (excluding service) of M/M/c: C(c, a) x S / (c - a)."""
    a = arrival_rate * service_time
    return erlang_c(servers, a) * service_time / (servers - a)


def mg1_mean_wait(arrival_rate: float, service_time: float, scv: float) -> float:
    """Pollaczek-Khinchine mean wait of M/G/1: rho x S x (1 + scv) / (2 (1 - rho))."""
    rho = arrival_rate * service_time
    return rho * service_time * (1.0 + scv) / (2.0 * (1.0 - rho))


def machine_repairman(machines: int, think_time: float, repair_time: float, servers: int = 1) -> tuple[float, float]:
    """Finite-source M/M/c//N queue: returns (throughput, mean response time at the repair station).

    Birth-death chain on j jobs at the station: birth rate (N - j)/Z, death rate min(j, c)/S; the balance is
    taken in log space, so that large N neither overflows nor underflows (``idle_bound.py`` uses it in the model).
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


def closed_single_station(customers: int, service_time: float, servers: int) -> float:
    """Throughput of a closed network of one c-server station and no think time: min(N, c)/S."""
    return min(customers, servers) / service_time


def tandem_balanced_throughput(customers: int, stations: int, service_time: float) -> float:
    """Closed cyclic network of K identical exponential single-server stations: N / ((N + K - 1) S)."""
    return customers / ((customers + stations - 1) * service_time)

