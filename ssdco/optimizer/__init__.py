"""Constraint-driven search: the cheapest controller design that meets IOPS/latency and power budgets.

Public API::

    from ssdco.optimizer import optimize
    result = optimize(config, min_iops=500_000, core_power_mw=192, dram_power_mw=800)
    result.pick, result.cost, result.verdict.analytic.iops, result.runners_up, result.binding

Modules: ``space`` (what may vary, from ``[optimizer]``), ``problem`` (the linear model and its signed
slack vector), ``ilp`` (PuLP model with named rows), ``enumerate`` (vectorised brute force, Pareto front),
``search`` (the verify/tighten loop, runners-up, binding constraints, sensitivity), ``report``
(text / JSON / CSV / TOML strings).
"""

from ssdco.optimizer.enumerate import DesignTable, ParetoPoint, enumerate_space, linear_optimum, pareto_front
from ssdco.optimizer.problem import Evaluation, LinearModel, Targets, make_targets
from ssdco.optimizer.search import OptimizeResult, optimize
from ssdco.optimizer.space import Design, DesignSpace, Group, SearchOptions

__all__ = ["Design", "DesignSpace", "DesignTable", "Evaluation", "Group", "LinearModel", "OptimizeResult",
           "ParetoPoint", "SearchOptions", "Targets", "enumerate_space", "linear_optimum", "make_targets",
           "optimize", "pareto_front"]
