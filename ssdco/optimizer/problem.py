"""What ``ssdco optimize`` solves: the linear model of a design at the target throughput.

At a fixed target throughput X (I/O per second) every quantity the budgets constrain is *linear* in the
design's choices (the basis of the ILP in ``ilp.py`` and of the enumeration in ``enumerate.py``):

* utilisation of a station = X x D / c (D = service demand per request in us, c = servers),
  must be <= the utilisation cap (headroom so the closed network reaches X at its queue depth);
* **population bound** (Little's law, a necessary condition): a closed network with N requests in flight
  runs at X <= N / R0, where R0 = zero-load latency (Lazowska et al., *Quantitative System Performance*,
  1984, Ch. 5, asymptotic bounds), so X x R0 <= N. R0 here is a lower bound on it that is linear in the
  design: pure delays plus the demands on one request's own path, a per-transaction step counted once (the
  transactions of a request may run in parallel, so alone it takes at least one transaction's way). For
  requests of one transaction that is the asymptotic bound's sum of all demands; for requests of several,
  that sum counted their transactions one after the other (16 KiB reads on PM9A3: 219.6 us where one request
  alone takes 64 us), and the search called designs infeasible that the analytic model has at the target;
* core-side power = sum over groups (count x P_idle + X x D x (P_active - P_idle))
  + sum over accelerators (units x P_idle + E_op x X x visits) (the ``power.py`` model, whose busy-core
  term is linear below saturation);
* DRAM power = background + (accesses x E_access + streamed bits x E_bit) x X (``power.py``);
  independent of the placement (every module makes its DRAM accesses wherever it runs);
* cost = sum of core costs + accelerator unit costs + development cost per accelerated module + DRAM cost.

A mean-latency target L at queue depth N is the throughput target X >= N / L (Little's law, N = X R in a
closed network with no think time), so it folds into X.

:meth:`LinearModel.evaluate` returns a design's cost and one **signed slack vector** (row name -> slack;
feasible <=> every slack >= 0 within :data:`FEAS_TOL`), with the same row names as the ILP's constraints,
so an infeasible design can be explained row by row. All coefficients come from
``ssdco.model.network.build_network`` on probe controllers and from ``ssdco.model.power.compute_power``,
so the model and the analytic solver share one definition of demands and power.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from ssdco.errors import ConfigError
from ssdco.model.power import compute_power
from ssdco.network.build import Network, build_network
from ssdco.network.ftl_effects import ftl_effects
from ssdco.optimizer.space import Design, DesignSpace, Group
from ssdco.spec import MODULES, Controller, CoreGroup

US_PER_S = 1e6
FEAS_TOL = 1e-7  # relative tolerance of a row (ILP solvers accept about 1e-7 violations too)

# Constraint families (the budgets and targets a user can move); row names belong to exactly one.
FAMILIES = ("utilization", "population", "core_power", "dram_power")


@dataclass(frozen=True)
class Targets:
    """What the architect asks for. Budgets are ``inf`` when absent."""

    min_iops: float
    core_power_mw: float
    dram_power_mw: float
    utilization_cap: float
    queue_depth: int
    max_latency_us: float | None = None
    max_p99_us: float | None = None  # not in the linear model: the p99 estimate screens, the DES's p99 verifies
    # no model estimate: the p99 estimate (p99.9 >= p99) screens, the DES's measured p99.9 verifies
    max_p999_us: float | None = None
    # the whole drive's power budget: not in the linear model either; the model's and the DES's drive power verify
    drive_power_mw: float = math.inf

    @property
    def target_iops(self) -> float:
        """The throughput the linear model is evaluated at: max(min_iops, N / L) (Little's law)."""
        x = self.min_iops
        if self.max_latency_us is not None:
            x = max(x, self.queue_depth / self.max_latency_us * US_PER_S)
        return float(x)

    def replace(self, **changes) -> "Targets":
        """A copy with some fields changed."""
        from dataclasses import replace as _replace

        return _replace(self, **changes)


MAX_TARGET_IOPS = 1e12  # far beyond any drive; larger targets put coefficients past the MILP solvers' infinity


def make_targets(space: DesignSpace, *, min_iops: float | None = None, core_power_mw: float | None = None,
                 dram_power_mw: float | None = None, max_latency_us: float | None = None,
                 utilization_cap: float | None = None, max_p99_us: float | None = None,
                 max_p999_us: float | None = None) -> Targets:
    """Targets from explicit values, falling back to the config's ``[budgets]`` and ``[optimizer]``."""
    cfg = space.config
    if cfg.workload.queue_depth is None:
        raise ConfigError(cfg.source, "workload.queue_depth", None,
                          "ssdco optimize needs a closed workload (queue_depth); arrival_iops is not supported")

    def check(name: str, v, lo_open: float, allow_zero: bool = False):
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, (int, float)) or math.isnan(v) or (
                v < lo_open or (v == lo_open and not allow_zero)):
            raise ConfigError("command line", name, v, f"expected a number {'>=' if allow_zero else '>'} {lo_open}")
        return float(v)

    min_iops = check("--min-iops", min_iops, 0.0, allow_zero=True)
    core = check("--core-mw", core_power_mw, 0.0)
    dram = check("--dram-mw", dram_power_mw, 0.0)
    lat = check("--max-latency-us", max_latency_us, 0.0)
    p99 = check("--max-p99-us", max_p99_us, 0.0)
    p999 = check("--max-p999-us", max_p999_us, 0.0)
    if p999 is not None and not space.options.verify_des:
        raise ConfigError("command line", "--max-p999-us", p999, "the DES's measured p99.9 verifies it (the model "
                          "has no p99.9 estimate): leave out --no-des (optimizer.verify_des = false)")
    qd = int(cfg.workload.queue_depth)
    if min_iops is not None and min_iops > MAX_TARGET_IOPS:
        raise ConfigError("command line", "--min-iops", min_iops, f"expected a number <= {MAX_TARGET_IOPS:.0e}")
    if lat is not None and qd / lat * 1e6 > MAX_TARGET_IOPS:
        raise ConfigError("command line", "--max-latency-us", lat,
                          f"expected a latency >= {qd / MAX_TARGET_IOPS * 1e6:.3g} us (queue depth {qd} / "
                          f"{MAX_TARGET_IOPS:.0e} IOPS)")
    cap = check("optimizer.utilization_cap", utilization_cap, 0.0)
    if cap is not None and cap > 1:
        raise ConfigError("command line", "optimizer.utilization_cap", cap, "expected a number in (0, 1]")
    b = cfg.budgets
    return Targets(min_iops=b.min_iops if min_iops is None else min_iops,
                   core_power_mw=b.core_power_mw if core is None else core,
                   dram_power_mw=b.dram_power_mw if dram is None else dram,
                   utilization_cap=space.options.utilization_cap if cap is None else cap,
                   queue_depth=int(cfg.workload.queue_depth),
                   max_latency_us=lat, max_p99_us=p99, drive_power_mw=b.drive_power_mw, max_p999_us=p999)


@dataclass(frozen=True)
class Evaluation:
    """A design under the linear model: cost, signed slacks (row -> slack, >= 0 is met) and values."""

    design: Design
    cost: float
    slack: Mapping[str, float]
    rhs: Mapping[str, float]
    utilization: Mapping[str, float]  # station name -> X D / c at the target
    core_power_mw: float
    dram_power_mw: float
    zero_load_latency_us: float

    @property
    def feasible(self) -> bool:
        """Every row met (within FEAS_TOL relative to its right-hand side)."""
        return all(s >= -FEAS_TOL * max(1.0, abs(self.rhs[r])) for r, s in self.slack.items())

    def violated(self) -> list[str]:
        """Names of the rows this design breaks."""
        return [r for r, s in self.slack.items() if s < -FEAS_TOL * max(1.0, abs(self.rhs[r]))]

    @property
    def max_utilization(self) -> float:
        """Largest station utilisation at the target."""
        return max(self.utilization.values(), default=0.0)


def row_family(row: str) -> str:
    """The family a row name belongs to."""
    if row.startswith("util_"):
        return "utilization"
    if row == "population_bound":
        return "population"
    if row in ("core_power", "dram_power"):
        return row
    return "structure"


@dataclass(frozen=True)
class Coefficients:
    """Target-independent per-column data of the linear model (arrays aligned with ``groups``/``hw``).

    Software columns are every (module subset, core spec, count); hardware columns every (module, units).
    Demands in us per request, powers in mW, ``*_per_iops`` in mW per I/O per second.
    """

    groups: tuple[Group, ...]
    g_cost: np.ndarray
    g_idle_mw: np.ndarray
    g_busy_mw_per_iops: np.ndarray
    g_demand_us: np.ndarray
    g_servers: np.ndarray
    g_scv: np.ndarray
    g_member: np.ndarray  # (columns, modules) bool
    hw: tuple[tuple[str, int], ...]
    h_cost: np.ndarray
    h_idle_mw: np.ndarray
    h_energy_mw_per_iops: np.ndarray
    h_demand_us: np.ndarray
    h_servers: np.ndarray
    h_tail_us: np.ndarray  # pipeline latency beyond the initiation interval (a delay)
    h_module: np.ndarray  # module index
    fixed_names: tuple[str, ...]
    fixed_demand_us: np.ndarray
    fixed_servers: np.ndarray
    fixed_copies: np.ndarray
    fixed_scv: np.ndarray
    fixed_delay_us: float
    # one request's own path at zero load (us; :func:`_path_visits`): the shared stations' and pure delays'
    # part, and each column's (a hardware column's with its pipeline tail)
    fixed_path_us: float
    g_path_us: np.ndarray
    h_path_us: np.ndarray
    dram_background_mw: float
    dram_mw_per_iops: float
    device_cost: float  # the fixed cost: the DRAM's and the NAND geometry's (NandSpec.cost)
    group_index: Mapping[Group, int] = field(repr=False)
    hw_index: Mapping[tuple[str, int], int] = field(repr=False)


def _probe_network(space: DesignSpace, spec: str, accelerate: tuple[str, ...]) -> Network:
    """Network of a probe controller: every software module on its own 1-core group of ``spec``."""
    ctrl = Controller(name="probe", description="",
                      core_groups=tuple(CoreGroup(m, spec, 1, (m,)) for m in MODULES if m not in accelerate),
                      accelerator_units={m: 1 for m in accelerate})
    return build_network(space.config.with_controller(ctrl))


def _path_visits(net: Network, step) -> float:
    """Visits ``step`` makes on one request's own path at zero load: a per-request step's visits, a
    per-transaction step's once (times its share of the operations): a request's transactions may run in
    parallel, so alone it takes at least one transaction's way through them."""
    return net.visits(step) if step.per_request else net.op_weight(step)


def _module_moments(net: Network) -> dict[str, tuple[float, float, float, float, float, float]]:
    """Per module: (visits, visits x mean service, visits x second moment, pure delay per visit, path visits
    (:func:`_path_visits`), path visits x mean service)."""
    out = {}
    for step in net.steps:
        if step.label in MODULES:
            v = net.visits(step)
            m1, m2 = net.step_moments(step)
            pv = _path_visits(net, step)
            out[step.label] = (v, v * m1, v * m2, step.delay_us, pv, pv * m1)
    return out


def _fixed_path_us(net: Network) -> float:
    """The part of one request's own path at zero load (us) that every design shares: pure delays (the
    modules' own included, as in ``Network.delay_us``) and the stations that are not modules (PCIe, dies,
    channels), each step taken :func:`_path_visits` times; background steps are on no request's path."""
    total = 0.0
    for step in net.steps:
        if step.background:
            continue
        pv = _path_visits(net, step)
        total += pv * step.delay_us
        if step.label not in MODULES:
            total += pv * net.step_moments(step)[0]
    return float(total)


def _software_column(core, mom, mods: tuple[str, ...], count: int) -> tuple:
    """One software column, ``count`` cores of spec ``core`` serving ``mods`` (``mom``: the spec's
    :func:`_module_moments`): (cost, idle mW, busy mW per I/O/s, demand us, servers, scv, module membership,
    path us)."""
    v_tot = sum(mom[m][0] for m in mods)
    d = 0.0
    m2 = 0.0
    for m in mods:  # MODULES order, as Network.loads() sums them
        d += mom[m][1]
        m2 += mom[m][2]
    mean = d / v_tot
    scv = max((m2 / v_tot) / (mean * mean) - 1.0, 0.0) if mean > 0 else 0.0
    d = v_tot * mean  # demand as Network.loads() forms it (visits x mean service)
    return (count * core.cost, count * core.idle_mw, d / US_PER_S * (core.active_mw - core.idle_mw), d, count, scv,
            [m in mods for m in MODULES], sum(mom[m][5] for m in mods))


def _software_columns(space: DesignSpace, by_spec: Mapping[str, dict]) -> dict:
    """The :class:`Coefficients` fields of the software columns (``groups``, ``g_*``, ``group_index``): every
    non-empty module subset with every (spec, count) of ``space.group_options()``."""
    groups, rows = [], []
    for mask in range(1, 2 ** len(MODULES)):
        mods = tuple(m for i, m in enumerate(MODULES) if mask >> i & 1)
        for s, c in space.group_options():
            groups.append(Group(s, c, mods))
            rows.append(_software_column(space.config.core_specs[s], by_spec[s], mods, c))
    cost, idle, busy, dem, srv, scv, mem, path = zip(*rows)
    f = np.float64
    return {"groups": tuple(groups), "g_cost": np.array(cost, f), "g_idle_mw": np.array(idle, f),
            "g_busy_mw_per_iops": np.array(busy, f), "g_demand_us": np.array(dem, f),
            "g_servers": np.array(srv, np.int64), "g_scv": np.array(scv, f),
            "g_member": np.array(mem, bool).reshape(len(groups), len(MODULES)), "g_path_us": np.array(path, f),
            "group_index": {g: i for i, g in enumerate(groups)}}


def _hardware_columns(space: DesignSpace) -> dict:
    """The :class:`Coefficients` fields of the hardware columns (``hw``, ``h_*``, ``hw_index``): every module of
    ``hardware_modules`` with 1..``max_units`` units, unit and development cost in one coefficient."""
    cfg, opts = space.config, space.options
    hw_list, rows = [], []
    if opts.hardware_modules:
        acc = _module_moments(_probe_network(space, opts.core_specs[0], opts.hardware_modules))
        for m in opts.hardware_modules:
            a = cfg.accelerator_specs[m]
            v, vm1, _, tail, pv, pv_m1 = acc[m]
            for u in range(1, opts.max_units + 1):
                hw_list.append((m, u))
                rows.append((u * a.unit_cost + a.development_cost, u * a.idle_mw,
                             a.energy_per_op_nj * v / US_PER_S,  # nJ x (I/O/s) x visits x 1e-6 = mW
                             vm1, u, v * tail, MODULES.index(m), pv_m1 + pv * tail))
    cost, idle, energy, dem, srv, tail_us, mod, path = zip(*rows) if rows else ([],) * 8
    f = np.float64
    return {"hw": tuple(hw_list), "h_cost": np.array(cost, f), "h_idle_mw": np.array(idle, f),
            "h_energy_mw_per_iops": np.array(energy, f), "h_demand_us": np.array(dem, f),
            "h_servers": np.array(srv, np.int64), "h_tail_us": np.array(tail_us, f),
            "h_module": np.array(mod, np.int64), "h_path_us": np.array(path, f),
            "hw_index": {h: i for i, h in enumerate(hw_list)}}


def _fixed_columns(base: Network) -> dict:
    """The :class:`Coefficients` fields of the stations every design shares (link, dies, channels; their FTL
    background work added) and of the pure delays, from the probe network ``base``."""
    bg = {b.name: b.demand_us for b in base.background_loads()}  # FTL background work (network/ftl_effects.py)
    fixed = [ld for ld in base.loads() if ld.kind in ("link", "die", "channel")]
    f = np.float64
    return {"fixed_names": tuple(ld.name for ld in fixed),
            "fixed_demand_us": np.array([ld.demand_us + bg.get(ld.name, 0.0) for ld in fixed], f),
            "fixed_servers": np.array([ld.servers for ld in fixed], np.int64),
            "fixed_copies": np.array([ld.copies for ld in fixed], f),
            "fixed_scv": np.array([ld.scv for ld in fixed], f),
            "fixed_delay_us": float(base.delay_us), "fixed_path_us": _fixed_path_us(base)}


def _dram_columns(space: DesignSpace, base: Network) -> dict:
    """The :class:`Coefficients` fields of the DRAM: its power from power.py itself (intercept and slope of a
    linear function of the I/O rate), and the device's fixed cost (the DRAM's and the NAND geometry's)."""
    cfg = space.config
    busy0: dict[str, float] = {}
    probe_groups = tuple(CoreGroup(m, space.options.core_specs[0], 1, (m,)) for m in MODULES)
    probe_cfg = cfg.with_controller(Controller("probe", "", probe_groups, {}))
    fx = ftl_effects(cfg)
    dram_gib = cfg.dram.size_gib if fx is None else fx.dram_size_gib
    p0 = compute_power(probe_cfg, base, 0.0, busy0, dram_size_gib=dram_gib).dram_mw
    p1 = compute_power(probe_cfg, base, US_PER_S, busy0, dram_size_gib=dram_gib).dram_mw
    return {"dram_background_mw": float(p0), "dram_mw_per_iops": float((p1 - p0) / US_PER_S),
            "device_cost": float(dram_gib * cfg.dram.cost_per_gib + cfg.nand.cost
                                 + cfg.sram.mapping_mib * cfg.sram.cost_per_mib)}


def build_coefficients(space: DesignSpace) -> Coefficients:
    """Linear-model coefficients of every column of ``space`` (probe networks, see the module docstring)."""
    specs = space.options.core_specs
    by_spec = {s: _module_moments(_probe_network(space, s, ())) for s in specs}
    base = _probe_network(space, specs[0], ())
    return Coefficients(**_software_columns(space, by_spec), **_hardware_columns(space), **_fixed_columns(base),
                        **_dram_columns(space, base))


class LinearModel:
    """The linear model of ``space`` at ``targets`` (coefficients are computed once and can be shared)."""

    def __init__(self, space: DesignSpace, targets: Targets, coefficients: Coefficients | None = None):
        self.space = space
        self.targets = targets
        self.coef = coefficients if coefficients is not None else build_coefficients(space)

    def at(self, targets: Targets) -> "LinearModel":
        """The same space and coefficients at other targets."""
        return LinearModel(self.space, targets, self.coef)

    # ---------------------------------------------------------------- rows
    def fixed_row_name(self, station: str) -> str:
        """Row name of a fixed station's utilisation (``util_pcie``, ``util_die``, ``util_channel``)."""
        return "util_" + station.replace(":", "_")

    def dram_power_mw(self) -> float:
        """DRAM power at the target (mW; the same for every design)."""
        return self.coef.dram_background_mw + self.coef.dram_mw_per_iops * self.targets.target_iops

    def selection(self, design: Design) -> tuple[list[int], list[int]]:
        """Column indices (software groups, hardware options) that ``design`` selects."""
        try:
            cols = [self.coef.group_index[g] for g in design.groups]
            hws = [self.coef.hw_index[h] for h in design.hardware]
        except KeyError as e:
            raise ValueError(f"design {design.label()} is outside the design space ({e})") from None
        return cols, hws

    def design_from_selection(self, cols, hws) -> Design:
        """The design made of the given columns."""
        return Design.make((self.coef.groups[j] for j in cols), [self.coef.hw[i] for i in hws])

    def cost(self, design: Design) -> float:
        """Cost of ``design`` (cores, accelerators with development, DRAM and NAND geometry)."""
        cols, hws = self.selection(design)
        return float(sum(self.coef.g_cost[j] for j in cols) + sum(self.coef.h_cost[i] for i in hws)
                     + self.coef.device_cost)

    def evaluate(self, design: Design) -> Evaluation:
        """Cost and signed slack vector of ``design`` (feasible <=> all slacks >= 0)."""
        c, t = self.coef, self.targets
        x = t.target_iops
        cols, hws = self.selection(design)
        util: dict[str, float] = {}
        slack: dict[str, float] = {}
        rhs: dict[str, float] = {}
        for j in cols:
            g = c.groups[j]
            u = x * c.g_demand_us[j] / US_PER_S / g.count
            util[f"cores:{g.name}"] = u
            for m in g.modules:
                slack[f"util_{m}"], rhs[f"util_{m}"] = t.utilization_cap - u, t.utilization_cap
        for i in hws:
            m, units = c.hw[i]
            u = x * c.h_demand_us[i] / US_PER_S / units
            util[f"accel:{m}"] = u
            slack[f"util_{m}"], rhs[f"util_{m}"] = t.utilization_cap - u, t.utilization_cap
        for name, d, s in zip(c.fixed_names, c.fixed_demand_us, c.fixed_servers):
            u = x * d / US_PER_S / s
            util[name] = u
            r = self.fixed_row_name(name)
            slack[r], rhs[r] = t.utilization_cap - u, t.utilization_cap
        r0 = c.fixed_path_us + sum(c.g_path_us[j] for j in cols) + sum(c.h_path_us[i] for i in hws)
        slack["population_bound"] = t.queue_depth - x * r0 / US_PER_S
        rhs["population_bound"] = float(t.queue_depth)
        core = sum(c.g_idle_mw[j] + x * c.g_busy_mw_per_iops[j] for j in cols) + sum(
            c.h_idle_mw[i] + x * c.h_energy_mw_per_iops[i] for i in hws)
        dram = self.dram_power_mw()
        if math.isfinite(t.core_power_mw):
            slack["core_power"], rhs["core_power"] = t.core_power_mw - core, t.core_power_mw
        if math.isfinite(t.dram_power_mw):
            slack["dram_power"], rhs["dram_power"] = t.dram_power_mw - dram, t.dram_power_mw
        return Evaluation(design=design, cost=self.cost(design), slack=slack, rhs=rhs, utilization=util,
                          core_power_mw=float(core), dram_power_mw=float(dram), zero_load_latency_us=float(r0))

    def core_power_at(self, design: Design, iops: float) -> float:
        """Core-side power (mW) of ``design`` running at ``iops`` (linear model of ``power.py``)."""
        c = self.coef
        cols, hws = self.selection(design)
        return float(sum(c.g_idle_mw[j] + iops * c.g_busy_mw_per_iops[j] for j in cols)
                     + sum(c.h_idle_mw[i] + iops * c.h_energy_mw_per_iops[i] for i in hws))

    def max_iops(self, design: Design) -> float:
        """Largest target throughput at which ``design`` still meets every linear row (inf if unbounded)."""
        c, t = self.coef, self.targets
        cols, hws = self.selection(design)
        limits = []
        per_station = [c.g_demand_us[j] / c.groups[j].count for j in cols] + [
            c.h_demand_us[i] / c.hw[i][1] for i in hws] + list(c.fixed_demand_us / c.fixed_servers)
        limits += [t.utilization_cap * US_PER_S / d for d in per_station if d > 0]
        r0 = self.evaluate(design).zero_load_latency_us
        if r0 > 0:
            limits.append(t.queue_depth * US_PER_S / r0)
        slope = sum(c.g_busy_mw_per_iops[j] for j in cols) + sum(c.h_energy_mw_per_iops[i] for i in hws)
        idle = sum(c.g_idle_mw[j] for j in cols) + sum(c.h_idle_mw[i] for i in hws)
        if math.isfinite(t.core_power_mw) and slope > 0:
            limits.append((t.core_power_mw - idle) / slope)
        if math.isfinite(t.dram_power_mw) and c.dram_mw_per_iops > 0:
            limits.append((t.dram_power_mw - c.dram_background_mw) / c.dram_mw_per_iops)
        return max(0.0, min(limits, default=math.inf))

    def station_loads(self, design: Design) -> tuple[list[tuple[str, float, int, float, float]], float]:
        """(name, demand per copy us, servers, copies, scv) of every station, and the pure delay (us):
        what the closed-network solver needs (the same numbers as ``build_network(...).loads()``)."""
        c = self.coef
        cols, hws = self.selection(design)
        out = [(n, float(d), int(s), float(k), float(v)) for n, d, s, k, v in
               zip(c.fixed_names, c.fixed_demand_us, c.fixed_servers, c.fixed_copies, c.fixed_scv)]
        out += [(f"cores:{c.groups[j].name}", float(c.g_demand_us[j]), int(c.g_servers[j]), 1.0, float(c.g_scv[j]))
                for j in cols]
        out += [(f"accel:{c.hw[i][0]}", float(c.h_demand_us[i]), int(c.h_servers[i]), 1.0, 0.0) for i in hws]
        delay = c.fixed_delay_us + sum(c.h_tail_us[i] for i in hws)
        return out, float(delay)
