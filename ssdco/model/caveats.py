"""Caveats: where an analytic answer is known to be off the DES by more than its tolerances (3 % IOPS, 10 % mean
latency), each as a sentence for the user, and the long-held patterns of deterministic networks.

Every threshold here comes from the model-vs-DES campaigns (``benchmarks/accuracy.py``; docs/accuracy.md has the
figures each sentence quotes) and is documented beside its constant.
"""

from __future__ import annotations

from ssdco.model.queueing.route_mva import ALL_FEATURES, FLOW, RouteArrays, solve_route
from ssdco.model.queueing.schedule_chain import (
    FAST_CHAIN_MAX_QUEUE_DEPTH,
    FAST_GRID_STEPS,
    LU_MAX_STATES,
    PATTERN_WEIGHT_DIGITS,
    ChainSolution,
)
from ssdco.model.result import StartPattern
from ssdco.network.build import Network

US_PER_S = 1e6

# Long-run patterns of deterministic networks (schedule_chain.ChainSolution.patterns): a pattern the start settles
# in at least PATTERN_SHARE of the time is named when its IOPS differ from the answer's by more than PATTERN_SPREAD.
PATTERN_SHARE = 0.01
PATTERN_SPREAD = 0.01
# A start pattern is reported where it lasts at least this many requests on average: about the warm-up the DES
# discards in its default runs, so that a shorter one does not reach the measured window.
START_PATTERN_MIN_REQUESTS = 10_000
# Where the answer's chain has a start pattern, its figures come from a chain on this finer grid (a fraction of one
# request's latency alone, most states), where it fits: lumping merges states the start pattern keeps apart and opens
# ways out of it that the network does not have.
START_PATTERN_GRID_STEPS = ((1e-3, 400_000),)

# The write buffer's caveats: a buffer of at most this many slots, and a closed write workload held by the buffer at
# a queue depth up to LOW_QUEUE_DEPTH_AT_BUFFER_BOUND with at least BUFFER_WAIT_SHARE of the latency spent waiting
# for it (below that share the buffer barely holds the requests).
SMALL_WRITE_BUFFER_SLOTS = 256
LOW_QUEUE_DEPTH_AT_BUFFER_BOUND = 8
BUFFER_WAIT_SHARE = 0.01
# The route MVA at queue depth 2-5 for closed deterministic work: at risk with requests of several transactions, or a
# core group or channel at least this busy (the few requests fall into step at the busy station).
BUSY_BOTTLENECK_UTILIZATION = 0.7
# The chain-outgrown caveat is given at queue depth 2 to this depth, where it was measured.
CHAIN_OUTGROWN_CAVEAT_MAX_QUEUE_DEPTH = 5
# Reads and programs mixing behind a busy core group (route MVA, closed, deterministic): a group this busy (lower
# bound inclusive, upper exclusive) is at the knee, short of saturation; busier, the model has it at capacity, and it
# agrees with the DES only past MIXED_KNEE_SATURATED_DEPTH_OVER_KNEE knees (N / N*, N* = capacity x one request's
# latency alone): below that the DES's cores still idle in bursts.
MIXED_KNEE_UTILIZATION = (0.70, 0.97)
MIXED_KNEE_SATURATED_DEPTH_OVER_KNEE = 3.0
# The route MVA's flow correction (route_mva.py, 3.) moves X(N) by this share or more: the answer then rests on a
# renewal approximation of the flow between deterministic stations, where misses are far more frequent. A caveat,
# not a correction: those misses are high and low alike.
FLOW_CORRECTION_CAVEAT_SHARE = 0.05
# The accuracy campaign's requests are at most 16 KiB, four transactions of 4 KiB. Write-through drives (no write
# buffer) with larger requests, answered by the route MVA, are off the DES by up to WRITE_THROUGH_OFF_PERCENT either
# way (benchmarks/semantics.py write-through: 32-128 KiB requests on 60 random designs, 18 within the tolerances).
CAMPAIGN_MAX_TRANSACTIONS = 4
WRITE_THROUGH_OFF_PERCENT = 12


def pattern_caveats(chain: ChainSolution) -> tuple[str, ...]:
    """Where the deterministic network can settle in long-run patterns of different throughput depending on its
    first draws (``ChainSolution.patterns``): a sentence naming them, as the DES will show one of them. Where the
    answer's pattern ties with others for the most likely, it is the slowest of them (``schedule_chain._solve``),
    and the sentence says so."""
    x = chain.throughput_per_us
    others = [(w, y) for w, y in chain.patterns[1:] if w >= PATTERN_SHARE and abs(y / x - 1.0) > PATTERN_SPREAD]
    if not others:
        return ()
    listed = ", ".join(f"{y * US_PER_S:,.0f} IOPS with probability {w:.1%}" for w, y in others)
    top = chain.patterns[0][0]
    tied = any(round(w, PATTERN_WEIGHT_DIGITS) == round(top, PATTERN_WEIGHT_DIGITS) for w, _ in chain.patterns[1:])
    which = (f"the slowest of the most likely ones ({top:.1%} each)" if tied else f"the most likely one ({top:.1%})")
    return (f"with deterministic service the requests settle for good into one of several patterns, depending on "
            f"their first draws: the answer is {which}; the others are {listed} (a DES run shows one of them)",)


def start_pattern(chain: ChainSolution | None, x_per_us: float) -> StartPattern | None:
    """The start's long-held pattern of ``chain`` (:class:`StartPattern`), where the requests complete at least
    ``START_PATTERN_MIN_REQUESTS`` on average before they settle and its throughput differs from the answer's,
    ``x_per_us``, by more than ``PATTERN_SPREAD``; else None."""
    if chain is None or chain.start_throughput_per_us is None or chain.settle_requests < START_PATTERN_MIN_REQUESTS:
        return None
    x_start = chain.start_throughput_per_us
    if abs(x_start / x_per_us - 1.0) <= PATTERN_SPREAD:
        return None
    return StartPattern(iops=x_start * US_PER_S, settle_requests=chain.settle_requests,
                        settle_s=chain.settle_us / US_PER_S)


def start_pattern_caveats(start: StartPattern | None, iops: float, queue_depth: int | None) -> tuple[str, ...]:
    """A sentence on the start's long-held pattern (:func:`start_pattern`), where there is one."""
    if start is None:
        return ()
    return (f"from a standing start (all {queue_depth} requests issued at once) the requests hold a pattern of about "
            f"{start.iops:,.0f} IOPS ({start.iops / iops - 1.0:+.1%}) for about {start.settle_requests:,.0f} requests "
            f"({start.settle_s:.3g} s) on average before they settle into the long-run pattern this answer gives: a "
            f"DES run or a measurement shorter than that shows the start pattern; ssdco validate says where it does",)


def flow_correction_share(arrays: RouteArrays, queue_depth: int, x_per_us: float,
                          features: int = ALL_FEATURES) -> float:
    """X(N) of the route MVA (``x_per_us``, requests per us, solved with the corrections ``features``) over its
    X(N) without the flow correction (route_mva.py, 3.; Poisson arrivals at every station), minus 1: how much that
    correction moves the answer (dimensionless)."""
    without = solve_route(arrays, queue_depth, features=features & ~FLOW).throughput_per_us
    return x_per_us / without - 1.0


def route_mva_at_risk(network: Network, bottleneck: tuple[str, float] | None) -> bool:
    """Whether the route MVA, answering for closed deterministic work at queue depth 2-5 whose Markov chain
    outgrew its state budget (or was skipped), is flagged as at risk: requests of several transactions, or the
    bottleneck (``bottleneck``: its name and utilisation) a core group or channel at least
    ``BUSY_BOTTLENECK_UTILIZATION`` busy. Never at queue depth 1, where the chain is one request's own draws."""
    if network.queue_depth is None or network.queue_depth < 2:
        return False
    several = max(network.transactions) > 1
    busy = (bottleneck is not None and bottleneck[0].split(":")[0] in ("cores", "channel")
            and bottleneck[1] >= BUSY_BOTTLENECK_UTILIZATION)
    return several or busy


def trust_caveats(network: Network, buffer_wait_share: float, scheduled: bool = False,
                  bottleneck: tuple[str, float] | None = None, chain_outgrown: bool = False,
                  depth_over_knee: float | None = None, flow_share: float | None = None,
                  chain_skipped: bool = False, chain_unsolved: bool = False) -> tuple[str, ...]:
    """The sentences for the configurations where the analytic answer is known to miss the DES (docs/model.md,
    "Caveats"): a write buffer of few slots, or closed writes held by the buffer at a low queue depth; reads and
    programs mixing behind a core group at the knee, or at capacity under ``MIXED_KNEE_SATURATED_DEPTH_OVER_KNEE``
    knees (``depth_over_knee``: N / N*; None: not checked); at queue depth 2-5 the route MVA answering where the
    Markov chain outgrew its budget, was not solved or was skipped (``chain_outgrown``, ``chain_unsolved``,
    ``chain_skipped``) and :func:`route_mva_at_risk` holds, else at queue depth 2-4 the route MVA with several
    transactions at QD 2 or a busy core group or channel; and the route MVA's flow correction moving its answer by
    ``FLOW_CORRECTION_CAVEAT_SHARE`` or more (``flow_share``; None: not checked). ``scheduled``: a solver that
    follows the requests one by one answered (no route-MVA caveat then); ``bottleneck``: its name and utilisation;
    ``buffer_wait_share``: the share of the latency spent waiting for the write buffer. Empty where none applies."""
    out = (_buffer_caveats(network, buffer_wait_share) + _striped_caveats(network) + _reads_first_caveats(network)
           + _step_order_caveats(network))
    deterministic = all(step.scv == 0.0 for step in network.steps)
    if scheduled or network.queue_depth is None:
        return out
    if deterministic:
        out += _mixed_knee_caveats(network, bottleneck, depth_over_knee)
    out += _low_queue_depth_caveats(network, bottleneck, chain_outgrown, chain_skipped, chain_unsolved, deterministic)
    out += _write_through_caveats(network)
    if deterministic and flow_share is not None and abs(flow_share) >= FLOW_CORRECTION_CAVEAT_SHARE:
        out += (f"the regularity of the flow between deterministic stations moves this answer's IOPS by "
                f"{flow_share * 100:+.1f} % (against Poisson arrivals at every station): where it moves them by "
                f"{FLOW_CORRECTION_CAVEAT_SHARE * 100:.0f} % or more, the model can be off the DES by more than its "
                "tolerances, high or low (the model takes each station's arrivals as a renewal stream; the DES's "
                "requests keep their spacing, or arrive in bursts, over longer stretches)",)
    return out


def _striped_caveats(network: Network) -> tuple[str, ...]:
    """The sentence for a sequential stream striped over consecutive dies (``nand.sequential_allocation``): the
    route MVA takes the share of the others' work a transaction meets at its die from where the stream's requests
    in flight sit (``route_mva.stripe_others_share``) but not when they get there; ``benchmarks/semantics.py striped``
    measures it on random designs (most misses where reads and programs mix, the model low)."""
    if not network.striped_steps:
        return ()
    return ("a sequential stream striped over consecutive dies: the model takes where the stream's requests in "
            "flight sit on the dies, not when they get there; where reads and programs mix it can be off the DES "
            "by more than its tolerances, low (benchmarks/semantics.py striped measures it)",)


def _reads_first_caveats(network: Network) -> tuple[str, ...]:
    """The sentence for dies serving reads first (``nand.die_scheduling``) where the order matters
    (``Network.reads_first_in_effect``): the route MVA puts the write buffer's background work behind the reads
    and splits the foreground's wait as non-preemptive priority does, in mean values;
    ``benchmarks/semantics.py reads-first`` measures it on random designs (misses both ways: high where programs
    from the write buffer meet many reads, low where foreground writes queue at busy dies). Where the write buffer's
    flushes meet a first-come-first-served channel (no step queues behind there), a second sentence names the
    DES's cycle of bursts and stalls (docs/model.md, "Reads first") and the channel order that avoids it."""
    if not network.reads_first_in_effect:
        return ()
    out = ("dies serve reads ahead of programs: the model puts the programs behind the reads in mean values; at "
           "busy dies it can be off the DES by more than its tolerances, either way (benchmarks/semantics.py "
           "reads-first measures it)",)
    flushes = any(b.demand_us > 0.0 for b in network.background_loads())
    if flushes and not any(s.behind for s in network.steps if s.station == "channel"):
        out += ("the dies serve reads first but the channel takes data first come first served: with a large write "
                "buffer at a high queue depth the DES can cycle between bursts and stalls (the reads' data wait on "
                "the channel behind the flushes' transfers while the dies, free of reads, flush at full rate), far "
                "below the model (+25 % on a 64 MiB buffer at queue depth 128); nand.channel_scheduling = "
                "\"data_out_first\", as MQSim's channel, avoids it",)
    if any(st.suspends for st in network.stations):
        out += ("reads suspend programs and erases: the model charges a read the suspension time where it finds "
                "suspended work in service and slows the write buffer's flushes by the reads' share of the dies, "
                "in mean values; at busy dies it can be off the DES by up to 10 % (benchmarks/semantics.py suspend "
                "measures it)",)
    return out


def _step_order_caveats(network: Network) -> tuple[str, ...]:
    """The sentence for a station serving some visits behind the others (``Step.behind``: a channel carrying the
    reads' data-out ahead of commands and programs' data, ``nand.channel_scheduling = "data_out_first"``): the
    mean-value solvers take the station first come first served. Its effect in the DES comes from convoys: a held
    die waits for its command behind a burst of data-outs, and dies with deterministic array times then finish in
    bursts (docs/mqsim.md measures the model against the DES on MQSim's drives)."""
    if not network.step_order_in_effect:
        return ()
    return ("the channel carries reads' data ahead of commands and programs' data: the model takes it first come "
            "first served, so at busy dies, where the DES's held dies fall into convoys behind the data-outs, the "
            "model's IOPS can be high by more than its tolerances (docs/mqsim.md measures it)",)


def _buffer_caveats(network: Network, buffer_wait_share: float) -> tuple[str, ...]:
    slots = network.background_slots
    writes = network.read_fraction < 1.0
    if writes and 0 < slots <= SMALL_WRITE_BUFFER_SLOTS:
        return (f"the write buffer holds only {slots} write transactions: with so few the model can be off the DES "
                "by tens of percent either way (its chain of the buffer's slots takes the flushes as exponential, "
                "where at low queue depth the DES's slots fill and drain together)",)
    if (writes and slots > 0 and network.queue_depth is not None
            and network.queue_depth <= LOW_QUEUE_DEPTH_AT_BUFFER_BOUND and buffer_wait_share > BUFFER_WAIT_SHARE):
        return (f"IOPS are held by the write buffer at queue depth {network.queue_depth}: there the DES's "
                "writes that find the buffer full do their flush themselves and its throughput oscillates, and the "
                "model's IOPS run high",)
    return ()


def _mixed_knee_caveats(network: Network, bottleneck: tuple[str, float] | None,
                        depth_over_knee: float | None) -> tuple[str, ...]:
    if not (0.0 < network.read_fraction < 1.0 and bottleneck is not None and bottleneck[0].split(":")[0] == "cores"):
        return ()
    lo, hi = MIXED_KNEE_UTILIZATION
    if lo <= bottleneck[1] < hi:
        return (f"reads and programs mix and the bottleneck ({bottleneck[0]}) is {bottleneck[1] * 100:.0f} % busy, "
                f"short of saturation: with a core group {lo * 100:.0f}-{hi * 100:.0f} % busy the model can be off the "
                "DES by more than its tolerances, its IOPS mostly low (the requests held behind programs at the dies "
                "reach the core in bursts that a mean-value model does not see)",)
    if bottleneck[1] >= hi and depth_over_knee is not None and depth_over_knee < MIXED_KNEE_SATURATED_DEPTH_OVER_KNEE:
        return (f"reads and programs mix and the model has the bottleneck ({bottleneck[0]}) at capacity at "
                f"queue depth {network.queue_depth}, {depth_over_knee:.1f} times the knee (capacity times one "
                f"request's latency alone): under {MIXED_KNEE_SATURATED_DEPTH_OVER_KNEE:.0f} knees the DES's cores "
                "can still idle while the requests are held behind programs at the dies, above all with requests of "
                "several transactions",)
    return ()


def _write_through_caveats(network: Network) -> tuple[str, ...]:
    """The sentence for a write-through drive (no write buffer, some writes) whose requests have more transactions
    than the accuracy campaign's (``CAMPAIGN_MAX_TRANSACTIONS``), answered by the route MVA (the caller's check)."""
    if (network.read_fraction >= 1.0 or network.background_slots > 0
            or max(network.transactions) <= CAMPAIGN_MAX_TRANSACTIONS):
        return ()
    return (f"a write-through drive with requests of more than {CAMPAIGN_MAX_TRANSACTIONS} transactions (beyond the "
            f"sizes docs/accuracy.md measures): the route MVA can be off the DES by up to about "
            f"{WRITE_THROUGH_OFF_PERCENT} %, high or low (benchmarks/semantics.py write-through measures it)",)


def _low_queue_depth_caveats(network: Network, bottleneck: tuple[str, float] | None, chain_outgrown: bool,
                             chain_skipped: bool, chain_unsolved: bool, deterministic: bool) -> tuple[str, ...]:
    qd = network.queue_depth
    if (chain_outgrown or chain_skipped) and qd <= CHAIN_OUTGROWN_CAVEAT_MAX_QUEUE_DEPTH:
        if not route_mva_at_risk(network, bottleneck):  # never at QD 1
            return ()
        at_risk = (f"requests of several transactions or a core group or channel at least "
                   f"{BUSY_BOTTLENECK_UTILIZATION * 100:.0f} % busy")
        if chain_outgrown:
            why = (f"fit its state budget at queue depth {qd} but was not solved (a closed class of more than "
                   f"{LU_MAX_STATES:,} states on which the iterative solvers gave up)"
                   if chain_unsolved else f"outgrew its state budget at queue depth {qd}")
            return (f"the Markov chain of the requests' draws {why}, so the route MVA answers: there (closed, "
                    f"deterministic, queue depth 2-5, {at_risk}) it can be off the DES by more than its tolerances, "
                    "high or low (the DES's few requests keep phase relations, such as a convoy through a slow core, "
                    "that a mean-value model does not see)",)
        beyond = (f" (beyond its first {FAST_GRID_STEPS[-1][1]:,} states)" if qd <= FAST_CHAIN_MAX_QUEUE_DEPTH else "")
        return (f"the Markov chain of the requests' draws was skipped (--fast) at queue depth {qd}{beyond}, so the "
                f"route MVA answers: there (closed, deterministic, queue depth 2-5, {at_risk}) it can be off the DES "
                "by tens of percent, high or low (without --fast, whatif tries the chain, which can take seconds)",)
    if not deterministic or not 2 <= qd <= 4:
        return ()
    if qd == 2 and max(network.transactions) > 1:
        return ("queue depth 2 with requests of several transactions: the model can be off the DES by more than its "
                "tolerances, its IOPS low (the DES's two requests settle into taking turns at the busy station)",)
    if (bottleneck is not None and bottleneck[0].split(":")[0] in ("cores", "channel")
            and bottleneck[1] >= BUSY_BOTTLENECK_UTILIZATION):
        return (f"queue depth {qd} with the bottleneck ({bottleneck[0]}) {bottleneck[1] * 100:.0f} % busy: the model "
                "can be off the DES by more than its tolerances (the DES's few requests fall into step at the busy "
                "station)",)
    return ()
