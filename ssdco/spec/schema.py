"""The configuration's schema: frozen dataclasses of the device, workload, FTL, budgets and controller.

Internally times are microseconds, powers milliwatts, energies nanojoules, sizes bytes; the unit is part of
every field name. :mod:`ssdco.spec.load` reads and validates TOML into these.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from ssdco.errors import ConfigError

SCHEMA_VERSION = 1
MODULES: tuple[str, ...] = ("parse", "cache_lookup", "translate", "dispatch", "complete")
PER_REQUEST_MODULES = frozenset({"parse", "complete"})
KIB = 1024
GIB = 1 << 30
MAPPING_ENTRY_BYTES = 4  # one page-level mapping entry per mapped unit (reference-parameters.md §4.3)

# PCIe per-lane raw rate (GT/s) and line-code efficiency by generation (PCI-SIG base specs).
CQE_BYTES = 16  # an NVMe completion queue entry: what a full-duplex link carries toward the host besides read data
PCIE_GT_PER_S = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0, 6: 64.0}
PCIE_ENCODING = {1: 8 / 10, 2: 8 / 10, 3: 128 / 130, 4: 128 / 130, 5: 128 / 130, 6: 242 / 256}


# --------------------------------------------------------------------------------------------------
# Frozen specs
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class NandSpec:
    """NAND array geometry and timing."""

    channels: int
    ways_per_channel: int
    dies_per_chip: int
    planes_per_die: int
    page_size_kib: float
    pages_per_block: int
    blocks_per_plane: int
    t_read_us: float
    t_prog_us: float
    t_erase_us: float
    channel_rate_mts: float
    channel_width_bits: int
    ecc_overhead_fraction: float
    independent_plane_reads: bool
    over_provisioning: float
    # share of the programs (and erases) that work all of a die's planes at once where planes are not independent
    multi_plane_program_fraction: float = 1.0
    # a die stays busy until its read's data-out (or a program's data-in) on the channel ends (no cache register
    # overlap); False frees it when the array operation ends
    die_held_through_transfer: bool = False
    # channel time of an operation's command and address cycles (us), sent once the die is held (needs the hold)
    command_us: float = 0.0
    # where a sequential stream's pages go: "random" dies, or "channel_first" over consecutive dies (channel by
    # channel, then the next way), as drives allocate them (MQSim's CWDP order)
    sequential_allocation: str = "random"
    # the order a die serves its queue: "fcfs" (arrival order) or "reads_first" (reads ahead of programs and erases,
    # non-preemptive: MQSim's out-of-order transaction scheduler)
    die_scheduling: str = "fcfs"
    # the order a channel serves its queue: "fcfs" (arrival order) or "data_out_first" (the data-out of reads whose
    # array work is done ahead of commands and programs' data: MQSim's ONFI NVDDR2 channel)
    channel_scheduling: str = "fcfs"
    # program/erase suspend at a "reads_first" die: "none", "program", "erase" or "program_erase". A read that finds
    # its die running a write's or the background work's program (erase) suspends it: the die spends
    # t_suspend_*_us suspending, serves the read, serves any other waiting read, then resumes the operation where it
    # stopped (one operation suspended per die at a time)
    suspend: str = "none"
    t_suspend_program_us: float = 100.0  # MQSim's default Suspend_Program_Time (src/exec/Flash_Parameter_Set.cpp)
    t_suspend_erase_us: float = 700.0  # MQSim's default Suspend_Erase_Time (same file)
    # relative cost (optimize, the units of core_specs.*.cost) per channel and per die
    cost_per_channel: float = 0.0
    cost_per_die: float = 0.0
    cost_per_channel_gts: float = 0.0  # relative cost per channel per 1,000 MT/s of its rate (faster PHYs cost more)
    # power of a die while its array reads, programs or erases (mW: VCC x ICC1, ICC2, ICC3 of the datasheet)
    read_active_mw: float = 82.5
    program_active_mw: float = 82.5
    erase_active_mw: float = 82.5
    die_idle_mw: float = 0.1  # a die's standby power (VCC x ISB)
    io_energy_pj_per_bit: float = 5.0  # channel I/O energy per bit moved (ECC spare and command cycles included)

    @property
    def dies(self) -> int:
        """Total number of dies (channels x ways x dies per chip)."""
        return self.channels * self.ways_per_channel * self.dies_per_chip

    @property
    def cost(self) -> float:
        """Relative cost of the geometry: channels x (``cost_per_channel`` + rate in GT/s x ``cost_per_channel_gts``)
        + dies x ``cost_per_die``."""
        per_channel = self.cost_per_channel + self.channel_rate_mts / 1000.0 * self.cost_per_channel_gts
        return self.channels * per_channel + self.dies * self.cost_per_die

    @property
    def channel_bytes_per_us(self) -> float:
        """Channel bus bandwidth in bytes per microsecond (MT/s x bus width / 8)."""
        return self.channel_rate_mts * self.channel_width_bits / 8.0

    def transfer_us(self, payload_bytes: float) -> float:
        """Time (us) to move ``payload_bytes`` plus ECC spare over one channel bus."""
        return payload_bytes * (1.0 + self.ecc_overhead_fraction) / self.channel_bytes_per_us

    @property
    def read_servers_per_die(self) -> int:
        """Concurrent array reads a die can serve: planes if they read independently, else 1."""
        return self.planes_per_die if self.independent_plane_reads else 1


@dataclass(frozen=True)
class HostSpec:
    """Host interface: PCIe link and fixed per-command overheads."""

    pcie_gen: int
    pcie_lanes: int
    link_efficiency: float
    command_fetch_us: float
    completion_post_us: float
    command_bytes: int
    phy_mw: float = 500.0  # the PCIe PHY (SerDes of every lane) while the link is up
    # each direction of the link carries its own traffic (PCIe is full duplex, as MQSim's link): read data and the
    # completion entry toward the host, write data and the rest of command_bytes toward the device; False: one
    # shared link for both
    full_duplex: bool = False

    @property
    def bytes_per_us(self) -> float:
        """Effective one-direction link bandwidth in bytes/us (lanes x GT/s x encoding x efficiency / 8)."""
        gts = PCIE_GT_PER_S[self.pcie_gen]
        return self.pcie_lanes * gts * 1e3 * PCIE_ENCODING[self.pcie_gen] * self.link_efficiency / 8.0


@dataclass(frozen=True)
class CoreSpec:
    """An embedded core type (e.g. a 1 GHz Cortex-R class core)."""

    name: str
    frequency_mhz: float
    idle_mw: float
    active_mw: float
    cycle_scale: float
    cost: float


@dataclass(frozen=True)
class ModuleSpec:
    """A firmware module's software cost and DRAM traffic.

    Service on a core spec = cycles x spec.cycle_scale / frequency + memory_stall_us, unless
    ``service_us`` names an explicit time for that spec.
    """

    name: str
    cycles: float
    memory_stall_us: float
    dram_accesses_per_visit: float
    service_us: Mapping[str, float]

    @property
    def per_request(self) -> bool:
        """True for modules visited once per request (parse, complete); else once per transaction."""
        return self.name in PER_REQUEST_MODULES

    def service_on(self, core: CoreSpec) -> float:
        """Per-visit service time (us) of this module on ``core``."""
        if core.name in self.service_us:
            return float(self.service_us[core.name])
        return self.cycles * core.cycle_scale / core.frequency_mhz + self.memory_stall_us


@dataclass(frozen=True)
class AcceleratorSpec:
    """A hardware unit that replaces one firmware module. ``initiation_interval_us`` <= ``latency_us``."""

    module: str
    latency_us: float
    initiation_interval_us: float
    idle_mw: float
    energy_per_op_nj: float
    unit_cost: float
    development_cost: float


@dataclass(frozen=True)
class DramSpec:
    """Controller DRAM: background power per GiB plus energy per random access and per streamed bit."""

    size_gib: float
    background_mw_per_gib: float
    access_energy_nj: float
    stream_energy_pj_per_bit: float
    data_passes_per_io: float
    cost_per_gib: float


@dataclass(frozen=True)
class SramSpec:
    """On-chip SRAM for the mapping table (seed 001: the table wholly or partly in SRAM). The mapping table's bytes
    (a DFTL cache and its directory, or the full table) fill it first and the rest stays in DRAM; a mapping lookup
    is served from SRAM in the share of the table's bytes it holds. Its leakage and cost count its whole size."""

    mapping_mib: float = 0.0  # SRAM for mapping-table bytes (0: none)
    static_mw_per_mib: float = 1.0  # leakage
    access_energy_nj: float = 0.01  # per mapping lookup served from SRAM
    cost_per_mib: float = 0.0  # relative cost (optimize)


@dataclass(frozen=True)
class SocSpec:
    """The controller chip apart from its cores, accelerators and PCIe PHY (interconnect, SRAM, ECC engines, NAND
    PHYs, leakage): one static power."""

    static_mw: float = 1708.0  # default: the study's 8 W drive x 30 % controller, less 192 mW cores and 500 mW PHY


@dataclass(frozen=True)
class Workload:
    """Host workload. Exactly one of ``queue_depth`` (closed) or ``arrival_iops`` (open) is set."""

    read_fraction: float
    request_sizes_kib: tuple[float, ...]
    request_size_probs: tuple[float, ...]
    queue_depth: int | None
    arrival_iops: float | None
    address_pattern: str
    hot_access_fraction: float
    hot_space_fraction: float
    mapping_unit_kib: float

    @property
    def closed(self) -> bool:
        """True for a closed (fixed queue depth) workload."""
        return self.queue_depth is not None

    @property
    def mean_request_bytes(self) -> float:
        """Mean request size in bytes."""
        return sum(s * p for s, p in zip(self.request_sizes_kib, self.request_size_probs)) * KIB

    def transactions_for(self, size_kib: float) -> int:
        """Transactions (mapping units) one aligned request of ``size_kib`` splits into."""
        return max(1, math.ceil(size_kib / self.mapping_unit_kib - 1e-9))

    @property
    def read_bytes_per_transaction(self) -> float:
        """Bytes a read transaction moves on its channel: where every request fits one mapping unit, its own
        sectors (the mean request size: a 4 KiB read of a 16 KiB unit moves 4 KiB, as MQSim's reads do); where
        requests split into several units, the whole unit (a partial last unit is not told apart)."""
        if max(self.request_sizes_kib) <= self.mapping_unit_kib:
            return self.mean_request_bytes
        return self.mapping_unit_kib * KIB

    @property
    def mean_transactions(self) -> float:
        """Mean transactions per request."""
        return sum(self.transactions_for(s) * p for s, p in zip(self.request_sizes_kib, self.request_size_probs))


SEQUENTIAL_ALLOCATIONS = ("random", "channel_first")
DIE_SCHEDULINGS = ("fcfs", "reads_first")
CHANNEL_SCHEDULINGS = ("fcfs", "data_out_first")
SUSPEND_MODES = ("none", "program", "erase", "program_erase")
FTL_MAPPINGS = ("full", "dftl", "partitioned")
GC_POLICIES = ("greedy", "fifo")
DRIVE_STATES = ("steady", "fresh")
CACHE_GRANULARITIES = ("page", "entry")


@dataclass(frozen=True)
class FtlSpec:
    """Flash translation layer: write buffer, garbage collection, mapping table, endurance.

    Present only when the device file has an ``[ftl]`` table; without it the device is the ideal one (a write
    programs its page on the request's path, no GC, the whole mapping table in DRAM). See
    :mod:`ssdco.network.ftl_effects` for how each field enters the model.
    """

    gc_policy: str  # "greedy" | "fifo" victim selection (Desnoyers 2012)
    mapping: str  # "full" page table in DRAM | "dftl" cached table | "partitioned" clean/dirty cache
    cache_fraction: float  # fraction of mapping entries the DRAM cache holds (dftl / partitioned)
    cache_granularity: str  # "page" (translation pages) | "entry" ((LPN, PPN) pairs), dftl only
    dirty_fraction: float  # partitioned: share of the cache given to the dirty (entry-logged) area
    pe_cycles: float  # program/erase rating of a block
    write_buffer_kib: float  # DRAM write buffer; when it is full a write waits for its own flush; 0: write-through
    capacity_gb: float  # user (logical) capacity, decimal GB
    drive_state: str = "steady"  # "steady": GC at its steady state | "fresh": the run ends before GC starts
    # share of host read units found in the DRAM buffer: no NAND read, channel transfer or mapping-table read
    read_hit_fraction: float = 0.0
    flush_fraction: float = 1.0  # share of host write units that reach NAND (the rest overwritten while buffered)
    # write amplification of GC and merges, measured (ssdco trace, a drive's counters); None: Desnoyers' closed form
    waf: float | None = None

    @property
    def logical_bytes(self) -> int:
        """User capacity in bytes."""
        return int(round(self.capacity_gb * 1e9))


@dataclass(frozen=True)
class Variability:
    """Squared coefficients of variation of service times (0 = deterministic, the default)."""

    firmware_scv: float
    nand_scv: float
    host_scv: float


@dataclass(frozen=True)
class Budgets:
    """Design limits. ``core_power_mw`` covers cores plus accelerators (the controller's compute side);
    ``drive_power_mw`` the whole drive (controller, DRAM, NAND, PCIe PHY)."""

    core_power_mw: float
    dram_power_mw: float
    min_iops: float
    drive_power_mw: float = math.inf


@dataclass(frozen=True)
class CoreGroup:
    """``count`` identical cores of ``spec`` sharing FCFS the work of ``modules``."""

    name: str
    spec: str
    count: int
    modules: tuple[str, ...]


@dataclass(frozen=True)
class Controller:
    """A hardware/software split: each module on exactly one core group or accelerator."""

    name: str
    description: str
    core_groups: tuple[CoreGroup, ...]
    accelerator_units: Mapping[str, int]

    def placement(self, module: str) -> tuple[str, str]:
        """Where ``module`` runs: ``("core", group name)`` or ``("accel", module)``."""
        if module in self.accelerator_units:
            return ("accel", module)
        for g in self.core_groups:
            if module in g.modules:
                return ("core", g.name)
        raise KeyError(module)


@dataclass(frozen=True)
class Config:
    """A complete, validated configuration: device, workload, budgets and one controller."""

    name: str
    source: str
    nand: NandSpec
    host: HostSpec
    core_specs: Mapping[str, CoreSpec]
    modules: Mapping[str, ModuleSpec]
    accelerator_specs: Mapping[str, AcceleratorSpec]
    dram: DramSpec
    workload: Workload
    variability: Variability
    budgets: Budgets
    controller: Controller
    raw: Mapping[str, Any] = field(repr=False, compare=False, hash=False, default_factory=dict)
    ftl: FtlSpec | None = None
    soc: SocSpec = SocSpec()
    sram: SramSpec = SramSpec()

    def with_controller(self, controller: Controller) -> "Config":
        """A copy with another controller (validated against this device's specs)."""
        check_controller(self.source, controller, self.core_specs, self.accelerator_specs)
        return replace(self, controller=controller)


def check_controller(source: str, c: Controller, core_specs: Mapping[str, CoreSpec],
                      accel_specs: Mapping[str, AcceleratorSpec], prefix: str = "") -> None:
    """Every module placed exactly once, on a known core spec or an accelerator that has a spec."""
    pre = f"{prefix}." if prefix else ""
    seen: dict[str, str] = {}
    names = set()
    for i, g in enumerate(c.core_groups):
        if g.spec not in core_specs:
            raise ConfigError(source, f"{pre}core_groups[{i}].spec", g.spec,
                              f"unknown core spec; defined: {', '.join(core_specs)}")
        if g.name in names:
            raise ConfigError(source, f"{pre}core_groups[{i}].name", g.name, "core group names must be unique")
        names.add(g.name)
        for m in g.modules:
            if m in seen:
                raise ConfigError(source, f"{pre}core_groups[{i}].modules", list(g.modules),
                                  f"module '{m}' is already placed on {seen[m]}; place each module exactly once")
            seen[m] = f"core group '{g.name}'"
    for m in c.accelerator_units:
        if m in seen:
            raise ConfigError(source, f"{pre}accelerators.{m}", c.accelerator_units[m],
                              f"module '{m}' is already placed on {seen[m]}; place each module exactly once")
        if m not in accel_specs:
            raise ConfigError(source, f"{pre}accelerators.{m}", c.accelerator_units[m],
                              f"no accelerator_specs.{m} in the device file; "
                              f"defined: {', '.join(accel_specs) or 'none'}")
        seen[m] = "an accelerator"
    missing = [m for m in MODULES if m not in seen]
    if missing:
        raise ConfigError(source, f"{pre}core_groups", [list(g.modules) for g in c.core_groups],
                          f"modules not placed on any core group or accelerator: {', '.join(missing)}")
