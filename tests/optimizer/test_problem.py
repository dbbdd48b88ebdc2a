"""The linear model agrees with network.py and power.py, and its slack vector means what it says."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdco.errors import ConfigError
from ssdco.model.power import compute_power
from ssdco.model.queueing.route_mva import request_alone_us
from ssdco.network.build import build_network
from ssdco.optimizer.enumerate import enumerate_space
from ssdco.optimizer.problem import FAMILIES, LinearModel, make_targets, row_family
from ssdco.optimizer.space import DesignSpace
from ssdco.spec import config_from_dict, load_config
from tests.conftest import PM9A3
from tests.strategies import config_dicts


@st.composite
def space_and_design(draw):
    raw = draw(config_dicts(closed=True))
    raw["variability"] = {"firmware_scv": draw(st.sampled_from([0.0, 0.5, 1.0]))}
    raw["optimizer"] = {"max_cores_per_group": 3, "max_units": 2,
                        "hardware_modules": ["parse", "cache_lookup", "complete"]}
    space = DesignSpace.from_config(config_from_dict(raw, source="<generated>"))
    tab = enumerate_space(space)  # a random design of the space (the enumeration is tested in test_enumerate)
    return space, tab.design(draw(st.integers(0, len(tab) - 1)))


@given(space_and_design(), st.floats(0.0, 2e6))
@settings(max_examples=30, deadline=None)
def test_station_loads_and_power_match_network_and_power_model(sd, x_iops):
    space, design = sd
    model = LinearModel(space, make_targets(space, min_iops=x_iops))
    cfg = space.config_for(design)
    net = build_network(cfg)
    ref = {ld.name: ld for ld in net.loads()}
    mine, delay = model.station_loads(design)
    assert {n for n, *_ in mine} == set(ref)
    for name, demand, servers, copies, scv in mine:
        ld = ref[name]
        assert demand == pytest.approx(ld.demand_us, rel=1e-12, abs=1e-15)
        assert (servers, copies) == (ld.servers, ld.copies)
        assert scv == pytest.approx(ld.scv, rel=1e-9, abs=1e-12)
    assert delay == pytest.approx(net.delay_us, rel=1e-12)
    # power: linear model at X == power.py with busy servers X x D (below saturation)
    busy = {ld.name: x_iops / 1e6 * ld.demand_us * ld.copies for ld in net.loads()}
    p = compute_power(cfg, net, x_iops, busy)
    ev = model.evaluate(design)
    if all(busy[f"cores:{g.name}"] <= g.count for g in design.groups):
        assert ev.core_power_mw == pytest.approx(p.core_side_mw, rel=1e-9)
    assert ev.dram_power_mw == pytest.approx(p.dram_mw, rel=1e-9)
    # zero-load latency = one request's own path: delays and demands, a per-transaction step counted once; the
    # population row is Little's law X R0 <= N
    r0 = sum((net.visits(s) if s.per_request else net.op_weight(s)) * (net.step_moments(s)[0] + s.delay_us)
             for s in net.steps if not s.background)
    assert ev.zero_load_latency_us == pytest.approx(r0, rel=1e-12)
    assert ev.slack["population_bound"] == pytest.approx(model.targets.queue_depth - x_iops * r0 / 1e6, abs=1e-9)
    # with one transaction per request that is the asymptotic bound's delays + all demands; with several it is
    # less, and never more than one request's latency alone (the route MVA's fork-join makespan at N = 1)
    serial = net.delay_us + sum(ld.demand_us * ld.copies for ld in net.loads())
    if max(net.transactions) == 1:
        assert ev.zero_load_latency_us == pytest.approx(serial, rel=1e-12)
    else:
        assert ev.zero_load_latency_us < serial
    assert ev.zero_load_latency_us <= request_alone_us(net) * (1 + 1e-9)


@given(space_and_design(), st.floats(1e3, 2e6), st.floats(0.3, 1.0))
@settings(max_examples=20, deadline=None)
def test_slack_vector_sign_is_feasibility(sd, x_iops, cap):
    space, design = sd
    model = LinearModel(space, make_targets(space, min_iops=x_iops, utilization_cap=cap))
    ev = model.evaluate(design)
    assert set(map(row_family, ev.slack)) <= set(FAMILIES)
    worst = max(ev.utilization.values())
    util_ok = worst <= cap * (1 + 1e-9)
    assert all(ev.slack[r] >= -1e-9 for r in ev.slack if r.startswith("util_")) == util_ok
    assert ev.feasible == (not ev.violated())
    # max_iops is the largest target still feasible
    xm = model.max_iops(design)
    if math.isfinite(xm) and xm > 0:
        assert LinearModel(space, make_targets(space, min_iops=xm * (1 - 1e-6), utilization_cap=cap),
                           model.coef).evaluate(design).feasible
        assert not LinearModel(space, make_targets(space, min_iops=xm * 1.001 + 1, utilization_cap=cap),
                               model.coef).evaluate(design).feasible


def test_latency_target_is_littles_law():
    cfg = load_config(PM9A3)
    space = DesignSpace.from_config(cfg)
    t = make_targets(space, min_iops=1000, max_latency_us=64.0)
    assert t.target_iops == pytest.approx(32 / 64e-6)
    assert make_targets(space, min_iops=6e5, max_latency_us=64.0).target_iops == 6e5


def test_targets_default_to_budgets_and_reject_bad_values():
    cfg = load_config(PM9A3)
    space = DesignSpace.from_config(cfg)
    t = make_targets(space)
    assert (t.core_power_mw, t.dram_power_mw, t.min_iops, t.queue_depth) == (192.0, 800.0, 0.0, 32)
    for kw, field in (({"min_iops": -1}, "--min-iops"), ({"core_power_mw": 0}, "--core-mw"),
                      ({"max_latency_us": float("nan")}, "--max-latency-us"), ({"max_p99_us": 0}, "--max-p99-us"),
                      ({"max_p99_us": -5.0}, "--max-p99-us")):
        with pytest.raises(ConfigError) as e:
            make_targets(space, **kw)
        assert e.value.field == field
    raw = {k: v for k, v in cfg.raw.items()}
    raw["workload"] = {k: v for k, v in raw["workload"].items() if k != "queue_depth"} | {"arrival_iops": 1e5}
    ocfg = config_from_dict(raw, source="x.toml", base_dir=PM9A3.parent)
    with pytest.raises(ConfigError, match="closed workload"):
        make_targets(DesignSpace.from_config(ocfg))


def test_dram_power_is_the_same_for_every_design():
    cfg = load_config(PM9A3)
    space = DesignSpace.from_config(cfg)
    model = LinearModel(space, make_targets(space, min_iops=5e5))
    vals = {round(model.evaluate(d).dram_power_mw, 9) for d, _ in zip(space.designs(), range(300))}
    assert len(vals) == 1
    assert np.isclose(vals.pop(), 120.0 + 5e5 * (3 * 12.8 + 4096 * 8 * 2 * 12.0e-3) * 1e-6)
