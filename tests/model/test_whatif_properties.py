"""Theorems that must hold for every generated configuration."""

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdco.model.whatif import evaluate
from ssdco.spec import config_from_dict
from tests.strategies import config_dicts


def _eval(d):
    return evaluate(config_from_dict(d, source="<generated>"))


@given(config_dicts())
@settings(max_examples=80)
def test_asymptotic_bounds_hold(d):
    r = _eval(d)
    x = r.iops / 1e6
    assert x <= r.bounds.capacity_per_us * (1 + 1e-9)
    assert x <= r.bounds.population_per_us * (1 + 1e-9)
    assert all(u <= 1 + 1e-9 for u in r.utilization.values())
    # Little's law on the whole system: N = X * R
    assert r.queue_depth == pytest.approx(x * r.latency_mean_us, rel=1e-9)


@given(config_dicts(), st.booleans())
@settings(max_examples=80)
def test_adding_a_core_or_unit_never_lowers_iops(d, exact):
    # The exact solver is held to rounding. The route MVA is not monotone by construction: already
    # the residual-corrected recursion switches from a single-server to a multi-server wait formula
    # when a core is added, and its re-entry and flow-variability corrections depend on server counts,
    # so it can lose up to ~1 % IOPS when a server is added to a station that does not limit
    # throughput (0.84 % the worst of 1,300 sampled designs; the DES shows no change there; see
    # route_mva.py, "Known limitation"). It is held to 2 %, so a real regression still fails.
    tol = 1e-9 if exact else 2e-2
    base = evaluate(config_from_dict(d), exact=exact).iops
    ctrl = d["controller"]
    for i in range(len(ctrl["core_groups"])):
        more = copy.deepcopy(d)
        more["controller"]["core_groups"][i]["count"] += 1
        assert evaluate(config_from_dict(more), exact=exact).iops >= base * (1 - tol)
    for m in ctrl.get("accelerators", {}):
        more = copy.deepcopy(d)
        more["controller"]["accelerators"][m] += 1
        assert evaluate(config_from_dict(more), exact=exact).iops >= base * (1 - tol)


@given(config_dicts(max_qd=32))
@settings(max_examples=60)
def test_power_never_falls_as_load_rises(d):
    prev_power = prev_iops = None
    for qd in (1, 2, 4, 8, 16, 32, 64):
        d2 = copy.deepcopy(d)
        d2["workload"]["queue_depth"] = qd
        r = _eval(d2)
        if prev_power is not None:
            assert r.iops >= prev_iops * (1 - 1e-9)
            assert r.power.total_mw >= prev_power * (1 - 1e-9)
        prev_power, prev_iops = r.power.total_mw, r.iops


@given(config_dicts(closed=False))
@settings(max_examples=60)
def test_open_workload_stability_matches_utilisation(d):
    r = _eval(d)
    assert r.stable == all(u < 1 for u in r.utilization.values())
    if r.stable:
        assert r.latency_mean_us >= r.bounds.zero_load_latency_us * (1 - 1e-9)
