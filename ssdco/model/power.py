"""Controller power and energy per I/O from throughput and busy servers.

* Core group: count x P_idle + busy cores x (P_active - P_idle)  (busy cores = utilisation x count).
* Accelerator: units x P_idle + E_op x operation rate.
* DRAM: size x background per GiB + (random accesses x E_access + streamed bits x E_bit) x I/O rate.
* NAND: dies x P_idle + (array time reading x P_read + programming x P_prog + erasing x P_erase) x I/O rate
  + channel bits x E_bit x I/O rate (array time and channel time per I/O from the network's visits, background
  work included; energy of an operation = V_CC x I_CC x its time, as NAND datasheets state the currents).
* Drive: the controller (cores, accelerators, DRAM) + NAND + the SoC's static power + the PCIe PHY.

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
    nand_mw: float = 0.0  # arrays, channel I/O and idle dies
    soc_static_mw: float = 0.0  # the controller chip's static power (``[soc] static_mw``)
    phy_mw: float = 0.0  # the PCIe PHY (``host.phy_mw``)
    sram_mw: float = 0.0  # on-chip SRAM for the mapping table (``[sram]``): leakage and lookups

    @property
    def core_side_mw(self) -> float:
        """Cores plus accelerators: what the core power budget limits."""
        return self.cores_mw + self.accelerators_mw

    @property
    def total_mw(self) -> float:
        """The controller's power: cores + accelerators + DRAM (the study's scope; see :attr:`drive_mw`), plus the
        mapping table's SRAM where ``[sram]`` gives one."""
        return self.cores_mw + self.accelerators_mw + self.dram_mw + self.sram_mw

    @property
    def drive_mw(self) -> float:
        """The whole drive's power: :attr:`total_mw` + NAND + SoC static + PCIe PHY."""
        return self.total_mw + self.nand_mw + self.soc_static_mw + self.phy_mw

    def energy_per_io_nj(self, iops: float) -> float:
        """Controller energy per completed I/O in nJ (total power / IOPS)."""
        return self.total_mw / iops * 1e6 if iops > 0 else float("inf")

    def drive_energy_per_io_nj(self, iops: float) -> float:
        """The whole drive's energy per completed I/O in nJ (drive power / IOPS)."""
        return self.drive_mw / iops * 1e6 if iops > 0 else float("inf")


def nand_time_per_io_us(network: Network) -> tuple[float, float, float, float]:
    """Per I/O (us): dies' array time reading, programming and erasing, and channels' busy time, background work
    included (mean visits x mean service of each NAND step; a step's ``array`` says which array work it is)."""
    read = program = erase = channel = 0.0
    base = network.mean_transactions
    for s in network.steps:
        if s.station == "channel":
            channel += network.visits(s) * network.step_moments(s)[0]
        elif s.array == "data":  # the request's own: a read reads, a write programs
            rf = network.read_fraction
            if s.ops in ("both", "read"):
                read += base * rf * s.probability * s.read_us
            if s.ops in ("both", "write"):
                program += base * (1.0 - rf) * s.probability * s.write_us
        elif s.array == "read":
            read += network.visits(s) * s.read_us
        elif s.array == "program":
            program += network.visits(s) * s.write_us
        elif s.array == "erase":
            erase += network.visits(s) * s.write_us
    return read, program, erase, channel


def nand_power_mw(config: Config, network: Network, iops: float) -> float:
    """NAND power (mW) at ``iops``: idle dies, array energy (active power x array time) and channel I/O energy
    (bits moved x pJ/bit) per I/O, times the I/O rate."""
    nand = config.nand
    read_us, program_us, erase_us, channel_us = nand_time_per_io_us(network)
    array_nj = (read_us * nand.read_active_mw + program_us * nand.program_active_mw
                + erase_us * nand.erase_active_mw)  # mW x us = nJ
    bits = channel_us * nand.channel_rate_mts * nand.channel_width_bits  # us x MT/s = transfers
    io_nj = bits * nand.io_energy_pj_per_bit * 1e-3
    return nand.dies * nand.die_idle_mw + (array_nj + io_nj) * iops * NJ_PER_S_TO_MW


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
    lookups = sum(network.visits(s) * s.sram_accesses for s in network.steps)
    sram = (config.sram.mapping_mib * config.sram.static_mw_per_mib
            + lookups * config.sram.access_energy_nj * iops * NJ_PER_S_TO_MW)
    if config.sram.mapping_mib > 0:
        by_station["sram"] = sram
    return Power(cores_mw=cores, accelerators_mw=accels, dram_mw=dram, by_station_mw=by_station,
                 nand_mw=nand_power_mw(config, network, iops), soc_static_mw=config.soc.static_mw,
                 phy_mw=config.host.phy_mw, sram_mw=sram)
