"""Calibration targets: the file's errors, hidden parameters recovered from absolute and ratio targets, standard
errors from stated tolerances, and the PM9A3 preset as a run of ``ssdco calibrate`` on the study's targets."""

import json
import tomllib

import pytest

from ssdco import evaluate, load_config
from ssdco.calibration.fit import fit
from ssdco.calibration.measurements import Point
from ssdco.calibration.params import resolve_parameters
from ssdco.calibration.targets import Target, predict_target, read_targets
from ssdco.cli import main
from ssdco.errors import ConfigError
from tests.conftest import CONFIGS, PM9A3

STUDY_TARGETS = CONFIGS / "targets" / "pm9a3-study.toml"
STUDY_FIT = "modules.translate.cycles,core_specs.r1g.idle_mw"
QD8 = ("workload.queue_depth=8",)


@pytest.fixture(scope="module")
def c01():
    return load_config(PM9A3, controller="c01", overrides=list(QD8))


def _write(tmp_path, text: str):
    path = tmp_path / "targets.toml"
    path.write_text(text)
    return path


GOOD = 'quantity = "iops"\nvalue = 1.0\n'


@pytest.mark.parametrize("text, field, allowed", [
    ("[[target]]\n" + GOOD + "colour = 1\n", "target[0].colour", "unknown key"),
    ('[[target]]\nquantity = "watts"\nvalue = 1.0\n', "target[0].quantity", "expected one of iops"),
    ('[[target]]\nquantity = "iops"\n', "target[0].value", "target's value"),
    ('[[target]]\nquantity = "iops"\nvalue = -2\n', "target[0].value", "> 0"),
    ('[[target]]\nquantity = "iops"\nvalue = true\n', "target[0].value", "> 0"),
    ("[[target]]\n" + GOOD + "tolerance = 0\n", "target[0].tolerance", "> 0"),
    ("[[target]]\n" + GOOD + 'controller = "c02"\nrelative_to = "c02"\n', "target[0].relative_to", "itself"),
    ("[[target]]\n" + GOOD + 'set = "workload.queue_depth=8"\n', "target[0].set", "list"),
    ("[[target]]\n" + GOOD + 'controller = ""\n', "target[0].controller", "non-empty"),
    ("[[target]]\n" + GOOD + "[[target]]\nvalue = 1.0\n", "target[1].quantity", "expected one of"),
    ("name = 'x'\n", "name", "only [[target]]"),
    ("target = 3\n", "target", "one or more"),
    ("[[target]\n", "<syntax>", "TOML"),
])
def test_a_bad_target_file_names_the_file_field_and_what_is_allowed(tmp_path, text, field, allowed):
    path = _write(tmp_path, text)
    with pytest.raises(ConfigError) as e:
        read_targets(path)
    assert e.value.source == str(path) and e.value.field == field and allowed in e.value.allowed


def test_the_study_targets_read_as_written():
    targets = read_targets(STUDY_TARGETS)
    assert [(t.controller, t.relative_to, t.quantity) for t in targets] == [
        ("c01", None, "iops"), ("c02", "c01", "iops"), ("c02", "c01", "core_side_mw")]
    assert all(t.tolerance > 0 and "workload.queue_depth=32" in t.overrides for t in targets)
    assert targets[0].unit == "I/O per second" and targets[1].unit == "ratio"


def test_a_ratio_target_is_the_quotient_of_the_two_controllers(c01):
    t = Target(name="r", quantity="core_side_mw", value=1.0, controller="c02", relative_to="c01", overrides=QD8)
    c02 = evaluate(load_config(PM9A3, controller="c02", overrides=list(QD8)))
    assert predict_target(c01, t) == pytest.approx(c02.power.core_side_mw / evaluate(c01).power.core_side_mw,
                                                   rel=1e-12)


def _target_at(hidden: dict[str, float], quantity: str, controller: str, relative_to: str | None = None,
               tolerance: float | None = None) -> Target:
    """A target whose value is the model's with the hidden parameter values."""
    config = load_config(PM9A3, controller="c01", overrides=list(QD8) + [f"{k}={v!r}" for k, v in hidden.items()])
    probe = Target(name=quantity, quantity=quantity, value=1.0, controller=controller, relative_to=relative_to,
                   overrides=QD8)
    return Target(name=f"{controller} {quantity}", quantity=quantity, value=predict_target(config, probe),
                  controller=controller, relative_to=relative_to, tolerance=tolerance, overrides=QD8, source="test")


def test_hidden_values_are_recovered_from_an_absolute_and_a_ratio_target(c01):
    hidden = {"modules.translate.cycles": 420.0, "core_specs.r1g.idle_mw": 20.0}
    targets = [_target_at(hidden, "core_side_mw", "c01"), _target_at(hidden, "iops", "c02", relative_to="c01")]
    params = resolve_parameters(c01, ",".join(hidden))
    cal = fit(c01, params, [], targets=targets, effort="fast")
    assert cal.status > 0 and not cal.unidentifiable and cal.dof == 0 and not cal.known_uncertainty
    for p in cal.parameters:
        assert p.value == pytest.approx(hidden[p.path], rel=1e-4), p
    assert [abs(tf.error) < 1e-6 for tf in cal.targets] == [True, True]
    assert all(abs(tf.start / tf.target.value - 1) > 0.01 for tf in cal.targets)  # the start values did not fit


def test_a_stated_tolerance_gives_the_propagated_standard_error(c01):
    """One target, one parameter: SE = tolerance x value / |d quantity / d parameter| (the slope measured here)."""
    hidden, tolerance = {"core_specs.r1g.idle_mw": 20.0}, 0.02
    target = _target_at(hidden, "core_side_mw", "c01", tolerance=tolerance)
    cal = fit(c01, resolve_parameters(c01, "core_specs.r1g.idle_mw"), [], targets=[target], effort="fast")
    assert cal.known_uncertainty and cal.dof == 0
    (p,) = cal.parameters
    assert p.value == pytest.approx(20.0, rel=1e-4)
    slope = (_target_at({"core_specs.r1g.idle_mw": 21.0}, "core_side_mw", "c01").value
             - _target_at({"core_specs.r1g.idle_mw": 19.0}, "core_side_mw", "c01").value) / 2.0
    assert p.standard_error == pytest.approx(tolerance * target.value / abs(slope), rel=1e-3)


def test_tolerances_on_some_targets_only_or_beside_points_are_refused(c01):
    params = resolve_parameters(c01, "core_specs.r1g.idle_mw")
    with_tol = _target_at({}, "core_side_mw", "c01", tolerance=0.01)
    without = _target_at({}, "dram_mw", "c01")
    with pytest.raises(ConfigError, match="every target"):
        fit(c01, params, [], targets=[with_tol, without], effort="fast")
    point = Point(queue_depth=8, read_fraction=1.0, iops=1e5, mean_latency_us=80.0, source="p")
    with pytest.raises(ConfigError, match="no measured points"):
        fit(c01, params, [point], targets=[with_tol], effort="fast")


def test_a_parameter_no_target_depends_on_is_unidentifiable(c01):
    targets = [_target_at({}, "core_side_mw", "c01"), _target_at({}, "iops", "c02", relative_to="c01")]
    cal = fit(c01, resolve_parameters(c01, "host.phy_mw,core_specs.r1g.idle_mw"), [], targets=targets,
              effort="fast")
    assert [u.parameters for u in cal.unidentifiable] == [("host.phy_mw",)]


def test_a_target_the_configuration_cannot_take_is_refused(c01):
    bad = Target(name="x", quantity="iops", value=1.0, controller="c99", source="t.toml target[0]")
    with pytest.raises(ConfigError) as e:
        fit(c01, resolve_parameters(c01, "nand.t_read_us"), [], targets=[bad], effort="fast")
    assert e.value.source == "t.toml target[0]" and "c99" in str(e.value)


def test_the_pm9a3_preset_is_a_run_of_calibrate_on_the_study_targets(capsys, tmp_path):
    """configs/CALIBRATION.md: the preset's calibrated fields are this command's fit, rounded well inside a tenth of
    a standard error; the fit meets the study's ratios, and the DES agrees on the fitted design."""
    png = tmp_path / "fit.png"
    code = main(["calibrate", str(PM9A3), "--targets", str(STUDY_TARGETS), "--fit", STUDY_FIT, "--json",
                 "--des-check", "--des-requests", "50000", "--plot", str(png)])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["identifiable"] and doc["known_uncertainty"] and doc["dof"] == 1
    preset = tomllib.loads(PM9A3.read_text())
    for p in doc["parameters"]:
        table, key = p["path"].rsplit(".", 1)
        node = preset
        for part in table.split("."):
            node = node[part]
        assert abs(node[key] - p["value"]) <= 0.1 * p["standard_error"], p
    errors = {t["name"]: t["error"] for t in doc["targets"]}
    assert abs(errors["c02 / c01 IOPS: -19 %"]) < 1e-3 and abs(errors["c02 / c01 core power: -41 %"]) < 1e-3
    assert abs(errors["c01 IOPS: slightly below the PM9A3's 580,000"]) < 0.04  # within its tolerance
    assert all(abs(d["difference"]) < 0.01 for d in doc["des_target_check"])
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_cli_needs_measured_points_or_targets(capsys):
    assert main(["calibrate", str(PM9A3), "--fit", "nand.t_read_us"]) == 2
    assert "--targets" in capsys.readouterr().err


def test_cli_text_report_shows_the_targets_and_their_des_check(capsys):
    code = main(["calibrate", str(PM9A3), "--targets", str(STUDY_TARGETS), "--fit", STUDY_FIT, "--fast",
                 "--des-check", "--des-requests", "5000"])
    out = capsys.readouterr().out
    assert code == 0
    for words in ("3 target(s)", "c02 / c01 core power: -41 %", "chi-square", "known uncertainty",
                  "DES check of the targets"):
        assert words in out
