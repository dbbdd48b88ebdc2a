"""Model-vs-DES agreement on uniformly sampled random configurations (complements the Hypothesis-based
acceptance test, whose examples lean towards extreme values). Prints how many configurations meet the
IOPS (3 %) and mean-latency (10 %) tolerances and the largest errors, each with the DES's own 95 % confidence
half-width (an error inside it is the simulation's noise, not the model's).

    .venv/bin/python benchmarks/model_vs_des.py [--configs 100] [--requests N] [--sizes 4|mixed]
                                                [--open LOAD] [--hypothesis SEED] [--des-cache FILE]
                                                [--confirm N] [--spread SCV]

``--open 0.8`` runs each configuration as an open workload (Poisson arrivals) at that fraction of its
capacity bound instead of at its queue depth; IOPS are then the arrival rate in both, so only the mean
latency (10 %) is compared. ``--requests`` defaults to 60,000 closed and 200,000 open: at 80 % load a die
that mixes reads and programs leaves the mean latency of 60,000 requests a 95 % CI of up to +-12 %.

``--hypothesis SEED`` draws the configurations instead from the acceptance test's Hypothesis strategies
(``tests/strategies.py``; ``--sizes 4``: one transaction per request, ``mixed``: 8-16 KiB requests), seeded
with SEED rather than derandomized: a fresh set like the test's, to see how far its pinned draws generalise.
Hypothesis may repeat a configuration, so fewer than ``--configs`` distinct ones can come out; the count is
printed.

``--confirm N`` (closed only) runs the DES again on every miss, N requests from another seed, and prints the
model's errors against that run too: a miss that is the short DES's noise, or a pattern it had not yet left
(ssdco/sim/replications.py), then shows up as such. Of the 13 misses among the 1,733 cached
comparisons of 2026-11-25, two were (1,000,000 requests: +3.62 % to +2.76 % and +3.16 % to +2.68 %); the other
11 moved by at most 0.4 %. Each confirmed miss for which whatif reports a start pattern (``Result.start_pattern``)
also shows the model's start-pattern IOPS against that run and its expected length; the summary counts the misses
whose first run is within the IOPS tolerance of it (``ssdco validate`` says UNSETTLED there).

``--spread SCV`` (closed only) runs the DES once more on every miss with every service time spread to that
squared coefficient of variation (the config's ``[variability]`` firmware_scv, nand_scv and host_scv; the same
requests and seed as the first run), and prints the model's errors against it. A miss that a small spread
(0.001: a 3 % coefficient of variation) removes rests on the DES's exactly constant timings, which let requests
lock in step (docs/accuracy.md, "The idle bound's factor as a square root": 20261297 #6, +4.1 % -> +0.7 %); of the
87 cached misses of 2026-11-28 tried so, four more behaved like that and the others barely moved.

For work on the analytic model: ``--des-cache FILE`` keeps each DES result (keyed by the configuration, the
request count, the seed and a fingerprint of ssdco's source outside ``ssdco/model``), so after a change to
the model a rerun only re-solves the model: seconds instead of a minute per 100 configurations.
"""

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

from ssdco.atomic import write_text_atomic
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import build_network
from ssdco.sim.des import simulate
from ssdco.spec import config_from_dict
from ssdco.sweep_runner import source_fingerprint
from ssdco.validation.compare import IOPS_TOLERANCE, LATENCY_TOLERANCE
from ssdco.validation.random_designs import open_at, random_config

ROOT = Path(__file__).resolve().parent.parent
DEPTH_BANDS = (("1", 1, 1), ("2", 2, 2), ("3", 3, 3), ("4", 4, 4), ("5-16", 5, 16), (">16", 17, 10**9))


def hypothesis_configs(count: int, seed: int, sizes: str, **strategy_args) -> list[dict]:
    """Up to ``count`` distinct configuration dicts drawn by the acceptance test's strategies
    (tests/strategies.py; ``strategy_args`` go to its ``config_dicts``) from Hypothesis seeded with ``seed``,
    in drawing order. As in the test (tests/conftest.py), Hypothesis harvests no constants from ssdco's
    source, so the draws depend only on the seed and the strategies."""
    sys.path.insert(0, str(ROOT))
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    import tests.conftest as pins
    from tests.strategies import config_dicts

    strategy = (config_dicts(fixed_size=True, **strategy_args) if sizes == "4"
                else config_dicts(**strategy_args).filter(lambda d: d["workload"]["request_size_kib"] > 4))
    drawn: dict[str, dict] = {}

    @hypothesis_seed(seed)
    @settings(max_examples=count, derandomize=False, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(d):
        drawn.setdefault(json.dumps(d, sort_keys=True), d)

    if pins._providers is not None:
        saved = pins._providers._get_local_constants
        pins._providers._get_local_constants = lambda: pins._NO_CONSTANTS
        pins._CONSTANT_POOLS.clear()
    try:
        collect()
    finally:
        if pins._providers is not None:
            pins._providers._get_local_constants = saved
            pins._CONSTANT_POOLS.clear()
    return list(drawn.values())


def load_des_cache(path: Path) -> dict:
    """The DES results kept in ``path`` (``--des-cache``), or an empty cache where there is none or the DES's
    source has changed since (its fingerprint: ssdco's source outside ``ssdco/model``, on which it does not
    depend). Write it back with ``write_text_atomic(path, json.dumps(cache))``."""
    simulator = source_fingerprint(exclude=("model",))
    if path.exists():
        stored = json.loads(path.read_text())
        if stored.get("simulator") == simulator:
            return stored
    return {"simulator": simulator, "results": {}}


def errors_against(model, des) -> tuple[float, float, bool]:
    """The model's IOPS and mean-latency errors relative to the DES result ``des`` (model / DES - 1), and whether
    both are within the tolerances."""
    x = model.iops / des.iops.value - 1
    r = model.latency_mean_us / des.mean_latency_us.value - 1
    return x, r, abs(x) <= IOPS_TOLERANCE and abs(r) <= LATENCY_TOLERANCE


def des_iops_and_latency(d: dict, network, requests: int, seed: int,
                         cache: dict | None) -> tuple[float, float, float, float]:
    """(IOPS, mean latency in us, and their 95 % confidence half-widths relative to the value) of the DES for
    configuration ``d``, from ``cache`` when it holds them (an entry cached without the half-widths is run
    again)."""
    key = None
    if cache is not None:
        key = hashlib.sha256(json.dumps([d, requests, seed, cache["simulator"]], sort_keys=True).encode()).hexdigest()
        if len(cache["results"].get(key, ())) == 4:
            return tuple(cache["results"][key])
    des = simulate(network, requests=requests, seed=seed)
    result = (des.iops.value, des.mean_latency_us.value, des.iops.relative_half_width,
              des.mean_latency_us.relative_half_width)
    if cache is not None:
        cache["results"][key] = list(result)
    return result


def cached_draws(seeds: list[int], sizes: str, configs: int, cache_dir: Path | None):
    """Each seed's Hypothesis draws as (seed, index, draw, config, network, DES cache), the cache that seed's
    ``fc_SEED_SIZES.json`` in ``cache_dir`` (None without one), written back once the seed's draws are done."""
    for seed in seeds:
        path = None if cache_dir is None else cache_dir / f"fc_{seed}_{sizes}.json"
        cache = load_des_cache(path) if path is not None else None
        for i, d in enumerate(hypothesis_configs(configs, seed, sizes)):
            config = config_from_dict(d)
            yield seed, i, d, config, build_network(config), cache
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(path, json.dumps(cache))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configs", type=int, default=100)
    ap.add_argument("--requests", type=int, default=None,
                    help="DES requests per configuration (default 60,000 closed, 200,000 open)")
    ap.add_argument("--sizes", choices=("4", "mixed"), default="4")
    ap.add_argument("--open", type=float, metavar="LOAD",
                    help="open workload at this fraction of each configuration's capacity (0 < LOAD < 1)")
    ap.add_argument("--hypothesis", type=int, metavar="SEED",
                    help="draw the configurations from the acceptance test's Hypothesis strategies with this seed")
    ap.add_argument("--des-cache", type=Path, help="JSON file of DES results reused across runs (see above)")
    ap.add_argument("--confirm", type=int, metavar="N",
                    help="rerun the DES on every miss with N requests from another seed (closed only, see above)")
    ap.add_argument("--spread", type=float, metavar="SCV",
                    help="rerun the DES on every miss with every service time of this scv (closed only, see above)")
    args = ap.parse_args()
    if args.confirm is not None and (args.confirm < 1_000 or args.open is not None):
        ap.error(f"--confirm: expected an integer >= 1000 and a closed workload, got {args.confirm}")
    if args.spread is not None and (not args.spread > 0.0 or args.open is not None):
        ap.error(f"--spread: expected an scv > 0 and a closed workload, got {args.spread}")
    if args.open is not None and not 0.0 < args.open < 1.0:
        ap.error(f"--open: expected a load between 0 and 1, got {args.open}")
    if args.requests is None:
        args.requests = 60_000 if args.open is None else 200_000
    elif args.requests < 1:
        ap.error(f"--requests: expected an integer >= 1, got {args.requests}")
    cache = load_des_cache(args.des_cache) if args.des_cache else None
    rows = []
    models = {}  # seed -> (network, model result) for --confirm
    configs = {}  # seed -> the configuration's dict, for --spread
    ci = {}  # seed -> the DES's relative 95 % half-widths (IOPS, mean latency)
    depth = {}  # seed -> queue depth
    flagged = {}  # seed -> whatif printed a caveat (a known disagreement with the DES)
    in_start = {}  # seed -> the DES run is within the IOPS tolerance of the model's start pattern (whatif)
    t0 = time.perf_counter()
    if args.hypothesis is not None:
        drawn = hypothesis_configs(args.configs, args.hypothesis, args.sizes)
    else:
        drawn = [random_config(seed, args.sizes == "mixed") for seed in range(args.configs)]
    for seed, d in enumerate(drawn):
        config = config_from_dict(d)
        if args.open is not None:
            d = open_at(d, args.open)
            config = config_from_dict(d)
        network = build_network(config)
        model = evaluate_network(config, network)
        des_iops, des_latency_us, ci_iops, ci_latency = des_iops_and_latency(d, network, args.requests, seed, cache)
        rows.append((model.iops / des_iops - 1, model.latency_mean_us / des_latency_us - 1, seed))
        depth[seed] = network.queue_depth
        flagged[seed] = bool(model.caveats)
        start = model.start_pattern
        in_start[seed] = start is not None and abs(start.iops / des_iops - 1.0) <= IOPS_TOLERANCE
        ci[seed] = (ci_iops, ci_latency)
        models[seed] = (network, model)
        configs[seed] = d
    if cache is not None:
        write_text_atomic(args.des_cache, json.dumps(cache))
    within = sum(abs(x) <= IOPS_TOLERANCE and abs(r) <= LATENCY_TOLERANCE for x, r, _ in rows)
    errs = np.array([x for x, _, _ in rows])
    workload = "closed" if args.open is None else f"open at {args.open:.0%} of capacity"
    label = "draw" if args.hypothesis is not None else "seed"  # how the rows below name a configuration
    source = (f"drawn by Hypothesis (seed {args.hypothesis}) from tests/strategies.py" if args.hypothesis is not None
              else "random configurations")
    kind = ("one-transaction" if args.hypothesis is not None else "4 KiB") if args.sizes == "4" else \
        ("8-16 KiB" if args.hypothesis is not None else "4/8/16 KiB")
    print(f"{len(rows)} {source} ({kind} requests, {workload}, deterministic), {args.requests:,} DES requests "
          f"each, {time.perf_counter() - t0:.1f} s")
    if args.open is not None:
        lat = np.array([r for _, r, _ in rows])
        within = int(np.sum(np.abs(lat) <= LATENCY_TOLERANCE))
        print(f"mean latency within {LATENCY_TOLERANCE:.0%}: {within}/{len(rows)}, "
              f"median |e| {np.median(np.abs(lat)):.2%}, worst {lat[np.argmax(np.abs(lat))]:+.2%}")
        for _, r, seed in sorted(rows, key=lambda t: -abs(t[1]))[:5]:
            print(f"  {label} {seed:3d}: latency {r:+.2%}  (DES 95 % CI +-{ci[seed][1]:.1%})")
        return
    print(f"within IOPS {IOPS_TOLERANCE:.0%} and latency {LATENCY_TOLERANCE:.0%}: {within}/{len(rows)}")
    print(f"IOPS error: median |e| {np.median(np.abs(errs)):.2%}, 95th pct |e| {np.quantile(np.abs(errs), 0.95):.2%}, "
          f"worst {errs[np.argmax(np.abs(errs))]:+.2%}")
    for x, r, seed in sorted(rows, key=lambda t: -abs(t[0]))[:5]:
        print(f"  {label} {seed:3d}: IOPS {x:+.2%}  latency {r:+.2%}  "
              f"(DES 95 % CI +-{ci[seed][0]:.1%} / +-{ci[seed][1]:.1%})")
    misses = [seed for x, r, seed in rows if abs(x) > IOPS_TOLERANCE or abs(r) > LATENCY_TOLERANCE]
    print(f"misses flagged by whatif (CAVEAT): {sum(flagged[s] for s in misses)} of {len(misses)}; "
          f"configurations flagged: {sum(flagged.values())}")
    print(f"misses whose DES run is still in the model's start pattern (validate: UNSETTLED): "
          f"{sum(in_start[s] for s in misses)} of {len(misses)}")
    by_depth = [(abs(x) <= IOPS_TOLERANCE and abs(r) <= LATENCY_TOLERANCE, depth[seed]) for x, r, seed in rows]
    print("within both tolerances by queue depth: " + ", ".join(
        f"QD {band} {sum(ok for ok, q in by_depth if lo <= q <= hi)}/{sum(lo <= q <= hi for _, q in by_depth)}"
        for band, lo, hi in DEPTH_BANDS if any(lo <= q <= hi for _, q in by_depth)))
    if args.confirm:
        confirmed = 0
        print(f"misses against a second DES run ({args.confirm:,} requests, seed + 1,000,000):")
        for x, r, seed in sorted(rows, key=lambda t: -abs(t[0])):
            if abs(x) <= IOPS_TOLERANCE and abs(r) <= LATENCY_TOLERANCE:
                continue
            network, model = models[seed]
            des = simulate(network, requests=args.confirm, seed=seed + 1_000_000)
            x2, r2, within2 = errors_against(model, des)
            still = not within2
            confirmed += still
            start = model.start_pattern
            held = (f"; the model's start pattern {start.iops / des.iops.value - 1.0:+.2%}, left after "
                    f"{start.settle_requests:,.0f} requests on average" if start is not None else "")
            print(f"  {label} {seed:3d} (QD {depth[seed]}): IOPS {x:+.2%} -> {x2:+.2%}  latency {r:+.2%} -> {r2:+.2%}  "
                  f"({'still a miss' if still else 'within tolerance'}; CI +-{des.iops.relative_half_width:.2%}{held})")
        print(f"misses confirmed by the second run: {confirmed} of {len(misses)}")
    if args.spread:
        print(f"misses against a DES run with every service time of scv {args.spread:g} ({args.requests:,} requests):")
        scvs = {f"{part}_scv": args.spread for part in ("firmware", "nand", "host")}
        for x, r, seed in sorted(rows, key=lambda t: -abs(t[0])):
            if abs(x) <= IOPS_TOLERANCE and abs(r) <= LATENCY_TOLERANCE:
                continue
            spread = {**configs[seed], "variability": scvs}
            des = simulate(build_network(config_from_dict(spread)), requests=args.requests, seed=seed)
            x2, r2, inside = errors_against(models[seed][1], des)
            print(f"  {label} {seed:3d} (QD {depth[seed]}): IOPS {x:+.2%} -> {x2:+.2%}  latency {r:+.2%} -> {r2:+.2%}"
                  f"{'  (within tolerance with the spread)' if inside else ''}")


if __name__ == "__main__":
    main()
