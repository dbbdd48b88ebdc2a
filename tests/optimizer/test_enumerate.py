"""Vectorised enumeration = one-at-a-time evaluation; batch MVA = solve_closed; Pareto front = brute force."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdco.model.queueing.mva import solve_closed
from ssdco.optimizer.enumerate import closed_iops, enumerate_space, linear_feasible, linear_optimum, pareto_front
from ssdco.optimizer.problem import LinearModel, make_targets
from ssdco.optimizer.space import DesignSpace
from ssdco.spec import MODULES, config_from_dict
from tests.strategies import config_dicts


@st.composite
def small_spaces(draw):
    raw = draw(config_dicts(closed=True, max_qd=24))
    raw["optimizer"] = {"max_cores_per_group": draw(st.integers(1, 2)), "max_units": draw(st.integers(1, 2)),
                        "hardware_modules": sorted(draw(st.sets(st.sampled_from(MODULES), max_size=2))),
                        "core_specs": draw(st.sampled_from([["fast"], ["slow"], ["fast", "slow"]]))}
    raw["budgets"] = {"core_power_mw": draw(st.floats(20.0, 400.0)), "dram_power_mw": draw(st.floats(200.0, 1500.0))}
    return DesignSpace.from_config(config_from_dict(raw, source="<generated>"))


@given(small_spaces(), st.floats(0.0, 4e5), st.floats(0.5, 1.0))
@settings(max_examples=20, deadline=None)
def test_table_equals_one_at_a_time_evaluation(space, x_iops, cap):
    model = LinearModel(space, make_targets(space, min_iops=x_iops, utilization_cap=cap))
    tab = enumerate_space(space, model.coef)
    designs = [tab.design(b) for b in range(len(tab))]
    assert set(designs) == set(space.designs()) and len(designs) == space.size()
    feas = linear_feasible(tab, model)
    for b, d in enumerate(designs):
        ev = model.evaluate(d)
        assert tab.cost[b] == pytest.approx(ev.cost, rel=1e-12)
        assert tab.zero_load_us[b] == pytest.approx(ev.zero_load_latency_us, rel=1e-12)
        assert tab.idle_mw[b] + x_iops * tab.busy_mw_per_iops[b] == pytest.approx(ev.core_power_mw, rel=1e-9, abs=1e-9)
        assert bool(feas[b]) == ev.feasible
    b, c = linear_optimum(tab, model)
    feasible_costs = [model.evaluate(d).cost for d in designs if model.evaluate(d).feasible]
    assert (c is None) == (not feasible_costs)
    if feasible_costs:
        assert c == pytest.approx(min(feasible_costs))


@given(small_spaces())
@settings(max_examples=8, deadline=None)
def test_batch_mva_equals_single_solves(space):
    model = LinearModel(space, make_targets(space))
    tab = enumerate_space(space, model.coef)
    rows = np.unique(np.linspace(0, len(tab) - 1, 12).astype(int))
    x = closed_iops(tab, model.targets.queue_depth, rows)
    for b, xb in zip(rows, x):
        loads, delay = model.station_loads(tab.design(int(b)))
        cols = list(zip(*[(d, s, k, v) for _, d, s, k, v in loads]))
        sol = solve_closed(np.array(cols[0]), np.array(cols[1]), np.array(cols[2]), np.array(cols[3]), delay,
                           model.targets.queue_depth)
        assert xb == pytest.approx(sol.throughput_per_us * 1e6, rel=1e-9)


def _dominated_brute(c, i, p):
    n = len(c)
    out = np.zeros(n, bool)
    for a in range(n):
        for b in range(n):
            if c[b] <= c[a] and p[b] <= p[a] and i[b] >= i[a] and (c[b] < c[a] or p[b] < p[a] or i[b] > i[a]):
                out[a] = True
                break
    return out


@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6), st.integers(0, 6)), min_size=1, max_size=60))
@settings(max_examples=200, deadline=None)
def test_pareto_front_is_the_non_dominated_set(points):
    c, i, p = (np.array(v, float) for v in zip(*points))
    front = set(pareto_front(c, i, p).tolist())
    assert front == set(np.flatnonzero(~_dominated_brute(c, i, p)).tolist())


def test_pareto_front_is_sorted_by_cost():
    rng = np.random.default_rng(1)
    c, i, p = rng.random(500), rng.random(500), rng.random(500)
    f = pareto_front(c, i, p)
    assert np.all(np.diff(c[f]) >= 0) and len(f) > 1


def test_costs_that_differ_in_the_last_digit_are_one_cost():
    # 0.1 + 0.2 and 0.3 are one cost to a designer: the cheaper-by-5e-17 point with fewer IOPS is dominated
    c = np.array([0.1 + 0.2, 0.3, 0.3 * (1 + 1e-6)])
    i = np.array([10.0, 5.0, 20.0])
    p = np.array([1.0, 1.0, 1.0])
    assert pareto_front(c, i, p).tolist() == [0, 2]  # a real cost difference (1e-6) still counts
