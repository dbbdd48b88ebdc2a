"""Exhaustive enumeration of the design space, vectorised with numpy: the ILP's cross-check and the Pareto front.

Every design is a row of at most five *station columns* (one per core group or accelerated module) into a
unified coefficient table (software columns first, then hardware columns, then a zero padding row), so
cost, power, zero-load latency and the worst utilisation of all designs are a handful of gathers and sums.
The rows are generated per *skeleton* (hardware choice x set partition of the software modules) as a
Cartesian product of the groups' (spec, count) choices, so no Python loop runs per design.

* :func:`linear_optimum` - the cheapest design meeting the *same* linear model as the ILP (``problem.py``),
  by brute force; equal to the ILP optimum's cost (the acceptance test).
* :func:`closed_iops` - the closed-network throughput of every design at the workload's queue depth with
  ``ssdco.model.queueing.mva.solve_closed_batch`` (the same residual-corrected MVA as ``ssdco whatif``).
* :func:`pareto_front` - the non-dominated set over (cost min, verified IOPS max, core-side power min),
  power taken at each design's own MVA operating point. The batch solver is the station-level
  residual-corrected MVA; ``optimize`` also re-evaluates the front's designs with ``ssdco whatif``'s own
  model (``ParetoPoint.iops_whatif``), which may differ by a few per cent.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field

import numpy as np

from ssdco.model.queueing.mva import solve_closed_batch
from ssdco.optimizer.problem import FEAS_TOL, US_PER_S, Coefficients, LinearModel, build_coefficients
from ssdco.optimizer.space import Design, DesignSpace, set_partitions
from ssdco.spec import MODULES

SLOTS = len(MODULES)  # a design has at most one station per module


@dataclass(frozen=True)
class DesignTable:
    """All designs of a space as arrays (row b = one design)."""

    coef: Coefficients = field(repr=False)
    stations: np.ndarray  # (B, SLOTS) indices into the unified table; the padding index is `pad`
    cost: np.ndarray
    idle_mw: np.ndarray
    busy_mw_per_iops: np.ndarray
    zero_load_us: np.ndarray  # one request's own path at zero load, a lower bound on its latency (problem.py)
    max_util_per_iops: np.ndarray  # max over stations of D / c / 1e6 (utilisation per I/O per second)
    tail_us: np.ndarray  # accelerator pipeline delays (part of the MVA's pure delay)

    def __len__(self) -> int:
        return int(self.stations.shape[0])

    @property
    def n_groups(self) -> int:
        """Software columns come first in the unified table."""
        return len(self.coef.groups)

    @property
    def pad(self) -> int:
        """Index of the zero padding row."""
        return len(self.coef.groups) + len(self.coef.hw)

    def design(self, b: int) -> Design:
        """The :class:`Design` of row ``b``."""
        idx = [int(j) for j in self.stations[b] if j != self.pad]
        g = self.n_groups
        return Design.make((self.coef.groups[j] for j in idx if j < g), [self.coef.hw[j - g] for j in idx if j >= g])


def _unified(coef: Coefficients):
    """Per-station arrays over software columns, hardware columns and one zero padding row."""
    z = np.zeros(1)
    cost = np.concatenate([coef.g_cost, coef.h_cost, z])
    idle = np.concatenate([coef.g_idle_mw, coef.h_idle_mw, z])
    busy = np.concatenate([coef.g_busy_mw_per_iops, coef.h_energy_mw_per_iops, z])
    demand = np.concatenate([coef.g_demand_us, coef.h_demand_us, z])
    servers = np.concatenate([coef.g_servers, coef.h_servers, np.ones(1, np.int64)])
    scv = np.concatenate([coef.g_scv, np.zeros(len(coef.hw)), z])
    tail = np.concatenate([np.zeros(len(coef.groups)), coef.h_tail_us, z])
    copies = np.concatenate([np.ones(len(coef.groups) + len(coef.hw)), z])
    return cost, idle, busy, demand, servers, scv, tail, copies


def enumerate_space(space: DesignSpace, coef: Coefficients | None = None) -> DesignTable:
    """Every design of ``space`` as a :class:`DesignTable` (memory ~ 100 bytes per design)."""
    coef = coef if coef is not None else build_coefficients(space)
    n_opt = space.group_choices
    pad = len(coef.groups) + len(coef.hw)
    rows = []
    for hw in space.hardware_choices():
        in_hw = {m for m, _ in hw}
        sw = tuple(m for m in MODULES if m not in in_hw)
        hw_idx = [len(coef.groups) + coef.hw_index[h] for h in hw]
        for part in set_partitions(sw):
            nb = len(part)
            bases = [(sum(1 << MODULES.index(m) for m in blk) - 1) * n_opt for blk in part]
            n = n_opt ** nb
            block = np.full((n, SLOTS), pad, dtype=np.int32)
            if nb:
                choice = np.stack(np.unravel_index(np.arange(n), (n_opt,) * nb), axis=1)
                block[:, :nb] = choice + np.array(bases)
            if hw_idx:
                block[:, nb:nb + len(hw_idx)] = hw_idx
            rows.append(block)
    st = np.concatenate(rows) if rows else np.zeros((0, SLOTS), np.int32)
    cost, idle, busy, demand, servers, _, tail, _ = _unified(coef)
    path = np.concatenate([coef.g_path_us, coef.h_path_us, np.zeros(1)])
    per_station_util = np.where(demand > 0, demand / servers / US_PER_S, 0.0)
    fixed_util = float(np.max(coef.fixed_demand_us / coef.fixed_servers / US_PER_S, initial=0.0))
    return DesignTable(
        coef=coef, stations=st,
        cost=cost[st].sum(axis=1) + coef.device_cost,
        idle_mw=idle[st].sum(axis=1),
        busy_mw_per_iops=busy[st].sum(axis=1),
        zero_load_us=coef.fixed_path_us + path[st].sum(axis=1),  # one request's own path (problem.py)
        max_util_per_iops=np.maximum(per_station_util[st].max(axis=1), fixed_util),
        tail_us=tail[st].sum(axis=1),
    )


def _ok(slack: np.ndarray, rhs: float) -> np.ndarray:
    return slack >= -FEAS_TOL * max(1.0, abs(rhs))


def linear_feasible(table: DesignTable, model: LinearModel, drop=()) -> np.ndarray:
    """Boolean mask of the designs meeting every row of ``model`` (the ILP's constraints), except the
    constraint families named in ``drop`` (as ``ilp.build(drop=...)``)."""
    t = model.targets
    x = t.target_iops
    ok = np.ones(len(table), dtype=bool)
    if "utilization" not in drop:
        ok &= _ok(t.utilization_cap - x * table.max_util_per_iops, t.utilization_cap)
    if "population" not in drop:
        ok &= _ok(t.queue_depth - x * table.zero_load_us / US_PER_S, t.queue_depth)
    if "core_power" not in drop and math.isfinite(t.core_power_mw):
        ok &= _ok(t.core_power_mw - (table.idle_mw + x * table.busy_mw_per_iops), t.core_power_mw)
    if "dram_power" not in drop and math.isfinite(t.dram_power_mw) and not _ok(
            np.array(t.dram_power_mw - model.dram_power_mw()), t.dram_power_mw):
        ok &= False
    return ok


def level_set(table: DesignTable, model: LinearModel, cost: float, tol: float, drop=()) -> list[Design]:
    """The designs meeting the linear model whose cost is within ``tol`` of ``cost``, in the ILP's
    tie-break order (core-side power at the target, lowest first)."""
    mask = linear_feasible(table, model, drop) & (np.abs(table.cost - cost) <= tol)
    rows = np.flatnonzero(mask)
    power = table.idle_mw[rows] + model.targets.target_iops * table.busy_mw_per_iops[rows]
    return [table.design(int(b)) for b in rows[np.lexsort((rows, power))]]


def linear_optimum(table: DesignTable, model: LinearModel) -> tuple[int | None, float | None]:
    """Row and cost of the cheapest design meeting the linear model (None when nothing does)."""
    ok = linear_feasible(table, model)
    if not ok.any():
        return None, None
    idx = np.flatnonzero(ok)
    b = int(idx[np.argmin(table.cost[idx])])
    return b, float(table.cost[b])


def closed_iops(table: DesignTable, queue_depth: int, rows: np.ndarray | None = None) -> np.ndarray:
    """Closed-network IOPS of the designs (all, or ``rows``) at ``queue_depth``, by batched MVA."""
    c = table.coef
    st = table.stations if rows is None else table.stations[rows]
    tail = table.tail_us if rows is None else table.tail_us[rows]
    _, _, _, demand, servers, scv, _, copies = _unified(c)
    b = st.shape[0]
    nf = len(c.fixed_names)
    d = np.concatenate([np.broadcast_to(c.fixed_demand_us, (b, nf)), demand[st]], axis=1)
    s = np.concatenate([np.broadcast_to(c.fixed_servers, (b, nf)), servers[st]], axis=1)
    k = np.concatenate([np.broadcast_to(c.fixed_copies, (b, nf)), copies[st]], axis=1)
    v = np.concatenate([np.broadcast_to(c.fixed_scv, (b, nf)), scv[st]], axis=1)
    delay = c.fixed_delay_us + tail
    if b == 0:
        return np.zeros(0)
    return solve_closed_batch(d, s, k, v, delay, int(queue_depth)) * US_PER_S


COST_RELATIVE_TOLERANCE = 1e-9  # costs this close are one cost (sums of the same parts in another order)


def snap_costs(cost: np.ndarray, rel_tol: float = COST_RELATIVE_TOLERANCE) -> np.ndarray:
    """``cost`` with every run of sorted values, each within ``rel_tol`` (relative) of the one before, replaced by
    the run's smallest: a cost summed from the same parts in another order differs only in its last
    floating-point digits."""
    cost = np.asarray(cost, dtype=float)
    if cost.size < 2:
        return cost.copy()
    order = np.argsort(cost, kind="stable")
    s = cost[order]
    new_run = np.concatenate(([True], np.diff(s) > rel_tol * np.maximum(np.abs(s[1:]), np.abs(s[:-1]))))
    starts = s[new_run][np.cumsum(new_run) - 1]
    out = np.empty_like(cost)
    out[order] = starts
    return out


def pareto_front(cost: np.ndarray, iops: np.ndarray, power: np.ndarray) -> np.ndarray:
    """Indices of the non-dominated points (minimise cost and power, maximise IOPS), sorted by cost.

    A point is dominated when another is no worse in all three and better in one; costs within
    :data:`COST_RELATIVE_TOLERANCE` of each other count as equal (:func:`snap_costs`). Points with identical
    values are all kept. Sort lexicographically (cost, power, -IOPS): every dominator of a point comes
    before it, so one scan with a 2-D staircase over (power, IOPS) of the points seen so far decides each
    point with a binary search (Kung, Luccio & Preparata, JACM 22(4), 1975 - the 3-D maxima scan).
    """
    cost, iops, power = (np.asarray(a, dtype=float) for a in (cost, iops, power))
    cost = snap_costs(cost)
    keys = np.stack([cost, power, -iops], axis=1)
    uniq, inverse = np.unique(keys, axis=0, return_inverse=True)  # sorted lexicographically
    stair_p: list[float] = []  # power ascending
    stair_i: list[float] = []  # IOPS strictly ascending along it
    keep = np.zeros(len(uniq), dtype=bool)
    for u, (_, p, neg_i) in enumerate(uniq):
        i = -neg_i
        k = bisect.bisect_right(stair_p, p) - 1
        if k >= 0 and stair_i[k] >= i:
            continue  # an earlier point (cost <=, power <=) has IOPS >=; distinct keys => strictly better somewhere
        keep[u] = True
        lo = bisect.bisect_left(stair_p, p)
        hi = lo
        while hi < len(stair_p) and stair_i[hi] <= i:
            hi += 1
        stair_p[lo:hi] = [p]
        stair_i[lo:hi] = [i]
    idx = np.flatnonzero(keep[inverse.ravel()])
    return idx[np.lexsort((-iops[idx], power[idx], cost[idx]))]


@dataclass(frozen=True)
class ParetoPoint:
    """One design of the Pareto front with its verified (MVA) metrics."""

    design: Design
    cost: float
    iops: float
    core_power_mw: float
    latency_mean_us: float
    meets_targets: bool
    iops_whatif: float | None = None  # the same design through ``ssdco whatif`` (route-level model)
    device: str = ""  # the device option (``[optimizer.nand]`` / ``[optimizer.dram]`` variant), where there are several


def pareto(table: DesignTable, model: LinearModel) -> tuple[list[ParetoPoint], float]:
    """The Pareto front of ``table`` (MVA IOPS of every design) and the seconds the MVA batch took."""
    import time

    t0 = time.perf_counter()
    iops = closed_iops(table, model.targets.queue_depth)
    seconds = time.perf_counter() - t0
    power = table.idle_mw + iops * table.busy_mw_per_iops
    t = model.targets
    dram = model.coef.dram_background_mw + iops * model.coef.dram_mw_per_iops
    lat_ok = (t.max_latency_us is None) | (t.queue_depth / np.maximum(iops, 1e-300) * US_PER_S
                                           <= (t.max_latency_us or math.inf))
    meets = (iops >= t.min_iops) & (power <= t.core_power_mw) & (dram <= t.dram_power_mw) & lat_ok
    front = pareto_front(table.cost, iops, power)
    points = [ParetoPoint(table.design(int(b)), float(table.cost[b]), float(iops[b]), float(power[b]),
                          float(t.queue_depth / iops[b] * US_PER_S) if iops[b] > 0 else math.inf, bool(meets[b]))
              for b in front]
    return points, seconds
