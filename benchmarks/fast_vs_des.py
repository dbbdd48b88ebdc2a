"""``whatif --fast`` (the Markov chain of the requests' draws skipped; at queue depth 1-2 tried within its first 3,000
states only, ``schedule_chain.FAST_GRID_STEPS``) against ``whatif`` and the DES, side by side, on the closed
deterministic configurations at queue depth 2-5 where the chain applies.

Configurations: those of ``benchmarks/schedule_chain_vs_des.py`` (the same options: the acceptance test's
Hypothesis strategies with ``--seeds``, ``--draws`` per seed and request-size setting, and ``--random`` uniformly
sampled designs). For each configuration whose chain applies (``schedule_chain.chain_applies``) and that the
periodic schedule does not solve, it times ``whatif`` and ``whatif --fast`` in turn (the chain's memo cleared
first, so each ``whatif`` explores its chain) and runs the DES. Prints the median and worst time of each and their
ratio; how many configurations each has within the acceptance tolerances (IOPS 3 %, mean latency 10 %); and for
``--fast`` how its misses split between the configurations its caveat flags (the chain skipped, the route MVA at
risk: ``whatif.route_mva_at_risk``) and the others, with the worst errors.

Run: ``.venv/bin/python benchmarks/fast_vs_des.py [--seeds 20261123 20261125] [--draws 150] [--random 200]
[--first-seed 0] [--min-queue-depth 2] [--max-queue-depth 5] [--requests 60000]``. Prints measured figures; asserts
nothing.
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from ssdco.model.queueing.periodic import periodic_schedule
from ssdco.model.queueing.schedule_chain import _recalled, chain_applies
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import build_network
from ssdco.sim.des import simulate
from ssdco.spec import config_from_dict
from ssdco.validation.compare import IOPS_TOLERANCE, LATENCY_TOLERANCE

sys.path.insert(0, str(Path(__file__).resolve().parent))
from schedule_chain_vs_des import _within, add_design_arguments, designs_chosen  # noqa: E402

SKIPPED = "the Markov chain of the requests' draws was skipped"  # the start of --fast's caveat


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_design_arguments(ap)
    ap.add_argument("--requests", type=int, default=60_000)
    ap.add_argument("--min-queue-depth", type=int, default=2, help="1: queue depth 1 too (one request's own chain); "
                    "--max-queue-depth is at least 2")
    args = ap.parse_args()
    rows = []  # (name, QD, full errors, fast errors, full s, fast s, fast flagged, full method, fast method)
    t0 = time.perf_counter()
    for name, d in designs_chosen(args):
        config = config_from_dict(d)
        network = build_network(config)
        if (network.queue_depth is None or not args.min_queue_depth <= network.queue_depth <= args.max_queue_depth
                or not chain_applies(network) or periodic_schedule(network) is not None):
            continue
        _recalled.cache_clear()
        t = time.perf_counter()
        full = evaluate_network(config, network)
        t_full = time.perf_counter() - t
        t = time.perf_counter()
        fast = evaluate_network(config, network, effort="fast")
        t_fast = time.perf_counter() - t
        des = simulate(network, requests=args.requests, seed=1)
        errs = [(r.iops / des.iops.value - 1, r.latency_mean_us / des.mean_latency_us.value - 1) for r in (full, fast)]
        flagged = any(c.startswith(SKIPPED) for c in fast.caveats)
        rows.append((name, network.queue_depth, errs[0], errs[1], t_full, t_fast, flagged, full.method, fast.method))
    n = len(rows)
    print(f"{n} closed deterministic configurations at QD {args.min_queue_depth}-{args.max_queue_depth} where the "
          f"chain applies and the periodic schedule does not, {args.requests:,} DES requests each, "
          f"{time.perf_counter() - t0:.0f} s")
    if not n:
        return
    full_s = np.array([r[4] for r in rows])
    fast_s = np.array([r[5] for r in rows])
    print(f"whatif:        median {np.median(full_s) * 1e3:8.1f} ms, worst {full_s.max() * 1e3:8.1f} ms")
    print(f"whatif --fast: median {np.median(fast_s) * 1e3:8.1f} ms, worst {fast_s.max() * 1e3:8.1f} ms")
    print(f"ratio of medians {np.median(full_s) / np.median(fast_s):.0f}x, "
          f"of totals {full_s.sum() / fast_s.sum():.0f}x")
    print(f"within IOPS {IOPS_TOLERANCE:.0%} and latency {LATENCY_TOLERANCE:.0%}: whatif "
          f"{sum(_within(r[2]) for r in rows)}/{n}, whatif --fast {sum(_within(r[3]) for r in rows)}/{n}")
    for label, group in (("flagged (chain skipped, route MVA at risk)", [r for r in rows if r[6]]),
                         ("not flagged", [r for r in rows if not r[6]])):
        if not group:
            print(f"--fast {label}: none")
            continue
        misses = [r for r in group if not _within(r[3])]
        worst = max((r[3][0] for r in group), key=abs)
        print(f"--fast {label}: {len(misses)} of {len(group)} miss, worst IOPS error {worst:+.2%}")
        for r in sorted(misses, key=lambda r: -abs(r[3][0]))[:8]:
            print(f"  {r[0]} QD {r[1]}: --fast ({r[8]}) IOPS {r[3][0]:+.2%} latency {r[3][1]:+.2%}; "
                  f"whatif ({r[7]}) {r[2][0]:+.2%}")
    for qd in sorted({r[1] for r in rows}):
        group = [r for r in rows if r[1] == qd]
        print(f"  QD {qd}: {len(group)} configurations, --fast within {sum(_within(r[3]) for r in group)}, "
              f"whatif within {sum(_within(r[2]) for r in group)}")


if __name__ == "__main__":
    main()
