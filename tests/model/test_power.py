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
