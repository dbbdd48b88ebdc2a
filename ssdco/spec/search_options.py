"""The ``[optimizer]`` table of a device file: its keys, defaults and checks (:func:`parse_options`).

Every command checks the table when it loads the file (``ssdco.spec.load``), so a bad value is refused whatever
the command; ``ssdco optimize`` uses the parsed :class:`SearchOptions`. :mod:`ssdco.optimizer.space` documents
what each key means for the search.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

from ssdco.errors import MISSING, ConfigError
from ssdco.spec.schema import FTL_MAPPINGS, MODULES, Config

MAX_TIMING_SPREAD_SCV = 100.0  # validate --timing-spread and optimizer.timing_spread_scv: the [variability] limit
SOLVERS = ("auto", "cbc", "highs")
#: ``[optimizer.nand]``: the geometry fields whose values the search may choose, each a list of integers >= 1
NAND_OPTION_KEYS = ("channels", "ways_per_channel", "dies_per_chip", "planes_per_die", "channel_rate_mts")
NAND_OPTION_MAX = {"channels": 256, "ways_per_channel": 64, "dies_per_chip": 16, "planes_per_die": 16,
                   "channel_rate_mts": 100_000}  # as [nand] (the rate: any number > 0 up to this, MT/s)

DEFAULTS: dict[str, Any] = {
    "max_cores_per_group": 4,
    "max_units": 2,
    "utilization_cap": 0.9,
    "max_iterations": 1000,
    "verify_des": True,
    "des_requests": 20_000,
    "des_seed": 0,
    "timing_spread_scv": 0.0,
    "enumeration_limit": 250_000,
    "memory_limit_gb": 1.0,
    "runners_up": 3,
    "markov_chain": True,
    "solver": "auto",
}


@dataclass(frozen=True)
class SearchOptions:
    """The validated ``[optimizer]`` table (see the module docstring for meanings and defaults)."""

    core_specs: tuple[str, ...]
    max_cores_per_group: int
    hardware_modules: tuple[str, ...]
    max_units: int
    utilization_cap: float
    max_iterations: int
    verify_des: bool
    des_requests: int
    des_seed: int
    enumeration_limit: int
    runners_up: int
    solver: str
    markov_chain: bool = True  # false (optimize --fast): the analytic verification skips the chain (whatif --fast)
    mappings: tuple[str, ...] = ()  # [optimizer.dram]: mapping options searched (empty: as configured)
    cache_fractions: tuple[float, ...] = ()
    min_life_years: float = 0.0
    timing_spread_scv: float = 0.0  # > 0: the pick's DES once more with every service time varying (0: not)
    memory_limit_gb: float = 1.0  # enumerating a space whose table would take more than this is refused
    # [optimizer.nand]: (field, values) per geometry field searched, in NAND_OPTION_KEYS order (empty: as configured)
    nand_options: tuple[tuple[str, tuple[int, ...]], ...] = ()
    sram_mib: tuple[float, ...] = ()  # [optimizer.sram] mapping_mib: SRAM sizes searched (empty: as configured)


def _is_number(x: Any) -> bool:
    """An int or a float, not a bool."""
    return not isinstance(x, bool) and isinstance(x, (int, float))


class _OptionReader:
    """Reads the keys of one ``[optimizer]`` table; every bad value raises ConfigError naming the field."""

    def __init__(self, config: Config, raw: Mapping[str, Any]):
        self.config = config
        self.raw = raw

    def error(self, key: str, value: Any, allowed: str) -> ConfigError:
        """The ConfigError of ``optimizer.<key>``."""
        return ConfigError(self.config.source, f"optimizer.{key}", value, allowed)

    def integer(self, key: str, lo: int, hi: int) -> int:
        """An integer from ``lo`` to ``hi`` (default from DEFAULTS)."""
        v = self.raw.get(key, DEFAULTS[key])
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.error(key, v, f"expected an integer from {lo} to {hi}")
        if not lo <= v <= hi:
            raise self.error(key, v, f"out of range: allowed {lo}..{hi}")
        return int(v)

    def number(self, key: str, default: float, within, allowed: str) -> float:
        """A finite number (not a bool) for which ``within(value)`` holds."""
        v = self.raw.get(key, default)
        if not _is_number(v) or not math.isfinite(v) or not within(v):
            raise self.error(key, v, allowed)
        return float(v)

    def flag(self, key: str) -> bool:
        """True or false (default from DEFAULTS)."""
        v = self.raw.get(key, DEFAULTS[key])
        if not isinstance(v, bool):
            raise self.error(key, v, "expected true or false")
        return v

    def names(self, key: str, universe: tuple[str, ...], default: tuple[str, ...], what: str,
              allow_empty: bool) -> tuple[str, ...]:
        """Distinct names from ``universe``, in the universe's (canonical) order."""
        v = self.raw.get(key, list(default))
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v) or (not v and not allow_empty):
            raise self.error(key, v, f"expected a {'' if allow_empty else 'non-empty '}list of {what} from "
                                     f"{', '.join(universe) or 'none'}")
        for x in v:
            if x not in universe:
                raise self.error(key, v, f"unknown name '{x}'; expected {what} from {', '.join(universe) or 'none'}")
        if len(set(v)) != len(v):
            raise self.error(key, v, "names must not repeat")
        return tuple(x for x in universe if x in v)

    def check_keys(self) -> None:
        """Refuse unknown keys and the reserved (unsupported) option tables."""
        known = set(DEFAULTS) | {"core_specs", "hardware_modules", "dram", "nand", "sram", "min_life_years"}
        for key in self.raw:
            if key not in known:
                raise self.error(key, self.raw[key], "unknown field; allowed here: " + ", ".join(sorted(known)))

    def hardware_modules(self) -> tuple[str, ...]:
        """``hardware_modules``: modules with an ``[accelerator_specs]`` entry (default: all of them)."""
        specs = self.config.accelerator_specs
        universe = tuple(m for m in MODULES if m in specs)
        hw = self.raw.get("hardware_modules", MISSING)
        if hw is not MISSING and isinstance(hw, list):
            for x in hw:
                if isinstance(x, str) and x in MODULES and x not in specs:
                    raise self.error("hardware_modules", hw, f"module '{x}' has no [accelerator_specs.{x}] in the "
                                                             f"device file; modules with a spec: "
                                                             f"{', '.join(universe) or 'none'}")
        return self.names("hardware_modules", universe, universe, "module names", True)

    def dram_options(self) -> tuple[tuple[str, ...], tuple[float, ...]]:
        """``[optimizer.dram]``: the mapping options and cache fractions to search (both empty without it)."""
        dram = self.raw.get("dram", None)
        if dram is None:
            return (), ()
        if not isinstance(dram, Mapping):
            raise self.error("dram", dram, "expected a table [optimizer.dram] with mappings and cache_fractions")
        if self.config.ftl is None:
            raise self.error("dram", dram, "mapping options need an [ftl] table in the device file")
        for key in dram:
            if key not in ("mappings", "cache_fractions"):
                raise self.error(f"dram.{key}", dram[key], "unknown field; allowed here: cache_fractions, mappings")
        return self._dram_mappings(dram), self._dram_cache_fractions(dram)

    def _dram_mappings(self, dram: Mapping[str, Any]) -> tuple[str, ...]:
        """``dram.mappings``: distinct FTL mapping names (default: all), in FTL_MAPPINGS order."""
        mv = dram.get("mappings", list(FTL_MAPPINGS))
        if (not isinstance(mv, list) or not mv or not all(isinstance(x, str) and x in FTL_MAPPINGS for x in mv)
                or len(set(mv)) != len(mv)):
            raise self.error("dram.mappings", mv,
                             f"expected a non-empty list of distinct names from {', '.join(FTL_MAPPINGS)}")
        return tuple(m for m in FTL_MAPPINGS if m in mv)

    def _dram_cache_fractions(self, dram: Mapping[str, Any]) -> tuple[float, ...]:
        """``dram.cache_fractions``: numbers in (0, 1], sorted and distinct (default: the device's fraction, or
        0.25 for a full table)."""
        ftl = self.config.ftl
        fv = dram.get("cache_fractions", [ftl.cache_fraction if ftl.mapping != "full" else 0.25])
        if not isinstance(fv, list) or not fv or any(not _is_number(x) or not 0 < x <= 1 for x in fv):
            raise self.error("dram.cache_fractions", fv, "expected a non-empty list of numbers in (0, 1]")
        return tuple(sorted({float(x) for x in fv}))

    def sram_options(self) -> tuple[float, ...]:
        """``[optimizer.sram] mapping_mib``: distinct SRAM sizes (MiB, >= 0) in ascending order (empty without the
        table); the mapping table's size and placement need an ``[ftl]`` table."""
        sram = self.raw.get("sram", None)
        if sram is None:
            return ()
        if not isinstance(sram, Mapping) or set(sram) != {"mapping_mib"}:
            raise self.error("sram", sram, "expected a table [optimizer.sram] with mapping_mib = [MiB, ...]")
        if self.config.ftl is None:
            raise self.error("sram", sram, "SRAM options need an [ftl] table in the device file (the mapping table's "
                                           "size and placement come from it)")
        values = sram["mapping_mib"]
        if not isinstance(values, list) or not values or any(not _is_number(x) or not math.isfinite(x) or x < 0
                                                                for x in values):
            raise self.error("sram.mapping_mib", values, "expected a non-empty list of sizes in MiB >= 0")
        if len({float(x) for x in values}) != len(values):
            raise self.error("sram.mapping_mib", values, "values must not repeat")
        return tuple(sorted(float(x) for x in values))

    def nand_options(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """``[optimizer.nand]``: per geometry field listed, its distinct values in ascending order (empty without
        the table)."""
        nand = self.raw.get("nand", None)
        if nand is None:
            return ()
        if not isinstance(nand, Mapping) or not nand:
            raise self.error("nand", nand, "expected a table [optimizer.nand] with lists of "
                                           + ", ".join(NAND_OPTION_KEYS))
        out = []
        for key in nand:
            if key not in NAND_OPTION_KEYS:
                raise self.error(f"nand.{key}", nand[key],
                                 "unknown field; allowed here: " + ", ".join(NAND_OPTION_KEYS))
        for key in NAND_OPTION_KEYS:
            if key not in nand:
                continue
            values = nand[key]
            self._check_nand_list(key, values)
            if len(set(values)) != len(values):
                raise self.error(f"nand.{key}", values, "values must not repeat")
            out.append((key, tuple(sorted(values))))
        return tuple(out)

    def _check_nand_list(self, key: str, values) -> None:
        """Refuse an ``[optimizer.nand]`` list that is not a non-empty list of allowed values for ``key``: integers
        from 1 to :data:`NAND_OPTION_MAX`, or rates > 0 up to it for ``channel_rate_mts``."""
        top = NAND_OPTION_MAX[key]
        rate = key == "channel_rate_mts"

        def allowed(x) -> bool:
            if isinstance(x, bool) or not isinstance(x, (int, float) if rate else int):
                return False
            return 0 < x <= top if rate else 1 <= x <= top

        if not isinstance(values, list) or not values or not all(allowed(x) for x in values):
            raise self.error(f"nand.{key}", values, f"expected a non-empty list of rates > 0 and <= {top} MT/s" if rate
                             else f"expected a non-empty list of integers from 1 to {top}")

    def min_life_years(self) -> float:
        """``min_life_years``: years >= 0; a positive one needs the device's ``[ftl]`` table."""
        life = self.number("min_life_years", 0.0, lambda x: x >= 0, "expected a number >= 0 (years)")
        if life > 0 and self.config.ftl is None:
            raise self.error("min_life_years", self.raw.get("min_life_years"),
                             "a lifetime target needs an [ftl] table (P/E rating) in the device file")
        return life


def parse_options(config: Config, raw: Mapping[str, Any]) -> SearchOptions:
    """Validate the ``[optimizer]`` table; every bad value raises ConfigError naming the field."""
    if not isinstance(raw, Mapping):
        raise ConfigError(config.source, "optimizer", raw, "expected a table [optimizer]")
    o = _OptionReader(config, raw)
    o.check_keys()
    core_specs = o.names("core_specs", tuple(config.core_specs), tuple(config.core_specs), "core spec names", False)
    hardware_modules = o.hardware_modules()
    cap = o.number("utilization_cap", DEFAULTS["utilization_cap"], lambda x: 0 < x <= 1, "expected a number in (0, 1]")
    verify_des = o.flag("verify_des")
    markov_chain = o.flag("markov_chain")
    solver = raw.get("solver", DEFAULTS["solver"])
    if solver not in SOLVERS:
        raise o.error("solver", solver, f"expected one of {', '.join(SOLVERS)}")
    mappings, fractions = o.dram_options()
    spread = o.number("timing_spread_scv", DEFAULTS["timing_spread_scv"], lambda x: 0 <= x <= MAX_TIMING_SPREAD_SCV,
                      f"expected a number in [0, {MAX_TIMING_SPREAD_SCV:g}] (0: no spread check; 0.01: a 10 % "
                      "standard deviation)")
    life = o.min_life_years()
    return SearchOptions(
        nand_options=o.nand_options(),
        sram_mib=o.sram_options(),
        mappings=mappings,
        cache_fractions=fractions,
        min_life_years=life,
        core_specs=core_specs,
        max_cores_per_group=o.integer("max_cores_per_group", 1, 64),
        hardware_modules=hardware_modules,
        max_units=o.integer("max_units", 1, 16),
        utilization_cap=cap,
        max_iterations=o.integer("max_iterations", 1, 100_000),
        verify_des=verify_des,
        des_requests=o.integer("des_requests", 1_000, 10_000_000),
        des_seed=o.integer("des_seed", 0, 2**32 - 1),
        enumeration_limit=o.integer("enumeration_limit", 0, 50_000_000),
        runners_up=o.integer("runners_up", 0, 20),
        solver=solver,
        markov_chain=markov_chain,
        timing_spread_scv=spread,
        memory_limit_gb=o.number("memory_limit_gb", DEFAULTS["memory_limit_gb"], lambda x: 0 < x <= 1024,
                                 "expected a number of GB in (0, 1024]"),
    )
