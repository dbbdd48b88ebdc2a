"""A trace's workload for the analytic model (``ssdco.trace.workload``) and ``ssdco whatif --trace``."""

import json

import numpy as np
import pytest

from ssdco import evaluate, load_config
from ssdco.cli import main
from ssdco.trace.chunk import chunked
from ssdco.trace.reader import read_trace
from ssdco.trace.record import TraceRecord
from ssdco.trace.workload import chunks_workload, trace_workload
from tests.conftest import PM9A3


def rec(is_write: bool, offset: int, size: int) -> TraceRecord:
    return TraceRecord(0.0, is_write, offset, size)


def test_read_share_sizes_in_whole_sectors_and_sequential_share():
    records = [rec(False, 0, 4096), rec(False, 4096, 4096), rec(True, 100_000, 1000), rec(False, 0, 8192)]
    w = trace_workload(records)
    assert w.records == 4 and w.read_fraction == 0.75
    # 1000 bytes are two sectors (1 KiB); 4 KiB twice; 8 KiB once
    assert w.sizes_kib == (1.0, 4.0, 8.0) and w.probabilities == (0.25, 0.5, 0.25)
    assert w.sequential_fraction == 0.25  # only the second starts where the first ended
    assert w.mean_size_kib == pytest.approx((4 + 4 + 1 + 8) / 4)


def test_many_distinct_sizes_are_grouped_into_powers_of_two_of_sectors():
    records = [rec(False, 0, sectors * 512) for sectors in range(1, 21)]  # 20 distinct sizes
    w = trace_workload(records, max_sizes=16)
    # 1 -> 1, 2 -> 2, 3-4 -> 4, 5-8 -> 8, 9-16 -> 16, 17-20 -> 32 sectors
    assert w.sizes_kib == (0.5, 1.0, 2.0, 4.0, 8.0, 16.0)
    assert w.probabilities == pytest.approx((1 / 20, 1 / 20, 2 / 20, 4 / 20, 8 / 20, 4 / 20))
    assert sum(w.probabilities) == pytest.approx(1.0)


def test_chunk_boundaries_do_not_change_the_workload():
    gen = np.random.default_rng(5)
    offsets = np.cumsum(gen.integers(1, 3, 500)) * 4096  # gaps of 0 or 1 page: about half sequential
    records = [rec(bool(w), int(o), int(s)) for w, o, s in zip(gen.random(500) < 0.3, offsets,
                                                              np.where(offsets % 8192, 4096, 8192))]
    whole = chunks_workload(chunked(records, 1000))
    assert whole == chunks_workload(chunked(records, 1)) == chunks_workload(chunked(records, 7))
    ends = [r.offset_bytes + r.size_bytes for r in records]
    assert whole.sequential_fraction == sum(b.offset_bytes == e for b, e in zip(records[1:], ends)) / 500


def test_a_trace_without_records_is_an_error():
    with pytest.raises(ValueError, match="no records"):
        trace_workload([])


def msr_trace(tmp_path, rows):
    path = tmp_path / "t.csv"
    path.write_text("".join(f"{128166372003061629 + i},hm,0,{op},{off},{size},10\n"
                            for i, (op, off, size) in enumerate(rows)))
    return path


def test_whatif_takes_the_traces_workload_and_set_still_overrides_it(tmp_path, capsys):
    trace = msr_trace(tmp_path, [("Read", 0, 4096)] * 3 + [("Write", 8192, 16384)])
    assert main(["whatif", str(PM9A3), "--trace", str(trace), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["trace_workload"]["read_fraction"] == 0.75
    assert doc["trace_workload"]["sizes_kib"] == [4.0, 16.0]
    # the model answered the trace's workload: the same as the device file with those values set
    config = load_config(PM9A3, overrides=trace_workload(read_trace(trace)).overrides())
    assert config.workload.read_fraction == 0.75 and config.workload.request_sizes_kib == (4.0, 16.0)
    assert doc["iops"] == pytest.approx(evaluate(config).iops, rel=1e-12)
    assert main(["whatif", str(PM9A3), "--trace", str(trace), "--set", "workload.read_fraction=1.0",
                 "--json"]) == 0
    reads_only = load_config(PM9A3, overrides=[*trace_workload(read_trace(trace)).overrides(),
                                               "workload.read_fraction=1.0"])
    assert json.loads(capsys.readouterr().out)["iops"] == pytest.approx(evaluate(reads_only).iops, rel=1e-12)
    assert main(["whatif", str(PM9A3), "--trace", str(trace)]) == 0
    assert "workload from" in capsys.readouterr().out


def test_whatif_on_a_bad_or_empty_trace_exits_2(tmp_path, capsys):
    bad = msr_trace(tmp_path, [("Read", "abc", 4096)])
    assert main(["whatif", str(PM9A3), "--trace", str(bad)]) == 2
    assert "line 1: offset" in capsys.readouterr().err
    ignored = tmp_path / "ignored.log"
    ignored.write_text("fio version 2 iolog\n/dev/sda add\n/dev/sda open\n/dev/sda close\n")
    assert main(["whatif", str(PM9A3), "--trace", str(ignored)]) == 2
    assert "at least one read or write" in capsys.readouterr().err
