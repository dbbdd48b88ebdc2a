"""Address patterns and transfer-size mixes (ssdco.ftl.address_patterns)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdco.ftl.address_patterns import (
    JESD219_LBA_SKEW,
    JESD219_TRANSFER_SIZE_MIX,
    JESD219_TRANSFER_SIZE_PROBABILITIES,
    JESD219_TRANSFER_SIZES_BYTES,
    SequentialPattern,
    TransferSizeMix,
    UniformPattern,
    ZonedPattern,
    hot_cold_pattern,
)

PROP = settings(max_examples=40, deadline=None)


def _within_binomial(count: int, n: int, p: float, sigmas: float = 5.0) -> bool:
    return abs(count - n * p) <= sigmas * math.sqrt(n * p * (1 - p)) + 1


def test_jesd219_transfer_mix_constants():
    assert JESD219_TRANSFER_SIZES_BYTES == (512, 1024, 1536, 2048, 2560, 3072, 3584, 4096, 8192, 16384, 32768, 65536)
    assert math.fsum(JESD219_TRANSFER_SIZE_PROBABILITIES) == pytest.approx(1.0, abs=1e-12)
    mix = JESD219_TRANSFER_SIZE_MIX
    assert mix.fraction_below(4096) == pytest.approx(0.10)  # "10 % of transfers are below 4 K"
    expected_mean = (
        0.04 * 512 + 0.01 * (1024 + 1536 + 2048 + 2560 + 3072 + 3584) + 0.67 * 4096
        + 0.10 * 8192 + 0.07 * 16384 + 0.03 * 32768 + 0.03 * 65536
    )
    assert mix.mean_bytes == pytest.approx(expected_mean)
    assert mix.mean_units(4096) == pytest.approx(0.77 + 0.10 * 2 + 0.07 * 4 + 0.03 * 8 + 0.03 * 16)


def test_transfer_size_sampling_frequencies():
    rng = np.random.default_rng(11)
    n = 400_000
    s = JESD219_TRANSFER_SIZE_MIX.sample_bytes(rng, n)
    assert s.dtype == np.int64 and s.shape == (n,)
    assert set(np.unique(s)) <= set(JESD219_TRANSFER_SIZES_BYTES)
    for size, p in zip(JESD219_TRANSFER_SIZES_BYTES, JESD219_TRANSFER_SIZE_PROBABILITIES):
        assert _within_binomial(int(np.sum(s == size)), n, p)


def test_jesd219_lba_skew_zones():
    assert JESD219_LBA_SKEW.access_fractions == (0.5, 0.3, 0.2)
    assert JESD219_LBA_SKEW.space_fractions == (0.05, 0.15, 0.8)
    assert JESD219_LBA_SKEW.zone_item_counts(1000) == (50, 150, 800)
    assert JESD219_LBA_SKEW.zone_starts(1000) == (0, 50, 200)
    assert sum(JESD219_LBA_SKEW.zone_item_counts(10**8 + 7)) == 10**8 + 7


def test_zoned_sampling_frequencies_and_uniformity_inside_zones():
    rng = np.random.default_rng(5)
    n, pages = 600_000, 10_000
    lp = JESD219_LBA_SKEW.sample_lpns(rng, n, pages)
    assert lp.dtype == np.int64 and lp.min() >= 0 and lp.max() < pages
    edges = [0, 500, 2000, 10_000]
    for (lo, hi), p in zip(zip(edges[:-1], edges[1:]), (0.5, 0.3, 0.2)):
        in_zone = (lp >= lo) & (lp < hi)
        assert _within_binomial(int(in_zone.sum()), n, p)
        # uniform inside the zone: first half of the zone gets half of the zone's accesses
        mid = (lo + hi) // 2
        assert _within_binomial(int(((lp >= lo) & (lp < mid)).sum()), int(in_zone.sum()), (mid - lo) / (hi - lo))


def test_zone_with_no_accesses_is_never_drawn():
    pat = ZonedPattern((0.5, 0.0, 0.5), (0.2, 0.3, 0.5))
    lp = pat.sample_lpns(np.random.default_rng(0), 100_000, 1000)
    assert not np.any((lp >= 200) & (lp < 500))


@PROP
@given(st.integers(min_value=1, max_value=5000), st.integers(min_value=0, max_value=10_000),
       st.integers(min_value=0, max_value=300))
def test_sequential_wraps_and_continues(n_pages, start, n):
    pat = SequentialPattern(start_page=start % n_pages)
    rng = np.random.default_rng(0)
    whole = pat.sample_lpns(rng, 2 * n, n_pages)
    assert np.array_equal(whole[n:], pat.sample_lpns(rng, n, n_pages, start_index=n))
    assert np.all(np.diff(whole) % n_pages == 1 % n_pages)
    if n:
        assert whole[0] == start % n_pages


@PROP
@given(st.integers(min_value=0, max_value=2**32), st.integers(min_value=20, max_value=10**6))
def test_same_seed_same_stream(seed, pages):
    for pat in (UniformPattern(), JESD219_LBA_SKEW, hot_cold_pattern(0.8, 0.2)):
        a = pat.sample_lpns(np.random.default_rng(seed), 500, pages)
        b = pat.sample_lpns(np.random.default_rng(seed), 500, pages)
        assert np.array_equal(a, b)
        assert a.min() >= 0 and a.max() < pages


def test_different_seeds_differ():
    a = UniformPattern().sample_lpns(np.random.default_rng(1), 1000, 10**6)
    b = UniformPattern().sample_lpns(np.random.default_rng(2), 1000, 10**6)
    assert not np.array_equal(a, b)


def test_hot_cold_pattern():
    p = hot_cold_pattern(0.8, 0.2)
    assert p.access_fractions == pytest.approx((0.8, 0.2))
    assert p.space_fractions == pytest.approx((0.2, 0.8))


@pytest.mark.parametrize(
    "call",
    [
        lambda: ZonedPattern((0.5, 0.4), (0.5, 0.5)),
        lambda: ZonedPattern((0.5, 0.5), (0.5, 0.4)),
        lambda: ZonedPattern((0.5, 0.5), (1.0, 0.0)),
        lambda: ZonedPattern((1.0,), (0.5, 0.5)),
        lambda: ZonedPattern((), ()),
        lambda: ZonedPattern((1.5, -0.5), (0.5, 0.5)),
        lambda: JESD219_LBA_SKEW.zone_item_counts(10),
        lambda: JESD219_LBA_SKEW.zone_item_counts(0),
        lambda: UniformPattern().sample_lpns(np.random.default_rng(0), -1, 10),
        lambda: UniformPattern().sample_lpns(np.random.default_rng(0), 1, 0),
        lambda: SequentialPattern(-1),
        lambda: hot_cold_pattern(0.8, 1.0),
        lambda: hot_cold_pattern(1.2, 0.2),
        lambda: TransferSizeMix((4096, 512), (0.5, 0.5)),
        lambda: TransferSizeMix((512, 4096), (0.5, 0.6)),
        lambda: TransferSizeMix((512,), (0.5, 0.5)),
        lambda: TransferSizeMix((0, 512), (0.5, 0.5)),
    ],
)
def test_invalid_patterns_raise_value_error(call):
    with pytest.raises(ValueError):
        call()
