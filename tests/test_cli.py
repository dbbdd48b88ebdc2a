"""CLI behaviour: readable table, stable JSON schema, overrides, exit codes."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ssdco.cli import main, write_atomic
from tests.conftest import PM9A3

WHATIF_KEYS = {"iops", "latency_us", "utilization", "bottleneck", "power_mw", "energy_per_io_nj", "budgets"}


def test_whatif_table(capsys):
    assert main(["whatif", str(PM9A3), "--controller", "c01"]) == 0
    out = capsys.readouterr().out
    for word in ("IOPS", "latency mean", "utilisation", "bottleneck", "power", "core_power", "dram_power"):
        assert word in out


def test_whatif_json_schema(capsys):
    assert main(["whatif", str(PM9A3), "-c", "c07", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert WHATIF_KEYS <= set(doc)
    assert set(doc["latency_us"]) == {"mean", "p99"}
    assert {"cores", "accelerators", "dram", "total"} <= set(doc["power_mw"])
    for name in ("core_power", "dram_power"):
        assert set(doc["budgets"][name]) == {"limit_mw", "value_mw", "met"}
    assert doc["controller"] == "c07"
    total = doc["power_mw"]["cores"] + doc["power_mw"]["accelerators"] + doc["power_mw"]["dram"]
    assert abs(doc["power_mw"]["total"] - total) < 1e-9
    assert abs(doc["energy_per_io_nj"] - doc["power_mw"]["total"] / doc["iops"] * 1e6) < 1e-6


def test_set_override_changes_answer(capsys):
    main(["whatif", str(PM9A3), "--json"])
    qd32 = json.loads(capsys.readouterr().out)["iops"]
    main(["whatif", str(PM9A3), "--json", "--set", "workload.queue_depth=4"])
    qd4 = json.loads(capsys.readouterr().out)["iops"]
    assert qd4 < qd32


def test_setting_arrival_iops_turns_the_closed_preset_into_an_open_workload(capsys):
    # the preset file sets queue_depth; an arrival rate on the command line replaces it (the two exclude
    # each other), and the open workload carries exactly the offered rate
    assert main(["whatif", str(PM9A3), "--json", "--set", "workload.arrival_iops=200000"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["iops"] == 200000
    assert main(["whatif", str(PM9A3), "--json", "--set", "workload.arrival_iops=200000",
                 "--set", "workload.queue_depth=8"]) == 2
    assert "set exactly one of queue_depth" in capsys.readouterr().err


def test_controller_by_path(capsys, tmp_path):
    assert main(["whatif", str(PM9A3), "-c", str(PM9A3.parent / "controllers" / "c09.toml"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["controller"] == "c09"


def test_write_atomic_leaves_no_temp_files(tmp_path):
    target = tmp_path / "sub" / "out.txt"
    write_atomic(target, "hello")
    write_atomic(target, "world")
    assert target.read_text() == "world"
    assert [p.name for p in target.parent.iterdir()] == ["out.txt"]


def test_validate_table_lines_up_the_relative_errors(capsys):
    code = main(["validate", str(PM9A3), "--controller", "c01", "--requests", "5000",
                 "--set", "workload.read_fraction=0.3"])
    out = capsys.readouterr().out
    assert code in (0, 1) and "verdict:" in out and "M events/s" in out
    rows = {line.split("  ")[1].strip(): line for line in out.splitlines()
            if line.startswith("  IOPS") or line.startswith("  latency")}
    assert set(rows) == {"IOPS", "latency mean (us)", "latency p99 (us)"}
    # the relative error is the first signed percentage after the two values; same column on every row
    columns = {name: line.index("%") for name, line in rows.items()}
    assert len(set(columns.values())) == 1, rows
    assert "(estimate; DES p50" in rows["latency p99 (us)"]


def test_validate_checks_other_seeds_on_closed_deterministic_work(capsys):
    # the DES's requests hold a transient pattern that some seeds leave early (tests/sim/test_replications.py)
    locking = str(Path(__file__).parent / "data" / "reads_locking_into_patterns.toml")
    assert main(["validate", locking]) == 1  # not AGREE
    out = capsys.readouterr().out
    assert "DES from 4 more seeds spawned from seed 0 (50,000 requests each)" in out
    assert "verdict: UNSETTLED - the DES's runs from different seeds disagree on IOPS by 17.1%" in out
    assert main(["validate", locking, "--replications", "0", "--requests", "20000"]) == 1
    out = capsys.readouterr().out
    assert "more seeds" not in out and "verdict: DISAGREE - IOPS" in out
    code = main(["validate", locking, "--replications", "2", "--requests", "20000", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == (0 if doc["verdict"] == "AGREE" else 1)
    assert len(doc["des_replications"]["runs"]) == 2 and doc["verdict"] in ("AGREE", "DISAGREE", "UNSETTLED")
    # open workloads mix: no extra runs by default
    assert main(["validate", str(PM9A3), "-c", "c01", "--set", "workload.arrival_iops=100000", "--requests", "20000",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["des_replications"] is None


def test_validate_timing_spread_says_when_a_disagreement_rests_on_exactly_constant_timings(capsys):
    # the locking design's DES holds a pattern with exactly constant timings (above); with a 10 % standard deviation
    # in every service time it comes to the model (measured: +18.5 % -> +1.9 %)
    locking = str(Path(__file__).parent / "data" / "reads_locking_into_patterns.toml")
    args = ["validate", locking, "--replications", "0", "--requests", "20000"]
    assert main([*args, "--timing-spread", "0.01"]) == 1  # the main run's verdict: DISAGREE
    out = capsys.readouterr().out
    assert "DES with every service time varying (scv >= 0.01, a 10% standard deviation; same requests and seed)" in out
    assert "verdict: DISAGREE - IOPS" in out
    assert "spread: with varying service times the DES agrees with the model, so the difference rests on" in out
    assert main([*args, "--timing-spread", "0.01", "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["verdict"] == "DISAGREE" and doc["des_timing_spread"]["agrees"] is True
    assert main(args) == 1
    out = capsys.readouterr().out
    assert "every service time varying" not in out and "spread:" not in out


def test_validate_timing_spread_says_when_only_exactly_constant_timings_agree():
    # the other way round: the main run agrees and the spread run does not (its errors set here, so that the
    # sentence is checked on its own; 20261339 #198 of the Hypothesis draws is such a design, but disagrees already)
    from dataclasses import replace

    from ssdco import load_config
    from ssdco.cli import format_validation
    from ssdco.validation.compare import TimingSpreadCheck, validate

    v = validate(load_config(PM9A3, controller="c01"), requests=20_000, seed=1, replications=0,
                 timing_spread_scv=0.001)
    assert v.agrees and v.timing_spread.agrees
    assert "spread:" not in format_validation(v)  # both runs agree: nothing to say
    off = replace(v, timing_spread=TimingSpreadCheck(scv=0.001, des=v.timing_spread.des,
                                                     relative_error={"iops": 0.2, "latency_mean_us": -0.17},
                                                     utilization_error=v.timing_spread.utilization_error))
    text = format_validation(off)
    assert "(model +20.00%)" in text and "outside the tolerances" in text and "verdict: AGREE" in text
    assert "spread: with varying service times the DES leaves the model's tolerances, so the agreement holds" in text


def test_whatif_flags_a_known_disagreement_and_validate_names_it(capsys):
    # write-only at QD 4: the model holds IOPS at the write buffer's bound, where the DES oscillates
    args = [str(PM9A3), "-c", "c01", "--set", "workload.read_fraction=0.0", "--set", "workload.queue_depth=4"]
    assert main(["whatif", *args]) == 0
    assert "CAVEAT: IOPS are held by the write buffer at queue depth 4" in capsys.readouterr().out
    assert main(["whatif", *args, "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["caveats"]) == 1
    main(["validate", *args, "--requests", "30000"])
    assert "known: IOPS are held by the write buffer" in capsys.readouterr().out
    assert main(["whatif", str(PM9A3), "-c", "c01"]) == 0
    assert "CAVEAT" not in capsys.readouterr().out


def test_fast_skips_the_chain_and_validate_fast_checks_that_answer(capsys):
    # PM9A3 c01, 16 KiB reads at QD 3: the Markov chain of the requests' draws outgrows its budget (about 3 s) and
    # the platoon stage answers; --fast skips the chain, the route MVA answers at once (0.2 % higher here), and its
    # caveat says the chain was skipped
    args = [str(PM9A3), "-c", "c01", "--set", "workload.queue_depth=3", "--set", "workload.request_size_kib=16"]
    assert main(["whatif", *args, "--json"]) == 0
    full = json.loads(capsys.readouterr().out)
    assert main(["whatif", *args, "--fast", "--json"]) == 0
    fast = json.loads(capsys.readouterr().out)
    assert full["method"] == "platoon-stage" and fast["method"] == "route-mva" and full["caveats"] == []
    assert fast["iops"] == pytest.approx(full["iops"], rel=0.01)
    assert fast["caveats"][0].startswith("the Markov chain of the requests' draws was skipped (--fast)")
    assert main(["whatif", *args, "--fast"]) == 0
    assert "CAVEAT: the Markov chain of the requests' draws was skipped (--fast)" in capsys.readouterr().out
    assert main(["validate", *args, "--fast", "--requests", "20000", "--replications", "0", "--json"]) == 0
    v = json.loads(capsys.readouterr().out)
    assert v["analytic"]["caveats"] == fast["caveats"] and v["analytic"]["iops"] == fast["iops"]


def test_p99_is_labelled_as_an_estimate(capsys):
    args = [str(PM9A3), "-c", "c01", "--set", "workload.queue_depth=2"]
    assert main(["whatif", *args]) == 0
    assert "latency p99 (est.)   " in capsys.readouterr().out
    assert main(["validate", *args, "--requests", "20000"]) == 0
    assert "(estimate; DES p50" in capsys.readouterr().out


def test_optimize_json_on_stdout_is_json_alone_whatever_the_solver_prints():
    # in a fresh process, where HiGHS (when installed, as `make test` installs it) writes its banner to file
    # descriptor 1 when its first object is made: stdout must still be one JSON document (optimize --json | jq)
    proc = subprocess.run([sys.executable, "-m", "ssdco.cli", "optimize", str(PM9A3), "--min-iops", "500000",
                           "--no-des", "--json"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["feasible"] is True  # a banner before the document would make this fail


# ---- output that means what it says (issue 70) ----
def _whatif_json(capsys, *args):
    code = main(["whatif", str(PM9A3), "--json", *args])
    return code, json.loads(capsys.readouterr().out)


def _line(out: str, start: str) -> str:
    return next(line for line in out.splitlines() if line.strip().startswith(start))


def test_a_station_a_third_busy_is_not_named_as_what_limits_throughput(capsys):
    # c07 at QD32: the link is the station of the largest demand but 33 % busy; N / R0 bounds IOPS
    main(["whatif", str(PM9A3), "-c", "c07"])
    line = _line(capsys.readouterr().out, "bottleneck")
    assert "none: queue depth limits it" in line and "pcie" in line and "33" in line, line
    _, doc = _whatif_json(capsys, "-c", "c07")
    assert doc["limited_by"] == "none: queue depth limits it" and doc["bottleneck"] == "pcie"
    assert doc["busiest_station"]["name"] == "pcie" and doc["busiest_station"]["utilization"] < 0.4


def test_a_saturated_station_is_named_as_what_limits_throughput(capsys):
    _, doc = _whatif_json(capsys, "-c", "c02")  # one simple core runs everything, 100 % busy
    assert doc["limited_by"] == doc["bottleneck"] == "cores:simple"
    _, doc = _whatif_json(capsys, "--set", "workload.arrival_iops=200000")
    assert doc["limited_by"] == "none: the offered arrival rate sets it"


def test_ftl_wear_lines_only_where_writes_exist(capsys):
    main(["whatif", str(PM9A3)])  # the shipped workload reads only
    out = capsys.readouterr().out
    assert "FTL:" in out and "WAF" not in out and "TBW" not in out and "DWPD" not in out
    main(["whatif", str(PM9A3), "--set", "workload.read_fraction=0.7"])
    out = capsys.readouterr().out
    assert "WAF" in out and "TBW" in out and "DWPD" in out


def test_an_unset_target_is_not_shown_as_met(capsys):
    main(["whatif", str(PM9A3)])  # budgets.min_iops = 0.0: no IOPS target
    line = _line(capsys.readouterr().out, "min_iops")
    assert "not set" in line and "yes" not in line, line
    _, doc = _whatif_json(capsys)
    assert doc["budgets"]["min_iops"]["limit"] is None and doc["budgets"]["min_iops"]["met"] is None
    assert doc["budgets"]["core_power"]["met"] is False  # c01's cores exceed the budget that is set
    main(["whatif", str(PM9A3), "--set", "budgets.min_iops=100000"])
    line = _line(capsys.readouterr().out, "min_iops")
    assert "100,000" in line and "yes" in line, line


def test_an_unstable_open_workload_prints_no_figures_that_look_like_an_answer(capsys):
    main(["whatif", str(PM9A3), "--set", "workload.arrival_iops=2000000"])
    out = capsys.readouterr().out
    assert "UNSTABLE" in out and "2,000,000" in out.splitlines()[0]  # the offered rate, in the header only
    assert "2,000,000" not in "\n".join(out.splitlines()[1:]).replace("arrival_iops = 2,000,000", "")
    assert _line(out, "IOPS").split()[1] == "unstable"
    assert "energy per I/O" not in out and "total" not in out
    code, doc = _whatif_json(capsys, "--set", "workload.arrival_iops=2000000")
    assert doc["stable"] is False and doc["iops"] is None and doc["latency_us"] == {"mean": None, "p99": None}
    assert doc["energy_per_io_nj"] is None and doc["power_mw"]["total"] is None
    assert doc["budgets"]["core_power"]["met"] is None and doc["limited_by"] == doc["bottleneck"]


def test_the_seed_shown_is_the_seed_given(capsys):
    main(["validate", str(PM9A3), "-c", "c07", "--requests", "5000", "--seed", "0", "--replications", "1"])
    out = capsys.readouterr().out
    assert "seed 0)" in out.splitlines()[0] and "3653403231" not in out
    main(["validate", str(PM9A3), "-c", "c07", "--requests", "5000", "--seed", "7", "--replications", "1", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["seed"] == 7
    # the DES's budgets read as the analytic ones: the unset IOPS target is not met, it is not set
    for side in ("analytic", "des"):
        assert doc[side]["budgets"]["min_iops"]["limit"] is None and doc[side]["budgets"]["min_iops"]["met"] is None


def test_validate_tables_have_units_and_aligned_columns(capsys):
    main(["validate", str(PM9A3), "-c", "c07", "--requests", "5000", "--replications", "0"])
    out = capsys.readouterr().out.splitlines()
    head = next(i for i, line in enumerate(out) if line.strip().startswith("metric"))
    rows = out[head:head + 5]
    assert "IOPS" in rows[1] and "latency mean (us)" in rows[2] and "latency p99 (us)" in rows[3]
    assert "power total (mW)" in rows[4]
    # the analytic value, the DES value and the relative error end in the same column on every row
    for col in ("analytic", "DES (95% CI)", "rel. error", "tolerance"):
        end = rows[0].index(col) + len(col)
        for row in rows[1:]:
            assert row[end - 1] != " " and (end == len(row) or row[end] == " "), (col, rows)
    st = next(i for i, line in enumerate(out) if line.strip().startswith("station"))
    assert "utilisation" in out[st] and "util. analytic" in out[st]
    for col in ("analytic", "DES", "error"):
        end = out[st].index(col) + len(col)
        for row in out[st + 1:st + 4]:
            assert row[end - 1] != " " and (end == len(row) or row[end] == " "), (col, out[st:st + 4])


def test_exit_codes_say_met_or_agree(capsys, tmp_path):
    # whatif answers with 0; with --check it exits 1 where a set budget or target is not met or it is unstable
    assert main(["whatif", str(PM9A3), "-c", "c07", "--check"]) == 0
    assert main(["whatif", str(PM9A3), "-c", "c07", "--set", "budgets.core_power_mw=10"]) == 0
    assert main(["whatif", str(PM9A3), "-c", "c07", "--set", "budgets.core_power_mw=10", "--check"]) == 1
    assert main(["whatif", str(PM9A3), "-c", "c07", "--set", "budgets.min_iops=9000000", "--check"]) == 1
    assert main(["whatif", str(PM9A3), "--set", "workload.arrival_iops=2000000", "--check", "--json"]) == 1
    assert main(["whatif", str(PM9A3), "--set", "workload.arrival_iops=2000000"]) == 0
    capsys.readouterr()
    help_text = subprocess.run([sys.executable, "-m", "ssdco.cli", "--help"], capture_output=True, text=True,
                               cwd=Path(__file__).resolve().parent.parent).stdout
    codes = help_text.split("exit status:", 1)[1]
    for word in ("0  ", "1  ", "2  ", "validate AGREE", "optimize infeasible", "bad input", "whatif --check"):
        assert word in codes, word


def test_a_preset_on_the_command_line_takes_effect(capsys):
    _, plain = _whatif_json(capsys)
    _, preset = _whatif_json(capsys, "--set", 'workload.preset="jesd219"')
    assert preset["iops"] != plain["iops"]
    # a size given beside it on the command line still wins over the preset's mix
    _, sized = _whatif_json(capsys, "--set", 'workload.preset="jesd219"', "--set", "workload.request_size_kib=4",
                            "--set", 'workload.address_pattern="uniform"')
    assert sized["iops"] == plain["iops"]


def test_validate_exit_code_follows_its_verdict(capsys):
    code = main(["validate", str(PM9A3), "--controller", "c01", "--requests", "5000",
                 "--set", "workload.read_fraction=0.3"])
    out = capsys.readouterr().out
    assert code == (0 if "verdict: AGREE" in out else 1)


def test_the_seed_check_progress_bar_reaches_its_end(capsys):
    main(["validate", str(PM9A3), "-c", "c07", "--requests", "5000", "--replications", "2", "--progress", "on"])
    err = capsys.readouterr().err
    assert "2/2" in err, err[-400:]
