"""What one of the route MVA's corrections buys against the DES: ``whatif``'s answers with it and without it, side
by side, on fresh Hypothesis draws (the acceptance test's strategies, as ``model_vs_des.py --hypothesis``).

    .venv/bin/python benchmarks/route_feature_vs_des.py --feature wait_displacement --seeds 20261264 20261265
                                                        [--sizes 4|mixed] [--configs 300] [--des-cache-dir DIR]

For each draw the DES runs once (60,000 requests, seed = the draw's index, as ``model_vs_des.py``; kept per seed in
``--des-cache-dir`` as ``fc_SEED_SIZES.json``, the same files as its ``--des-cache``), and ``whatif``'s model answers
twice: with every correction, and with the one named switched off (``evaluate_network(..., route_features=...)``).
Prints the draws within the tolerances (IOPS 3 %, mean latency 10 %) both ways, the verdicts that change, how many
answers move by 0.5 % or more and how many of those come closer to the DES, and the RMS IOPS error. A 60,000-request
run's IOPS carry up to about +-1 % (95 % CI) at high queue depth: ``model_vs_des.py --confirm`` reruns misses longer.

The measurement behind ``route_mva._wait_displacement`` (2026-11-28) was made this way, on the cached draws of the
one-transaction seeds 20261246-57 and 20261260-63: 59 misses without it, 52 with it (8 in, 1 out). So was the
one behind ``idle_bound`` (ssdco/model/queueing/idle_bound.py; docs/accuracy.md, "The idle bound in the model").
"""

import argparse
import math
import time
from pathlib import Path

from model_vs_des import cached_draws, des_iops_and_latency
from schedule_chain_vs_des import _within

from ssdco.model.queueing import route_mva
from ssdco.model.whatif import evaluate_network

FEATURES = {"fork_join": route_mva.FORK_JOIN, "max_wait": route_mva.MAX_WAIT, "reentry": route_mva.REENTRY,
            "flow": route_mva.FLOW, "routed_stage": route_mva.ROUTED_STAGE,
            "wait_displacement": route_mva.WAIT_DISPLACEMENT,
            "idle_bound": route_mva.IDLE_BOUND, "fork_join_stage": route_mva.FORK_JOIN_STAGE}
REQUESTS = 60_000
MOVED = 0.005  # an answer that moves by this much (relative IOPS) counts as moved


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--feature", choices=sorted(FEATURES), required=True,
                    help="the correction to compare, switched off")
    ap.add_argument("--seeds", type=int, nargs="+", required=True, help="Hypothesis seeds to draw from")
    ap.add_argument("--sizes", choices=("4", "mixed"), default="4")
    ap.add_argument("--configs", type=int, default=300, help="draws per seed (Hypothesis may repeat some)")
    ap.add_argument("--des-cache-dir", type=Path, help="directory of per-seed DES caches (fc_SEED_SIZES.json)")
    args = ap.parse_args()
    bit = FEATURES[args.feature]
    with_bits = route_mva.ALL_FEATURES | bit
    without_bits = route_mva.ALL_FEATURES & ~bit
    t0 = time.perf_counter()
    rows = []  # (name, (IOPS error, latency error) with the correction, the same without)
    for seed, i, d, config, network, cache in cached_draws(args.seeds, args.sizes, args.configs, args.des_cache_dir):
        des_iops, des_latency, _, _ = des_iops_and_latency(d, network, REQUESTS, i, cache)
        with_it = evaluate_network(config, network, route_features=with_bits)
        without = evaluate_network(config, network, route_features=without_bits)
        rows.append((f"{seed} #{i}",
                     (with_it.iops / des_iops - 1.0, with_it.latency_mean_us / des_latency - 1.0),
                     (without.iops / des_iops - 1.0, without.latency_mean_us / des_latency - 1.0)))
    within_with = sum(_within(r[1]) for r in rows)
    within_without = sum(_within(r[2]) for r in rows)
    came_in = [r for r in rows if _within(r[1]) and not _within(r[2])]
    went_out = [r for r in rows if not _within(r[1]) and _within(r[2])]
    moved = [r for r in rows if abs((1.0 + r[1][0]) / (1.0 + r[2][0]) - 1.0) >= MOVED]
    closer = sum(abs(r[1][0]) < abs(r[2][0]) for r in moved)
    rms = [math.sqrt(sum(r[k][0] ** 2 for r in rows) / len(rows)) for k in (1, 2)]
    print(f"{len(rows)} draws ({args.sizes} KiB setting, seeds {' '.join(map(str, args.seeds))}), "
          f"{REQUESTS:,} DES requests each, {time.perf_counter() - t0:.1f} s")
    print(f"within IOPS 3 % and latency 10 %: {within_with} with {args.feature}, {within_without} without "
          f"({len(came_in)} in, {len(went_out)} out)")
    print(f"answers moved by {MOVED:.1%} or more: {len(moved)}, {closer} of them closer to the DES")
    print(f"RMS IOPS error: {rms[0]:.3%} with, {rms[1]:.3%} without")
    for label, group in (("in ", came_in), ("out", went_out)):
        for name, e_with, e_without in group:
            print(f"  {label} {name}: IOPS {e_without[0]:+.2%} without -> {e_with[0]:+.2%} with")


if __name__ == "__main__":
    main()
