"""Reading measured points: the committed CSV and real fio JSON outputs, and clear errors on malformed input."""

import json
from pathlib import Path

import pytest

from ssdco.calibration.measurements import read_csv, read_fio_json, read_measurements
from ssdco.errors import ConfigError

DATA = Path(__file__).parent / "data"
FIO_FILES = sorted(DATA.glob("fio-*.json"))
HEADER = "queue_depth,read_fraction,iops,mean_latency_us"


def test_the_committed_csv_is_read_row_by_row():
    rows = [line.split(",") for line in (DATA / "pm9a3-c01-des-sweep.csv").read_text().splitlines()[1:]]
    points = read_csv(DATA / "pm9a3-c01-des-sweep.csv")
    assert len(points) == len(rows) > 3
    for p, row in zip(points, rows):
        assert (p.queue_depth, p.read_fraction, p.iops, p.mean_latency_us, p.p99_us) == (
            int(row[0]), float(row[1]), float(row[2]), float(row[3]), float(row[4]))
        assert p.request_size_kib is None  # the configuration's size


def test_there_are_real_fio_outputs():
    assert len(FIO_FILES) >= 3
    for path in FIO_FILES:
        assert json.loads(path.read_text())["fio version"].startswith("fio-")


@pytest.mark.parametrize("path", FIO_FILES, ids=lambda p: p.name)
def test_fio_jobs_become_points(path):
    doc = json.loads(path.read_text())
    glob = doc.get("global options", {})
    points = read_fio_json(path)
    assert len(points) == len(doc["jobs"])
    for p, job in zip(points, doc["jobs"]):
        opts = {**glob, **job["job options"]}
        assert p.queue_depth == int(opts.get("iodepth", 1))
        expected_read = 1.0 if opts["rw"] == "randread" else int(opts["rwmixread"]) / 100
        assert p.read_fraction == pytest.approx(expected_read)
        r, w = job["read"], job["write"]
        assert p.iops == pytest.approx(r["iops"] + w["iops"])
        weighted_ns = sum(d["iops"] * d["lat_ns"]["mean"] for d in (r, w) if d["iops"] > 0) / p.iops
        assert p.mean_latency_us == pytest.approx(weighted_ns / 1000)
        assert p.p99_us == pytest.approx(max(d["clat_ns"]["percentile"]["99.000000"] for d in (r, w)
                                             if d["iops"] > 0) / 1000)
        assert p.request_size_kib == 4.0
        # Little's law holds for the time a request is in flight: a check that lat_ns, not clat_ns, is read
        assert p.iops * p.mean_latency_us * 1e-6 == pytest.approx(p.queue_depth, rel=0.1)


def test_several_files_of_both_kinds_are_read_in_order():
    points = read_measurements([DATA / "pm9a3-c01-des-sweep.csv", *FIO_FILES])
    assert len(points) == len(read_csv(DATA / "pm9a3-c01-des-sweep.csv")) + sum(len(read_fio_json(f))
                                                                                 for f in FIO_FILES)


def test_an_optional_request_size_column_is_read(tmp_path):
    f = tmp_path / "m.csv"
    f.write_text(HEADER + ",request_size_kib,p99_us\n8,0.7,100000,80,16,\n")
    (p,) = read_csv(f)
    assert (p.request_size_kib, p.p99_us, p.read_fraction) == (16.0, None, 0.7)
    assert "workload.request_size_kib=16.0" in p.overrides()


BAD_CSV = [
    ("queue_depth,read_fraction,iops\n1,1,100\n", "header", "missing column(s) mean_latency_us"),
    (HEADER + ",temperature_c\n1,1,100,50,40\n", "header", "unknown column"),
    (HEADER + "\n1,1,100,50\n2,1,abc,50\n", "row 2: iops", "expected a finite number > 0"),
    (HEADER + "\n1,1.5,100,50\n", "row 1: read_fraction", "<= 1"),
    (HEADER + "\n2.5,1,100,50\n", "row 1: queue_depth", "whole number"),
    (HEADER + "\n0,1,100,50\n", "row 1: queue_depth", "> 0"),
    (HEADER + "\n1,1,100,-5\n", "row 1: mean_latency_us", "> 0"),
    (HEADER + "\n1,1,100\n", "row 1", "expected 4 cells"),
    (HEADER + "\n", "rows", "at least one data row"),
    ("", "header", "expected a header line"),
    (HEADER + "\n1,1,nan,50\n", "row 1: iops", "finite"),
]


@pytest.mark.parametrize("text,field,allowed", BAD_CSV, ids=[f"{c[1]}-{i}" for i, c in enumerate(BAD_CSV)])
def test_malformed_csv_is_a_clear_error(tmp_path, text, field, allowed):
    f = tmp_path / "bad.csv"
    f.write_text(text)
    with pytest.raises(ConfigError) as e:
        read_csv(f)
    assert e.value.source == str(f) and e.value.field == field
    assert allowed in str(e.value)


def _fio(tmp_path, edit) -> Path:
    doc = json.loads((DATA / "fio-randrw70-libaio-qd8.json").read_text())
    edit(doc)
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(doc))
    return f


BAD_FIO = [
    (lambda d: d["jobs"][0]["read"].update(iops="fast"), "jobs[0].read.iops", "finite number"),
    (lambda d: d["jobs"][0]["job options"].update(iodepth="0"), "jobs[0].job options.iodepth", "> 0"),
    (lambda d: d["jobs"][0]["job options"].update(rw="trim"), "jobs[0].job options.rw", "expected one of"),
    (lambda d: d["jobs"][0]["job options"].update(rwmixread="170"), "jobs[0].job options.rwmixread", "<= 100"),
    (lambda d: d["jobs"][0]["job options"].update(bs="4k,8k"), "jobs[0].job options.bs", "one block size"),
    (lambda d: d["jobs"][0].pop("write"), "jobs[0].write", "per-direction table"),
    (lambda d: d["jobs"][0]["read"]["lat_ns"].update(mean=-1), "jobs[0].read.lat_ns.mean", "> 0"),
    (lambda d: d.update(jobs=[]), "jobs", "non-empty list"),
    (lambda d: d["jobs"][0].update(error=5), "jobs[0].error", "job failed"),
]


@pytest.mark.parametrize("edit,field,allowed", BAD_FIO, ids=[c[1] + f"-{i}" for i, c in enumerate(BAD_FIO)])
def test_malformed_fio_json_is_a_clear_error(tmp_path, edit, field, allowed):
    f = _fio(tmp_path, edit)
    with pytest.raises(ConfigError) as e:
        read_measurements([f])
    assert e.value.field == field and e.value.source == str(f)
    assert allowed in str(e.value)


def test_broken_json_and_unreadable_files_are_clear_errors(tmp_path):
    f = tmp_path / "cut.json"
    f.write_text((DATA / "fio-randread-psync.json").read_text()[:500])
    with pytest.raises(ConfigError, match="fio's JSON output"):
        read_measurements([f])
    with pytest.raises(ConfigError, match="cannot read it"):
        read_measurements([tmp_path / "missing.csv"])
