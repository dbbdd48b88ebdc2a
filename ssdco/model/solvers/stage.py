"""The ``platoon-stage`` solver: the core groups, dies and channels of deterministic one-size requests run event by
event (``platoon_stage.py``), the rest of the route as fixed delays taken from the answer it refines.

It refines the route MVA where the requests' phase relations decide the throughput and mean values do not see
them (:func:`stage_answers`). The stage declines what it does not model (several request sizes, random FTL events,
background work).
"""

from __future__ import annotations

from ssdco.model.queueing.platoon_stage import EVENT_KINDS, platoon_stage
from ssdco.model.solvers.base import FITS, Answer, Context, Fit
from ssdco.network.build import Network

# The chain-outgrown rule of :func:`stage_answers` holds at queue depth 2 to this depth (where it was measured).
CHAIN_OUTGROWN_MAX_QUEUE_DEPTH = 5
# Above the chain's depths and up to this one the stage answers wherever the route MVA would with a bottleneck it
# runs event by event; beyond it the two agree on the accuracy campaign and the route MVA costs about 1 ms where
# the stage takes tens to hundreds (docs/model.md, "platoon-stage").
STAGE_MAX_QUEUE_DEPTH = 24
# The stations the stage runs event by event; the PCIe link and the accelerators are fixed delays in it, with no
# queue of their own, so a bottleneck there is the route MVA's to answer.
STAGE_EVENT_KINDS = EVENT_KINDS


def serves_several_steps(network: Network, group: str) -> bool:
    """Whether core group ``group`` serves two or more steps of ``network``'s route: first come first served
    between the visits, the requests that reach it together leave it together (a platoon)."""
    return sum(step.station == group for step in network.steps) >= 2


def stage_answers(network: Network, bottleneck: str, chain_outgrown: bool = False) -> bool:
    """Whether the platoon stage answers in place of the route MVA, whose ``bottleneck`` this is: where the Markov
    chain of the draws outgrew its budget at queue depth 2-5 (``chain_outgrown``: the few requests keep phase
    relations), at queue depth 6 to ``STAGE_MAX_QUEUE_DEPTH`` wherever the stage runs the bottleneck event by event
    (a core group, the dies or the channels: bursts from the programs, fork-joins and a deterministic group's queue
    near capacity), and at any depth where the bottleneck is a core group serving several steps
    (:func:`serves_several_steps`) or a core group while reads and programs mix (the requests held behind programs
    reach it in bursts)."""
    if chain_outgrown and network.queue_depth <= CHAIN_OUTGROWN_MAX_QUEUE_DEPTH:
        return True
    kinds = {st.name: st.kind for st in network.stations}
    if (CHAIN_OUTGROWN_MAX_QUEUE_DEPTH < network.queue_depth <= STAGE_MAX_QUEUE_DEPTH
            and kinds.get(bottleneck) in STAGE_EVENT_KINDS):
        return True
    if bottleneck.split(":")[0] != "cores":
        return False
    return 0.0 < network.read_fraction < 1.0 or serves_several_steps(network, bottleneck)


class PlatoonStage:
    name = "platoon-stage"
    refines: tuple[str, ...] = ("route-mva",)

    def fits(self, ctx: Context, prior: Answer | None = None) -> Fit:
        if not ctx.closed or ctx.effort not in ("full", "fast"):
            return Fit(False, "closed workloads at the full or fast effort")
        if ctx.network.holds:
            return Fit(False, "a server held through a later step (the platoon stage's stations do not hold one)")
        if ctx.network.behind_in_effect:
            return Fit(False, "a station serving some visits ahead of others, reads first or data out first (the "
                              "platoon stage's queues are first come first served)")
        # a striped stream is outside the chain's domain, which at queue depth 2-5 is where the chain outgrew
        without_chain = ctx.trace.chain_outgrown or bool(ctx.network.striped_steps)
        if ctx.deterministic and stage_answers(ctx.network, ctx.bottleneck, without_chain):
            return FITS
        return Fit(False, "outside the stage's queue depths and bottlenecks")

    def solve(self, ctx: Context, prior: Answer | None = None) -> Answer | None:
        """The stage's seeded estimate behind ``prior``'s residences, or None where the stage declines."""
        stage = platoon_stage(ctx.network, ctx.loads, prior.residence_us)
        if stage is None:
            ctx.trace.declined[self.name] = "several request sizes, random FTL events or background work"
            return None
        x = stage.throughput_per_us
        return Answer(self.name, x, ctx.network.queue_depth / x, stage.residence_us, prior.p_wait,
                      x * stage.residence_us, p99_us=stage.p99_us, held_to_bounds=True,
                      at_capacity=ctx.bottleneck in stage.saturated, zero_load_us=prior.zero_load_us,
                      route_solution=prior.route_solution, correlated=ctx.correlated, seeded=True)
