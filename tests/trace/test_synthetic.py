"""The synthetic traces: deterministic for a seed, and each pattern has the shape it promises."""

import numpy as np
import pytest

from ssdco.errors import ConfigError
from ssdco.trace.synthetic import PATTERNS, SyntheticSpec, synthetic_trace

PAGE = 4096


@pytest.mark.parametrize("pattern", PATTERNS)
def test_same_seed_same_trace_other_seed_other_trace(pattern):
    spec = SyntheticSpec(pattern, 3000)
    first = list(synthetic_trace(spec, 5))
    assert first == list(synthetic_trace(spec, 5))
    assert first != list(synthetic_trace(spec, 6))
    assert len(first) == 3000
    assert all(r.offset_bytes % PAGE == 0 and r.size_bytes > 0 for r in first)
    assert all(r.offset_bytes + r.size_bytes <= spec.footprint_bytes for r in first)
    times = [r.time_us for r in first]
    assert times == sorted(times)


def test_hotcold_sends_the_hot_fraction_to_the_hot_space():
    spec = SyntheticSpec("hotcold", 40000)
    hot_limit = spec.footprint_bytes * spec.hot_space_fraction
    share = np.mean([r.offset_bytes < hot_limit for r in synthetic_trace(spec, 1)])
    assert share == pytest.approx(0.8, abs=0.01)  # cold requests never land in the hot space


def test_sequential_runs_are_consecutive():
    spec = SyntheticSpec("sequential", 320, run_records=32, run_pages=8)
    records = list(synthetic_trace(spec, 2))
    for run in range(10):
        chunk = records[run * 32:(run + 1) * 32]
        assert [r.offset_bytes for r in chunk] == [chunk[0].offset_bytes + i * 8 * PAGE for i in range(32)]
        assert len({r.is_write for r in chunk}) == 1


def test_database_mixes_log_appends_and_hot_random_requests():
    spec = SyntheticSpec("database", 40000)
    records = list(synthetic_trace(spec, 3))
    log_start = spec.footprint_bytes - (spec.footprint_bytes // PAGE // 8) * PAGE
    log = [r for r in records if r.offset_bytes >= log_start]
    data = [r for r in records if r.offset_bytes < log_start]
    assert len(log) / len(records) == pytest.approx(spec.log_fraction, abs=0.01)
    assert all(r.is_write and r.size_bytes == 2 * PAGE for r in log)
    # appends follow one another in the log
    steps = np.diff([r.offset_bytes for r in log[:500]])
    assert np.all(steps == 2 * PAGE)
    assert np.mean([not r.is_write for r in data]) == pytest.approx(1 - spec.write_fraction, abs=0.01)


def test_an_unknown_pattern_is_refused():
    with pytest.raises(ConfigError, match="expected one of"):
        SyntheticSpec("zipf", 10)
