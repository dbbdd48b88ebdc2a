"""ssdco.model.queueing.erlang: the M/M/c and machine-repairman closed forms against independent known answers."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdco.model.queueing.erlang import erlang_b, erlang_c, machine_repairman
from tests import references


@given(c=st.integers(1, 40), rho=st.floats(0.01, 0.99))
def test_erlang_c_is_the_defining_sum(c, rho):
    assert erlang_c(c, rho * c) == pytest.approx(references.erlang_c(c, rho * c), rel=1e-9)


def test_erlang_c_is_one_at_and_above_saturation():
    assert erlang_c(4, 4.0) == 1.0
    assert erlang_c(4, 7.5) == 1.0


def test_erlang_b_of_one_server_is_a_over_one_plus_a():
    assert erlang_b(1, 3.0) == pytest.approx(3.0 / 4.0, rel=1e-12)


@given(n=st.integers(1, 40), c=st.integers(1, 6), z=st.floats(0.1, 100.0), s=st.floats(0.1, 20.0))
@settings(max_examples=60)
def test_machine_repairman_is_the_product_form(n, c, z, s):
    x, r = machine_repairman(n, z, s, c)
    x_ref, r_ref = references.machine_repairman(n, z, s, c)
    assert x == pytest.approx(x_ref, rel=1e-9)
    assert r == pytest.approx(r_ref, rel=1e-9)
