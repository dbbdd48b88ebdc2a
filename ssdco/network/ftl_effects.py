"""FTL effects on the work per I/O: write buffer, garbage collection, mapping cache, DRAM size, lifetime.

:func:`ftl_effects` turns a configuration's ``[ftl]`` table and workload into the extra NAND work per
host request that :func:`ssdco.network.build.build_network` puts on the route (critical-path steps)
or next to it (background steps), plus the derived DRAM size and the endurance figures.

Model (steady state, page-level mapping, mapping unit ``u`` = ``workload.mapping_unit_kib``):

* **Write buffer.** A write is acknowledged once its data is in the DRAM write buffer; its NAND work
  is *background*: it occupies die and channel servers FCFS but the request does not wait for it.
  When the buffer (``ftl.write_buffer_kib``) is full, a write waits for its own flush (back-pressure),
  so sustained write IOPS are bounded by program throughput / WAF. A buffer of less than one mapping
  unit (``write_buffer_kib = 0``) is write-through: every write waits for its own NAND work, which is
  then on the critical path.
* **Garbage collection.** ``waf_gc`` = Desnoyers' closed forms (:func:`ssdco.ftl.waf.waf`: greedy or
  FIFO, Lambert-W, hot/cold zones for skewed writes) at ``alpha = 1 + nand.over_provisioning``, with
  blocks of ``pages_per_block x units per page`` mapping units; sequential writes invalidate whole
  blocks (WAF 1). Per host unit written: ``A`` units programmed, ``A - 1`` units copied (read and
  re-programmed) and ``A / units per block`` erases (= 1 / (Np (1 - u)) with u the victim's valid
  fraction; reference-parameters.md §6.1). Mapping-page programs are data too and are amplified by
  the same ``A``.
* **Drive state.** ``ftl.drive_state = "steady"`` (the default) takes garbage collection at its steady state, as
  sustained writing reaches it. ``"fresh"`` is a run that ends before the free blocks run out (a drive written
  for seconds, or a simulator's short run): no GC copies and no erases are on the NAND, so the run programs each
  host unit once. The endurance figures (TBW, DWPD, life) stay those of the steady state.
* **Programs.** One program writes a page (``page_size / u`` units) per plane; when planes read
  independently each plane is a die server and programs its own page, otherwise a multi-plane
  program writes ``planes`` pages at once on the die's single server, for the share
  ``nand.multi_plane_program_fraction`` of the programs whose plane addresses line up (the rest write one
  page; erases pair planes alike). Either way the die is busy ``t_prog`` per ``units_per_program``.
* **Mapping table.** ``full``: no extra work. ``dftl``: a cached mapping table holding a fraction f of
  the entries (Gupta et al., ASPLOS 2009); hit ratio by Che's approximation
  (:func:`ssdco.ftl.mapping_cache.dftl_cost`). A read miss fetches a translation page on the read's
  critical path and, when the LRU victim is dirty, first writes it back (and, entry-grained, reads it
  for the read-modify-write): up to 3-4 NAND operations for one host read. ``partitioned``: the
  clean/dirty cache of seed 002 (:func:`ssdco.ftl.mapping_cache.partitioned_cache_cost`): a read
  miss evicts only clean pages (at most two NAND reads, never a program); dirty entries are logged
  and written back by greedy batch update in the background. Write-side mapping traffic is background.
* **DRAM size.** ``dram.size_gib`` is the size *with the full table*; another option frees the
  difference: ``size = dram.size_gib - full table + (cache + GTD)``
  (:func:`ssdco.ftl.mapping_cache.mapping_dram_bytes`; reference-parameters.md §4.3).
* **SRAM.** ``[sram] mapping_mib`` of on-chip SRAM takes the mapping table's bytes first (seed 001: the
  table wholly or partly in SRAM); the DRAM keeps the rest, and the translate module's DRAM accesses fall
  to the share of the bytes left in DRAM (lookups spread evenly over the table's bytes), the others served
  by SRAM (``mapping_sram_share``; :func:`ssdco.model.power.compute_power` prices both).
* **Sub-unit writes.** A write smaller than the mapping unit (JESD219: 10 % of transfers are below
  4 KiB) is a read-modify-write: its flush first reads the old unit (one more background page read and
  channel transfer) and programs a whole unit, so NAND bytes per host byte grow by
  ``unit x transactions / request bytes`` (``byte_amplification``; reference-parameters.md §7.3 note).
* **Measured buffer and FTL.** ``ftl.read_hit_fraction`` h: a read found in the DRAM buffer skips its NAND read,
  channel transfer and mapping-table NAND traffic (each taken with probability 1 - h). ``ftl.flush_fraction`` f:
  only f of the host write units reach NAND (the rest are overwritten while buffered), so every background count
  per write is scaled by f and ``waf_total`` (NAND units per host unit) with it. ``ftl.waf``: a measured GC/merge
  write amplification replaces Desnoyers' closed form. ``ssdco whatif --trace T --buffer P`` sets all three from a
  trace simulation (:mod:`ssdco.trace`).
* **Lifetime.** NAND bytes written per host byte = ``waf_total x byte_amplification``; TBW = P/E x physical capacity /
  ``waf_total``; DWPD over 5 years (the usual enterprise warranty, JESD218); years of life at the
  workload's host write rate = P/E x physical bytes / (host write bytes/s x ``waf_total``).

References
----------
P. Desnoyers, "Analytic models of SSD write performance", SYSTOR 2012 / ACM ToS 2014.
A. Gupta, Y. Kim, B. Urgaonkar, "DFTL", ASPLOS 2009. Seed 002 (partitioned DFTL cache), seed 004
(JESD219, WAF, lifetime). JEDEC JESD219 (enterprise workload), JESD218 (endurance rating).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ssdco.ftl import address_patterns as ap
from ssdco.ftl.mapping_cache import ZonePopularity, dftl_cost, mapping_dram_bytes, partitioned_cache_cost
from ssdco.ftl.waf import alpha_from_op, waf
from ssdco.spec import GIB, KIB, MAPPING_ENTRY_BYTES, Config

SECONDS_PER_YEAR = 365.25 * 86400.0
WARRANTY_YEARS = 5.0  # DWPD is quoted over the warranty period; 5 years is the enterprise norm (JESD218)
ENTRY_BYTES = MAPPING_ENTRY_BYTES  # one mapping entry per mapped unit (reference-parameters.md §4.3)
MIB = 2**20


@dataclass(frozen=True)
class FtlEffects:
    """Extra NAND work per host transaction and the derived DRAM size / endurance constants.

    Counts are per host *read transaction* (``read_*``, on the request's critical path) or per host
    *write transaction* (``bg_*``, background). ``*_pages`` are NAND page operations of one plane.
    """

    mapping: str
    waf_gc: float  # GC write amplification of the data (Desnoyers)
    waf_total: float  # NAND units programmed per host unit written, mapping writes included
    mapping_hit_ratio: float  # for reads
    read_map_reads: float  # translation-page reads per read transaction
    read_map_writebacks: float  # translation-page programs per read transaction (plain DFTL only)
    read_map_rmw_reads: float  # extra reads for entry-grained write-backs per read transaction
    max_nand_ops_per_read: int
    read_nand_fraction: float  # read transactions that go to NAND (not found in the buffer)
    bg_programs: float  # die programs (each t_prog) per write transaction
    bg_reads: float  # die page reads (each t_read) per write transaction (GC copies, mapping reads)
    bg_erases: float  # block erases (each t_erase) per write transaction
    bg_transfers_units: float  # channel transfers of one mapping unit per write transaction
    units_per_program: float
    write_buffer_slots: int  # buffered write transactions (DES back-pressure)
    rmw_reads: float  # read-modify-write reads per write transaction (writes smaller than a unit)
    byte_amplification: float  # mapping units written per host byte, in units of the host's bytes (>= 1)
    dram_size_gib: float
    mapping_dram_bytes: int
    physical_bytes: float
    logical_bytes: float
    pe_cycles: float
    mapping_sram_bytes: int = 0  # mapping-table bytes held in on-chip SRAM ([sram] mapping_mib)
    mapping_sram_share: float = 0.0  # share of mapping lookups SRAM serves: its share of the table's bytes

    @property
    def tbw(self) -> float:
        """Terabytes (1e12 B) of host writes until the P/E rating is used up."""
        return self.pe_cycles * self.physical_bytes / self.nand_bytes_per_host_byte / 1e12

    @property
    def nand_bytes_per_host_byte(self) -> float:
        """NAND bytes programmed per host byte written: GC/mapping WAF x sub-unit amplification."""
        return self.waf_total * self.byte_amplification

    @property
    def dwpd(self) -> float:
        """Drive writes per day sustainable over :data:`WARRANTY_YEARS`."""
        return self.tbw * 1e12 / self.logical_bytes / (WARRANTY_YEARS * 365.25)

    def life_years(self, host_write_bytes_per_s: float) -> float:
        """Years until the P/E rating is used up at ``host_write_bytes_per_s`` (inf without writes)."""
        if host_write_bytes_per_s <= 0:
            return math.inf
        return (self.pe_cycles * self.physical_bytes / (host_write_bytes_per_s * self.nand_bytes_per_host_byte)
                / SECONDS_PER_YEAR)


def address_pattern(config: Config):
    """The workload's address pattern object (see :mod:`ssdco.ftl.address_patterns`)."""
    w = config.workload
    if w.address_pattern == "hot_cold":
        return ap.hot_cold_pattern(w.hot_access_fraction, w.hot_space_fraction)
    if w.address_pattern == "jesd219":
        return ap.JESD219_LBA_SKEW
    if w.address_pattern == "sequential":
        return ap.SequentialPattern()
    return ap.UniformPattern()


def ftl_effects(config: Config) -> FtlEffects | None:
    """The FTL's extra work for ``config`` (None when the device file has no ``[ftl]`` table)."""
    ftl, nand, w = config.ftl, config.nand, config.workload
    if ftl is None:
        return None
    unit_bytes = w.mapping_unit_kib * KIB
    page_bytes = nand.page_size_kib * KIB
    units_per_page = max(1.0, page_bytes / unit_bytes)
    planes_per_server = nand.planes_per_die / nand.read_servers_per_die
    # a multi-plane program writes a page on every plane of the server, a single-plane one a page
    planes_per_program = 1.0 + (planes_per_server - 1.0) * nand.multi_plane_program_fraction
    units_per_program = units_per_page * planes_per_program
    rf = w.read_fraction
    wf = 1.0 - rf
    pattern = address_pattern(config)
    sequential = isinstance(pattern, ap.SequentialPattern)
    alpha = alpha_from_op(nand.over_provisioning)
    units_per_block = int(nand.pages_per_block * units_per_page)
    if ftl.waf is not None:
        waf_gc = ftl.waf  # measured: replaces the closed form
    elif sequential:
        waf_gc = 1.0
    else:
        zones = pattern if isinstance(pattern, ap.ZonedPattern) else None
        waf_gc = waf(alpha, ftl.gc_policy, units_per_block, zones)
    logical = float(ftl.logical_bytes)
    entries_per_page = int(page_bytes // ENTRY_BYTES)
    mdram = mapping_dram_bytes(max(1, int(logical)), ftl.cache_fraction, int(unit_bytes), ENTRY_BYTES,
                               int(page_bytes), ENTRY_BYTES,
                               ftl.cache_granularity if ftl.mapping == "dftl" else "page")
    n_entries = mdram.n_entries
    # mapping traffic: per read transaction (critical path) and per write transaction (background)
    hit, r_reads, r_wb, r_rmw, w_reads, w_progs, max_ops = 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1
    if ftl.mapping != "full":
        if sequential:
            # one translation page covers entries_per_page consecutive units: one miss per page
            miss = 1.0 / entries_per_page
            hit, r_reads, max_ops = 1.0 - miss, miss, 2
            w_reads = w_progs = miss if wf > 0 else 0.0
        else:
            pop = ZonePopularity.from_pattern(pattern, n_entries)
            if ftl.mapping == "dftl":
                c = dftl_cost(pop, ftl.cache_fraction, wf, ftl.cache_granularity, entries_per_page)
                m, d = c.miss_ratio, c.dirty_eviction_probability
                rmw = 1.0 if ftl.cache_granularity == "entry" else 0.0
                hit, r_reads, r_wb, r_rmw = c.hit_ratio, m, m * d, rmw * m * d
                w_reads, w_progs = m * (1.0 + rmw * d), m * d
                max_ops = 1 + (1 if m > 0 else 0) + (int(1 + rmw) if m * d > 0 else 0)
            else:
                cache_bytes = mdram.cache_bytes
                dirty_entries = max(1.0, ftl.dirty_fraction * cache_bytes / (2 * ENTRY_BYTES))
                clean_pages = (1.0 - ftl.dirty_fraction) * cache_bytes / page_bytes
                c = partitioned_cache_cost(pop, clean_pages, min(dirty_entries, n_entries - 1.0), entries_per_page)
                hit, r_reads, max_ops = c.read_hit_ratio, c.translation_reads_per_read, 2
                w_reads, w_progs = c.translation_reads_per_write, c.translation_writes_per_write
    # a read found in the buffer needs neither its data nor its translation from NAND
    miss = 1.0 - ftl.read_hit_fraction
    r_reads, r_wb, r_rmw = r_reads * miss, r_wb * miss, r_rmw * miss
    # units programmed per host write unit: data + mapping pages, both amplified by GC, of the units flushed
    flush = ftl.flush_fraction
    map_units_per_write = units_per_page * (w_progs + (r_wb * rf / wf if wf > 0 else 0.0))
    waf_total = flush * waf_gc * (1.0 + map_units_per_write)
    run_waf = 1.0 if ftl.drive_state == "fresh" else waf_gc  # the GC amplification the run's NAND work sees
    bg_units = run_waf * (1.0 + units_per_page * w_progs)  # background programs (read write-backs are sync)
    partial = sum(p for size, p in zip(w.request_sizes_kib, w.request_size_probs) if size < w.mapping_unit_kib - 1e-9)
    rmw = partial / w.mean_transactions
    byte_amp = max(1.0, unit_bytes * w.mean_transactions / w.mean_request_bytes)
    copies_units = (run_waf - 1.0) * (1.0 + units_per_page * w_progs)
    in_sram = min(int(config.sram.mapping_mib * MIB), mdram.total_bytes)  # SRAM takes the table's bytes first
    return FtlEffects(
        mapping=ftl.mapping,
        waf_gc=waf_gc,
        waf_total=waf_total,
        mapping_hit_ratio=hit,
        read_map_reads=r_reads,
        read_map_writebacks=r_wb,
        read_map_rmw_reads=r_rmw,
        max_nand_ops_per_read=max_ops,
        read_nand_fraction=miss,
        bg_programs=flush * bg_units / units_per_program,
        bg_reads=flush * (copies_units / units_per_page + w_reads + rmw),
        bg_erases=0.0 if ftl.drive_state == "fresh" else flush * bg_units / (units_per_block * planes_per_program),
        bg_transfers_units=flush * (1.0 + 2.0 * copies_units + units_per_page * (w_reads + w_progs) + rmw),
        units_per_program=units_per_program,
        write_buffer_slots=int(ftl.write_buffer_kib * KIB // unit_bytes),  # 0: write-through
        rmw_reads=rmw,
        byte_amplification=byte_amp,
        # the configured DRAM holds the full table (spec.py checks it), which a cache replaces
        dram_size_gib=config.dram.size_gib - mdram.full_table_bytes / GIB + (mdram.total_bytes - in_sram) / GIB,
        mapping_dram_bytes=mdram.total_bytes - in_sram,
        mapping_sram_bytes=in_sram,
        mapping_sram_share=in_sram / mdram.total_bytes if mdram.total_bytes else 0.0,
        physical_bytes=logical * alpha,
        logical_bytes=logical,
        pe_cycles=ftl.pe_cycles,
    )
