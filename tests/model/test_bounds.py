"""The asymptotic bounds (ssdco/model/bounds.py): capacity, population bound and bottleneck, by hand."""

import math

import pytest

from ssdco.model.bounds import Bounds, asymptotic_bounds


def test_capacity_and_bottleneck_are_the_largest_demand_per_server():
    # demands 2, 3 and 4 us over 1, 2 and 4 servers: per server 2, 1.5, 1 us -> the first, 0.5 requests/us
    b = asymptotic_bounds(["a", "b", "c"], [2.0, 3.0, 4.0], [1, 2, 4], [1, 1, 1], 1.0, 10)
    assert (b.bottleneck, b.bottleneck_index) == ("a", 0)
    assert b.capacity_per_us == pytest.approx(0.5) and b.capacity_iops == pytest.approx(500_000)
    # zero-load latency: the delay plus every copy's demand, 1 + 2 + 3 + 4 = 10 us; N / R0 = 1 per us
    assert b.zero_load_latency_us == pytest.approx(10.0)
    assert b.population_per_us == pytest.approx(1.0)
    assert b.upper_per_us == pytest.approx(0.5)


def test_copies_count_in_the_latency_not_in_the_capacity():
    # 8 copies of a 4 us die: a request visits one (demand per copy 0.5 us), the latency adds 8 x 0.5
    b = asymptotic_bounds(["die"], [0.5], [1], [8], 0.0, 1)
    assert b.capacity_per_us == pytest.approx(2.0)
    assert b.zero_load_latency_us == pytest.approx(4.0)


def test_an_open_workload_and_a_given_zero_load_latency():
    b = asymptotic_bounds(["a"], [2.0], [1], [1], 0.0, None)
    assert math.isinf(b.population_per_us) and math.isinf(b.population_iops)
    given = asymptotic_bounds(["a"], [2.0], [1], [1], 0.0, 4, zero_load_latency_us=8.0)
    assert given.zero_load_latency_us == 8.0 and given.population_per_us == pytest.approx(0.5)


def test_no_work_anywhere_has_no_capacity_bound():
    b = asymptotic_bounds(["a", "b"], [0.0, 0.0], [1, 1], [1, 1], 5.0, 2)
    assert math.isinf(b.capacity_per_us)
    assert b.population_per_us == pytest.approx(2 / 5.0)


def test_the_tightest_bound_includes_the_write_buffer_but_not_the_idle_bound():
    b = Bounds(capacity_per_us=1.0, population_per_us=2.0, zero_load_latency_us=1.0, bottleneck="a",
               bottleneck_index=0, write_buffer_per_us=0.5, idle_per_us=0.1)
    assert b.upper_per_us == 0.5 and b.write_buffer_iops == pytest.approx(500_000)
    assert b.idle_iops == pytest.approx(100_000)
