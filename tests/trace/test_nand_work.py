"""What a trace leaves for the NAND after a buffer and a mapping, and ``whatif --trace --buffer``."""

import json

import pytest

from ssdco import evaluate, load_config
from ssdco.cli import main
from ssdco.errors import ConfigError
from ssdco.trace.chunk import chunked
from ssdco.trace.nand_work import trace_nand_work
from ssdco.trace.reader import read_trace, read_trace_chunks
from ssdco.trace.record import TraceRecord
from ssdco.trace.workload import trace_workload
from tests.conftest import PM9A3
from tests.trace.test_workload import msr_trace

PAGE = 4096


def rec(is_write: bool, page: int, pages: int = 1) -> TraceRecord:
    return TraceRecord(0.0, is_write, page * PAGE, pages * PAGE)


def work(records, capacity_pages=4, mapping="page"):
    return trace_nand_work(chunked(records), "test", "lru", capacity_pages * PAGE, mapping, page_bytes=PAGE,
                           pages_per_block=4, over_provisioning=0.5)


def test_rereads_are_found_in_the_buffer_and_overwrites_stay_there():
    # reads: page 0 three times (1 miss, 2 hits), page 1 once (a miss): 2 of 4 found
    # writes: page 10 five times and page 11 once, then 4 new pages push both out: 6 of 10 written pages reach flash
    records = [rec(False, 0), rec(False, 0), rec(False, 1), rec(False, 0)]
    records += [rec(True, 10)] * 5 + [rec(True, 11), rec(True, 20, 4)]
    w = work(records)
    assert (w.read_pages, w.write_pages) == (4, 10)
    assert w.flash_reads_for_host == 2 and w.read_hit_fraction == 0.5
    assert w.flushed_pages == 2 and w.flush_fraction == pytest.approx(0.2)
    assert w.waf == 1.0  # two pages into an empty page-level FTL: no copies
    assert w.overrides() == ["ftl.read_hit_fraction=0.5", "ftl.flush_fraction=0.2", "ftl.waf=1.0"]


def test_a_multi_page_request_counts_every_page_it_touches():
    w = work([TraceRecord(0.0, False, PAGE - 1, 2)] + [rec(False, p) for p in range(10)], capacity_pages=2)
    assert w.read_pages == 2 + 10  # 2 bytes across a page boundary touch two pages


def test_counts_that_cannot_describe_a_drive_are_refused():
    with pytest.raises(ConfigError, match="every read was found in the buffer"):
        work([rec(True, p) for p in range(8)] + [rec(False, 7)])  # page 7 was just written: buffered
    with pytest.raises(ConfigError, match="no written page left the buffer"):
        work([rec(True, 0), rec(False, 5)])
    with pytest.raises(ConfigError, match="at least one"):
        work([])


def test_whatif_with_a_buffer_answers_for_the_work_that_reaches_the_flash(tmp_path, capsys):
    rows = [("Read", (i * 7919 % 64) * PAGE, PAGE) for i in range(400)]
    rows += [("Write", (i * 104729 % 256) * PAGE, PAGE) for i in range(400)]
    trace = msr_trace(tmp_path, rows)
    assert main(["whatif", str(PM9A3), "-c", "c07", "--trace", str(trace), "--buffer", "lru", "--buffer-mib",
                 "0.25", "--fast", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    nw = doc["trace_nand_work"]
    assert nw["policy"] == "lru" and nw["mapping"] == "page" and 0 < nw["read_hit_fraction"] < 1
    expected = trace_nand_work(read_trace_chunks(trace), str(trace), "lru", 1 << 18, "page", page_bytes=PAGE,
                               pages_per_block=1152 * 4, over_provisioning=0.145)
    assert nw == expected.to_dict()
    config = load_config(PM9A3, controller="c07",
                         overrides=trace_workload(read_trace(trace)).overrides() + expected.overrides())
    assert config.ftl.read_hit_fraction == expected.read_hit_fraction
    assert doc["iops"] == pytest.approx(evaluate(config, effort="fast").iops, rel=1e-12)


@pytest.mark.parametrize("argv, words", [
    (["--buffer", "lru"], "--buffer"),
    (["--buffer", "lru", "--trace", "{trace}", "--set", "ftl=5"], "ftl"),
])
def test_whatif_buffer_needs_a_trace_and_an_ftl_table(argv, words, tmp_path, capsys):
    trace = msr_trace(tmp_path, [("Read", 0, PAGE), ("Read", PAGE, PAGE)])
    argv = [a.replace("{trace}", str(trace)) for a in argv]
    assert main(["whatif", str(PM9A3), *argv]) == 2
    assert words in capsys.readouterr().err


def test_a_flush_at_the_end_writes_what_a_short_trace_leaves_dirty():
    records = [rec(True, p) for p in range(3)] + [rec(True, 0), rec(False, 9)]  # 4 writes, 3 distinct, all buffered
    with pytest.raises(ConfigError, match="no written page left the buffer"):
        work(records)
    flushed = trace_nand_work(chunked(records), "test", "lru", 4 * PAGE, "page", page_bytes=PAGE, pages_per_block=4,
                              over_provisioning=0.5, flush_at_end=True)
    assert flushed.flushed_pages == 3 and flushed.flush_fraction == 0.75  # page 0 was overwritten while buffered


@pytest.mark.parametrize("policy", ["lru", "fab", "lirs", "arc"])
def test_every_policy_flushes_its_dirty_pages_in_address_order(policy):
    from ssdco.trace.buffers import POLICIES

    written = []

    class Sink:
        def read(self, lpn):
            pass

        def write(self, lpns):
            written.append(list(lpns))

    buffer = POLICIES[policy](8, Sink(), 4)
    for lpn in (5, 1, 3):
        buffer.access(lpn, True)
    buffer.access(7, False)
    assert buffer.flush_all() == 3 and written == [[1, 3, 5]]


def test_trace_flush_at_end_on_the_command_line(tmp_path, capsys):
    import csv

    rows = {}
    for flag in ([], ["--flush-at-end"]):
        out = tmp_path / f"r{len(flag)}.csv"
        assert main(["trace", "--synthetic", "uniform", "--records", "300", "--buffer", "lru", "--ftl", "page",
                     "--buffer-mib", "1", "--out", str(out), *flag]) == 0
        rows[bool(flag)] = next(csv.DictReader(out.open()))
    # 1 MiB holds every written page of this short trace: only the flush at the end writes them all
    assert int(rows[True]["host_writes"]) > int(rows[False]["host_writes"])
    assert rows[True]["flash_reads"] == rows[False]["flash_reads"]


def test_validate_and_optimize_answer_for_the_traces_workload(tmp_path, capsys):
    rows = [("Read", (i * 7919 % 64) * PAGE, PAGE) for i in range(300)]
    rows += [("Write", (i * 104729 % 256) * PAGE, 2 * PAGE) for i in range(100)]
    trace = msr_trace(tmp_path, rows)
    traced = ["--trace", str(trace), "--buffer", "fab", "--buffer-mib", "0.25", "--fast", "--json"]
    expected = trace_nand_work(read_trace_chunks(trace), str(trace), "fab", 1 << 18, "page", page_bytes=PAGE,
                               pages_per_block=1152 * 4, over_provisioning=0.145)
    config = load_config(PM9A3, controller="c07",
                         overrides=trace_workload(read_trace(trace)).overrides() + expected.overrides())
    assert main(["validate", str(PM9A3), "-c", "c07", "--requests", "4000", "--replications", "0",
                 "--progress", "off", *traced]) in (0, 1)
    doc = json.loads(capsys.readouterr().out)
    assert doc["trace_nand_work"] == expected.to_dict() and doc["trace_workload"]["records"] == 400
    assert doc["analytic"]["iops"] == pytest.approx(evaluate(config, effort="fast").iops, rel=1e-12)
    assert main(["optimize", str(PM9A3), "--no-des", "--min-iops", "100000", *traced]) in (0, 1)
    doc = json.loads(capsys.readouterr().out)
    assert doc["trace_workload"]["read_fraction"] == 0.75 and doc["trace_nand_work"] == expected.to_dict()


def test_with_a_buffer_the_trace_is_read_once(tmp_path, capsys, monkeypatch):
    import ssdco.trace.reader as reader

    trace = msr_trace(tmp_path, [("Read", (i * 7919 % 64) * PAGE, PAGE) for i in range(300)]
                      + [("Write", (i * 104729 % 256) * PAGE, PAGE) for i in range(300)])
    reads = []
    real = reader.read_trace_chunks
    monkeypatch.setattr(reader, "read_trace_chunks", lambda *a, **k: reads.append(a) or real(*a, **k))
    assert main(["whatif", str(PM9A3), "-c", "c07", "--trace", str(trace), "--buffer", "lru", "--buffer-mib",
                 "0.25", "--fast", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(reads) == 1
    assert doc["trace_workload"] == {"trace": str(trace), **trace_workload(read_trace(trace)).to_dict()}
