"""The solvers that follow deterministic requests one by one: the periodic schedule, the Markov chain of the
requests' draws and the convoy estimate.

* ``periodic-schedule`` (``periodic.py``): where every request walks one deterministic route and its schedule does
  not depend on the addresses, the network runs into a periodic orbit; its period gives X and the latencies exactly.
  Where the schedule's start had transactions wait at a collapsed address-routed copy, the start depends on the
  addresses: the chain is run with its draw-free orbits kept, and the schedule answers only where the requests
  settle in its orbit (to ``ORBIT_MATCH_TOLERANCE``); elsewhere the chain of where they settle answers.
* ``markov-chain`` (``schedule_chain.py``): deterministic service at queue depth 1 to ``CHAIN_MAX_QUEUE_DEPTH``:
  the DES's event recursion between the addresses' draws, a Markov chain exact up to a lumping grid, where it fits
  its state budget. At the ``fast`` effort only its first states at queue depth 1-2
  (``schedule_chain.FAST_GRID_STEPS``).
* ``convoy-schedule`` (``periodic.py``): refines the route MVA for one deterministic route of one-transaction
  requests: the schedule at the cores and accelerators as a delay in front of the route MVA of the dies and
  channels, taken where it gives more throughput than the route MVA (the requests fall into step at a busy core).

Each of them is held to the asymptotic bounds, and the population bound takes one request's own latency alone
(:func:`latency_alone_us`) where the route MVA's X(1) is only an estimate of it.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ssdco.model.queueing.periodic import convoy_estimate, periodic_schedule
from ssdco.model.queueing.schedule_chain import (
    FAST_CHAIN_MAX_QUEUE_DEPTH,
    FAST_GRID_STEPS,
    ChainSolution,
    attempt_chain,
    chain_applies,
)
from ssdco.model.solvers.base import FITS, Answer, Context, Fit
from ssdco.network.build import Network

P99 = 0.99
# The chain's queue depths: above them it rarely fits its state budget, and a chain that does not fit costs seconds
# of exploring (``schedule_chain.HIGH_GRID_STEPS`` sets the budget at 6-8).
CHAIN_MAX_QUEUE_DEPTH = 8
# The schedule answers where the chain of where the requests settle has its orbit's throughput to this relative
# tolerance (the chain measures an orbit over a finite window).
ORBIT_MATCH_TOLERANCE = 0.005


def latency_alone_us(network: Network, estimate_us: float) -> float | None:
    """Mean latency of one request alone (us), exactly, for deterministic service: its periodic schedule, else
    the Markov chain of one request's draws (``estimate_us``: the route MVA's, which sets the chain's grid);
    None where neither applies."""
    one = replace(network, queue_depth=1)
    schedule = periodic_schedule(one)
    if schedule is not None:
        return schedule.response_us
    chain = attempt_chain(one, estimate_us).solution
    return None if chain is None else chain.response_us


def chain_runs(ctx: Context) -> bool:
    """Whether the Markov chain runs at all at this effort (the ``fast`` effort: its first states only)."""
    return ctx.effort in ("full", "fast") and ctx.allows(MarkovChain.name)


def chain_stations(network: Network, loads, chain: ChainSolution) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per ``loads`` station, as the other solvers report them: mean jobs per copy, residence per request at one
    copy (us: the station's demand plus its waiting jobs over X, Little's law) and the fraction of visits that
    queue, from the chain's totals over the copies. The wait comes from the chain's waiting jobs (jobs less busy
    servers), which on a lumped chain stay consistent with P(wait) where X x demand and busy servers differ by
    the lumping."""
    index = {s.name: k for k, s in enumerate(network.stations)}
    at = np.array([index[ld.name] for ld in loads], dtype=np.int64)
    copies = np.array([ld.copies for ld in loads], dtype=float)
    demand = np.array([ld.demand_us for ld in loads])
    mean_jobs = chain.mean_jobs[at] / copies
    waiting = np.maximum(chain.mean_jobs[at] - chain.busy_servers[at], 0.0) / copies
    return mean_jobs, demand + waiting / chain.throughput_per_us, chain.p_wait[at]


def _alone_or(ctx: Context, fallback: float | None) -> float | None:
    alone = latency_alone_us(ctx.network, ctx.zero_load_us)
    return fallback if alone is None else alone


class PeriodicSchedule:
    name = "periodic-schedule"
    refines: tuple[str, ...] = ()

    def fits(self, ctx: Context, prior: Answer | None = None) -> Fit:
        if not ctx.closed:
            return Fit(False, "open workload")
        if ctx.effort == "exact":
            return Fit(False, "the exact effort asks for the product form")
        return FITS

    def solve(self, ctx: Context, prior: Answer | None = None) -> Answer | None:
        """The schedule's orbit (module docstring), or None where there is none or the requests settle elsewhere."""
        network, base = ctx.network, ctx.baseline
        schedule = periodic_schedule(network, base.throughput_per_us)
        if schedule is None:
            ctx.trace.declined[self.name] = "no periodic schedule independent of the addresses"
            return None
        settled = None
        if schedule.start_routed_waits > 0 and chain_runs(ctx) and network.queue_depth <= CHAIN_MAX_QUEUE_DEPTH:
            steps = None if ctx.effort == "full" else FAST_GRID_STEPS
            settled = attempt_chain(network, ctx.zero_load_us, steps=steps, orbits=True).solution
            if settled is not None and abs(settled.throughput_per_us / schedule.throughput_per_us - 1.0) \
                    > ORBIT_MATCH_TOLERANCE:
                ctx.trace.settled = settled
                ctx.trace.declined[self.name] = "the requests settle in another pattern than the schedule's orbit"
                return None
        return Answer(self.name, schedule.throughput_per_us, schedule.response_us, base.residence_us, base.p_wait,
                      schedule.mean_jobs, exact=True, p99_us=schedule.latency_quantile_us(P99), held_to_bounds=True,
                      zero_load_us=_alone_or(ctx, ctx.zero_load_us), route_solution=base, chain=settled,
                      chain_orbits=True, correlated=ctx.correlated)


class MarkovChain:
    name = "markov-chain"
    refines: tuple[str, ...] = ()

    def fits(self, ctx: Context, prior: Answer | None = None) -> Fit:
        if ctx.trace.settled is not None:
            return FITS  # the chain of where the requests settle, run for the periodic schedule
        if not ctx.closed or not 1 <= ctx.network.queue_depth <= CHAIN_MAX_QUEUE_DEPTH:
            return Fit(False, f"not a closed workload at queue depth 1-{CHAIN_MAX_QUEUE_DEPTH}")
        if not chain_runs(ctx):
            return Fit(False, f"not at the {ctx.effort} effort")
        if ctx.effort == "fast" and ctx.network.queue_depth > FAST_CHAIN_MAX_QUEUE_DEPTH:
            return Fit(False, f"the fast effort tries it at queue depth 1-{FAST_CHAIN_MAX_QUEUE_DEPTH} only")
        return FITS

    def solve(self, ctx: Context, prior: Answer | None = None) -> Answer | None:
        """The chain's stationary solution on the finest grid that fits its budget, or None (then the trace says
        whether it outgrew the budget)."""
        network = ctx.network
        chain, orbits = ctx.trace.settled, True
        if chain is None:
            orbits = False
            if ctx.effort == "full":
                attempt = attempt_chain(network, ctx.zero_load_us)
                chain = attempt.solution
                ctx.trace.chain_outgrown, ctx.trace.chain_unsolved = attempt.outgrown, attempt.unsolved
            else:
                chain = attempt_chain(network, ctx.zero_load_us, steps=FAST_GRID_STEPS).solution
        if chain is None:
            ctx.trace.declined[self.name] = ("outgrew its state budget" if ctx.trace.chain_outgrown
                                             else "does not apply or draws nothing that matters")
            return None
        mean_jobs, residence, p_wait = chain_stations(network, ctx.loads, chain)
        return Answer(self.name, chain.throughput_per_us, chain.response_us, residence, p_wait, mean_jobs,
                      held_to_bounds=True, zero_load_us=_alone_or(ctx, ctx.zero_load_us), route_solution=ctx.baseline,
                      chain=chain, chain_orbits=orbits, correlated=ctx.correlated)


def chain_skipped(ctx: Context, primary: str) -> bool:
    """Whether the chain applies but the effort (``fast``, ``screen``) did not run it to its budget, so that the
    route MVA (``primary``) answers in its place: the caveat says so."""
    return (ctx.effort in ("fast", "screen") and primary == "route-mva" and ctx.allows(MarkovChain.name)
            and 1 <= ctx.network.queue_depth <= CHAIN_MAX_QUEUE_DEPTH and chain_applies(ctx.network))


class ConvoySchedule:
    name = "convoy-schedule"
    refines: tuple[str, ...] = ("route-mva",)

    def fits(self, ctx: Context, prior: Answer | None = None) -> Fit:
        if not ctx.closed or ctx.effort == "exact":
            return Fit(False, "closed workloads, not at the exact effort")
        return FITS

    def solve(self, ctx: Context, prior: Answer | None = None) -> Answer | None:
        """The convoy estimate, where it gives more throughput than the route MVA's ``prior``; else None."""
        convoy = convoy_estimate(ctx.network)
        if convoy is None or not convoy.throughput_per_us > prior.throughput_per_us:
            ctx.trace.declined[self.name] = "no convoy, or no more throughput than the route MVA"
            return None
        return Answer(self.name, convoy.throughput_per_us, convoy.response_us, convoy.residence_us, convoy.p_wait,
                      convoy.mean_jobs, held_to_bounds=True, zero_load_us=_alone_or(ctx, prior.zero_load_us),
                      route_solution=prior.route_solution, correlated=ctx.correlated)
