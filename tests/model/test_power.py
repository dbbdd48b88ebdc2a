"""Power model formulas on the PM9A3 preset."""

import pytest

from ssdco import evaluate, load_config
from ssdco.model.power import compute_power
from ssdco.network.build import build_network
from tests.conftest import PM9A3


def test_idle_system_draws_idle_and_background_power():
    cfg = load_config(PM9A3, controller="c07")
    p = compute_power(cfg, build_network(cfg), 0.0, {})
    assert p.cores_mw == pytest.approx(3 * cfg.core_specs["r1g"].idle_mw)
    assert p.accelerators_mw == pytest.approx(2 * cfg.accelerator_specs["parse"].idle_mw)
    assert p.dram_mw == pytest.approx(cfg.dram.size_gib * cfg.dram.background_mw_per_gib)


def test_core_power_formula():
    cfg = load_config(PM9A3, controller="c01")
    r = evaluate(cfg)
    spec = cfg.core_specs["r1g"]
    expected = sum(spec.idle_mw + r.utilization[f"cores:{g.name}"] * (spec.active_mw - spec.idle_mw)
                   for g in cfg.controller.core_groups)
    assert r.power.cores_mw == pytest.approx(expected, rel=1e-12)


def test_dram_power_formula():
    cfg = load_config(PM9A3, controller="c09")
    r = evaluate(cfg)
    d = cfg.dram
    accesses = sum(m.dram_accesses_per_visit for m in cfg.modules.values())  # one transaction per request
    per_io_nj = accesses * d.access_energy_nj + 4096 * 8 * d.data_passes_per_io * d.stream_energy_pj_per_bit / 1e3
    assert r.power.dram_mw == pytest.approx(d.size_gib * d.background_mw_per_gib + per_io_nj * r.iops * 1e-6)


def test_busy_cores_are_clamped_to_the_group_size():
    cfg = load_config(PM9A3, controller="c01")
    net = build_network(cfg)
    p = compute_power(cfg, net, 1e6, {"cores:parse": 5.0})
    spec = cfg.core_specs["r1g"]
    assert p.by_station_mw["cores:parse"] == pytest.approx(spec.active_mw)


def _only(**nand_power):
    """Overrides that zero every NAND power figure but ``nand_power``."""
    zero = {"read_active_mw": 0, "program_active_mw": 0, "erase_active_mw": 0, "die_idle_mw": 0,
            "io_energy_pj_per_bit": 0}
    return [f"nand.{k}={v}" for k, v in {**zero, **nand_power}.items()]


def test_nand_read_power_is_the_array_and_io_energy_of_each_read_at_the_io_rate():
    cfg = load_config(PM9A3, controller="c07")
    r, n = evaluate(cfg), cfg.nand
    transfer_us = 4096 * (1 + n.ecc_overhead_fraction) / (n.channel_rate_mts * n.channel_width_bits / 8)
    bits = transfer_us * n.channel_rate_mts * n.channel_width_bits  # 4 KiB + ECC spare
    assert bits == pytest.approx(4096 * 8 * (1 + n.ecc_overhead_fraction))
    per_io_nj = n.t_read_us * n.read_active_mw + bits * n.io_energy_pj_per_bit / 1e3  # mW x us = nJ
    expected = n.dies * n.die_idle_mw + per_io_nj * r.iops * 1e-6
    assert r.power.nand_mw == pytest.approx(expected, rel=1e-12)


def test_programs_and_erases_are_charged_per_host_write_from_the_ftl_s_counts():
    from ssdco.network.ftl_effects import ftl_effects

    mix = ["workload.read_fraction=0.5"]
    cfg = load_config(PM9A3, controller="c07", overrides=mix + _only(program_active_mw=100.0))
    fx, r, n = ftl_effects(cfg), evaluate(cfg), cfg.nand
    writes_per_s = 0.5 * r.iops  # one transaction per 4 KiB request
    assert r.power.nand_mw == pytest.approx(writes_per_s * fx.bg_programs * n.t_prog_us * 100.0 * 1e-6, rel=1e-12)
    erase = evaluate(load_config(PM9A3, controller="c07", overrides=mix + _only(erase_active_mw=100.0)))
    assert erase.power.nand_mw == pytest.approx(0.5 * erase.iops * fx.bg_erases * n.t_erase_us * 100.0 * 1e-6,
                                                rel=1e-12)
    reads = evaluate(load_config(PM9A3, controller="c07", overrides=mix + _only(read_active_mw=100.0)))
    # host reads plus the GC copies' reads
    per_io_us = 0.5 * n.t_read_us + 0.5 * fx.bg_reads * n.t_read_us
    assert reads.power.nand_mw == pytest.approx(per_io_us * 100.0 * reads.iops * 1e-6, rel=1e-12)


def test_the_whole_drive_adds_nand_soc_static_and_phy_to_the_controller_and_has_its_budget():
    cfg = load_config(PM9A3, controller="c07", overrides=["budgets.drive_power_mw=8000"])
    r = evaluate(cfg)
    p = r.power
    assert p.soc_static_mw == cfg.soc.static_mw == 1708.0 and p.phy_mw == cfg.host.phy_mw == 500.0
    assert p.drive_mw == pytest.approx(p.total_mw + p.nand_mw + 1708.0 + 500.0, rel=1e-12)
    assert p.drive_energy_per_io_nj(r.iops) == pytest.approx(p.drive_mw / r.iops * 1e6)
    assert r.budgets["drive_power"].limit == 8000.0 and r.budgets["drive_power"].met
    over = evaluate(load_config(PM9A3, controller="c07", overrides=[f"budgets.drive_power_mw={p.drive_mw - 1}"]))
    assert not over.budgets["drive_power"].met and not over.budgets_met
    doc = r.to_dict()
    assert doc["power_mw"]["drive"] == pytest.approx(p.drive_mw) and doc["budgets"]["drive_power"]["met"] is True


def test_the_des_s_whole_drive_power_follows_its_measured_throughput():
    from ssdco.validation.compare import validate

    v = validate(load_config(PM9A3, controller="c07", overrides=["workload.read_fraction=0.7",
                                                                 "budgets.drive_power_mw=8000"]),
                 requests=40_000, seed=3, replications=0)
    a = v.analytic.power
    assert v.des_power_mw["drive"] == pytest.approx(a.drive_mw, rel=0.03)
    des_budget = v.to_dict()["des"]["budgets"]["drive_power"]
    assert v.des_power_mw["nand"] > 0 and des_budget["value_mw"] == pytest.approx(v.des_power_mw["drive"])
    assert des_budget["met"] == (v.des_power_mw["drive"] <= 8000.0)


@pytest.mark.parametrize("overrides", [
    ["workload.read_fraction=0.7"],
    ["workload.read_fraction=0.7", 'ftl.mapping="dftl"', "ftl.cache_fraction=0.01"],
    ["workload.read_fraction=0.5", "nand.command_us=0.5", "nand.die_held_through_transfer=true"],
])
def test_every_step_that_busies_a_die_array_says_which_work_it_is(overrides):
    """The power model prices a step's array time by its ``array`` field: a step that keeps a die busy for a time
    (or the request's own array operation behind a command) must name its work, else its energy would be lost."""
    network = build_network(load_config(PM9A3, overrides=overrides))
    for s in network.steps:
        busy_die = s.station == "die" and (s.read_us > 0 or s.write_us > 0)
        if busy_die or s.label == "nand_array":
            assert s.array in ("data", "read", "program", "erase"), s
        else:
            assert s.array == "", s
