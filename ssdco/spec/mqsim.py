"""Read an MQSim configuration (``ssdconfig.xml`` and ``workload.xml``) as an ssdco device file.

MQSim (Tavakkol et al., "MQSim: A Framework for Enabling Realistic Studies of Modern Multi-Queue SSD Devices",
FAST 2018; github.com/CMU-SAFARI/MQSim) describes a drive by an execution-parameter XML file and a workload XML
file. :func:`import_mqsim` maps every parameter ssdco models onto the TOML-shaped configuration that
:func:`ssdco.spec.config_from_dict` reads, and lists every other parameter by name with the reason it is left
out, so that nothing is dropped silently. ``ssdco import-mqsim`` writes the result as a commented TOML file.

The mapping (MQSim's units: ns, bytes, 512 B sectors, MT/s, GB/s per lane):

* NAND geometry and timings one to one; a TLC/MLC device's per-page-type read and program latencies (LSB, CSB,
  MSB) become their mean (a page type is drawn uniformly over a block's pages); the channel width in bytes
  becomes bits; no ECC bytes on the bus (MQSim moves the sectors' data); planes are read independently and
  programs pair them only for sequential streams (MQSim pairs planes only where the addresses line up, which
  random reads and writes almost never do and a striped stream's always do: its scheduler joins a die's queued
  reads of different planes into one multi-plane read); each operation's command and address cycles take
  MQSim's default NVDDR2 timings (its ``ONFI_Channel_NVDDR2`` defaults: a one-plane read command tCS + 6 tWC +
  tWB + tRR = 0.29 us, a program's tCS + 6 tWC + tADL + tWPST + tWPSTH + tWB = 0.361 us; their mean over the
  flow's reads and writes), with the die held through its data transfer as MQSim's chip is; a die serves its
  queued reads ahead of its programs and erases (``nand.die_scheduling = "reads_first"``), as MQSim's transaction
  schedulers do, and a channel carries the reads' waiting data-outs ahead of new commands and programs' data
  (``nand.channel_scheduling = "data_out_first"``): MQSim's ONFI channel tells the scheduler it is idle only once
  no data-out waits (src/ssd/NVM_PHY_ONFI_NVDDR2.cpp).
* Allocation: a channel-first ``Plane_Allocation_Scheme`` (CWDP, CWPD, CDWP, ...) stripes a sequential stream's
  pages over consecutive channels (``nand.sequential_allocation = "channel_first"``); other orders are taken as
  random dies, said in the notes.
* Over-provisioning: MQSim's ratio is spare over raw capacity (r); ssdco's is spare over user capacity,
  r / (1 - r).
* Host: the PCIe generation whose lane rate is MQSim's lane bandwidth (within 1 %); MQSim splits payloads into
  128-byte TLPs with 28 bytes of header each, so the link carries 128 / 156 of its rate; the command and its
  completion are an NVMe submission (64 B) and completion (16 B) entry moved over the link, with no fixed fetch
  or posting delay.
* No firmware time: MQSim models no controller cores, so every module takes 0 cycles on one core each.
* FTL: page-level mapping; an ideal mapping table is the whole table in DRAM (``mapping = "full"``), otherwise a
  demand-paged cache (``dftl``) of ``CMT_Capacity`` bytes; greedy or FIFO victim selection; the device's write
  cache (``WRITE_CACHE`` or ``WRITE_READ_CACHE``) is the write buffer, capped at ssdco's limit; the drive is fresh
  (``ftl.drive_state``): MQSim's runs of seconds end before garbage collection starts.
* Workload: one synthetic flow; its read share, request size (sectors of 512 B), address distribution (uniform,
  hot/cold: the hot region is ``Percentage_of_Hot_Region`` of the space and takes the rest of the accesses, as
  MQSim's generator draws them; streaming is sequential), and a closed queue depth (``QUEUE_DEPTH``) or Poisson
  arrivals at ``Bandwidth`` bytes per second (``BANDWIDTH``). For reads the mapping unit is the largest size that
  divides both the request and the page (4 KiB requests on 16 KiB pages: 4 KiB, so a read moves its own sectors;
  128 KiB: a page); a flow that writes maps pages, as MQSim does, so a write of part of a page reads and rewrites
  it.
"""

from __future__ import annotations

import itertools
import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w

from ssdco.errors import ConfigError

SECTOR_BYTES = 512
TLP_PAYLOAD_BYTES = 128  # MQSim's PCIe model: payload per TLP ...
TLP_OVERHEAD_BYTES = 28  # ... and header bytes per TLP
NVME_ENTRY_BYTES = 64 + 16  # a submission entry fetched and a completion entry posted
PCIE_LANE_GBPS = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}  # GB/s per lane after line coding
LANE_TOLERANCE = 0.01
MAX_WRITE_BUFFER_KIB = 65536  # ssdco's largest write buffer (``ftl.write_buffer_kib``)
MAPPING_ENTRY_BYTES = 4  # a page-level mapping entry, as ssdco counts it (``ftl.mapping_cache``)
DRAM_STEP_GIB = 0.25  # the DRAM size is the mapping table and the write buffer rounded up to this

#: Parameters ssdco reads, by XML element name (the reason shown where the value is adapted).
READ_SSD = ("PCIe_Lane_Bandwidth", "PCIe_Lane_Count", "HostInterface_Type", "Data_Cache_Capacity", "Address_Mapping",
            "Ideal_Mapping_Table", "CMT_Capacity", "Overprovisioning_Ratio", "GC_Block_Selection_Policy",
            "Flash_Channel_Count", "Flash_Channel_Width", "Channel_Transfer_Rate", "Chip_No_Per_Channel",
            "Page_Read_Latency_LSB", "Page_Read_Latency_CSB", "Page_Read_Latency_MSB", "Page_Program_Latency_LSB",
            "Page_Program_Latency_CSB", "Page_Program_Latency_MSB", "Block_Erase_Latency", "Block_PE_Cycles_Limit",
            "Die_No_Per_Chip", "Plane_No_Per_Die", "Block_No_Per_Plane", "Page_No_Per_Block", "Page_Capacity",
            "Transaction_Scheduling_Policy")
READ_WORKLOAD = ("Device_Level_Data_Caching_Mode", "Synthetic_Generator_Type", "Read_Percentage",
                 "Address_Distribution", "Percentage_of_Hot_Region", "Request_Size_Distribution",
                 "Average_Request_Size", "Average_No_of_Reqs_in_Queue", "Bandwidth")
# MQSim's default NVDDR2 command and address cycles (src/ssd/ONFI_Channel_NVDDR2.h defaults, ns: tCS 20, tWC 25,
# tWB 100, tRR 20, tADL 70, tWPST 6, tWPSTH 15): a one-plane read tCS + 6 tWC + tWB + tRR, a program
# tCS + 6 tWC + tADL + tWPST + tWPSTH + tWB (src/ssd/ONFI_Channel_NVDDR2.cpp), in us
MQSIM_READ_COMMAND_US = 0.29
MQSIM_PROGRAM_COMMAND_US = 0.361
MQSIM_SCHEDULERS = ("OUT_OF_ORDER", "PRIORITY_OUT_OF_ORDER", "FLIN")  # Transaction_Scheduling_Policy's values
PLANE_ALLOCATION_SCHEMES = tuple("".join(p) for p in itertools.permutations("CWDP"))

#: Why MQSim's suspend parameters are left out: at the reference commit its out-of-order scheduler never suspends.
SUSPEND_NEVER = ("MQSim never suspends: its out-of-order scheduler's cases for a programming or erasing chip fall "
                 "through to 'return false' (src/ssd/TSU_OutofOrder.cpp), so nand.suspend stays \"none\"")
#: Why a parameter ssdco does not read is left out (any other: "not modelled by ssdco").
IGNORED_BECAUSE = {
    "Plane_Allocation_Scheme": "read for a sequential stream only: random addresses go to random dies",
    "SATA_Processing_Delay": "ssdco models an NVMe host",
    "Enable_ResponseTime_Logging": "simulator output option",
    "ResponseTime_Logging_Period_Length": "simulator output option",
    "Seed": "ssdco's runs take their own seed",
    "Enabled_Preconditioning": "ssdco answers the steady state",
    "Initial_Occupancy_Percentage": "ssdco answers the steady state",
    "Memory_Type": "ssdco models NAND flash",
    "IO_Queue_Depth": "the host's submission queue size; the workload's queue depth sets the load",
    "Queue_Fetch_Size": "the host's submission queue size; the workload's queue depth sets the load",
    "Caching_Mechanism": "the write buffer's policy is ssdco's own",
    "Data_Cache_Sharing_Mode": "one flow",
    "CMT_Sharing_Mode": "one flow",
    "GC_Exec_Threshold": "garbage collection is taken at its steady state",
    "GC_Hard_Threshold": "garbage collection is taken at its steady state",
    "Use_Copyback_for_GC": "GC moves pages over the channel",
    "Preemptible_GC_Enabled": "garbage collection is taken at its steady state",
    "Dynamic_Wearleveling_Enabled": "wear levelling is not modelled",
    "Static_Wearleveling_Enabled": "wear levelling is not modelled",
    "Static_Wearleveling_Threshold": "wear levelling is not modelled",
    "Flash_Comm_Protocol": "the channel is its transfer rate and width",
    "Flash_Technology": "its per-page-type latencies are read",
    "CMD_Suspension_Support": SUSPEND_NEVER,
    "Suspend_Erase_Time": SUSPEND_NEVER,
    "Suspend_Program_Time": SUSPEND_NEVER,
    "Preferred_suspend_erase_time_for_read": SUSPEND_NEVER,
    "Preferred_suspend_erase_time_for_write": SUSPEND_NEVER,
    "Preferred_suspend_write_time_for_read": SUSPEND_NEVER,
    "Page_Metadat_Capacity": "the page's spare bytes are not moved for a sector read",
    "Priority_Class": "one flow",
    "Working_Set_Percentage": "addresses spread over the whole user space",
    "Generated_Aligned_Addresses": "requests are aligned to the mapping unit",
    "Address_Alignment_Unit": "requests are aligned to the mapping unit",
    "Variance_Request_Size": "requests take the average size",
    "Stop_Time": "ssdco answers the steady state",
    "Total_Requests_To_Generate": "ssdco answers the steady state",
    "Data_Cache_DRAM_Row_Size": "DRAM timing is not modelled",
    "Data_Cache_DRAM_Data_Rate": "DRAM timing is not modelled",
    "Data_Cache_DRAM_Data_Busrt_Size": "DRAM timing is not modelled",
    "Data_Cache_DRAM_tRCD": "DRAM timing is not modelled",
    "Data_Cache_DRAM_tCL": "DRAM timing is not modelled",
    "Data_Cache_DRAM_tRP": "DRAM timing is not modelled",
    "Channel_IDs": "the flow uses the whole device",
    "Chip_IDs": "the flow uses the whole device",
    "Die_IDs": "the flow uses the whole device",
    "Plane_IDs": "the flow uses the whole device",
}
GROUPS = ("Host_Parameter_Set", "Device_Parameter_Set", "Flash_Parameter_Set", "IO_Flow_Parameter_Set_Synthetic")


@dataclass(frozen=True)
class Ignored:
    """An MQSim parameter ssdco leaves out: its element ``name``, its ``value`` as written and ``why``."""

    name: str
    value: str
    why: str


@dataclass(frozen=True)
class MqsimImport:
    """An imported MQSim configuration: ``design``, the TOML-shaped ssdco configuration; ``ignored``, the parameters
    left out; ``notes``, where a value was adapted (field, what was done); ``sources``, the two files."""

    design: dict[str, Any]
    ignored: tuple[Ignored, ...]
    notes: tuple[tuple[str, str], ...]
    sources: tuple[str, str]

    def toml(self) -> str:
        """The design as a TOML file: the sources and the adapted values as comments at the top, the ignored
        parameters at the end."""
        lines = [f"# Imported from MQSim: {self.sources[0]} and {self.sources[1]} (ssdco import-mqsim).",
                 "# Values adapted to ssdco's model:"]
        lines += [f"#   {field}: {what}" for field, what in self.notes]
        lines += [tomli_w.dumps(self.design).rstrip("\n")]
        lines += ["", f"# MQSim parameters ssdco leaves out ({len(self.ignored)}):"]
        lines += [f"#   {item.name} = {item.value}: {item.why}" for item in self.ignored]
        return "\n".join(lines) + "\n"


class _Xml:
    """The leaf elements of one MQSim XML file by name, with typed reads that fail as a ConfigError naming the
    file, the element, the value and what is allowed."""

    def __init__(self, path: Path, root_tag: str, flow: int = 0):
        self.source = str(path)
        try:
            root = ET.parse(path).getroot()
        except FileNotFoundError:
            raise ConfigError(self.source, "<file>", str(path), "no such file") from None
        except (ET.ParseError, OSError) as exc:
            raise ConfigError(self.source, "<file>", str(path), f"a readable MQSim XML file ({exc})") from None
        if root.tag != root_tag:
            raise ConfigError(self.source, "<root>", root.tag, f"the root element {root_tag}")
        if root_tag == "MQSim_IO_Scenarios":
            root = self._flow(root, flow)
        self.values: dict[str, str] = {}
        for element in root.iter():
            if len(element) == 0 and element.tag not in GROUPS:
                self.values[element.tag] = (element.text or "").strip()
        self.read: set[str] = set()

    def _flow(self, root: ET.Element, flow: int) -> ET.Element:
        """The ``flow``-th synthetic flow of the scenario file (0: the first)."""
        flows = [e for scenario in root for e in scenario]
        traced = [e for e in flows if e.tag == "IO_Flow_Parameter_Set_Trace_Based"]
        synthetic = [e for e in flows if e.tag == "IO_Flow_Parameter_Set_Synthetic"]
        if not synthetic:
            allowed = "a synthetic flow (IO_Flow_Parameter_Set_Synthetic)"
            if traced:
                allowed += "; trace-based flows are not supported"
            raise ConfigError(self.source, "IO_Scenario", [e.tag for e in flows], allowed)
        if not 0 <= flow < len(synthetic):
            raise ConfigError(self.source, "--flow", flow, f"0 to {len(synthetic) - 1}: the file has "
                                                           f"{len(synthetic)} synthetic flow(s)")
        return synthetic[flow]

    def text(self, name: str, choices: tuple[str, ...] | None = None) -> str:
        if name not in self.values:
            raise ConfigError(self.source, name, None, "required element is missing")
        self.read.add(name)
        value = self.values[name]
        if choices is not None and value not in choices:
            raise ConfigError(self.source, name, value, f"one of {', '.join(choices)}")
        return value

    def number(self, name: str, lo: float = 0.0, lo_open: bool = False) -> float:
        raw = self.text(name)
        try:
            value = float(raw)
        except ValueError:
            raise ConfigError(self.source, name, raw, "a number") from None
        if not math.isfinite(value) or value < lo or (lo_open and value == lo):
            raise ConfigError(self.source, name, raw, f"a finite number {'>' if lo_open else '>='} {lo:g}")
        return value

    def integer(self, name: str, lo: int = 1) -> int:
        raw = self.text(name)
        try:
            value = int(raw)
        except ValueError:
            raise ConfigError(self.source, name, raw, "an integer") from None
        if value < lo:
            raise ConfigError(self.source, name, raw, f"an integer >= {lo}")
        return value

    def flag(self, name: str) -> bool:
        return self.text(name, ("true", "false")) == "true"

    def ignored(self) -> list[Ignored]:
        return [Ignored(name, value, IGNORED_BECAUSE.get(name, "not modelled by ssdco"))
                for name, value in self.values.items() if name not in self.read]


def import_mqsim(ssd_xml: str | Path, workload_xml: str | Path, flow: int = 0) -> MqsimImport:
    """The ssdco configuration of MQSim's ``ssd_xml`` (execution parameters) and ``workload_xml`` (IO scenarios;
    its ``flow``-th synthetic flow), with the parameters left out and the values adapted (module docstring).
    Raises ConfigError naming the file, the element, the value and what is allowed."""
    ssd = _Xml(Path(ssd_xml), "Execution_Parameter_Set")
    work = _Xml(Path(workload_xml), "MQSim_IO_Scenarios", flow)
    notes: list[tuple[str, str]] = []
    nand = _nand(ssd, notes)
    workload = _workload(work, nand, notes)
    nand["multi_plane_program_fraction"] = 1.0 if workload["address_pattern"] == "sequential" else 0.0
    notes.append(("nand.multi_plane_program_fraction",
                  f"{nand['multi_plane_program_fraction']:g}: MQSim programs several planes at once only where their "
                  f"addresses line up, as a sequential stream's do and random writes' almost never do"))
    nand["die_held_through_transfer"] = True
    notes.append(("nand.die_held_through_transfer",
                  "true: MQSim's flash chip stays busy with a transaction until its data-out (data-in) on the channel "
                  "ends"))
    read_share = workload["read_fraction"]
    nand["command_us"] = read_share * MQSIM_READ_COMMAND_US + (1.0 - read_share) * MQSIM_PROGRAM_COMMAND_US
    notes.append(("nand.command_us",
                  f"{nand['command_us']:.4g}: MQSim's default NVDDR2 command and address cycles, a read's "
                  f"{MQSIM_READ_COMMAND_US} us and a program's {MQSIM_PROGRAM_COMMAND_US} us, weighted by the flow's "
                  f"reads and writes"))
    _die_scheduling(ssd, nand, notes)
    if workload["address_pattern"] == "sequential":
        _sequential_allocation(ssd, nand, notes)
    ftl = _ftl(ssd, work, nand, workload, notes)
    design = {
        "schema_version": 1,
        "name": "mqsim-import",
        "description": f"MQSim drive of {Path(ssd_xml).name} running {Path(workload_xml).name}",
        "nand": nand,
        "host": _host(ssd, notes),
        "core_specs": {"zero_time": {"frequency_mhz": 1000.0, "idle_mw": 0.0, "active_mw": 0.0}},
        "modules": {m: {"cycles": 0.0} for m in ("parse", "cache_lookup", "translate", "dispatch", "complete")},
        "controller": {"name": "one-core-per-module", "description": "MQSim models no firmware time",
                       "core_groups": [{"name": m, "spec": "zero_time", "modules": [m]}
                                       for m in ("parse", "cache_lookup", "translate", "dispatch", "complete")]},
        "dram": _dram(ftl, nand, workload, notes),
        "workload": workload,
        "ftl": ftl,
    }
    notes.append(("modules.*.cycles", "0: MQSim models no controller cores"))
    ignored = tuple(ssd.ignored() + work.ignored())
    return MqsimImport(design=design, ignored=ignored, notes=tuple(notes), sources=(ssd.source, work.source))


def _die_scheduling(ssd: _Xml, nand: dict[str, Any], notes: list) -> None:
    """``nand.die_scheduling`` from MQSim's ``Transaction_Scheduling_Policy``: each of its schedulers (out of order,
    its priority variant, FLIN) keeps a chip's reads, programs and erases in separate queues and serves the reads
    first (src/ssd/TSU_OutOfOrder.cpp), which for one flow is ``reads_first``."""
    policy = ssd.text("Transaction_Scheduling_Policy", MQSIM_SCHEDULERS)
    nand["die_scheduling"] = "reads_first"
    notes.append(("nand.die_scheduling", f"reads_first: MQSim's {policy} scheduler serves a chip's queued reads ahead "
                                         f"of its programs and erases"))
    nand["channel_scheduling"] = "data_out_first"
    notes.append(("nand.channel_scheduling", "data_out_first: MQSim's channel carries the waiting data-outs of reads "
                                             "before its scheduler may send a chip a new command (or a program's "
                                             "data)"))


def _sequential_allocation(ssd: _Xml, nand: dict[str, Any], notes: list) -> None:
    """A sequential stream's allocation: striped channel first where MQSim's ``Plane_Allocation_Scheme`` begins
    with the channel, with its reads served by every plane (MQSim joins a die's queued reads of different planes,
    which consecutive requests on a striped die always are, into multi-plane reads)."""
    scheme = ssd.text("Plane_Allocation_Scheme", PLANE_ALLOCATION_SCHEMES)
    if not scheme.startswith("C"):
        notes.append(("nand.sequential_allocation", f"random: ssdco stripes channel first only, {scheme} begins "
                                                    f"with another level"))
        return
    nand["sequential_allocation"] = "channel_first"
    nand["independent_plane_reads"] = True
    notes[:] = [note for note in notes if note[0] != "nand.independent_plane_reads"]
    notes.append(("nand.sequential_allocation", f"channel_first: {scheme} puts consecutive pages on consecutive "
                                                "channels"))
    notes.append(("nand.independent_plane_reads", "true for a sequential stream: MQSim joins a die's queued reads "
                                                  "of different planes into multi-plane reads, as a striped "
                                                  "stream's consecutive requests on one die always allow"))


def _nand(ssd: _Xml, notes: list) -> dict[str, Any]:
    """The ``[nand]`` table: geometry, timings (us) and the channel."""
    ssd.text("HostInterface_Type", ("NVME",))
    ssd.text("Address_Mapping", ("PAGE_LEVEL",))
    reads = [ssd.number(f"Page_Read_Latency_{t}", lo_open=True) for t in ("LSB", "CSB", "MSB")]
    programs = [ssd.number(f"Page_Program_Latency_{t}", lo_open=True) for t in ("LSB", "CSB", "MSB")]
    if len(set(reads)) > 1 or len(set(programs)) > 1:
        notes.append(("nand.t_read_us, nand.t_prog_us", "the mean of the LSB, CSB and MSB page latencies"))
    page_bytes = ssd.integer("Page_Capacity")
    if page_bytes % SECTOR_BYTES:
        raise ConfigError(ssd.source, "Page_Capacity", page_bytes, f"a multiple of {SECTOR_BYTES} bytes")
    ratio = ssd.number("Overprovisioning_Ratio", lo_open=True)
    if ratio >= 1.0:
        raise ConfigError(ssd.source, "Overprovisioning_Ratio", ratio, "below 1 (spare over raw capacity)")
    notes.append(("nand.over_provisioning", f"MQSim's {ratio:g} is spare over raw capacity; ssdco's is spare over "
                                            f"user capacity, {ratio:g} / (1 - {ratio:g})"))
    notes.append(("nand.independent_plane_reads", "false: MQSim pairs planes only where the addresses line up"))
    return {
        "channels": ssd.integer("Flash_Channel_Count"),
        "ways_per_channel": ssd.integer("Chip_No_Per_Channel"),
        "dies_per_chip": ssd.integer("Die_No_Per_Chip"),
        "planes_per_die": ssd.integer("Plane_No_Per_Die"),
        "independent_plane_reads": False,
        "page_size_kib": page_bytes / 1024,
        "pages_per_block": ssd.integer("Page_No_Per_Block"),
        "blocks_per_plane": ssd.integer("Block_No_Per_Plane"),
        "t_read_us": sum(reads) / 3 / 1000,
        "t_prog_us": sum(programs) / 3 / 1000,
        "t_erase_us": ssd.number("Block_Erase_Latency", lo_open=True) / 1000,
        "channel_rate_mts": ssd.number("Channel_Transfer_Rate", lo_open=True),
        "channel_width_bits": 8 * ssd.integer("Flash_Channel_Width"),
        "ecc_overhead_fraction": 0.0,
        "over_provisioning": ratio / (1.0 - ratio),
    }


def _host(ssd: _Xml, notes: list) -> dict[str, Any]:
    """The ``[host]`` table: the PCIe generation of the lane bandwidth, the lanes and MQSim's TLP efficiency."""
    lane = ssd.number("PCIe_Lane_Bandwidth", lo_open=True)
    gens = [g for g, rate in PCIE_LANE_GBPS.items() if abs(lane / rate - 1.0) <= LANE_TOLERANCE]
    if not gens:
        allowed = ", ".join(f"{rate:g} (Gen{g})" for g, rate in PCIE_LANE_GBPS.items())
        raise ConfigError(ssd.source, "PCIe_Lane_Bandwidth", lane, f"a PCIe lane rate in GB/s: {allowed}")
    lanes = ssd.integer("PCIe_Lane_Count")
    if lanes not in (1, 2, 4, 8, 16):
        raise ConfigError(ssd.source, "PCIe_Lane_Count", lanes, "one of 1, 2, 4, 8, 16")
    efficiency = TLP_PAYLOAD_BYTES / (TLP_PAYLOAD_BYTES + TLP_OVERHEAD_BYTES)
    notes.append(("host.link_efficiency", f"{TLP_PAYLOAD_BYTES} / {TLP_PAYLOAD_BYTES + TLP_OVERHEAD_BYTES}: MQSim's "
                                          f"TLPs of {TLP_PAYLOAD_BYTES} B with {TLP_OVERHEAD_BYTES} B of header"))
    notes.append(("host.command_bytes", f"{NVME_ENTRY_BYTES}: an NVMe submission (64 B) and completion (16 B) "
                                        f"entry over the link, with no fixed fetch or posting delay"))
    notes.append(("host.full_duplex", "true: MQSim's link queues each direction on its own (PCIe_Link.cpp)"))
    return {"pcie_gen": gens[0], "pcie_lanes": lanes, "link_efficiency": efficiency, "command_fetch_us": 0.0,
            "completion_post_us": 0.0, "command_bytes": NVME_ENTRY_BYTES, "full_duplex": True}


def _workload(work: _Xml, nand: dict, notes: list) -> dict[str, Any]:
    """The ``[workload]`` table of the flow: read share, size, addresses, queue depth or arrival rate."""
    sectors = work.integer("Average_Request_Size")
    if work.text("Request_Size_Distribution", ("FIXED", "NORMAL")) == "NORMAL":
        notes.append(("workload.request_size_kib", "the average of MQSim's normal size distribution"))
    size_kib = sectors * SECTOR_BYTES / 1024
    read_pct = work.number("Read_Percentage")
    if read_pct > 100:
        raise ConfigError(work.source, "Read_Percentage", read_pct, "a percentage from 0 to 100")
    page_sectors = round(nand["page_size_kib"] * 1024 / SECTOR_BYTES)
    unit_kib = nand["page_size_kib"]
    if read_pct == 100:
        unit_kib = math.gcd(sectors, page_sectors) * SECTOR_BYTES / 1024
        if unit_kib != nand["page_size_kib"]:
            notes.append(("workload.mapping_unit_kib", f"{unit_kib:g}: the largest size dividing the request and the "
                                                       f"page, so a read moves its own sectors on the channel"))
    elif sectors % page_sectors:
        notes.append(("workload.mapping_unit_kib", f"{unit_kib:g}: MQSim maps pages, so a write of part of a page "
                                                   f"reads and rewrites the page"))
    out: dict[str, Any] = {"read_fraction": read_pct / 100, "request_size_kib": size_kib,
                           "mapping_unit_kib": unit_kib}
    pattern = work.text("Address_Distribution", ("RANDOM_UNIFORM", "RANDOM_HOTCOLD", "STREAMING"))
    out["address_pattern"] = {"RANDOM_UNIFORM": "uniform", "RANDOM_HOTCOLD": "hot_cold",
                              "STREAMING": "sequential"}[pattern]
    if pattern == "RANDOM_HOTCOLD":
        hot = work.number("Percentage_of_Hot_Region")
        if not 0 < hot < 100:
            raise ConfigError(work.source, "Percentage_of_Hot_Region", hot, "a percentage strictly between 0 and 100")
        out["hot_space_fraction"] = hot / 100
        out["hot_access_fraction"] = 1.0 - hot / 100
        notes.append(("workload.hot_access_fraction", "MQSim's generator sends the rest of the accesses to the hot "
                                                      "region (100 - hot %)"))
    else:
        work.read.add("Percentage_of_Hot_Region")
    if work.text("Synthetic_Generator_Type", ("QUEUE_DEPTH", "BANDWIDTH")) == "QUEUE_DEPTH":
        out["queue_depth"] = work.integer("Average_No_of_Reqs_in_Queue")
        work.read.add("Bandwidth")
    else:
        out["arrival_iops"] = work.number("Bandwidth", lo_open=True) / (sectors * SECTOR_BYTES)
        work.read.add("Average_No_of_Reqs_in_Queue")
        notes.append(("workload.arrival_iops", "Poisson arrivals at MQSim's Bandwidth (bytes/s) over the request "
                                               "size"))
    return out


def _ftl(ssd: _Xml, work: _Xml, nand: dict, workload: dict, notes: list) -> dict[str, Any]:
    """The ``[ftl]`` table: mapping, victim selection, endurance and the write buffer (the write cache)."""
    policy = ssd.text("GC_Block_Selection_Policy")
    gc = {"GREEDY": "greedy", "FIFO": "fifo"}.get(policy)
    if gc is None:
        gc = "greedy"
        notes.append(("ftl.gc_policy", f"greedy in place of MQSim's {policy} (ssdco has greedy and fifo)"))
    out: dict[str, Any] = {"gc_policy": gc, "pe_cycles": ssd.number("Block_PE_Cycles_Limit", lo_open=True),
                           "drive_state": "fresh"}
    notes.append(("ftl.drive_state", "fresh: MQSim's runs (seconds of simulated time) end before garbage "
                                     "collection starts; set \"steady\" for sustained writes"))
    cmt_bytes = ssd.number("CMT_Capacity")
    if ssd.flag("Ideal_Mapping_Table"):
        out["mapping"] = "full"
    else:
        table = _table_bytes(nand, workload)
        out["mapping"] = "dftl"
        out["cache_fraction"] = min(1.0, max(cmt_bytes, 1.0) / table)
        notes.append(("ftl.cache_fraction", f"MQSim's CMT of {cmt_bytes:g} B over the {table:.6g} B mapping table"))
    caching = work.text("Device_Level_Data_Caching_Mode", ("WRITE_CACHE", "READ_CACHE", "WRITE_READ_CACHE",
                                                           "TURNED_OFF"))
    capacity_kib = ssd.number("Data_Cache_Capacity") / 1024
    buffer_kib = capacity_kib if "WRITE" in caching else 0.0
    if "WRITE" not in caching:
        notes.append(("ftl.write_buffer_kib", f"0: MQSim's device cache does not hold writes "
                                              f"(Device_Level_Data_Caching_Mode {caching}), so each write waits for "
                                              f"its flash work; its {capacity_kib:g} KiB are not used for writes"))
    if buffer_kib > MAX_WRITE_BUFFER_KIB:
        notes.append(("ftl.write_buffer_kib", f"{MAX_WRITE_BUFFER_KIB} KiB, ssdco's largest, in place of MQSim's "
                                              f"{buffer_kib:g} KiB write cache"))
        buffer_kib = float(MAX_WRITE_BUFFER_KIB)
    out["write_buffer_kib"] = buffer_kib
    return out


def _table_bytes(nand: dict, workload: dict) -> float:
    """Bytes of the full page-level mapping table: an entry per mapping unit of the user capacity."""
    raw = (nand["channels"] * nand["ways_per_channel"] * nand["dies_per_chip"] * nand["planes_per_die"]
           * nand["blocks_per_plane"] * nand["pages_per_block"] * nand["page_size_kib"] * 1024)
    return raw / (1.0 + nand["over_provisioning"]) / (workload["mapping_unit_kib"] * 1024) * MAPPING_ENTRY_BYTES


def _dram(ftl: dict, nand: dict, workload: dict, notes: list) -> dict[str, Any]:
    """The ``[dram]`` table: sized to hold the full mapping table and the write buffer (with ``[ftl]``, ssdco's DRAM
    size is the drive's with the full table; a cached mapping frees the difference); its power figures are not in
    MQSim's inputs and take ssdco's PM9A3 values."""
    need_gib = (_table_bytes(nand, workload) + ftl["write_buffer_kib"] * 1024) / 2**30
    size = max(DRAM_STEP_GIB, math.ceil(need_gib / DRAM_STEP_GIB) * DRAM_STEP_GIB)
    notes.append(("dram", f"{size:g} GiB (the full mapping table and the write buffer); power figures are ssdco's "
                          f"PM9A3 values (MQSim's inputs have none)"))
    return {"size_gib": size, "background_mw_per_gib": 120.0, "access_energy_nj": 12.8}
