"""``ssdco trace``: a table and an atomic CSV from a synthetic trace or a file; bad input exits 2 with one line."""

import csv

import pytest

from ssdco.cli import main
from ssdco.trace.table import CSV_COLUMNS


def test_synthetic_trace_table_and_csv(capsys, tmp_path):
    out = tmp_path / "sub" / "results.csv"
    code = main(["trace", "--synthetic", "database", "--records", "3000", "--seed", "1", "--buffer", "lru,fab",
                 "--buffer-mib", "1,2", "--ftl", "page,bast,fast", "--out", str(out)])
    assert code == 0
    text = capsys.readouterr().out
    assert "hit ratio" in text and "WAF" in text and "time (t_read)" in text
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 2 * 2 * 3
    assert tuple(rows[0]) == CSV_COLUMNS
    assert {(r["policy"], r["buffer_mib"], r["ftl"]) for r in rows} == {
        (p, s, f) for p in ("lru", "fab") for s in ("1", "2") for f in ("page", "bast", "fast")}
    assert not list(out.parent.glob(".*.tmp"))


def test_same_seed_same_csv(tmp_path, capsys):
    outs = []
    for name in ("a.csv", "b.csv"):
        main(["trace", "--synthetic", "hotcold", "--records", "2000", "--seed", "7", "--buffer-mib", "1",
              "--out", str(tmp_path / name)])
        outs.append((tmp_path / name).read_text())
    assert outs[0] == outs[1]


def test_a_trace_file_with_nand_timings(tmp_path, capsys):
    trace = tmp_path / "t.csv"
    trace.write_text("".join(f"{128166372003061629 + i},hm,1,{'Write' if i % 3 else 'Read'},{(i % 50) * 4096},"
                             f"4096,1\n" for i in range(500)))
    assert main(["trace", str(trace), "--buffer", "arc", "--buffer-mib", "0.0625", "--ftl", "page",
                 "--nand-us", "60,700,3500"]) == 0
    out = capsys.readouterr().out
    assert "500 records" in out and "time (us)" in out


def test_a_bad_line_exits_2_naming_file_and_line(tmp_path, capsys):
    trace = tmp_path / "bad.csv"
    trace.write_text("1,hm,1,Read,0,4096,1\n2,hm,1,Read,0,-4096,1\n")
    assert main(["trace", str(trace)]) == 2
    err = capsys.readouterr().err
    assert str(trace) in err and "line 2: size" in err and "Traceback" not in err
    assert main(["trace", str(trace), "--skip-bad", "--buffer", "lru", "--ftl", "page"]) == 0
    assert "1 bad lines skipped" in capsys.readouterr().out


def test_trace_and_synthetic_exclude_each_other(tmp_path, capsys):
    assert main(["trace"]) == 2
    assert "exactly one" in capsys.readouterr().err
    assert main(["trace", str(tmp_path / "x"), "--synthetic", "uniform"]) == 2


def test_plot_and_progress(tmp_path, capsys):
    png = tmp_path / "trace.png"
    code = main(["trace", "--synthetic", "database", "--records", "3000", "--buffer-mib", "1,2", "--plot", str(png),
                 "--progress", "on"])
    assert code == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    captured = capsys.readouterr()
    assert f"wrote the plot to {png}" in captured.out
    assert "3.00k/3.00k" in captured.err  # the bar counted every record of the known total


def test_a_plot_path_that_cannot_be_written_exits_2_before_the_run(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code = main(["trace", "--synthetic", "uniform", "--records", "100", "--plot", str(blocker / "p.png")])
    assert code == 2
    assert "--plot" in capsys.readouterr().err


def test_the_plot_panels_show_the_results():
    from ssdco.report.plots import PlotError
    from ssdco.report.trace_plot import trace_figure
    from ssdco.trace.simulate import MIB, TraceSetup, simulate_chunks
    from ssdco.trace.synthetic import SyntheticSpec, synthetic_chunks

    setup = TraceSetup(("lru", "fab"), (1 * MIB, 2 * MIB), ("page", "bast"))
    results = simulate_chunks(synthetic_chunks(SyntheticSpec("database", 4000), 1), setup)
    fig = trace_figure(results)
    hits, erases, merges, sizes = fig.axes[:4]
    points = sorted(tuple(p) for c in hits.collections for p in c.get_offsets())
    assert points == sorted((r.hit_ratio, r.weighted_time) for r in results)
    bars = [p.get_height() for p in erases.patches]
    assert bars == [r.flash.erases for p in ("lru", "fab") for r in results
                    if r.policy == p and r.buffer_bytes == 2 * MIB]
    assert len(sizes.lines) == 4 and all(len(line.get_xdata()) == 2 for line in sizes.lines)
    with pytest.raises(PlotError, match="results"):
        trace_figure([])
