"""The solver that follows deterministic requests one by one: the Markov chain of the requests' draws.

* ``markov-chain`` (``schedule_chain.py``): deterministic service at queue depth 1 to ``CHAIN_MAX_QUEUE_DEPTH``:
  the DES's event recursion between the addresses' draws, a Markov chain exact up to a lumping grid, where it fits
  its state budget. At the ``fast`` effort only its first states at queue depth 1-2
  (``schedule_chain.FAST_GRID_STEPS``).

It is held to the asymptotic bounds, and the population bound takes one request's own latency alone
(:func:`latency_alone_us`: its collapsed schedule, ``collapsed.py``) where the route MVA's X(1) is only an estimate
of it.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ssdco.model.queueing.collapsed import alone_us
from ssdco.model.queueing.schedule_chain import (
    FAST_CHAIN_MAX_QUEUE_DEPTH,
    FAST_GRID_STEPS,
    ChainSolution,
    attempt_chain,
    chain_applies,
)
from ssdco.model.solvers.base import FITS, Answer, Context, Fit
from ssdco.network.build import Network

# The chain's queue depths: above them it rarely fits its state budget, and a chain that does not fit costs seconds
# of exploring (``schedule_chain.HIGH_GRID_STEPS`` sets the budget at 6-8).
CHAIN_MAX_QUEUE_DEPTH = 8


def latency_alone_us(network: Network, estimate_us: float) -> float | None:
    """Mean latency of one request alone (us), exactly, for deterministic service: its collapsed schedule, else
    the Markov chain of one request's draws (``estimate_us``: the route MVA's, which sets the chain's grid);
    None where neither applies."""
    one = replace(network, queue_depth=1)
    alone = alone_us(one)
    if alone is not None:
        return alone
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


class MarkovChain:
    name = "markov-chain"
    refines: tuple[str, ...] = ()

    def fits(self, ctx: Context, prior: Answer | None = None) -> Fit:
        if not ctx.closed or not 1 <= ctx.network.queue_depth <= CHAIN_MAX_QUEUE_DEPTH:
            return Fit(False, f"not a closed workload at queue depth 1-{CHAIN_MAX_QUEUE_DEPTH}")
        if ctx.network.holds:
            return Fit(False, "a server held through a later step (the chain's states do not hold one)")
        if ctx.network.striped_steps:
            return Fit(False, "a sequential stream striped over the dies (the chain draws each die at random)")
        if ctx.network.behind_in_effect:
            return Fit(False, "a station serving some visits ahead of others, reads first or data out first (the "
                              "chain's queues are first come first served)")
        if not chain_runs(ctx):
            return Fit(False, f"not at the {ctx.effort} effort")
        if ctx.effort == "fast" and ctx.network.queue_depth > FAST_CHAIN_MAX_QUEUE_DEPTH:
            return Fit(False, f"the fast effort tries it at queue depth 1-{FAST_CHAIN_MAX_QUEUE_DEPTH} only")
        return FITS

    def solve(self, ctx: Context, prior: Answer | None = None) -> Answer | None:
        """The chain's stationary solution on the finest grid that fits its budget, or None (then the trace says
        whether it outgrew the budget)."""
        network = ctx.network
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
                      chain=chain, correlated=ctx.correlated)


def chain_skipped(ctx: Context, primary: str) -> bool:
    """Whether the chain applies but the effort (``fast``, ``screen``) did not run it to its budget, so that the
    route MVA (``primary``) answers in its place: the caveat says so."""
    return (ctx.effort in ("fast", "screen") and primary == "route-mva" and ctx.allows(MarkovChain.name)
            and 1 <= ctx.network.queue_depth <= CHAIN_MAX_QUEUE_DEPTH and chain_applies(ctx.network))
