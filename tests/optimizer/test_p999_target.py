"""``optimize --max-p999-us``: the model's p99 estimate screens (p99.9 >= p99), the DES's measured p99.9 verifies."""

import math

import pytest

import ssdco
from ssdco.cli import main
from ssdco.optimizer.problem import Targets
from ssdco.optimizer.search import _Searcher
from tests.conftest import PM9A3

TARGETS = dict(min_iops=500_000, core_power_mw=192, dram_power_mw=800, fast=True)


def test_a_pick_whose_des_p999_misses_is_rejected_and_the_search_goes_on():
    free = ssdco.optimize(PM9A3, **TARGETS)
    p999 = free.verdict.validation.des.p999_us
    target = p999 - 1.0
    held = ssdco.optimize(PM9A3, **TARGETS, max_p999_us=target)
    assert held.targets.max_p999_us == target
    assert held.feasible and held.pick != free.pick and held.cost >= free.cost
    assert held.verdict.validation.des.p999_us <= target
    lacks = [why for c in held.runners_up if c.kind == "rejected" for why in c.lacks]
    assert f"DES p99.9 latency {p999:.2f} us > target {target:.2f} us" in lacks


def test_the_model_s_p99_screens_a_p999_target_and_the_des_s_p999_verifies_it():
    t = Targets(min_iops=0.0, core_power_mw=math.inf, dram_power_mw=math.inf, utilization_cap=0.9, queue_depth=32,
                max_p999_us=70.0)
    assert _Searcher._checks(t, 1.0, 50.0, 0.0, 0.0, "analytic", p99=75.0) == [
        "analytic p99 latency 75.00 us > the p99.9 target 70.00 us (p99.9 >= p99)"]
    assert _Searcher._checks(t, 1.0, 50.0, 0.0, 0.0, "analytic", p99=65.0) == []  # its p99.9 is unknown: the DES says
    assert _Searcher._checks(t, 1.0, 50.0, 0.0, 0.0, "DES", p99=65.0, p999=71.0) == [
        "DES p99.9 latency 71.00 us > target 70.00 us"]
    assert _Searcher._checks(t, 1.0, 50.0, 0.0, 0.0, "DES", p99=65.0, p999=69.0) == []


def test_a_p999_target_without_the_des_is_refused(capsys):
    assert main(["optimize", str(PM9A3), "--min-iops", "500000", "--max-p999-us", "100", "--no-des"]) == 2
    err = capsys.readouterr().err
    assert "--max-p999-us" in err and "leave out --no-des" in err
    with pytest.raises(ssdco.ConfigError, match="max-p999-us"):
        ssdco.optimize(PM9A3, min_iops=500_000, verify_des=False, max_p999_us=100.0)
