"""The mapping table as an optimizer decision ([optimizer.dram]): DRAM size/power against IOPS, lifetime."""

import json

import pytest

from ssdco import load_config
from ssdco.cli import main
from ssdco.errors import ConfigError
from ssdco.optimizer import optimize
from ssdco.optimizer.space import DesignSpace
from tests.conftest import PM9A3

# a 203-design space (Bell(6)) keeps each variant's search quick
SMALL = {"max_cores_per_group": 1, "core_specs": ["r1g"], "max_units": 1, "verify_des": False}
DRAM = {"mappings": ["full", "dftl", "partitioned"], "cache_fractions": [0.1]}


def mixed():
    return load_config(PM9A3, overrides=["workload.read_fraction=0.7"])


@pytest.fixture(scope="module")
def loose():
    """200 K IOPS: the full table and the partitioned cache qualify, plain DFTL (f = 0.1) does not."""
    return optimize(mixed(), min_iops=200_000, options={**SMALL, "dram": DRAM})


def test_every_mapping_option_is_searched_and_its_dram_consequence_reported(loose):
    names = [o.name for o in loose.device_options]
    assert names == ["full table", "dftl f=0.1", "partitioned f=0.1"]
    full, dftl, part = loose.device_options
    assert full.dram_size_gib == 1.0 and dftl.dram_size_gib == part.dram_size_gib < 0.25
    assert full.dram_power_mw > part.dram_power_mw
    assert dftl.waf > part.waf > full.waf
    assert full.feasible and part.feasible and not dftl.feasible


def test_the_cheapest_qualifying_mapping_wins(loose):
    # same controller, less DRAM: the partitioned cache is cheaper than the full table at 200 K IOPS
    assert loose.feasible and loose.device == "partitioned f=0.1"
    full, _, part = loose.device_options
    assert loose.cost == part.cost < full.cost
    assert loose.cost_breakdown["dram"] == pytest.approx(part.dram_size_gib * 2.0)
    assert loose.verdict.analytic.ftl["mapping"] == "partitioned"


def test_a_higher_target_buys_the_full_table():
    r = optimize(mixed(), min_iops=300_000, options={**SMALL, "dram": DRAM})
    assert r.feasible and r.device == "full table"
    assert r.verdict.analytic.iops >= 300_000


def test_dram_budget_rules_out_the_full_table():
    r = optimize(mixed(), min_iops=150_000, dram_power_mw=250.0,
                 options={**SMALL, "dram": {"mappings": ["full", "partitioned"], "cache_fractions": [0.1]}})
    full, part = r.device_options
    assert full.dram_power_mw > part.dram_power_mw  # at the target; verification uses the IOPS reached
    assert r.feasible and r.device == "partitioned f=0.1" and not full.feasible


def test_lifetime_constraint_rejects_options_that_wear_out():
    opts = {**SMALL, "dram": {"mappings": ["full", "dftl"], "cache_fractions": [0.1]}}
    r = optimize(mixed(), min_iops=50_000, options=opts)
    full, dftl = r.device_options
    assert full.life_years > dftl.life_years  # DFTL's mapping write-backs amplify writes
    limit = (full.life_years + dftl.life_years) / 2
    r2 = optimize(mixed(), min_iops=50_000, options={**opts, "min_life_years": limit})
    assert r2.device == "full table" and not r2.device_options[1].feasible
    assert "lifetime" in r2.device_options[1].note
    r3 = optimize(mixed(), min_iops=50_000, options={**opts, "min_life_years": full.life_years * 2})
    assert not r3.feasible and r3.pick is None


def test_no_dram_table_keeps_the_single_configured_device():
    space = DesignSpace.from_config(mixed(), SMALL)
    assert [v.name for v in space.device_variants] == ["as configured"]


def test_mapping_options_need_an_ftl_table():
    raw = {k: v for k, v in mixed().raw.items() if k != "ftl"}
    from ssdco.spec import config_from_dict

    cfg = config_from_dict(raw, source="x.toml", base_dir="configs")
    with pytest.raises(ConfigError) as e:
        DesignSpace.from_config(cfg, {"dram": DRAM})
    assert e.value.field == "optimizer.dram"


def test_cli_reports_device_options_in_json_and_text(capsys):
    args = ["optimize", str(PM9A3), "--set", "workload.read_fraction=0.7", "--min-iops", "200000", "--no-des",
            "--set", "optimizer.max_cores_per_group=1", "--set", 'optimizer.core_specs=["r1g"]',
            "--set", "optimizer.max_units=1",
            "--set", 'optimizer.dram.mappings=["full","partitioned"]', "--set", "optimizer.dram.cache_fractions=[0.1]"]
    assert main([*args, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["device"] == "partitioned f=0.1"
    assert [o["name"] for o in doc["device_options"]] == ["full table", "partitioned f=0.1"]
    for o in doc["device_options"]:
        assert {"dram_size_gib", "dram_power_mw", "waf", "life_years", "feasible", "cost", "design"} <= set(o)
    assert doc["analytic"]["ftl"]["mapping"] == "partitioned"
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "DEVICE OPTIONS" in text and "partitioned f=0.1" in text
    assert main([*args, "--min-life-years", "1000"]) == 1  # nothing lasts that long: infeasible, exit 1
    assert "no mapping option qualifies" in capsys.readouterr().out
