"""How fast is "what if?": one full evaluation (config -> network -> MVA -> power), and a batch of
closed networks solved by the vectorised MVA kernel. Run: ``.venv/bin/python benchmarks/whatif_speed.py``.

Prints measured times; asserts nothing (goals: <= 1 ms per evaluation, >= 100 k configurations/s batched).
"""

import time
from pathlib import Path

import numpy as np

from ssdco import evaluate, load_config
from ssdco.model.queueing.mva import solve_closed, solve_closed_batch
from ssdco.network.build import build_network

PM9A3 = Path(__file__).resolve().parent.parent / "configs" / "pm9a3-960.toml"


def best_of(fn, repeat=5, number=200):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return min(times)


def main():
    cfg = load_config(PM9A3, controller="c01")
    evaluate(cfg)  # compile / warm caches
    t_eval = best_of(lambda: evaluate(cfg))
    net = build_network(cfg)
    loads = net.loads()
    d = np.array([ld.demand_us for ld in loads])
    c = np.array([ld.servers for ld in loads])
    m = np.array([ld.copies for ld in loads], dtype=float)
    v = np.array([ld.scv for ld in loads])
    t_mva = best_of(lambda: solve_closed(d, c, m, v, net.delay_us, 32))
    print(f"one full evaluation (PM9A3 c01, QD32): {t_eval * 1e3:.3f} ms   (of which MVA kernel {t_mva * 1e6:.1f} us)")

    rng = np.random.default_rng(0)
    batch = 200_000
    dd = d * rng.uniform(0.5, 2.0, size=(batch, d.size))
    cc = np.tile(c, (batch, 1))
    cc[:, 1:6] = rng.integers(1, 4, size=(batch, 5))
    mm = np.tile(m, (batch, 1))
    vv = np.tile(v, (batch, 1))
    zz = np.full(batch, net.delay_us)
    solve_closed_batch(dd[:10], cc[:10], mm[:10], vv[:10], zz[:10], 32)  # compile
    t0 = time.perf_counter()
    xs = solve_closed_batch(dd, cc, mm, vv, zz, 32)
    dt = time.perf_counter() - t0
    print(f"batched MVA: {batch:,} configurations (QD32, {d.size} stations) in {dt:.3f} s = "
          f"{batch / dt:,.0f} per second"
          f"  (mean IOPS {xs.mean() * 1e6:,.0f})")
    t0 = time.perf_counter()
    for b in range(2000):
        solve_closed(dd[b], cc[b], mm[b], vv[b], zz[b], 32)
    loop = (time.perf_counter() - t0) / 2000
    print(f"ratio batched / one-at-a-time MVA: {loop / (dt / batch):.1f}x")


if __name__ == "__main__":
    main()
