"""``whatif --sensitivity`` (``ssdco.sensitivity``): elasticities by central differences of the model."""

import json
import math

import pytest

from ssdco import evaluate, load_config
from ssdco.cli import main
from ssdco.errors import ConfigError
from ssdco.sensitivity import elasticities, numeric_parameters, sensitivity_table
from tests.conftest import PM9A3

FEW = ["--sensitivity-parameters", "nand.t_read_us,modules.parse.cycles,core_specs.r1g.active_mw"]


def finite_difference(parameter: str, value: float, step: float) -> float:
    """d ln IOPS / d ln p of ``whatif`` on c01, by a central difference of relative ``step``."""
    up = evaluate(load_config(PM9A3, controller="c01", overrides=[f"{parameter}={value * (1 + step)!r}"])).iops
    down = evaluate(load_config(PM9A3, controller="c01", overrides=[f"{parameter}={value * (1 - step)!r}"])).iops
    base = evaluate(load_config(PM9A3, controller="c01")).iops
    return (up - down) / (2 * step * base)


def test_the_elasticities_of_c01s_iops_match_a_finite_difference_of_whatif():
    config = load_config(PM9A3, controller="c01")
    s = elasticities(config, parameters=("nand.t_read_us", "modules.cache_lookup.cycles"))
    by_name = {e.parameter: e for e in s.varied}
    for parameter in ("nand.t_read_us", "modules.cache_lookup.cycles"):
        e = by_name[parameter]
        assert e.by_figure["iops"] == pytest.approx(finite_difference(parameter, e.value, 0.005), rel=0.01)
    assert by_name["nand.t_read_us"].by_figure["iops"] < 0  # slower reads, fewer IOPS
    assert s.base["iops"] == pytest.approx(evaluate(config).iops)
    # IOPS and mean latency move in opposite directions by the same share at a fixed queue depth (Little's law)
    e = by_name["nand.t_read_us"].by_figure
    assert e["latency_mean_us"] == pytest.approx(-e["iops"], rel=1e-3)


def test_integers_and_zeros_are_not_varied_and_say_why():
    config = load_config(PM9A3, controller="c01")
    params = dict(numeric_parameters(config.raw))
    assert "nand.channels" in params and "workload.queue_depth" not in params and "budgets.core_power_mw" not in params
    s = elasticities(config, parameters=("nand.channels", "modules.complete.dram_accesses_per_visit",
                                         "dram.background_mw_per_gib"))
    reasons = dict(s.not_varied)
    assert "integer" in reasons["nand.channels"]
    assert "0" in reasons["modules.complete.dram_accesses_per_visit"]
    (dram,) = s.varied
    assert dram.by_figure["iops"] == 0.0 and dram.by_figure["dram_mw"] > 0  # DRAM power only
    text = sensitivity_table(s)
    assert "dram.background_mw_per_gib" in text and "nand.channels" in text


def test_an_unknown_parameter_or_a_bad_step_is_refused():
    config = load_config(PM9A3, controller="c01")
    with pytest.raises(ConfigError, match="numeric field"):
        elasticities(config, parameters=("nand.t_raed_us",))
    with pytest.raises(ConfigError, match=r"\(0, 0.5\)"):
        elasticities(config, step=0.7)


def test_whatif_prints_and_serialises_the_sensitivity(capsys):
    args = ["whatif", str(PM9A3), "-c", "c09", "--fast", "--sensitivity", *FEW]
    assert main([*args, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    top = doc["sensitivity"]["varied"][0]
    assert set(top["elasticity"]) == {"iops", "latency_mean_us", "core_side_mw", "dram_mw", "energy_per_io_nj",
                                      "drive_mw"}
    assert all(math.isfinite(v) for v in top["elasticity"].values())
    assert main(args) == 0
    assert "SENSITIVITY" in capsys.readouterr().out
    assert main([*args, "--sensitivity-step", "0.9"]) == 2
    assert main(["whatif", str(PM9A3), "--sensitivity-parameters", "nand.t_read_us"]) == 2  # needs --sensitivity
    assert main(["whatif", str(PM9A3), "--sensitivity", "--sensitivity-parameters", "nand.t_raed_us"]) == 2


def test_optimize_gives_the_picks_sensitivity(capsys):
    args = ["optimize", str(PM9A3), "--min-iops", "200000", "--no-des", "--fast", "--sensitivity", *FEW,
            "--set", "optimizer.max_cores_per_group=1", "--set", 'optimizer.core_specs=["r1g"]',
            "--set", "optimizer.max_units=1"]
    assert main([*args, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["sensitivity"]["base"]["iops"] == pytest.approx(doc["analytic"]["iops"], rel=1e-9)
    varied = doc["sensitivity"]["varied"]
    assert {v["parameter"] for v in varied} == {"nand.t_read_us", "modules.parse.cycles", "core_specs.r1g.active_mw"}
    iops = [abs(v["elasticity"]["iops"]) for v in varied]
    assert iops == sorted(iops, reverse=True)  # the most influential on IOPS first
    assert main(args) == 0
    assert "SENSITIVITY OF THE PICK" in capsys.readouterr().out


def test_break_even_finds_where_the_answer_changes_in_each_direction():
    from ssdco.sensitivity import BREAK_EVEN_BISECTIONS, break_even

    config = load_config(PM9A3, controller="c01")
    t_read = config.nand.t_read_us

    def decide(c):  # a threshold above the value only: the answer changes going up, never going down
        return "fast reads" if c.nand.t_read_us < 1.2 * t_read else "slow reads"

    b = break_even(config, "nand.t_read_us", decide)
    assert b.value == t_read and b.up_answer == "slow reads" and b.down is None and b.down_answer is None
    # the bracket 1.1-1.25 halved BREAK_EVEN_BISECTIONS times (in log scale) around the threshold 1.2
    width = (1.25 / 1.1) ** (1 / 2 ** BREAK_EVEN_BISECTIONS)
    assert 1.2 <= b.up <= 1.2 * width
    with pytest.raises(ConfigError):
        break_even(config, "modules.complete.dram_accesses_per_visit", decide)  # zero: no relative move


def test_optimize_break_even_needs_sensitivity_and_reports_each_direction(capsys):
    args = ["optimize", str(PM9A3), "--min-iops", "200000", "--no-des", "--fast",
            "--set", "optimizer.max_cores_per_group=1", "--set", 'optimizer.core_specs=["r1g"]',
            "--set", "optimizer.max_units=1"]
    assert main([*args, "--break-even", "1"]) == 2
    assert main([*args, "--sensitivity", *FEW, "--break-even", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (row,) = doc["break_even"]
    assert row["parameter"] == doc["sensitivity"]["varied"][0]["parameter"]
    for factor, answer in ((row["up"], row["up_answer"]), (row["down"], row["down_answer"])):
        assert factor is None or answer != doc["design"]["label"]


def test_the_tornado_chart_is_written_and_needs_sensitivity(tmp_path, capsys):
    png = tmp_path / "tornado.png"
    args = ["whatif", str(PM9A3), "-c", "c09", "--fast", "--sensitivity", "--sensitivity-plot", str(png), *FEW]
    assert main(args) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and "tornado" in capsys.readouterr().err
    assert main(["whatif", str(PM9A3), "--sensitivity-plot", str(tmp_path / "x.png")]) == 2
    assert "--sensitivity" in capsys.readouterr().err and not (tmp_path / "x.png").exists()


GLOBAL = "nand.t_read_us=40:60,host.phy_mw=400:600,core_specs.r1g.active_mw=80:120"


@pytest.fixture(scope="module")
def screening():
    pytest.importorskip("SALib")
    from ssdco.sensitivity import global_sensitivity, parse_ranges

    return global_sensitivity(load_config(PM9A3, controller="c01"), parse_ranges(GLOBAL), trajectories=6, seed=1)


def test_morris_screening_separates_what_moves_each_figure(screening):
    pytest.importorskip("SALib")
    by = {e.parameter: e for e in screening.effects}
    assert screening.evaluations == 6 * (3 + 1) and [e.parameter for e in screening.effects][0] == "nand.t_read_us"
    # the PHY's power only adds to the drive's, one for one: mu* is its whole range, with no spread
    phy = by["host.phy_mw"]
    assert phy.mu_star["drive_mw"] == pytest.approx(200.0) and phy.sigma["drive_mw"] == pytest.approx(0.0, abs=1e-9)
    assert phy.mu_star["iops"] == phy.mu_star["core_side_mw"] == 0.0
    # a core's active power moves core power, never IOPS; tR moves IOPS and latency
    assert by["core_specs.r1g.active_mw"].mu_star["iops"] == 0.0 < by["core_specs.r1g.active_mw"].mu_star[
        "core_side_mw"]
    t_read = by["nand.t_read_us"]
    assert t_read.mu_star["iops"] > 0 and t_read.mu_star["latency_mean_us"] > 0


def test_the_screening_repeats_from_its_seed(screening):
    from ssdco.sensitivity import global_sensitivity, parse_ranges

    again = global_sensitivity(load_config(PM9A3, controller="c01"), parse_ranges(GLOBAL), trajectories=6, seed=1)
    assert again == screening


@pytest.mark.parametrize("text, words", [
    ("nand.t_read_us=60:40,host.phy_mw=1:2", "LOW < HIGH"),
    ("nand.t_read_us=40:60", "at least two"),
    ("nand.t_read_us=40:x,host.phy_mw=1:2", "PATH=LOW:HIGH"),
])
def test_bad_ranges_are_refused(text, words):
    from ssdco.sensitivity import parse_ranges

    with pytest.raises(ConfigError, match=words):
        parse_ranges(text)


def test_whatif_prints_and_serialises_the_screening(capsys):
    pytest.importorskip("SALib")
    args = ["whatif", str(PM9A3), "-c", "c07", "--fast", "--sensitivity-global",
            "nand.t_read_us=40:60,modules.translate.cycles=200:400", "--trajectories", "3"]
    assert main([*args, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)["global_sensitivity"]
    assert doc["method"] == "morris" and doc["designs"] == 9
    assert [e["parameter"] for e in doc["effects"]] == ["nand.t_read_us", "modules.translate.cycles"]
    assert main(args) == 0
    assert "GLOBAL SENSITIVITY (Morris, SALib: 3 trajectories, 9 designs, seed 0)" in capsys.readouterr().out
    assert main(["whatif", str(PM9A3), "--sensitivity-global", "nand.t_read_us=40:60,nand.bogus=1:2"]) == 2
    assert "nand.bogus" in capsys.readouterr().err
