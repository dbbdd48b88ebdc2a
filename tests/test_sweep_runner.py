"""ssdco sweep: grid parsing, deterministic rows, resumable CSV (killed and truncated runs), executors."""

import os
import subprocess
import sys
import textwrap
import time

import pytest

from ssdco import sweep_runner
from ssdco.cli import main
from ssdco.errors import ConfigError
from ssdco.spec import apply_overrides, config_from_dict
from ssdco.sweep_runner import (
    SweepError,
    grid_points,
    parse_grid,
    parse_grid_spec,
    plan_sweep,
    read_sweep_csv,
    run_sweep,
)
from ssdco.validation.compare import validate
from tests.conftest import PM9A3, ROOT

GRID = ["workload.queue_depth=1,2,4,8", "workload.read_fraction=1.0,0.7"]


@pytest.fixture(scope="module")
def plan():
    return plan_sweep(PM9A3, GRID, controller="c01")


@pytest.fixture(scope="module")
def reference(plan, tmp_path_factory):
    """An uninterrupted run: the bytes every other way of running must reproduce."""
    out = tmp_path_factory.mktemp("ref") / "ref.csv"
    run_sweep(plan, out)
    return out.read_bytes()


# ---- grid parsing ---------------------------------------------------------------------------------
def test_values_are_toml_literals_and_brackets_do_not_split():
    axis = parse_grid_spec("workload.request_size_kib=4, 8.5 ,[4, 8],'a,b'")
    assert axis.field == "workload.request_size_kib"
    assert axis.tokens == ("4", "8.5", "[4, 8]", "'a,b'")
    assert axis.values == (4, 8.5, [4, 8], "a,b")
    assert parse_grid_spec("controller=c01,c07").values == ("c01", "c07")  # bare words are strings


def test_cartesian_product_in_order_last_axis_fastest():
    points = grid_points(parse_grid(GRID))
    assert len(points) == 8
    assert [p.index for p in points] == list(range(8))
    assert points[0].key == "workload.queue_depth=1;workload.read_fraction=1.0"
    assert points[1].key == "workload.queue_depth=1;workload.read_fraction=0.7"
    assert points[-1].overrides == ("workload.queue_depth=8", "workload.read_fraction=0.7")


def test_a_grid_of_a_million_points_is_made_as_it_is_read():
    points = grid_points(parse_grid(["workload.queue_depth=" + ",".join(map(str, range(1, 101))),
                                     "nand.t_read_us=" + ",".join(str(40 + k) for k in range(100)),
                                     "workload.read_fraction=" + ",".join(f"{k / 100:g}" for k in range(100))]))
    assert len(points) == 1_000_000
    assert points[-1].key == "workload.queue_depth=100;nand.t_read_us=139;workload.read_fraction=0.99"
    assert points[123_456].index == 123_456 and points[123_456].tokens == ("13", "74", "0.56")
    assert [p.index for p in points[5:8]] == [5, 6, 7]
    with pytest.raises(IndexError):
        points[1_000_000]


def test_planning_validates_each_value_and_each_placement_not_every_point(monkeypatch):
    """300 values over three axes (a million points) and two controllers: the plan builds 1 + 299 + 1 configurations
    (each value once, the other axes at their first values; each controller), not a million."""
    seen = []
    real = sweep_runner._point_stations
    monkeypatch.setattr(sweep_runner, "_point_stations",
                        lambda path, raw, points, ctrl: seen.extend(points) or real(path, raw, points, ctrl))
    plan = plan_sweep(PM9A3, ["controller=c01,c09", "workload.queue_depth=" + ",".join(map(str, range(1, 101))),
                              "nand.t_read_us=" + ",".join(str(40 + k) for k in range(100))])
    assert len(plan.points) == 20_000
    assert len(seen) == 1 + 1 + 99 + 99
    assert {p.tokens[0] for p in seen} == {"c01", "c09"}


def test_a_point_invalid_only_with_another_axis_gets_its_error_in_its_row(tmp_path):
    """64 KiB pages with a 16 or 64 KiB mapping unit and 16 KiB pages with 16 KiB units are fine; 16 KiB pages
    with 64 KiB units are not (a page holds whole units): that row says why, the others are answered."""
    plan = plan_sweep(PM9A3, ["nand.page_size_kib=64,16", "workload.mapping_unit_kib=16,64"], controller="c01")
    out = tmp_path / "s.csv"
    run_sweep(plan, out)
    rows = {r["key"]: r for r in read_sweep_csv(out)}
    bad = rows["nand.page_size_kib=16;workload.mapping_unit_kib=64"]
    assert "nand.page_size_kib" in bad["error"] and not bad["iops"]
    assert all(not r["error"] and float(r["iops"]) > 0 for k, r in rows.items() if r is not bad)


@pytest.mark.parametrize("spec, field, value", [
    ("workload.queue_depth", "workload.queue_depth", "workload.queue_depth"),  # no '='
    ("=1,2", "<empty>", "=1,2"),
    ("workload..queue_depth=1", "workload..queue_depth", "workload..queue_depth=1"),
    ("workload.queue_depth=1,,2", "workload.queue_depth", "1,,2"),
    ("workload.queue_depth=1,2,1", "workload.queue_depth", "1"),
])
def test_malformed_axis_names_field_and_value(spec, field, value):
    with pytest.raises(ConfigError) as e:
        parse_grid_spec(spec)
    assert e.value.field == field and e.value.value == value


def test_bad_values_are_rejected_before_anything_runs(tmp_path):
    with pytest.raises(ConfigError) as e:
        plan_sweep(PM9A3, ["workload.queue_depth=4,0"])
    assert e.value.field == "workload.queue_depth" and e.value.value == 0
    assert "workload.queue_depth=0" in e.value.source
    with pytest.raises(ConfigError) as e:
        plan_sweep(PM9A3, ["workload.queue_dept=4"])
    assert e.value.field == "workload.queue_dept"
    with pytest.raises(ConfigError, match="one grid axis"):
        plan_sweep(PM9A3, ["workload.queue_depth=1", "workload.queue_depth=2"])
    with pytest.raises(ConfigError, match="--controller"):
        plan_sweep(PM9A3, ["controller=c01,c09"], controller="c01")
    with pytest.raises(ConfigError):
        plan_sweep(PM9A3, [])


def test_cli_bad_grid_exits_2_naming_the_field(tmp_path, capsys):
    out = tmp_path / "x.csv"
    assert main(["sweep", str(PM9A3), "--grid", "nand.t_read_us=50,-1", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "nand.t_read_us" in err and "-1" in err and "Traceback" not in err
    assert not out.exists()


# ---- rows -------------------------------------------------------------------------------------------
def test_rows_hold_grid_values_and_flattened_metrics(plan, reference, tmp_path):
    out = tmp_path / "s.csv"
    out.write_bytes(reference)
    rows = read_sweep_csv(out)
    assert [r["key"] for r in rows] == [p.key for p in plan.points]
    assert {r["sweep_id"] for r in rows} == {plan.sweep_id}
    for col in ("iops", "latency_us.mean", "latency_us.p99", "utilization.die", "utilization.cores:cache",
                "power_mw.cores", "power_mw.dram", "power_mw.total", "energy_per_io_nj",
                "budgets.core_power.met", "budgets.dram_power.met"):
        assert col in rows[0]
    assert all(r["error"] == "" for r in rows)
    qd = {(r["workload.queue_depth"], r["workload.read_fraction"]): float(r["iops"]) for r in rows}
    assert qd[("1", "1.0")] < qd[("8", "1.0")]  # more queue depth, more IOPS
    # writes are acknowledged from the DRAM write buffer (the preset's [ftl]): at QD8, far from the dies'
    # limit, 30 % writes finish sooner than reads, so the mix gains IOPS
    assert qd[("8", "0.7")] > qd[("8", "1.0")]
    # the rows whose answer whatif flags (whatif.trust_caveats) say so: none in this grid
    assert all(r["caveats"] == "" for r in rows)


def test_rows_say_which_solver_answered_and_the_flow_corrections_share(plan, reference, tmp_path):
    # method and flow_correction_share are whatif's own (whatif --json): a user filtering a sweep by solver, or
    # by how far the route MVA's flow correction moved the answer, reads the same values as for one point
    from ssdco.model.whatif import evaluate
    from ssdco.spec import load_config

    out = tmp_path / "s.csv"
    out.write_bytes(reference)
    rows = read_sweep_csv(out)
    methods = set()
    for point, row in zip(plan.points, rows):
        r = evaluate(load_config(PM9A3, controller="c01", overrides=list(point.overrides)))
        assert row["method"] == r.method
        share = row["flow_correction_share"]
        assert (share == "") if r.flow_correction_share is None else float(share) == r.flow_correction_share
        methods.add(r.method)
    assert len(methods) >= 2  # the grid's low queue depths take another solver than QD 8


def test_fast_sweep_skips_the_chain_beyond_its_first_states_and_is_another_sweep(tmp_path):
    # QD 1: one request's chain, a few states, which --fast still takes; QD 3: skipped, with the caveat
    grid = ["workload.queue_depth=1,3"]
    overrides = ["workload.request_size_kib=16"]
    fast = plan_sweep(PM9A3, grid, controller="c01", overrides=overrides, fast=True)
    assert fast.sweep_id != plan_sweep(PM9A3, grid, controller="c01", overrides=overrides).sweep_id
    out = tmp_path / "fast.csv"
    run_sweep(fast, out)
    rows = read_sweep_csv(out)
    assert [r["method"] for r in rows] == ["markov-chain", "route-mva"]
    assert "was skipped (--fast) at queue depth 3" in rows[1]["caveats"] and rows[0]["caveats"] == ""
    # a fast sweep's rows are whatif --fast's answers
    from ssdco.model.whatif import evaluate
    from ssdco.spec import load_config

    r = evaluate(load_config(PM9A3, controller="c01", overrides=[*overrides, "workload.queue_depth=3"]),
                 effort="fast")
    assert float(rows[1]["iops"]) == r.iops
    # the CLI's --fast makes the same sweep
    out_cli = tmp_path / "fast_cli.csv"
    assert main(["sweep", str(PM9A3), "-c", "c01", "--set", overrides[0], "--grid", grid[0], "--fast",
                 "--out", str(out_cli), "--progress", "off"]) == 0
    assert out_cli.read_bytes() == out.read_bytes()


def test_flagged_points_carry_their_caveat(tmp_path):
    # write-only at QD 4 sits at the write buffer's bound, where the model is known to be off the DES
    plan = plan_sweep(PM9A3, ["workload.queue_depth=4,32"], controller="c01",
                      overrides=["workload.read_fraction=0.0"])
    out = tmp_path / "w.csv"
    run_sweep(plan, out)
    caveats = {r["workload.queue_depth"]: r["caveats"] for r in read_sweep_csv(out)}
    assert "held by the write buffer at queue depth 4" in caveats["4"] and caveats["32"] == ""


def test_grid_over_controllers_and_des_columns(tmp_path):
    out = tmp_path / "c.csv"
    plan = plan_sweep(PM9A3, ["controller=c01,c09"], des_requests=3000, seed=3)
    assert run_sweep(plan, out).computed == 2
    rows = read_sweep_csv(out)
    assert [r["controller"] for r in rows] == ["c01", "c09"]
    assert float(rows[1]["power_mw.cores"]) == 0.0  # c09 has no cores
    for r in rows:
        assert float(r["des.iops"]) > 0 and r["agrees"] in ("true", "false")
        assert abs(float(r["rel_error.iops"])) < 0.2


def test_the_seed_check_at_each_point_flags_a_des_locked_in_a_pattern(tmp_path):
    # the reads that hold a start-dependent pattern (tests/data/reads_locking_into_patterns.toml): one DES run
    # from seed 0 sits in the 28.0 k pattern and the model looks 18 % high; validate's seed check (auto: 4 more
    # runs) says the runs disagree, and the sweep row carries what `ssdco validate --json` has
    locking = ROOT / "tests" / "data" / "reads_locking_into_patterns.toml"
    rows = {}
    for replications in (0, "auto"):
        out = tmp_path / f"r{replications}.csv"
        plan = plan_sweep(locking, ["workload.queue_depth=4"], des_requests=200_000, seed=0,
                          replications=replications)
        run_sweep(plan, out)
        (rows[replications],) = read_sweep_csv(out)
    one, checked = rows[0], rows["auto"]
    assert one["des.runs"] == "1" and one["des.runs_iops_spread"] == "" and one["des.unsettled"] == ""
    assert one["agrees"] == "false" and float(one["rel_error.iops"]) > 0.1
    assert checked["des.runs"] == "5" and float(checked["des.runs_iops_spread"]) > 0.03
    assert checked["des.unsettled"] == "true" and checked["agrees"] == "false"
    assert checked["des.iops"] == one["des.iops"]  # the main run is the same run
    expected = validate(config_from_dict(apply_overrides(plan.base_raw, ["workload.queue_depth=4"])),
                        requests=200_000, seed=0, replications="auto").to_dict()["des_replications"]
    assert float(checked["des.runs_iops_spread"]) == expected["iops_spread"]


def test_seed_check_options_are_checked_and_part_of_the_sweep_id(tmp_path, capsys):
    base = plan_sweep(PM9A3, ["workload.queue_depth=4"], controller="c01", des_requests=3000)
    assert plan_sweep(PM9A3, ["workload.queue_depth=4"], controller="c01", des_requests=3000,
                      replications=2).sweep_id != base.sweep_id
    for bad in (-1, 1001, 2.5, True, "sometimes"):
        with pytest.raises(ConfigError, match="replications"):
            plan_sweep(PM9A3, ["workload.queue_depth=4"], controller="c01", des_requests=3000, replications=bad)
    with pytest.raises(ConfigError, match="--des-requests"):
        plan_sweep(PM9A3, ["workload.queue_depth=4"], controller="c01", replications=2)
    out = tmp_path / "x.csv"
    args = ["sweep", str(PM9A3), "-c", "c01", "--grid", "workload.queue_depth=4", "--out", str(out)]
    assert main(args + ["--replications", "2"]) == 2
    err = capsys.readouterr().err
    assert "--replications" in err and "--des-requests" in err and "Traceback" not in err
    with pytest.raises(SystemExit) as e:
        main(args + ["--des-requests", "3000", "--replications", "many"])
    assert e.value.code == 2 and "expected auto or an integer" in capsys.readouterr().err
    assert not out.exists()


# ---- resumability -----------------------------------------------------------------------------------
def test_second_run_is_a_no_op(plan, reference, tmp_path):
    out = tmp_path / "s.csv"
    out.write_bytes(reference)
    s = run_sweep(plan, out)
    assert (s.resumed, s.computed) == (8, 0)
    assert out.read_bytes() == reference


@pytest.mark.parametrize("cut", ["mid_row", "after_row", "mid_header", "header_only", "empty"])
def test_truncated_file_resumes_to_identical_bytes(plan, reference, tmp_path, cut):
    lines = reference.split(b"\n")
    header, rows = lines[0] + b"\n", [ln + b"\n" for ln in lines[1:-1]]
    partial = {
        "mid_row": header + b"".join(rows[:3]) + rows[3][: len(rows[3]) // 2],
        "after_row": header + b"".join(rows[:5]),
        "mid_header": header[:17],
        "header_only": header,
        "empty": b"",
    }[cut]
    out = tmp_path / "s.csv"
    out.write_bytes(partial)
    s = run_sweep(plan, out)
    assert s.resumed == {"mid_row": 3, "after_row": 5}.get(cut, 0)
    assert out.read_bytes() == reference


def test_killed_sweep_resumes_to_identical_bytes(plan, reference, tmp_path):
    """A sweep process killed (SIGKILL) after a few rows, then run again, gives the uninterrupted bytes."""
    out = tmp_path / "killed.csv"
    script = textwrap.dedent(f"""
        import time
        from ssdco.sweep_runner import plan_sweep, run_sweep
        plan = plan_sweep({str(PM9A3)!r}, {GRID!r}, controller="c01")
        run_sweep(plan, {str(out)!r}, on_row=lambda i: time.sleep(0.4))  # slow points, so we can kill mid-way
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if out.exists() and out.read_bytes().count(b"\n") >= 4:  # header + 3 rows
                break
            if proc.poll() is not None:
                pytest.fail(f"sweep subprocess ended early with {proc.returncode}")
            time.sleep(0.02)
        proc.kill()
    finally:
        proc.wait(timeout=30)
    killed = out.read_bytes()
    assert 3 <= killed.count(b"\n") - 1 < 8, "the sweep was not interrupted mid-way"
    s = run_sweep(plan, out)
    assert s.resumed == killed.count(b"\n") - 1 and s.resumed + s.computed == 8
    assert out.read_bytes() == reference


def test_foreign_file_is_refused(plan, reference, tmp_path):
    out = tmp_path / "s.csv"
    out.write_bytes(reference)
    other_seed = plan_sweep(PM9A3, GRID, controller="c01", overrides=["nand.t_read_us=60"])
    with pytest.raises(ConfigError, match="different sweep"):
        run_sweep(other_seed, out)  # same header, other configuration: sweep_id differs
    other_grid = plan_sweep(PM9A3, ["workload.queue_depth=1,2"], controller="c01")
    with pytest.raises(ConfigError, match="different sweep"):
        run_sweep(other_grid, out)
    assert out.read_bytes() == reference


@pytest.mark.parametrize("content", [b"my results", b"index,kez", b"\xff\xfe binary"])
def test_a_file_without_a_newline_that_is_not_a_cut_header_is_refused_and_kept(plan, tmp_path, content):
    out = tmp_path / "r.csv"
    out.write_bytes(content)
    with pytest.raises(ConfigError, match="different sweep|not a sweep"):
        run_sweep(plan, out)
    assert out.read_bytes() == content


def test_cli_keeps_a_foreign_file_and_exits_2(tmp_path, capsys):
    out = tmp_path / "r.csv"
    out.write_bytes(b"my results")
    code = main(["sweep", str(PM9A3), "-c", "c09", "--fast", "--grid", "workload.queue_depth=32", "--out", str(out)])
    assert code == 2
    assert out.read_bytes() == b"my results"
    assert "r.csv" in capsys.readouterr().err


def test_a_second_sweep_on_the_same_file_is_refused_while_the_first_runs(plan, reference, tmp_path):
    out = tmp_path / "s.csv"
    script = textwrap.dedent(f"""
        import time
        from ssdco.sweep_runner import plan_sweep, run_sweep
        plan = plan_sweep({str(PM9A3)!r}, {GRID!r}, controller="c01")
        run_sweep(plan, {str(out)!r}, on_row=lambda i: time.sleep(0.5))
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (out.exists() and out.read_bytes().count(b"\n") >= 2):
            assert proc.poll() is None, f"the first sweep ended early with {proc.returncode}"
            time.sleep(0.02)
        with pytest.raises(ConfigError, match=f"another sweep .*pid {proc.pid}"):
            run_sweep(plan, out)
    finally:
        proc.wait(timeout=120)
    assert proc.returncode == 0
    assert out.read_bytes() == reference  # one copy of every row: the refused sweep wrote nothing
    s = run_sweep(plan, out)  # the lock went with the first sweep
    assert (s.resumed, s.computed) == (8, 0)


@pytest.mark.parametrize("spec, dup", [("workload.read_fraction=1,1.0", "1.0"),
                                       ("workload.queue_depth=8,+8,4", "+8"),
                                       ("workload.read_fraction=0.5,5e-1", "5e-1")])
def test_a_value_repeated_under_another_spelling_is_refused(spec, dup):
    with pytest.raises(ConfigError, match="same value") as info:
        parse_grid_spec(spec)
    assert dup in str(info.value)


def test_a_boolean_and_a_number_are_different_values():
    axis = parse_grid_spec("nand.independent_plane_reads=true,1")
    assert axis.tokens == ("true", "1")


# ---- executors and outputs --------------------------------------------------------------------------
def test_process_pool_matches_serial_bytes(plan, reference, tmp_path):
    out = tmp_path / "pool.csv"
    run_sweep(plan, out, workers=2)
    assert out.read_bytes() == reference


def test_dask_local_cluster_matches_serial_bytes(plan, reference, tmp_path):
    distributed = pytest.importorskip("distributed")
    out = tmp_path / "dask.csv"
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        s = run_sweep(plan, out, scheduler=cluster.scheduler_address)
    assert s.computed == 8
    assert out.read_bytes() == reference


def test_parquet_output(plan, reference, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    out, pout = tmp_path / "s.csv", tmp_path / "s.parquet"
    out.write_bytes(reference)
    run_sweep(plan, out, parquet=pout)
    table = pq.read_table(pout)
    rows = read_sweep_csv(out)
    assert table.num_rows == len(rows) == 8
    assert table.column_names == list(rows[0])
    assert table.column("iops").to_pylist() == [float(r["iops"]) for r in rows]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temp files left


def test_missing_optional_dependencies_fail_clearly_before_running(plan, tmp_path, monkeypatch, capsys):
    for mod in ("pyarrow", "pyarrow.csv", "pyarrow.parquet", "dask", "dask.distributed"):
        monkeypatch.setitem(sys.modules, mod, None)  # makes `import mod` raise ImportError
    out = tmp_path / "s.csv"
    with pytest.raises(SweepError, match="pyarrow"):
        run_sweep(plan, out, parquet=tmp_path / "s.parquet")
    assert not out.exists()
    with pytest.raises(SweepError, match="dask"):
        run_sweep(plan, out, scheduler="tcp://127.0.0.1:1")
    assert main(["sweep", str(PM9A3), "--grid", "workload.queue_depth=1", "--out", str(out),
                 "--parquet", str(tmp_path / "p.parquet")]) == 2
    assert "pyarrow" in capsys.readouterr().err


def test_cli_sweep_writes_and_resumes(tmp_path, capsys):
    out = tmp_path / "cli.csv"
    args = ["sweep", str(PM9A3), "-c", "c07", "--grid", "workload.queue_depth=2,16", "--out", str(out),
            "--progress", "off"]
    assert main(args) == 0
    said = capsys.readouterr()
    assert "2 points (0 already done, 2 computed)" in said.out
    assert said.err.startswith(f"ssdco sweep: 2 of 2 points to run, each row written to {out}")  # before it runs
    first = out.read_bytes()
    assert main(args) == 0
    assert "2 points (2 already done, 0 computed)" in capsys.readouterr().out
    assert out.read_bytes() == first
    assert os.listdir(tmp_path) == ["cli.csv"]


def test_sweep_id_changes_with_ssdco_source(monkeypatch):
    # A file started by another version of the model must not be resumed as if it were this one.
    import ssdco.sweep_runner

    plan = plan_sweep(PM9A3, ["workload.queue_depth=1,2"])
    assert plan_sweep(PM9A3, ["workload.queue_depth=1,2"]).sweep_id == plan.sweep_id
    monkeypatch.setattr(ssdco.sweep_runner, "code_fingerprint", lambda: "0123456789ab")
    assert plan_sweep(PM9A3, ["workload.queue_depth=1,2"]).sweep_id != plan.sweep_id


def test_an_unstable_open_point_keeps_its_analytic_answer_and_skips_the_des(tmp_path):
    # 64 KiB at 150 K IOPS needs 1.4x the PCIe link: the analytic row says so; the DES would refuse to run
    out = tmp_path / "open.csv"
    plan = plan_sweep(PM9A3, ["workload.request_size_kib=4,64"], controller="c01",
                      overrides=["workload.arrival_iops=150000"], des_requests=3000)
    summary = run_sweep(plan, out)
    assert summary.errors == 0
    small, large = read_sweep_csv(out)
    assert small["stable"] == "true" and float(small["des.iops"]) > 0
    assert large["stable"] == "false" and large["des.iops"] == "" and large["error"] == ""
    assert float(large["utilization.pcie"]) > 1.0


def test_unreachable_scheduler_fails_clearly(plan, tmp_path):
    pytest.importorskip("distributed")
    out = tmp_path / "s.csv"
    with pytest.raises(SweepError, match="cannot connect to the Dask scheduler at 'tcp://127.0.0.1:1'"):
        run_sweep(plan, out, scheduler="tcp://127.0.0.1:1", connect_timeout_s=1.0)
    assert not out.exists()


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "soon"])
def test_cli_rejects_a_bad_connect_timeout(value, tmp_path, capsys):
    out = tmp_path / "s.csv"
    with pytest.raises(SystemExit) as exit_info:  # argparse's usage error
        main(["sweep", str(PM9A3), "--grid", "workload.queue_depth=1", "--out", str(out),
              "--scheduler", "tcp://127.0.0.1:1", "--connect-timeout-s", value])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "--connect-timeout-s" in err and "expected a number > 0" in err and value in err
    assert not out.exists()


def test_run_sweep_rejects_a_bad_connect_timeout(plan, tmp_path):
    with pytest.raises(ConfigError, match="connect_timeout_s"):
        run_sweep(plan, tmp_path / "s.csv", scheduler="tcp://127.0.0.1:1", connect_timeout_s=0.0)
    assert not (tmp_path / "s.csv").exists()


# ---- output paths are checked before anything runs ---------------------------------------------------
@pytest.mark.parametrize("case", ["parquet_under_a_file", "parquet_is_a_directory", "parquet_is_the_csv",
                                  "out_under_a_file", "out_is_a_directory", "empty_out"])
def test_unwritable_outputs_are_refused_before_any_point_runs(case, plan, tmp_path, monkeypatch):
    # --parquet /proc/x.parquet used to fail only after every point had been computed
    import ssdco.sweep_runner

    afile = tmp_path / "afile"
    afile.write_text("x")
    out, parquet = tmp_path / "s.csv", tmp_path / "s.parquet"
    option, bad = {"parquet_under_a_file": ("--parquet", afile / "x.parquet"),
                   "parquet_is_a_directory": ("--parquet", tmp_path),
                   "parquet_is_the_csv": ("--parquet", out),
                   "out_under_a_file": ("--out", afile / "sub" / "x.csv"),
                   "out_is_a_directory": ("--out", tmp_path),
                   "empty_out": ("--out", "")}[case]
    if option == "--parquet":
        parquet = bad
    else:
        out = bad
    monkeypatch.setattr(ssdco.sweep_runner, "evaluate_point", lambda task: pytest.fail("a point ran"))
    with pytest.raises(ConfigError) as e:
        run_sweep(plan, out, parquet=parquet)
    assert e.value.source == option and e.value.value == str(bad)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]  # no CSV, no temporary or probe file


def test_cli_unwritable_parquet_exits_2_at_once_naming_the_option(tmp_path, capsys, monkeypatch):
    import ssdco.sweep_runner

    monkeypatch.setattr(ssdco.sweep_runner, "plan_sweep", lambda *a, **k: pytest.fail("planned before checking"))
    unwritable = "/proc/x.parquet" if os.path.isdir("/proc/self") else str(tmp_path / "afile" / "x.parquet")
    (tmp_path / "afile").write_text("x")
    out = tmp_path / "s.csv"
    assert main(["sweep", str(PM9A3), "-c", "c09", "--grid", "workload.queue_depth=1,2", "--out", str(out),
                 "--parquet", unwritable]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ssdco: error: --parquet: field 'parquet' = '{unwritable}': ")
    assert "Traceback" not in err and not out.exists()


def test_writable_outputs_in_new_directories_pass_the_check(plan, reference, tmp_path):
    pytest.importorskip("pyarrow.parquet")
    out, pout = tmp_path / "a" / "b" / "s.csv", tmp_path / "c" / "s.parquet"
    assert run_sweep(plan, out, parquet=pout).computed == 8
    assert out.read_bytes() == reference and pout.is_file()


@pytest.mark.parametrize("address", ["bogus", "tls://127.0.0.1:1", "foo://127.0.0.1:1"])
def test_an_unusable_scheduler_address_leaves_only_the_clean_message_on_stderr(address, tmp_path):
    # 'bogus' exited 2 cleanly, but the half-started Dask client's __del__ then waited 2 x the timeout and
    # printed "Exception ignored in: <function Client.__del__ ...> Traceback ..."; tls:// without an SSL
    # context raised TypeError, which was a traceback of its own
    pytest.importorskip("distributed")
    out = tmp_path / "s.csv"
    proc = subprocess.run([sys.executable, "-m", "ssdco.cli", "sweep", str(PM9A3), "-c", "c09",
                           "--grid", "workload.queue_depth=1,2", "--out", str(out), "--scheduler", address,
                           "--connect-timeout-s", "5"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith(f"ssdco: error: --scheduler: cannot connect to the Dask scheduler at {address!r}")
    assert proc.stderr.count("\n") == 1, proc.stderr  # one line: no "Exception ignored", no Traceback
    assert "Traceback" not in proc.stderr
    assert not out.exists()


def test_cli_sweep_names_what_limits_each_point_and_exits_1_on_point_errors(tmp_path, capsys, monkeypatch):
    import ssdco.sweep_runner

    out = tmp_path / "limits.csv"
    args = ["sweep", str(PM9A3), "-c", "c07", "--grid", "workload.queue_depth=2,16", "--out", str(out),
            "--progress", "off"]
    assert main(args) == 0
    rows = read_sweep_csv(out)
    assert [r["limited_by"] for r in rows] == ["none: queue depth limits it"] * 2
    assert {r["bottleneck"] for r in rows} == {"pcie"}
    real = ssdco.sweep_runner.evaluate_point

    def second_fails(task):
        index, row = real(task)
        return (index, {"error": "SsdcoError: a point that cannot be evaluated"}) if index == 1 else (index, row)

    monkeypatch.setattr(ssdco.sweep_runner, "evaluate_point", second_fails)
    out.unlink()
    capsys.readouterr()
    assert main(args) == 1
    assert "1 with errors" in capsys.readouterr().out


def _process_state(pid: int) -> str | None:
    """The state letter of ``pid`` from /proc (None once it is gone; "Z": ended, not yet reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return None


def _spawned_workers(parent: int) -> list[int]:
    """The multiprocessing workers that ``parent`` spawned (by their command line and parent pid, from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
            continue
        if ppid == parent and b"spawn_main" in cmdline:
            found.append(int(entry))
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_killing_a_parallel_sweep_leaves_no_worker_behind(tmp_path):
    # a sweep long enough to be killed in the middle: 100 points, each with a 200,000-request DES run
    grid = "workload.queue_depth=" + ",".join(str(q) for q in range(1, 101))
    proc = subprocess.Popen([sys.executable, "-m", "ssdco", "sweep", str(PM9A3), "-c", "c09", "--fast", "--grid", grid,
                             "--des-requests", "200000", "--workers", "2", "--progress", "off",
                             "--out", str(tmp_path / "s.csv")], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    workers: list[int] = []
    for _ in range(600):  # until both workers have started (at most a minute: a liveness bound, not a timing)
        workers = _spawned_workers(proc.pid)
        if len(workers) == 2 or proc.poll() is not None:
            break
        time.sleep(0.1)
    assert len(workers) == 2 and proc.poll() is None
    proc.kill()  # SIGKILL: the sweep cannot stop its pool
    proc.wait()
    for _ in range(600):
        if all(_process_state(pid) in (None, "Z") for pid in workers):
            break
        time.sleep(0.1)
    assert all(_process_state(pid) in (None, "Z") for pid in workers)


@pytest.mark.skipif(sys.platform == "win32", reason="flock")
def test_a_lock_taken_on_a_removed_lock_file_is_taken_again(tmp_path, monkeypatch):
    # The race: a sweep opens <out>.lock, the previous holder finishes and removes the file, and the sweep's flock
    # then succeeds on the removed file. A third sweep would create and lock a new file and run beside it.
    import fcntl

    from ssdco import sweep_runner

    out = tmp_path / "s.csv"
    lock_path = tmp_path / "s.csv.lock"
    real_flock = fcntl.flock
    raced = []

    def flock_after_removal(fd, op):
        if not raced:  # the previous holder removes the file between this sweep's open and its flock
            raced.append(True)
            lock_path.unlink()
        return real_flock(fd, op)

    monkeypatch.setattr(fcntl, "flock", flock_after_removal)
    with sweep_runner._exclusive(out):
        monkeypatch.setattr(fcntl, "flock", real_flock)
        with pytest.raises(ConfigError, match=r"another sweep \(pid \d+\) is writing this file"):
            with sweep_runner._exclusive(out):
                pass
    assert raced and not lock_path.exists()
