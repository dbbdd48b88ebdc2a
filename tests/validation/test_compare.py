"""``validate --timing-spread``: the DES once more with every service time varying, and what it says."""

from dataclasses import replace

import pytest

from ssdco.model.solvers import all_but
from ssdco.model.whatif import evaluate
from ssdco.spec import Variability, config_from_dict
from ssdco.validation import compare
from ssdco.validation.compare import MAX_TIMING_SPREAD_SCV, validate, with_timing_spread
from tests.gallery import gallery


def _in_step():
    return config_from_dict(gallery("writes-in-step-with-an-accelerator-between"), source="<writes in step>")


def test_the_spread_raises_every_scv_to_at_least_its_value_and_keeps_larger_ones():
    config = replace(_in_step(), variability=Variability(firmware_scv=0.0, nand_scv=0.5, host_scv=0.001))
    spread = with_timing_spread(config, 0.01)
    assert spread.variability == Variability(firmware_scv=0.01, nand_scv=0.5, host_scv=0.01)
    assert replace(spread, variability=config.variability) == config  # nothing else changes


@pytest.mark.parametrize("scv", [0.0, -0.01, float("nan"), float("inf"), MAX_TIMING_SPREAD_SCV * 2])
def test_a_spread_outside_its_range_is_refused_before_anything_runs(scv, monkeypatch):
    with pytest.raises(ValueError, match="timing spread: expected an scv > 0"):
        with_timing_spread(_in_step(), scv)
    monkeypatch.setattr(compare, "simulate", lambda *a, **k: pytest.fail("the DES ran"))
    with pytest.raises(ValueError, match="timing spread: expected an scv > 0"):
        validate(_in_step(), requests=20_000, timing_spread_scv=scv)


def test_requests_in_step_part_once_the_timings_vary_and_leave_the_stages_answer():
    # writes at QD 44 in step at two slow cores (Hypothesis seed 20261312 #75): the route MVA is 44 % above the
    # deterministic DES, and the platoon stage, which answers there, agrees with it. With a 30 % standard
    # deviation in every service time the requests part, and the DES comes up to the route MVA's figure (route
    # MVA against the DES, 100,000 requests: +43.7 % with constant timings, +0.2 % with the spread): the agreement
    # holds for exactly constant timings, and the check says so
    v = validate(_in_step(), requests=60_000, seed=3, replications=0, timing_spread_scv=0.1)
    assert v.analytic.method == "platoon-stage" and v.verdict == "AGREE"
    t = v.timing_spread
    assert t.scv == 0.1 and not t.agrees and t.relative_error["iops"] < -0.25
    assert t.relative_error["iops"] == pytest.approx(v.analytic.iops / t.des.iops.value - 1.0, rel=1e-12)
    assert evaluate(_in_step(), solvers=all_but("platoon-stage")).iops == pytest.approx(t.des.iops.value, rel=0.03)
    assert compare.timing_spread_note(v).startswith("spread: with varying service times the DES leaves the model's")
    assert set(t.utilization_error) == set(v.utilization_error)
    doc = v.to_dict()["des_timing_spread"]
    assert doc["scv"] == 0.1 and doc["agrees"] is False and doc["iops"] == t.des.iops.value
    # a small spread does not part them: the check can pass
    small = validate(_in_step(), requests=60_000, seed=3, replications=0, timing_spread_scv=0.001).timing_spread
    assert small.agrees and abs(small.relative_error["iops"]) < 0.03


def test_the_spread_run_is_reproducible_and_absent_unless_asked_for():
    a = validate(_in_step(), requests=20_000, seed=5, replications=0, timing_spread_scv=0.01).timing_spread
    b = validate(_in_step(), requests=20_000, seed=5, replications=0, timing_spread_scv=0.01).timing_spread
    assert a.des.iops.value == b.des.iops.value and a.des.mean_latency_us.value == b.des.mean_latency_us.value
    plain = validate(_in_step(), requests=20_000, seed=5, replications=0)
    assert plain.timing_spread is None and plain.to_dict()["des_timing_spread"] is None


def test_adding_the_check_afterwards_is_the_same_as_asking_for_it():
    # the optimizer adds the check to its pick's verification (compare.with_timing_spread_check), so that
    # optimize --timing-spread and validate --timing-spread on the pick agree
    from ssdco.validation.compare import with_timing_spread_check

    asked = validate(_in_step(), requests=20_000, seed=5, replications=0, timing_spread_scv=0.01)
    added = with_timing_spread_check(validate(_in_step(), requests=20_000, seed=5, replications=0), 0.01,
                                     requests=20_000, seed=5)
    assert added.timing_spread.to_dict() == asked.timing_spread.to_dict()
    assert added.relative_error == asked.relative_error
    with pytest.raises(ValueError, match="timing spread: expected an scv > 0"):
        with_timing_spread_check(asked, 0.0, requests=20_000, seed=5)
