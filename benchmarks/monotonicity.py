"""Does adding one core or one accelerator unit ever lower the model's IOPS? Measured, not asserted.

For uniformly sampled random designs (the ranges of tests/strategies.py, every other one with 4/8/16 KiB
requests) each core group and each accelerator gets one more server, and the IOPS of the route MVA alone, of the
default solver (the route MVA, or the Markov chain of the draws or the platoon stage where they answer) and of the
exact (exponential, product-form) solver are compared with the unchanged design.
Prints how many additions lower IOPS and by how much, and the worst cases. The route MVA and the exact
solver should show none (see ssdco/model/queueing/route_mva.py, "Monotone in servers"). The chain and the platoon
stage need not: they follow the DES's event recursion, and the DES is not monotone in servers
(tests/model/queueing/test_collapsed.py: a fourth core, -1.1 %).
``--des`` re-runs every addition that lowers the default solver's IOPS, and the worst route-MVA case, in
the DES to show what the simulated controller does.

    .venv/bin/python -m benchmarks.monotonicity [--designs 1500] [--first-seed 10000] [--des]
"""

import argparse
import time

import numpy as np

from ssdco.model.solvers import all_but
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import build_network
from ssdco.sim.des import simulate
from ssdco.spec import config_from_dict
from ssdco.validation.random_designs import one_more_server, random_config

ROUTE_MVA = {"solvers": all_but("markov-chain", "platoon-stage")}  # the route MVA alone
SOLVERS = (("route MVA", ROUTE_MVA), ("default", {}), ("exact (--exact)", {"effort": "exact"}))


def iops(d: dict, **solver) -> float:
    config = config_from_dict(d)
    return evaluate_network(config, build_network(config), **solver).iops


# Relative changes smaller than this are rounding: each X(n) is solved to route_mva.ROOT_REL_TOL (1e-13);
# 1e-9 leaves room for the floating-point noise of the cycle time.
ROUNDING = 1e-9
DES_NOISE = 0.003  # a change smaller than this between two DES runs of 100,000 requests is not counted


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--designs", type=int, default=1500)
    ap.add_argument("--first-seed", type=int, default=10_000)
    ap.add_argument("--des", action="store_true", help="simulate the worst route-MVA case before and after")
    args = ap.parse_args()
    t0 = time.perf_counter()
    changes = {name: [] for name, _ in SOLVERS}  # solver -> [(relative change, seed, label)]
    for i in range(args.designs):
        seed = args.first_seed + i
        d = random_config(seed, mixed_sizes=i % 2 == 1)
        for name, solver in SOLVERS:
            base = iops(d, **solver)
            for label, more in one_more_server(d):
                changes[name].append((iops(more, **solver) / base - 1.0, seed, label))
    print(f"{args.designs} random designs, {len(changes['route MVA'])} one-server additions, "
          f"{time.perf_counter() - t0:.1f} s")
    for name, _ in SOLVERS:
        rel = np.array([c for c, _, _ in changes[name]])
        drops = rel < -ROUNDING
        print(f"{name:20s}: IOPS lower after the addition in {drops.sum()} of {rel.size} "
              f"(by more than {ROUNDING:.0e}); worst {rel.min():+.4%}; "
              f"99th percentile of the drops {np.quantile(-rel[drops], 0.99) if drops.any() else 0:.4%}")
    worst = sorted(changes["route MVA"])[:5]
    for change, seed, label in worst:
        print(f"  seed {seed} ({'4/8/16' if (seed - args.first_seed) % 2 else '4'} KiB): {label}: {change:+.3%}")
    if args.des:  # does the DES drop where the default solver does?
        drops = [(c, seed, label) for c, seed, label in changes["default"] if c < -ROUNDING]
        des_drops = 0
        for change, seed, label in sorted(drops):
            d = random_config(seed, mixed_sizes=(seed - args.first_seed) % 2 == 1)
            more = dict(one_more_server(d))[label]
            before, after = (simulate(build_network(config_from_dict(x)), requests=100_000, seed=5).iops.value
                             for x in (d, more))
            des_drops += after / before - 1.0 < -DES_NOISE
            print(f"  default, seed {seed}: {label}: {change:+.3%}; DES {after / before - 1.0:+.3%}")
        print(f"  of the default solver's {len(drops)} drops, the DES's IOPS drop by more than {DES_NOISE:.1%} "
              f"in {des_drops}")
    if args.des and worst:
        change, seed, label = worst[0]
        d = random_config(seed, mixed_sizes=(seed - args.first_seed) % 2 == 1)
        more = dict(one_more_server(d))[label]
        for name, design in (("as sampled", d), (label, more)):
            config = config_from_dict(design)
            des = simulate(build_network(config), requests=200_000, seed=5)
            print(f"  DES seed {seed} {name}: {des.iops.value:,.0f} IOPS +/- {des.iops.half_width:,.0f} "
                  f"(route MVA {iops(design, **ROUTE_MVA):,.0f})")


if __name__ == "__main__":
    main()
