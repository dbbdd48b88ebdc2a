"""The exact periodic schedule and the convoy estimate (``ssdco/model/queueing/periodic.py``) against the DES, beside
the route MVA they replace.

The schedule applies to closed workloads of one deterministic route (one operation, one request size, no
random FTL events) at queue depth 2-8, and only where it does not depend on the addresses. It is exact for
the orbit it finds; whether the DES, from its own start, settles in that orbit is what this measures. The
configurations are drawn from the acceptance test's strategies (``tests/strategies.py``, one transaction
per request, queue depth 1-8) with Hypothesis seeds, and uniformly sampled designs
(``ssdco.validation.random_designs``, 4 KiB) are added. For each configuration that gets a schedule it prints
the route MVA's and the schedule's errors against the DES (IOPS, mean latency, p99) and the time the search
took; then how many configurations got one and how many of them each solver has within the acceptance
tolerances (IOPS 3 %, mean latency 10 %). The same for the configurations where ``whatif`` takes the convoy
estimate (no schedule, one transaction per request, queue depth 2-12, the convoy above the route MVA); there the
p99 is an estimate. The Hypothesis draws stay at queue depth 1-8 (the schedule's range), so the convoy's answers
at queue depth 9-12 come from the uniform designs. The schedule's p99 is that of its orbit, which the DES need
not settle in. Where the schedule's start had a wait at a collapsed die or channel, ``whatif`` checks with the
Markov chain of the draws where the requests settle and may answer with the chain instead; those configurations are
counted and summarised apart.

Run: ``.venv/bin/python benchmarks/periodic_vs_des.py [--seeds 20261123 20261124] [--draws 150]
[--random 400] [--first-seed 0] [--both-sizes] [--requests 60000]`` (about a minute with the defaults).
Prints measured errors; asserts nothing.
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from ssdco.model.queueing.periodic import CONVOY_MAX_QUEUE_DEPTH, MAX_QUEUE_DEPTH, periodic_schedule
from ssdco.model.solvers import SCHEDULES, all_but
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import build_network
from ssdco.sim.des import simulate
from ssdco.spec import config_from_dict
from ssdco.validation.compare import IOPS_TOLERANCE, LATENCY_TOLERANCE
from ssdco.validation.random_designs import random_config

sys.path.insert(0, str(Path(__file__).resolve().parent))
from model_vs_des import hypothesis_configs  # noqa: E402

# whatif's answer where the schedule applies but the chain's check of its start replaced it
# (whatif.ORBIT_MATCH_TOLERANCE)
START_CHECK = "markov-chain (the schedule's start check)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="*", default=[20261123, 20261124],
                    help="Hypothesis seeds, one draw of --draws configurations each")
    ap.add_argument("--draws", type=int, default=150)
    ap.add_argument("--random", type=int, default=400, help="uniformly sampled designs (seeds S .. S + N - 1)")
    ap.add_argument("--first-seed", type=int, default=0, help="S, the first uniform design's seed")
    ap.add_argument("--both-sizes", action="store_true",
                    help="each uniform seed also with 4/8/16 KiB requests (those with one size can qualify)")
    ap.add_argument("--requests", type=int, default=60_000)
    args = ap.parse_args()
    designs = [(f"draw {seed}:{i}", d) for seed in args.seeds
               for i, d in enumerate(hypothesis_configs(args.draws, seed, "4", max_qd=MAX_QUEUE_DEPTH))]
    seeds = range(args.first_seed, args.first_seed + args.random)
    designs += [(f"random {seed}", random_config(seed, mixed_sizes=False)) for seed in seeds]
    if args.both_sizes:
        designs += [(f"random {seed} sizes", random_config(seed, mixed_sizes=True)) for seed in seeds]
    t0 = time.perf_counter()
    rows = {"periodic-schedule": [], "convoy-schedule": [], START_CHECK: []}
    start_waits = 0  # schedules whose start had a wait at a collapsed copy (whatif then checks with the chain)
    print(f"{'configuration':>20s}  QD  route MVA IOPS / latency / p99        {'method':17s} "
          "IOPS / latency / p99       whatif")
    for name, d in designs:
        config = config_from_dict(d)
        network = build_network(config)
        if network.queue_depth is None or not 2 <= network.queue_depth <= CONVOY_MAX_QUEUE_DEPTH:
            continue
        tic = time.perf_counter()
        model = evaluate_network(config, network)
        search_ms = (time.perf_counter() - tic) * 1e3
        schedule = periodic_schedule(network) if network.queue_depth <= MAX_QUEUE_DEPTH else None
        start_waits += schedule is not None and schedule.start_routed_waits > 0
        method = START_CHECK if schedule is not None and model.method == "markov-chain" else model.method
        if method not in rows:
            continue
        route = evaluate_network(config, network, solvers=all_but(*SCHEDULES))
        des = simulate(network, requests=args.requests, seed=1)
        e_route, e_model = ((r.iops / des.iops.value - 1, r.latency_mean_us / des.mean_latency_us.value - 1,
                             r.latency_p99_us / des.p99_us - 1) for r in (route, model))
        rows[method].append((e_route, e_model))
        print(f"{name:>20s}  {network.queue_depth:2d}  {e_route[0]:+8.2%} / {e_route[1]:+8.2%} / {e_route[2]:+8.2%}   "
              f"{model.method:17s} {e_model[0]:+8.3%} / {e_model[1]:+8.3%} / {e_model[2]:+8.2%}   {search_ms:.1f} ms")
    print(f"{len(designs)} configurations, {time.perf_counter() - t0:.1f} s; {start_waits} schedules had a wait at a "
          f"collapsed copy before their period, {len(rows[START_CHECK])} of them replaced by the chain's check")

    def within(e):
        return abs(e[0]) <= IOPS_TOLERANCE and abs(e[1]) <= LATENCY_TOLERANCE

    for method, found in rows.items():
        if not found:
            print(f"{method}: no configuration")
            continue
        route_ok = sum(within(r) for r, _ in found)
        ok = sum(within(m) for _, m in found)
        brought_in = sum(within(m) and not within(r) for r, m in found)
        moved_out = sum(within(r) and not within(m) for r, m in found)
        low = min(m[0] for _, m in found)
        high = max(m[0] for _, m in found)
        worst_latency = max(abs(m[1]) for _, m in found)
        p99 = np.array([abs(m[2]) for _, m in found])
        p99_route = np.array([abs(r[2]) for r, _ in found])
        print(f"{method}: {len(found)} configurations; within IOPS {IOPS_TOLERANCE:.0%} and latency "
              f"{LATENCY_TOLERANCE:.0%}: route MVA {route_ok}, {method} {ok} ({brought_in} brought in, {moved_out} "
              f"moved out); its IOPS error {low:+.3%} to {high:+.3%}, worst |latency error| {worst_latency:.3%}; "
              f"p99 within 1 % / 10 %: {int(np.sum(p99 <= 0.01))} / {int(np.sum(p99 <= 0.1))}, worst "
              f"{p99.max():.2%} (route MVA {int(np.sum(p99_route <= 0.01))} / {int(np.sum(p99_route <= 0.1))}, "
              f"worst {p99_route.max():.2%})")


if __name__ == "__main__":
    main()
