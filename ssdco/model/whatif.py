"""The "what if?" path: config -> network -> solve -> power -> :class:`Result` (milliseconds).

Closed workloads (queue depth N) are solved by the route-level approximate MVA (``route_mva.py``:
residual-corrected MVA plus fork-join, re-entry and flow-variability corrections checked against the
DES; the exact exponential product-form solution by convolution with ``exact=True``); open workloads by M/G/c approximations (``open.py``). Asymptotic bounds and
the bottleneck are always reported beside the answer. The p99 latency is an *estimate*: the queueing
delay at each station is modelled as zero with probability 1 - P(wait) and exponential otherwise, the
stations' delays are summed as independent, and a gamma distribution matched to the sum's first two
moments gives the tail (the DES measures the real percentile; ``ssdco validate`` compares them).
"""

from __future__ import annotations


import math
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

import numpy as np
from scipy.special import gammaincinv

from ..spec import Config
from .ftl import FtlEffects, ftl_effects
from .bounds import Bounds, asymptotic_bounds
from .mva import solve_closed
from .network import Network, StationLoad, build_network
from .open import solve_open
from .route_mva import route_arrays, solve_route, write_buffer_capacity
from .power import Power, compute_power

US_PER_S = 1e6
P99 = 0.99


@dataclass(frozen=True)
class BudgetCheck:
    """One budget: the limit, the value reached, and whether the limit holds."""

    limit: float
    value: float
    met: bool


@dataclass(frozen=True)
class Result:
    """Everything ``ssdco whatif`` reports. Rates in I/O per second, times in us, powers in mW."""

    config_name: str
    controller: str
    workload: str  # "closed" or "open"
    queue_depth: int | None
    arrival_iops: float | None
    iops: float
    latency_mean_us: float
    latency_p99_us: float | None
    stable: bool
    utilization: Mapping[str, float]  # per server, per copy
    mean_jobs: Mapping[str, float]  # per copy
    bottleneck: str
    bounds: Bounds
    power: Power
    budgets: Mapping[str, BudgetCheck]
    method: str
    stations: tuple[StationLoad, ...] = field(repr=False)
    ftl: Mapping[str, Any] | None = None  # FTL figures (see ftl_summary); None without an [ftl] table

    @property
    def energy_per_io_nj(self) -> float:
        """Controller energy per I/O (nJ)."""
        return self.power.energy_per_io_nj(self.iops)

    @property
    def budgets_met(self) -> bool:
        """True when every budget and target holds."""
        return all(b.met for b in self.budgets.values())

    def to_dict(self) -> dict[str, Any]:
        """The stable JSON schema of ``ssdco whatif --json`` (see README, "JSON output")."""
        return {
            "schema": "ssdco.whatif/1",
            "config": self.config_name,
            "controller": self.controller,
            "workload": {"kind": self.workload, "queue_depth": self.queue_depth, "arrival_iops": self.arrival_iops},
            "method": self.method,
            "stable": self.stable,
            "iops": _num(self.iops),
            "latency_us": {"mean": _num(self.latency_mean_us), "p99": _num(self.latency_p99_us)},
            "utilization": {k: _num(v) for k, v in self.utilization.items()},
            "mean_jobs": {k: _num(v) for k, v in self.mean_jobs.items()},
            "bottleneck": self.bottleneck,
            "bounds": {
                "capacity_iops": _num(self.bounds.capacity_per_us * US_PER_S),
                "population_iops": _num(self.bounds.population_per_us * US_PER_S),
                "zero_load_latency_us": _num(self.bounds.zero_load_latency_us),
                "write_buffer_iops": _num(self.bounds.write_buffer_per_us * US_PER_S),
            },
            "power_mw": {
                "cores": _num(self.power.cores_mw),
                "accelerators": _num(self.power.accelerators_mw),
                "dram": _num(self.power.dram_mw),
                "total": _num(self.power.total_mw),
                "by_station": {k: _num(v) for k, v in self.power.by_station_mw.items()},
            },
            "energy_per_io_nj": _num(self.energy_per_io_nj),
            "budgets": {k: {"limit_mw" if k != "min_iops" else "limit": _num(b.limit),
                            "value_mw" if k != "min_iops" else "value": _num(b.value), "met": b.met}
                        for k, b in self.budgets.items()},
            "ftl": None if self.ftl is None else {k: (_num(v) if isinstance(v, float) else v)
                                                  for k, v in self.ftl.items()},
        }


def ftl_summary(config: Config, fx: FtlEffects | None, iops: float) -> dict[str, Any] | None:
    """The ``ftl`` block of ``whatif --json`` (None without an ``[ftl]`` table).

    Keys: ``mapping``, ``gc_policy``, ``waf_gc`` (Desnoyers GC write amplification of data),
    ``waf`` (NAND units programmed per host unit, mapping writes included), ``nand_bytes_per_host_byte``
    (``waf`` x the read-modify-write amplification of writes smaller than a mapping unit), ``mapping_hit_ratio``
    (reads), ``max_nand_ops_per_read`` (NAND operations on one read's path, worst case),
    ``mapping_dram_mib`` (cache + GTD), ``dram_size_gib`` (derived DRAM size the power uses),
    ``host_write_mb_s`` (at the solved IOPS), ``tbw`` (TB written over the P/E rating), ``dwpd``
    (over 5 years) and ``life_years`` (at ``host_write_mb_s``; null = no writes).
    """
    if fx is None:
        return None
    w = config.workload
    host_write = iops * (1.0 - w.read_fraction) * w.mean_request_bytes
    return {
        "mapping": fx.mapping,
        "gc_policy": config.ftl.gc_policy,
        "waf_gc": float(fx.waf_gc),
        "waf": float(fx.waf_total),
        "nand_bytes_per_host_byte": float(fx.nand_bytes_per_host_byte),
        "mapping_hit_ratio": float(fx.mapping_hit_ratio),
        "max_nand_ops_per_read": int(fx.max_nand_ops_per_read),
        "mapping_dram_mib": float(fx.mapping_dram_bytes / 2**20),
        "dram_size_gib": float(fx.dram_size_gib),
        "host_write_mb_s": float(host_write / 1e6),
        "tbw": float(fx.tbw),
        "dwpd": float(fx.dwpd),
        "life_years": float(fx.life_years(host_write)),
    }


def _num(x: float | None) -> float | None:
    """JSON-safe number: None for missing or non-finite values."""
    if x is None or not math.isfinite(x):
        return None
    return float(x)


def check_budgets(config: Config, iops: float, power: Power) -> dict[str, BudgetCheck]:
    """Core-side power (cores + accelerators), DRAM power and minimum IOPS against the config's budgets."""
    b = config.budgets
    return {
        "core_power": BudgetCheck(b.core_power_mw, power.core_side_mw, power.core_side_mw <= b.core_power_mw),
        "dram_power": BudgetCheck(b.dram_power_mw, power.dram_mw, power.dram_mw <= b.dram_power_mw),
        "min_iops": BudgetCheck(b.min_iops, iops, iops >= b.min_iops),
    }


def _p99_estimate(loads: tuple[StationLoad, ...], residence_us: np.ndarray, p_wait: np.ndarray,
                  mean_latency_us: float) -> float:
    """Two-moment (gamma) estimate of the 99th latency percentile, us. See the module docstring."""
    mean_wait = var = 0.0
    for ld, res, pw in zip(loads, residence_us, p_wait):
        if ld.visits <= 0 or not math.isfinite(res):
            continue
        n_visits = ld.visits * ld.copies
        w = max(res - ld.demand_us, 0.0) / ld.visits  # mean wait per visit
        mean_wait += n_visits * w
        if w > 0 and pw > 0:
            var += n_visits * (2.0 * w * w / pw - w * w)
        var += n_visits * ld.service_us ** 2 * ld.scv
    if var <= 0:
        return mean_latency_us
    if mean_wait <= 1e-12 * mean_latency_us:
        return mean_latency_us + 2.3263478740408408 * math.sqrt(var)
    shape = mean_wait * mean_wait / var
    scale = var / mean_wait
    # A gamma with shape << 1 puts its mass near zero and can place p99 below the mean; the real
    # latency distribution here is not that skewed, so the mean is a floor for the estimate.
    return max(mean_latency_us, mean_latency_us - mean_wait + float(gammaincinv(shape, P99)) * scale)


def evaluate_network(config: Config, network: Network, *, exact: bool = False) -> Result:
    """Solve ``network`` (built from ``config``) analytically and compute power and budgets."""
    loads = network.loads()
    names = [ld.name for ld in loads]
    bg = {b.name: b for b in network.background_loads()}
    bg_demand = np.array([bg[ld.name].demand_us if ld.name in bg else 0.0 for ld in loads])
    bg_m2 = np.array([bg[ld.name].visits * bg[ld.name].service_us ** 2 * (1.0 + bg[ld.name].scv)
                      if ld.name in bg else 0.0 for ld in loads])
    demand = np.array([ld.demand_us for ld in loads])
    visits = np.array([ld.visits for ld in loads])
    servers = np.array([ld.servers for ld in loads], dtype=np.int64)
    copies = np.array([ld.copies for ld in loads], dtype=np.float64)
    scv = np.array([ld.scv for ld in loads])
    delay = network.delay_us
    zero_load = None
    if network.queue_depth is not None:
        if exact:
            # product form has no open background class: background work is charged to the request that
            # caused it (write-through), a pessimistic bound when the FTL has a write buffer
            sol = solve_closed(demand + bg_demand, servers, copies, scv, delay, network.queue_depth, exact=True)
            method = "exact-convolution" + ("-write-through" if np.any(bg_demand > 0) else "")
        else:
            sol = solve_route(route_arrays(network, loads), network.queue_depth)
            zero_load = 1.0 / sol.throughput_by_n[1]  # fork-join makespan of one request alone
            method = "route-mva"
        x_per_us = sol.throughput_per_us
        residence, p_wait, stable = sol.residence_us, sol.p_wait, True
        mean_latency = sol.response_us
        mean_jobs = sol.queue
    else:
        x_per_us = network.arrival_iops / US_PER_S
        sol = solve_open(demand, visits, servers, copies, scv, delay, x_per_us, bg_demand, bg_m2)
        residence, p_wait, stable = sol.residence_us, sol.p_wait, sol.stable
        mean_latency = sol.response_us
        mean_jobs = x_per_us * residence
        method = "open-mgc-allen-cunneen"
    bounds = asymptotic_bounds(names, demand + bg_demand, servers, copies, delay, network.queue_depth, zero_load)
    if method == "route-mva":
        bounds = replace(bounds, write_buffer_per_us=write_buffer_capacity(network))
    util = x_per_us * (demand + bg_demand) / servers
    busy = {n: float(x_per_us * d * m) for n, d, m in zip(names, demand + bg_demand, copies)}
    iops = x_per_us * US_PER_S
    fx = ftl_effects(config)
    power = compute_power(config, network, iops, busy, dram_size_gib=None if fx is None else fx.dram_size_gib)
    p99 = _p99_estimate(loads, residence, p_wait, mean_latency) if stable else None
    return Result(
        config_name=config.name,
        controller=config.controller.name,
        workload="closed" if network.queue_depth is not None else "open",
        queue_depth=network.queue_depth,
        arrival_iops=network.arrival_iops,
        iops=iops,
        latency_mean_us=mean_latency,
        latency_p99_us=p99,
        stable=stable,
        utilization=dict(zip(names, map(float, util))),
        mean_jobs=dict(zip(names, map(float, mean_jobs))),
        bottleneck=bounds.bottleneck,
        bounds=bounds,
        power=power,
        budgets=check_budgets(config, iops, power),
        method=method,
        stations=loads,
        ftl=ftl_summary(config, fx, iops),
    )


def evaluate(config: Config, *, exact: bool = False) -> Result:
    """Answer "what if?" for ``config``: IOPS, latency, utilisation, bottleneck, power, budgets.

    ``exact=True`` uses exponential exact MVA instead of the residual-corrected solver.
    """
    return evaluate_network(config, build_network(config), exact=exact)
