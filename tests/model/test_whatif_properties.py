"""Theorems that must hold for every generated configuration."""

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.model_vs_des import random_config
from benchmarks.monotonicity import one_more_server
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
    # The exact solver is held to rounding: that is the acceptance item. The route MVA is not quite
    # monotone (route_mva.py, "Known limitation"; benchmarks/monotonicity.py): 8 of 4,850 additions on
    # random designs lower its IOPS, the worst by 0.03 % (pinned below as a strict xfail). This guard
    # holds it to 0.1 % so that a regression fails; it does not claim the acceptance level for it.
    tol = 1e-9 if exact else 1e-3
    base = evaluate(config_from_dict(d), exact=exact).iops
    for label, more in one_more_server(d):
        assert evaluate(config_from_dict(more), exact=exact).iops >= base * (1 - tol), label


def _known_non_monotone_pair():
    """benchmarks/monotonicity.py's worst case: 8 KiB reads at QD 6 on three single-plane dies behind one
    channel, three fast cores for parse .. dispatch and one slow core for complete; and the same design
    with a second complete core (route MVA: -0.03 %). The DES gives 44,095 IOPS for both, bit for bit:
    the channel spaces completions 11.3 us apart, longer than the 4.5 us completion, so the second core
    never works."""
    d = random_config(10047, mixed_sizes=True)
    return config_from_dict(d), config_from_dict(dict(one_more_server(d))["+1 core in g2"])


def test_exact_solver_is_monotone_on_the_known_route_mva_counterexample():
    base, more = _known_non_monotone_pair()
    assert evaluate(more, exact=True).iops >= evaluate(base, exact=True).iops * (1 - 1e-9)


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="route MVA not monotone in servers: -0.03 % on this design (route_mva.py, "
                          "'Known limitation'); remove the mark when the solver is fixed")
def test_route_mva_is_monotone_on_its_known_counterexample():
    base, more = _known_non_monotone_pair()
    assert evaluate(more).iops >= evaluate(base).iops * (1 - 1e-9)


def test_route_mva_no_longer_loses_on_the_former_worst_case():
    # 8 dies x 3 planes, 16 KiB requests at QD 45, one fast core for translate, dispatch and complete,
    # and a second such core: the route MVA lost 4.0 % here while its multi-server marginals came from
    # a product-form recursion driven by the approximate X(n) (route_mva.py, "Known limitation"). The
    # DES gives 18,245 +/- 142 and 18,399 +/- 122 IOPS.
    d = random_config(10469, mixed_sizes=True)
    for label in ("+1 core in g1", "+1 core in g2", "+1 core in g3"):
        more = dict(one_more_server(d))[label]
        assert evaluate(config_from_dict(more)).iops >= evaluate(config_from_dict(d)).iops, label


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
