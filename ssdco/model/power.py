"""Controller power and energy per I/O from throughput and busy servers.

* Core group: count x P_idle + busy cores x (P_active - P_idle)  (busy cores = utilisation x count).
* Accelerator: units x P_idle + E_op x operation rate.
* DRAM: size x background per GiB + (random accesses x E_access + streamed bits x E_bit) x I/O rate.

The same function serves the analytic model (busy cores = X x demand) and the DES (busy cores measured),
so the two are compared on equal terms. Power model after the reference study (PowerSim: idle =
McPAT leakage, plus dynamic power while a module runs) and RP §3-§4 (DRAMPower-style IDD figures).
Units: mW, nJ, I/O per second. 1 nJ x 1/s = 1e-6 mW.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from ssdco.network.build import Network
from ssdco.network.ftl_effects import ftl_effects
from ssdco.spec import Config

NJ_PER_S_TO_MW = 1e-6


@dataclass(frozen=True)
class Power:
    """Power breakdown (mW) and energy per I/O (nJ)."""

    cores_mw: float
    accelerators_mw: float
    dram_mw: float
    by_station_mw: Mapping[str, float]

    @property
    def core_side_mw(self) -> float:
        """Cores plus accelerators: what the core power budget limits."""
        return self.cores_mw + self.accelerators_mw

    @property
    def total_mw(self) -> float:
        """Cores + accelerators + DRAM (NAND and PHY power are outside the model)."""
        return self.cores_mw + self.accelerators_mw + self.dram_mw

    def energy_per_io_nj(self, iops: float) -> float:
        """Controller energy per completed I/O in nJ (total power / IOPS)."""
        return self.total_mw / iops * 1e6 if iops > 0 else float("inf")


def compute_power(config: Config, network: Network, iops: float, busy_servers: Mapping[str, float],
                  dram_size_gib: float | None = None) -> Power:
    """Power of ``config`` running at ``iops`` with ``busy_servers[station]`` mean busy servers.

    ``busy_servers`` must have an entry for every core-group station (``cores:<group>``).
    ``dram_size_gib`` overrides the DRAM size; by default it is ``config.dram.size_gib``, or with an
    ``[ftl]`` table the size the mapping option implies (:mod:`ssdco.network.ftl_effects`).
    """
    by_station: dict[str, float] = {}
    cores = 0.0
    for g in config.controller.core_groups:
        spec = config.core_specs[g.spec]
        busy = min(max(busy_servers.get(f"cores:{g.name}", 0.0), 0.0), g.count)
        p = g.count * spec.idle_mw + busy * (spec.active_mw - spec.idle_mw)
        by_station[f"cores:{g.name}"] = p
        cores += p
    accels = 0.0
    for m, units in config.controller.accelerator_units.items():
        a = config.accelerator_specs[m]
        visits = sum(network.visits(s) for s in network.steps if s.station == f"accel:{m}")
        p = units * a.idle_mw + a.energy_per_op_nj * iops * visits * NJ_PER_S_TO_MW
        by_station[f"accel:{m}"] = p
        accels += p
    d = config.dram
    accesses = sum(network.visits(s) * s.dram_accesses for s in network.steps)
    stream_nj = network.mean_request_bytes * 8.0 * d.data_passes_per_io * d.stream_energy_pj_per_bit * 1e-3
    if dram_size_gib is None:
        fx = ftl_effects(config)
        dram_size_gib = d.size_gib if fx is None else fx.dram_size_gib
    size = dram_size_gib
    dram = size * d.background_mw_per_gib + (accesses * d.access_energy_nj + stream_nj) * iops * NJ_PER_S_TO_MW
    by_station["dram"] = dram
    return Power(cores_mw=cores, accelerators_mw=accels, dram_mw=dram, by_station_mw=by_station)
