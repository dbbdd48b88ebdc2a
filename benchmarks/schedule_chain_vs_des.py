"""The Markov chain of the requests' draws (``queueing/schedule_chain.py``) against the DES, beside the route
MVA it replaces, at queue depths 2 to 5 (``--max-queue-depth``: up to ``CHAIN_MAX_QUEUE_DEPTH``, 8) with
deterministic service.

Configurations: the acceptance test's Hypothesis strategies (``tests/strategies.py``; one-transaction and
8-16 KiB requests, queue depth 1-5, or to ``--max-queue-depth``) with the given seeds, and uniformly sampled
designs (``ssdco.validation.random_designs``, 4/8/16 KiB) at a queue depth drawn from 2-5 (or to
``--max-queue-depth``) by their seed. For each closed configuration at queue depth 2 or more it times ``whatif``,
and where ``whatif`` took the chain (``method`` "markov-chain") prints the route MVA's and the chain's errors
against the DES (IOPS, mean latency, p99 estimate), the chain's states and its lumping grid. Then: how many
configurations the chain solved, how many of them each solver has within the acceptance tolerances (IOPS 3 %,
mean latency 10 %), the worst errors, the time ``whatif`` took (median, 95th percentile, worst), and for the
configurations where the chain outgrew its state budget, what ``whatif`` used instead and how far that was off,
inside and outside the set its caveat flags (``route_mva_at_risk``).

Run: ``.venv/bin/python benchmarks/schedule_chain_vs_des.py [--seeds 20261123 20261125] [--draws 150]
[--random 200] [--first-seed 0] [--max-queue-depth 5] [--requests 60000]`` (about 5 minutes with the defaults
on one core, 2026-11-27; 6 minutes with another job on the second core and the chain's refine step at QD 3-4).
Prints measured errors; asserts nothing.
"""

import argparse
import sys
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ssdco.model.caveats import CHAIN_OUTGROWN_CAVEAT_MAX_QUEUE_DEPTH, route_mva_at_risk
from ssdco.model.queueing.route_mva import request_alone_us
from ssdco.model.queueing.schedule_chain import attempt_chain, schedule_chain
from ssdco.model.solvers import SCHEDULES, all_but
from ssdco.model.solvers.schedules import CHAIN_MAX_QUEUE_DEPTH
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import build_network
from ssdco.sim.des import simulate
from ssdco.spec import config_from_dict
from ssdco.validation.compare import IOPS_TOLERANCE, LATENCY_TOLERANCE
from ssdco.validation.random_designs import random_config

sys.path.insert(0, str(Path(__file__).resolve().parent))
from model_vs_des import hypothesis_configs  # noqa: E402

# The chain's benchmarks draw their sets to queue depth 5 by default, the range the docs' figures were measured
# on; whatif has tried the chain up to CHAIN_MAX_QUEUE_DEPTH (8) since 2026-11-27 (--max-queue-depth 8).
DOCUMENTED_MAX_QUEUE_DEPTH = 5


class Leftover(NamedTuple):
    """A configuration the chain did not solve: what ``whatif`` answered with and how far off it was."""

    name: str
    method: str
    errors: tuple[float, float]  # IOPS, mean latency, relative to the DES
    outgrown: bool  # the chain applied but outgrew its state budget (the route MVA answered)
    flagged: bool  # and whatif's caveat flags it (route_mva_at_risk)
    seconds: float  # whatif's time


def _within(e) -> bool:
    return abs(e[0]) <= IOPS_TOLERANCE and abs(e[1]) <= LATENCY_TOLERANCE


def chain_designs(seeds, draws: int, random: int, first_seed: int,
                  max_qd: int = DOCUMENTED_MAX_QUEUE_DEPTH) -> list[tuple[str, dict]]:
    """(name, configuration dict): ``draws`` Hypothesis draws per seed and request-size setting at queue depth
    1 to ``max_qd``, then ``random`` uniformly sampled designs from ``first_seed`` on, each at a queue depth of 2
    to ``max_qd`` chosen by its seed."""
    designs = [(f"draw {seed}:{sizes}:{i}", d) for seed in seeds for sizes in ("4", "mixed")
               for i, d in enumerate(hypothesis_configs(draws, seed, sizes, max_qd=max_qd))]
    for seed in range(first_seed, first_seed + random):
        d = random_config(seed, mixed_sizes=True)
        d["workload"]["queue_depth"] = 2 + seed % (max_qd - 1)
        designs.append((f"random {seed}", d))
    return designs


def add_design_arguments(ap: argparse.ArgumentParser, seeds=(20261123, 20261125), draws: int = 150,
                         random: int = 200) -> None:
    """The options that choose :func:`chain_designs`' set (``--seeds``, ``--draws``, ``--random``,
    ``--first-seed``, ``--max-queue-depth``), with these defaults; the chain benchmarks share them."""
    ap.add_argument("--seeds", type=int, nargs="*", default=list(seeds),
                    help="Hypothesis seeds, one draw of --draws configurations per seed and request-size setting")
    ap.add_argument("--draws", type=int, default=draws)
    ap.add_argument("--random", type=int, default=random, help="uniformly sampled designs (seeds S .. S + N - 1)")
    ap.add_argument("--first-seed", type=int, default=0, help="S, the first uniform design's seed")
    ap.add_argument("--max-queue-depth", type=int, default=DOCUMENTED_MAX_QUEUE_DEPTH,
                    choices=range(2, CHAIN_MAX_QUEUE_DEPTH + 1), metavar=f"2..{CHAIN_MAX_QUEUE_DEPTH}",
                    help=f"the deepest queue depth drawn and measured (default {DOCUMENTED_MAX_QUEUE_DEPTH}: the "
                         "sets whose figures the docs quote)")


def designs_chosen(args: argparse.Namespace) -> list[tuple[str, dict]]:
    """:func:`chain_designs` for the options of :func:`add_design_arguments`."""
    return chain_designs(args.seeds, args.draws, args.random, args.first_seed, args.max_queue_depth)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_design_arguments(ap)
    ap.add_argument("--requests", type=int, default=60_000)
    args = ap.parse_args()
    designs = designs_chosen(args)
    t0 = time.perf_counter()
    chain_rows, other_rows, seconds = [], [], []
    print(f"{'configuration':>26s}  QD  route MVA IOPS / latency / p99      chain IOPS / latency / p99      "
          "states   grid   whatif")
    for name, d in designs:
        config = config_from_dict(d)
        network = build_network(config)
        if network.queue_depth is None or not 2 <= network.queue_depth <= args.max_queue_depth:
            continue
        tic = time.perf_counter()
        model = evaluate_network(config, network)
        seconds.append(time.perf_counter() - tic)
        if model.method == "periodic-schedule":
            continue  # exact where it applies (benchmarks/periodic_vs_des.py)
        des = simulate(network, requests=args.requests, seed=1)
        if model.method != "markov-chain":
            e = (model.iops / des.iops.value - 1, model.latency_mean_us / des.mean_latency_us.value - 1)
            zero = request_alone_us(network)
            outgrown = attempt_chain(network, zero).outgrown  # a memo hit
            at_risk = (outgrown and network.queue_depth <= CHAIN_OUTGROWN_CAVEAT_MAX_QUEUE_DEPTH
                       and route_mva_at_risk(network, (model.bottleneck, model.utilization[model.bottleneck])))
            other_rows.append(Leftover(name, model.method, e, outgrown, at_risk, seconds[-1]))
            continue
        route = evaluate_network(config, network, solvers=all_but(*SCHEDULES))
        e_route, e_chain = ((r.iops / des.iops.value - 1, r.latency_mean_us / des.mean_latency_us.value - 1,
                             r.latency_p99_us / des.p99_us - 1) for r in (route, model))
        zero = request_alone_us(network)
        chain = schedule_chain(network, zero)
        chain_rows.append((e_route, e_chain))
        print(f"{name:>26s}  {network.queue_depth:2d}  {e_route[0]:+7.2%} / {e_route[1]:+7.2%} / {e_route[2]:+7.2%}   "
              f"{e_chain[0]:+7.3%} / {e_chain[1]:+7.3%} / {e_chain[2]:+7.2%}  {chain.states:7d}  "
              f"{chain.grid_us / zero:5.1%}  {seconds[-1]:6.3f} s")
    t = np.array(seconds)
    print(f"{len(designs)} configurations, {len(t)} closed at QD 2-{args.max_queue_depth}, "
          f"{time.perf_counter() - t0:.1f} s")
    if chain_rows:
        n = len(chain_rows)
        print(f"the chain solved {n}: within IOPS {IOPS_TOLERANCE:.0%} and latency {LATENCY_TOLERANCE:.0%}: "
              f"chain {sum(_within(c) for _, c in chain_rows)}/{n}, "
              f"route MVA {sum(_within(r) for r, _ in chain_rows)}/{n}")
        worst_chain = max((c[0] for _, c in chain_rows), key=abs)
        worst_route = max((r[0] for r, _ in chain_rows), key=abs)
        p99 = np.array([c[2] for _, c in chain_rows])
        print(f"worst IOPS error: chain {worst_chain:+.3%}, route MVA {worst_route:+.2%}; chain p99 estimate within "
              f"15 % of the DES on {int(np.sum(np.abs(p99) <= 0.15))}/{n}")
    print(f"whatif at QD 2-{args.max_queue_depth}: median {np.median(t) * 1e3:.1f} ms, 95th percentile "
          f"{np.quantile(t, 0.95) * 1e3:.0f} ms, worst {t.max() * 1e3:.0f} ms")
    misses = [row for row in other_rows if not _within(row.errors)]
    print(f"not solved by the chain (outgrew its budget or out of its scope): {len(other_rows)}, "
          f"{len(misses)} of them outside the tolerances")
    outgrown = [row for row in other_rows if row.outgrown]
    route = [r for r in outgrown if r.method == "route-mva"]
    groups = [(f"the {method} answered", [r for r in outgrown if r.method == method])
              for method in sorted({r.method for r in outgrown} - {"route-mva"})]
    groups += [("the route MVA answered, flagged (whatif's caveat)", [r for r in route if r.flagged]),
               ("the route MVA answered, not flagged", [r for r in route if not r.flagged])]
    for label, rows in groups:
        errors = [r.errors[0] for r in rows if not _within(r.errors)]
        span = f", IOPS {min(errors):+.1%} to {max(errors):+.1%}" if errors else ""
        print(f"  the chain outgrew its budget and {label}: {len(rows)}, {len(errors)} outside{span}")
    if outgrown:
        give_up = np.array([r.seconds for r in outgrown])
        slowest = max(outgrown, key=lambda r: r.seconds)
        print(f"  whatif where the chain outgrew its budget: median {np.median(give_up):.2f} s, worst "
              f"{give_up.max():.2f} s ({slowest.name})")
    for r in misses:
        where = "flagged" if r.flagged else "outgrew, not flagged" if r.outgrown else "out of the chain's scope"
        print(f"  {r.name}: {r.method} IOPS {r.errors[0]:+.2%}, latency {r.errors[1]:+.2%} ({where})")


if __name__ == "__main__":
    main()
