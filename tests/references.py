"""Known answers the tests check the model against, written independently of the package's own formulas
(direct sums where the package uses recursions or log-space balances).

Times in any consistent unit; rates are their reciprocals.

References
----------
Kleinrock, *Queueing Systems Vol. 1*, 1975: M/M/c and Erlang C (Sec. 3.5), Pollaczek-Khinchine (Sec. 5.7),
finite-source (machine-repairman) queue (Sec. 3.8).
"""

from __future__ import annotations

import math


def erlang_c(servers: int, offered_load: float) -> float:
    """Erlang C by its defining sum: (a^c / c!) (c / (c - a)) / (sum_{k<c} a^k / k! + (a^c / c!) c / (c - a))."""
    if offered_load >= servers:
        return 1.0
    head = sum(offered_load ** k / math.factorial(k) for k in range(servers))
    tail = offered_load ** servers / math.factorial(servers) * servers / (servers - offered_load)
    return tail / (head + tail)


def mmc_mean_wait(arrival_rate: float, service_time: float, servers: int) -> float:
    """Mean queueing delay (excluding service) of M/M/c: C(c, a) x S / (c - a)."""
    a = arrival_rate * service_time
    return erlang_c(servers, a) * service_time / (servers - a)


def mg1_mean_wait(arrival_rate: float, service_time: float, scv: float) -> float:
    """Pollaczek-Khinchine mean wait of M/G/1: rho x S x (1 + scv) / (2 (1 - rho))."""
    rho = arrival_rate * service_time
    return rho * service_time * (1.0 + scv) / (2.0 * (1.0 - rho))


def machine_repairman(machines: int, think_time: float, repair_time: float, servers: int = 1) -> tuple[float, float]:
    """Finite-source M/M/c//N queue by its product-form probabilities (exact fractions, so moderate N only):
    returns (throughput, mean response time at the repair station)."""
    from fractions import Fraction

    z, s = Fraction(think_time), Fraction(repair_time)
    weights = [Fraction(1)]
    for j in range(1, machines + 1):
        weights.append(weights[-1] * (machines - j + 1) * s / (min(j, servers) * z))
    total = sum(weights)
    throughput = sum(min(j, servers) * w for j, w in enumerate(weights)) / total / s
    queue = sum(j * w for j, w in enumerate(weights)) / total
    return float(throughput), float(queue / throughput)


def closed_single_station(customers: int, service_time: float, servers: int) -> float:
    """Throughput of a closed network of one c-server station and no think time: min(N, c)/S."""
    return min(customers, servers) / service_time


def tandem_balanced_throughput(customers: int, stations: int, service_time: float) -> float:
    """Closed cyclic network of K identical exponential single-server stations: N / ((N + K - 1) S)."""
    return customers / ((customers + stations - 1) * service_time)
