"""The answer of a closed-network solver at one population (MVA, convolution, route MVA)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ClosedSolution:
    """MVA result at population ``population``. Times in us, throughput in requests per us."""

    population: int
    throughput_per_us: float
    throughput_by_n: np.ndarray  # index n = population 0..N
    residence_us: np.ndarray  # per request, one copy of each station
    queue: np.ndarray  # mean jobs at one copy
    p_wait: np.ndarray  # probability an arrival queues at a copy
    response_us: float  # mean request latency (cycle time at zero think)
    buffer_wait_us: float = 0.0  # of which: waiting for the write buffer (route MVA, 5.; per request)
    at_write_buffer_bound: bool = False  # throughput held by the write buffer (its bound or its chain; route MVA, 5.)
    write_blocked_fraction: float | None = None  # of the writes, doing their run themselves (the buffer's chain)
    capacity_wait_us: float = 0.0  # held at the capacity bound: N / X less the cycle of waits at X (route MVA)
    capacity_stations: tuple[int, ...] = ()  # the stations whose bound holds X there (route MVA)
