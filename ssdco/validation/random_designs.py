"""Random controller designs for checking the model against the DES and for property tests.

:func:`random_config` samples a design uniformly over the same ranges as the Hypothesis strategies of the
test suite (tests/strategies.py), which lean towards extreme values; :func:`one_more_server` yields a
design's one-server variants (a core more in a group, or an accelerator unit more);
:func:`core_group_config` is a design whose only queue is one core group, :func:`core_run_config` one whose
bottleneck core group runs several modules in a row near the knee, :func:`core_pair_config` one of two nearly
equally busy single-core groups that split the modules between them, and :func:`open_at` turns a
closed design into an open one at a fraction of its capacity. All return plain configuration
dictionaries for :func:`ssdco.spec.config_from_dict`. Used by ``benchmarks/accuracy.py``,
``benchmarks/monotonicity.py``, ``tools/solver_contributions.py`` and the tests.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator

import numpy as np

from ssdco.model.solvers import all_but
from ssdco.spec import MODULES

CORE_SPECS = {
    "fast": {"frequency_mhz": 1000.0, "idle_mw": 30.0, "active_mw": 100.0, "cost": 1.0},
    "slow": {"frequency_mhz": 100.0, "idle_mw": 2.0, "active_mw": 9.0, "cycle_scale": 1.2, "cost": 0.25},
}
ACCEL = {"latency_us": 0.2, "initiation_interval_us": 0.05, "idle_mw": 2.0, "energy_per_op_nj": 0.5}


def random_config(seed: int, mixed_sizes: bool) -> dict:
    """A closed design drawn with ``seed`` (numpy's default generator): NAND geometry and timings, workload
    (4 KiB requests, or 4, 8 or 16 KiB with ``mixed_sizes``), accelerated modules and core groups, over the
    ranges of tests/strategies.py sampled uniformly."""
    r = np.random.default_rng(seed)
    nand = {"channels": int(r.integers(1, 5)), "ways_per_channel": int(r.integers(1, 5)),
            "dies_per_chip": int(r.integers(1, 3)), "planes_per_die": int(r.integers(1, 5)),
            "independent_plane_reads": bool(r.integers(0, 2)), "t_read_us": float(r.uniform(10, 100)),
            "t_prog_us": float(r.uniform(100, 900)),
            "channel_rate_mts": float(r.choice([400.0, 800.0, 1200.0, 1600.0])),
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


def one_more_server(d: dict) -> Iterator[tuple[str, dict]]:
    """Yield (label, design) for every design with one more core in a group or one more accelerator unit."""
    for i, group in enumerate(d["controller"]["core_groups"]):
        more = copy.deepcopy(d)
        more["controller"]["core_groups"][i]["count"] += 1
        yield f"+1 core in {group['name']}", more
    for module in d["controller"].get("accelerators", {}):
        more = copy.deepcopy(d)
        more["controller"]["accelerators"][module] += 1
        yield f"+1 {module} accelerator unit", more


def core_group_config(cores: int, modules: tuple[str, ...], spec: str = "slow") -> dict:
    """A closed design of 16 KiB reads (4 transactions) whose only queue is one core group of ``cores``
    ``spec`` cores running ``modules``: every other module on accelerators (4 units each) and the NAND
    fast and wide (8 channels x 8 ways, tR 5 us). Core specs, module cycles and the rest of the device
    are those of ``random_config(44, True)``."""
    d = random_config(44, True)
    d["workload"].update(request_size_kib=16, read_fraction=1.0)
    d["nand"].update(t_read_us=5.0, channels=8, ways_per_channel=8)
    d["controller"]["core_groups"] = [{"name": "g", "spec": spec, "count": cores, "modules": list(modules)}]
    d["controller"]["accelerators"] = {m: 4 for m in MODULES if m not in modules}
    return d


ROUTE_MODULES = ("parse", "cache_lookup", "translate", "dispatch")  # in route order, before the NAND


def core_run_config(seed: int) -> dict:
    """A closed design of 4 KiB requests (:func:`random_config`'s device, or with probability 0.4 a PM9A3-like
    NAND: 8 channels x 4 dies of 4 planes, tR 50 us, tPROG 450 us) whose core group "run" of 1 or 2 cores runs
    2-4 consecutive modules of the route (their cycles drawn log-uniformly over 50-2,500, then scaled up, at most
    three times, until the group is at least 10 % busier than any other station in the analytic model); the other
    modules each on a core of their own or, with probability 0.3, an accelerator. The queue depth is 0.8-3 times
    the knee N* (capacity x one request's latency alone) of the last design so evaluated, within 2-64. The designs
    of ``benchmarks/accuracy.py``'s core-run group."""
    from ssdco.model.whatif import evaluate_network
    from ssdco.network.build import build_network
    from ssdco.spec import config_from_dict

    rng = np.random.default_rng(seed + 7_000_000)
    d = random_config(seed, mixed_sizes=False)
    if rng.random() < 0.4:
        d["nand"].update(channels=8, ways_per_channel=4, dies_per_chip=1, planes_per_die=4,
                         independent_plane_reads=True, t_read_us=50.0, t_prog_us=450.0, channel_rate_mts=1200.0)
        d["host"] = {"pcie_gen": 4, "pcie_lanes": 4}
    length = int(rng.integers(2, 5))
    start = int(rng.integers(0, len(ROUTE_MODULES) - length + 1))
    run = list(ROUTE_MODULES[start:start + length])
    groups = [{"name": "run", "spec": str(rng.choice(sorted(CORE_SPECS))), "count": int(rng.choice([1, 1, 1, 2])),
               "modules": run}]
    accelerators = {}
    for m in [m for m in MODULES if m not in run]:
        if rng.random() < 0.3:
            accelerators[m] = 1
        else:
            groups.append({"name": f"g_{m}", "spec": str(rng.choice(sorted(CORE_SPECS))), "count": 1, "modules": [m]})
    d["controller"] = {"name": "core-run", "core_groups": groups, **({"accelerators": accelerators} if accelerators
                                                                     else {})}
    for m in run:
        d["modules"][m]["cycles"] = float(np.exp(rng.uniform(np.log(50), np.log(2500))))
    d["workload"]["queue_depth"] = 1
    for _ in range(3):
        config = config_from_dict(d)
        alone = evaluate_network(config, build_network(config), solvers=all_but("markov-chain"))
        util = alone.utilization
        top = max(v for k, v in util.items() if k != "cores:run")
        if util["cores:run"] >= top * 1.1:
            break
        scale = top * float(rng.uniform(1.1, 2.0)) / util["cores:run"]
        for m in run:
            d["modules"][m]["cycles"] *= scale
    knee = alone.bounds.capacity_per_us * alone.bounds.zero_load_latency_us
    d["workload"]["queue_depth"] = int(np.clip(round(knee * float(rng.uniform(0.8, 3.0))), 2, 64))
    return d


def core_pair_config(seed: int) -> dict | None:
    """A closed design of 4 KiB requests (:func:`random_config`'s device) whose modules are split at random between
    two single-core groups g1 and g2 (one of them given two or more; then each module, with probability 0.15, an
    accelerator instead, which can leave each group one), their cycles drawn log-uniformly over 50-2,500, then each
    group scaled, four times, to 0.85-1.0 of a common target at least 1.1 times as busy as any other station in the
    analytic model; None where the draw leaves one group without a module. The queue depth is 0.8-3 times the knee
    N* (capacity x one request's latency alone), within 3-64. The designs of ``benchmarks/accuracy.py``'s core-pair
    group: the bottleneck may serve steps with the NAND between them."""
    from ssdco.model.whatif import evaluate_network
    from ssdco.network.build import build_network
    from ssdco.spec import config_from_dict

    rng = np.random.default_rng(seed + 9_000_000)
    d = random_config(seed, mixed_sizes=False)
    while True:
        side = rng.integers(0, 2, size=len(MODULES))
        if 0 < side.sum() < len(MODULES) and max(side.sum(), len(MODULES) - side.sum()) >= 2:
            break
    accelerators = {m: 1 for m in MODULES if rng.random() < 0.15}
    groups = []
    for g in (0, 1):
        modules = [m for m, s in zip(MODULES, side) if s == g and m not in accelerators]
        if modules:
            groups.append({"name": f"g{g + 1}", "spec": str(rng.choice(sorted(CORE_SPECS))), "count": 1,
                           "modules": modules})
    if len(groups) < 2:
        return None
    d["controller"] = {"name": "pair", "core_groups": groups, **({"accelerators": accelerators} if accelerators
                                                                 else {})}
    for m in MODULES:
        d["modules"][m]["cycles"] = float(np.exp(rng.uniform(np.log(50), np.log(2500))))
    d["workload"]["queue_depth"] = 1
    for _ in range(4):
        config = config_from_dict(d)
        util = evaluate_network(config, build_network(config), solvers=all_but("markov-chain")).utilization
        top = max(v for k, v in util.items() if not k.startswith("cores:"))
        target = max(util["cores:g1"], util["cores:g2"], top * float(rng.uniform(1.1, 2.0)))
        for group in groups:
            scale = target * float(rng.uniform(0.85, 1.0)) / util[f"cores:{group['name']}"]
            for m in group["modules"]:
                d["modules"][m]["cycles"] *= scale
    config = config_from_dict(d)
    alone = evaluate_network(config, build_network(config), solvers=all_but("markov-chain"))
    knee = alone.bounds.capacity_per_us * alone.bounds.zero_load_latency_us
    d["workload"]["queue_depth"] = int(np.clip(round(knee * float(rng.uniform(0.8, 3.0))), 3, 64))
    return d


def open_at(d: dict, load: float) -> dict:
    """Closed design ``d`` as an open workload: Poisson arrivals at ``load`` x the capacity bound (IOPS)
    that the analytic model gives the closed design."""
    from ssdco.model.whatif import evaluate_network
    from ssdco.network.build import build_network
    from ssdco.spec import config_from_dict

    closed = config_from_dict(d)
    capacity_iops = evaluate_network(closed, build_network(closed)).bounds.capacity_iops
    out = copy.deepcopy(d)
    out["workload"].pop("queue_depth", None)
    out["workload"]["arrival_iops"] = load * capacity_iops
    return out
