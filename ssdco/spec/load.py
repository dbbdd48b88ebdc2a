"""Configuration: read TOML files and check them (:func:`load_config`, :func:`config_from_dict`, overrides).

This is the only module that reads files. A configuration is one *device* file (NAND, host interface,
core specs, firmware modules, accelerator specs, DRAM, workload, budgets) plus one *controller* (which
firmware module runs on which core group or accelerator). The controller is either inline in the device
file (``[controller]``), named by ``controller = "c01"`` (looked up in ``<config dir>/controllers/``), or
given on the command line (``--controller c07`` or a path).

Every user error raises :class:`ssdco.errors.ConfigError` naming the file, the field, the bad value and
what is allowed. Internally times are microseconds, powers milliwatts, energies nanojoules, sizes bytes;
the unit is part of every field name.
"""

from __future__ import annotations

import math
import os
import stat
import tomllib
from pathlib import Path
from typing import Any, Mapping

from ssdco.errors import MISSING, ConfigError
from ssdco.ftl.mapping_cache import full_mapping_table_bytes
from ssdco.spec.schema import (
    CACHE_GRANULARITIES,
    CHANNEL_SCHEDULINGS,
    CQE_BYTES,
    DIE_SCHEDULINGS,
    DRIVE_STATES,
    FTL_MAPPINGS,
    GC_POLICIES,
    GIB,
    KIB,
    MAPPING_ENTRY_BYTES,
    MODULES,
    PCIE_GT_PER_S,
    SCHEMA_VERSION,
    SEQUENTIAL_ALLOCATIONS,
    SUSPEND_MODES,
    AcceleratorSpec,
    Budgets,
    Config,
    Controller,
    CoreGroup,
    CoreSpec,
    DramSpec,
    FtlSpec,
    HostSpec,
    ModuleSpec,
    NandSpec,
    SocSpec,
    SramSpec,
    Variability,
    Workload,
    check_controller,
)
from ssdco.spec.search_options import parse_options


# --------------------------------------------------------------------------------------------------
# Field validation helpers
# --------------------------------------------------------------------------------------------------
class _Reader:
    """Reads typed fields out of a TOML table, raising ConfigError with full paths."""

    def __init__(self, source: str, table: Mapping[str, Any], path: str):
        self.source = source
        self.table = table
        self.path = path
        self.used: set[str] = set()
        if not isinstance(table, Mapping):
            raise ConfigError(source, path or "<root>", table, "expected a table")

    def _name(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def error(self, key: str, value: Any, allowed: str) -> ConfigError:
        return ConfigError(self.source, self._name(key), value, allowed)

    def get(self, key: str, default: Any = MISSING) -> Any:
        self.used.add(key)
        if key in self.table:
            return self.table[key]
        if default is MISSING:
            raise self.error(key, MISSING, "required field is missing")
        return default

    def number(self, key: str, default: Any = MISSING, *, lo: float | None = None, hi: float | None = None,
               lo_open: bool = False, hi_open: bool = False) -> float:
        v = self.get(key, default)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise self.error(key, v, f"expected a finite number{_range_text(lo, hi, lo_open, hi_open)}")
        if v != 0 and not MIN_MAGNITUDE <= abs(v) <= MAX_MAGNITUDE:
            # no figure of a drive is that large or small; such values only overflow the models' arithmetic
            bounds = _range_text(lo, hi, lo_open, hi_open)
            raise self.error(key, v, f"out of range: allowed{bounds}{',' if bounds else ''} 0 or a magnitude "
                                     f"between {MIN_MAGNITUDE:g} and {MAX_MAGNITUDE:g}")
        if (lo is not None and (v < lo or (lo_open and v == lo))) or (
                hi is not None and (v > hi or (hi_open and v == hi))):
            raise self.error(key, v, f"out of range: allowed{_range_text(lo, hi, lo_open, hi_open)}")
        return float(v)

    def integer(self, key: str, default: Any = MISSING, *, lo: int | None = None, hi: int | None = None) -> int:
        v = self.get(key, default)
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.error(key, v, f"expected an integer{_range_text(lo, hi)}")
        if abs(v) > MAX_MAGNITUDE:  # as for numbers: no drive figure is that large
            bounds = _range_text(lo, hi)
            raise self.error(key, v, f"out of range: allowed{bounds}{',' if bounds else ''} a magnitude up to "
                                     f"{MAX_MAGNITUDE:g}")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            raise self.error(key, v, f"out of range: allowed{_range_text(lo, hi)}")
        return int(v)

    def boolean(self, key: str, default: Any = MISSING) -> bool:
        v = self.get(key, default)
        if not isinstance(v, bool):
            raise self.error(key, v, "expected true or false")
        return v

    def string(self, key: str, default: Any = MISSING, *, choices: tuple[str, ...] | None = None) -> str:
        v = self.get(key, default)
        if not isinstance(v, str):
            raise self.error(key, v, "expected a string" + (f": one of {', '.join(choices)}" if choices else ""))
        if choices is not None and v not in choices:
            raise self.error(key, v, f"expected one of {', '.join(choices)}")
        return v

    def sub(self, key: str, default: Any = MISSING) -> "_Reader":
        v = self.get(key, default)
        if not isinstance(v, Mapping):
            raise self.error(key, v, "expected a table")
        return _Reader(self.source, v, self._name(key))

    def finish(self, also_allowed: tuple[str, ...] = ()) -> None:
        """Reject keys nobody asked for (typos must not pass silently)."""
        extra = sorted(set(self.table) - self.used - set(also_allowed))
        if extra:
            key = extra[0]
            allowed = ", ".join(sorted(self.used | set(also_allowed))) or "no fields"
            raise self.error(key, self.table[key], f"unknown field; allowed here: {allowed}")


#: Magnitudes a number in a configuration may take (besides 0): no drive figure in any unit used here
#: (us, mW, nJ, pJ/bit, KiB, GB, MT/s, IOPS, cycles) comes near either end.
MIN_MAGNITUDE, MAX_MAGNITUDE = 1e-12, 1e12
#: Largest write buffer, KiB (64 MiB, 32 x the PM9A3's 2 MiB): the buffer's throughput bound is a product-form
#: convolution over its slots, by FFT above 1,024 of them (60 ms at this size, where the log-space convolution
#: takes 15 s: benchmarks/speed.py write-buffer); the DES keeps a job slot per buffer slot.
MAX_WRITE_BUFFER_KIB = 65536
#: Largest request, KiB: 1,024 transactions of 4 KiB (whatif takes ~3 s there and grows with the square;
#: NVMe hosts split transfers at the drive's MDTS, commonly 128 KiB - 2 MiB).
MAX_REQUEST_KIB = 4096
MAX_QUEUE_DEPTH = 4096  # requests in flight of a closed workload
MAX_TRANSACTIONS = 1024  # mapping units per request (the same bound with smaller units)
#: The host's logical block, KiB: request sizes, mapping units and pages are whole multiples of it (512 B, the
#: smallest NVMe LBA format; NVMe Base Specification 2.0, "LBA Format Data Structure").
SECTOR_KIB = 0.5
#: Lightest open workload: one request per 1,000 s (slower ones outrun the DES clock's float precision).
MIN_ARRIVAL_IOPS = 0.001


def _range_text(lo, hi, lo_open=False, hi_open=False) -> str:
    if lo is None and hi is None:
        return ""
    left = "" if lo is None else (f" > {lo}" if lo_open else f" >= {lo}")
    right = "" if hi is None else (f" < {hi}" if hi_open else f" <= {hi}")
    return (left + ("," if left and right else "") + right)


# --------------------------------------------------------------------------------------------------
# Section parsers
# --------------------------------------------------------------------------------------------------
def _parse_nand(r: _Reader) -> NandSpec:
    spec = NandSpec(
        channels=r.integer("channels", lo=1, hi=256),
        ways_per_channel=r.integer("ways_per_channel", lo=1, hi=64),
        dies_per_chip=r.integer("dies_per_chip", 1, lo=1, hi=16),
        planes_per_die=r.integer("planes_per_die", 1, lo=1, hi=16),
        page_size_kib=r.number("page_size_kib", 16, lo=0.5, hi=1024),
        pages_per_block=r.integer("pages_per_block", 1152, lo=1),
        blocks_per_plane=r.integer("blocks_per_plane", 1000, lo=1),
        t_read_us=r.number("t_read_us", lo=0, lo_open=True),
        t_prog_us=r.number("t_prog_us", lo=0, lo_open=True),
        t_erase_us=r.number("t_erase_us", 5000, lo=0, lo_open=True),
        channel_rate_mts=r.number("channel_rate_mts", lo=0, lo_open=True),
        channel_width_bits=r.integer("channel_width_bits", 8, lo=1, hi=64),
        ecc_overhead_fraction=r.number("ecc_overhead_fraction", 0.0, lo=0, hi=1),
        independent_plane_reads=r.boolean("independent_plane_reads", False),
        over_provisioning=r.number("over_provisioning", 0.07, lo=0, lo_open=True, hi=4),
        multi_plane_program_fraction=r.number("multi_plane_program_fraction", 1.0, lo=0, hi=1),
        die_held_through_transfer=r.boolean("die_held_through_transfer", False),
        command_us=r.number("command_us", 0.0, lo=0),
        sequential_allocation=r.string("sequential_allocation", "random", choices=SEQUENTIAL_ALLOCATIONS),
        die_scheduling=r.string("die_scheduling", "fcfs", choices=DIE_SCHEDULINGS),
        channel_scheduling=r.string("channel_scheduling", "fcfs", choices=CHANNEL_SCHEDULINGS),
        suspend=r.string("suspend", "none", choices=SUSPEND_MODES),
        t_suspend_program_us=r.number("t_suspend_program_us", 100.0, lo=0),
        t_suspend_erase_us=r.number("t_suspend_erase_us", 700.0, lo=0),
        cost_per_channel=r.number("cost_per_channel", 0.0, lo=0),
        cost_per_die=r.number("cost_per_die", 0.0, lo=0),
        cost_per_channel_gts=r.number("cost_per_channel_gts", 0.0, lo=0),
        read_active_mw=r.number("read_active_mw", 82.5, lo=0),
        program_active_mw=r.number("program_active_mw", 82.5, lo=0),
        erase_active_mw=r.number("erase_active_mw", 82.5, lo=0),
        die_idle_mw=r.number("die_idle_mw", 0.1, lo=0),
        io_energy_pj_per_bit=r.number("io_energy_pj_per_bit", 5.0, lo=0),
    )
    if spec.command_us > 0 and not spec.die_held_through_transfer:
        raise r.error("command_us", spec.command_us, "0 unless nand.die_held_through_transfer = true (the command "
                      "goes over the channel once its die is held for the operation)")
    _check_suspend(r, spec)
    r.finish()
    return spec


def _check_suspend(r: _Reader, spec: NandSpec) -> None:
    """Program/erase suspend is the preemptive form of the reads-first order, at a die that serves one operation at a
    time and whose array operation is its service (not a delay of a die held for its command cycles)."""
    if spec.suspend == "none":
        return
    if spec.die_scheduling != "reads_first":
        raise r.error("suspend", spec.suspend, '"none" unless nand.die_scheduling = "reads_first" (a read suspends '
                      "the program or erase it would otherwise wait behind)")
    if spec.independent_plane_reads:
        raise r.error("suspend", spec.suspend, '"none" with nand.independent_plane_reads = true (suspend is modelled '
                      "at a die serving one operation at a time)")
    if spec.command_us > 0:
        raise r.error("suspend", spec.suspend, '"none" with nand.command_us > 0 (suspend is modelled where the array '
                      "operation is the die's own service, without command cycles)")


def _parse_host(r: _Reader) -> HostSpec:
    gen = r.integer("pcie_gen", 4)
    if gen not in PCIE_GT_PER_S:
        raise r.error("pcie_gen", gen, f"expected one of {', '.join(map(str, PCIE_GT_PER_S))}")
    lanes = r.integer("pcie_lanes", 4)
    if lanes not in (1, 2, 4, 8, 16):
        raise r.error("pcie_lanes", lanes, "expected one of 1, 2, 4, 8, 16")
    spec = HostSpec(
        pcie_gen=gen,
        pcie_lanes=lanes,
        link_efficiency=r.number("link_efficiency", 0.9, lo=0, lo_open=True, hi=1),
        command_fetch_us=r.number("command_fetch_us", 0.6, lo=0),
        completion_post_us=r.number("completion_post_us", 0.25, lo=0),
        command_bytes=r.integer("command_bytes", 88, lo=0),
        phy_mw=r.number("phy_mw", 500.0, lo=0),
        full_duplex=r.boolean("full_duplex", False),
    )
    if spec.full_duplex and spec.command_bytes < CQE_BYTES:
        raise r.error("command_bytes", spec.command_bytes, f">= {CQE_BYTES} with full_duplex = true (the {CQE_BYTES} B "
                      f"completion entry goes toward the host, the rest toward the device)")
    r.finish()
    return spec


def _parse_core_specs(r: _Reader) -> dict[str, CoreSpec]:
    specs = {}
    for name in list(r.table):
        s = r.sub(name)
        idle = s.number("idle_mw", lo=0)
        active = s.number("active_mw", lo=0)
        if active < idle:
            raise s.error("active_mw", active, f"must be >= idle_mw ({idle})")
        specs[name] = CoreSpec(
            name=name,
            frequency_mhz=s.number("frequency_mhz", lo=0, lo_open=True),
            idle_mw=idle,
            active_mw=active,
            cycle_scale=s.number("cycle_scale", 1.0, lo=0, lo_open=True),
            cost=s.number("cost", 1.0, lo=0),
        )
        s.finish()
    if not specs:
        raise ConfigError(r.source, r.path, {}, "at least one core spec table is required")
    r.finish()
    return specs


def _parse_modules(r: _Reader, core_specs: Mapping[str, CoreSpec]) -> dict[str, ModuleSpec]:
    modules = {}
    for name in MODULES:
        s = r.sub(name)
        overrides = s.sub("service_us", {})
        times = {}
        for spec_name in list(overrides.table):
            if spec_name not in core_specs:
                raise overrides.error(spec_name, overrides.table[spec_name],
                                      f"unknown core spec; defined: {', '.join(core_specs)}")
            times[spec_name] = overrides.number(spec_name, lo=0, lo_open=True)
        overrides.finish()
        modules[name] = ModuleSpec(
            name=name,
            cycles=s.number("cycles", lo=0),
            memory_stall_us=s.number("memory_stall_us", 0.0, lo=0),
            dram_accesses_per_visit=s.number("dram_accesses_per_visit", 0.0, lo=0),
            service_us=times,
        )
        s.finish()
    r.finish()
    return modules


def _parse_accelerators(r: _Reader) -> dict[str, AcceleratorSpec]:
    accels = {}
    for name in list(r.table):
        if name not in MODULES:
            raise r.error(name, r.table[name], f"unknown module; expected one of {', '.join(MODULES)}")
        s = r.sub(name)
        latency = s.number("latency_us", lo=0, lo_open=True)
        ii = s.number("initiation_interval_us", latency, lo=0, lo_open=True)
        if ii > latency:
            raise s.error("initiation_interval_us", ii, f"must be <= latency_us ({latency})")
        accels[name] = AcceleratorSpec(
            module=name,
            latency_us=latency,
            initiation_interval_us=ii,
            idle_mw=s.number("idle_mw", lo=0),
            energy_per_op_nj=s.number("energy_per_op_nj", lo=0),
            unit_cost=s.number("unit_cost", 1.0, lo=0),
            development_cost=s.number("development_cost", 0.0, lo=0),
        )
        s.finish()
    r.finish()
    return accels


def _parse_dram(r: _Reader) -> DramSpec:
    spec = DramSpec(
        size_gib=r.number("size_gib", lo=0),
        background_mw_per_gib=r.number("background_mw_per_gib", lo=0),
        access_energy_nj=r.number("access_energy_nj", lo=0),
        stream_energy_pj_per_bit=r.number("stream_energy_pj_per_bit", 0.0, lo=0),
        data_passes_per_io=r.number("data_passes_per_io", 0.0, lo=0),
        cost_per_gib=r.number("cost_per_gib", 0.0, lo=0),
    )
    r.finish()
    return spec


ADDRESS_PATTERNS = ("uniform", "hot_cold", "jesd219", "sequential")
WORKLOAD_PRESETS = ("none", "jesd219")
#: JESD219 enterprise transfer-size mix (KiB, probability): 512 B 4 %, 1-3.5 KiB 1 % each, 4 KiB 67 %,
#: 8 KiB 10 %, 16 KiB 7 %, 32 KiB 3 %, 64 KiB 3 % (JEDEC JESD219, 2010; reference-parameters.md §7.3).
JESD219_SIZES_KIB = (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 8.0, 16.0, 32.0, 64.0)
JESD219_SIZE_PROBS = (0.04, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.67, 0.10, 0.07, 0.03, 0.03)


def _with_jesd219_sizes(r: _Reader) -> _Reader:
    """A reader of the same ``[workload]`` table with the JESD219 size mix as its ``request_size_kib``."""
    raw_size = {"sizes": list(JESD219_SIZES_KIB), "probabilities": list(JESD219_SIZE_PROBS)}
    out = _Reader(r.source, {**r.table, "request_size_kib": raw_size}, r.path)
    out.used.update({"preset", "read_fraction"})
    return out


def _whole_sectors(kib: float) -> bool:
    """Whether ``kib`` is a positive whole number of ``SECTOR_KIB`` sectors (to 1e-9 of a sector)."""
    sectors = kib / SECTOR_KIB
    return sectors >= 1.0 - 1e-9 and abs(sectors - round(sectors)) <= 1e-9


SECTORS = f"a multiple of the {SECTOR_KIB * KIB:g} B sector ({SECTOR_KIB:g} KiB: 0.5, 1, 4, 16, ...)"


def _size_mix(s: _Reader) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """``request_size_kib = {sizes = [...], probabilities = [...]}``: sizes (KiB) and their probabilities."""
    sizes, probs = s.get("sizes"), s.get("probabilities")
    for key, seq in (("sizes", sizes), ("probabilities", probs)):
        if (not isinstance(seq, list) or not seq
                or any(isinstance(x, bool) or not isinstance(x, (int, float)) for x in seq)):
            raise s.error(key, seq, "expected a non-empty list of numbers")
    if len(sizes) != len(probs):
        raise s.error("probabilities", probs, f"expected {len(sizes)} entries, one per size")
    if any(not 0 < x <= MAX_REQUEST_KIB or x < MIN_MAGNITUDE for x in sizes):
        raise s.error("sizes", sizes, f"every size must be > 0 and <= {MAX_REQUEST_KIB} KiB")
    if not all(_whole_sectors(x) for x in sizes):
        raise s.error("sizes", sizes, f"every size must be {SECTORS}")
    if any(not math.isfinite(p) or p < 0 for p in probs) or abs(sum(probs) - 1.0) > 1e-6:
        raise s.error("probabilities", probs, "expected non-negative numbers summing to 1")
    s.finish()
    return tuple(float(x) for x in sizes), tuple(float(p) for p in probs)


def _request_sizes(r: _Reader) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """``request_size_kib``: one size (KiB, default 4) or a size mix, as (sizes, probabilities)."""
    if isinstance(r.get("request_size_kib", 4), Mapping):
        return _size_mix(r.sub("request_size_kib"))
    size = r.number("request_size_kib", 4, lo=0, lo_open=True, hi=MAX_REQUEST_KIB)
    if not _whole_sectors(size):
        raise r.error("request_size_kib", size, SECTORS)
    return (size,), (1.0,)


def _queue_depth_or_arrival(r: _Reader) -> tuple[int | None, float | None]:
    """``queue_depth`` (a closed workload) or ``arrival_iops`` (an open one): exactly one is set."""
    qd = r.get("queue_depth", None)
    arrival = r.get("arrival_iops", None)
    if (qd is None) == (arrival is None):
        raise r.error("queue_depth", qd if qd is not None else MISSING,
                      "set exactly one of queue_depth (closed workload) or arrival_iops (open workload)")
    if qd is not None:
        qd = r.integer("queue_depth", lo=1, hi=MAX_QUEUE_DEPTH)
    if arrival is not None:
        arrival = r.number("arrival_iops", lo=MIN_ARRIVAL_IOPS)
    return qd, arrival


def _parse_workload(r: _Reader) -> Workload:
    """The ``[workload]`` table (a ``preset`` supplies the defaults it names)."""
    preset = r.string("preset", "none", choices=WORKLOAD_PRESETS)
    read_fraction = r.number("read_fraction", 1.0, lo=0, hi=1)
    if preset == "jesd219" and "request_size_kib" not in r.table:
        r = _with_jesd219_sizes(r)
    sizes_t, probs_t = _request_sizes(r)
    qd, arrival = _queue_depth_or_arrival(r)
    pattern = r.string("address_pattern", "jesd219" if preset == "jesd219" else "uniform", choices=ADDRESS_PATTERNS)
    unit_kib = r.number("mapping_unit_kib", 4, lo=0.5, hi=1024)
    if not _whole_sectors(unit_kib):
        raise r.error("mapping_unit_kib", unit_kib, SECTORS)
    if max(sizes_t) / unit_kib > MAX_TRANSACTIONS:
        raise r.error("request_size_kib", r.table.get("request_size_kib", 4),
                      f"a request may split into at most {MAX_TRANSACTIONS} mapping units of {unit_kib:g} KiB "
                      f"(largest size <= {MAX_TRANSACTIONS * unit_kib:g} KiB)")
    w = Workload(
        read_fraction=read_fraction,
        request_sizes_kib=sizes_t,
        request_size_probs=probs_t,
        queue_depth=qd,
        arrival_iops=arrival,
        address_pattern=pattern,
        hot_access_fraction=r.number("hot_access_fraction", 0.8, lo=0, hi=1),
        hot_space_fraction=r.number("hot_space_fraction", 0.2, lo=0, lo_open=True, hi=1, hi_open=True),
        mapping_unit_kib=unit_kib,
    )
    r.finish()
    return w


def _parse_ftl(r: _Reader, nand: NandSpec) -> FtlSpec:
    mapping = r.string("mapping", "full", choices=FTL_MAPPINGS)
    fraction = r.number("cache_fraction", 1.0 if mapping == "full" else 0.25, lo=0, lo_open=True, hi=1)
    if mapping == "full" and fraction != 1.0:
        raise r.error("cache_fraction", fraction, "must be 1 with mapping = \"full\" (the whole table is in DRAM)")
    raw_bytes = (nand.dies * nand.planes_per_die * nand.blocks_per_plane * nand.pages_per_block
                 * nand.page_size_kib * KIB)
    spec = FtlSpec(
        gc_policy=r.string("gc_policy", "greedy", choices=GC_POLICIES),
        drive_state=r.string("drive_state", "steady", choices=DRIVE_STATES),
        mapping=mapping,
        cache_fraction=fraction,
        cache_granularity=r.string("cache_granularity", "page", choices=CACHE_GRANULARITIES),
        dirty_fraction=r.number("dirty_fraction", 0.1, lo=0, lo_open=True, hi=1, hi_open=True),
        pe_cycles=r.number("pe_cycles", 3000, lo=1),
        write_buffer_kib=r.number("write_buffer_kib", 2048, lo=0, hi=MAX_WRITE_BUFFER_KIB),
        capacity_gb=r.number("capacity_gb", raw_bytes / (1.0 + nand.over_provisioning) / 1e9, lo=1e-6),
        read_hit_fraction=r.number("read_hit_fraction", 0.0, lo=0, hi=1, hi_open=True),
        flush_fraction=r.number("flush_fraction", 1.0, lo=0, lo_open=True, hi=1),
        waf=r.number("waf", lo=1) if "waf" in r.table else None,
    )
    if spec.capacity_gb * 1e9 > raw_bytes:
        raise r.error("capacity_gb", spec.capacity_gb,
                      f"<= the raw NAND capacity (dies x planes x blocks_per_plane x pages_per_block x "
                      f"page_size_kib of [nand]), here {raw_bytes / 1e9:.6g} GB: lower ftl.capacity_gb with a "
                      f"smaller geometry, or leave it out to take the raw capacity / (1 + nand.over_provisioning)")
    r.finish(also_allowed=("waf",))
    return spec


def full_mapping_table_gib(ftl: FtlSpec, mapping_unit_kib: float) -> float:
    """GiB of the full page-level mapping table: one ``MAPPING_ENTRY_BYTES`` entry per mapped unit of the user
    capacity (960 GB in 4 KiB units: 234.4 M entries, 894 MiB; reference-parameters.md §4.3)."""
    return full_mapping_table_bytes(max(1, ftl.logical_bytes), int(mapping_unit_kib * KIB), MAPPING_ENTRY_BYTES) / GIB


def _check_page_holds_mapping_unit(r: _Reader, nand: NandSpec, workload: Workload) -> None:
    """A NAND page is a whole number of sectors and holds at least one mapping unit: the FTL maps units into
    pages, and a unit larger than a page would be spread over several programs."""
    if not _whole_sectors(nand.page_size_kib):
        raise r.error("nand.page_size_kib", nand.page_size_kib, SECTORS)
    if nand.page_size_kib < workload.mapping_unit_kib:
        raise r.error("nand.page_size_kib", nand.page_size_kib,
                      f">= workload.mapping_unit_kib ({workload.mapping_unit_kib:g} KiB): a NAND page holds one or "
                      f"more mapping units")


def _check_dram_holds_mapping_table(r: _Reader, dram: DramSpec, ftl: FtlSpec, workload: Workload) -> None:
    """With an ``[ftl]`` table, ``dram.size_gib`` is the DRAM of the drive with the full page-level table in it;
    a "dftl" or "partitioned" mapping then replaces the table by its cache (:mod:`ssdco.network.ftl_effects`). So the
    DRAM must hold the full table: below it a "full" drive cannot exist, and a cached table's derived DRAM size
    would be negative (the one would pass as configured, the other clamped to 0)."""
    table_gib = full_mapping_table_gib(ftl, workload.mapping_unit_kib)
    if dram.size_gib < table_gib:
        raise r.error("dram.size_gib", dram.size_gib,
                      f">= {table_gib:.4g}: with [ftl] it is the DRAM of the drive holding the full page-level "
                      f"mapping table, {ftl.capacity_gb:g} GB in {workload.mapping_unit_kib:g} KiB units at "
                      f"{MAPPING_ENTRY_BYTES} B each ({table_gib:.4g} GiB); ftl.mapping = \"dftl\" or "
                      f"\"partitioned\" then replaces the table by its cache")


def _parse_variability(r: _Reader) -> Variability:
    v = Variability(
        firmware_scv=r.number("firmware_scv", 0.0, lo=0, hi=100),
        nand_scv=r.number("nand_scv", 0.0, lo=0, hi=100),
        host_scv=r.number("host_scv", 0.0, lo=0, hi=100),
    )
    r.finish()
    return v


def _parse_budgets(r: _Reader) -> Budgets:
    def limit(key: str) -> float:  # an absent budget is unlimited
        return r.number(key, lo=0, lo_open=True) if key in r.table else math.inf

    b = Budgets(
        core_power_mw=limit("core_power_mw"),
        dram_power_mw=limit("dram_power_mw"),
        min_iops=r.number("min_iops", 0.0, lo=0),
        drive_power_mw=limit("drive_power_mw"),
    )
    r.finish(also_allowed=("core_power_mw", "dram_power_mw", "drive_power_mw"))
    return b


def _parse_sram(r: _Reader) -> SramSpec:
    spec = SramSpec(mapping_mib=r.number("mapping_mib", 0.0, lo=0),
                    static_mw_per_mib=r.number("static_mw_per_mib", 1.0, lo=0),
                    access_energy_nj=r.number("access_energy_nj", 0.01, lo=0),
                    cost_per_mib=r.number("cost_per_mib", 0.0, lo=0))
    r.finish()
    return spec


def _check_sram_has_a_mapping_table(r: _Reader, sram: SramSpec, ftl: FtlSpec | None) -> None:
    """SRAM for the mapping table needs an ``[ftl]`` table: the table's size and placement come from it."""
    if sram.mapping_mib > 0 and ftl is None:
        raise ConfigError(r.source, "sram.mapping_mib", sram.mapping_mib,
                          "SRAM for the mapping table needs an [ftl] table (its size and placement come from it); "
                          "add [ftl] or set 0")


def _parse_soc(r: _Reader) -> SocSpec:
    spec = SocSpec(static_mw=r.number("static_mw", 1708.0, lo=0))
    r.finish()
    return spec


def parse_controller(source: str, table: Mapping[str, Any], default_name: str = "controller",
                     prefix: str = "") -> Controller:
    """Build a :class:`Controller` from a TOML table (``[[core_groups]]`` + ``[accelerators]``).

    ``prefix`` is the table's dotted path in its file (``"controller"`` for an inline table)."""
    r = _Reader(source, table, prefix)
    name = r.string("name", default_name)
    description = r.string("description", "")
    groups_raw = r.get("core_groups", [])
    if not isinstance(groups_raw, list):
        raise r.error("core_groups", groups_raw, "expected an array of tables [[core_groups]]")
    groups = []
    for i, g in enumerate(groups_raw):
        gr = _Reader(source, g, r._name(f"core_groups[{i}]"))
        mods = gr.get("modules")
        if not isinstance(mods, list) or not mods or not all(isinstance(m, str) for m in mods):
            raise gr.error("modules", mods, f"expected a non-empty list of module names from {', '.join(MODULES)}")
        for m in mods:
            if m not in MODULES:
                raise gr.error("modules", mods, f"unknown module '{m}'; expected names from {', '.join(MODULES)}")
        groups.append(CoreGroup(
            name=gr.string("name", f"g{i + 1}"),
            spec=gr.string("spec"),
            count=gr.integer("count", 1, lo=1, hi=256),
            modules=tuple(mods),
        ))
        gr.finish()
    acc = r.sub("accelerators", {})
    units = {}
    for m in list(acc.table):
        if m not in MODULES:
            raise acc.error(m, acc.table[m], f"unknown module; expected one of {', '.join(MODULES)}")
        units[m] = acc.integer(m, lo=1, hi=256)
    acc.finish()
    r.finish()
    return Controller(name=name, description=description, core_groups=tuple(groups), accelerator_units=units)


# --------------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------------
def _read_toml(path: Path) -> dict[str, Any]:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = None  # reported by open() below, with the reason
    if mode is not None and (stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISSOCK(mode)):
        # /dev/zero would be read forever; a pipe (``<(cat x.toml)``) is fine and read to its end
        raise ConfigError(str(path), "<file>", str(path), "expected a TOML file, got a device or socket")
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise ConfigError(str(path), "<file>", str(path), "file not found") from None
    except IsADirectoryError:
        raise ConfigError(str(path), "<file>", str(path), "expected a TOML file, got a directory") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(str(path), "<syntax>", str(e), "the file must be valid TOML") from None
    except UnicodeDecodeError:
        raise ConfigError(str(path), "<file>", str(path), "the file must be UTF-8 text") from None
    except OSError as e:  # a symlink loop, a parent that is a file, no permission, ...
        raise ConfigError(str(path), "<file>", str(path), f"cannot read it: {e.strerror or e}") from None


def parse_override(text: str) -> tuple[list[str], Any]:
    """Parse one ``--set path.to.field=value`` override; the value is a TOML literal or a bare string."""
    if "=" not in text:
        raise ConfigError("--set", text, text, "expected path.to.field=value")
    key, value_text = text.split("=", 1)
    key = key.strip()
    parts = key.split(".")
    if not key or any(not p for p in parts):
        raise ConfigError("--set", key, text, "expected a dotted field path such as workload.queue_depth")
    try:
        value = tomllib.loads(f"v = {value_text.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        value = value_text.strip()
    return parts, value


# fields of which a config sets exactly one: an override of one replaces the other from the file
EXCLUSIVE_FIELDS = (("workload", "queue_depth", "arrival_iops"),)
# fields a workload preset sets: overriding the preset (to one other than "none") drops the file's own values of
# them, which would otherwise win over the preset, unless the command line sets them too
PRESET_FIELDS = ("request_size_kib", "address_pattern")


def apply_overrides(raw: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """Return a deep copy of ``raw`` with each ``path=value`` override applied.

    Overriding one of a pair of mutually exclusive fields (``workload.queue_depth`` for a closed
    workload, ``workload.arrival_iops`` for an open one) drops the other from the file's values, so
    ``--set workload.arrival_iops=200000`` turns a closed preset into an open workload; overriding both
    is still refused by the validation. Likewise ``--set workload.preset="jesd219"`` drops the file's
    ``request_size_kib`` and ``address_pattern`` (:data:`PRESET_FIELDS`), so that the preset sets them."""
    import copy

    out = copy.deepcopy(raw)
    parsed = [parse_override(text) for text in overrides]
    set_paths = {tuple(parts) for parts, _ in parsed}
    for table, first, second in EXCLUSIVE_FIELDS:
        for mine, other in ((first, second), (second, first)):
            if (table, mine) in set_paths and (table, other) not in set_paths and isinstance(out.get(table), dict):
                out[table].pop(other, None)
    preset = next((value for parts, value in reversed(parsed) if tuple(parts) == ("workload", "preset")), None)
    if preset is not None and preset != "none" and isinstance(out.get("workload"), dict):
        for name in PRESET_FIELDS:
            if ("workload", name) not in set_paths:
                out["workload"].pop(name, None)
    for parts, value in parsed:
        node = out
        for p in parts[:-1]:
            nxt = node.get(p)
            if nxt is None:
                nxt = node[p] = {}
            if not isinstance(nxt, dict):
                raise ConfigError("--set", ".".join(parts), value,
                                  f"'{p}' is not a table, cannot set a field inside it")
            node = nxt
        node[parts[-1]] = value
    return out


def _resolve_controller_path(ref: str, base_dir: Path) -> Path:
    if not ref.strip():  # Path("") is the current directory, which made the error name "." as the file
        raise ConfigError(str(base_dir / "controllers"), "controller", ref,
                          "expected a preset name or a controller file; presets: "
                          + ", ".join(list_controller_presets(base_dir)))
    p = Path(ref)
    if p.suffix == ".toml" or p.exists():
        return p if p.is_absolute() or p.exists() else base_dir / p
    for cand in (base_dir / "controllers" / f"{ref}.toml", Path("configs/controllers") / f"{ref}.toml"):
        if cand.exists():
            return cand
    raise ConfigError(str(base_dir / "controllers"), "controller", ref,
                      "no such controller preset or file; presets: " + ", ".join(list_controller_presets(base_dir)))


def list_controller_presets(base_dir: Path) -> list[str]:
    """Names of the controller presets next to a device config (``controllers/*.toml``)."""
    d = Path(base_dir) / "controllers"
    return sorted(p.stem for p in d.glob("*.toml")) if d.is_dir() else []


def load_controller(ref: str, base_dir: Path | str = "configs", referenced_by: str | None = None) -> Controller:
    """Load a controller by preset name (``c07``) or by path of a controller TOML file.

    ``referenced_by`` says where ``ref`` came from (``--controller 'x.toml'``, ``controller = 'x.toml' in
    FILE``), for the error of a file that defines no controller."""
    path = _resolve_controller_path(ref, Path(base_dir))
    raw = _read_toml(path)
    _check_schema(str(path), raw)
    raw = {k: v for k, v in raw.items() if k != "schema_version"}
    if set(raw) <= {"name", "description"}:
        # zero bytes, whitespace or comments only (or just a name): it places no module at all, which the
        # placement check would report as an unplaced-modules list with no hint that the file is the problem
        what = ("is empty (no settings, only whitespace or comments)" if not raw else
                "defines no controller (only " + " and ".join(sorted(raw)) + ")")
        shown = f" named by {referenced_by}" if referenced_by else ""
        raise ConfigError(str(path), "<file>", str(path),
                          f"the controller file{shown} {what}; expected a controller: [[core_groups]] tables "
                          f"(name, spec, count, modules) and/or an [accelerators] table (module = units) that "
                          f"place each of {', '.join(MODULES)} exactly once, as in configs/controllers/c01.toml")
    return parse_controller(str(path), raw, default_name=path.stem)


def _check_schema(source: str, raw: Mapping[str, Any]) -> None:
    v = raw.get("schema_version", SCHEMA_VERSION)
    if isinstance(v, bool) or v != SCHEMA_VERSION:  # true == 1 in Python
        raise ConfigError(source, "schema_version", v, f"this ssdco reads schema_version = {SCHEMA_VERSION}")


def config_from_dict(raw: Mapping[str, Any], source: str = "<dict>", base_dir: Path | str = ".",
                     controller: str | Controller | None = None) -> Config:
    """Validate a configuration given as a (TOML-shaped) dict. See :func:`load_config`."""
    _check_schema(source, raw)
    r = _Reader(source, raw, "")
    r.get("schema_version", SCHEMA_VERSION)
    name = r.string("name", Path(source).stem)
    r.string("description", "")
    r.get("sources", {})  # free-form provenance notes, kept in raw
    if "nand" not in raw and ("core_groups" in raw or "accelerators" in raw):
        # a controller file (e.g. optimize --write-design's) given where the device configuration goes
        raise ConfigError(source, "nand", MISSING, "required field is missing: this is a controller file (it has "
                          "core_groups or accelerators); give a device configuration such as configs/pm9a3-960.toml "
                          "and this file with --controller")
    nand = _parse_nand(r.sub("nand"))
    host = _parse_host(r.sub("host", {}))
    core_specs = _parse_core_specs(r.sub("core_specs"))
    modules = _parse_modules(r.sub("modules"), core_specs)
    accel_specs = _parse_accelerators(r.sub("accelerator_specs", {}))
    dram = _parse_dram(r.sub("dram"))
    workload = _parse_workload(r.sub("workload"))
    _check_page_holds_mapping_unit(r, nand, workload)
    ftl = _parse_ftl(r.sub("ftl"), nand) if "ftl" in raw else None
    variability = _parse_variability(r.sub("variability", {}))
    budgets = _parse_budgets(r.sub("budgets", {}))
    soc = _parse_soc(r.sub("soc", {}))
    sram = _parse_sram(r.sub("sram", {}))
    _check_sram_has_a_mapping_table(r, sram, ftl)
    inline = r.get("controller", None)
    r.get("optimizer", None)  # checked below (ssdco.spec.search_options)
    r.finish()

    if ftl is not None:
        _check_dram_holds_mapping_table(r, dram, ftl, workload)

    own = _own_controller(source, inline, base_dir, core_specs, accel_specs)  # checked even where not used
    if isinstance(controller, Controller):
        ctrl = controller
        check_controller(source, ctrl, core_specs, accel_specs)
    elif controller is not None:
        ctrl = load_controller(controller, base_dir, referenced_by=f"--controller {controller!r}")
        check_controller(f"{source} + controller {controller}", ctrl, core_specs, accel_specs)
    elif own is not None:
        ctrl = own
    else:
        raise ConfigError(source, "controller", MISSING,
                          "give a [controller] table, controller = \"<preset>\", or --controller")
    config = Config(name=name, source=source, nand=nand, host=host, core_specs=core_specs, modules=modules,
                    accelerator_specs=accel_specs, dram=dram, workload=workload, variability=variability,
                    budgets=budgets, controller=ctrl, raw=dict(raw), ftl=ftl, soc=soc,
                    sram=sram)
    if "optimizer" in raw:
        parse_options(config, raw["optimizer"])  # every command refuses a bad [optimizer] table, not only optimize
    return config


def _own_controller(source: str, inline: Any, base_dir: Path | str, core_specs: Mapping[str, CoreSpec],
                    accel_specs: Mapping[str, AcceleratorSpec]) -> Controller | None:
    """The file's own ``controller`` (a table or a preset name), checked against its specs; None without one."""
    if inline is None:
        return None
    if isinstance(inline, Mapping):
        ctrl = parse_controller(source, inline, default_name="inline", prefix="controller")
        check_controller(source, ctrl, core_specs, accel_specs, prefix="controller")
        return ctrl
    if isinstance(inline, str):
        ctrl = load_controller(inline, base_dir, referenced_by=f"controller = {inline!r} in {source}")
        check_controller(source, ctrl, core_specs, accel_specs)
        return ctrl
    raise ConfigError(source, "controller", inline, "expected a preset name, a file path or a table")


def _check_no_controller_override(source: str, overrides: list[str], controller: Any) -> None:
    """``--set controller...`` and ``--controller`` both name the controller: refuse the pair rather than let the
    one silently win."""
    if controller is None:
        return
    for text in overrides:
        if text.split("=", 1)[0].strip().split(".")[0] == "controller":
            raise ConfigError(source, "controller", text, "--set controller... and --controller both choose the "
                              "controller; give one of them")


def load_config(path: str | Path, controller: str | Controller | None = None,
                overrides: list[str] | None = None) -> Config:
    """Load and validate a device configuration TOML file.

    Parameters
    ----------
    path : str or Path
        The device configuration (e.g. ``configs/pm9a3-960.toml``).
    controller : str, Controller or None
        A preset name (``"c07"``, looked up in ``<config dir>/controllers/``), a controller file path, a
        :class:`Controller`, or None to use the file's own ``controller`` entry.
    overrides : list of str
        ``path.to.field=value`` overrides applied before validation (TOML literals).

    Raises
    ------
    ConfigError
        On any malformed file or value, naming the file, field, value and what is allowed.
    """
    path = Path(path)
    raw = _read_toml(path)
    if overrides:
        _check_no_controller_override(str(path), overrides, controller)
        raw = apply_overrides(raw, overrides)
    return config_from_dict(raw, source=str(path), base_dir=path.parent, controller=controller)

