"""The platoon caveat (``whatif.platoon_iops``) against the DES: a core group that serves a request's modules in a
row, first come first served between the visits, lets the requests that reach it together leave it together; where
the dies and channels barely queue they stay in step, and the core idles while they are away. The route MVA does
not see it.

Designs: ``random_designs.core_run_config(seed)`` for ``--designs`` seeds from ``--first-seed`` (the bottleneck core
group runs 2-4 modules in a row, at 0.8-3 times the knee), and, with ``--hypothesis SEED ...``, the acceptance
test's Hypothesis draws of one transaction (``model_vs_des.hypothesis_configs``, 300 per seed), where only the
flagged answers are run in the DES (``--des-all`` runs them all), and with ``--pairs N`` the designs
``random_designs.core_pair_config`` draws for seeds 0 .. N - 1 (two nearly equally busy single-core groups that split
the modules; all run in the DES). For every route-MVA answer it runs ``whatif``
with and without the platoon check and the DES (``--requests``), and prints: how many answers the caveat flags and
how many of them miss the DES's tolerances (IOPS 3 %, mean latency 10 %); the misses no caveat flags before and
after; the skeleton's IOPS against the DES's on the flagged ones; the time the check adds. The caveat is the route
MVA's (``platoon_stage=False``): by default the platoon stage (``queueing/platoon_stage.py``) answers wherever the check
looks, and the script prints how many answers it gave, how many of them the route MVA and the stage miss, and the
time whatif takes there.

Run: ``.venv/bin/python benchmarks/platoon_vs_des.py [--first-seed 0] [--designs 800] [--requests 100000]
[--hypothesis 20261246 ...] [--des-all] [--pairs 600]``. Measured on 2026-11-28: seeds 0-799 (the rule was chosen
on them) and 800-1599 (drawn after it); on 2026-11-29, after any two visits of the bottleneck counted, ``--designs 0
--pairs 600``; on 2026-11-29, after the platoon stage, ``--first-seed 0 --designs 1600 --pairs 600``; see
docs/accuracy.md. Prints measured figures; asserts nothing.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

from ssdco.model.queueing.periodic import platoon_throughput_per_us
from ssdco.model.solvers import all_but
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import build_network
from ssdco.sim.des import simulate
from ssdco.spec import config_from_dict
from ssdco.validation.compare import IOPS_TOLERANCE, LATENCY_TOLERANCE
from ssdco.validation.random_designs import core_pair_config, core_run_config

sys.path.insert(0, str(Path(__file__).resolve().parent))
from model_vs_des import hypothesis_configs  # noqa: E402

IN_STEP = "the requests may move in step"  # the start of the platoon caveat


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--designs", type=int, default=800, help="core_run_config seeds (0: none)")
    ap.add_argument("--hypothesis", type=int, nargs="*", default=[], help="Hypothesis seeds, one transaction")
    ap.add_argument("--des-all", action="store_true", help="run the DES on every Hypothesis route-MVA answer")
    ap.add_argument("--pairs", type=int, default=0, help="core_pair_config seeds 0 .. PAIRS - 1 (0: none)")
    ap.add_argument("--requests", type=int, default=100_000)
    args = ap.parse_args()
    seeds = range(args.first_seed, args.first_seed + args.designs)
    designs = [(f"run-{s}", core_run_config(s), True, s) for s in seeds]
    pairs = ((s, core_pair_config(s)) for s in range(args.pairs))
    designs += [(f"pair-{s}", d, True, s) for s, d in pairs if d is not None]
    for seed in args.hypothesis:
        drawn = hypothesis_configs(300, seed, "4")
        designs += [(f"{seed}:{i}", d, args.des_all, seed + i) for i, d in enumerate(drawn)]
    answers = flagged = flagged_misses = misses = unflagged_before = unflagged_after = 0
    staged = staged_route_misses = staged_misses = 0
    staged_seconds = []  # whatif's time where the platoon stage answers
    added = []  # seconds whatif takes with the check less without it, per route-MVA answer
    rows = []
    t0 = time.perf_counter()
    for name, d, des_always, des_seed in designs:
        config = config_from_dict(d)
        network = build_network(config)
        if network.queue_depth is None:
            continue
        evaluate_network(config, network, solvers=all_but("platoon-stage"))  # warm: the chain's memo, numba
        t = time.perf_counter()
        plain = evaluate_network(config, network, solvers=all_but("platoon-stage"))
        t_plain = time.perf_counter() - t
        if plain.method != "route-mva":
            continue
        answers += 1
        t = time.perf_counter()
        full = evaluate_network(config, network, solvers=all_but("platoon-stage"))
        added.append(time.perf_counter() - t - t_plain)
        t = time.perf_counter()
        answer = evaluate_network(config, network)  # whatif's own: the platoon stage where the check looks
        by_stage = answer.method == "platoon-stage"
        if by_stage:
            staged_seconds.append(time.perf_counter() - t)
        hit = any(c.startswith(IN_STEP) for c in full.caveats)
        flagged += hit
        if not (hit or des_always or by_stage):
            continue
        des = simulate(network, requests=args.requests, seed=des_seed)
        e_iops = plain.iops / des.iops.value - 1.0
        e_lat = plain.latency_mean_us / des.mean_latency_us.value - 1.0
        miss = abs(e_iops) > IOPS_TOLERANCE or abs(e_lat) > LATENCY_TOLERANCE
        if by_stage:
            staged += 1
            staged_route_misses += miss
            staged_misses += (abs(answer.iops / des.iops.value - 1.0) > IOPS_TOLERANCE
                              or abs(answer.latency_mean_us / des.mean_latency_us.value - 1.0) > LATENCY_TOLERANCE)
        if not (hit or des_always):
            continue
        misses += miss
        unflagged_before += miss and not plain.caveats
        unflagged_after += miss and not full.caveats
        if hit:
            flagged_misses += miss
            skeleton_iops = platoon_throughput_per_us(network) * 1e6  # the figure the caveat states
            rows.append((name, network.queue_depth, e_iops, skeleton_iops / des.iops.value - 1.0, miss))
    print(f"{answers} route-MVA answers ({time.perf_counter() - t0:.0f} s)")
    print(f"platoon caveat: flags {flagged}, of which {flagged_misses} miss the DES's tolerances "
          f"(IOPS {IOPS_TOLERANCE:.0%}, mean latency {LATENCY_TOLERANCE:.0%})")
    print(f"misses among the answers run in the DES: {misses}; flagged by no caveat: {unflagged_before} without the "
          f"platoon caveat, {unflagged_after} with it")
    for name, qd, e, s, miss in sorted(rows, key=lambda r: -r[2]):
        print(f"  {name:16s} QD {qd:3d}  model IOPS {e * 100:+6.1f} %  skeleton {s * 100:+6.1f} %  (vs DES)  "
              f"{'MISS' if miss else 'within'}")
    print(f"platoon stage (whatif's answer where the check looks): {staged} answers; misses: the route MVA "
          f"{staged_route_misses}, the stage {staged_misses}"
          + (f"; whatif there a median {statistics.median(staged_seconds) * 1e3:.0f} ms, worst "
             f"{max(staged_seconds) * 1e3:.0f} ms" if staged_seconds else ""))
    if added:
        slow = sorted(a for a in added if a > 2e-3)
        print(f"time the check adds to whatif: median {statistics.median(added) * 1e3:.2f} ms over all answers; "
              f"{len(slow)} answers over 2 ms" + (f" (median {statistics.median(slow) * 1e3:.1f} ms, worst "
                                                  f"{slow[-1] * 1e3:.1f} ms)" if slow else ""))


if __name__ == "__main__":
    main()
