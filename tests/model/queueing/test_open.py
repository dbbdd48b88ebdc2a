"""Open-network formulas against Erlang C and Pollaczek-Khinchine computed independently."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdco.model.queueing.erlang import erlang_c
from ssdco.model.queueing.open import solve_open
from tests.references import mg1_mean_wait, mmc_mean_wait


def erlang_c_textbook(c: int, a: float) -> float:
    """Erlang C from its defining sum (Kleinrock 3.5), independent of the recursion under test."""
    rho = a / c
    top = a ** c / math.factorial(c) / (1 - rho)
    return top / (sum(a ** k / math.factorial(k) for k in range(c)) + top)


@given(c=st.integers(1, 12), rho=st.floats(0.01, 0.98))
def test_erlang_c_matches_textbook(c, rho):
    assert erlang_c(c, rho * c) == pytest.approx(erlang_c_textbook(c, rho * c), rel=1e-9)


@given(c=st.integers(1, 8), rho=st.floats(0.05, 0.95), s=st.floats(0.1, 10.0))
@settings(max_examples=50)
def test_open_station_is_mmc(c, rho, s):
    lam = rho * c / s
    sol = solve_open([s], [1.0], [c], [1], [1.0], 0.0, lam)
    assert sol.residence_us[0] == pytest.approx(s + erlang_c_textbook(c, lam * s) * s / (c - lam * s), rel=1e-9)
    assert sol.residence_us[0] == pytest.approx(s + mmc_mean_wait(lam, s, c), rel=1e-12)


@given(rho=st.floats(0.05, 0.95), s=st.floats(0.1, 10.0), scv=st.sampled_from([0.0, 0.25, 1.0, 3.0]))
@settings(max_examples=50)
def test_open_single_server_is_pollaczek_khinchine(rho, s, scv):
    lam = rho / s
    sol = solve_open([s], [1.0], [1], [1], [scv], 0.0, lam)
    pk = lam * (s * s * (1 + scv)) / (2 * (1 - rho))  # lambda E[S^2] / (2 (1 - rho))
    assert sol.residence_us[0] - s == pytest.approx(pk, rel=1e-9)
    assert mg1_mean_wait(lam, s, scv) == pytest.approx(pk, rel=1e-12)


def test_unstable_when_utilisation_reaches_one():
    sol = solve_open([2.0, 1.0], [1.0, 1.0], [1, 1], [1, 1], [0.0, 0.0], 0.0, 0.5)
    assert not sol.stable and math.isinf(sol.response_us)
    assert solve_open([2.0, 1.0], [1.0, 1.0], [1, 1], [1, 1], [0.0, 0.0], 0.0, 0.49).stable


def test_copies_and_visits_split_the_load():
    # 4 copies each visited 0.25 times per request: per-copy arrival rate is lambda / 4
    sol = solve_open([0.25 * 8.0], [0.25], [1], [4], [1.0], 1.0, 0.3)
    lam_copy = 0.3 * 0.25
    expected = 1.0 + 4 * 0.25 * (8.0 + mmc_mean_wait(lam_copy, 8.0, 1))
    assert sol.response_us == pytest.approx(expected, rel=1e-12)


@given(rho=st.floats(0.05, 0.95), s=st.floats(0.1, 10.0), batch=st.integers(1, 16),
       scv=st.sampled_from([0.0, 0.25, 1.0]))
@settings(max_examples=50)
def test_batches_of_fixed_size_wait_as_in_mx_g_1(rho, s, batch, scv):
    # M^X/G/1 with X = batch: the first of a batch waits for the work found, lambda_B E[B^2] / (2 (1 - rho))
    # with B the batch's work (Gross & Harris), computed here from the batch's moments
    lam = rho / s  # transactions per us
    lam_batch = lam / batch
    e_b2 = batch * s * s * (1 + scv) + batch * (batch - 1) * s * s
    sol = solve_open([s], [1.0], [1], [1], [scv], 0.0, lam, batch_excess=[batch - 1.0])
    assert sol.residence_us[0] - s == pytest.approx(lam_batch * e_b2 / (2 * (1 - rho)), rel=1e-9)


def test_batches_wait_longer_on_every_server_count():
    for c in (1, 2, 4):
        one = solve_open([c * 0.8], [1.0], [c], [1], [0.0], 0.0, 1.0)
        four = solve_open([c * 0.8], [1.0], [c], [1], [0.0], 0.0, 1.0, batch_excess=[3.0])
        assert four.residence_us[0] > one.residence_us[0]


def test_residual_factors_of_an_open_route_count_only_visits_after_an_earlier_one():
    import numpy as np

    from ssdco import load_config
    from ssdco.model.queueing.route_mva import residual_factors, route_arrays
    from ssdco.network.build import build_network
    from tests.conftest import PM9A3

    net = build_network(load_config(PM9A3, controller="c02"))  # translate, dispatch, complete on 3 slow cores
    loads = net.loads()
    names = [ld.name for ld in loads]
    arrays = route_arrays(net, loads)
    open_f = dict(zip(names, residual_factors(arrays, closed_loop=False)))
    closed_f = dict(zip(names, residual_factors(arrays)))
    group = loads[names.index("cores:simple")]
    # dispatch follows translate at once (a re-entry); translate is a request's first visit there, and
    # complete comes back only after the die: r = 1 of 3 visits, over 3 servers
    r = 1.0 / 3.0 / group.servers
    assert open_f["cores:simple"] == pytest.approx(r + (1 - r) * (1 + group.scv) / 2)
    # a station visited once per request: never a re-entry in an open network; in the closed loop the
    # completed request comes back as the next one, so a little of it is
    assert open_f["die"] == 0.5 and closed_f["die"] > 0.5
    assert np.all(np.array(list(closed_f.values())) >= np.array(list(open_f.values())) - 1e-12)


@given(c=st.integers(1, 8), rho=st.floats(0.05, 0.98))
@settings(max_examples=50)
def test_batch_erlang_c_of_single_jobs_is_erlang_c(c, rho):
    from ssdco.model.queueing.open import batch_erlang_c

    a = rho * c
    p_wait, queued = batch_erlang_c(c, a / 100.0, 100.0, [0.0, 1.0])
    assert p_wait == pytest.approx(erlang_c_textbook(c, a), rel=1e-9)
    assert queued == pytest.approx(erlang_c_textbook(c, a) * a / (c - a), rel=1e-9)


@pytest.mark.parametrize("c,rho", [(2, 0.3), (3, 0.5), (4, 0.8), (3, 0.95)])
def test_batch_erlang_c_solves_the_mx_m_c_chain(c, rho):
    # against the truncated generator of M^X/M/c solved as a linear system (pi Q = 0, sum pi = 1)
    import numpy as np

    from ssdco.model.queueing.open import batch_erlang_c

    pmf = np.array([0.0, 4.0, 6.0, 4.0, 1.0]) / 15.0  # Bin(4, 1/2) given >= 1: 16 KiB over two dies
    s = 100.0
    lam_b = rho * c / (s * float(np.dot(np.arange(5), pmf)))
    n = 800
    q = np.zeros((n + 1, n + 1))
    for i in range(n + 1):
        for x in range(1, 5):
            q[i, min(i + x, n)] += lam_b * pmf[x]
        if i > 0:
            q[i, i - 1] += min(i, c) / s
        q[i, i] -= q[i].sum()
    system = q.T.copy()
    system[-1] = 1.0  # one balance equation is redundant: normalise instead
    pi = np.linalg.solve(system, np.r_[np.zeros(n), 1.0])
    p_wait, queued = batch_erlang_c(c, lam_b, s, pmf)
    assert p_wait == pytest.approx(pi[c:].sum(), rel=1e-6)
    assert queued == pytest.approx(float(np.dot(np.clip(np.arange(n + 1) - c, 0, None), pi)), rel=1e-6)


@given(rho=st.floats(0.05, 0.95), scv=st.sampled_from([0.0, 0.25, 1.0]))
@settings(max_examples=30)
def test_first_of_a_batch_on_one_server_waits_as_in_mx_g_1(rho, scv):
    # lambda_B E[B^2] / (2 (1 - rho)), E[B^2] = E[X] S^2 scv + E[X^2] S^2 (Gross & Harris), for a batch mix
    import numpy as np

    from ssdco.model.queueing.open import batch_first_wait

    pmf = np.array([0.0, 0.5, 0.3, 0.0, 0.2])
    ex, ex2 = float(np.dot(np.arange(5), pmf)), float(np.dot(np.arange(5) ** 2, pmf))
    s = 10.0
    lam_b = rho / (s * ex)
    wait, p_wait = batch_first_wait(1, lam_b, s, pmf, (1 + scv) / 2, ex2 / ex - 1)
    assert wait == pytest.approx(lam_b * (ex * s * s * scv + ex2 * s * s) / (2 * (1 - rho)), rel=1e-9)
    assert p_wait == pytest.approx(rho, rel=1e-9)


@given(c=st.integers(1, 6), rho=st.floats(0.05, 0.95), scv=st.sampled_from([0.0, 0.5, 1.0]))
@settings(max_examples=30)
def test_first_of_a_batch_of_one_waits_as_allen_cunneen(c, rho, scv):
    from ssdco.model.queueing.open import batch_first_wait

    s = 10.0
    a = rho * c
    wait, _ = batch_first_wait(c, a / s, s, [0.0, 1.0], (1 + scv) / 2, 0.0)
    assert wait == pytest.approx((1 + scv) / 2 * mmc_mean_wait(a / s, s, c), rel=1e-9)


def test_batch_erlang_c_at_vanishing_load():
    # no arrivals, and a load so small that the chain's terms underflow: nobody waits, and nothing divides by 0
    import numpy as np

    from ssdco.model.queueing.open import batch_erlang_c

    assert batch_erlang_c(3, 0.0, 10.0, [0.0, 1.0]) == (0.0, 0.0)
    p_wait, queued = batch_erlang_c(16, 1e-15, 1.0, np.r_[0.0, np.full(16, 1 / 16)])
    assert 0.0 <= p_wait < 1e-12 and 0.0 <= queued < 1e-12
