"""Generate docs/configuration.md, the configuration reference, from the parsers' own declarations.

The parsers in ``ssdco/spec/`` (``_parse_nand``, ``_parse_workload``, ``parse_controller``, ...) read every field
through a ``_Reader`` call such as ``r.number("t_erase_us", 5000, lo=0, lo_open=True)``; ``[optimizer]`` is read by
``ssdco/spec/search_options.py:parse_options``. This script reads those calls from the source (``ast``), so the type,
default and allowed range printed for a field are the ones the parser applies. Units come from the field name's
suffix (the project's rule: units in names); a field's note is the comment on its dataclass field, and a table's
description is its dataclass docstring.

    python tools/config_reference.py            # rewrite docs/configuration.md
    python tools/config_reference.py --check    # exit 1 if the committed file differs from the generated one
"""

from __future__ import annotations

import argparse
import ast
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from ssdco.spec import load as spec_module
from ssdco.spec import search_options as space_module

SPEC_PY = ROOT / "ssdco" / "spec" / "load.py"
SCHEMA_PY = ROOT / "ssdco" / "spec" / "schema.py"
SPACE_PY = ROOT / "ssdco" / "spec" / "search_options.py"
OUTPUT = ROOT / "docs" / "configuration.md"

READER_METHODS = {"number": "number", "integer": "integer", "boolean": "true/false", "string": "string"}

#: Units by field-name suffix, longest first (the project names every field with its unit).
UNIT_SUFFIXES = (
    ("_pj_per_bit", "pJ/bit"), ("_mw_per_gib", "mW/GiB"), ("_per_gib", "per GiB"), ("_mw_per_mib", "mW/MiB"),
    ("_per_mib", "per MiB"), ("_mib", "MiB"), ("_us", "µs"),
    ("_mw", "mW"), ("_nj", "nJ"), ("_kib", "KiB"), ("_gib", "GiB"), ("_gb", "GB (decimal)"), ("_mts", "MT/s"),
    ("_mhz", "MHz"), ("_bits", "bits"), ("_bytes", "bytes"), ("_iops", "IO/s"), ("_fraction", "fraction (0-1)"),
    ("_scv", "squared coefficient of variation"), ("_years", "years"), ("_cycles", "program/erase cycles"),
    ("_per_visit", "per visit"), ("_per_io", "per I/O"),
)
#: Units of the few fields whose name has no unit suffix.
UNIT_BY_NAME = {
    "pcie_gen": "PCIe generation", "link_efficiency": "fraction (0-1)", "<core spec>": "µs", "<module>": "units",
    "sizes": "KiB", "probabilities": "fraction (0-1)",
    "cycles": "cycles per visit at the spec's frequency", "cost": "relative cost (1.0 = one R-class 1 GHz core)",
    "cycle_scale": "factor", "over_provisioning": "fraction of the user capacity", "queue_depth": "requests",
    "count": "cores", "pcie_lanes": "lanes", "unit_cost": "relative cost per unit",
    "development_cost": "relative cost, once per accelerated module", "channels": "channels",
    "ways_per_channel": "chips", "planes_per_die": "planes", "pages_per_block": "pages",
    "blocks_per_plane": "blocks", "dies_per_chip": "dies", "utilization_cap": "fraction (0-1)",
    "des_requests": "requests", "max_units": "units", "max_cores_per_group": "cores",
    "waf": "pages programmed per page written",
}


@dataclass
class Field:
    """One configuration field as the parser declares it."""

    table: str
    key: str
    kind: str = ""
    default: str = "required"
    allowed: list[str] = field(default_factory=list)
    note: str = ""


@dataclass
class Table:
    """One TOML table and its fields, in the order the parser reads them."""

    path: str
    optional: bool
    description: str = ""
    fields: dict[str, Field] = field(default_factory=dict)


# --------------------------------------------------------------------------------------------------
# Rendering of expressions taken from the source
# --------------------------------------------------------------------------------------------------
def _eval(node: ast.AST, namespace: dict) -> object:
    """The value of a constant expression of the source, evaluated in its module's namespace; raises if not."""
    return eval(compile(ast.Expression(node), "<spec>", "eval"), dict(namespace))  # the parsers' own source text


def _text(node: ast.AST, namespace: dict, message: bool = False) -> str:
    """A source expression as text: its value if it is constant, else the phrase ``PHRASES`` gives for it.

    An expression that is neither (a parser changed) stops the generator, so no field is described wrongly."""
    try:
        value = _eval(node, namespace)
        return value if message and isinstance(value, str) else _value_text(value)
    except Exception:
        pass
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            else:
                try:
                    spec = _text(v.format_spec, namespace, True) if v.format_spec else ""
                    parts.append(format(_eval(v.value, namespace), spec))
                except Exception:
                    parts.append(_phrase(v.value))
        return "".join(parts)
    return _phrase(node)


def _phrase(node: ast.AST) -> str:
    source = ast.unparse(node)
    if source not in PHRASES:
        raise SystemExit(f"tools/config_reference.py: no phrase for the expression {source!r} of a parser; "
                         "add one to PHRASES")
    return PHRASES[source]


#: Keys that are names the user chooses (the parser's loop variable -> how the reference shows it).
NAME_KEYS = {"name": "<name>", "spec_name": "<core spec>", "m": "<module>"}

#: Types of the fields that the parser reads with ``get`` and checks itself.
KINDS = {
    "workload.request_size_kib": "number, or a table {sizes, probabilities}",
    "workload.request_size_kib.sizes": "list of numbers",
    "workload.request_size_kib.probabilities": "list of numbers",
    "controller.core_groups": "array of tables",
    "controller.core_groups[].modules": "list of module names",
    "schema_version": "integer",
    "sources": "table of free-form strings",
}

#: What each field means, by table path and key (the type, unit, default and range come from the parsers).
MEANINGS = {
    "schema_version": "the file format's version",
    "name": "the configuration's name in outputs",
    "description": "free text",
    "sources": "free-form provenance notes (kept, not interpreted)",
    "nand.channels": "channel buses",
    "nand.ways_per_channel": "chips per channel",
    "nand.dies_per_chip": "dies per chip",
    "nand.planes_per_die": "planes per die",
    "nand.page_size_kib": "flash page size",
    "nand.pages_per_block": "pages per erase block",
    "nand.blocks_per_plane": "erase blocks per plane",
    "nand.t_read_us": "array read time of a page",
    "nand.t_prog_us": "page program time",
    "nand.t_erase_us": "block erase time",
    "nand.channel_rate_mts": "channel bus transfer rate",
    "nand.channel_width_bits": "channel bus width",
    "nand.ecc_overhead_fraction": "ECC spare bytes moved per data byte",
    "nand.independent_plane_reads": "each plane serves a read on its own (a die is then that many servers)",
    "nand.multi_plane_program_fraction": "share of programs and erases that work all of a die's planes at once "
                                         "(where planes are not independent; the rest work one plane)",
    "nand.die_held_through_transfer": "a die stays busy until its read's data-out (a program's data-in) on the "
                                      "channel ends, as without cache operations (MQSim's chips; import-mqsim sets "
                                      "it); false frees it after the array operation, as ONFI cache read overlaps "
                                      "the data-out with the next array read",
    "nand.command_us": "channel time of an operation's command and address cycles (ONFI; MQSim's read command is "
                       "0.29 us): the die is picked and held, waits for its channel to carry the command, then "
                       "works; needs die_held_through_transfer",
    "nand.sequential_allocation": "where a sequential stream's pages go: \"random\" dies, or \"channel_first\": "
                                  "consecutive dies channel by channel, then the next way (MQSim's CWDP; "
                                  "import-mqsim sets it); random addresses always go to random dies",
    "nand.die_scheduling": "the order a die serves its queue: \"fcfs\" (arrival order) or \"reads_first\" (queued "
                           "reads ahead of programs, erases and background work, non-preemptive: MQSim's out-of-order "
                           "scheduler; import-mqsim sets it)",
    "nand.channel_scheduling": "the order a channel serves its queue: \"fcfs\" (arrival order) or \"data_out_first\" "
                               "(reads' waiting data-outs ahead of commands and programs' data: MQSim's ONFI NVDDR2 "
                               "channel; import-mqsim sets it)",
    "nand.suspend": "program/erase suspend at a reads_first die: \"none\", \"program\", \"erase\" or "
                    "\"program_erase\": a read that finds a write's or the background work's program (erase) in "
                    "service suspends it, is served after the suspension time, and the operation resumes where it "
                    "stopped once no read waits (one suspended per die); needs die_scheduling = \"reads_first\", "
                    "independent_plane_reads = false and command_us = 0",
    "nand.t_suspend_program_us": "time a read spends suspending a program (MQSim's default Suspend_Program_Time)",
    "nand.t_suspend_erase_us": "time a read spends suspending an erase (MQSim's default Suspend_Erase_Time)",
    "ftl.drive_state": "\"steady\": GC at its steady state; \"fresh\": the run ends before GC starts (no GC "
                       "copies or erases; endurance figures stay the steady state's)",
    "ftl.read_hit_fraction": "share of host read units found in the DRAM buffer: no NAND read, channel transfer or "
                             "mapping-table read (whatif --trace --buffer measures it)",
    "ftl.waf": "write amplification of GC and merges, measured (whatif --trace --buffer, a drive's counters); "
               "absent: Desnoyers' closed form for the gc_policy and over-provisioning",
    "nand.over_provisioning": "raw capacity over user capacity, minus 1",
    "host.full_duplex": "each direction of the PCIe link is its own station (MQSim's link; import-mqsim sets it): "
                        "read data and the 16 B completion entry toward the host, write data and the rest of "
                        "command_bytes toward the device; false: one link shared by both",
    "host.pcie_gen": "PCIe generation",
    "host.pcie_lanes": "PCIe lanes",
    "host.link_efficiency": "share of the raw link rate left after packet overhead",
    "host.command_fetch_us": "doorbell and command fetch, per request",
    "host.completion_post_us": "completion entry and interrupt, per request",
    "host.command_bytes": "command, completion and doorbell bytes on the link, per request",
    "core_specs.<name>.idle_mw": "power of a core that exists but is idle (leakage)",
    "core_specs.<name>.active_mw": "power of a fully busy core",
    "core_specs.<name>.frequency_mhz": "clock frequency",
    "core_specs.<name>.cycle_scale": "factor on every module's cycles on this core (e.g. 1.2 without caches)",
    "core_specs.<name>.cost": "relative silicon cost per core (optimize)",
    "modules.<name>.cycles": "work per visit; service time = cycles x cycle_scale / frequency + memory_stall_us",
    "modules.<name>.memory_stall_us": "fixed extra time per visit",
    "modules.<name>.dram_accesses_per_visit": "random DRAM accesses per visit (DRAM power)",
    "modules.<name>.service_us.<core spec>": "service time per visit on that core spec, instead of the cycles",
    "accelerator_specs.<name>.latency_us": "time one operation takes",
    "accelerator_specs.<name>.initiation_interval_us": "time between two operations one unit accepts (pipelining)",
    "accelerator_specs.<name>.idle_mw": "power per unit when idle",
    "accelerator_specs.<name>.energy_per_op_nj": "energy per operation",
    "accelerator_specs.<name>.unit_cost": "relative silicon cost per unit (optimize)",
    "accelerator_specs.<name>.development_cost": "relative one-time cost of accelerating this module (optimize)",
    "dram.size_gib": "DRAM size (with [ftl]: the size that holds the full mapping table)",
    "dram.background_mw_per_gib": "standby and refresh power",
    "dram.access_energy_nj": "energy per random access (a mapping lookup)",
    "dram.stream_energy_pj_per_bit": "energy per bit of data streamed through the DRAM buffer",
    "dram.data_passes_per_io": "times each request's data passes through DRAM",
    "dram.cost_per_gib": "relative cost per GiB (optimize)",
    "nand.cost_per_channel": "relative cost per channel (optimize, [optimizer.nand] options): the controller's "
                             "channel, its PHY and ECC engine",
    "nand.cost_per_die": "relative cost per NAND die (optimize, [optimizer.nand] options)",
    "workload.preset": "\"jesd219\": the JEDEC enterprise transfer-size mix and address skew",
    "workload.read_fraction": "share of requests that read",
    "workload.request_size_kib": "request size, or a size mix",
    "workload.queue_depth": "requests in flight (closed workload)",
    "workload.arrival_iops": "Poisson arrival rate (open workload)",
    "workload.address_pattern": "how addresses are drawn",
    "workload.mapping_unit_kib": "mapping unit; a request is split into transactions of this size; where every "
                                 "request fits one unit, a read moves its own sectors on the channel (the mean "
                                 "request size), else a whole unit; a write moves the whole unit",
    "workload.hot_access_fraction": "hot_cold: share of accesses to the hot region",
    "workload.hot_space_fraction": "hot_cold: share of the address space that is hot",
    "workload.request_size_kib.sizes": "request sizes",
    "workload.request_size_kib.probabilities": "probability of each size",
    "variability.firmware_scv": "variability of core and accelerator service times (0: fixed times)",
    "variability.nand_scv": "variability of die and channel times",
    "variability.host_scv": "variability of the host link and per-command delays",
    "budgets.core_power_mw": "budget for cores plus accelerators",
    "budgets.dram_power_mw": "DRAM power budget",
    "budgets.drive_power_mw": "whole-drive power budget: controller, DRAM, NAND, SoC static power and PCIe PHY",
    "sram.mapping_mib": "on-chip SRAM for the mapping table's bytes (needs [ftl]); the rest stays in DRAM",
    "sram.static_mw_per_mib": "SRAM leakage per MiB",
    "sram.access_energy_nj": "energy per mapping lookup served from SRAM",
    "sram.cost_per_mib": "relative cost per MiB of SRAM (optimize)",
    "soc.static_mw": "static power of the controller chip apart from cores, accelerators and the PCIe PHY",
    "nand.read_active_mw": "power of a die while its array reads (VCC x ICC1)",
    "nand.program_active_mw": "power of a die while its array programs (VCC x ICC2)",
    "nand.erase_active_mw": "power of a die while its array erases (VCC x ICC3)",
    "budgets.min_iops": "IOPS target (0: none)",
    "ftl.mapping": "\"full\" page table in DRAM, \"dftl\" cached table, \"partitioned\" clean/dirty cache",
    "ftl.cache_fraction": "share of the mapping entries the DRAM cache holds (dftl, partitioned)",
    "ftl.gc_policy": "garbage-collection victim selection",
    "ftl.cache_granularity": "dftl cache of translation pages or of single entries",
    "ftl.dirty_fraction": "partitioned: share of the cache for dirty (entry-logged) entries",
    "ftl.pe_cycles": "program/erase rating of a block",
    "ftl.write_buffer_kib": "DRAM write buffer; 0: write-through",
    "ftl.capacity_gb": "user (logical) capacity",
    "controller.name": "the controller's name in outputs",
    "controller.description": "free text",
    "controller.core_groups": "the core groups",
    "controller.core_groups[].modules": "modules this group serves, first come first served",
    "controller.core_groups[].name": "the group's name in outputs (cores:NAME)",
    "controller.core_groups[].spec": "a [core_specs] name",
    "controller.core_groups[].count": "identical cores in the group",
    "controller.accelerators.<module>": "accelerator units of that module",
    "optimizer.max_cores_per_group": "cores a group may have: 1..this",
    "optimizer.max_units": "accelerator units per hardware module: 1..this",
    "optimizer.utilization_cap": "every station's utilisation at the target at most this",
    "optimizer.max_iterations": "designs the verify-and-tighten loop may verify",
    "optimizer.verify_des": "verify the pick with the DES too",
    "optimizer.des_requests": "DES requests per verification",
    "optimizer.des_seed": "DES seed",
    "optimizer.timing_spread_scv": "> 0: the pick's DES once more with varying service times",
    "optimizer.enumeration_limit": "enumerate the space (cross-check, Pareto front) up to this size",
    "optimizer.memory_limit_gb": "refuse to enumerate a space whose table (and Pareto front) would take more memory "
                                 "than this (GB, estimated before allocating)",
    "optimizer.runners_up": "next-cheapest designs reported",
    "optimizer.markov_chain": "verify with the Markov chain where it applies (false: optimize --fast)",
    "optimizer.solver": "MILP solver",
    "optimizer.core_specs": "core types a group may use",
    "optimizer.hardware_modules": "modules that may become accelerators",
    "optimizer.min_life_years": "reject mapping options whose flash wears out sooner at the target",
    "optimizer.dram.mappings": "mapping options to search",
    "optimizer.sram.mapping_mib": "SRAM sizes to search",
    "optimizer.dram.cache_fractions": "cache fractions to search (dftl, partitioned)",
    "optimizer.nand.channels": "channel counts to search",
    "optimizer.nand.ways_per_channel": "chips per channel to search",
    "optimizer.nand.dies_per_chip": "dies per chip to search",
    "optimizer.nand.planes_per_die": "planes per die to search",
}

#: Descriptions of the tables that have no dataclass of their own.
TABLE_NOTES = {
    "modules.<name>.service_us": "Per-visit service time (µs) of the module on a named core spec, used instead of "
                                 "cycles x cycle_scale / frequency_mhz + memory_stall_us.",
    "workload.request_size_kib": "A size mix instead of one size: `request_size_kib = {sizes = [4, 16], "
                                 "probabilities = [0.7, 0.3]}`.",
    "controller.accelerators": "Accelerator units per hardware module (`cache_lookup = 2`); the device file needs "
                               "an `[accelerator_specs.MODULE]` for each.",
}

#: Words for the expressions of the parsers that depend on other fields (defaults, limits in messages).
PHRASES = {
    "Path(source).stem": "the file's name without .toml",
    "[config.ftl.cache_fraction if config.ftl.mapping != 'full' else 0.25]":
        "[ftl.cache_fraction], or [0.25] with mapping = \"full\"",
    "[ftl.cache_fraction if ftl.mapping != 'full' else 0.25]":
        "[ftl.cache_fraction], or [0.25] with mapping = \"full\"",
    "', '.join(universe) or 'none'": "those with [accelerator_specs]",
    "list(FTL_MAPPINGS)": "every mapping",
    "latency": "latency_us",
    "idle": "idle_mw",
    "\"jesd219\" if preset == \"jesd219\" else \"uniform\"": "\"uniform\" (\"jesd219\" with preset = \"jesd219\")",
    "'jesd219' if preset == 'jesd219' else 'uniform'": "\"uniform\" (\"jesd219\" with preset = \"jesd219\")",
    "1.0 if mapping == 'full' else 0.25": "1 with mapping = \"full\", else 0.25",
    "raw_bytes / (1.0 + nand.over_provisioning) / 1000000000.0":
        "the raw NAND capacity / (1 + nand.over_provisioning)",
    "raw_bytes / 1000000000.0": "that product in",
    "default_name": "the file's name (\"inline\" for [controller])",
    "i + 1": "<n> (g1, g2, ... by position)",
    "unit_kib": "mapping_unit_kib",
    "MAX_TRANSACTIONS * unit_kib": f"{spec_module.MAX_TRANSACTIONS} x mapping_unit_kib",
    "len(sizes)": "as many",
    "', '.join(core_specs)": "the [core_specs] names",
    "', '.join(hw_universe) or 'none'": "those with [accelerator_specs]",
    "m": "<module>",
    "x": "<module>",
}


def _value_text(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, float) and math.isinf(v):
        return "unlimited"
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value_text(x) for x in v) + "]"
    if isinstance(v, dict) and not v:
        return "absent"
    if v is None:
        return "absent"
    return str(v)


def unit_of(key: str) -> str:
    """The unit a field's name declares (suffix rule), or the unit of a known suffix-less field."""
    if key in UNIT_BY_NAME:
        return UNIT_BY_NAME[key]
    for suffix, unit in UNIT_SUFFIXES:
        if key.endswith(suffix):
            return unit
    return ""


# --------------------------------------------------------------------------------------------------
# spec/load.py: the _Reader calls of each parser
# --------------------------------------------------------------------------------------------------
class _ParserWalk(ast.NodeVisitor):
    """Collect the fields one parser function reads, following its readers (``r``, ``s = r.sub(...)``)."""

    def __init__(self, root: str, tables: dict[str, Table], namespace: dict, optional_root: bool):
        self.readers: dict[str, str] = {"r": root}
        self.tables = tables
        self.ns = namespace
        self.local_templates: dict[str, tuple[str, ast.Call, ast.AST | None]] = {}
        self.optional_context: ast.AST | None = None
        self._table(root, optional_root)

    def _table(self, path: str, optional: bool) -> Table:
        if path not in self.tables:
            self.tables[path] = Table(path=path, optional=optional)
        return self.tables[path]

    def _key(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name) and node.id in NAME_KEYS:
            return NAME_KEYS[node.id]
        return None

    def _field(self, table: str, key: str) -> Field:
        t = self._table(table, False)
        if key not in t.fields:
            t.fields[key] = Field(table=table, key=key)
        return t.fields[key]

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        # a local helper such as budgets' ``limit(key)``: remember it, instantiate it where it is called
        for sub in ast.walk(node):
            if isinstance(sub, ast.IfExp) and isinstance(sub.body, ast.Call):
                self.local_templates[node.name] = (node.args.args[0].arg, sub.body, sub.orelse)
                return
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        target = node.targets[0]
        value = node.value
        if isinstance(target, ast.Name) and isinstance(value, ast.Call):
            f = value.func
            if isinstance(f, ast.Attribute) and f.attr == "sub" and isinstance(f.value, ast.Name) \
                    and f.value.id in self.readers:
                key = self._key(value.args[0])
                parent = self.readers[f.value.id]
                path = f"{parent}.{key}" if parent else key
                self.readers[target.id] = path
                self._table(path, len(value.args) > 1)
            elif isinstance(f, ast.Name) and f.id == "_Reader":
                where = value.args[2]
                if isinstance(where, ast.Call) and isinstance(where.args[0], ast.JoinedStr):
                    label = "".join(v.value for v in where.args[0].values if isinstance(v, ast.Constant))
                    base = self.readers.get("r", "")
                    path = f"{base}.{label}" if base else label
                    self.readers[target.id] = path
                    self._table(path, True)
                else:
                    self.readers[target.id] = self.readers.get("r", "")
        self.generic_visit(node)

    def visit_IfExp(self, node: ast.IfExp) -> None:
        if isinstance(node.test, ast.Compare) and isinstance(node.test.ops[0], ast.In):
            self.optional_context = node.orelse
            self.visit(node.body)
            self.optional_context = None
            self.visit(node.test)
            self.visit(node.orelse)
            return
        self.generic_visit(node)

    #: the module's functions by name (set by :func:`spec_tables`): a parser that hands its reader to a helper
    #: (``_request_sizes(r)``, ``_size_mix(r.sub("request_size_kib"))``) reads the helper's fields too
    helpers: dict[str, ast.FunctionDef] = {}

    def _helper_reader(self, arg: ast.AST) -> str | None:
        """The table path of a reader passed as an argument: a known reader or ``reader.sub("key")``."""
        if isinstance(arg, ast.Name) and arg.id in self.readers:
            return self.readers[arg.id]
        f = arg.func if isinstance(arg, ast.Call) else None
        if isinstance(f, ast.Attribute) and f.attr == "sub" and isinstance(f.value, ast.Name) \
                and f.value.id in self.readers and arg.args:
            key = self._key(arg.args[0])
            parent = self.readers[f.value.id]
            path = f"{parent}.{key}" if parent else key
            self._table(path, len(arg.args) > 1)
            return path
        return None

    def _visit_helper(self, helper: ast.FunctionDef, path: str) -> None:
        """Walk ``helper``'s body with its first parameter reading the table ``path``."""
        saved = dict(self.readers)
        self.readers[helper.args.args[0].arg] = path
        for stmt in helper.body:
            self.visit(stmt)
        self.readers = saved

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        if isinstance(f, ast.Name) and f.id in self.helpers and node.args and f.id.startswith("_") \
                and not f.id.startswith("_parse_"):
            path = self._helper_reader(node.args[0])
            if path is not None:
                self._visit_helper(self.helpers[f.id], path)
        if isinstance(f, ast.Name) and f.id in self.local_templates and node.args:
            _, call, orelse = self.local_templates[f.id]
            key = self._key(node.args[0])
            if key is not None:
                self._reader_call(call, key, orelse)
        elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in self.readers \
                and node.args:
            key = self._key(node.args[0])
            if key is not None:
                self._reader_call(node, key, self.optional_context)
        self.generic_visit(node)

    def _reader_call(self, node: ast.Call, key: str, orelse: ast.AST | None) -> None:
        f = node.func
        reader = f.value.id if isinstance(f.value, ast.Name) and f.value.id in self.readers else "r"
        table = self.readers[reader]
        method = f.attr
        if method in ("sub", "finish", "_name"):
            return
        if method == "error":
            if "." in key and not key.startswith("<"):  # an error on a field of another table
                return
            if key.startswith("<") and key not in self.tables[table].fields:
                return
            fld = self._field(table, key)
            if len(node.args) >= 3:
                text = _text(node.args[2], self.ns, True)
                if text not in fld.allowed:
                    fld.allowed.append(text)
            return
        kwargs = {k.arg: k.value for k in node.keywords}
        fld = self._field(table, key)
        if method in READER_METHODS and not fld.kind:
            fld.kind = READER_METHODS[method]
        default = node.args[1] if len(node.args) > 1 else kwargs.get("default")
        if default is not None and fld.default == "required":
            fld.default = _text(default, self.ns)
        elif default is None and orelse is not None and fld.default == "required":
            fld.default = _text(orelse, self.ns)
        if method in ("number", "integer"):
            lo, hi = kwargs.get("lo"), kwargs.get("hi")
            lo_v = None if lo is None else _text(lo, self.ns)
            hi_v = None if hi is None else _text(hi, self.ns)
            lo_open = bool(kwargs.get("lo_open") and _eval(kwargs["lo_open"], {}))
            hi_open = bool(kwargs.get("hi_open") and _eval(kwargs["hi_open"], {}))
            text = spec_module._range_text(lo_v, hi_v, lo_open, hi_open).strip()
            if text and text not in fld.allowed:
                fld.allowed.insert(0, text)
        if method == "string" and "choices" in kwargs:
            choices = ", ".join(_value_text(c) for c in _eval(kwargs["choices"], self.ns))
            text = f"one of {choices}"
            if text not in fld.allowed:
                fld.allowed.insert(0, text)


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


def _dataclass_docs(tree: ast.Module, source_lines: list[str]) -> dict[str, tuple[str, dict[str, str]]]:
    """Each dataclass's first docstring line and the trailing comment of each field."""
    docs = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            doc = (ast.get_docstring(node) or "").split("\n\n")[0].replace("\n", " ")
            notes = {}
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    line = source_lines[item.lineno - 1]
                    if "  # " in line:
                        notes[item.target.id] = line.split("  # ", 1)[1].strip()
            docs[node.name] = (doc, notes)
    return docs


def _return_class(fn: ast.FunctionDef) -> str:
    """The dataclass a parser returns (``-> NandSpec``, ``-> dict[str, CoreSpec]``)."""
    ann = fn.returns
    if isinstance(ann, ast.Subscript):
        ann = ann.slice.elts[-1] if isinstance(ann.slice, ast.Tuple) else ann.slice
    return ann.id if isinstance(ann, ast.Name) else ""


def spec_tables() -> dict[str, Table]:
    """Every table and field that ``ssdco.spec`` reads, in the order ``config_from_dict`` reads them."""
    source = SPEC_PY.read_text()
    tree = ast.parse(source)
    fns = _functions(tree)
    _ParserWalk.helpers = fns
    schema_source = SCHEMA_PY.read_text()
    docs = _dataclass_docs(ast.parse(schema_source), schema_source.splitlines())
    ns = vars(spec_module)
    tables: dict[str, Table] = {}
    top = _ParserWalk("", tables, ns, optional_root=False)
    tables[""].description = "The top level of a device file."
    # config_from_dict names the table each parser reads: _parse_nand(r.sub("nand")), ...
    order: list[tuple[str, str, bool]] = []
    for node in ast.walk(fns["config_from_dict"]):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in fns \
                and node.func.id.startswith("_parse_") and node.args:
            arg = node.args[0]
            if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and arg.func.attr == "sub":
                order.append((node.func.id, arg.args[0].value, len(arg.args) > 1))
    for stmt in fns["config_from_dict"].body:
        top.visit(stmt)
    for name, path, optional in order:
        if path == "ftl":
            optional = True  # read only when the file has an [ftl] table
        walk = _ParserWalk(path, tables, ns, optional_root=optional)
        tables[path].optional = optional
        for stmt in fns[name].body:
            walk.visit(stmt)
        doc, notes = docs.get(_return_class(fns[name]), ("", {}))
        entry = f"{path}.<name>"  # tables keyed by a name (core specs, modules, accelerators): the entry table
        target = tables[entry] if entry in tables else tables[path]
        target.description = doc
        for key, fld in target.fields.items():
            fld.note = notes.get(key, "")
    for path in [p for p in tables if p.startswith(("core_specs", "modules", "accelerator_specs"))
                 and p.count(".") == 0]:
        tables[path].fields.clear()  # keyed by name: the entries are the sub-tables documented below
    ctrl = _ParserWalk("controller", tables, ns, optional_root=True)
    for stmt in fns["parse_controller"].body:
        ctrl.visit(stmt)
    tables["controller"].description = (docs["Controller"][0] + " Inline as ``[controller]`` or, without the "
                                        "prefix, a file of its own (``configs/controllers/*.toml``).")
    tables["controller.core_groups[]"].description = docs["CoreGroup"][0]
    for path, text in TABLE_NOTES.items():
        tables[path].description = text
    for drop in ("nand", "host", "core_specs", "modules", "accelerator_specs", "dram", "workload", "ftl",
                 "variability", "budgets", "controller", "optimizer"):
        tables[""].fields.pop(drop, None)
    return tables


# --------------------------------------------------------------------------------------------------
# space.py: the [optimizer] table
# --------------------------------------------------------------------------------------------------
def optimizer_tables() -> dict[str, Table]:
    """The ``[optimizer]`` keys as ``parse_options`` reads them, with ``DEFAULTS`` and their ranges."""
    tree = ast.parse(SPACE_PY.read_text())  # parse_options and the reader it drives (_OptionReader)
    from ssdco.validation import compare

    ns = {**vars(spec_module), **vars(compare), **vars(space_module)}
    opt = Table("optimizer", True, "The design space and search of `ssdco optimize` (read by "
                                   "`ssdco/spec/search_options.py`).")
    dram = Table("optimizer.dram", True, "Mapping-table options `optimize` searches (needs an `[ftl]` table).")

    def fld(path: str) -> Field:
        table, key = (dram, path.split(".", 1)[1]) if path.startswith("dram.") else (opt, path)
        if key not in table.fields:
            table.fields[key] = Field(table=table.path, key=key)
        return table.fields[key]

    def allow(f: Field, text: str) -> None:
        if text not in f.allowed and "unknown field" not in text:
            f.allowed.append(text)

    for key, value in space_module.DEFAULTS.items():
        f = fld(key)
        f.default = _value_text(value)
        f.kind = {bool: "true/false", int: "integer", float: "number", str: "string"}[type(value)]
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        first = node.args[0]
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        target = func.value if isinstance(func, ast.Attribute) else None
        owner = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else ""
        key = first.value
        if name == "integer" and len(node.args) == 3:
            f = fld(key)
            f.kind = "integer"
            f.allowed.insert(0, f"{_text(node.args[1], ns)}..{_text(node.args[2], ns)}")
        elif name == "number" and len(node.args) == 4:
            f = fld(key)
            f.kind = f.kind or "number"
            if f.default == "required":
                f.default = _text(node.args[1], ns)
            allow(f, _text(node.args[3], ns, True))
        elif name == "flag":
            allow(fld(key), "expected true or false")
        elif name == "names":
            f = fld(key)
            f.kind = "list of strings"
            f.default = {"core_specs": "every [core_specs] entry",
                         "hardware_modules": "every module with [accelerator_specs]"}.get(key, f.default)
        elif (name == "get" and owner in ("raw", "dram") and len(node.args) > 1
              and key not in ("dram", "nand", "sram", "optimizer")):
            f = fld(f"dram.{key}" if owner == "dram" else key)
            if f.default == "required":
                f.default = _text(node.args[1], ns)
            if owner == "dram":
                f.kind = "list"
        elif name in ("err", "error") and len(node.args) >= 3 and key not in ("dram", "nand", "sram",
                                                                              "sram.mapping_mib"):
            allow(fld(key), _text(node.args[2], ns, True))
    life = fld("min_life_years")
    life.kind = life.kind or "number"
    if dram.fields.get("cache_fractions"):
        dram.fields["cache_fractions"].default = "[the [ftl] cache_fraction], or [0.25] with mapping = \"full\""
    if dram.fields.get("mappings"):
        dram.fields["mappings"].default = "[" + ", ".join(f'"{m}"' for m in spec_module.FTL_MAPPINGS) + "]"
    nand = Table("optimizer.nand", True, "NAND-geometry options `optimize` searches: every combination of the "
                                         "listed values (a field left out stays as configured), at the configured "
                                         "raw capacity, costing `nand.cost_per_channel` (plus "
                                         "`nand.cost_per_channel_gts` per 1,000 MT/s) and `nand.cost_per_die`.")
    for key in space_module.NAND_OPTION_KEYS:
        f = Field(table=nand.path, key=key)
        f.kind, f.default = "list", "as configured in [nand]"
        top = space_module.NAND_OPTION_MAX[key]
        f.allowed.append(f"a non-empty list of rates > 0 and <= {top}" if key == "channel_rate_mts"
                         else f"expected a non-empty list of integers from 1 to {top}")
        nand.fields[key] = f
    sram = Table("optimizer.sram", True, "On-chip SRAM sizes for the mapping table `optimize` searches (needs an "
                                         "`[ftl]` table), each costing `sram.cost_per_mib` per MiB.")
    f = Field(table=sram.path, key="mapping_mib")
    f.kind, f.default = "list", "as configured in [sram]"
    f.allowed.append("a non-empty list of sizes in MiB >= 0, none repeated")
    sram.fields["mapping_mib"] = f
    return {"optimizer": opt, "optimizer.dram": dram, "optimizer.nand": nand, "optimizer.sram": sram}


# --------------------------------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------------------------------
def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render(tables: dict[str, Table]) -> str:
    """The reference as Markdown: one section per table, one row per field."""
    out = [
        "# Configuration reference",
        "",
        "<!-- Generated by tools/config_reference.py from ssdco/spec/; "
        "do not edit. -->",
        "",
        "Every table and field a device file may hold, with its meaning and the type, unit, default and allowed",
        "range that the parser applies. A field without a default is required; an optional table may be left out.",
        "Every number (integers too) must also be 0 or of magnitude "
        f"{spec_module.MIN_MAGNITUDE:g} to {spec_module.MAX_MAGNITUDE:g}.",
        "Unknown fields are refused, naming the fields allowed there. `<name>` stands for a name you choose",
        "(a core spec such as `r1g`) and `<module>` for one of " + ", ".join(f"`{m}`" for m in spec_module.MODULES)
        + ".",
        "For a walk-through see [user-guide.md](user-guide.md#describing-your-own-drive-and-controller).",
        "",
    ]
    for path, table in tables.items():
        if path.startswith(("core_specs", "modules", "accelerator_specs")) and "." not in path:
            continue
        placeholder = "NAME" if path.startswith("core_specs") else "MODULE"
        shown = path.replace("<name>", placeholder).replace("core_groups[]", "[core_groups]]")
        title = "Top level" if not path else (f"[{shown}" if shown.endswith("]]") and "." not in shown
                                               else f"[{shown}]")
        if path == "controller.core_groups[]":
            title = "[[controller.core_groups]] (or [[core_groups]] in a controller file)"
        if path == "controller.accelerators":
            title = "[controller.accelerators] (or [accelerators] in a controller file)"
        out.append(f"## {title}")
        out.append("")
        if table.description:
            out.append(table.description.replace("``", "`") + (" Optional." if table.optional else ""))
            out.append("")
        elif table.optional:
            out.append("Optional.")
            out.append("")
        if not table.fields:
            continue
        out.append("| field | meaning | type | unit | default | allowed |")
        out.append("|---|---|---|---|---|---|")
        for f in table.fields.values():
            dotted = f"{path}.{f.key}" if path else f.key
            f.kind = KINDS.get(dotted, f.kind)
            allowed = "; ".join(a for a in f.allowed if a)
            meaning = MEANINGS.get(dotted, f.note)
            out.append(f"| `{_cell(f.key)}` | {_cell(meaning)} | {_cell(f.kind)} | {_cell(unit_of(f.key))} | "
                       f"{_cell(f.default)} | {_cell(allowed)} |")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def generate() -> str:
    """The full text of docs/configuration.md."""
    tables = spec_tables()
    # present the per-name tables in a readable order: the entry tables first, then their sub-tables
    ordered = {}
    for path in list(tables):
        ordered[path] = tables[path]
    ordered.update(optimizer_tables())
    return render(ordered)


def main(argv: list[str] | None = None) -> int:
    """Write docs/configuration.md, or with --check compare it with the generated text (exit 1 if it differs)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--check", action="store_true", help="compare instead of writing")
    args = p.parse_args(argv)
    text = generate()
    if args.check:
        current = OUTPUT.read_text() if OUTPUT.exists() else ""
        if current != text:
            print(f"{OUTPUT.relative_to(ROOT)} is out of date: run python tools/config_reference.py", file=sys.stderr)
            return 1
        return 0
    from ssdco.atomic import write_text_atomic

    write_text_atomic(OUTPUT, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
