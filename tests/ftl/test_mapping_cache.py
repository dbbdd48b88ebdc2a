"""Mapping-cache analytics (ssdco.ftl.mapping_cache): Che's approximation, DFTL costs, DRAM.

Simulator comparisons (Che vs a simulated LRU, partitioned cache) are in tests/validation/test_ftlsim.py.
"""

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ssdco.ftl.address_patterns import JESD219_LBA_SKEW, UniformPattern
from ssdco.ftl.mapping_cache import (
    ZonePopularity,
    batch_update_entries_per_flush,
    che_characteristic_time,
    che_hit_ratio,
    dftl_cost,
    dirty_eviction_probability,
    full_mapping_table_bytes,
    mapping_dram_bytes,
    partitioned_cache_cost,
    translation_page_popularity,
)

PROP = settings(max_examples=50, deadline=None)

# --- Che's approximation: closed forms and theorems -----------------------------------------


@PROP
@given(st.integers(min_value=1, max_value=10**9), st.floats(min_value=0.0, max_value=1.0))
def test_uniform_popularity_gives_c_over_n(n, frac):
    c = frac * n
    assert che_hit_ratio(ZonePopularity.uniform(n), c).hit_ratio == pytest.approx(frac, abs=1e-9)


def test_uniform_explicit_vector_gives_c_over_n():
    q = np.full(1000, 1e-3)
    assert che_hit_ratio(q, 250).hit_ratio == pytest.approx(0.25, abs=1e-12)


@PROP
@given(st.lists(st.floats(min_value=1e-3, max_value=1.0), min_size=2, max_size=40),
       st.floats(min_value=0.01, max_value=0.99))
def test_characteristic_time_solves_che_equation(weights, frac):
    q = np.asarray(weights) / sum(weights)
    c = frac * len(q)
    t = che_characteristic_time(q, c)
    assert float(np.sum(-np.expm1(-q * t))) == pytest.approx(c, rel=1e-9)


@PROP
@given(st.floats(min_value=0.0, max_value=1.0), st.floats(min_value=0.0, max_value=1.0))
def test_hit_ratio_monotone_in_cache_size(f1, f2):
    pop = ZonePopularity.from_pattern(JESD219_LBA_SKEW, 10**6)
    lo, hi = sorted((f1, f2))
    h_lo = che_hit_ratio(pop, lo * 10**6).hit_ratio
    h_hi = che_hit_ratio(pop, hi * 10**6).hit_ratio
    assert h_lo <= h_hi + 1e-12
    # skewed popularity never does worse than uniform for LRU under Che (cache holds the hot items)
    assert h_lo >= lo - 1e-9


# reference-parameters.md §7.2 (JESD219 skew applied to mapping entries), 3 decimals
CHE_TABLE = [(0.01, 0.056), (0.02, 0.109), (0.05, 0.256), (0.10, 0.451), (0.20, 0.665), (0.30, 0.764), (0.50, 0.869)]


@pytest.mark.parametrize("frac,expected", CHE_TABLE)
def test_che_reference_table_jesd219_without_materialising(frac, expected):
    n = 10**8  # 10^8 entries: must not be materialised
    pop = ZonePopularity.from_pattern(JESD219_LBA_SKEW, n)
    assert abs(che_hit_ratio(pop, frac * n).hit_ratio - expected) <= 0.0005 + 1e-12


def test_zone_and_explicit_popularity_agree():
    n = 2000
    pop = ZonePopularity.from_pattern(JESD219_LBA_SKEW, n)
    q = np.repeat(pop.item_probabilities, pop.item_counts)
    for c in (20, 200, 1000):
        assert che_hit_ratio(q, c).hit_ratio == pytest.approx(che_hit_ratio(pop, c).hit_ratio, rel=1e-10)


def test_che_edge_cases():
    pop = ZonePopularity((10, 10), (1.0, 0.0))
    assert che_hit_ratio(pop, 0).hit_ratio == 0.0
    assert che_hit_ratio(pop, 10).hit_ratio == 1.0  # all items with positive popularity fit
    assert math.isinf(che_characteristic_time(pop, 15))
    with pytest.raises(ValueError):
        che_hit_ratio(pop, 21)
    with pytest.raises(ValueError):
        che_hit_ratio(pop, -1)
    with pytest.raises(ValueError):
        che_hit_ratio(np.array([0.5, 0.6]), 1)
    with pytest.raises(ValueError):
        che_hit_ratio(np.array([1.5, -0.5]), 1)


# --- translation-page popularity ---------------------------------------------------------------


@PROP
@given(st.integers(min_value=20, max_value=5000), st.integers(min_value=1, max_value=700))
def test_translation_page_popularity_matches_explicit_aggregation(n, e):
    pop = ZonePopularity.from_pattern(JESD219_LBA_SKEW, n)
    pages = translation_page_popularity(pop, e)
    assert pages.n_items == -(-n // e)
    assert math.fsum(pages.access_fractions) == pytest.approx(1.0, abs=1e-12)
    explicit = translation_page_popularity(np.repeat(pop.item_probabilities, pop.item_counts), e)
    implied = np.sort(np.repeat(pages.item_probabilities, pages.item_counts))
    assert implied == pytest.approx(np.sort(explicit), abs=1e-12)


def test_translation_page_popularity_is_small_for_huge_tables():
    pages = translation_page_popularity(ZonePopularity.from_pattern(JESD219_LBA_SKEW, 10**8), 4096)
    assert pages.n_items == -(-(10**8) // 4096)
    assert len(pages.item_counts) <= 3 + 2 * 3 + 1


# --- DFTL ---------------------------------------------------------------------------------------


def test_dirty_eviction_probability_limits():
    h = np.array([0.0, 0.3, 0.9])
    assert np.all(dirty_eviction_probability(h, 0.0) == 0.0)
    assert np.allclose(dirty_eviction_probability(h, 1.0), 1.0)
    assert dirty_eviction_probability(0.0, 0.3) == pytest.approx(0.3)  # one request per residence
    # more requests per residence -> more likely dirtied
    d = dirty_eviction_probability(h, 0.3)
    assert np.all(np.diff(d) > 0)


@PROP
@given(st.floats(min_value=0.0, max_value=1.0), st.floats(min_value=0.0, max_value=0.999))
@example(1e-9, 0.999)
def test_dirty_probability_equals_geometric_series(w, h):
    # P(clean) = sum_k (1-w)^k h^(k-1) (1-h)
    k = np.arange(1, 100_000)  # tail h^k < e^-100 for h <= 0.999
    clean = float(np.sum((1 - w) ** k * h ** (k - 1) * (1 - h)))
    assert dirty_eviction_probability(h, w) == pytest.approx(1 - clean, abs=1e-9)


def test_dftl_read_only_costs_one_mapping_read_per_miss():
    pop = ZonePopularity.from_pattern(JESD219_LBA_SKEW, 10**7)
    c = dftl_cost(pop, 0.1, 0.0)
    assert c.translation_writes_per_request == 0.0
    assert c.translation_reads_per_request == pytest.approx(c.miss_ratio)
    assert c.miss_ratio == pytest.approx(1 - c.hit_ratio)
    assert c.hit_ratio == pytest.approx(0.451, abs=5e-4)
    assert (c.max_nand_reads_per_read, c.max_nand_writes_per_read) == (2, 0)


def test_dftl_mixed_entry_and_page_grained():
    pop = ZonePopularity.uniform(2**20)
    e = dftl_cost(pop, 0.25, 0.5, "entry")
    p = dftl_cost(pop, 0.25, 0.5, "page", entries_per_page=1024)
    for c in (e, p):
        assert c.hit_ratio == pytest.approx(0.25, abs=1e-9)
        assert 0.5 <= c.dirty_eviction_probability <= 1.0
        assert c.translation_writes_per_request == pytest.approx(0.75 * c.dirty_eviction_probability)
    assert e.translation_reads_per_request == pytest.approx(0.75 * (1 + e.dirty_eviction_probability))
    assert p.translation_reads_per_request == pytest.approx(0.75)
    assert (e.max_nand_reads_per_read, e.max_nand_writes_per_read) == (3, 1)
    assert (p.max_nand_reads_per_read, p.max_nand_writes_per_read) == (2, 1)
    full = dftl_cost(pop, 1.0, 0.5)
    assert full.hit_ratio == 1.0 and full.translation_reads_per_request == 0.0
    assert full.max_nand_reads_per_read == 1


def test_batch_update_small_b_limit_is_two_d_over_p_plus_one():
    n, e = 2**20, 1024
    b, m = batch_update_entries_per_flush(ZonePopularity.uniform(n), 2**12, e)
    assert b == pytest.approx(2 * 2**12 / (n / e) + 1, rel=2e-3)
    assert b < m < b * (1 + b / e)


def test_partitioned_cache_reads_never_write():
    pop = ZonePopularity.from_pattern(JESD219_LBA_SKEW, 2**20)
    c = partitioned_cache_cost(pop, 32, 2**16, 1024)
    assert c.translation_writes_per_read == 0.0
    assert c.max_nand_reads_per_read == 2
    assert 0.0 < c.read_hit_ratio < 1.0
    assert c.read_hit_ratio == pytest.approx(c.clean_hit_ratio + (1 - c.clean_hit_ratio) * c.dirty_hit_probability)
    assert c.translation_writes_per_write == pytest.approx(1 / c.host_writes_per_flush)
    # batching: far fewer mapping writes per host write than entry-grained DFTL with the same memory
    assert c.translation_writes_per_write < 0.05 * dftl_cost(pop, 0.125, 0.5).translation_writes_per_request / 0.5


@pytest.mark.parametrize(
    "call",
    [
        lambda: dftl_cost(ZonePopularity.uniform(100), 1.5, 0.5),
        lambda: dftl_cost(ZonePopularity.uniform(100), 0.5, -0.1),
        lambda: dftl_cost(ZonePopularity.uniform(100), 0.5, 0.5, "block"),
        lambda: dftl_cost(ZonePopularity.uniform(100), 0.5, 0.5, "page", 0),
        lambda: batch_update_entries_per_flush(ZonePopularity.uniform(100), 0, 10),
        lambda: batch_update_entries_per_flush(ZonePopularity.uniform(100), 100, 10),
        lambda: partitioned_cache_cost(ZonePopularity.uniform(100), -1, 10, 10),
        lambda: ZonePopularity((10,), (0.5,)),
        lambda: ZonePopularity((0,), (1.0,)),
        lambda: ZonePopularity((1, 2), (1.0,)),
        lambda: ZonePopularity.from_pattern(object(), 10),
    ],
)
def test_invalid_inputs_raise_value_error(call):
    with pytest.raises(ValueError):
        call()


# --- DRAM -------------------------------------------------------------------------------------


def test_full_table_matches_reference_sizing():
    # reference-parameters.md §4.3: 960 GB user -> 234.4 M entries, 894 MiB
    m = mapping_dram_bytes(960 * 10**9)
    assert m.n_entries == 234_375_000
    assert m.full_table_bytes == full_mapping_table_bytes(960 * 10**9) == 4 * 234_375_000
    assert round(m.total_bytes / 2**20) == 894
    assert m.gtd_bytes == 0
    # 1024 GiB raw -> 268.4 M entries, 1,024 MiB
    assert full_mapping_table_bytes(1024 * 2**30) == 1024 * 2**20


def test_cached_table_is_fraction_plus_gtd():
    cap = 960 * 10**9
    m = mapping_dram_bytes(cap, cached_fraction=0.25, translation_page_bytes=16384)
    n = 234_375_000
    assert m.cache_bytes == math.ceil(0.25 * n) * 4
    assert m.gtd_bytes == -(-n // 4096) * 4
    assert m.total_bytes == m.cache_bytes + m.gtd_bytes
    e = mapping_dram_bytes(cap, cached_fraction=0.25, granularity="entry")
    assert e.cache_bytes == 2 * m.cache_bytes  # (LPN, PPN) pairs: seed 002 §II.2
    with pytest.raises(ValueError):
        mapping_dram_bytes(cap, cached_fraction=0.0)
    with pytest.raises(ValueError):
        mapping_dram_bytes(cap, cached_fraction=0.5, granularity="block")
    with pytest.raises(ValueError):
        full_mapping_table_bytes(0)


def test_popularity_from_uniform_pattern():
    assert ZonePopularity.from_pattern(UniformPattern(), 123) == ZonePopularity.uniform(123)
