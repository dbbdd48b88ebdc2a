"""Output analysis: t intervals, batch means and the log-binned latency histogram."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sst

from ssdco.sim import stats as S

LO, HI, BINS = 1e-3, 1e7, 8192
RATIO = (HI / LO) ** (1.0 / BINS)  # width of one bin as a ratio (1.0028)


def test_t_interval_matches_scipy():
    x = np.array([1.0, 2.5, 2.0, 3.5, 1.5, 2.2])
    est = S.t_interval(x, 0.95)
    lo, hi = sst.t.interval(0.95, x.size - 1, loc=x.mean(), scale=sst.sem(x))
    assert est.value == pytest.approx(x.mean())
    assert est.low == pytest.approx(lo)
    assert est.high == pytest.approx(hi)
    assert est.batches == 6
    assert est.contains(x.mean()) and not est.contains(hi + 1e-9)


def test_t_interval_needs_two_values():
    with pytest.raises(ValueError):
        S.t_interval([1.0])
    with pytest.raises(ValueError):
        S.t_quantile(1.0, 5)


def test_t_interval_coverage_is_nominal():
    """Over 2000 independent normal samples the 95 % interval covers the true mean 95 % of the time."""
    rng = np.random.default_rng(12345)
    samples = rng.normal(3.0, 2.0, size=(2000, 20))
    covered = sum(S.t_interval(row).contains(3.0) for row in samples)
    # binomial(2000, 0.95): sd = 9.7; allow 4 sd
    assert abs(covered - 1900) <= 40


def test_rate_estimate_point_is_ratio_of_totals():
    est = S.rate_estimate([10, 12, 8], [2.0, 2.0, 2.0])
    assert est.value == pytest.approx(30 / 6)
    assert est.half_width == pytest.approx(S.t_interval([5.0, 6.0, 4.0]).half_width)
    with pytest.raises(ValueError):
        S.rate_estimate([1, 2], [1.0, 0.0])


def test_batch_means_and_autocorrelation():
    x = np.arange(10.0)
    assert np.allclose(S.batch_means(x, 3), [1.0, 4.0, 7.0])
    with pytest.raises(ValueError):
        S.batch_means(x, 11)
    rng = np.random.default_rng(0)
    assert abs(S.lag1_autocorrelation(rng.normal(size=20_000))) < 0.03
    ar = np.zeros(20_000)
    e = rng.normal(size=ar.size)
    for i in range(1, ar.size):
        ar[i] = 0.8 * ar[i - 1] + e[i]
    assert S.lag1_autocorrelation(ar) == pytest.approx(0.8, abs=0.03)


def test_log_bin_edges_and_index_agree():
    edges = S.log_bin_edges(LO, HI, BINS)
    assert edges.size == BINS + 1
    assert edges[0] == pytest.approx(LO) and edges[-1] == pytest.approx(HI)
    rng = np.random.default_rng(3)
    x = np.exp(rng.uniform(math.log(LO) - 1, math.log(HI) + 1, 50_000))
    idx = S.hist_index(x, LO, HI, BINS)
    assert np.all(idx[x <= LO] == 0) and np.all(idx[x >= HI] == BINS + 1)
    mid = (x > LO) & (x < HI)
    lo_e, hi_e = edges[idx[mid] - 1], edges[idx[mid]]
    tol = 1e-12
    assert np.all(x[mid] >= lo_e * (1 - tol)) and np.all(x[mid] <= hi_e * (1 + tol))


def test_point_mass_percentiles_are_exact():
    x = np.full(1000, 58.19007897)
    c = S.histogram(x, LO, HI, BINS)
    e = S.log_bin_edges(LO, HI, BINS)
    for q in (0.0, 50.0, 99.0, 99.9, 100.0):
        assert S.hist_percentile(c, e, q, x.min(), x.max()) == x[0]
    xs, f = S.hist_cdf(c, e, x.max())
    assert xs.tolist() == [x[0]] and f.tolist() == [1.0]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(-3.0, 8.0), st.floats(0.05, 2.5), st.integers(50, 5000),
       st.sampled_from([1.0, 10.0, 50.0, 90.0, 99.0, 99.9]))
def test_hist_percentile_within_one_bin_of_exact(seed, mu, sigma, n, q):
    """The histogram percentile is within one bin ratio (0.28 %) of the exact sample quantile."""
    x = np.random.default_rng(seed).lognormal(mu, sigma, n)
    x = x[(x > LO) & (x < HI)]
    if x.size == 0:
        return
    c = S.histogram(x, LO, HI, BINS)
    e = S.log_bin_edges(LO, HI, BINS)
    exact = float(np.sort(x)[max(math.ceil(q / 100 * x.size - 1e-9), 1) - 1])  # smallest x with F(x) >= q
    got = S.hist_percentile(c, e, q, x.min(), x.max())
    assert abs(got / exact - 1.0) <= (RATIO - 1.0) * (1 + 1e-6)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3000))
def test_hist_cdf_is_a_cdf(seed, n):
    x = np.random.default_rng(seed).exponential(5.0, n) + 1e-4
    c = S.histogram(x, LO, HI, BINS)
    e = S.log_bin_edges(LO, HI, BINS)
    xs, f = S.hist_cdf(c, e, x.max())
    assert np.all(np.diff(xs) > 0) and np.all(np.diff(f) >= 0)
    assert f[-1] == pytest.approx(1.0) and xs[-1] == x.max()
    # F at each upper edge equals the empirical fraction below it
    for xi, fi in list(zip(xs, f))[:: max(1, len(xs) // 20)]:
        if xi < x.max():
            assert np.mean(x < xi * (1 - 1e-9)) <= fi <= np.mean(x <= xi * (1 + 1e-9))


def test_percentile_of_empty_histogram_is_nan():
    assert math.isnan(S.hist_percentile(np.zeros(BINS + 2, int), S.log_bin_edges(LO, HI, BINS), 50))
    with pytest.raises(ValueError):
        S.hist_percentile(np.zeros(5, int), S.log_bin_edges(LO, HI, BINS), 50)


def test_estimate_helpers():
    e = S.Estimate(10.0, 0.5)
    assert (e.low, e.high) == (9.5, 10.5)
    assert e.relative_half_width == pytest.approx(0.05)
    assert float(e) == 10.0
    assert "10" in str(e)
