"""Analytic WAF (ssdco.ftl.waf): theorems first, then the worked tables of reference-parameters.md §6.2."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdco.ftl.address_patterns import JESD219_LBA_SKEW, UniformPattern, hot_cold_pattern
from ssdco.ftl.waf import (
    GcCostPerHostWrite,
    alpha_from_op,
    alpha_from_spare_factor,
    gc_cost_per_host_write,
    op_from_alpha,
    spare_factor_from_alpha,
    waf,
    waf_fifo,
    waf_greedy,
    waf_hot_cold,
)

PROP = settings(max_examples=60, deadline=None)
alphas = st.floats(min_value=1.005, max_value=8.0, allow_nan=False)
blocks = st.integers(min_value=1, max_value=4096)

# --- theorems -------------------------------------------------------------------------------


@PROP
@given(alphas)
def test_fifo_satisfies_victim_utilisation_fixed_point(alpha):
    # u = exp(-alpha (1 - u)) with A = 1/(1 - u)  (Desnoyers Eq. 3/4)
    a = waf_fifo(alpha)
    u = 1.0 - 1.0 / a
    assert u == pytest.approx(math.exp(-alpha * (1.0 - u)), rel=1e-9, abs=1e-12)
    assert a >= 1.0


@PROP
@given(alphas, alphas)
def test_fifo_monotone_decreasing_in_alpha(a1, a2):
    lo, hi = sorted((a1, a2))
    assert waf_fifo(lo) >= waf_fifo(hi) - 1e-12


@PROP
@given(alphas, alphas, blocks)
def test_greedy_monotone_decreasing_in_alpha(a1, a2, npb):
    lo, hi = sorted((a1, a2))
    assert waf_greedy(lo, npb) >= waf_greedy(hi, npb) - 1e-12


@PROP
@given(alphas, blocks)
def test_greedy_not_worse_than_fifo(alpha, npb):
    assert waf_greedy(alpha, npb) <= waf_fifo(alpha) + 1e-12


@PROP
@given(alphas, blocks)
def test_greedy_tends_to_fifo_with_block_size(alpha, npb):
    assert waf_greedy(alpha, npb) <= waf_greedy(alpha, 2 * npb) + 1e-12
    assert waf_greedy(alpha, 10**9) == pytest.approx(waf_fifo(alpha), rel=1e-6)


@PROP
@given(alphas, st.lists(st.floats(min_value=0.05, max_value=1.0), min_size=1, max_size=5))
def test_zones_with_write_share_equal_to_space_share_are_uniform(alpha, raw):
    # r_i = f_i: the traffic is uniform, so Eq. 14 must reduce to Eq. 4.
    total = sum(raw)
    f = [x / total for x in raw]
    f[-1] = 1.0 - sum(f[:-1])
    assert waf_hot_cold(alpha, f, f) == pytest.approx(waf_fifo(alpha), rel=1e-9)


@PROP
@given(alphas, st.floats(min_value=0.01, max_value=0.99), st.floats(min_value=0.01, max_value=0.99))
def test_skew_without_separation_is_never_better_than_uniform(alpha, r, f):
    assert waf_hot_cold(alpha, [r, 1 - r], [f, 1 - f]) >= waf_fifo(alpha) * (1 - 1e-9)


@PROP
@given(alphas, alphas, st.floats(min_value=0.5, max_value=0.95), st.floats(min_value=0.05, max_value=0.5))
def test_hot_cold_monotone_decreasing_in_alpha(a1, a2, r, f):
    lo, hi = sorted((a1, a2))
    for policy in ("fifo", "greedy"):
        assert waf_hot_cold(lo, [r, 1 - r], [f, 1 - f], policy, 64) >= (
            waf_hot_cold(hi, [r, 1 - r], [f, 1 - f], policy, 64) - 1e-9
        )


def test_static_zone_limit_is_continuous():
    # a zone receiving no writes is static data: its term is the r -> 0 limit.
    a0 = waf_hot_cold(1.2, [1.0, 0.0], [0.5, 0.5])
    a_eps = waf_hot_cold(1.2, [1.0 - 1e-9, 1e-9], [0.5, 0.5])
    assert a0 == pytest.approx(a_eps, rel=1e-6)
    # FIFO re-copies static pages every cycle, so keeping static data on the shared frontier
    # costs more than writing the dynamic half alone with the remaining spare (alpha' = 1.4).
    assert a0 > waf_fifo(1.4)
    # Eq. 14 with x = alpha/A solved by hand: A = 1 + 0.5 A/alpha + 1/(exp(2 alpha/A) - 1)
    assert a0 == pytest.approx(1 + 0.5 * a0 / 1.2 + 1 / math.expm1(2 * 1.2 / a0), rel=1e-12)


# --- worked examples (reference-parameters.md §6.2, printed to 2 decimals) -------------------

ALPHA_7_OP = 1.070
ALPHA_7_SF = alpha_from_spare_factor(0.07)
ALPHA_PM9A3 = 1024 * 2**30 / 960e9
ALPHA_28_OP = 1.280
ALPHA_28_SF = alpha_from_spare_factor(0.28)

UNIFORM_TABLE = [
    # alpha, FIFO, greedy Np=64, Np=256, Np=2304
    (ALPHA_7_OP, 7.82, 7.00, 7.60, 7.79),
    (ALPHA_7_SF, 7.32, 6.60, 7.12, 7.30),
    (ALPHA_PM9A3, 4.12, 3.89, 4.06, 4.12),
    (ALPHA_28_OP, 2.48, 2.40, 2.46, 2.48),
    (ALPHA_28_SF, 1.99, 1.94, 1.98, 1.99),
]

HALF_ULP_2DP = 0.005 + 1e-12


@pytest.mark.parametrize("alpha,fifo,g64,g256,g2304", UNIFORM_TABLE)
def test_uniform_reference_table(alpha, fifo, g64, g256, g2304):
    assert abs(waf_fifo(alpha) - fifo) <= HALF_ULP_2DP
    assert abs(waf_greedy(alpha, 64) - g64) <= HALF_ULP_2DP
    assert abs(waf_greedy(alpha, 256) - g256) <= HALF_ULP_2DP
    assert abs(waf_greedy(alpha, 2304) - g2304) <= HALF_ULP_2DP


def test_xiang_kurkoski_op_0_3():
    assert abs(waf_fifo(alpha_from_op(0.3)) - 2.364) <= 0.0005


@pytest.mark.parametrize(
    "alpha,r,f,fifo,greedy256",
    [
        (1.07, 0.8, 0.2, 8.18, 7.96),
        (1.07, 0.9, 0.1, 8.87, 8.64),
        (1.28, 0.8, 0.2, 2.82, 2.80),
        (1.28, 0.9, 0.1, 3.30, 3.27),
    ],
)
def test_two_zone_reference_table(alpha, r, f, fifo, greedy256):
    assert abs(waf_hot_cold(alpha, [r, 1 - r], [f, 1 - f]) - fifo) <= HALF_ULP_2DP
    assert abs(waf_hot_cold(alpha, [r, 1 - r], [f, 1 - f], "greedy", 256) - greedy256) <= HALF_ULP_2DP
    assert waf(alpha, "fifo", zones=hot_cold_pattern(r, f)) == waf_hot_cold(alpha, [r, 1 - r], [f, 1 - f])


@pytest.mark.parametrize("alpha,expected,uniform", [(1.07, 8.53, 7.82), (1.28, 3.03, 2.48)])
def test_jesd219_three_zone_fifo(alpha, expected, uniform):
    a = waf(alpha, "fifo", zones=JESD219_LBA_SKEW)
    assert abs(a - expected) <= HALF_ULP_2DP
    assert a > uniform
    assert waf(alpha, "fifo", zones=((0.5, 0.3, 0.2), (0.05, 0.15, 0.8))) == a


# --- dispatcher, conversions, cost ------------------------------------------------------------


def test_dispatcher():
    assert waf(1.2) == waf_fifo(1.2)
    assert waf(1.2, "greedy", 64) == waf_greedy(1.2, 64)
    assert waf(1.2, "greedy", 64, zones=UniformPattern()) == waf_greedy(1.2, 64)
    assert waf(1.2, "fifo", zones=((1.0,), (1.0,))) == waf_fifo(1.2)


def test_conversions_round_trip():
    assert alpha_from_op(0.07) == pytest.approx(1.07)
    assert op_from_alpha(1.28) == pytest.approx(0.28)
    assert spare_factor_from_alpha(alpha_from_spare_factor(0.07)) == pytest.approx(0.07)
    assert spare_factor_from_alpha(1.07) == pytest.approx(0.0654, abs=5e-5)


def test_gc_cost_per_host_write():
    c = gc_cost_per_host_write(4.0, 64)
    assert c == GcCostPerHostWrite(page_programs=4.0, page_reads=3.0, block_erases=4.0 / 64)
    assert gc_cost_per_host_write(1.0, 1).page_reads == 0.0


@pytest.mark.parametrize(
    "call",
    [
        lambda: waf_fifo(1.0),
        lambda: waf_fifo(0.9),
        lambda: waf_fifo(float("nan")),
        lambda: waf_fifo(float("inf")),
        lambda: waf_fifo("x"),
        lambda: waf_greedy(1.2, 0),
        lambda: waf_greedy(1.2, 1.5),
        lambda: waf_greedy(1.2, True),
        lambda: waf_hot_cold(1.2, [0.5, 0.4], [0.5, 0.5]),
        lambda: waf_hot_cold(1.2, [0.5, 0.5], [0.6, 0.5]),
        lambda: waf_hot_cold(1.2, [0.5, 0.5], [1.0, 0.0]),
        lambda: waf_hot_cold(1.2, [1.5, -0.5], [0.5, 0.5]),
        lambda: waf_hot_cold(1.2, [1.0], [0.5, 0.5]),
        lambda: waf_hot_cold(1.2, [], []),
        lambda: waf_hot_cold(1.2, [1.0], [1.0], policy="lru"),
        lambda: waf_hot_cold(1.2, [1.0], [1.0], policy="greedy"),
        lambda: waf(1.2, "random"),
        lambda: waf(1.2, "greedy"),
        lambda: waf(1.2, zones=3),
        lambda: waf(1.2, zones=((0.7,), (1.0,))),
        lambda: alpha_from_op(0.0),
        lambda: alpha_from_op(-0.1),
        lambda: alpha_from_spare_factor(1.0),
        lambda: alpha_from_spare_factor(0.0),
        lambda: gc_cost_per_host_write(0.5, 64),
        lambda: gc_cost_per_host_write(2.0, 0),
    ],
)
def test_out_of_domain_inputs_raise_value_error(call):
    with pytest.raises(ValueError):
        call()


def test_a_cached_result_does_not_let_a_bool_past_the_check():
    # lru_cache keys 1 and True alike: once (alpha, 1) was cached, (alpha, True) returned its value
    waf_greedy(1.2, 1)
    with pytest.raises(ValueError):
        waf_greedy(1.2, True)
