"""The mean-value solvers: the route-level MVA (closed), the exact product form (closed, ``exact`` effort) and the
M/G/c approximations (open).

* ``route-mva`` (``route_mva.py``): residual-corrected approximate MVA along the request's route with the
  fork-join, re-entry and flow corrections; where the dies or channels are busy the stage of them is run event by
  event behind the rest of the route (``route_mva.stage_behind_rest``), and where a core group is the busiest
  station of one-transaction requests X is held to the idle bound (``idle_bound.py``). Always fits a closed
  workload: it is the fallback of every other closed solver.
* ``exact-convolution`` (``mva.py``): the exact exponential product-form solution (Buzen's convolution;
  Reiser and Lavenberg's MVA), background work charged to the request that caused it (write-through).
* ``open-mgc-allen-cunneen`` (``open.py``, ``open_runs.py``): M/G/c waits (Erlang C with the Allen-Cunneen
  variability correction) put together along the route (a request waits for its slowest transaction); at a core
  group visited in runs or by batches, the request's time there by work conservation.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ssdco.model.queueing.idle_bound import held_by_idle_bound
from ssdco.model.queueing.mva import solve_closed
from ssdco.model.queueing.open import solve_open
from ssdco.model.queueing.open_runs import run_times
from ssdco.model.queueing.route_mva import (
    IDLE_BOUND,
    residual_factors,
    route_latency,
    routed_arrival_gamma,
    stage_behind_rest,
)
from ssdco.model.solvers.base import FITS, Answer, Context, Fit

US_PER_S = 1e6


class RouteMva:
    name = "route-mva"
    refines: tuple[str, ...] = ()

    def fits(self, ctx: Context, prior: Answer | None = None) -> Fit:
        if not ctx.closed:
            return Fit(False, "open workload")
        if ctx.effort == "exact" and not (ctx.network.holds or ctx.network.behind_in_effect):
            return Fit(False, "the exact effort asks for the product form")
        return FITS

    def solve(self, ctx: Context, prior: Answer | None = None) -> Answer:
        """The route MVA's X(N) with its event-by-event corrections (module docstring)."""
        base = ctx.baseline
        if ctx.network.holds:  # the holders' residences without the release steps' time (held.py)
            base = replace(base, residence_us=base.residence_us - ctx.held_extra_us)
        sol = stage_behind_rest(ctx.network, ctx.arrays, base,
                                base.throughput_per_us * ctx.busy_demand_us / ctx.servers)
        if ctx.route_features & IDLE_BOUND:
            busiest = int(np.argmax(sol.throughput_per_us * ctx.busy_demand_us / ctx.servers))
            if ctx.loads[busiest].kind == "cores":
                sol, ctx.trace.idle_bound = held_by_idle_bound(ctx.network, ctx.arrays, sol, ctx.names[busiest],
                                                               ctx.route_features, ctx.held_extra_us)
        seeded = sol is not base  # the routed stage raised X (or the idle bound held it)
        return Answer(self.name, sol.throughput_per_us, sol.response_us, sol.residence_us, base.p_wait, sol.queue,
                      zero_load_us=ctx.zero_load_us, route_solution=sol, correlated=ctx.correlated, seeded=seeded)


class ExactConvolution:
    name = "exact-convolution"
    refines: tuple[str, ...] = ()

    def fits(self, ctx: Context, prior: Answer | None = None) -> Fit:
        if not ctx.closed:
            return Fit(False, "open workload")
        if ctx.effort != "exact":
            return Fit(False, "only at the exact effort")
        if ctx.network.holds:
            return Fit(False, "a server held through a later step is not product form")
        if ctx.network.behind_in_effect:
            return Fit(False, "a station serving some visits ahead of others (reads first, data out first) is not "
                              "product form")
        return FITS

    def solve(self, ctx: Context, prior: Answer | None = None) -> Answer:
        """Exact MVA of the product-form network with exponential service (no open background class: the
        background work is charged to the request that caused it, pessimistic with a write buffer)."""
        scv = np.array([ld.scv for ld in ctx.loads])
        sol = solve_closed(ctx.total_demand_us, ctx.servers, ctx.copies, scv, ctx.network.delay_us,
                           ctx.network.queue_depth, exact=True)
        name = self.name + ("-write-through" if np.any(ctx.background[0] > 0) else "")
        return Answer(name, sol.throughput_per_us, sol.response_us, sol.residence_us, sol.p_wait, sol.queue,
                      route_solution=sol)


class OpenMgc:
    name = "open-mgc-allen-cunneen"
    refines: tuple[str, ...] = ()

    def fits(self, ctx: Context, prior: Answer | None = None) -> Fit:
        return FITS if not ctx.closed else Fit(False, "closed workload")

    def solve(self, ctx: Context, prior: Answer | None = None) -> Answer:
        """M/G/c waits along the route at the arrival rate (module docstring); unstable where a station's
        utilisation reaches 1 (then the latency is infinite)."""
        network, loads, names = ctx.network, ctx.solver_loads, ctx.names
        x_per_us = network.arrival_iops / US_PER_S
        arrays = ctx.arrays
        visits = np.array([ld.visits for ld in loads])
        scv = np.array([ld.scv for ld in loads])
        demand, (bg_demand, bg_m2) = np.array([ld.demand_us for ld in loads]), ctx.background
        # where reads suspend part of the background work, they wait for the rest's residual only (route_mva 4.)
        suspends = np.array([network.station(name).suspends for name in names])
        bg_m2 = np.where(suspends, 2.0 * arrays.bg_demand_us * arrays.bg_residual_us, bg_m2)
        batch = np.array([network.batch_excess.get(ld.name, 0.0) for ld in loads])
        sol = solve_open(demand, visits, ctx.servers, ctx.copies, scv, network.delay_us, x_per_us, bg_demand, bg_m2,
                         batch, residual_factors(arrays, closed_loop=False),
                         [network.copy_batches.get(name) for name in names],
                         routed_arrival_gamma(arrays, x_per_us, demand + bg_demand), arrays.bg_behind,
                         arrays.bg_suspend_us2, arrays.fg_reads_first)
        residence = sol.residence_us
        zero = np.zeros(len(loads))
        mean_latency = float("inf")
        queue_residence = residence  # per copy and request, for the reported queues (Little's law)
        correlated: tuple[str, ...] = ()
        if sol.stable:
            has_visits = visits > 0
            per_visit = np.where(has_visits, residence, 0.0) / np.where(has_visits, visits, 1.0)
            wait = np.maximum(np.where(has_visits, per_visit - np.array([ld.service_us for ld in loads]), 0.0), 0.0)
            # a core group visited in runs or by batches: the request's time there by work conservation instead of
            # a wait at each visit, its queue from the jobs' waits (the p99 estimate keeps the per-visit wait)
            runs = run_times(network, loads, x_per_us)
            correlated = tuple(runs)
            queue_residence = residence.copy()
            for k, name in enumerate(names):
                if name in runs:
                    wait[k] = 0.0
                    queue_residence[k] = demand[k] + runs[name].job_wait_us
            mean_latency = (route_latency(arrays, wait, sol.p_wait, batch_waits=True)
                            + sum(r.excess_us for r in runs.values()))
        if ctx.network.holds:  # the holders' residences without the release steps' time (held.py)
            residence = residence - ctx.held_extra_us
        return Answer(self.name, x_per_us, mean_latency, residence, sol.p_wait, x_per_us * queue_residence,
                      stable=sol.stable, zero_load_us=route_latency(arrays, zero, zero), route_solution=sol,
                      correlated=correlated)
