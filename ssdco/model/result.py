"""The answer of ``ssdco whatif`` (:class:`Result`) with its budget checks and its JSON form.

Rates are in I/O per second, times in us, powers in mW.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from ssdco.metrics import Metrics
from ssdco.model.bounds import Bounds
from ssdco.model.power import Power
from ssdco.network.build import StationLoad
from ssdco.network.ftl_effects import FtlEffects
from ssdco.spec import Config

US_PER_S = 1e6
# The relative resolution of an answer that rests on a seeded event-by-event run (Result.seeded): its seed is fixed,
# but a design changed slightly draws other events, and the answer may move by this much either way.
SEEDED_RESOLUTION = 2.5e-3
#: a station limits throughput when the answer's IOPS reaches this share of its capacity bound c / D
#: (it is at least this busy); below it, a closed workload is limited by its queue depth (``Result.limited_by``)
SATURATED_SHARE = 0.9
QUEUE_DEPTH_LIMITS = "none: queue depth limits it"
ARRIVAL_RATE_SETS = "none: the offered arrival rate sets it"


@dataclass(frozen=True)
class StartPattern:
    """Where the requests, all issued at once, hold a pattern of another throughput for long before they settle
    into the long-run one the answer gives (``schedule_chain.ChainSolution.settle_requests``): what a DES run or a
    measurement shorter than that shows (docs/accuracy.md)."""

    iops: float  # over the start's transient
    settle_requests: float  # expected requests completed before the long-run pattern
    settle_s: float  # expected time before it (s)


@dataclass(frozen=True)
class BudgetCheck:
    """One budget: the limit, the value reached, and whether the limit holds."""

    limit: float
    value: float
    met: bool

    @property
    def is_set(self) -> bool:
        """The config sets this budget or target: a finite limit above 0 (0 IOPS and an unlimited power are
        no limit)."""
        return math.isfinite(self.limit) and self.limit > 0.0


@dataclass(frozen=True)
class Result:
    """Everything ``ssdco whatif`` reports. Rates in I/O per second, times in us, powers in mW.

    Attributes
    ----------
    config_name : str
        The device configuration's ``name``.
    controller : str
        The controller's name (a preset such as ``"c07"``, or a file's).
    workload : str
        ``"closed"`` (a fixed queue depth) or ``"open"`` (a fixed arrival rate).
    queue_depth : int or None
        Requests in flight of a closed workload (None when open).
    arrival_iops : float or None
        Offered rate of an open workload, IOPS (None when closed).
    iops : float
        Solved throughput, IOPS (completed requests per second).
    latency_mean_us : float
        Mean request latency, us (inf for an unstable open workload).
    latency_p99_us : float or None
        99th-percentile latency estimate, us (None where the solver gives none).
    stable : bool
        False for an open workload offered more than the bottleneck can serve (no steady state).
    utilization : mapping of str to float
        Per station: busy fraction of one server of one copy, 0-1.
    mean_jobs : mapping of str to float
        Per station: mean requests present at one copy (queued + in service), requests.
    bottleneck : str
        The station with the largest demand per server (the lowest capacity).
    bounds : Bounds
        Throughput bounds; read them in IOPS: ``bounds.capacity_iops``, ``bounds.population_iops``, ...
        (the ``*_per_us`` fields are requests per us, the model's unit).
    power : Power
        Controller power, mW: ``cores_mw``, ``accelerators_mw``, ``dram_mw``, ``total_mw``, ``core_side_mw``,
        ``by_station_mw``.
    budgets : mapping of str to BudgetCheck
        ``core_power`` and ``dram_power`` (limit and value in mW) and ``min_iops`` (in IOPS), each with ``met``.
    method : str
        The solver that answered (e.g. ``"route-mva"``, ``"markov-chain"``, ``"platoon-stage"``).
    stations : tuple of StationLoad
        Per station: servers, copies, visits per request and mean service time per visit (us).
    ftl : mapping or None
        FTL figures (mapping, WAF, TBW in TB, DWPD, life in years; see :func:`ftl_summary`); None without an
        ``[ftl]`` table.
    caveats : tuple of str
        Where the model is known to disagree with the DES for this design (check with ``ssdco.validate``).
    flow_correction_share : float or None
        Share of IOPS the route MVA's flow correction moves, 0-1 (closed deterministic route-MVA answers only).
    start_pattern : StartPattern or None
        A long-held start pattern of closed deterministic work (its IOPS, requests and seconds before settling).
    seeded : bool
        The answer rests on a seeded event-by-event run of part of the network (the platoon stage, or the route
        MVA's routed stage): reproducible, but resolved only to ``SEEDED_RESOLUTION`` (relative), so a design
        changed slightly (one more request in flight, one more server) can move it by that much either way.
    energy_per_io_nj : float
        Controller energy per I/O, nJ (property).
    budgets_met : bool
        Every budget and target holds (property).
    """

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
    caveats: tuple[str, ...] = ()  # where the model is known to disagree with the DES (see trust_caveats)
    # how much the route MVA's flow correction moves IOPS (flow_correction_share; closed deterministic route-MVA
    # answers only, else None)
    flow_correction_share: float | None = None
    # closed deterministic answers of the chain: the start's long-held pattern, where there is one (start_pattern)
    start_pattern: StartPattern | None = None
    seeded: bool = False

    @property
    def energy_per_io_nj(self) -> float:
        """Controller energy per I/O (nJ)."""
        return self.power.energy_per_io_nj(self.iops)

    @property
    def metrics(self) -> Metrics:
        """The headline figures (:class:`ssdco.metrics.Metrics`: IOPS, latencies, power by part) with the power
        budgets they are held to."""
        p = self.power
        return Metrics(iops=self.iops, latency_mean_us=self.latency_mean_us, latency_p99_us=self.latency_p99_us,
                       cores_mw=p.cores_mw, accelerators_mw=p.accelerators_mw, dram_mw=p.dram_mw,
                       core_limit_mw=self.budgets["core_power"].limit, dram_limit_mw=self.budgets["dram_power"].limit,
                       sram_mw=p.sram_mw)

    @property
    def budgets_met(self) -> bool:
        """True when every budget and target holds (an unset one holds trivially)."""
        return all(b.met for b in self.budgets.values())

    @property
    def busiest_station(self) -> str:
        """The station with the highest utilisation per server (ties: the first)."""
        return max(self.utilization, key=self.utilization.get)

    @property
    def limited_by(self) -> str:
        """What limits throughput, in words: a station's name where the answer's IOPS reaches
        :data:`SATURATED_SHARE` of that station's capacity bound c / D (or the open workload is unstable
        there); :data:`ARRIVAL_RATE_SETS` for a stable open workload; ``"write buffer"`` where a closed one reaches
        that share of the write buffer's bound; otherwise :data:`QUEUE_DEPTH_LIMITS` (more requests in flight
        would raise IOPS). ``bottleneck`` stays the station of the largest demand per server, busy or not."""
        if not self.stable:
            return self.bottleneck
        if self.workload == "open":
            return ARRIVAL_RATE_SETS
        iops_per_us = self.iops / US_PER_S
        if iops_per_us >= SATURATED_SHARE * self.bounds.capacity_per_us:
            return self.bottleneck
        if iops_per_us >= SATURATED_SHARE * self.bounds.write_buffer_per_us:
            return "write buffer"
        return QUEUE_DEPTH_LIMITS
    def headline(self) -> list[tuple[str, str, str]]:
        """The headline figures as (metric, value, unit) rows: what the repr and the HTML table show."""
        p = self.power
        rows = [("IOPS", _fmt(self.iops, 0), "IOPS"),
                ("latency mean", _fmt(self.latency_mean_us, 2), "us"),
                ("latency p99", _fmt(self.latency_p99_us, 2), "us"),
                ("bottleneck", self.bottleneck, ""),
                ("capacity of the bottleneck", _fmt(self.bounds.capacity_iops, 0), "IOPS"),
                ("power total", _fmt(p.total_mw, 1), "mW"),
                ("power core-side (cores + accelerators)", _fmt(p.core_side_mw, 1), "mW"),
                ("power DRAM", _fmt(p.dram_mw, 1), "mW"),
                ("energy per I/O", _fmt(self.energy_per_io_nj, 1), "nJ"),
                ("budgets met", "yes" if self.budgets_met else "no", "")]
        return rows

    def _title(self) -> str:
        wl = (f"closed, queue depth {self.queue_depth}" if self.workload == "closed"
              else f"open, {_fmt(self.arrival_iops, 0)} IOPS offered")
        return f"whatif {self.config_name}, controller {self.controller} ({wl}; {self.method})"

    def __repr__(self) -> str:
        p = self.power
        lines = [f"<Result {self._title()}" + ("" if self.stable else "; UNSTABLE") + ">",
                 f"  IOPS {_fmt(self.iops, 0)}; latency mean {_fmt(self.latency_mean_us, 2)} us, "
                 f"p99 {_fmt(self.latency_p99_us, 2)} us",
                 f"  bottleneck {self.bottleneck} (capacity {_fmt(self.bounds.capacity_iops, 0)} IOPS)",
                 f"  power {_fmt(p.total_mw, 1)} mW (core-side {_fmt(p.core_side_mw, 1)} mW, DRAM "
                 f"{_fmt(p.dram_mw, 1)} mW), {_fmt(self.energy_per_io_nj, 1)} nJ per I/O; budgets met: "
                 + ("yes" if self.budgets_met else "no")]
        if self.caveats:
            lines.append(f"  {len(self.caveats)} caveat(s): see .caveats")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from ssdco.display import html_table

        return html_table(self._title() + ("" if self.stable else " - UNSTABLE"), self.headline())

    def to_frame(self):
        """A one-row pandas DataFrame of this answer, with the columns of ``ssdco sweep``'s CSV (IOPS, us, mW;
        needs pandas: the ``frame`` extra). Concatenate several to compare designs."""
        from ssdco.display import data_frame, flatten_whatif

        return data_frame([{"config": self.config_name, **flatten_whatif(self.to_dict())}])

    def to_dict(self) -> dict[str, Any]:
        """The stable JSON schema of ``ssdco whatif --json`` (see README, "JSON output")."""
        return {
            "schema": "ssdco.whatif/1",
            "config": self.config_name,
            "controller": self.controller,
            "workload": {"kind": self.workload, "queue_depth": self.queue_depth, "arrival_iops": self.arrival_iops},
            "method": self.method,
            "stable": self.stable,
            # an unstable open workload has no steady state: no throughput, latency, power or budget figures
            "iops": _num(self.iops) if self.stable else None,
            "latency_us": {"mean": _num(self.latency_mean_us) if self.stable else None,
                           "p99": _num(self.latency_p99_us) if self.stable else None},
            "utilization": {k: _num(v) for k, v in self.utilization.items()},
            "mean_jobs": {k: _num(v) for k, v in self.mean_jobs.items()},
            "bottleneck": self.bottleneck,
            "limited_by": self.limited_by,
            "busiest_station": {"name": self.busiest_station,
                                "utilization": _num(self.utilization[self.busiest_station])},
            "bounds": {
                "capacity_iops": _num(self.bounds.capacity_iops),
                "population_iops": _num(self.bounds.population_iops),
                "zero_load_latency_us": _num(self.bounds.zero_load_latency_us),
                "write_buffer_iops": _num(self.bounds.write_buffer_iops),
                "idle_iops": _num(self.bounds.idle_iops),
            },
            "power_mw": {
                "cores": self._steady(self.power.cores_mw),
                "accelerators": self._steady(self.power.accelerators_mw),
                "dram": self._steady(self.power.dram_mw),
                "sram": self._steady(self.power.sram_mw),
                "total": self._steady(self.power.total_mw),
                "nand": self._steady(self.power.nand_mw),
                "soc_static": self._steady(self.power.soc_static_mw),
                "pcie_phy": self._steady(self.power.phy_mw),
                "drive": self._steady(self.power.drive_mw),
                "by_station": {k: self._steady(v) for k, v in self.power.by_station_mw.items()},
            },
            "energy_per_io_nj": self._steady(self.energy_per_io_nj),
            "drive_energy_per_io_nj": self._steady(self.power.drive_energy_per_io_nj(self.iops)),
            "budgets": {k: budget_dict(k, b, steady=self.stable) for k, b in self.budgets.items()},
            "ftl": None if self.ftl is None else {k: (_num(v) if isinstance(v, float) else v)
                                                  for k, v in self.ftl.items()},
            "caveats": list(self.caveats),
            "flow_correction_share": _num(self.flow_correction_share),
            "seeded": self.seeded,
            "start_pattern": None if self.start_pattern is None else {
                "iops": _num(self.start_pattern.iops), "settle_requests": _num(self.start_pattern.settle_requests),
                "settle_s": _num(self.start_pattern.settle_s)},
        }


    def _steady(self, x: float | None) -> float | None:
        """``x`` as JSON where the workload has a steady state, else None."""
        return _num(x) if self.stable else None


def budget_dict(name: str, b: BudgetCheck, steady: bool = True) -> dict[str, Any]:
    """One budget of ``whatif --json``: limit, value and met (keys ``limit_mw``/``value_mw`` for powers);
    an unset budget has a null limit and null met, and without a steady state value and met are null."""
    unit = "" if name == "min_iops" else "_mw"
    return {f"limit{unit}": _num(b.limit) if b.is_set else None,
            f"value{unit}": _num(b.value) if steady else None,
            "met": b.met if (b.is_set and steady) else None}


def ftl_summary(config: Config, fx: FtlEffects | None, iops: float) -> dict[str, Any] | None:
    """The ``ftl`` block of ``whatif --json`` (None without an ``[ftl]`` table).

    Keys: ``mapping``, ``gc_policy``, ``drive_state`` (``fresh``: no GC during the run), ``waf_gc`` (Desnoyers GC
    write amplification of data in the steady state),
    ``waf`` (NAND units programmed per host unit, mapping writes included), ``nand_bytes_per_host_byte``
    (``waf`` x the read-modify-write amplification of writes smaller than a mapping unit), ``mapping_hit_ratio``
    (reads), ``max_nand_ops_per_read`` (NAND operations on one read's path, worst case),
    ``mapping_dram_mib`` (cache + GTD, less what SRAM holds), ``mapping_sram_mib`` (held in ``[sram]``),
    ``dram_size_gib`` (derived DRAM size the power uses),
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
        "drive_state": config.ftl.drive_state,
        "waf_gc": float(fx.waf_gc),
        "waf": float(fx.waf_total),
        "nand_bytes_per_host_byte": float(fx.nand_bytes_per_host_byte),
        "mapping_hit_ratio": float(fx.mapping_hit_ratio),
        "max_nand_ops_per_read": int(fx.max_nand_ops_per_read),
        "mapping_dram_mib": float(fx.mapping_dram_bytes / 2**20),
        "mapping_sram_mib": float(fx.mapping_sram_bytes / 2**20),
        "dram_size_gib": float(fx.dram_size_gib),
        "host_write_mb_s": float(host_write / 1e6),
        "tbw": float(fx.tbw),
        "dwpd": float(fx.dwpd),
        "life_years": float(fx.life_years(host_write)),
    }


def _fmt(x: float | None, digits: int) -> str:
    """``x`` with thousands separators and ``digits`` decimals; "n/a" where missing or not finite."""
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{float(x):,.{digits}f}"


def _num(x: float | None) -> float | None:
    """JSON-safe number: None for missing or non-finite values."""
    if x is None or not math.isfinite(x):
        return None
    return float(x)


def check_budgets(config: Config, iops: float, power: Power) -> dict[str, BudgetCheck]:
    """Core-side power (cores + accelerators), DRAM power, minimum IOPS and the whole drive's power against the
    config's budgets."""
    b = config.budgets
    return {
        "core_power": BudgetCheck(b.core_power_mw, power.core_side_mw, power.core_side_mw <= b.core_power_mw),
        "dram_power": BudgetCheck(b.dram_power_mw, power.dram_mw, power.dram_mw <= b.dram_power_mw),
        "min_iops": BudgetCheck(b.min_iops, iops, iops >= b.min_iops),
        "drive_power": BudgetCheck(b.drive_power_mw, power.drive_mw, power.drive_mw <= b.drive_power_mw),
    }
