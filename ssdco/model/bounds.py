"""Asymptotic (operational) bounds on throughput and the bottleneck station.

X(N) <= min( N / R0,  min_k c_k / D_k )  with D_k the per-copy demand, c_k the servers and m_k the
copies of station k, and R0 the zero-load latency of a request: Z + sum_k m_k D_k (Z the pure delay) when
a request's visits are sequential, or less when its transactions run in parallel (fork-join), in which
case the caller passes the zero-load makespan. Denning & Buzen, "The operational analysis of
queueing network models", Computing Surveys 10(3), 1978; Lazowska et al. 1984, Ch. 5.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

US_PER_S = 1e6  # requests per us -> IOPS


@dataclass(frozen=True)
class Bounds:
    """Throughput bounds in requests per us, and the station with the smallest capacity.

    The model works in requests per us (the ``*_per_us`` fields); users read IOPS: every bound also has an
    ``*_iops`` property (requests per second), e.g. :attr:`capacity_iops`.
    """

    capacity_per_us: float  # min_k c_k / D_k: the bottleneck's saturation throughput
    population_per_us: float  # N / (Z + sum D): the no-queueing bound (inf for open workloads)
    zero_load_latency_us: float  # Z + sum D
    bottleneck: str
    bottleneck_index: int
    # closed workloads with buffered writes: what the write buffer's finite pool of background runs can
    # sustain (route_mva.write_buffer_capacity); inf otherwise. Not part of capacity_per_us, which stays
    # the operational bound min c_k / D_k of the bottleneck station.
    write_buffer_per_us: float = float("inf")
    # closed workloads the route MVA answers: the idle bound (idle_bound.py: the busy core group idles while every
    # request is away) where it holds X; inf elsewhere. Not part of upper_per_us: the chain and the platoon stage,
    # which follow the requests one by one, are not held to it.
    idle_per_us: float = float("inf")
    idle_station: str = ""  # the core group

    @property
    def upper_per_us(self) -> float:
        """The tightest upper bound."""
        return min(self.capacity_per_us, self.population_per_us, self.write_buffer_per_us)

    @property
    def capacity_iops(self) -> float:
        """The bottleneck station's saturation throughput (IOPS)."""
        return self.capacity_per_us * US_PER_S

    @property
    def population_iops(self) -> float:
        """The no-queueing bound N / zero-load latency (IOPS; inf for open workloads)."""
        return self.population_per_us * US_PER_S

    @property
    def write_buffer_iops(self) -> float:
        """What the write buffer's background runs sustain (IOPS; inf where it does not apply)."""
        return self.write_buffer_per_us * US_PER_S

    @property
    def idle_iops(self) -> float:
        """The idle bound of the busy core group (IOPS; inf where it does not hold)."""
        return self.idle_per_us * US_PER_S

    @property
    def upper_iops(self) -> float:
        """The tightest upper bound, :attr:`upper_per_us` in IOPS."""
        return self.upper_per_us * US_PER_S


def asymptotic_bounds(names, demand_us, servers, copies, delay_us: float, population: int | None,
                      zero_load_latency_us: float | None = None) -> Bounds:
    """Compute the asymptotic throughput bounds and name the bottleneck (largest D_k / c_k).

    ``zero_load_latency_us`` overrides Z + sum m_k D_k (e.g. with the fork-join makespan)."""
    d = np.asarray(demand_us, dtype=float)
    c = np.asarray(servers, dtype=float)
    m = np.asarray(copies, dtype=float)
    per_server = np.where(d > 0, d / c, 0.0)
    k = int(np.argmax(per_server))
    capacity = float(1.0 / per_server[k]) if per_server[k] > 0 else float("inf")
    zero_load = float(delay_us + np.dot(m, d)) if zero_load_latency_us is None else float(zero_load_latency_us)
    pop_bound = float(population / zero_load) if population is not None and zero_load > 0 else float("inf")
    return Bounds(capacity_per_us=capacity, population_per_us=pop_bound, zero_load_latency_us=zero_load,
                  bottleneck=str(names[k]), bottleneck_index=k)
