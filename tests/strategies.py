"""Hypothesis strategies for small but complete ssdco configurations (as TOML-shaped dicts)."""

from __future__ import annotations

from hypothesis import strategies as st

from ssdco.spec import MODULES, config_from_dict, full_mapping_table_gib

CORE_SPECS = {
    "fast": {"frequency_mhz": 1000.0, "idle_mw": 30.0, "active_mw": 100.0, "cost": 1.0},
    "slow": {"frequency_mhz": 100.0, "idle_mw": 2.0, "active_mw": 9.0, "cycle_scale": 1.2, "cost": 0.25},
}


def accelerator_spec(module: str) -> dict:
    return {"latency_us": 0.2, "initiation_interval_us": 0.05, "idle_mw": 2.0, "energy_per_op_nj": 0.5,
            "unit_cost": 0.1, "development_cost": 1.0}


@st.composite
def controllers(draw, allow_accelerators: bool = True) -> dict:
    """A random placement: modules partitioned into core groups (shared or not) and accelerators."""
    modules = list(MODULES)
    accel = {}
    if allow_accelerators:
        for m in modules:
            if draw(st.booleans()) and draw(st.booleans()):
                accel[m] = draw(st.integers(1, 3))
    sw = [m for m in modules if m not in accel]
    groups = []
    while sw:
        k = draw(st.integers(1, len(sw)))
        mods, sw = sw[:k], sw[k:]
        groups.append({"name": f"g{len(groups) + 1}", "spec": draw(st.sampled_from(sorted(CORE_SPECS))),
                       "count": draw(st.integers(1, 3)), "modules": mods})
    ctrl = {"name": "generated", "core_groups": groups}
    if accel:
        ctrl["accelerators"] = accel
    return ctrl


@st.composite
def config_dicts(draw, closed: bool = True, allow_accelerators: bool = True, max_qd: int = 48,
                 read_only: bool = False, fixed_size: bool = False) -> dict:
    """A small, valid device + workload + controller configuration dict."""
    nand = {
        "channels": draw(st.integers(1, 4)),
        "ways_per_channel": draw(st.integers(1, 4)),
        "dies_per_chip": draw(st.integers(1, 2)),
        "planes_per_die": draw(st.integers(1, 4)),
        "independent_plane_reads": draw(st.booleans()),
        "t_read_us": draw(st.floats(10.0, 100.0)),
        "t_prog_us": draw(st.floats(100.0, 900.0)),
        "channel_rate_mts": draw(st.sampled_from([400.0, 800.0, 1200.0, 1600.0])),
        "ecc_overhead_fraction": 0.1,
    }
    modules = {m: {"cycles": draw(st.floats(50.0, 2500.0)), "dram_accesses_per_visit": 1.0} for m in MODULES}
    workload = {"read_fraction": 1.0 if read_only else draw(st.sampled_from([1.0, 0.7, 0.0])),
                "mapping_unit_kib": 4}
    if fixed_size:
        workload["request_size_kib"] = 4
    else:
        workload["request_size_kib"] = draw(st.sampled_from([4, 8, 16]))
    if closed:
        workload["queue_depth"] = draw(st.integers(1, max_qd))
    else:
        workload["arrival_iops"] = draw(st.floats(1e3, 2e5))
    return {
        "name": "generated",
        "nand": nand,
        "host": {"pcie_gen": draw(st.sampled_from([3, 4])), "pcie_lanes": 4},
        "core_specs": CORE_SPECS,
        "modules": modules,
        "accelerator_specs": {m: accelerator_spec(m) for m in MODULES},
        "dram": {"size_gib": 1.0, "background_mw_per_gib": 120.0, "access_energy_nj": 12.8,
                 "stream_energy_pj_per_bit": 12.0, "data_passes_per_io": 2.0},
        "workload": workload,
        "budgets": {"core_power_mw": 192.0, "dram_power_mw": 800.0},
        "controller": draw(controllers(allow_accelerators=allow_accelerators)),
    }


def configs(**kwargs):
    """Strategy of validated :class:`ssdco.spec.Config` objects."""
    return config_dicts(**kwargs).map(lambda d: config_from_dict(d, source="<generated>"))


@st.composite
def broad_config_dicts(draw) -> dict:
    """:func:`config_dicts` plus what it leaves at its defaults: open or closed, request-size mixes, address
    patterns, mapping units, an ``[ftl]`` table (mapping cache, GC policy, write buffer from write-through
    up) on small or realistic NAND geometries, and service variability. For properties that every valid
    configuration must have (fuzzing found two crashes this wider space reached and config_dicts did not)."""
    closed = draw(st.booleans())
    d = draw(config_dicts(closed=closed))
    w = d["workload"]
    if draw(st.booleans()):
        sizes = draw(st.lists(st.sampled_from([0.5, 1, 2, 4, 8, 16, 32, 64, 128]), min_size=1, max_size=4,
                              unique=True))
        weights = draw(st.lists(st.floats(0.01, 1.0), min_size=len(sizes), max_size=len(sizes)))
        probs = [x / sum(weights) for x in weights]
        probs[-1] = 1.0 - sum(probs[:-1])
        w["request_size_kib"] = {"sizes": sizes, "probabilities": probs}
    w["read_fraction"] = draw(st.sampled_from([0.0, 0.3, 0.7, 0.99, 1.0]))
    w["address_pattern"] = draw(st.sampled_from(["uniform", "hot_cold", "jesd219", "sequential"]))
    w["mapping_unit_kib"] = draw(st.sampled_from([0.5, 4, 16]))
    if not closed:
        w["arrival_iops"] = draw(st.floats(1e2, 2e6))
    if draw(st.booleans()):
        ftl = {"mapping": draw(st.sampled_from(["full", "dftl", "partitioned"])),
               "gc_policy": draw(st.sampled_from(["greedy", "fifo"])),
               "write_buffer_kib": draw(st.sampled_from([0, 16, 2048]))}
        if ftl["mapping"] != "full":
            ftl["cache_fraction"] = draw(st.sampled_from([0.001, 0.05, 0.25, 0.9]))
            ftl["cache_granularity"] = draw(st.sampled_from(["page", "entry"]))
        d["ftl"] = ftl
        d["nand"].update(over_provisioning=draw(st.sampled_from([0.01, 0.07, 0.28])),
                         blocks_per_plane=draw(st.sampled_from([8, 1000])),
                         pages_per_block=draw(st.sampled_from([4, 256])),
                         page_size_kib=draw(st.sampled_from([p for p in (4, 16) if p >= w["mapping_unit_kib"]])))
        # the DRAM holds the full mapping table (spec.py refuses less): 1 GiB, or the table with 10 % to spare
        probe = config_from_dict({**d, "dram": {**d["dram"], "size_gib": 1e6}})
        table_gib = full_mapping_table_gib(probe.ftl, w["mapping_unit_kib"])
        d["dram"]["size_gib"] = max(1.0, 1.1 * table_gib)
    if draw(st.booleans()):
        d["variability"] = {"firmware_scv": draw(st.sampled_from([0.0, 0.5, 1.0, 4.0])),
                            "nand_scv": draw(st.sampled_from([0.0, 1.0, 2.0])),
                            "host_scv": draw(st.sampled_from([0.0, 1.0]))}
    return d
