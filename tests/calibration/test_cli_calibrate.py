"""``ssdco calibrate`` on the command line: exit codes, the report, JSON, the calibrated file and the plot."""

import json
import tomllib
from pathlib import Path

import pytest

from ssdco import evaluate, load_config
from ssdco.cli import main
from tests.conftest import PM9A3

DATA = Path(__file__).parent / "data"
SWEEP = str(DATA / "pm9a3-c01-des-sweep.csv")
FIT = "modules.cache_lookup.cycles,nand.t_read_us"


def _run(capsys, *extra):
    code = main(["calibrate", str(PM9A3), "-c", "c01", "--measured", SWEEP, "--fit", FIT, "--fast", *extra])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_report_json_out_and_plot(capsys, tmp_path):
    out_toml, png = tmp_path / "cal.toml", tmp_path / "fit.png"
    code, out, err = _run(capsys, "--json", "--out", str(out_toml), "--plot", str(png))
    assert code == 0, err
    doc = json.loads(out)
    fitted = {p["path"]: p["value"] for p in doc["parameters"]}
    assert set(fitted) == set(FIT.split(","))
    assert doc["identifiable"] and doc["outputs"] == {"out": str(out_toml), "plot": str(png)}
    assert len(doc["points"]) == len((DATA / "pm9a3-c01-des-sweep.csv").read_text().splitlines()) - 1
    assert png.read_bytes()[:4] == b"\x89PNG"
    # the calibrated file: the fitted values in place, every other field and the comments as in the input
    before, after = tomllib.loads(PM9A3.read_text()), tomllib.loads(out_toml.read_text())
    for path, value in fitted.items():
        table, key = path.rsplit(".", 1)
        node_a, node_b = after, before
        for part in table.split("."):
            node_a, node_b = node_a[part], node_b[part]
        assert node_a[key] == pytest.approx(value, rel=1e-5)
        node_b[key] = node_a[key]
    assert after == before
    assert "C: slowest stage, as the study found" in out_toml.read_text()  # the comments kept
    # it loads with whatif, and answers as the fitted model did at the points
    assert main(["whatif", str(out_toml), "-c", "c01", "--json", "--fast", "--set", "workload.queue_depth=64"]) == 0
    iops = json.loads(capsys.readouterr().out)["iops"]
    qd64 = next(p for p in doc["points"] if p["queue_depth"] == 64)
    assert iops == pytest.approx(qd64["fitted_iops"], rel=1e-4)
    assert load_config(out_toml, controller="c01").modules["cache_lookup"].cycles == after["modules"]["cache_lookup"][
        "cycles"]


def test_text_report_and_des_check(capsys):
    code, out, _ = _run(capsys, "--des-check", "--des-requests", "5000")
    assert code == 0
    for word in ("std. error", "correlation", "identifiable", "IOPS meas.", "DES check", "least_squares"):
        assert word in out


def test_unidentifiable_fit_exits_1_and_writes_no_file(capsys, tmp_path):
    out_toml = tmp_path / "cal.toml"
    low_qd = tmp_path / "low.csv"
    base = evaluate(PM9A3, controller="c01", overrides=["workload.queue_depth=1"], effort="fast")
    low_qd.write_text("queue_depth,read_fraction,iops,mean_latency_us\n"
                      f"1,1.0,{base.iops * 0.98},{base.latency_mean_us * 1.02}\n"
                      f"1,1.0,{base.iops * 0.97},{base.latency_mean_us * 1.03}\n")
    code = main(["calibrate", str(PM9A3), "-c", "c01", "--measured", str(low_qd), "--fast", "--fit",
                 "modules.parse.cycles", "--fit", "modules.complete.cycles", "--out", str(out_toml)])
    out = capsys.readouterr().out
    assert code == 1
    assert "UNIDENTIFIABLE" in out and "modules.parse.cycles" in out and "modules.complete.cycles" in out
    assert not out_toml.exists() and "not written" in out


BAD = [
    (["--fit", "nand.no_such_field"], "no such field"),
    (["--fit", "modules.*.watts"], "matches no numeric field"),
    (["--fit", "workload.queue_depth"], "each measured point sets this field"),
    (["--fit", "nand.channels"], "cannot vary continuously"),
    (["--fit", "variability.nand_scv"], "start value > 0"),
    (["--fit", "nand.t_read_us", "--measured", str(DATA / "README.md")], "unknown column"),
    (["--fit", "nand.t_read_us", "--out", str(DATA)], "is a directory"),
]


@pytest.mark.parametrize("extra,message", BAD, ids=[b[1] for b in BAD])
def test_bad_input_exits_2_with_one_line(capsys, extra, message):
    args = ["calibrate", str(PM9A3), "-c", "c01", "--measured", SWEEP, "--fast"]
    code = main(args + extra)
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("ssdco: error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert message in err


def test_a_bad_measurement_file_exits_2_naming_row_and_field(capsys, tmp_path):
    f = tmp_path / "m.csv"
    f.write_text("queue_depth,read_fraction,iops,mean_latency_us\n1,1,100,50\n4,1,-3,50\n")
    assert main(["calibrate", str(PM9A3), "--measured", str(f), "--fit", "nand.t_read_us"]) == 2
    err = capsys.readouterr().err
    assert str(f) in err and "row 2: iops" in err and "-3" in err


def test_fio_files_run_end_to_end(capsys):
    files = [str(p) for p in sorted(DATA.glob("fio-*.json"))]
    code = main(["calibrate", str(PM9A3), "-c", "c01", "--measured", *files, "--fit", "nand.t_read_us", "--fast",
                 "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and len(doc["points"]) == 5
    assert {p["request_size_kib"] for p in doc["points"]} == {4.0}
