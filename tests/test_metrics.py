"""The shared figures record (ssdco/metrics.py): what the model, the DES and the reports read."""

import math

import pytest

from ssdco import evaluate, load_config
from ssdco.metrics import Metrics
from ssdco.validation.compare import validate
from tests.conftest import PM9A3


def _m(**kw) -> Metrics:
    base = dict(iops=100_000.0, latency_mean_us=320.0, latency_p99_us=400.0, cores_mw=100.0, accelerators_mw=20.0,
                dram_mw=500.0)
    return Metrics(**{**base, **kw})


def test_derived_figures_and_budgets():
    m = _m(core_limit_mw=120.0, dram_limit_mw=499.0)
    assert (m.core_side_mw, m.total_mw) == (120.0, 620.0)
    assert m.energy_per_io_nj == pytest.approx(620.0 / 100_000 * 1e6)
    assert m.core_met and not m.dram_met and not m.both_met
    assert _m().both_met  # no budget: every limit infinite
    assert _m(iops=0.0).energy_per_io_nj == math.inf


def test_relative_to():
    rel = _m(iops=110_000.0, latency_p99_us=None).relative_to(_m())
    assert rel["iops"] == pytest.approx(0.1) and rel["latency_mean_us"] == 0.0 and rel["power_total_mw"] == 0.0
    assert "latency_p99_us" not in rel  # the model gives none
    assert _m(latency_p99_us=440.0).relative_to(_m())["latency_p99_us"] == pytest.approx(0.1)
    assert math.isnan(_m().relative_to(_m(iops=0.0))["iops"])  # nothing measured


def test_the_model_the_des_and_the_errors_share_the_record():
    config = load_config(PM9A3, controller="c07")
    r = evaluate(config)
    m = r.metrics
    assert (m.iops, m.latency_mean_us, m.latency_p99_us) == (r.iops, r.latency_mean_us, r.latency_p99_us)
    assert (m.core_side_mw, m.dram_mw, m.total_mw) == (r.power.core_side_mw, r.power.dram_mw, r.power.total_mw)
    assert (m.core_limit_mw, m.dram_limit_mw) == (config.budgets.core_power_mw, config.budgets.dram_power_mw)
    v = validate(config, requests=20_000, seed=0, replications=0)
    d = v.des_metrics
    assert (d.iops, d.latency_mean_us, d.latency_p99_us) == (v.des.iops.value, v.des.mean_latency_us.value,
                                                             v.des.p99_us)
    assert d.total_mw == pytest.approx(v.des_power_mw["total"], rel=1e-12)
    assert dict(v.relative_error) == v.analytic.metrics.relative_to(d)
