"""`ssdco optimize` on the command line: JSON schema, explanations with exit 0, design round trip, Pareto CSV."""

import csv
import json

import pytest

from ssdco.cli import main
from tests.conftest import PM9A3

WHATIF_KEYS = {"iops", "latency_us", "utilization", "bottleneck", "power_mw", "energy_per_io_nj", "budgets"}
# a 203-design space (Bell(6)): one core type, one core per group, one unit per accelerator
SMALL = ["--set", "optimizer.max_cores_per_group=1", "--set", 'optimizer.core_specs=["r1g"]',
         "--set", "optimizer.max_units=1"]


def test_json_has_the_documented_keys_and_des_verification(capsys):
    assert main(["optimize", str(PM9A3), "--min-iops", "500000", "--core-mw", "192", "--dram-mw", "800",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {"feasible", "cost", "design", "analytic", "des", "runners_up", "binding", "space_size",
            "solve_seconds"} <= set(doc)
    assert doc["feasible"] is True and doc["cost"] > 0
    assert WHATIF_KEYS <= set(doc["analytic"]) and doc["analytic"]["iops"] >= 500_000
    assert doc["des"]["iops"] >= 500_000 and doc["des"]["budgets"]["core_power"]["met"]
    assert doc["analytic"]["budgets"]["core_power"]["limit_mw"] == 192
    assert set(doc["design"]["placement"]) == {"parse", "cache_lookup", "translate", "dispatch", "complete"}
    assert doc["space_size"] == 198_648 and doc["cross_check"]["agree"]
    assert all(r["lacks"] for r in doc["runners_up"])
    # the pick's model-vs-DES comparison, with the DES run from four more seeds (closed deterministic work)
    mvd = doc["model_vs_des"]
    assert mvd["relative_error"]["iops"] == pytest.approx(doc["analytic"]["iops"] / doc["des"]["iops"] - 1, rel=1e-12)
    assert mvd["verdict"] == "AGREE" and mvd["agrees"] is True and mvd["tolerances"]["iops"] == 0.03
    assert len(mvd["des_replications"]["runs"]) == 4 and mvd["des_replications"]["unsettled"] is False


def test_text_reports_the_picks_model_vs_des_error(capsys):
    assert main(["optimize", str(PM9A3), "--min-iops", "500000", "--core-mw", "192", "--dram-mw", "800"]) == 0
    out = capsys.readouterr().out
    assert "model/DES" in out and "model vs DES: AGREE (IOPS " in out
    assert "4 more runs from other seeds (5,000 requests each) span" in out
    block = out[out.index("  model vs DES"):out.index("RUNNERS-UP")]
    assert max(len(line) for line in block.splitlines()) <= 118


def test_timing_spread_checks_the_pick_once_more_with_service_times_varying(capsys):
    # as validate --timing-spread: one more DES run of the pick (same requests and seed), every service time's scv
    # at least 0.01, with the model's errors against it; the verdict stays the main run's
    args = ["optimize", str(PM9A3), "--min-iops", "500000", *SMALL]
    assert main([*args, "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert plain["model_vs_des"]["des_timing_spread"] is None
    assert main([*args, "--json", "--timing-spread", "0.01"]) == 0
    doc = json.loads(capsys.readouterr().out)
    untimed = {"wall_seconds", "events_per_second"}
    assert doc["design"] == plain["design"]  # the main run is untouched
    assert {k: v for k, v in doc["des"].items() if k not in untimed} == {k: v for k, v in plain["des"].items()
                                                                         if k not in untimed}
    spread = doc["model_vs_des"]["des_timing_spread"]
    assert spread["scv"] == 0.01 and spread["iops"] != doc["des"]["iops"]
    assert spread["relative_error"]["iops"] == pytest.approx(doc["analytic"]["iops"] / spread["iops"] - 1, rel=1e-12)
    assert doc["model_vs_des"]["verdict"] == plain["model_vs_des"]["verdict"]
    assert main([*args, "--timing-spread", "0.01"]) == 0
    out = capsys.readouterr().out
    assert "DES with every service time varying (scv >= 0.01, a 10% standard deviation; same requests and seed)" in out
    block = out[out.index("  model vs DES"):out.index("RUNNERS-UP")]
    assert max(len(line) for line in block.splitlines()) <= 118
    # the same as the option in the device file
    assert main([*args, "--json", "--set", "optimizer.timing_spread_scv=0.01"]) == 0
    assert json.loads(capsys.readouterr().out)["model_vs_des"]["des_timing_spread"] == spread


def test_without_the_des_there_is_no_model_vs_des(capsys):
    assert main(["optimize", str(PM9A3), "--min-iops", "500000", "--json", "--no-des"]) == 0
    assert json.loads(capsys.readouterr().out)["model_vs_des"] is None


def test_infeasible_target_explains_with_exit_1(capsys):
    code = main(["optimize", str(PM9A3), "--min-iops", "550000", "--core-mw", "5", "--no-des"])
    out, err = capsys.readouterr()
    assert code == 1 and "Traceback" not in out + err
    assert "INFEASIBLE" in out and "core_power_mw" in out
    assert "lowest power meeting IOPS" in out and "needs" in out
    assert main(["optimize", str(PM9A3), "--min-iops", "650000", "--json", "--no-des"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["feasible"] is False and doc["design"] is None
    assert [b["name"] for b in doc["binding"] if b["binds"]] == ["min_iops"]
    assert {b["verified_by"] for b in doc["binding"]} == {"analytic"}
    assert "population_bound" in doc["infeasibility"]["violated_rows"]


def test_write_design_round_trips_through_whatif_and_validate(capsys, tmp_path):
    path = tmp_path / "pick.toml"
    assert main(["optimize", str(PM9A3), "--min-iops", "520000", "--json", "--no-des",
                 "--write-design", str(path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["files"]["design"] == str(path) and path.exists()
    assert main(["whatif", str(PM9A3), "--controller", str(path), "--json"]) == 0
    w = json.loads(capsys.readouterr().out)
    assert w["controller"] == "pick"
    assert abs(w["iops"] / doc["analytic"]["iops"] - 1) < 1e-9
    assert set(w["utilization"]) == set(doc["analytic"]["utilization"])
    assert main(["validate", str(PM9A3), "--controller", str(path), "--requests", "5000", "--json"]) == 0
    v = json.loads(capsys.readouterr().out)
    assert v["des"]["iops"] > 0


def test_pareto_csv_is_written_atomically(capsys, tmp_path):
    out = tmp_path / "front.csv"
    assert main(["optimize", str(PM9A3), "--min-iops", "400000", "--no-des", "--pareto", str(out), *SMALL]) == 0
    text = capsys.readouterr().out
    assert "PARETO FRONT" in text and str(out) in text
    rows = list(csv.DictReader(out.open()))
    assert rows and {"cost", "iops_mva", "iops_whatif", "core_power_mw", "design"} <= set(rows[0])
    costs = [float(r["cost"]) for r in rows]
    assert costs == sorted(costs)
    # non-dominated: no row is at least as good on all three axes and better on one
    pts = [(float(r["cost"]), -float(r["iops_mva"]), float(r["core_power_mw"])) for r in rows]
    for a in pts:
        assert not any(b != a and all(x <= y for x, y in zip(b, a)) for b in pts)
    assert [p.name for p in tmp_path.iterdir()] == ["front.csv"]


def test_user_errors_exit_2_without_traceback(capsys, tmp_path):
    assert main(["optimize", str(PM9A3), "--set", "optimizer.max_units=0"]) == 2
    err = capsys.readouterr().err
    assert "optimizer.max_units" in err and "Traceback" not in err
    assert main(["optimize", str(PM9A3), "--pareto", str(tmp_path / "x.csv"),
                 "--set", "optimizer.enumeration_limit=10"]) == 2
    assert "enumeration_limit" in capsys.readouterr().err
    assert not (tmp_path / "x.csv").exists()
    with pytest.raises(SystemExit) as info:  # refused by the argument parser itself, as for any bad option
        main(["optimize", str(PM9A3), "--core-mw", "-3"])
    assert info.value.code == 2
    assert "--core-mw" in capsys.readouterr().err


def test_explain_prints_the_sensitivity(capsys):
    main(["optimize", str(PM9A3), "--min-iops", "550000", "--core-mw", "55", "--no-des", "--explain"])
    out = capsys.readouterr().out
    assert "SENSITIVITY" in out and "core-side power budget = 55.0 mW  [binding]" in out
    assert "tighten:" in out and "loosen:" in out


def test_cost_and_core_specs_are_explained(capsys):
    assert main(["optimize", str(PM9A3), "--min-iops", "500000", "--core-mw", "192", "--dram-mw", "800",
                 "--no-des"]) == 0
    out = capsys.readouterr().out
    cost = next(line for line in out.splitlines() if line.strip().startswith("cost "))
    assert "relative silicon cost" in cost and "1 = one r1g core (1000 MHz)" in cost, cost
    assert "r1g (1000 MHz), r100m (100 MHz)" in out
    pick = [line for line in out.splitlines() if "software on core group" in line]
    assert pick and all("MHz" in line for line in pick), pick
    # what limits the pick's throughput, in the words of whatif
    assert "limited by: " in out and "bottleneck: analytic" not in out


def test_an_unset_iops_target_is_not_shown_as_a_target(capsys):
    # no --min-iops and budgets.min_iops = 0: the pick meets the power budgets only
    main(["optimize", str(PM9A3), "--no-des", *SMALL])
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.strip().startswith("IOPS "))
    assert ">= 0" not in row and "not set" in row, row
    assert "at 0 IOPS" not in out  # no utilisation or linear-model figures at a target that is not there


def test_pareto_csv_of_the_whole_space_has_no_dominated_row(capsys, tmp_path):
    # costs summed in another order differ in their last digit; the CSV prints them equal
    out = tmp_path / "front.csv"
    main(["optimize", str(PM9A3), "--min-iops", "500000", "--no-des", "--pareto", str(out)])
    capsys.readouterr()
    pts = [(float(r["cost"]), -float(r["iops_mva"]), float(r["core_power_mw"])) for r in csv.DictReader(out.open())]
    dominated = [a for a in pts if any(b != a and all(x <= y for x, y in zip(b, a)) for b in pts)]
    assert not dominated


def test_an_unset_power_budget_is_not_set_rather_than_unlimited_and_met():
    import tomllib

    from ssdco.optimizer import optimize
    from ssdco.report.optimize import format_text
    from ssdco.spec import config_from_dict

    raw = tomllib.loads(PM9A3.read_text())
    del raw["budgets"]["dram_power_mw"]
    raw["optimizer"].update(max_cores_per_group=1, core_specs=["r1g"], max_units=1, verify_des=False)
    res = optimize(config_from_dict(raw, source=str(PM9A3), base_dir=PM9A3.parent), min_iops=300_000)
    text = format_text(res)
    row = next(line for line in text.splitlines() if line.strip().startswith("DRAM power (mW)"))
    assert row.rstrip().endswith("not set") and "unlimited" not in text, row
    assert "DRAM power not set" in text.splitlines()[1]
