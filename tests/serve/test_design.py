"""The page's controls and the design they describe (no web framework needed)."""

import json
import math
import re
import tomllib

import pytest

from ssdco.cli import main
from ssdco.model.whatif import evaluate
from ssdco.serve.design import ACCELERATOR, answer, controls_for, design_from_values, design_toml, slot_names
from ssdco.spec import load_config
from tests.conftest import PM9A3


@pytest.fixture(scope="module")
def c01():
    return load_config(PM9A3, controller="c01")


def test_controls_start_at_the_configuration_and_the_unchanged_design_answers_as_whatif(c01):
    controls = controls_for(c01)
    values = {c.id: c.value for c in controls}
    assert values["nand-channels"] == c01.nand.channels and values["workload-queue_depth"] == 32
    assert values["place-cache_lookup"] == "cache" and values["spec-1"] == "r1g"
    a = answer(c01, design_from_values(c01, controls, {}))
    assert a.error == "" and a.result.iops == evaluate(c01, effort="fast").iops


def test_moving_modules_to_accelerators_gives_the_preset_with_the_same_split(c01):
    controls = controls_for(c01)
    raw = design_from_values(c01, controls, {"place-parse": ACCELERATOR, "place-cache_lookup": ACCELERATOR})
    table = raw["controller"]
    assert table["accelerators"] == {"parse": 1, "cache_lookup": 1}
    assert [g["modules"] for g in table["core_groups"]] == [["translate"], ["dispatch"], ["complete"]]
    c07 = load_config(PM9A3, controller="c07")  # parse and cache lookup in hardware, the rest on one core each
    assert answer(c01, raw).result.iops == pytest.approx(evaluate(c07, effort="fast").iops, rel=1e-12)


def test_modules_placed_on_one_slot_share_its_cores(c01):
    controls = controls_for(c01)
    raw = design_from_values(c01, controls, {"place-translate": "dispatch", "count-3": 2, "spec-3": "r100m"})
    groups = {g["name"]: g for g in raw["controller"]["core_groups"]}
    assert groups["dispatch"] == {"name": "dispatch", "spec": "r100m", "count": 2, "modules": ["translate", "dispatch"]}
    assert "ftl" not in groups  # a slot with no module is no core group
    assert len(slot_names(c01)) == 5


def test_nand_and_workload_values_reach_the_model(c01):
    controls = controls_for(c01)
    base = answer(c01, design_from_values(c01, controls, {})).result
    qd1 = answer(c01, design_from_values(c01, controls, {"workload-queue_depth": "1"})).result
    assert qd1.queue_depth == 1 and qd1.iops < base.iops / 5
    slow = answer(c01, design_from_values(c01, controls, {"nand-t_read_us": 500.0})).result
    assert slow.iops < base.iops and slow.latency_mean_us > base.latency_mean_us


@pytest.mark.parametrize("control, value, words", [
    ("nand-channels", "0", "channels: '0' is not an integer in [1, 64]"),
    ("nand-channels", 2.5, "channels: 2.5 is not an integer in [1, 64]"),
    ("nand-t_read_us", None, "tR (array read): no value (empty, or outside the field's range); expected a number in "
                             "[1, 10000]"),
    ("workload-read_fraction", 1.5, "read share: 1.5 is not a number in [0, 1]"),
    ("place-parse", "nowhere", "parse: 'nowhere' is not one of accelerator, parse, cache"),
    ("workload-request_size_kib", 3, "request size: 3 is not one of 4"),
])
def test_a_value_a_control_does_not_allow_is_refused_by_name(c01, control, value, words):
    with pytest.raises(ValueError, match="^" + re.escape(words)):
        design_from_values(c01, controls_for(c01), {control: value})


def test_a_design_the_configuration_refuses_gives_its_error_not_an_answer(c01):
    raw = design_from_values(c01, controls_for(c01), {})
    raw["nand"]["page_size_kib"] = 2  # smaller than the 4 KiB mapping unit
    a = answer(c01, raw)
    assert a.result is None and "page_size_kib" in a.error


def test_an_open_workload_offers_its_rate_instead_of_a_queue_depth():
    config = load_config(PM9A3, controller="c01", overrides=["workload.arrival_iops=100000"])
    ids = {c.id for c in controls_for(config)}
    assert "workload-arrival_iops" in ids and "workload-queue_depth" not in ids
    r = answer(config, design_from_values(config, controls_for(config), {"workload-arrival_iops": 50_000})).result
    assert r.workload == "open" and r.iops == pytest.approx(50_000)


def test_the_downloaded_design_loads_by_itself_and_answers_as_on_the_page(c01, tmp_path, capsys):
    controls = controls_for(c01)
    raw = design_from_values(c01, controls, {"place-parse": ACCELERATOR, "nand-channels": 4,
                                             "workload-queue_depth": 64, "workload-read_fraction": 0.7})
    text = design_toml(c01, raw)
    assert text.startswith("# Designed in ssdco serve from ") and tomllib.loads(text) == raw
    path = tmp_path / "design.toml"
    path.write_text(text, encoding="utf-8")
    assert main(["whatif", str(path), "--fast", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    page = answer(c01, raw).result
    assert doc["controller"] == "serve" and math.isclose(doc["iops"], page.iops, rel_tol=1e-12)
