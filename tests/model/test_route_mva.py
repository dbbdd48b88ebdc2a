"""Helpers of the route MVA's fork-join step (route_mva.py, 1.)."""

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from ssdco.model.route_mva import distinct_copies_distribution, expected_serial_count


def _stirling2(n: int, k: int) -> int:
    """Stirling number of the second kind (set partitions of n into k blocks)."""
    return round(sum((-1) ** i * math.comb(k, i) * (k - i) ** n for i in range(k + 1)) / math.factorial(k))


@given(st.integers(1, 12), st.integers(1, 16))
def test_distinct_copies_is_the_occupancy_distribution(transactions, copies):
    dist = np.array(distinct_copies_distribution(transactions, copies))
    assert dist.shape == (transactions + 1,)
    assert abs(dist.sum() - 1.0) < 1e-12
    # P(D = d) = C(m, d) S(T, d) d! / m^T
    exact = [math.comb(copies, d) * _stirling2(transactions, d) * math.factorial(d) / copies ** transactions
             for d in range(transactions + 1)]
    np.testing.assert_allclose(dist, exact, rtol=1e-12, atol=1e-15)
    # E[D] = m (1 - (1 - 1/m)^T)
    mean = float(np.dot(np.arange(transactions + 1), dist))
    assert math.isclose(mean, copies * (1.0 - (1.0 - 1.0 / copies) ** transactions), rel_tol=1e-12)


def test_distinct_copies_edge_cases():
    assert distinct_copies_distribution(1, 8) == (0.0, 1.0)
    assert distinct_copies_distribution(4, 1) == (0.0, 1.0, 0.0, 0.0, 0.0)  # one copy: all on it
    two_on_two = distinct_copies_distribution(2, 2)
    assert math.isclose(two_on_two[1], 0.5) and math.isclose(two_on_two[2], 0.5)


def test_serial_count_is_the_expected_busiest_copy():
    # 2 transactions over 2 single-server copies: both on one copy half the time
    assert math.isclose(expected_serial_count(2, 2, 1), 1.5)
    assert expected_serial_count(4, 1, 2) == 2.0  # ceil(4 / 2) on one two-server station
    assert expected_serial_count(1, 8, 1) == 1.0
