"""The routed stage alone (queueing/routed_stage.py): what it buys the route MVA against the DES, and what its
estimate costs against the exact chain it estimates. Asserts nothing; prints measured figures.

    .venv/bin/python benchmarks/routed_stage_vs_des.py [--requests N]
                                                       [--hypothesis SEED [SEED ...] --sizes 4|mixed
                                                        --configs 300 --des-cache FILE]

1. The estimate against the exact Markov chain of one station with one service time, which runs in slots
   (``tests/model/test_routed_stage.py``'s reference), on small stages: both answers, the estimate's error,
   both times and their ratio.
2. ``configs/gallery/reads-over-two-one-die-channels.toml`` (16 KiB reads over two channels of one die each)
   swept over the queue depth: the route MVA without and with the stage, and the DES (``--requests``, default
   300,000), with the channels' utilisation in each.
3. With ``--hypothesis``: fresh draws of ``benchmarks/model_vs_des.py``'s strategies (its ``--des-cache``
   is shared), ``whatif`` without and with the stage against the DES's 60,000-request runs: how many answers
   move, the misses that move into or out of the tolerances, and the mean absolute IOPS error of those that
   move; and whether the stage alone bounds the DES: its largest excesses over it, with the DES's own CI.
"""

import argparse
import json
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from model_vs_des import des_iops_and_latency, hypothesis_configs, load_des_cache  # noqa: E402

import ssdco.model.queueing.periodic as periodic  # noqa: E402
import ssdco.model.whatif as whatif  # noqa: E402
from ssdco.atomic import write_text_atomic  # noqa: E402
from ssdco.model.queueing.route_mva import ALL_FEATURES, ROUTED_STAGE, solve_route  # noqa: E402
from ssdco.model.queueing.routed_stage import RoutedStage, routed_stage_per_us, routed_stages  # noqa: E402
from ssdco.network.build import build_network  # noqa: E402
from ssdco.sim.des import simulate  # noqa: E402
from ssdco.spec import config_from_dict  # noqa: E402
from ssdco.validation.compare import IOPS_TOLERANCE, LATENCY_TOLERANCE  # noqa: E402
from tests.gallery import gallery  # noqa: E402
from tests.model.test_routed_stage import _exact_per_slot  # noqa: E402

SMALL_STAGES = ((2, 1, 2, 1), (3, 2, 2, 1), (2, 3, 3, 1), (3, 2, 2, 2), (4, 1, 3, 1), (5, 2, 2, 1), (4, 2, 3, 1))


def evaluate(d: dict, with_stage: bool):
    """whatif on ``d``, with or without the routed stage's bound (route_mva.ROUTED_STAGE; also in the convoy
    estimate's route solve, periodic.py)."""
    config = config_from_dict(d)
    network = build_network(config)
    saved = whatif.solve_route, periodic.solve_route
    if not with_stage:
        whatif.solve_route = periodic.solve_route = partial(solve_route, features=ALL_FEATURES & ~ROUTED_STAGE)
    try:
        return network, whatif.evaluate_network(config, network)
    finally:
        whatif.solve_route, periodic.solve_route = saved


def against_the_exact_chain() -> None:
    print("1. the estimate against the exact chain (requests per slot)")
    routed_stage_per_us(2, (1,), (1.0,), (RoutedStage("die", 2, 1, 1.0, 1.0, 1.0),), seed=0)  # compile
    for population, t, copies, servers in SMALL_STAGES:
        t0 = time.perf_counter()
        exact = _exact_per_slot(population, t, copies, servers)
        t_exact = time.perf_counter() - t0
        t0 = time.perf_counter()
        estimate = routed_stage_per_us(population, (t,), (1.0,), (RoutedStage("die", copies, servers, 1.0, 1.0, 1.0),))
        t_estimate = time.perf_counter() - t0
        print(f"  N {population}, T {t}, {copies} copies x {servers}: exact {exact:.5f} ({t_exact * 1e3:7.1f} ms), "
              f"estimate {estimate:.5f} ({t_estimate * 1e3:5.1f} ms), error {estimate / exact - 1:+.3%}, "
              f"time ratio {t_exact / t_estimate:.1f}")


def queue_depth_sweep(requests: int) -> None:
    print(f"2. reads-over-two-one-die-channels over the queue depth (DES {requests:,} requests)")
    for qd in (4, 7, 10, 14, 20, 28, 40, 64):
        d = gallery("reads-over-two-one-die-channels")
        d["workload"]["queue_depth"] = qd
        _, without = evaluate(d, False)
        network, with_stage = evaluate(d, True)
        des = simulate(network, requests=requests, seed=1)
        x = des.iops.value
        print(f"  QD {qd:2d}: without {without.iops / x - 1:+.2%}, with {with_stage.iops / x - 1:+.2%} "
              f"(DES 95 % CI +-{des.iops.relative_half_width:.2%}); channels busy: without "
              f"{without.utilization['channel']:.3f}, with {with_stage.utilization['channel']:.3f}, "
              f"DES {des.utilization['channel']:.3f}")


def fresh_draws(seeds: list[int], sizes: str, configs: int, cache_path: Path | None) -> None:
    print(f"3. fresh draws ({sizes}), seeds {', '.join(map(str, seeds))}, without and with the stage")
    cache = load_des_cache(cache_path) if cache_path is not None else None
    moved, into, out_of, total = [], [], [], 0
    above = []  # (DES / the stage alone - 1, DES relative CI, queue depth, seed, draw) where a stage applies
    try:
        for seed in seeds:
            for i, d in enumerate(hypothesis_configs(configs, seed, sizes)):
                _, without = evaluate(d, False)
                network, with_stage = evaluate(d, True)
                total += 1
                stages = routed_stages(network)
                if stages or abs(with_stage.iops / without.iops - 1) > 1e-12:
                    x, r, ci, _ = des_iops_and_latency(d, network, 60_000, i, cache)
                if stages:
                    alone = routed_stage_per_us(network.queue_depth, network.transactions, network.request_probs,
                                                stages) * 1e6
                    above.append((x / alone - 1, ci, network.queue_depth, seed, i))
                if abs(with_stage.iops / without.iops - 1) <= 1e-12:
                    continue
                e = [(m.iops / x - 1, m.latency_mean_us / r - 1) for m in (without, with_stage)]
                ok = [abs(a) <= IOPS_TOLERANCE and abs(b) <= LATENCY_TOLERANCE for a, b in e]
                moved.append((e[0][0], e[1][0]))
                if ok[1] and not ok[0]:
                    into.append((seed, i, e[0][0], e[1][0]))
                elif ok[0] and not ok[1]:
                    out_of.append((seed, i, e[0][0], e[1][0]))
    finally:
        if cache is not None:
            write_text_atomic(cache_path, json.dumps(cache))
    errors = np.abs(np.array(moved)) if moved else np.zeros((0, 2))
    print(f"  {total} draws, {len(moved)} moved; mean |IOPS error| of those "
          f"{errors[:, 0].mean() if moved else 0:.2%} -> {errors[:, 1].mean() if moved else 0:.2%}")
    for label, rows in (("into the tolerances", into), ("out of the tolerances", out_of)):
        print(f"  {label}: {len(rows)}"
              + "".join(f"\n    seed {s} draw {i}: {a:+.2%} -> {b:+.2%}" for s, i, a, b in rows))
    if above:  # is the stage alone a bound? the DES's excess over it, against the DES's own CI
        near = [e for e, _, q, _, _ in above if e > -0.03 and q >= 20]
        print(f"  the stage alone applies to {len(above)} draws; the DES above it on {sum(e > 0 for e, *_ in above)}"
              + (f"; within 3 % of it at QD >= 20: {len(near)}, median DES / stage - 1 {np.median(near):+.2%}"
                 if near else ""))
        for e, ci, q, s, i in sorted(above, reverse=True)[:5]:
            print(f"    seed {s} draw {i} (QD {q}): DES {e:+.2%} above the stage alone (DES 95 % CI +-{ci:.2%})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=300_000, help="DES requests per queue depth in 2.")
    ap.add_argument("--hypothesis", type=int, nargs="+", metavar="SEED", help="3.: the seeds to draw")
    ap.add_argument("--sizes", choices=("4", "mixed"), default="mixed")
    ap.add_argument("--configs", type=int, default=300)
    ap.add_argument("--des-cache", type=Path, help="model_vs_des.py's DES cache, shared")
    args = ap.parse_args()
    if args.requests < 1_000:
        ap.error(f"--requests: expected an integer >= 1000, got {args.requests}")
    against_the_exact_chain()
    queue_depth_sweep(args.requests)
    if args.hypothesis:
        fresh_draws(args.hypothesis, args.sizes, args.configs, args.des_cache)


if __name__ == "__main__":
    main()
