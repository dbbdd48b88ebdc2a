"""The design space of ``ssdco optimize``: what may vary, read from the config's ``[optimizer]`` table.

A *design* places every firmware module (``ssdco.spec.MODULES``) exactly once:

* **hardware** - ``1..max_units`` accelerator units (only modules listed in ``hardware_modules``, which
  defaults to every module with an ``[accelerator_specs.<module>]`` entry), or
* **software** on a *core group* = (core spec, ``1..max_cores_per_group`` identical cores, the set of
  software modules it serves FCFS). Which modules share a group is part of the decision: the software
  modules are split into groups by every set partition of them (Bell(n) ways), and each group picks its
  spec and core count independently.

The space is therefore a union over hardware subsets H of
``prod_{m in H} max_units  x  T_{|SW|}(specs x max_cores)``, where ``T_n(x) = sum_k S(n, k) x^k`` is the
Touchard polynomial (S = Stirling numbers of the second kind): a partition into k groups has
``(specs x max_cores)^k`` spec/count choices. :func:`DesignSpace.size` evaluates that closed form;
:meth:`DesignSpace.designs` walks the same space one design at a time (the test oracle for the vectorised
enumeration in ``enumerate.py``).

``[optimizer]`` keys and defaults (documented in ``configs/pm9a3-960.toml``):

================================  ========================  ==================================================
key                               default                   meaning
================================  ========================  ==================================================
core_specs                        every ``[core_specs]``    core types a group may use
max_cores_per_group               4                         cores per group: 1..this
hardware_modules                  modules with a spec       modules that may be replaced by accelerators
max_units                         2                         accelerator units per hardware module: 1..this
utilization_cap                   0.9                       every station's utilisation at the target <= cap
max_iterations                    1000                      cap on designs the verify/tighten loop verifies
verify_des                        true                      verify the pick with the DES too (not only MVA)
des_requests                      20000                     DES requests per verification (10 % warm-up)
des_seed                          0                         DES seed (same seed => same verdict)
enumeration_limit                 250000                    enumerate (cross-check, Pareto) up to this size
memory_limit_gb                   1                         refuse to enumerate a space whose table (and Pareto
                                                            front) would take more memory than this
runners_up                        3                         next-cheapest feasible designs to report
solver                            "auto"                    "cbc", "highs" (needs highspy) or "auto"
markov_chain                      true                      verify with the Markov chain of the requests' draws
                                                            where it applies (false: ``optimize --fast``)
timing_spread_scv                 0                         > 0: the pick's DES runs once more with every service
                                                            time's scv at least this (``validate --timing-spread``;
                                                            ``optimize --timing-spread``); 0: not
================================  ========================  ==================================================

Device options. ``[optimizer.dram]`` makes the FTL's mapping table a decision (needs an ``[ftl]``
table): ``mappings`` (subset of "full", "dftl", "partitioned") and ``cache_fractions`` (fractions of the
mapping entries the DRAM cache holds, for "dftl" and "partitioned"). Each combination is a
:class:`DeviceVariant` whose DRAM size, DRAM power, DRAM cost and NAND work follow from
:mod:`ssdco.model.ftl`; ``optimize`` solves each variant and keeps the cheapest verified pick, reporting
every variant's DRAM size, DRAM power, WAF and lifetime. ``min_life_years`` (default 0) rejects a variant
whose flash would wear out sooner at the target IOPS (lifetime does not depend on the controller design).
``[optimizer.nand]`` makes the NAND geometry a decision: ``channels``, ``ways_per_channel``, ``dies_per_chip``,
``planes_per_die`` and ``channel_rate_mts``, each a list of values (a field left out stays as configured); every
combination is a variant, built with the configured raw capacity (blocks per plane scale with the number of
planes) and costing ``nand.cost_per_channel`` (plus ``nand.cost_per_channel_gts`` per 1,000 MT/s of the rate) per
channel plus ``nand.cost_per_die`` per die (all 0 by default: then the geometry
costs nothing and the cheapest controller decides, ties going to the cheaper, then smaller, geometry). A device
option changes only the *fixed* part of the model (the pcie/die/channel stations, the fixed delays, DRAM power
and the fixed cost) unless it also changes module demands. ``[optimizer.sram] mapping_mib`` makes the on-chip SRAM
for the mapping table a decision (needs an ``[ftl]`` table): each size is a variant whose SRAM takes the table's
bytes and lookups off the DRAM (:mod:`ssdco.network.ftl_effects`) and costs ``sram.cost_per_mib`` per MiB.
:attr:`DesignSpace.device_variants` carries the device as a tuple of variants (one per ``[optimizer.nand]`` x
``[optimizer.dram]`` x ``[optimizer.sram]`` combination, else one, "as configured"); each is searched on its own
(an ILP and its verification, cross-checked by enumeration where the space allows) and the cheapest verified pick
over them wins, which is the exact optimum over the union when each variant's is.

Cost model (all relative units, from the device file): ``core_specs.<spec>.cost`` per core (default
1.0), ``accelerator_specs.<m>.unit_cost`` per unit (default 1.0) plus ``development_cost`` once per
accelerated module type (default 0.0), and ``dram.cost_per_gib`` x ``dram.size_gib`` (default 0.0; a
constant while DRAM is not a decision), plus channels x (``nand.cost_per_channel`` + rate / 1,000 MT/s x
``nand.cost_per_channel_gts``) + ``nand.cost_per_die`` x dies (default 0.0), plus ``sram.mapping_mib`` x
``sram.cost_per_mib`` (default 0.0).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace
from typing import Any, Iterator, Mapping

from ssdco.errors import ConfigError
from ssdco.spec import MODULES, Config, Controller, CoreGroup
from ssdco.spec.search_options import DEFAULTS, SOLVERS, SearchOptions, parse_options  # noqa: F401


@dataclass(frozen=True)
class Group:
    """``count`` cores of ``spec`` serving ``modules`` (in ``MODULES`` order)."""

    spec: str
    count: int
    modules: tuple[str, ...]

    @property
    def name(self) -> str:
        """Core-group name used in controllers and station names (``cores:<name>``)."""
        return "+".join(self.modules)


@dataclass(frozen=True)
class Design:
    """One point of the space: software groups and hardware modules (``(module, units)`` pairs).

    Always canonical (groups ordered by their first module, modules and hardware in ``MODULES`` order), so
    equal designs compare and hash equal.
    """

    groups: tuple[Group, ...]
    hardware: tuple[tuple[str, int], ...]

    @staticmethod
    def make(groups, hardware) -> "Design":
        """Canonical design from any iterable of :class:`Group` and a mapping or pairs module -> units."""
        order = {m: i for i, m in enumerate(MODULES)}
        gs = tuple(sorted((Group(g.spec, int(g.count), tuple(sorted(g.modules, key=order.__getitem__)))
                           for g in groups), key=lambda g: order[g.modules[0]]))
        hw_items = hardware.items() if isinstance(hardware, Mapping) else hardware
        hw = tuple(sorted(((m, int(u)) for m, u in hw_items), key=lambda p: order[p[0]]))
        return Design(gs, hw)

    @property
    def units(self) -> dict[str, int]:
        """Accelerator units by module."""
        return dict(self.hardware)

    def placement(self, module: str) -> tuple[str, Any]:
        """``("hardware", units)`` or ``("software", group)``."""
        for m, u in self.hardware:
            if m == module:
                return ("hardware", u)
        for g in self.groups:
            if module in g.modules:
                return ("software", g)
        raise KeyError(module)

    def label(self) -> str:
        """Compact one-line description, e.g. ``[parse+cache_lookup]2xr1g [translate]1xr100m HW(complete x1)``."""
        parts = [f"[{g.name}]{g.count}x{g.spec}" for g in self.groups]
        if self.hardware:
            parts.append("HW(" + ", ".join(f"{m} x{u}" for m, u in self.hardware) + ")")
        return " ".join(parts)

    def to_controller(self, name: str = "optimized", description: str = "") -> Controller:
        """The :class:`ssdco.spec.Controller` this design describes."""
        return Controller(name=name, description=description,
                          core_groups=tuple(CoreGroup(g.name, g.spec, g.count, g.modules) for g in self.groups),
                          accelerator_units=dict(self.hardware))

    @staticmethod
    def from_controller(controller: Controller) -> "Design":
        """The design of an existing controller (group names are dropped)."""
        return Design.make((Group(g.spec, g.count, g.modules) for g in controller.core_groups),
                           controller.accelerator_units)


@dataclass(frozen=True)
class DeviceVariant:
    """A NAND/DRAM/mapping choice: the configured device ("as configured") or one combination of
    ``[optimizer.nand]`` and ``[optimizer.dram]`` options; the module docstring says how variants are added."""

    name: str
    config: Config = field(repr=False)


def device_variants(config: Config, options: "SearchOptions") -> tuple[DeviceVariant, ...]:
    """One variant per NAND geometry of ``[optimizer.nand]`` x mapping option x cache fraction of
    ``[optimizer.dram]`` x SRAM size of ``[optimizer.sram]`` (else "as configured"); geometries cheapest first
    (``NandSpec.cost``), then fewer dies.

    A variant's config has neither table, so solving it does not branch again."""
    raw = dict(config.raw)
    opt = dict(raw.get("optimizer", {}) or {})
    opt.pop("dram", None)
    opt.pop("nand", None)
    opt.pop("sram", None)
    raw["optimizer"] = opt
    out = []
    for geometry_name, cfg in _geometries(replace(config, raw=raw), options):
        for mapping_name, mapped in _mappings(cfg, options):
            for sram_name, variant in _srams(mapped, options):
                name = " / ".join(n for n in (geometry_name, mapping_name, sram_name) if n) or "as configured"
                out.append(DeviceVariant(name, variant))
    return tuple(out)


def _srams(config: Config, options: "SearchOptions") -> list[tuple[str, Config]]:
    """``(name, config)`` per SRAM size of ``[optimizer.sram] mapping_mib``; without the table one with an empty
    name."""
    if not options.sram_mib:
        return [("", config)]
    return [(f"SRAM {mib:g} MiB", replace(config, sram=replace(config.sram, mapping_mib=mib)))
            for mib in options.sram_mib]


def _mappings(config: Config, options: "SearchOptions") -> list[tuple[str, Config]]:
    """``(name, config)`` per mapping option x cache fraction of ``[optimizer.dram]``; without the table one with
    an empty name."""
    if not options.mappings or config.ftl is None:
        return [("", config)]
    out = []
    for m in options.mappings:
        fractions = (1.0,) if m == "full" else (options.cache_fractions or (config.ftl.cache_fraction,))
        for f in fractions:
            ftl = replace(config.ftl, mapping=m, cache_fraction=float(f))
            out.append(("full table" if m == "full" else f"{m} f={f:g}", replace(config, ftl=ftl)))
    return out


def _geometries(config: Config, options: "SearchOptions") -> list[tuple[str, Config]]:
    """``(name, config)`` per combination of ``[optimizer.nand]`` values (the other fields as configured); without
    the table one with an empty name. Each keeps the configured raw capacity: blocks per plane scale with the
    planes' count (rounded up), as a drive of one capacity built from more, smaller dies."""
    if not options.nand_options:
        return [("", config)]
    keys = [k for k, _ in options.nand_options]
    nand0 = config.nand
    planes0 = nand0.dies * nand0.planes_per_die
    out = []
    for values in itertools.product(*(v for _, v in options.nand_options)):
        nand = replace(nand0, **dict(zip(keys, values)))
        blocks = -(-nand0.blocks_per_plane * planes0 // (nand.dies * nand.planes_per_die))
        nand = replace(nand, blocks_per_plane=blocks)
        raw = dict(config.raw)
        raw["nand"] = {**(raw.get("nand") or {}), **dict(zip(keys, values)), "blocks_per_plane": blocks}
        name = (f"{nand.channels} ch x {nand.ways_per_channel} ways x {nand.dies_per_chip} dies x "
                f"{nand.planes_per_die} planes" + (f" at {nand.channel_rate_mts:g} MT/s"
                                                   if "channel_rate_mts" in keys else ""))
        out.append((nand.cost, nand.dies, nand.channels, name, replace(config, nand=nand, raw=raw)))
    return [(name, cfg) for *_, name, cfg in sorted(out, key=lambda row: row[:3])]


def set_partitions(items: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], ...]]:
    """Every partition of ``items`` into non-empty blocks (Bell(n) of them), blocks in first-item order."""
    if not items:
        yield ()
        return
    first, rest = items[0], items[1:]
    for part in set_partitions(rest):
        yield ((first,),) + part
        for i in range(len(part)):
            yield part[:i] + ((first,) + part[i],) + part[i + 1:]


def _stirling2(n: int, k: int) -> int:
    return sum((-1) ** j * math.comb(k, j) * (k - j) ** n for j in range(k + 1)) // math.factorial(k)


def touchard(n: int, x: int) -> int:
    """``T_n(x) = sum_k S(n, k) x^k``: partitions of n items, each block with x independent choices."""
    return 1 if n == 0 else sum(_stirling2(n, k) * x ** k for k in range(1, n + 1))


@dataclass(frozen=True)
class DesignSpace:
    """The space for one device configuration (see the module docstring)."""

    config: Config = field(repr=False)
    options: SearchOptions
    device_variants: tuple[DeviceVariant, ...] = field(repr=False, default=())

    @staticmethod
    def from_config(config: Config, overrides: Mapping[str, Any] | None = None) -> "DesignSpace":
        """Read and validate ``config.raw["optimizer"]`` (plus ``overrides`` of the same keys)."""
        raw = config.raw.get("optimizer", {}) or {}
        if not isinstance(raw, Mapping):
            raise ConfigError(config.source, "optimizer", raw, "expected a table [optimizer]")
        merged = dict(raw)
        merged.update(overrides or {})
        options = parse_options(config, merged)
        return DesignSpace(config=config, options=options, device_variants=device_variants(config, options))

    @property
    def modules(self) -> tuple[str, ...]:
        """The firmware modules every design places."""
        return MODULES

    @property
    def group_choices(self) -> int:
        """(spec, count) choices per core group."""
        return len(self.options.core_specs) * self.options.max_cores_per_group

    def size(self) -> int:
        """Number of designs (closed form, see the module docstring)."""
        hw = self.options.hardware_modules
        total = 0
        for h in range(len(hw) + 1):
            total += math.comb(len(hw), h) * self.options.max_units ** h * touchard(len(MODULES) - h,
                                                                                      self.group_choices)
        return total

    def group_options(self) -> tuple[tuple[str, int], ...]:
        """(spec, count) pairs in the fixed order used by the ILP columns and the enumeration."""
        return tuple((s, c) for s in self.options.core_specs for c in range(1, self.options.max_cores_per_group + 1))

    def hardware_choices(self) -> Iterator[tuple[tuple[str, int], ...]]:
        """Every hardware assignment: a subset of ``hardware_modules`` with units for each."""
        hw = self.options.hardware_modules
        for h in range(len(hw) + 1):
            for subset in itertools.combinations(hw, h):
                for units in itertools.product(range(1, self.options.max_units + 1), repeat=h):
                    yield tuple(zip(subset, units))

    def designs(self) -> Iterator[Design]:
        """Every design, one at a time (slow; for tests and tiny spaces)."""
        opts = self.group_options()
        for hw in self.hardware_choices():
            in_hw = {m for m, _ in hw}
            sw = tuple(m for m in MODULES if m not in in_hw)
            for part in set_partitions(sw):
                for choice in itertools.product(opts, repeat=len(part)):
                    yield Design.make((Group(s, c, blk) for blk, (s, c) in zip(part, choice)), hw)

    def contains(self, design: Design) -> bool:
        """True when ``design`` is a point of this space."""
        placed = [m for g in design.groups for m in g.modules] + [m for m, _ in design.hardware]
        if sorted(placed) != sorted(MODULES):
            return False
        if any(g.spec not in self.options.core_specs or not 1 <= g.count <= self.options.max_cores_per_group
               for g in design.groups):
            return False
        return all(m in self.options.hardware_modules and 1 <= u <= self.options.max_units
                   for m, u in design.hardware)

    def config_for(self, design: Design, name: str = "optimized", description: str = "") -> Config:
        """The device configuration running ``design`` (validated by :meth:`Config.with_controller`)."""
        return self.config.with_controller(design.to_controller(name, description))

    def with_options(self, **changes: Any) -> "DesignSpace":
        """A copy with some options replaced (no re-validation; for internal what-ifs)."""
        return replace(self, options=replace(self.options, **changes))
