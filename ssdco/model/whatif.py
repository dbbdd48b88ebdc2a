"""The "what if?" path: config -> network -> solver registry -> bounds -> power, p99, caveats -> :class:`Result`.

:func:`evaluate_network` asks the solver registry (``solvers/registry.py``) for the answer at the chosen effort,
holds answers that follow the requests one by one to the asymptotic bounds (``bounds.py``), and adds what every
answer reports: per-station utilisation and queues, power and energy per I/O (``power.py``), the p99 latency
(the solver's own where it knows it, else ``p99.p99_estimate_us``), the budget checks and the caveats
(``caveats.py``). docs/model.md describes each solver.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import numpy as np

from ssdco.model.bounds import Bounds, asymptotic_bounds
from ssdco.model.caveats import (
    START_PATTERN_GRID_STEPS,
    flow_correction_share,
    pattern_caveats,
    start_pattern,
    start_pattern_caveats,
    trust_caveats,
)
from ssdco.model.p99 import p99_estimate_us
from ssdco.model.power import compute_power
from ssdco.model.queueing.route_mva import ALL_FEATURES, capacity_per_us, queue_at_capacity
from ssdco.model.queueing.schedule_chain import attempt_chain
from ssdco.model.result import Result, StartPattern, check_budgets, ftl_summary
from ssdco.model.solvers import Answer, Context, answer, context
from ssdco.model.solvers.schedules import chain_skipped
from ssdco.network.build import Network, build_network
from ssdco.network.ftl_effects import ftl_effects
from ssdco.spec import Config

US_PER_S = 1e6
# the solvers that follow the requests one by one: the route MVA's caveats do not apply to their answers
SCHEDULED = ("markov-chain", "platoon-stage")


def evaluate_network(config: Config, network: Network, *, effort: str = "full", solvers: Iterable[str] | None = None,
                     route_features: int = ALL_FEATURES) -> Result:
    """Solve ``network`` (built from ``config``) analytically and compute power and budgets.

    ``effort``: ``screen``, ``fast``, ``full`` (default) or ``exact`` (``solvers.EFFORTS`` says what each runs).
    ``solvers``: the names of the solvers allowed (None: all; ``solvers.all_but(...)`` leaves some out), and
    ``route_features``: the bits of the route MVA's corrections (``route_mva.ALL_FEATURES``): both for experiments
    that measure what a solver or a correction buys."""
    ctx = context(network, effort, solvers, route_features)
    found = answer(ctx)
    bounds = _bounds(ctx, found)
    found = _held_to(found, bounds, network.queue_depth)
    x_per_us = found.throughput_per_us
    demand = ctx.busy_demand_us if network.holds else ctx.total_demand_us  # a held server's wait in it
    demand = demand + ctx.suspension_demand_us(x_per_us)  # and the suspensions' time (nand.suspend)
    util = x_per_us * demand / ctx.servers
    busy = {n: float(x_per_us * d * m) for n, d, m in zip(ctx.names, demand, ctx.copies)}
    iops = x_per_us * US_PER_S
    fx = network.ftl if network.ftl is not None else ftl_effects(config)
    power = compute_power(config, network, iops, busy, dram_size_gib=None if fx is None else fx.dram_size_gib)
    start = _start_pattern(ctx, found) if found.stable else None
    flow_share = _flow_share(ctx, found)
    caveats = _caveats(ctx, found, bounds, util, iops, start, flow_share) if found.stable else ()
    return Result(
        config_name=config.name,
        controller=config.controller.name,
        workload="closed" if network.queue_depth is not None else "open",
        queue_depth=network.queue_depth,
        arrival_iops=network.arrival_iops,
        iops=iops,
        latency_mean_us=found.response_us,
        latency_p99_us=_p99(ctx, found),
        stable=found.stable,
        utilization=dict(zip(ctx.names, map(float, util))),
        mean_jobs=dict(zip(ctx.names, map(float, _reported_queues(ctx, found)))),
        bottleneck=bounds.bottleneck,
        bounds=bounds,
        power=power,
        budgets=check_budgets(config, iops, power),
        method=found.solver,
        stations=ctx.loads,
        ftl=ftl_summary(config, fx, iops),
        caveats=caveats,
        flow_correction_share=flow_share,
        start_pattern=start,
        seeded=found.seeded,
    )


def evaluate(config: Config, *, effort: str = "full", solvers: Iterable[str] | None = None) -> Result:
    """Answer "what if?" for ``config``: IOPS, latency (mean, p99), utilisation, bottleneck, power, budgets.

    ``effort``: ``full`` (default), ``fast`` (``whatif --fast``: the Markov chain of the requests' draws only within
    its first states at queue depth 1-2, where the full effort can take seconds), ``screen`` (no chain, no platoon
    stage: the optimizer's first pass) or ``exact`` (the exponential product form); ``solvers``: see
    :func:`evaluate_network`."""
    return evaluate_network(config, build_network(config), effort=effort, solvers=solvers)


def _demand_at_capacity_us(ctx: Context) -> np.ndarray:
    """Per station: the demand (us per request at one copy) that its capacity bound c / D divides into c: its work,
    and where reads suspend programs and erases there, the suspensions' die time at that capacity, D + s x_c with
    x_c the root of x (D + s x) = c (the suspensions' time grows with X, :meth:`Context.suspension_demand_us`)."""
    demand, s = ctx.total_demand_us, ctx.suspension_us2
    if not np.any(s > 0.0):
        return demand
    return demand + s * np.where(s > 0.0, capacity_per_us(demand, s, ctx.servers), 0.0)


def _bounds(ctx: Context, found: Answer) -> Bounds:
    """The asymptotic bounds with the answer's zero-load latency and, for the route solvers of closed workloads, the
    write buffer's bound; the idle bound where the route MVA answers and is held by it."""
    network = ctx.network
    zero_load_us = found.zero_load_us
    if zero_load_us is None:  # Z + sum m_k D_k: at zero load nothing is suspended
        zero_load_us = float(network.delay_us + np.dot(ctx.copies, ctx.total_demand_us))
    bounds = asymptotic_bounds(ctx.names, _demand_at_capacity_us(ctx), ctx.servers, ctx.copies, network.delay_us,
                               network.queue_depth, zero_load_us)
    if network.queue_depth is None or ctx.effort == "exact":
        return bounds
    bounds = replace(bounds, write_buffer_per_us=ctx.arrays.bg_capacity_per_us)
    idle = ctx.trace.idle_bound
    if idle is not None and found.solver == "route-mva":
        bounds = replace(bounds, idle_per_us=idle.throughput_per_us, idle_station=idle.station)
    return bounds


def _held_to(found: Answer, bounds: Bounds, queue_depth: int | None) -> Answer:
    """``found`` held to the bounds where its solver asks for it: X at most the tightest upper bound, and the
    bottleneck's capacity c / D where the bottleneck is busy throughout (not a seeded estimate among the bounds,
    whose noise would make X move with the queue depth); the latency then N / X (Little's law)."""
    if not found.held_to_bounds:
        return found
    x = bounds.capacity_per_us if found.at_capacity else min(found.throughput_per_us, bounds.upper_per_us)
    if x == found.throughput_per_us:
        return found
    return replace(found, throughput_per_us=x, response_us=queue_depth / x)


def _p99(ctx: Context, found: Answer) -> float | None:
    """The 99th latency percentile (us): the solver's own, else the estimate; None where unstable."""
    if found.p99_us is not None:
        return found.p99_us
    if not found.stable:
        return None
    sol = found.route_solution
    return p99_estimate_us(ctx.network, ctx.loads, found.residence_us, found.p_wait, found.mean_jobs,
                           found.response_us, ctx.closed, found.throughput_per_us,
                           getattr(sol, "buffer_wait_us", 0.0), found.correlated,
                           getattr(sol, "write_blocked_fraction", None))


def _reported_queues(ctx: Context, found: Answer) -> np.ndarray:
    """Mean jobs per station copy as reported: the route MVA's with the requests its capacity bound leaves over
    queued at the bottleneck, the platoon stage's at the X reported (Little's law), the others' own."""
    if found.solver == "route-mva":
        return queue_at_capacity(ctx.arrays, found.route_solution)
    if found.solver == "platoon-stage":
        return found.throughput_per_us * found.residence_us
    return found.mean_jobs


def _flow_share(ctx: Context, found: Answer) -> float | None:
    """How much the route MVA's flow correction moves its IOPS, for its closed deterministic answers; else None."""
    if found.solver != "route-mva" or not ctx.deterministic:
        return None
    return flow_correction_share(ctx.arrays, ctx.network.queue_depth, ctx.baseline.throughput_per_us,
                                 ctx.route_features)


def _start_pattern(ctx: Context, found: Answer) -> StartPattern | None:
    """The start's long-held pattern of the answer's chain, its figures from a finer grid where that fits."""
    chain = found.chain
    if ctx.effort == "full" and start_pattern(chain, found.throughput_per_us) is not None:
        finer = attempt_chain(ctx.network, found.zero_load_us, steps=START_PATTERN_GRID_STEPS).solution
        chain = finer if finer is not None else chain
    return start_pattern(chain, found.throughput_per_us)


def _caveats(ctx: Context, found: Answer, bounds: Bounds, util: np.ndarray, iops: float,
             start: StartPattern | None, flow_share: float | None) -> tuple[str, ...]:
    """The answer's caveats (``caveats.py``): where its solver is known to miss the DES, and its patterns."""
    network, sol = ctx.network, found.route_solution
    buffer_wait = getattr(sol, "buffer_wait_us", 0.0)
    closed = network.queue_depth is not None
    out = trust_caveats(network, buffer_wait / sol.response_us if buffer_wait > 0.0 else 0.0,
                        scheduled=found.solver in SCHEDULED,
                        bottleneck=(bounds.bottleneck, float(util[bounds.bottleneck_index])),
                        chain_outgrown=ctx.trace.chain_outgrown, chain_unsolved=ctx.trace.chain_unsolved,
                        chain_skipped=closed and chain_skipped(ctx, ctx.trace.primary),
                        depth_over_knee=bounds.population_per_us / bounds.capacity_per_us if closed else None,
                        flow_share=flow_share)
    if found.chain is not None:
        out += pattern_caveats(found.chain)
    return out + start_pattern_caveats(start, iops, network.queue_depth)
