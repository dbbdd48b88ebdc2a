"""The whole drive's power budget in ``ssdco optimize``: checked on each verified design, not in the linear model."""

import json

import pytest

import ssdco
from ssdco.cli import main
from tests.conftest import PM9A3

TARGETS = dict(min_iops=500_000, core_power_mw=192, dram_power_mw=800, verify_des=False, fast=True)


@pytest.fixture(scope="module")
def free():
    return ssdco.optimize(PM9A3, **TARGETS)


def test_a_drive_budget_just_under_the_pick_rejects_it_and_the_search_goes_on(free):
    drive = free.verdict.analytic.power.drive_mw
    assert free.feasible and free.targets.drive_power_mw == float("inf")
    tight = ssdco.optimize(PM9A3, **TARGETS, overrides=[f"budgets.drive_power_mw={drive - 1.0}"])
    assert tight.targets.drive_power_mw == drive - 1.0
    assert tight.feasible and tight.pick != free.pick and tight.cost >= free.cost
    assert tight.verdict.analytic.power.drive_mw <= drive - 1.0
    rejected = [c for c in tight.runners_up if c.kind == "rejected"]
    assert any("whole-drive power" in why for c in rejected for why in c.lacks)


def test_no_design_under_a_drive_budget_below_the_static_power_is_feasible():
    # the SoC's static power and the PHY alone exceed it: nothing qualifies, and the result says why
    r = ssdco.optimize(PM9A3, **TARGETS, overrides=["budgets.drive_power_mw=2000"])
    assert not r.feasible


def test_optimize_drive_mw_on_the_command_line(free, capsys):
    drive = free.verdict.analytic.power.drive_mw
    assert main(["optimize", str(PM9A3), "--min-iops", "500000", "--core-mw", "192", "--dram-mw", "800", "--no-des",
                 "--fast", "--drive-mw", f"{drive - 1.0}", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["targets"]["drive_power_mw"] == pytest.approx(drive - 1.0)
    assert doc["analytic"]["power_mw"]["drive"] <= drive - 1.0


def test_whatif_check_fails_on_a_drive_budget_not_met(capsys):
    assert main(["whatif", str(PM9A3), "-c", "c07", "--check", "--set", "budgets.drive_power_mw=3000"]) == 1
    assert "drive_power" in capsys.readouterr().out
