"""Random controller designs for checking the model against the DES and for property tests.

:func:`random_config` samples a design uniformly over the same ranges as the Hypothesis strategies of the
test suite (tests/strategies.py), which lean towards extreme values; :func:`one_more_server` yields a
design's one-server variants (a core more in a group, or an accelerator unit more);
:func:`core_group_config` is a design whose only queue is one core group, and :func:`open_at` turns a
closed design into an open one at a fraction of its capacity. All return plain configuration
dictionaries for :func:`ssdco.spec.config_from_dict`. Used by ``benchmarks/model_vs_des.py``,
``benchmarks/monotonicity.py``, ``benchmarks/open_core_runs.py`` and the tests.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator

import numpy as np

from ..spec import MODULES

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


def open_at(d: dict, load: float) -> dict:
    """Closed design ``d`` as an open workload: Poisson arrivals at ``load`` x the capacity bound (IOPS)
    that the analytic model gives the closed design."""
    from ..model.network import build_network
    from ..model.whatif import evaluate_network
    from ..spec import config_from_dict

    closed = config_from_dict(d)
    capacity_iops = evaluate_network(closed, build_network(closed)).bounds.capacity_per_us * 1e6
    out = copy.deepcopy(d)
    out["workload"].pop("queue_depth", None)
    out["workload"]["arrival_iops"] = load * capacity_iops
    return out
