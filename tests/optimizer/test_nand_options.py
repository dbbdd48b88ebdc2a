"""The NAND geometry as an optimizer decision (``[optimizer.nand]``): the variants it makes, their capacity and cost,
the device-alone bound that rules a variant out at once, and the pick against brute force over every geometry."""

import json
import math

import pytest

from ssdco.cli import main
from ssdco.model.whatif import evaluate
from ssdco.optimizer import optimize
from ssdco.optimizer.search import device_only_iops
from ssdco.optimizer.space import DesignSpace
from ssdco.spec import load_config
from tests.conftest import PM9A3
from tests.optimizer.test_search import _brute_force_cost

GEOMETRY = {"channels": [4, 8, 16], "ways_per_channel": [2, 4, 8]}
COSTS = ["nand.cost_per_channel=0.5", "nand.cost_per_die=0.05"]
# a 203-design space (Bell(6)) per geometry keeps the brute force quick
SMALL = {"max_cores_per_group": 1, "core_specs": ["r1g"], "max_units": 1, "verify_des": False}
TARGET_IOPS = 500_000  # the study's target


def pm9a3(*overrides):
    return load_config(PM9A3, overrides=[*COSTS, *overrides])


def raw_bytes(nand) -> float:
    return nand.dies * nand.planes_per_die * nand.blocks_per_plane * nand.pages_per_block * nand.page_size_kib


def test_every_combination_is_a_variant_at_the_configured_capacity_cheapest_first():
    config = pm9a3()
    variants = DesignSpace.from_config(config, {"nand": GEOMETRY}).device_variants
    assert len(variants) == 9
    geometries = [(v.config.nand.channels, v.config.nand.ways_per_channel) for v in variants]
    assert sorted(geometries) == [(c, w) for c in (4, 8, 16) for w in (2, 4, 8)]
    costs = [v.config.nand.cost for v in variants]
    assert costs == sorted(costs)
    assert variants[0].name == "4 ch x 2 ways x 1 dies x 4 planes"
    assert variants[0].config.nand.cost == pytest.approx(4 * 0.5 + 8 * 0.05)
    for v in variants:  # as much raw capacity as configured, within one block per plane
        assert raw_bytes(config.nand) <= raw_bytes(v.config.nand) < raw_bytes(config.nand) * (
            1 + 1 / v.config.nand.blocks_per_plane)
        assert v.config.nand.page_size_kib == config.nand.page_size_kib
        assert "nand" not in v.config.raw["optimizer"]
    # combined with mapping options: every geometry x every mapping
    both = DesignSpace.from_config(config, {"nand": {"channels": [4, 8]}, "dram": {"mappings": ["full", "dftl"],
                                                                                 "cache_fractions": [0.1]}})
    assert [v.name for v in both.device_variants] == [
        "4 ch x 4 ways x 1 dies x 4 planes / full table", "4 ch x 4 ways x 1 dies x 4 planes / dftl f=0.1",
        "8 ch x 4 ways x 1 dies x 4 planes / full table", "8 ch x 4 ways x 1 dies x 4 planes / dftl f=0.1"]


@pytest.mark.parametrize("controller", ["c01", "c05", "c09"])
def test_the_device_alone_bounds_every_controller(controller):
    for ways in (2, 4):
        config = load_config(PM9A3, controller=controller, overrides=[f"nand.ways_per_channel={ways}"])
        assert evaluate(config).iops <= device_only_iops(config) * (1 + 1e-9)


@pytest.fixture(scope="module")
def searched():
    return optimize(pm9a3(), min_iops=TARGET_IOPS, options={**SMALL, "nand": GEOMETRY})


def test_the_pick_is_the_cheapest_over_brute_force_of_every_geometry(searched):
    """Each geometry built on its own from the file (``--set``) and searched by listing its designs: the cheapest
    passing design over all nine is the optimizer's pick."""
    base = load_config(PM9A3).nand
    best = {}
    for channels in GEOMETRY["channels"]:
        for ways in GEOMETRY["ways_per_channel"]:
            blocks = math.ceil(base.blocks_per_plane * base.dies / (channels * ways))
            config = pm9a3(f"nand.channels={channels}", f"nand.ways_per_channel={ways}",
                           f"nand.blocks_per_plane={blocks}",
                           *[f"optimizer.{k}={json.dumps(v)}" for k, v in SMALL.items()])
            best[(channels, ways)] = _brute_force_cost(config, TARGET_IOPS)
    feasible = {g: c for g, c in best.items() if c is not None}
    assert searched.feasible and feasible
    assert searched.cost == pytest.approx(min(feasible.values()), rel=1e-9)
    for option in searched.device_options:
        found = best[(option.channels, option.ways_per_channel)]
        assert option.feasible == (found is not None), option.name
        if found is not None:
            assert option.cost == pytest.approx(found, rel=1e-9)
    assert searched.cost_breakdown["nand"] == pytest.approx(
        next(o.nand_cost for o in searched.device_options if o.name == searched.device))


def test_a_geometry_the_device_alone_cannot_carry_is_ruled_out_and_says_why(searched):
    four_by_two = searched.device_options[0]
    assert (four_by_two.channels, four_by_two.ways_per_channel) == (4, 2)
    assert not four_by_two.feasible and "the device alone sustains" in four_by_two.note


def test_one_geometry_listed_is_searched_as_that_geometry():
    one = optimize(pm9a3(), min_iops=200_000, options={**SMALL, "nand": {"channels": [4]}})
    assert one.config.nand.channels == 4 and one.verdict.analytic.iops >= 200_000


def test_cli_lists_the_geometries_in_text_and_json(capsys):
    args = ["optimize", str(PM9A3), *[a for c in COSTS for a in ("--set", c)], "--min-iops", "500000", "--no-des",
            "--set", "optimizer.max_cores_per_group=1", "--set", 'optimizer.core_specs=["r1g"]',
            "--set", "optimizer.max_units=1", "--set", "optimizer.nand.channels=[4,8]",
            "--set", "optimizer.nand.ways_per_channel=[2,4]"]
    assert main([*args, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [(o["channels"], o["ways_per_channel"]) for o in doc["device_options"]] == [(4, 2), (4, 4), (8, 2),
                                                                                     (8, 4)]
    assert doc["cost_breakdown"]["nand"] > 0
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "DEVICE OPTIONS" in text and "4 ch x 2 ways x 1 dies x 4 planes" in text and "NAND " in text


RATES = [400.0, 800.0, 1200.0]


def test_the_channel_rate_is_a_decision_priced_per_channel_and_the_pick_matches_brute_force():
    # 4 channels x 4 ways: at 400 MT/s a channel carries 4 KiB + ECC in 11.25 us, too slow for 500,000 IOPS
    costs = ["nand.channels=4", "nand.ways_per_channel=8", "nand.cost_per_channel_gts=1.0"]
    small = [f"optimizer.{k}={json.dumps(v)}" for k, v in SMALL.items()]
    searched = optimize(pm9a3(*costs), min_iops=TARGET_IOPS,
                        options={**SMALL, "nand": {"channel_rate_mts": RATES}})
    names = [o.name for o in searched.device_options]
    assert names == [f"4 ch x 8 ways x 1 dies x 4 planes at {r:g} MT/s" for r in RATES]  # cheapest first
    best = {}
    for rate in RATES:
        config = pm9a3(*costs, f"nand.channel_rate_mts={rate}", *small)
        assert config.nand.cost == pytest.approx(4 * (0.5 + rate / 1000.0 * 1.0) + 32 * 0.05)
        best[rate] = _brute_force_cost(config, TARGET_IOPS)
    feasible = {r: c for r, c in best.items() if c is not None}
    assert searched.feasible and None in best.values() and feasible
    assert searched.cost == pytest.approx(min(feasible.values()), rel=1e-9)
    for option in searched.device_options:
        assert option.feasible == (best[option.channel_rate_mts] is not None), option.name
    assert searched.config.nand.channel_rate_mts == min(feasible, key=feasible.get)


def test_a_rate_list_must_hold_positive_rates():
    from ssdco.errors import ConfigError

    with pytest.raises(ConfigError, match="rates > 0"):
        optimize(pm9a3(), min_iops=TARGET_IOPS, options={**SMALL, "nand": {"channel_rate_mts": [0, 800]}})


def _dominates(q, p) -> bool:
    """q (cost, IOPS, core power) is no worse than p in all three and better in one (costs equal within 1e-9)."""
    cost_le, cost_lt = q[0] <= p[0] * (1 + 1e-9), q[0] < p[0] * (1 - 1e-9)
    return cost_le and q[1] >= p[1] and q[2] <= p[2] and (cost_lt or q[1] > p[1] or q[2] < p[2])


def test_the_pareto_front_spans_every_geometry_and_equals_the_front_of_their_union():
    opts = {**SMALL, "markov_chain": False}
    merged = optimize(pm9a3(), min_iops=300_000, pareto_front=True,
                      options={**opts, "nand": {"channels": [4, 8], "ways_per_channel": [2, 4]}})
    union = []
    for channels in (4, 8):
        for ways in (2, 4):
            one = optimize(pm9a3(), min_iops=300_000, pareto_front=True,
                           options={**opts, "nand": {"channels": [channels], "ways_per_channel": [ways]}})
            name = f"{channels} ch x {ways} ways x 1 dies x 4 planes"
            union += [(p.cost, p.iops, p.core_power_mw, name) for p in one.pareto]
    expected = {p for p in union if not any(_dominates(q, p) for q in union)}
    got = {(p.cost, p.iops, p.core_power_mw, p.device) for p in merged.pareto}
    assert got == expected and len({p[3] for p in got}) > 1
    # the cheapest point is the cheapest geometry's cheapest design, NAND cost included
    assert merged.pareto[0].cost == min(p[0] for p in union)
