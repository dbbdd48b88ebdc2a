"""Model-vs-DES agreement on uniformly sampled random configurations (complements the Hypothesis-based
acceptance test, whose examples lean towards extreme values). Prints how many configurations meet the
IOPS (3 %) and mean-latency (10 %) tolerances and the largest errors.

    .venv/bin/python benchmarks/model_vs_des.py [--configs 100] [--requests 60000] [--sizes 4|mixed]
                                                [--des-cache FILE]

For work on the analytic model: ``--des-cache FILE`` keeps each DES result (keyed by the configuration, the
request count, the seed and a fingerprint of ssdco's source outside ``ssdco/model``), so after a change to
the model a rerun only re-solves the model: seconds instead of a minute per 100 configurations.
"""

import argparse
import hashlib
import json
import os
import time
from pathlib import Path

import numpy as np

from ssdco.model.network import build_network
from ssdco.model.whatif import evaluate_network
from ssdco.spec import MODULES, config_from_dict
from ssdco.sweep import source_fingerprint
from ssdco.validation.compare import IOPS_TOLERANCE, LATENCY_TOLERANCE
from ssdco.validation.des import simulate

CORE_SPECS = {
    "fast": {"frequency_mhz": 1000.0, "idle_mw": 30.0, "active_mw": 100.0, "cost": 1.0},
    "slow": {"frequency_mhz": 100.0, "idle_mw": 2.0, "active_mw": 9.0, "cycle_scale": 1.2, "cost": 0.25},
}
ACCEL = {"latency_us": 0.2, "initiation_interval_us": 0.05, "idle_mw": 2.0, "energy_per_op_nj": 0.5}


def random_config(seed: int, mixed_sizes: bool) -> dict:
    """The same ranges as tests/strategies.py, sampled uniformly."""
    r = np.random.default_rng(seed)
    nand = {"channels": int(r.integers(1, 5)), "ways_per_channel": int(r.integers(1, 5)),
            "dies_per_chip": int(r.integers(1, 3)), "planes_per_die": int(r.integers(1, 5)),
            "independent_plane_reads": bool(r.integers(0, 2)), "t_read_us": float(r.uniform(10, 100)),
            "t_prog_us": float(r.uniform(100, 900)), "channel_rate_mts": float(r.choice([400.0, 800.0, 1200.0, 1600.0])),
            "ecc_overhead_fraction": 0.1}
    workload = {"read_fraction": float(r.choice([1.0, 0.7, 0.0])), "mapping_unit_kib": 4,
                "request_size_kib": int(r.choice([4, 8, 16])) if mixed_sizes else 4,
                "queue_depth": int(r.integers(1, 49))}
    accel = {m: int(r.integers(1, 4)) for m in MODULES if r.random() < 0.25}
    software = [m for m in MODULES if m not in accel]
    groups = []
    while software:
        k = int(r.integers(1, len(software) + 1))
        groups.append({"name": f"g{len(groups) + 1}", "spec": str(r.choice(sorted(CORE_SPECS))),
                       "count": int(r.integers(1, 4)), "modules": software[:k]})
        software = software[k:]
    controller = {"name": "random", "core_groups": groups}
    if accel:
        controller["accelerators"] = accel
    return {"name": f"random-{seed}", "nand": nand, "host": {"pcie_gen": int(r.choice([3, 4])), "pcie_lanes": 4},
            "core_specs": CORE_SPECS, "modules": {m: {"cycles": float(r.uniform(50, 2500))} for m in MODULES},
            "accelerator_specs": {m: ACCEL for m in MODULES},
            "dram": {"size_gib": 1.0, "background_mw_per_gib": 120.0, "access_energy_nj": 12.8},
            "workload": workload, "controller": controller}


def des_iops_and_latency(d: dict, network, requests: int, seed: int, cache: dict | None) -> tuple[float, float]:
    """(IOPS, mean latency in us) of the DES for configuration ``d``, from ``cache`` when it holds them."""
    key = None
    if cache is not None:
        key = hashlib.sha256(json.dumps([d, requests, seed, cache["simulator"]], sort_keys=True).encode()).hexdigest()
        if key in cache["results"]:
            return tuple(cache["results"][key])
    des = simulate(network, requests=requests, seed=seed)
    if cache is not None:
        cache["results"][key] = [des.iops.value, des.mean_latency_us.value]
    return des.iops.value, des.mean_latency_us.value


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configs", type=int, default=100)
    ap.add_argument("--requests", type=int, default=60_000)
    ap.add_argument("--sizes", choices=("4", "mixed"), default="4")
    ap.add_argument("--des-cache", type=Path, help="JSON file of DES results reused across runs (see above)")
    args = ap.parse_args()
    cache = None
    if args.des_cache:
        simulator = source_fingerprint(exclude=("model",))  # the DES does not depend on ssdco/model
        cache = {"simulator": simulator, "results": {}}
        if args.des_cache.exists():
            stored = json.loads(args.des_cache.read_text())
            if stored.get("simulator") == simulator:  # else the DES changed: start afresh
                cache = stored
    rows = []
    t0 = time.perf_counter()
    for seed in range(args.configs):
        d = random_config(seed, args.sizes == "mixed")
        config = config_from_dict(d)
        network = build_network(config)
        model = evaluate_network(config, network)
        des_iops, des_latency_us = des_iops_and_latency(d, network, args.requests, seed, cache)
        rows.append((model.iops / des_iops - 1, model.latency_mean_us / des_latency_us - 1, seed))
    if cache is not None:
        tmp = args.des_cache.with_name(f".{args.des_cache.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(cache))
        os.replace(tmp, args.des_cache)
    within = sum(abs(x) <= IOPS_TOLERANCE and abs(r) <= LATENCY_TOLERANCE for x, r, _ in rows)
    errs = np.array([x for x, _, _ in rows])
    print(f"{args.configs} random configurations ({'4 KiB' if args.sizes == '4' else '4/8/16 KiB'} requests, "
          f"closed, deterministic), {args.requests:,} DES requests each, {time.perf_counter() - t0:.1f} s")
    print(f"within IOPS {IOPS_TOLERANCE:.0%} and latency {LATENCY_TOLERANCE:.0%}: {within}/{len(rows)}")
    print(f"IOPS error: median |e| {np.median(np.abs(errs)):.2%}, 95th pct |e| {np.quantile(np.abs(errs), 0.95):.2%}, "
          f"worst {errs[np.argmax(np.abs(errs))]:+.2%}")
    for x, r, seed in sorted(rows, key=lambda t: -abs(t[0]))[:5]:
        print(f"  seed {seed:3d}: IOPS {x:+.2%}  latency {r:+.2%}")


if __name__ == "__main__":
    main()
