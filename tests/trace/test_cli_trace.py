"""``ssdco trace``: a table and an atomic CSV from a synthetic trace or a file; bad input exits 2 with one line."""

import csv

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
