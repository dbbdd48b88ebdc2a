"""The solver registry: which solver answers a network, in precedence order.

The first *primary* solver whose domain fits and that does not decline answers; then each *refiner* whose domain
fits replaces that answer where it refines the solver that gave it. docs/model.md describes each solver's domain,
method, references, cost and measured accuracy.

======================  ========  ==========================================================================
solver                  kind      domain
======================  ========  ==========================================================================
exact-convolution       primary   closed, ``exact`` effort
open-mgc-allen-cunneen  primary   open workloads
markov-chain            primary   closed, deterministic, queue depth 1-8, where the chain fits its budget
route-mva               primary   closed (the fallback)
platoon-stage           refiner   the route MVA's answer (``stage.stage_answers``)
======================  ========  ==========================================================================
"""

from __future__ import annotations

from collections.abc import Iterable

from ssdco.model.queueing.route_mva import ALL_FEATURES
from ssdco.model.solvers.base import EFFORTS, Answer, Context, Solver
from ssdco.model.solvers.route import ExactConvolution, OpenMgc, RouteMva
from ssdco.model.solvers.schedules import MarkovChain
from ssdco.model.solvers.stage import PlatoonStage
from ssdco.network.build import Network

PRIMARY: tuple[Solver, ...] = (ExactConvolution(), OpenMgc(), MarkovChain(), RouteMva())
REFINERS: tuple[Solver, ...] = (PlatoonStage(),)
SOLVER_NAMES = tuple(s.name for s in PRIMARY + REFINERS)


def all_but(*names: str) -> tuple[str, ...]:
    """Every registered solver's name but ``names``: the ``solvers`` argument for an experiment that leaves some
    out (e.g. ``all_but("platoon-stage")`` measures the route MVA where the stage would answer)."""
    unknown = set(names) - set(SOLVER_NAMES)
    if unknown:
        raise ValueError(f"unknown solver(s) {sorted(unknown)}; registered: {', '.join(SOLVER_NAMES)}")
    return tuple(n for n in SOLVER_NAMES if n not in names)


def context(network: Network, effort: str = "full", solvers: Iterable[str] | None = None,
            route_features: int = ALL_FEATURES) -> Context:
    """A fresh evaluation context, with ``effort`` and ``solvers`` (names allowed; None: all) checked."""
    if effort not in EFFORTS:
        raise ValueError(f"effort {effort!r}: allowed {', '.join(EFFORTS)}")
    allowed = None
    if solvers is not None:
        allowed = frozenset(solvers)
        unknown = allowed - set(SOLVER_NAMES)
        if unknown:
            raise ValueError(f"unknown solver(s) {sorted(unknown)}; registered: {', '.join(SOLVER_NAMES)}")
        if network.queue_depth is not None and effort != "exact" and "route-mva" not in allowed:
            raise ValueError("the route MVA is every closed solver's fallback and cannot be left out")
    return Context(network, effort, allowed, route_features)


def answer(ctx: Context) -> Answer:
    """The answer for ``ctx``'s network: the first primary solver that fits and answers, refined in turn by every
    refiner that fits it (module docstring). The trace in ``ctx`` records who declined and why."""
    found = None
    for solver in PRIMARY:
        if not ctx.allows(solver.name):
            continue
        fit = solver.fits(ctx)
        if not fit:
            ctx.trace.declined.setdefault(solver.name, fit.why)
            continue
        found = solver.solve(ctx)
        if found is not None:
            break
    if found is None:  # every closed network fits the route MVA, every open one the open solver
        raise AssertionError("no solver answered: the registry has lost its fallback")
    ctx.trace.primary = found.solver
    for refiner in REFINERS:
        if not ctx.allows(refiner.name) or found.solver not in refiner.refines:
            continue
        fit = refiner.fits(ctx, found)
        if not fit:
            ctx.trace.declined.setdefault(refiner.name, fit.why)
            continue
        found = refiner.solve(ctx, found) or found
    return found
