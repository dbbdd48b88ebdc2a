"""Design space: closed-form size = enumeration, canonical designs, presets inside, option validation."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdco.errors import ConfigError
from ssdco.optimizer.space import Design, DesignSpace, Group, set_partitions, touchard
from ssdco.spec import MODULES, config_from_dict, load_config
from tests.conftest import PM9A3
from tests.strategies import config_dicts

BELL = [1, 1, 2, 5, 15, 52]


@pytest.mark.parametrize("n", range(6))
def test_set_partitions_are_bell_many_and_distinct(n):
    items = tuple(MODULES[:n])
    parts = list(set_partitions(items))
    assert len(parts) == BELL[n] == touchard(n, 1)
    canon = {frozenset(frozenset(b) for b in p) for p in parts}
    assert len(canon) == len(parts)
    for p in parts:
        assert sorted(m for b in p for m in b) == sorted(items)


@given(config_dicts(closed=True), st.integers(1, 2), st.integers(1, 2),
       st.sets(st.sampled_from(MODULES), max_size=3), st.sampled_from([["fast"], ["slow"], ["fast", "slow"]]))
@settings(max_examples=15, deadline=None)
def test_size_formula_counts_the_enumerated_designs(raw, max_cores, max_units, hw, specs):
    raw["optimizer"] = {"max_cores_per_group": max_cores, "max_units": max_units,
                        "hardware_modules": sorted(hw), "core_specs": specs}
    space = DesignSpace.from_config(config_from_dict(raw, source="<generated>"))
    designs = list(space.designs())
    assert len(designs) == space.size()
    assert len(set(designs)) == len(designs)  # canonical: no design twice
    assert all(space.contains(d) for d in designs)


def test_pm9a3_space_size_and_presets_inside():
    cfg = load_config(PM9A3)
    space = DesignSpace.from_config(cfg)
    # sum_h C(5,h) 2^h T_{5-h}(8): 87,496 + 76,240 + 28,480 + 5,760 + 640 + 32
    assert space.size() == 198_648
    for name in [f"c{i:02d}" for i in range(1, 11)]:
        c = load_config(PM9A3, controller=name).controller
        d = Design.from_controller(c)
        assert space.contains(d), name
        back = d.to_controller(name)
        assert Design.from_controller(back) == d
        assert cfg.with_controller(back).controller.placement("parse")[0] in ("core", "accel")


def test_design_is_canonical():
    a = Design.make([Group("r1g", 1, ("complete", "parse")), Group("r100m", 2, ("translate",))],
                    {"dispatch": 1, "cache_lookup": 2})
    b = Design.make([Group("r100m", 2, ("translate",)), Group("r1g", 1, ("parse", "complete"))],
                    [("cache_lookup", 2), ("dispatch", 1)])
    assert a == b and hash(a) == hash(b)
    assert a.groups[0].modules == ("parse", "complete")
    assert a.placement("cache_lookup") == ("hardware", 2)
    assert a.placement("complete")[1].name == "parse+complete"


@pytest.mark.parametrize("opts, field", [
    ({"max_units": 0}, "optimizer.max_units"),
    ({"max_cores_per_group": 2.5}, "optimizer.max_cores_per_group"),
    ({"utilization_cap": 1.5}, "optimizer.utilization_cap"),
    ({"utilization_cap": 0}, "optimizer.utilization_cap"),
    ({"core_specs": ["r9000"]}, "optimizer.core_specs"),
    ({"core_specs": []}, "optimizer.core_specs"),
    ({"hardware_modules": ["ftl"]}, "optimizer.hardware_modules"),
    ({"solver": "gurobi"}, "optimizer.solver"),
    ({"verify_des": "yes"}, "optimizer.verify_des"),
    ({"markov_chain": 0}, "optimizer.markov_chain"),
    ({"des_requests": 10}, "optimizer.des_requests"),
    ({"max_untis": 2}, "optimizer.max_untis"),
    ({"nand": {"channels": [0, 16]}}, "optimizer.nand.channels"),
    ({"nand": {"channels": [8, 8]}}, "optimizer.nand.channels"),
    ({"nand": {"channels": 8}}, "optimizer.nand.channels"),
    ({"nand": {"ways_per_channel": [True]}}, "optimizer.nand.ways_per_channel"),
    ({"nand": {"planes_per_die": [17]}}, "optimizer.nand.planes_per_die"),
    ({"nand": {"page_size_kib": [16]}}, "optimizer.nand.page_size_kib"),
    ({"nand": {}}, "optimizer.nand"),
    ({"nand": [8, 16]}, "optimizer.nand"),
    ({"dram": {"size_gib": [1, 2]}}, "optimizer.dram.size_gib"),
    ({"dram": {"mappings": ["bast"]}}, "optimizer.dram.mappings"),
    ({"dram": {"mappings": []}}, "optimizer.dram.mappings"),
    ({"dram": {"cache_fractions": [0.0]}}, "optimizer.dram.cache_fractions"),
    ({"dram": "full"}, "optimizer.dram"),
    ({"min_life_years": -1}, "optimizer.min_life_years"),
    ({"timing_spread_scv": -0.01}, "optimizer.timing_spread_scv"),
    ({"timing_spread_scv": 101}, "optimizer.timing_spread_scv"),
    ({"timing_spread_scv": True}, "optimizer.timing_spread_scv"),
    ({"timing_spread_scv": "0.01"}, "optimizer.timing_spread_scv"),
])
def test_bad_options_name_the_field(opts, field):
    cfg = load_config(PM9A3)
    with pytest.raises(ConfigError) as e:
        DesignSpace.from_config(cfg, opts)
    assert e.value.field == field
    assert e.value.allowed


def test_hardware_module_without_accelerator_spec_is_refused():
    cfg = load_config(PM9A3, overrides=["optimizer.hardware_modules=[\"parse\"]"])
    assert DesignSpace.from_config(cfg).options.hardware_modules == ("parse",)
    raw = dict(cfg.raw)
    raw["accelerator_specs"] = {k: v for k, v in raw["accelerator_specs"].items() if k != "parse"}
    with pytest.raises(ConfigError, match="accelerator_specs.parse"):  # refused as the file loads, whatever the command
        config_from_dict(raw, source="x.toml", base_dir=PM9A3.parent)


def test_defaults_without_optimizer_table():
    cfg = load_config(PM9A3)
    raw = {k: v for k, v in cfg.raw.items() if k != "optimizer"}
    space = DesignSpace.from_config(config_from_dict(raw, source="x.toml", base_dir=PM9A3.parent))
    o = space.options
    assert (o.max_cores_per_group, o.max_units, o.utilization_cap, o.solver) == (4, 2, 0.9, "auto")
    assert o.core_specs == tuple(cfg.core_specs) and o.hardware_modules == MODULES
    assert math.isfinite(space.size())
