"""Exact MVA against closed forms, symmetric folding, and the residual correction's limits."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdco.model.queueing.convolution import (
    closed_throughput,
    closed_throughput_by_n,
    closed_throughput_fft,
    solve_closed_convolution,
)
from ssdco.model.queueing.mva import solve_closed, solve_closed_batch
from tests.references import closed_single_station, machine_repairman, tandem_balanced_throughput


@pytest.mark.parametrize("n,c,s", [(1, 1, 2.0), (5, 1, 1.0), (5, 3, 4.0), (3, 8, 1.5), (40, 4, 50.0)])
def test_single_station_closed_network_exact(n, c, s):
    sol = solve_closed([s], [c], [1], [1.0], 0.0, n, exact=True)
    assert sol.throughput_per_us == pytest.approx(closed_single_station(n, s, c), rel=1e-9, abs=0)


@given(n=st.integers(1, 60), c=st.integers(1, 6), z=st.floats(0.1, 100.0), s=st.floats(0.1, 20.0))
@settings(max_examples=80)
def test_machine_repairman_exact(n, c, z, s):
    x_ref, r_ref = machine_repairman(n, z, s, c)
    sol = solve_closed([s], [c], [1], [1.0], z, n, exact=True)
    assert sol.throughput_per_us == pytest.approx(x_ref, rel=1e-9)
    assert sol.response_us - z == pytest.approx(r_ref, rel=1e-9)
    assert sol.residence_us[0] == pytest.approx(r_ref, rel=1e-9)


@given(n=st.integers(1, 60), z=st.floats(0.1, 100.0), s=st.floats(0.1, 20.0))
@settings(max_examples=60)
def test_machine_repairman_mva_recursion_single_server(n, z, s):
    """The exponential MVA recursion (scv = 1) is exact and stable for single-server stations."""
    x_ref, r_ref = machine_repairman(n, z, s, 1)
    sol = solve_closed([s], [1], [1], [1.0], z, n)
    assert sol.throughput_per_us == pytest.approx(x_ref, rel=1e-9)
    assert sol.response_us - z == pytest.approx(r_ref, rel=1e-9)


@pytest.mark.parametrize("n,c,z,s", [(10, 3, 20.0, 4.0), (25, 4, 50.0, 6.0), (12, 6, 5.0, 2.0)])
def test_machine_repairman_mva_recursion_multi_server_away_from_saturation(n, c, z, s):
    """Load-dependent MVA recursion equals the closed form where the multi-server station is not
    about to saturate (near saturation its 1 - sum(p) loses digits; see mva.py)."""
    x_ref, _ = machine_repairman(n, z, s, c)
    assert x_ref < 0.99 * c / s
    assert solve_closed([s], [c], [1], [1.0], z, n).throughput_per_us == pytest.approx(x_ref, rel=1e-9)


def test_mva_recursion_instability_is_bounded_and_convolution_is_not_affected():
    """Documented weakness: 6 servers, N = 46, just before saturation. The recursion's error is
    small but far above rounding; the convolution solver stays at rounding level."""
    x_ref, _ = machine_repairman(46, 13.0, 5.0, 6)
    recursion = solve_closed([5.0], [6], [1], [1.0], 13.0, 46).throughput_per_us
    exact = solve_closed_convolution([5.0], [6], [1], 13.0, 46).throughput_per_us
    assert abs(exact / x_ref - 1) < 1e-12
    assert 1e-12 < abs(recursion / x_ref - 1) < 1e-7


@pytest.mark.parametrize("n,k", [(1, 3), (4, 3), (32, 5), (7, 12)])
def test_balanced_tandem_exact(n, k):
    sol = solve_closed([2.0] * k, [1] * k, [1] * k, [1.0] * k, 0.0, n, exact=True)
    assert sol.throughput_per_us == pytest.approx(tandem_balanced_throughput(n, k, 2.0), rel=1e-9)


@given(copies=st.integers(1, 8), servers=st.integers(1, 3), n=st.integers(1, 30), exact=st.booleans(),
       scv=st.sampled_from([0.0, 0.5, 1.0, 2.0]))
@settings(max_examples=40)
def test_symmetric_copies_equal_unfolded(copies, servers, n, exact, scv):
    """One station with m copies solves exactly like m separate identical stations."""
    d_die, d_other = 40.0 / copies, 3.0
    folded = solve_closed([d_other, d_die], [1, servers], [1, copies], [scv, scv], 5.0, n, exact=exact)
    unfolded = solve_closed([d_other] + [d_die] * copies, [1] + [servers] * copies, [1] * (copies + 1),
                            [scv] * (copies + 1), 5.0, n, exact=exact)
    assert folded.throughput_per_us == pytest.approx(unfolded.throughput_per_us, rel=1e-12)


def test_population_one_is_inverse_total_demand():
    d = [1.0, 2.5, 0.3]
    sol = solve_closed(d, [1, 2, 1], [1, 4, 1], [0.0, 0.0, 0.0], 2.0, 1)
    assert sol.throughput_per_us == pytest.approx(1.0 / (2.0 + 1.0 + 4 * 2.5 + 0.3), rel=1e-12)


@given(d=st.lists(st.floats(0.1, 5.0), min_size=1, max_size=5), data=st.data(), n=st.integers(1, 40),
       z=st.floats(0.0, 10.0))
@settings(max_examples=60)
def test_correction_at_scv_one_is_the_exact_solution(d, data, n, z):
    """With scv = 1 the corrected recursion is plain exponential MVA; it equals the convolution
    solution (1e-9 where no multi-server station is within 1 % of saturation, else 1e-6)."""
    k = len(d)
    c = data.draw(st.lists(st.integers(1, 4), min_size=k, max_size=k))
    m = data.draw(st.lists(st.integers(1, 8), min_size=k, max_size=k))
    a = solve_closed(d, c, m, [1.0] * k, z, n)
    b = solve_closed(d, c, m, [1.0] * k, z, n, exact=True)
    cap = min(ci / di for ci, di in zip(c, d))
    near = any(ci > 1 and b.throughput_per_us * di / ci > 0.99 for ci, di in zip(c, d))
    assert a.throughput_per_us == pytest.approx(b.throughput_per_us, rel=1e-6 if near else 1e-9)
    assert b.throughput_per_us <= cap * (1 + 1e-12)
    assert np.allclose(a.queue, b.queue, rtol=1e-6 if near else 1e-8, atol=1e-10)


def test_deterministic_service_waits_less_than_exponential():
    """Residual of a deterministic job in service is S/2, so queueing (and latency) is lower."""
    args = ([1.0, 0.8], [1, 1], [1, 1])
    det = solve_closed(*args, [0.0, 0.0], 0.5, 10)
    exp = solve_closed(*args, [1.0, 1.0], 0.5, 10)
    assert det.throughput_per_us > exp.throughput_per_us


def test_batch_matches_single():
    rng = np.random.default_rng(1)
    d = rng.uniform(0.1, 5.0, size=(50, 4))
    c = rng.integers(1, 4, size=(50, 4))
    m = rng.integers(1, 5, size=(50, 4)).astype(float)
    v = rng.choice([0.0, 1.0], size=(50, 4))
    z = rng.uniform(0.0, 3.0, size=50)
    xs = solve_closed_batch(d, c, m, v, z, 16)
    for b in range(50):
        assert xs[b] == pytest.approx(solve_closed(d[b], c[b], m[b], v[b], z[b], 16).throughput_per_us, rel=1e-12)


@given(n=st.integers(1, 80), d=st.lists(st.floats(0.05, 50.0), min_size=1, max_size=3),
       c=st.lists(st.integers(1, 4), min_size=3, max_size=3), m=st.lists(st.integers(1, 9), min_size=3, max_size=3),
       z=st.floats(0.0, 100.0))
@settings(max_examples=60)
def test_closed_throughput_equals_the_full_convolution_solution(n, d, c, m, z):
    k = len(d)
    full = solve_closed_convolution(d, c[:k], m[:k], z, n).throughput_per_us
    assert closed_throughput(d, c[:k], m[:k], z, n) == pytest.approx(full, rel=1e-12)


@given(n=st.integers(1, 60), d=st.lists(st.floats(0.05, 50.0), min_size=1, max_size=3),
       c=st.lists(st.integers(1, 4), min_size=3, max_size=3), m=st.lists(st.integers(1, 9), min_size=3, max_size=3),
       z=st.floats(0.0, 100.0))
@settings(max_examples=30)
def test_throughput_by_population_is_the_throughput_at_each_population(n, d, c, m, z):
    k = len(d)
    by_n = closed_throughput_by_n(d, c[:k], m[:k], z, n)
    assert by_n.shape == (n + 1,) and by_n[0] == 0.0
    for pop in {1, n // 2 or 1, n}:
        assert by_n[pop] == pytest.approx(closed_throughput(d, c[:k], m[:k], z, pop), rel=1e-12)


@given(n=st.integers(1, 600), m=st.integers(1, 64), d=st.floats(0.1, 1000.0))
@settings(max_examples=60)
def test_jobs_spread_at_random_over_identical_queues_keep_them_busy_n_over_n_plus_m_minus_1(n, m, d):
    # m single-server copies, demand d per job on each copy, no think time: every state is equally
    # likely (Bose-Einstein), so a copy is busy N / (N + m - 1) of the time
    assert closed_throughput([d], [1], [m], 0.0, n) * d == pytest.approx(n / (n + m - 1), rel=1e-9)


@given(n=st.integers(1, 400), d=st.lists(st.floats(0.01, 50.0), min_size=1, max_size=3),
       c=st.lists(st.integers(1, 8), min_size=3, max_size=3), m=st.lists(st.integers(1, 200), min_size=3, max_size=3),
       z=st.floats(0.0, 500.0))
@settings(max_examples=60, deadline=None)
def test_fft_convolution_equals_the_log_space_one(n, d, c, m, z):
    # the FFT is accurate relative to the largest terms only; the tilt puts G(N - 1) and G(N) among them
    # (measured: 5e-13 at worst on 2,000 random networks, convolution.closed_throughput_fft)
    k = len(d)
    assert closed_throughput_fft(d, c[:k], m[:k], z, n) == pytest.approx(closed_throughput(d, c[:k], m[:k], z, n),
                                                                        rel=1e-11)


@pytest.mark.parametrize("n,m", [(20_000, 64), (5_000, 1), (1, 7), (2, 1_000)])
def test_fft_convolution_keeps_n_over_n_plus_m_minus_1_at_large_populations(n, m):
    # beyond what the log-space kernel solves quickly: m single-server copies, every state equally likely
    d = 3.0
    assert closed_throughput_fft([d], [1], [m], 0.0, n) * d == pytest.approx(n / (n + m - 1), rel=1e-9)


def test_fft_convolution_needs_a_network():
    with pytest.raises(ValueError):
        closed_throughput_fft([0.0], [1], [4], 0.0, 10)
    with pytest.raises(ValueError):
        closed_throughput_fft([1.0], [1], [4], 0.0, 0)
