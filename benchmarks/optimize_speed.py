"""How fast is ``ssdco optimize`` on the PM9A3 preset? Run: ``.venv/bin/python benchmarks/optimize_speed.py``.

Prints the design-space size, the time to the exact optimum of the linear model (one ILP solve; goal
<= 1 s), the same optimum by brute-force enumeration, and the full verified search (ILP + analytic model +
DES) for the study's targets; then, side by side, ``optimize`` and ``optimize --fast`` (``[optimizer]
markov_chain = false``: every design verified with ``whatif --fast``'s answer) at low queue depths, where the
Markov chain of the requests' draws makes each verification cost up to seconds. Measured on this machine;
asserts nothing.
"""

import statistics
import time
from pathlib import Path

from ssdco import load_config
from ssdco.optimizer import LinearModel, enumerate_space, ilp, linear_optimum, make_targets, optimize
from ssdco.optimizer.space import DesignSpace

PM9A3 = Path(__file__).resolve().parent.parent / "configs" / "pm9a3-960.toml"
LOW_QUEUE_DEPTH = [  # (label, overrides, min_iops): closed deterministic work where whatif tries the chain
    ("8 KiB reads at QD 2, >= 30 K IOPS", ["workload.queue_depth=2", "workload.request_size_kib=8"], 30_000),
    ("16 KiB reads at QD 3, >= 40 K IOPS", ["workload.queue_depth=3", "workload.request_size_kib=16"], 40_000),
    ("8 KiB reads at QD 4, >= 50 K IOPS", ["workload.queue_depth=4", "workload.request_size_kib=8"], 50_000),
    ("8 KiB reads at QD 4, >= 80 K IOPS (infeasible: explained)", ["workload.queue_depth=4",
                                                                   "workload.request_size_kib=8"], 80_000),
]  # (the infeasible one had not finished after 45 minutes without --fast before the other searches' screen)
TARGETS = [  # (label, min_iops, core mW, DRAM mW)
    ("study: >= 500 K IOPS, cores <= 192 mW, DRAM <= 800 mW", 500_000, 192.0, 800.0),
    (">= 550 K IOPS (many cheaper designs fail verification)", 550_000, 192.0, 800.0),
    (">= 560 K IOPS, cores <= 60 mW", 560_000, 60.0, 800.0),
    (">= 650 K IOPS (infeasible: explained)", 650_000, 192.0, 800.0),
]


def median_time(fn, repeat=5):
    times = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main():
    cfg = load_config(PM9A3)
    t0 = time.perf_counter()
    space = DesignSpace.from_config(cfg)
    model = LinearModel(space, make_targets(space, min_iops=500_000))
    t_coef = time.perf_counter() - t0
    print(f"design space: {space.size():,} designs; {len(model.coef.groups)} software columns, "
          f"{len(model.coef.hw)} hardware columns (ILP variables {len(model.coef.groups) + len(model.coef.hw) + 1}); "
          f"coefficients in {t_coef * 1e3:.1f} ms")
    print(f"solver: {ilp.solver_name(space.options.solver).upper()}")
    print()
    print("time to the exact optimum of the linear model (median of 5), goal <= 1 s:")
    t_enum, table = median_time(lambda: enumerate_space(space, model.coef), repeat=3)
    for label, x, core, dram in TARGETS:
        m = model.at(make_targets(space, min_iops=x, core_power_mw=core, dram_power_mw=dram))
        t_ilp, sol = median_time(lambda: ilp.solve(m))
        t_bf, (b, cost) = median_time(lambda: linear_optimum(table, m))
        c_ilp = m.cost(sol.design) if sol.feasible else None
        print(f"  {label}")
        print(f"    ILP {t_ilp:.3f} s -> cost {c_ilp if c_ilp is None else round(c_ilp, 4)};  enumeration "
              f"{t_bf * 1e3:.1f} ms (+ {t_enum:.2f} s to build the table) -> cost "
              f"{cost if cost is None else round(cost, 4)}")
    print()
    print("full verified search (ILP + analytic model + DES, runners-up, binding constraints):")
    optimize(cfg, min_iops=500_000)  # warm numba caches
    for label, x, core, dram in TARGETS:
        t0 = time.perf_counter()
        r = optimize(cfg, min_iops=x, core_power_mw=core, dram_power_mw=dram)
        wall = time.perf_counter() - t0
        tm = r.timing
        pick = f"cost {r.cost:.4g} {r.pick.label()}" if r.feasible else f"{r.status}: {r.message}"
        print(f"  {label}: {wall:.2f} s  ({tm['verify_iterations']} verified, {tm['ilp_solves']} ILP solve(s) "
              f"{tm['ilp_seconds']:.2f} s, DES {tm['des_seconds']:.2f} s)")
        print(f"    {pick}")
        if r.feasible:
            v = r.verdict
            des = v.validation.des.iops.value if v.validation is not None else float("nan")
            print(f"    verified: analytic {v.analytic.iops:,.0f} IOPS, DES {des:,.0f} IOPS, core-side "
                  f"{v.analytic.power.core_side_mw:.1f} mW, DRAM {v.analytic.power.dram_mw:.1f} mW")
    t0 = time.perf_counter()
    r = optimize(cfg, min_iops=500_000, options={"verify_des": False}, pareto_front=True)
    print(f"\nPareto front (MVA of all {r.space_size:,} designs): {len(r.pareto)} designs, "
          f"{time.perf_counter() - t0:.2f} s (batch MVA {r.pareto_seconds:.2f} s)")
    t0 = time.perf_counter()
    r = optimize(cfg, min_iops=500_000, options={"verify_des": False}, explain=True)
    print(f"--explain (sensitivity by bisection with re-solves): {time.perf_counter() - t0:.2f} s")
    t0 = time.perf_counter()
    r = optimize(cfg, min_iops=550_000, options={"verify_des": False, "enumeration_limit": 0})
    print(f"550 K IOPS without the enumeration table (ILP re-solve per candidate): {time.perf_counter() - t0:.2f} s, "
          f"{r.timing['ilp_solves']} ILP solves, cost {r.cost:.4g}")
    print("\nlow queue depth, optimize against optimize --fast (each verifies its pick with the DES):")
    for label, overrides, x in LOW_QUEUE_DEPTH:
        low = load_config(PM9A3, overrides=overrides)
        runs = {}
        for name, options in (("optimize", None), ("--fast", {"markov_chain": False})):
            t0 = time.perf_counter()
            r = optimize(low, min_iops=x, options=options)
            runs[name] = (time.perf_counter() - t0, r)
        (t_full, full), (t_fast, _) = runs["optimize"], runs["--fast"]
        print(f"  {label}: {t_full:.2f} s against {t_fast:.2f} s ({t_full / t_fast:.1f}x); without --fast "
              f"{full.timing['analytic_designs']} design(s) verified in full, {full.timing['screened_designs']} "
              "screened")
        for name, (_, r) in runs.items():
            if r.feasible:
                v = r.verdict
                des = v.validation.des.iops.value if v.validation is not None else float("nan")
                print(f"    {name:<9} cost {r.cost:.4g} {r.pick.label()}: {v.analytic.method} {v.analytic.iops:,.0f} "
                      f"IOPS, DES {des:,.0f}, {len(v.analytic.caveats)} caveat(s)")
            else:
                print(f"    {name:<9} {r.status}: {r.message}")
                for c in r.infeasibility.closest:
                    if c.design is not None:
                        print(f"      {c.kind}: {c.design.label()} {c.iops:,.0f} IOPS")


if __name__ == "__main__":
    main()
