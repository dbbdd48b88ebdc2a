"""Seed conventions of ssdco.rng."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdco.rng import NUMBA_SEED_BOUND, as_generator, derive_seed, spawn_seeds


def test_int_seed_is_reproducible():
    a = as_generator(42).random(5)
    b = as_generator(42).random(5)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, as_generator(43).random(5))


def test_generator_is_passed_through_and_advances():
    g = np.random.default_rng(1)
    assert as_generator(g) is g
    assert derive_seed(g) != derive_seed(g)  # two draws from one stream


def test_none_gives_a_fresh_generator():
    assert isinstance(as_generator(None), np.random.Generator)
    assert 0 <= derive_seed(None) < NUMBA_SEED_BOUND


@pytest.mark.parametrize("bad", [1.5, "3", True, [1]])
def test_bad_seed_types_raise(bad):
    with pytest.raises(TypeError):
        as_generator(bad)


def test_negative_seed_raises():
    with pytest.raises(ValueError):
        as_generator(-1)


def test_numpy_integer_seed_accepted():
    assert derive_seed(np.int64(5)) == derive_seed(5)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**63 - 1))
def test_derive_seed_is_deterministic_uint32(seed):
    s = derive_seed(seed)
    assert isinstance(s, int)
    assert 0 <= s < NUMBA_SEED_BOUND
    assert derive_seed(seed) == s


def test_derived_seeds_differ_between_seeds():
    seeds = {derive_seed(k) for k in range(200)}
    assert len(seeds) >= 199  # uint32 birthday collisions are ~5e-6 likely here


def test_spawn_seeds():
    a = spawn_seeds(7, 5)
    assert a == spawn_seeds(7, 5)
    assert len(set(a)) == 5
    assert all(0 <= s < NUMBA_SEED_BOUND for s in a)
    assert spawn_seeds(7, 0) == []
    with pytest.raises(ValueError):
        spawn_seeds(7, -1)
