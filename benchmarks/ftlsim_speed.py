"""Speed of the functional FTL simulator (ssdco.sim.ftlsim): host page writes per second.

Run: ``python benchmarks/ftlsim_speed.py``. Prints one line per configuration and a summary
line; no assertions. The rate counts every host write the run applies (sequential
precondition + warm-up + measured window), address generation included, numba compilation
excluded (a small run first compiles the kernels).
"""

from __future__ import annotations

import time

from ssdco.ftl.address_patterns import JESD219_LBA_SKEW, UniformPattern
from ssdco.sim.ftlsim import simulate_ftl, simulate_lru_cache, simulate_partitioned_cache


def _bench_ftl(logical_pages: int, npb: int, alpha: float, policy: str, pattern, name: str) -> float:
    warm, meas = 4 * logical_pages, 4 * logical_pages
    t0 = time.perf_counter()
    r = simulate_ftl(logical_pages, npb, alpha, seed=1, policy=policy, pattern=pattern,
                     host_writes=meas, warmup_host_writes=warm)
    dt = time.perf_counter() - t0
    total = logical_pages + warm + meas
    rate = total / dt
    print(f"ftl  {name:8s} {policy:6s} alpha={alpha:.2f} U={logical_pages} Np={npb}: "
          f"WAF {r.waf:6.3f}  {total / 1e6:5.1f} M host writes in {dt:5.2f} s = {rate / 1e6:6.2f} M host writes/s")
    return rate


def main() -> None:
    simulate_ftl(1 << 12, 64, 1.2, seed=0, policy="greedy")  # compile
    simulate_ftl(1 << 12, 64, 1.2, seed=0, policy="fifo")
    simulate_lru_cache(1 << 12, 100, seed=0)
    simulate_partitioned_cache(1 << 12, 64, 4, 100, seed=0, requests=1000, warmup_requests=0)

    rates = []
    for alpha in (1.07, 1.28):
        for policy in ("greedy", "fifo"):
            rates.append(_bench_ftl(1 << 20, 64, alpha, policy, UniformPattern(), "uniform"))
    rates.append(_bench_ftl(1 << 20, 64, 1.07, "greedy", JESD219_LBA_SKEW, "jesd219"))

    n = 10_000_000
    t0 = time.perf_counter()
    simulate_lru_cache(1 << 22, 1 << 19, seed=1, pattern=JESD219_LBA_SKEW, requests=n, warmup_requests=0,
                       write_fraction=0.3)
    dt = time.perf_counter() - t0
    print(f"lru  jesd219 C/N=1/8 N=4M: {n / dt / 1e6:6.2f} M requests/s")
    t0 = time.perf_counter()
    simulate_partitioned_cache(1 << 22, 1024, 256, 1 << 18, seed=1, pattern=JESD219_LBA_SKEW, requests=n,
                               warmup_requests=0)
    dt = time.perf_counter() - t0
    print(f"partitioned cache jesd219 N=4M: {n / dt / 1e6:6.2f} M requests/s")
    print(f"ftlsim host writes/s (slowest of the FTL runs): {min(rates):.3e}")


if __name__ == "__main__":
    main()
