"""On-chip SRAM for the mapping table ([sram]): where the table's bytes go, what the lookups cost, the DES's power,
and the SRAM size as an optimizer option ([optimizer.sram])."""

import pytest

from ssdco import evaluate, load_config
from ssdco.errors import ConfigError
from ssdco.model.power import NJ_PER_S_TO_MW
from ssdco.network.build import build_network
from ssdco.network.ftl_effects import ftl_effects
from ssdco.optimizer.search import optimize
from ssdco.optimizer.space import DesignSpace
from ssdco.spec import config_from_dict
from ssdco.validation.compare import validate
from tests.conftest import PM9A3

MIB = 2**20
DFTL = ['ftl.mapping="dftl"', "ftl.cache_fraction=0.01"]  # a 9.2 MiB cache and directory for 960 GB


def cfg(*overrides, controller="c07"):
    return load_config(PM9A3, controller=controller, overrides=[*DFTL, *overrides])


def translate(config):
    return next(s for s in build_network(config).steps if s.label == "translate")


def test_without_sram_the_table_stays_in_dram_and_nothing_changes():
    plain, zero = cfg(), cfg("sram.mapping_mib=0")
    a, b = evaluate(plain, effort="fast"), evaluate(zero, effort="fast")
    assert a.iops == b.iops and a.power == b.power and a.power.sram_mw == 0.0
    assert ftl_effects(zero).mapping_sram_bytes == 0 and translate(zero).sram_accesses == 0.0


def test_sram_holding_the_whole_table_takes_every_lookup_and_the_dram_bytes():
    plain, sram = cfg(), cfg("sram.mapping_mib=16", "sram.static_mw_per_mib=2.0", "sram.access_energy_nj=0.05")
    fx0, fx = ftl_effects(plain), ftl_effects(sram)
    table = fx0.mapping_dram_bytes
    assert 9 * MIB < table < 16 * MIB
    assert fx.mapping_sram_bytes == table and fx.mapping_dram_bytes == 0 and fx.mapping_sram_share == 1.0
    assert fx.dram_size_gib == pytest.approx(fx0.dram_size_gib - table / 2**30, rel=1e-12)
    step0, step = translate(plain), translate(sram)
    assert step.dram_accesses == 0.0 and step.sram_accesses == step0.dram_accesses > 0
    a, b = evaluate(plain, effort="fast"), evaluate(sram, effort="fast")
    assert a.iops == b.iops  # placement changes power, not timing
    net = build_network(sram)
    lookups = sum(net.visits(s) * s.sram_accesses for s in net.steps)
    assert b.power.sram_mw == pytest.approx(16 * 2.0 + lookups * 0.05 * b.iops * NJ_PER_S_TO_MW, rel=1e-12)
    d = sram.dram
    saved = (table / 2**30 * d.background_mw_per_gib + lookups * d.access_energy_nj * b.iops * NJ_PER_S_TO_MW)
    assert a.power.dram_mw - b.power.dram_mw == pytest.approx(saved, rel=1e-9)
    assert b.power.total_mw == pytest.approx(b.power.cores_mw + b.power.accelerators_mw + b.power.dram_mw
                                             + b.power.sram_mw, rel=1e-12)
    assert b.to_dict()["ftl"]["mapping_sram_mib"] == pytest.approx(table / MIB)


def test_a_smaller_sram_takes_its_share_of_the_bytes_and_of_the_lookups():
    fx0 = ftl_effects(cfg())
    sram = cfg("sram.mapping_mib=4")
    fx = ftl_effects(sram)
    assert fx.mapping_sram_bytes == 4 * MIB and fx.mapping_dram_bytes == fx0.mapping_dram_bytes - 4 * MIB
    assert fx.mapping_sram_share == pytest.approx(4 * MIB / fx0.mapping_dram_bytes)
    step0, step = translate(cfg()), translate(sram)
    assert step.sram_accesses == pytest.approx(step0.dram_accesses * fx.mapping_sram_share)
    assert step.dram_accesses + step.sram_accesses == pytest.approx(step0.dram_accesses)


def test_the_des_power_prices_the_sram_as_the_model_does():
    v = validate(cfg("sram.mapping_mib=4", "workload.queue_depth=8"), requests=5_000, seed=0)
    des_iops = v.des.iops.value
    net = build_network(v.config)
    lookups = sum(net.visits(s) * s.sram_accesses for s in net.steps)
    s = v.config.sram
    assert v.des_power_mw["sram"] == pytest.approx(4 * s.static_mw_per_mib + lookups * s.access_energy_nj * des_iops
                                                   * NJ_PER_S_TO_MW, rel=1e-12)
    # the headline figures the study's report reads count the SRAM in the total and the energy per I/O
    a, d = v.analytic.metrics, v.des_metrics
    assert a.sram_mw == v.analytic.power.sram_mw > 0 and d.sram_mw == v.des_power_mw["sram"]
    assert a.total_mw == pytest.approx(v.analytic.power.total_mw, rel=1e-12)
    assert a.energy_per_io_nj == pytest.approx(v.analytic.energy_per_io_nj, rel=1e-12)
    assert d.total_mw == pytest.approx(d.cores_mw + d.accelerators_mw + d.dram_mw + d.sram_mw, rel=1e-12)


@pytest.mark.parametrize("override, allowed", [
    ("sram.mapping_mib=-1", ">= 0"),
    ("sram.static_mw_per_mib=nan", "finite"),
    ("sram.colour=1", "unknown"),
])
def test_bad_sram_fields_name_the_field(override, allowed):
    with pytest.raises(ConfigError) as e:
        cfg(override)
    assert e.value.field.startswith("sram.") and allowed in str(e.value)


def test_sram_needs_an_ftl_table():
    raw = {k: v for k, v in load_config(PM9A3).raw.items() if k != "ftl"}
    raw["sram"] = {"mapping_mib": 8.0}
    with pytest.raises(ConfigError) as e:
        config_from_dict(raw, source="x.toml", base_dir="configs")
    assert e.value.field == "sram.mapping_mib" and "[ftl]" in e.value.allowed


SMALL = {"max_cores_per_group": 1, "core_specs": ["r1g"], "max_units": 1, "verify_des": False}


def test_the_optimizer_buys_sram_when_the_dram_budget_needs_it_and_equals_brute_force():
    """c07-class designs with a DFTL cache: without SRAM the DRAM just misses its budget; 16 MiB of SRAM takes the
    cache and the lookups off the DRAM. The pick is the cheapest option that meets the budget, as solving each
    option on its own says."""
    base = cfg("sram.cost_per_mib=0.1")
    target, budget = 150_000, None
    no_sram = optimize(base, min_iops=target, options=SMALL)
    with_sram = optimize(cfg("sram.cost_per_mib=0.1", "sram.mapping_mib=16"), min_iops=target, options=SMALL)
    budget = (no_sram.verdict.analytic.power.dram_mw + with_sram.verdict.analytic.power.dram_mw) / 2
    options = {**SMALL, "sram": {"mapping_mib": [0, 16]}}
    r = optimize(base, min_iops=target, dram_power_mw=budget, options=options)
    names = [o.name for o in r.device_options]
    assert names == ["SRAM 0 MiB", "SRAM 16 MiB"] and [o.sram_mib for o in r.device_options] == [0.0, 16.0]
    assert r.feasible and r.device == "SRAM 16 MiB" and not r.device_options[0].feasible
    alone = [optimize(cfg("sram.cost_per_mib=0.1", f"sram.mapping_mib={m}"), min_iops=target, dram_power_mw=budget,
                      options=SMALL) for m in (0, 16)]
    best = min((a for a in alone if a.feasible), key=lambda a: a.cost)
    assert r.cost == pytest.approx(best.cost) and r.pick == best.pick
    assert r.cost_breakdown["sram"] == pytest.approx(1.6)
    # without the budget the SRAM is not worth its cost
    free = optimize(base, min_iops=target, options=options)
    assert free.device == "SRAM 0 MiB" and free.cost == pytest.approx(no_sram.cost)


@pytest.mark.parametrize("table, field", [
    ({"mapping_mib": []}, "optimizer.sram.mapping_mib"),
    ({"mapping_mib": [4, 4]}, "optimizer.sram.mapping_mib"),
    ({"mapping_mib": [-1]}, "optimizer.sram.mapping_mib"),
    ({"size": [4]}, "optimizer.sram"),
])
def test_bad_sram_options_are_refused(table, field):
    with pytest.raises(ConfigError) as e:
        DesignSpace.from_config(cfg(), {"sram": table})
    assert e.value.field == field
