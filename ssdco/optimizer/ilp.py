"""The design problem as a 0-1 integer linear program (PuLP; CBC bundled, HiGHS when ``highspy`` is installed).

Variables (all binary):

* ``sw_<spec>_x<count>__<modules>`` - one per software column (module subset, core spec, count): a core
  group of ``count`` ``spec`` cores serving exactly that subset (a set-partitioning formulation, so
  module-to-core assignment is a real decision);
* ``hw_<module>_x<units>`` - the module in hardware with that many units (unit and development cost
  folded into one coefficient: at most one unit count per module is chosen);
* ``device_as_configured`` - the device variant (fixed to 1; the hook for NAND/DRAM options).

Named rows (``prob += (expr, name)``), the same names as :meth:`LinearModel.evaluate`'s slack vector:

* ``assign_<module>`` - each module placed exactly once;
* ``util_<module>`` - utilisation of the station serving the module <= cap, at the target throughput;
* ``util_pcie``, ``util_die``, ``util_channel`` - the shared stations <= cap;
* ``population_bound`` - X x zero-load latency <= queue depth (Little), the latency a lower bound: one
  request's own path, a transaction's steps counted once (``problem.py``);
* ``core_power``, ``dram_power`` - the budgets at the target throughput;
* ``nogood_<k>`` - cuts from the verify/tighten loop, each excluding exactly one design;
* ``cost_cap`` - optional, cost <= a bound (used by the binding-constraint searches);
* ``cost_floor`` - optional, cost >= a bound: the verify/tighten loop's cut once every design of a cost
  level has failed verification (one row replaces that level's no-good cuts).

Objective: cost, with a tie-break of at most :data:`TIE_BREAK` cost units toward lower core-side power
(so equal-cost designs resolve deterministically to the frugal one). Elastic mode (:func:`solve` with
``elastic=True``) adds a non-negative violation variable to every budget/target row and minimises the
sum of relative violations: the rows left violated explain an infeasible target row by row.
"""

from __future__ import annotations

import functools
import math
import os
import sys
import time
import warnings
from dataclasses import dataclass, field
from typing import Iterable, Mapping

import pulp

from ssdco.errors import ConfigError
from ssdco.optimizer.problem import US_PER_S, LinearModel, row_family
from ssdco.optimizer.space import Design
from ssdco.spec import MODULES

TIE_BREAK = 1e-7  # cost units: the most the power tie-break can add to a design's objective
COST_TOL = 1e-6  # designs whose costs differ by less are ties


@dataclass(frozen=True)
class IlpSolution:
    """Outcome of one ILP solve. ``violations`` (elastic mode) maps row -> amount above its limit."""

    status: str  # "optimal" | "infeasible" | "error"
    design: Design | None
    objective: float | None
    seconds: float
    solver: str
    violations: Mapping[str, float] = field(default_factory=dict)

    @property
    def feasible(self) -> bool:
        """True when a design was found."""
        return self.status == "optimal" and self.design is not None


def solver_name(requested: str) -> str:
    """The solver actually used for ``requested`` ("auto" prefers HiGHS when ``highspy`` is installed)."""
    if requested == "cbc":
        return "cbc"
    highs_ok = _highs_available()
    if requested == "highs" and not highs_ok:
        raise ConfigError("optimizer", "optimizer.solver", "highs",
                          "HiGHS needs the optional package highspy (pip install highspy); or use \"cbc\"")
    return "highs" if highs_ok else "cbc"


def _highs_available() -> bool:
    try:
        return bool(pulp.HiGHS(msg=False).available())
    except Exception:  # pragma: no cover - very old PuLP without HiGHS
        return False


@functools.cache
def _silence_highs_banner() -> None:
    """Make this process's first HiGHS object with standard output (file descriptor 1) sent to /dev/null.

    highspy writes its copyright banner to file descriptor 1, from C++, when a process makes its first ``Highs``
    object, before PuLP can set ``output_flag`` to false (HiGHS 1.16; upstream: it "can't be switched off
    independently", ERGO-Code/HiGHS#1932). It would come before ``ssdco optimize --json``'s document on
    stdout, which would then not be JSON. Later objects print nothing, so once per process is enough."""
    import highspy

    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            try:
                highspy.Highs()
            finally:
                os.dup2(saved, 1)
    finally:
        os.close(saved)


def _make_solver(name: str):
    if name == "highs":
        _silence_highs_banner()
        return pulp.HiGHS(msg=False)
    coin = pulp.COIN_CMD(msg=False)  # a CBC on PATH (pulp[cbc]); else the binary bundled with PuLP
    if coin.available():
        return coin
    with warnings.catch_warnings():  # PuLP 3.3 announces the bundled CBC's removal in PuLP 4.0
        warnings.simplefilter("ignore", DeprecationWarning)
        return pulp.PULP_CBC_CMD(msg=False)


def _new_var(prob, name: str, low: float | None = None, cat: str = "Continuous"):
    """A variable attached to ``prob`` (PuLP >= 3.3 API; plain LpVariable on older PuLP)."""
    if hasattr(prob, "add_variable"):
        return prob.add_variable(name, lowBound=low, cat=cat)
    return pulp.LpVariable(name, lowBound=low, cat=cat)  # pragma: no cover - PuLP < 3.3


def _var_name(group) -> str:
    return f"sw_{group.spec}_x{group.count}__" + "__".join(group.modules)


class _RowAdder:
    """Adds named rows to ``prob``; in elastic mode each budget/target row gets a non-negative violation
    variable (``violation_<row>``, kept in ``slack_vars``)."""

    def __init__(self, prob, elastic: bool):
        self.prob = prob
        self.elastic = elastic
        self.slack_vars: dict[str, pulp.LpVariable] = {}

    def __call__(self, expr_terms, sense: str, rhs: float, name: str) -> None:
        """Add ``sum(a * v) <sense> rhs`` as row ``name`` (``sense``: "<=" or "=="), zero terms left out."""
        terms = [(v, float(a)) for v, a in expr_terms if a != 0.0]
        if self.elastic and row_family(name) in ("utilization", "population", "core_power", "dram_power"):
            e = _new_var(self.prob, f"violation_{name}", low=0)
            self.slack_vars[name] = e
            terms.append((e, -1.0))
        if not terms:  # a constant row: 0 <= rhs holds (rhs >= 0 for every row we build)
            return
        expr = pulp.LpAffineExpression(terms)
        self.prob.addConstraint(pulp.LpConstraint(expr, {"<=": pulp.LpConstraintLE,
                                                         "==": pulp.LpConstraintEQ}[sense], rhs=rhs, name=name))


def _add_assignment_rows(add: _RowAdder, model: LinearModel, ys, hs) -> None:
    """``assign_<module>``: each module placed exactly once, on one core group or one hardware option."""
    c = model.coef
    for k, m in enumerate(MODULES):
        terms = [(ys[j], 1.0) for j in range(len(ys)) if c.g_member[j, k]]
        terms += [(hs[i], 1.0) for i in range(len(hs)) if c.h_module[i] == k]
        add(terms, "==", 1.0, f"assign_{m}")


def _add_utilization_rows(add: _RowAdder, model: LinearModel, ys, hs, one) -> None:
    """``util_<module>`` and the shared stations' ``util_*``: utilisation at the target throughput <= cap."""
    c, t = model.coef, model.targets
    x = t.target_iops
    for k, m in enumerate(MODULES):
        terms = [(ys[j], x * c.g_demand_us[j] / US_PER_S / c.groups[j].count)
                 for j in range(len(ys)) if c.g_member[j, k]]
        terms += [(hs[i], x * c.h_demand_us[i] / US_PER_S / c.hw[i][1])
                  for i in range(len(hs)) if c.h_module[i] == k]
        add(terms, "<=", t.utilization_cap, f"util_{m}")
    for name, d, s in zip(c.fixed_names, c.fixed_demand_us, c.fixed_servers):
        add([(one, x * d / US_PER_S / s)], "<=", t.utilization_cap, model.fixed_row_name(name))


def _add_population_row(add: _RowAdder, model: LinearModel, ys, hs, one) -> None:
    """``population_bound``: X x R0 <= queue depth, R0 one request's own path at zero load (problem.py),
    linear in the columns chosen."""
    c, t = model.coef, model.targets
    x = t.target_iops
    terms = [(one, x * c.fixed_path_us / US_PER_S)]
    terms += [(ys[j], x * c.g_path_us[j] / US_PER_S) for j in range(len(ys))]
    terms += [(hs[i], x * c.h_path_us[i] / US_PER_S) for i in range(len(hs))]
    add(terms, "<=", float(t.queue_depth), "population_bound")


def _power_terms(model: LinearModel, ys, hs) -> list:
    """Core-side power (mW) of each column at the target throughput, as (variable, coefficient) terms."""
    c, x = model.coef, model.targets.target_iops
    terms = [(ys[j], c.g_idle_mw[j] + x * c.g_busy_mw_per_iops[j]) for j in range(len(ys))]
    terms += [(hs[i], c.h_idle_mw[i] + x * c.h_energy_mw_per_iops[i]) for i in range(len(hs))]
    return terms


def _cost_terms(model: LinearModel, ys, hs, one) -> list:
    """Cost of each column and the fixed cost (DRAM, NAND geometry), as (variable, coefficient) terms."""
    c = model.coef
    terms = [(ys[j], float(c.g_cost[j])) for j in range(len(ys))]
    terms += [(hs[i], float(c.h_cost[i])) for i in range(len(hs))]
    terms += [(one, c.device_cost)]
    return terms


def _add_cost_rows(add: _RowAdder, cost_terms: list, cost_cap: float | None, cost_floor: float | None) -> None:
    """``cost_cap`` (cost <= a bound) and ``cost_floor`` (cost >= a bound), each when given."""
    if cost_cap is not None:
        add(cost_terms, "<=", cost_cap, "cost_cap")
    if cost_floor is not None and math.isfinite(cost_floor):
        add.prob.addConstraint(pulp.LpConstraint(
            pulp.LpAffineExpression([(v, a) for v, a in cost_terms if a != 0.0]), pulp.LpConstraintGE,
            rhs=cost_floor, name="cost_floor"))


def _add_nogood_cuts(prob, model: LinearModel, cuts: Iterable[Design], ys, hs) -> None:
    """``nogood_<k>``: each cut design excluded (not all of its columns chosen together)."""
    for n, d in enumerate(cuts):
        cols, hws = model.selection(d)
        sel = [ys[j] for j in cols] + [hs[i] for i in hws]
        prob.addConstraint(pulp.LpConstraint(pulp.LpAffineExpression([(v, 1.0) for v in sel]),
                                             pulp.LpConstraintLE, rhs=len(sel) - 1, name=f"nogood_{n}"))


def _objective(model: LinearModel, one, power_terms: list, cost_terms: list, slack_vars: Mapping[str, object],
               objective: str, elastic: bool):
    """The objective: cost with a power tie-break scaled to add at most TIE_BREAK, minimum core-side power
    with a cost tie-break, or (elastic) the sum of relative violations."""
    p_scale = sum(max(a, 0.0) for _, a in power_terms) or 1.0
    c_scale = sum(max(a, 0.0) for _, a in cost_terms) or 1.0
    if elastic:
        terms = [(e, 1.0 / max(abs(_rhs(model, r)), 1e-9)) for r, e in slack_vars.items()]
        terms += [(v, 1e-6 * a / c_scale) for v, a in cost_terms]
    elif objective == "core_power":
        terms = [(v, a / p_scale) for v, a in power_terms] + [(v, TIE_BREAK * a / c_scale) for v, a in cost_terms]
    else:
        terms = cost_terms + [(v, TIE_BREAK * a / p_scale) for v, a in power_terms]
    combined: dict[str, list] = {}  # LpAffineExpression keeps the last coefficient of a repeated variable
    for v, a in terms:
        combined.setdefault(v.name, [v, 0.0])[1] += a
    return pulp.LpAffineExpression([(v, a) for v, a in combined.values() if a != 0.0] or [(one, 0.0)])


def build(model: LinearModel, *, cuts: Iterable[Design] = (), drop: Iterable[str] = (), objective: str = "cost",
          cost_cap: float | None = None, cost_floor: float | None = None, elastic: bool = False):
    """Build the PuLP problem. Returns ``(prob, columns, hardware, slack_vars)``.

    ``drop`` names constraint families (``problem.FAMILIES``) to leave out; ``objective`` is "cost" or
    "core_power" (minimum core-side power at the target, cost as tie-break).
    """
    c, t = model.coef, model.targets
    drop = set(drop)
    prob = pulp.LpProblem("ssdco_optimize", pulp.LpMinimize)
    ys = [_new_var(prob, _var_name(g), cat="Binary") for g in c.groups]
    hs = [_new_var(prob, f"hw_{m}_x{u}", cat="Binary") for m, u in c.hw]
    one = _new_var(prob, "device_as_configured", cat="Binary")
    prob += (pulp.LpAffineExpression([(one, 1.0)]) == 1, "device_variant")
    add = _RowAdder(prob, elastic)
    _add_assignment_rows(add, model, ys, hs)
    if "utilization" not in drop:
        _add_utilization_rows(add, model, ys, hs, one)
    if "population" not in drop:
        _add_population_row(add, model, ys, hs, one)
    power_terms = _power_terms(model, ys, hs)
    if "core_power" not in drop and math.isfinite(t.core_power_mw):
        add(power_terms, "<=", t.core_power_mw, "core_power")
    if "dram_power" not in drop and math.isfinite(t.dram_power_mw):
        add([(one, model.dram_power_mw())], "<=", t.dram_power_mw, "dram_power")
    cost_terms = _cost_terms(model, ys, hs, one)
    _add_cost_rows(add, cost_terms, cost_cap, cost_floor)
    _add_nogood_cuts(prob, model, cuts, ys, hs)
    prob.setObjective(_objective(model, one, power_terms, cost_terms, add.slack_vars, objective, elastic))
    return prob, ys, hs, add.slack_vars


def _rhs(model: LinearModel, row: str) -> float:
    t = model.targets
    if row.startswith("util_"):
        return t.utilization_cap
    if row == "population_bound":
        return float(t.queue_depth)
    return t.core_power_mw if row == "core_power" else t.dram_power_mw


def solve(model: LinearModel, *, cuts: Iterable[Design] = (), drop: Iterable[str] = (), objective: str = "cost",
          cost_cap: float | None = None, cost_floor: float | None = None, elastic: bool = False,
          solver: str = "auto") -> IlpSolution:
    """Solve the ILP of ``model`` (see :func:`build` for the arguments) and decode the chosen design."""
    name = solver_name(solver)
    start = time.perf_counter()
    prob, ys, hs, slack_vars = build(model, cuts=cuts, drop=drop, objective=objective, cost_cap=cost_cap,
                                     cost_floor=cost_floor, elastic=elastic)
    try:
        prob.solve(_make_solver(name))
    except pulp.PulpSolverError as e:  # pragma: no cover - solver binary missing or crashed
        raise RuntimeError(f"ILP solver {name} failed: {e}") from e
    seconds = time.perf_counter() - start
    status = pulp.LpStatus.get(prob.status, "Undefined")
    if status != "Optimal":
        return IlpSolution("infeasible" if status in ("Infeasible", "Not Solved", "Undefined") else "error",
                           None, None, seconds, name)
    cols = [j for j, v in enumerate(ys) if (v.value() or 0.0) > 0.5]
    hws = [i for i, v in enumerate(hs) if (v.value() or 0.0) > 0.5]
    try:
        design = model.design_from_selection(cols, hws)
    except Exception:  # pragma: no cover - a solver returning a non-integral point
        return IlpSolution("error", None, None, seconds, name)
    viol = {r: float(e.value() or 0.0) for r, e in slack_vars.items() if (e.value() or 0.0) > 1e-9}
    return IlpSolution("optimal", design, float(pulp.value(prob.objective)), seconds, name, viol)


def write_lp(model: LinearModel, path, **kwargs) -> None:
    """Write the model (as :func:`build` makes it) in CPLEX LP format, to inspect or run elsewhere."""
    prob, *_ = build(model, **kwargs)
    prob.writeLP(str(path))
