"""Approximate MVA along the request's route: the closed-workload solver of ``ssdco whatif``.

**The solution.** For each population n = 1 .. N, X(n) is the largest throughput X (up to the capacity
bound) with X cycle_n(X) <= n, floored at X(n - 1), where cycle_n(X) is a request's mean cycle time when the
system runs at X: at each station an arrival sees the other n - 1 requests, estimated as the (n - 1)/n share of
the station's mean queue and busy servers (Schweitzer's approximation; P. Schweitzer, "Approximate analysis of
multiclass closed networks of queues", 1979; Y. Bard, "Some extensions to multiclass queueing network analysis",
1979), and with Q = X V (S + W) each station's wait is a closed-form local fixed point. Because no
state is carried from one population to the next, an extra server can only shorten cycle_n(X) at every X
(each term below is non-increasing in a station's servers at fixed X), so X(N) never falls: see "Monotone in
servers".

The station-level residual-corrected MVA (``mva.py``) misses three things the embedded DES shows on
controller networks with deterministic service; this solver walks the route step by step to add them.
Each correction's agreement with the DES, and what leaving it out costs, is in docs/accuracy.md and
docs/model.md; ``tests/validation/test_model_vs_des.py`` checks the whole.

1. **Fork-join.** A request of T transactions forks them through cache lookup .. channel and waits
   for the last one. Its block time is the flow-line makespan of T identical jobs,
   sum_j r_j + E[max_j (L_j - 1) S_j], where r_j is a stage's per-visit response, S_j its service and
   L_j the number of the request's own transactions one server there serves one after another:
   ceil(T/c) on a c-server station, ceil(max load / c) when T transactions pick among m copies at
   random (balls into bins, its distribution exact by generating functions; stages independent).
   Steps at one single-copy station (a core group running cache lookup, translate and dispatch; or
   cache lookup and dispatch with an accelerator's translate between them) form one stage whose
   transactions interleave FCFS: its spread and the delay of its first departure come from the
   deterministic schedule (:func:`own_serialisation_us`); max_j E[(L_j - 1) S_j] with each such step its
   own stage is 18 % short of the DES for four transactions at queue depth 1 behind two cores running three
   modules. Own transactions dispatched together queue together (FCFS), so they wait for the others once,
   not once each: the serialisation costs service only.
   The wait for other requests enters as the *maximum* over the copies the request occupies, not
   the mean. At a copy the wait is 0 with probability 1 - P and otherwise delta + an exponential of
   mean theta cv, with theta = W / P the mean wait of those who wait and delta = theta (1 - cv), so
   that the max of j such waits is theta (1 + cv (H_j - 1)) (for cv = 1, over T copies, the
   Varki-style fork-join bound theta sum_{k=1..T} (-1)^(k+1) C(T,k) P^k / k; Nelson & Tantawi, IEEE
   ToC 37(6), 1988, for the harmonic form). cv^2 = P + (1 - P) cv_R^2, with cv_R^2 that of the
   residual service (4 (1 + 2 scv) / (3 (1 + scv)) - 1 for gamma service, 1/3 for deterministic), is
   exactly the conditional wait of M/G/1 at P = rho (Takacs' second moment E[W^2] = 2 E[W]^2 +
   lam E[S^3] / (3 (1 - rho))); cv_R^2 is capped at 1 so that cv cannot rise as P falls.
   The makespan is max over copies d of (wait_d + own level_d x S), not the sum of the two maxima:
   a copy whose own load sits a level (ceil(load / c)) below the top delays the request only by the
   part of its wait beyond one service of the request's own operation there (probability
   P exp(-(S - delta) / (theta cv))). With A copies at the top level and B occupied copies below it
   (their joint distribution exact by generating functions, :func:`top_level_profile`),
   E[max] / theta = (1 - cv) P(J > 0) + cv E[H_J] for J the number of copies that delay the request,
   E[H_J] = int_0^1 (1 - E[(1 - P z)^A (1 - P_low z)^B]) / z dz by Gauss-Legendre (exact up to
   T = 16). Against a Monte Carlo of the same waits this "one level" form is within 2 %, where
   adding the two maxima is 6-16 % long. Summing the T visits (the station-level view) overstates
   latency by up to 3x on the DES.
   On a c-server station the wait is (S / c) (E[(J - c)+] + f P(J >= c)): each job queued ahead
   needs S / c, and an arrival that finds all servers busy also waits the residual f S / c of the
   first to finish. E[(J - c)+] = Q' - a with Q' and a the others' share of the mean queue and busy
   servers (for c = 1 this is the residual-corrected MVA of the single-server stations; the others'
   queue Q' = lam (S + W + W_sib) counts the time their transactions wait behind their own
   siblings, W_sib = E[(B - c + 1)+] S / c with B below), P(J >= c)
   is Erlang C at a busy servers, and the states below c take the M/M/c shape. Where a fork-join
   step routes the request over several copies (dies), b of a transaction's own siblings may be
   ahead of it at its copy (K ~ Bin(T - 1, 1/m) siblings there, its place among them uniform); it
   then waits as soon as c - b others are present, so the wait and P(wait) are averaged over b. What
   the siblings alone cost is the serialisation term above, so b >= c adds only the others' queue.
   At a single-copy station that the fork-join block visits at one step only (a core group or
   accelerator running cache lookup, say), a request's T transactions arrive together and queue behind
   each other (B uniform on 0 .. T - 1): the others' transactions queued so are in Q' too, W_sib =
   E[(B - c + 1)+] S / c weighted by that step's share of the station's visits. At a station that the
   block visits at several steps (one core running cache lookup and translate, the transactions
   interleaving) the term is left out: there it moves answers away from the DES (docs/accuracy.md).
   Variable service (``[variability]``, scv > 0 at the dies and channels) makes the last own departure
   later than the deterministic level: four transactions on separate dies with exponential reads finish
   after H_4 = 2.08 reads, not one. At such stages the spread is E[last own departure] - one service,
   with each copy's own work taken as c lanes of gamma services and the expectation over the
   multinomial occupancy by generating functions (:func:`own_last_departure`). A step a transaction takes
   with a probability p < 1 (a write-through write's program, once per page of four 4 KiB transactions;
   a garbage-collection read) varies the same way: a lane of n jobs serves a binomial(n, p) number of them,
   and the spread is E[last own departure] - p services. That part of the spread
   and the max-of-T waits below are independent parts of each transaction's time, so their excesses add
   as standard deviations do (exact for normal parts; adding them outright overshoots the DES's mean latency
   on open designs with NAND scv 1).
   A request's transactions share its operation, which matters where reads and programs mix at the
   dies. The others' transactions queued behind their own siblings are then mostly programs (a write's
   programs wait behind each other), so in the work an arrival finds each brings E[m_op^2] / E[m_op],
   not S (``Network.sibling_work_ratio``: W_sib enters Q' S weighted by E[m_op^2] / S^2, 2.2 at 70 %
   reads with tR 50 us and tPROG 450 us). And a write request lands its programs on several dies at
   once, so the waits at the dies a request occupies are positively correlated and their max is
   shorter than for independent waits: with r the correlation of the work one request brings to two
   copies (``Network.copy_work_correlation``, the heavy-traffic correlation of their workloads), the
   waits are taken as one and the same with probability r and independent otherwise, so the
   max-of-T term is scaled by 1 - r. Where r < 0 (one operation, one size: the multinomial split puts
   fewer transactions on one die when more go to another) they are taken as independent: for more than
   two copies there is no such mixture. The two parts are used together: each alone (the first lengthens
   the waits, the second shortens the max) agrees worse with the DES than neither, and together they agree better.
   A transaction's waits at the successive steps of the block (a core group's, the dies', the channels') are parts
   of one time, and the request waits for the largest sum, not for the largest die wait plus the largest channel
   wait (and so on). Where every
   request does one operation, or the dies or channels are the bottleneck, the stages' excesses over their mean
   waits add as independent parts (the root of the sum of their squares, exact for normal parts); where reads
   and programs mix behind a core group that is the bottleneck (the knee) they are still added outright
   (:func:`stage_wait_correlation`, with the measurements).
2. **Re-entry.** A job that leaves a server and comes back before the next job's service ends
   finds that service just begun: its residual is the full S, not S(1 + scv)/2. The fraction of
   such arrivals is estimated per step as P(same copy) x max(0, 1 - gap / S), where the gap is the
   time spent elsewhere since the job last left the station (1/m for m address-routed copies), at
   zero load: service times and delays, not waits, so that a server added elsewhere cannot shorten
   it (see "Monotone in servers"); for the same reason the wrap-round of the closed loop counts the
   own transactions' serialisation (1.) only at the address-routed stages (counting the core groups' too
   breaks the monotonicity by up to 0.018 %; counting none moves 8/16 KiB draws out of tolerance). This
   matters for a few dies dominating the cycle (DES error +8 % without it).
3. **Flow variability.** Deterministic stations in tandem smooth the flow, so a downstream station
   sees more regular arrivals than Poisson and queues less. The arrival scv ca^2 of each
   single-copy station is propagated along the route with Whitt's QNA equations (departure
   cd^2 = 1 + (1 - u^2)(ca^2 - 1) + u^2 (cs^2 - 1); a split with probability p gives p cd^2 + 1 - p)
   and the wait is scaled by gamma = (ca^2 + cs^2)/(1 + cs^2), the Kingman/Allen-Cunneen ratio to the
   Poisson-arrival wait. For gamma <= 1 it scales the local fixed point's wait, others' queue included;
   for gamma > 1 it scales the Poisson-arrival wait of that fixed point, so that the station still
   saturates at X = c / D (scaling inside the fixed point would saturate it at c / (gamma D)). The merged
   output of address-routed copies takes the same departure formula with ca^2 the station's arrivals before
   the random split and u one copy's utilisation: a stream split at random and merged again after the same
   service is the stream itself, so at low load the regularity passes through the dies. Variable
   service breaks that argument: it displaces each job by a random delay, and once the spread of the
   delays sigma exceeds the spacing 1 / lambda of the jobs the merged stream is Poisson whatever came
   in. The regularity kept is therefore scaled by 1 / (1 + (lambda sigma)^2) (mixed reads and
   programs have lambda sigma >> 1;
   read-only or write-only dies sigma = 0; exp(-lambda sigma), 1 / (1 + lambda sigma) and
   exp(-(lambda sigma)^2) give the same results on every comparison case).
   The variability of the service itself stays, u^2 (cs^2 - 1): dies that mix reads and programs
   depart in bursts, the reads queued behind a program leaving together when it ends, and the
   merged output of the copies is not capped at Poisson. A superposition looks Poisson at short time
   scales but keeps its streams' burstiness at long ones (QNA's asymptotic method), and a busy core
   group downstream, the one whose wait matters, sees the long ones. In the DES the requests of a 70 %
   read mix over 9 dies start with inter-start scv 2.1 (IDC 2.2 over 5 starts); uncapped, the slow core
   that parses them sees ca^2 1.38 (capped at Poisson, 0.91). Whitt's hybrid weight
   1 / (1 + 4 (1 - rho)^2 (m - 1)) at the next station is not used: a lightly loaded completion stage after
   the dies passes the bursts on to the slow core that parses the next requests, while the weight takes them
   as lost there.
   Address-routed copies take their arrivals as the local output of the address-routed copies before
   them, each with Poisson arrivals (:func:`_routed_gamma`): a die is fed by a 1 / m random split,
   which makes it nearly Poisson, and sees gamma 1; a channel sees its dies' merged output, which
   deterministic dies space out (cd^2 = 1 - u^2). Its wait is gamma times the Poisson-arrival wait
   (scaled outside the fixed point, so the channel still saturates at its capacity). Poisson arrivals at
   the channels put channel-bound reads at QD 18 3-4.4 % low, the loop's propagated flow 9-13 % high
   (:func:`_routed_gamma`). A c-server station departs like one server
   doing its work, u = min(X D, 1): with QNA's u = X D / c and 1/sqrt(c) on the service term, a
   server added upstream makes the flow less regular and the waits downstream longer, and the model's
   IOPS can fall.
   The traffic equations are solved to their fixed point at each X (:func:`_flow_scv`: linear in
   cd^2 - 1); a few rounds from Poisson are far from it in a closed loop, where the regularity made at a
   busy deterministic station moves one station per round along the route and lightly loaded stations
   forget Poisson only by a factor 1 - u^2 per round. The PM9A3 presets need this correction: without it
   c01 is -3.4 % against the DES.
   A job that goes straight back into the queue it just left (a core group running parse and then each
   transaction's cache lookup) is not an arrival of that queue's stream. As in QNA, such immediate
   feedback is eliminated: the visits in a row are one service, whose scv is that of their summed work
   (:func:`merged_run_scv`), and the arrival scv is that of the other arrivals. The job that comes back
   waits behind those who arrived while it was there, as a Poisson arrival would (2. gives it the full
   residual). Counting those visits as arrivals makes the flow look regular wherever a busy core group
   runs modules in a row (its departures are regular), and takes the per-visit scv of unequal modules
   where the job brings their sum.
   W. Whitt, "The queueing network analyzer", Bell Syst. Tech. J. 62(9), 1983.

4. **Background load** (FTL writes, :mod:`ssdco.network.ftl_effects`). Work that no request waits for (page
   programs, GC copies, erases of buffered writes) arrives at a station at a rate proportional to the
   throughput X: utilisation U_b = X D_b / c. It is treated as an open class sharing the FCFS station
   with the closed one (a "shadow" server argument, cf. Lazowska et al. 1984 ch. 9 for mixed networks):
   the closed class's wait is inflated by 1 / (1 - U_b), and it also waits for the background work in
   service or queued ahead, the Allen-Cunneen M/G/c share C(c, a) U_b R_b / (rho c (1 - rho)) with
   R_b = E[S_b^2] / (2 E[S_b]) the background residual and rho the station's total utilisation. The
   capacity bound uses the total demand, so X <= c / (D + D_b). The background rate is X itself, so
   it enters cycle_n(X) like every other term.
   The closed class's queue that arrivals see (Q = X V (S + W)) is taken with the wait before the
   background's share: that share is added once, by the terms above, for every arrival (keeping it
   in Q would count the wait behind one long program or erase again for each closed job queued behind
   it).
5. **Write buffer.** The background runs are done by at most ``background_slots`` slots (plus the
   requests that do a run themselves when the buffer is full), so under back-pressure the background is
   a closed network of that many jobs, not an open stream: with random die choice some dies idle while
   others queue (B jobs over m single-server dies keep each busy B / (B + m - 1) of the time). Its
   exact product-form throughput (:func:`write_buffer_capacity`) bounds X, and ``whatif`` reports it
   beside the asymptotic bounds.
   With few slots, or at low queue depth, writes find the buffer full at any load, not only at the
   bound: a Markov chain of the buffer's slots and of the requests doing their own run, over the route
   without the buffer (:mod:`ssdco.model.queueing.write_buffer`: a flow-equivalent decomposition) then gives X,
   with the requests' own share of the dies and channels taken from the background by shadow servers (a
   fixed point in X). The route alone is then solved without the background's part of the capacity
   bound, which the chain's drain carries. Where the chain would be too large (a 2 MiB buffer beyond
   queue depth 10) the bound alone holds X; there the buffer is full all the time and the bound is
   within 1 % of the DES. ``benchmarks/accuracy.py`` (pm9a3-buffer) compares both with the DES.
6. **The routed stage behind the rest** (``whatif`` calls :func:`stage_behind_rest` on the route MVA's
   answer). Where every request is one transaction and the busiest station is a die or channel
   station at least half busy, the dies and channels (:mod:`ssdco.model.queueing.routed_stage`: a seeded
   event-by-event run of that stage; deterministic service, reads and programs) are run with the rest of the
   route as a fixed delay between a request's completion and the next one's arrival: the route MVA's own
   time outside them, N / X - (residence x copies at the dies and channels). Where that gives more than
   X(N), X(N) is raised to it; the dies' and channels' residences are scaled to the stage's time, the rest's
   kept. The route MVA's waits at deterministic dies and channels of few servers run long at moderate load
   (4 KiB reads at QD 14 with the channels 74 % busy, configs/gallery/reads-at-busy-channels-behind-fast-cores.toml;
   70 %-read mixes over one or two multi-plane dies 85-97 % busy). Not where a core group is the busiest:
   its queue is no fixed delay. The max keeps the route MVA where the stage is the lower, at saturation
   mostly. docs/accuracy.md, per solver.

With exponential service (scv = 1) and one transaction per request, 2. and 3. vanish
(memoryless residual; ca^2 stays 1) and the solution is the Bard-Schweitzer approximate MVA (Erlang C
standing in for the marginals of multi-server stations); ``exact=True`` gives the exact product-form solution.
Heuristics 1.-3. are chosen by comparison with the DES on generated configurations;
``tests/validation/test_model_vs_des.py`` keeps the comparison honest, and the residual disagreement is reported
there and in docs/accuracy.md.

Monotone in servers. ``benchmarks/monotonicity.py`` adds one core or accelerator unit to 1,500
uniformly sampled designs: 0 of 4,850 additions lower IOPS (by more than 1e-9), and the property test
holds the solver to rounding. At fixed X, one more server at a station lowers its utilisation, its Erlang C
and its S / c, hence its wait; P(wait) falls too, and the max-of-T term (1.) is theta (E[max] / theta - P)
with theta = W / P non-increasing, cv non-increasing (it rises with P), the tail beyond one service falling
with theta and cv, and E[max] / theta - P non-decreasing in P (what variable service adds to the spread,
combined with it as sqrt(a^2 + b^2), depends on the NAND geometry and timings only, and the combination rises
with the max-of-T term); the own-sibling wait W_sib falls (its work weight E[m_op^2] / S^2 and the copies'
correlation depend on the workload and the NAND timings, not on any server count); the flow correction (3.)
depends on the work rate X D, not on the servers (at a channel, on its dies' utilisation, whose servers are
the NAND geometry's planes, which no core or accelerator changes); the re-entry gaps (2.) are taken at zero
load without the core groups' serialisation; the serialisation levels fall (measured for the FCFS runs of 1.,
whose schedule is not covered by this argument).
So cycle_n(X) does not rise anywhere, and the largest X with X cycle_n(X) <= n cannot fall. A recursion in n
that carries each population's queues into the next is not monotone: a server that raises X(n - 1) puts
more queue ahead of the next population at a fork-join station, where it costs more than elsewhere. One term
is outside this argument: at a station with scv > 1, fewer re-entries per server move the residual factor f
up towards (1 + scv)/2. And with cv < 1, E[max] / theta - P falls slightly as P nears 1 (its slope in P
is cv - 1 at P = 1), so there a lower P lengthens the max-of-T term a little while theta shortens it
much more. On the benchmark's designs neither outweighs the rest.

Alternatives that agree worse with the DES: Seidmann's multi-server approximation, the Bolch et al.
recursion from p(0..c-1), always renormalised marginals, max-of-T over the residual part of the wait only,
dropping 3. (PM9A3 c01 -3.4 %), Erlang C without the own siblings, and in the fixed point the others' share
of the queue without the same share of the busy servers.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, replace
from functools import lru_cache

import numba as nb
import numpy as np
from scipy.optimize import brentq

from ssdco.model.queueing.closed import ClosedSolution
from ssdco.model.queueing.convolution import closed_throughput, closed_throughput_fft
from ssdco.model.queueing.erlang import erlang_c
from ssdco.model.queueing.priority import FG_COLUMNS, reads_first_wait
from ssdco.model.queueing.routed_stage import ROUTED_KINDS, RoutedStage, routed_stage_per_us, routed_stages
from ssdco.model.queueing.write_buffer import BufferPool, buffer_pool, pool_throughput
from ssdco.network.build import Network, StationLoad, striped_loads

# Feature bits of the corrections (all on by default; switched off only to measure what each buys)
FORK_JOIN, MAX_WAIT, REENTRY, FLOW = 1, 2, 4, 8
# the busy core group's idling while every request is away (idle_bound.py), applied by whatif after the solve
IDLE_BOUND = 128
ALL_FEATURES = FORK_JOIN | MAX_WAIT | REENTRY | FLOW | IDLE_BOUND
ROOT_ITERATIONS = 200  # regula falsi steps for each X(n), to ROOT_REL_TOL (relative, in X and in X cycle)
ROOT_REL_TOL = 1e-12
POOL_REL_TOL = 1e-6  # the write buffer's fixed point in X (5.)


@lru_cache(maxsize=4096)
def serial_level_distribution(transactions: int, copies: int, servers: int, striped: bool = False
                              ) -> tuple[float, ...]:
    """P(level = q), q = 0 .. ceil(T / c): the distribution of ceil(max load / servers) when ``transactions``
    jobs pick one of ``copies`` copies uniformly (one copy: the level is ceil(T / c) for certain), or, with
    ``striped``, go to consecutive copies (the level is ceil(ceil(T / m) / c) for certain).

    P(max load <= L) = T! / m^T [x^T] (sum_{i<=L} x^i / i!)^m (multinomial generating function).
    """
    t, m, c = int(transactions), int(copies), int(servers)
    if t <= 0:
        return (1.0,)
    top = -(-t // c)
    if striped:
        level = -(-max(striped_loads(t, m)) // c)
        return tuple(1.0 if q == level else 0.0 for q in range(top + 1))
    cdf = np.zeros(top + 1)  # P(level <= q)
    cdf[top] = 1.0
    if m > 1:
        for q in range(1, top):
            cdf[q] = _p_max_load_at_most(t, m, q * c)
            if cdf[q] >= 1.0 - 1e-15:
                cdf[q:] = 1.0  # the top level is at most q for certain
                break
    return tuple(float(p) for p in np.diff(cdf, prepend=0.0))


def _p_max_load_at_most(t: int, m: int, limit: int) -> float:
    """P(max load <= limit) when t jobs pick one of m copies uniformly (see serial_level_distribution):
    E[prod over the copies of 1{load <= limit}] (:func:`_occupancy_mean`)."""
    return float(_occupancy_mean(t, m, (np.arange(t + 1) <= limit).astype(float)[:, None])[0])


def expected_serial_count(transactions: int, copies: int, servers: int, striped: bool = False) -> float:
    """E[ceil(max load / servers)] when ``transactions`` jobs pick one of ``copies`` copies uniformly (or go to
    consecutive copies, ``striped``)."""
    dist = serial_level_distribution(transactions, copies, servers, striped)
    return float(np.dot(np.arange(len(dist)), dist))


GRID_POINTS = 401  # of own_last_departure's integral (trapezoid); 3,201 points move it by < 1e-6
MAX_GRID_POINTS = 20_001  # for nearly deterministic service (scv < 1e-4)


@lru_cache(maxsize=1024)
def own_last_departure(transactions: int, copies: int, servers: int, scv: float, striped: bool = False,
                       probability: float = 1.0) -> float:
    """E[time the last of ``transactions`` jobs leaves] / S when each picks one of ``copies`` copies
    uniformly, nothing else is there, and the services are independent gammas of mean S and ``scv``
    (1., "Fork-join", variable service), each job served with chance ``probability`` (a step that a transaction
    takes with probability p < 1, an FTL event) and else passing through at once. A copy of c = ``servers``
    servers that gets k jobs is taken as c lanes of ceil or floor(k / c) jobs one after another (exact for
    deterministic service, where this is the top level ceil(max load / c)); a lane of n jobs of which j are
    served finishes at a gamma of shape j / scv (at j S for deterministic service), j binomial(n, p). Then
    P(all done by x) = E[prod_copies g_x(k)] with g_x(k) = prod over the copy's lanes of their CDFs,
    and E[prod_d g(k_d)] = T! / m^T [z^T] (sum_k g(k) z^k / k!)^m over the multinomial occupancy
    (:func:`_occupancy_mean`); E[last] is the integral of 1 - that over x (trapezoid on a grid that
    reaches the longest lane's far tail; for deterministic service the sum over the whole services below the
    top lane). For exponential service on separate copies this is H_T. ``striped``: the jobs go to consecutive
    copies, so the loads are fixed (:func:`striped_loads`) and the product is taken over them."""
    t, m, c, p = int(transactions), int(copies), int(servers), float(probability)
    if t < 1:
        return 0.0
    if p >= 1.0 and (t <= 1 or scv <= 0.0):
        return float(expected_serial_count(t, m, c, striped))
    from scipy.special import gammainc, gammaincinv
    from scipy.stats import binom

    top = -(-t // c)  # the most jobs one lane can hold
    if scv <= 0.0:
        x = np.arange(top, dtype=float)  # the time is a whole number of services: E[last] = sum P(last > q)
        served_cdf = np.array([[1.0 if j <= q else 0.0 for q in x] for j in range(top + 1)])
    else:
        shape = 1.0 / scv  # one service: gamma(shape, scale scv), mean 1
        x_max = float(gammaincinv(top * shape, 1.0 - 1e-12)) * scv
        # the CDFs step over about one service's standard deviation, sqrt(scv): at least 8 points across it
        x = np.linspace(0.0, x_max, min(max(GRID_POINTS, math.ceil(8.0 * x_max / math.sqrt(scv))), MAX_GRID_POINTS))
        served_cdf = np.ones((top + 1, x.size))  # [j, x]: P(j services are done by x)
        for j in range(1, top + 1):
            served_cdf[j] = gammainc(j * shape, x / scv)
    lane_cdf = np.ones((top + 1, x.size))  # [n, x]: P(a lane of n jobs is done by x)
    for n in range(1, top + 1):
        lane_cdf[n] = binom.pmf(np.arange(n + 1), n, p) @ served_cdf[:n + 1] if p < 1.0 else served_cdf[n]
    copy_cdf = np.ones((t + 1, x.size))  # [k, x]: P(a copy with k jobs is done by x)
    for k in range(1, t + 1):
        for lane in range(c):
            copy_cdf[k] *= lane_cdf[k // c + (1 if lane < k % c else 0)]
    if striped:
        done = np.prod([copy_cdf[k] for k in striped_loads(t, m)], axis=0)
    else:
        done = _occupancy_mean(t, m, copy_cdf)
    if scv <= 0.0:
        return float(np.sum(1.0 - done))
    return float(np.trapezoid(1.0 - done, x))


def _occupancy_mean(t: int, m: int, g: np.ndarray) -> np.ndarray:
    """E[prod over the m copies of g(k_d)] when t jobs pick a copy uniformly at random (k_d the copy's
    count), for each column of ``g`` ([k, column]): T! / m^T [z^T] (sum_k g(k) z^k / k!)^m (multinomial
    generating function). Polynomials are kept as (coefficients scaled to a maximum of 1 per column, log of
    the scale), and z is scaled by the mean load T / m (terms (T/m)^i / i!, whose m-th power peaks near
    degree T), so that large T neither overflows nor underflows."""
    log_fact = np.array([math.lgamma(i + 1) for i in range(t + 1)])
    log_terms = np.arange(t + 1) * math.log(t / m) - log_fact
    tiny = np.finfo(float).tiny

    def normalised(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        top = np.maximum(a.max(axis=0), tiny)
        return a / top, np.log(top)

    def times(a: np.ndarray, b: np.ndarray) -> np.ndarray:  # product truncated to degree t, per column
        if a.shape[1] == 1:  # one column (serial_level_distribution): numpy's convolution is faster
            return np.convolve(a[:, 0], b[:, 0])[: t + 1, None]
        out = np.zeros_like(a)
        for k in range(t + 1):
            out[k:] += a[k] * b[: t + 1 - k]
        return out

    power, power_log = normalised(g * np.exp(log_terms - log_terms.max())[:, None])
    power_log = power_log + log_terms.max()
    poly = np.zeros_like(power)
    poly[0] = 1.0
    poly_log = np.zeros(g.shape[1])
    e = m
    while e:  # binary powering
        if e & 1:
            poly, scale = normalised(times(poly, power))
            poly_log += power_log + scale
        e >>= 1
        if e:
            power, scale = normalised(times(power, power))
            power_log = 2.0 * power_log + scale
    with np.errstate(divide="ignore"):
        log_value = np.log(poly[t]) + poly_log + log_fact[t] - t * math.log(t)
    return np.minimum(np.exp(log_value), 1.0)


@lru_cache(maxsize=1024)
def own_run_departures(services_us: tuple[float, ...], transactions: int, servers: int) -> tuple[float, float]:
    """(first, last) time (us) at which a request's ``transactions`` jobs leave a run of consecutive steps at
    one station of ``servers`` servers (a core group running cache lookup, translate and dispatch in a row)
    when nothing else is there: every job needs the steps' ``services_us`` in order and rejoins the back of
    the FCFS queue after each step, so the jobs interleave. Jobs finishing at the same time rejoin in the
    order they started. A deterministic event schedule (a heap of finishing times)."""
    n, t, c = len(services_us), int(transactions), int(servers)
    fifo = [(0, j) for j in range(t)]  # (next step, job) in queue order
    head = 0
    running: list[tuple[float, int, int]] = []  # (finish us, start order, step) heap
    started = 0
    now = 0.0
    first = math.inf
    while head < len(fifo) or running:
        while head < len(fifo) and len(running) < c:
            step, _ = fifo[head]
            head += 1
            heapq.heappush(running, (now + services_us[step], started, step))
            started += 1
        now = running[0][0]
        while running and running[0][0] <= now:
            _, order, step = heapq.heappop(running)
            if step + 1 < n:
                fifo.append((step + 1, order))
            else:
                first = min(first, now)
    return first, now


def expected_max(distributions: list[tuple[tuple[float, ...], tuple[float, ...]]]) -> float:
    """E[max_i X_i] of independent non-negative discrete X_i, each given as (values, probabilities):
    the integral of 1 - prod_i P(X_i <= x) over x >= 0."""
    points = sorted({v for values, _ in distributions for v in values if v > 0.0})
    total = 0.0
    below_at = 0.0
    for v in points:
        all_below = 1.0
        for values, probs in distributions:
            all_below *= sum(p for x, p in zip(values, probs) if x <= below_at)
        total += (v - below_at) * (1.0 - all_below)
        below_at = v
    return total


PROFILE_MIN_PROBABILITY = 1e-12  # (A, B) pairs below this are dropped from a fork-join profile


@lru_cache(maxsize=1024)
def top_level_profile(transactions: int, copies: int, servers: int, striped: bool = False
                      ) -> tuple[tuple[int, int, float], ...]:
    """Joint distribution of (A, B) when ``transactions`` jobs pick one of ``copies`` copies uniformly and
    each copy serves its jobs ``servers`` at a time, in levels ceil(load / servers): A copies at the top
    level, B occupied copies below it. Returns (a, b, P(A = a, B = b)) for every pair of probability at
    least PROFILE_MIN_PROBABILITY (A + B is the number of occupied copies).

    By exponential generating functions: with the top level l, the copies at it take a load in
    (c (l - 1), c l], those below one in [1, c (l - 1)], so P(A = a, B = b, level l) =
    m! / (a! b! (m - a - b)!) T! / m^T [x^T] f_top(x)^a f_low(x)^b (f = the truncated e^x). Computed
    with x scaled by T / m, which keeps the coefficients in floating-point range for large T. ``striped``: the
    jobs go to consecutive copies, so (A, B) is fixed by the loads of :func:`striped_loads`.
    """
    t, m, c = int(transactions), int(copies), int(servers)
    if t < 1 or m < 1 or c < 1:
        raise ValueError(f"need transactions, copies, servers >= 1, got {t}, {m}, {c}")
    if striped:
        loads = striped_loads(t, m)
        below = c * (-(-max(loads) // c) - 1)  # the most jobs a copy below the top level holds
        return ((sum(k > below for k in loads), sum(k <= below for k in loads), 1.0),)
    d_max = min(m, t)
    log_fact = np.array([math.lgamma(i + 1) for i in range(max(t, m) + 2)])
    # x scaled by the mean load s = T / m (terms s^i / i!), so that the powers peak near degree T
    scale = t / m
    log_terms = np.arange(t + 1) * math.log(scale) - log_fact[: t + 1]
    log_norm = log_fact[t] - t * math.log(m * scale) + log_fact[m]
    out = []
    total = 0.0
    # the top level is at least ceil(T / (m c)); stop once the levels seen hold all the probability
    for level in range(max(1, -(-t // (m * c))), -(-t // c) + 1):
        first_top = c * (level - 1) + 1
        last_top = min(c * level, t)
        (rows_top, scale_top), (rows_low, scale_low) = _scaled_powers(first_top, last_top + 1, t, d_max,
                                                                      log_terms)
        ways = rows_top @ rows_low[:, ::-1].T  # [a, b] = [x^T] f_top^a f_low^b, up to the row scales
        with np.errstate(divide="ignore"):
            log_ways = np.log(ways) + scale_top[:, None] + scale_low[None, :]
        a = np.arange(d_max + 1)[:, None]
        b = np.arange(d_max + 1)[None, :]
        valid = (a >= 1) & (a + b <= m) & (ways > 0.0)
        log_p = np.full(ways.shape, -np.inf)
        rest = np.maximum(m - a - b, 0)
        log_p[valid] = (log_ways + log_norm - log_fact[a] - log_fact[b] - log_fact[rest])[valid]
        probs = np.exp(log_p)
        level_mass = float(probs.sum())
        total += level_mass
        for ai, bi in zip(*np.nonzero(probs >= PROFILE_MIN_PROBABILITY)):
            out.append((int(ai), int(bi), float(probs[ai, bi])))
        if total >= 1.0 - 1e-12 or (total > 0.5 and level_mass < 1e-16):
            break
    return tuple(out)


def _scaled_powers(first: int, stop: int, t: int, d_max: int, log_terms: np.ndarray):
    """Rows k = 0 .. d_max of f^k truncated to degree t, for f = the terms first .. stop - 1 of the series
    exp(log_terms) and for f = its terms 1 .. first - 1, each row scaled to a maximum of 1:
    ((top rows, log scales), (low rows, log scales))."""
    result = []
    for lo, hi in ((first, stop), (1, first)):
        f = np.zeros(t + 1)
        f_shift = float(log_terms[lo:hi].max()) if hi > lo else 0.0
        if hi > lo:
            f[lo:hi] = np.exp(log_terms[lo:hi] - f_shift)
        rows = np.zeros((d_max + 1, t + 1))
        scales = np.zeros(d_max + 1)
        rows[0, 0] = 1.0
        for k in range(1, d_max + 1):
            row = np.convolve(rows[k - 1], f)[: t + 1]
            peak = row.max()
            if peak > 0.0:
                rows[k] = row / peak
                scales[k] = scales[k - 1] + math.log(peak) + f_shift
            else:
                scales[k] = -np.inf
        result.append((rows, scales))
    return result[0], result[1]


def write_buffer_capacity(network: Network) -> float:
    """Requests/us that the background work can sustain when the write buffer is the limit (5.).

    The background runs of buffered writes are done by at most ``background_slots`` slots (write transactions)
    plus the runs of the requests that do them themselves when the buffer is full: a closed network of that
    many transaction-sized jobs over the background stations (``queue_depth`` requests of the largest size at
    most), whose throughput, divided by the write transactions per request, is the bound. It is taken from the
    exact product-form solution (log-space convolution; by FFT above ``FFT_MIN_POPULATION`` jobs,
    :func:`~ssdco.model.queueing.convolution.closed_throughput_fft`), which keeps the imbalance of random die choice:
    with B jobs over m single-server dies a die idles about (m - 1) / (B + m - 1) of the time (PM9A3, write
    only: 93 % die utilisation, DES 94 %). ``inf`` without background work or without a write buffer. A job is
    one write transaction, not a request's background work: with the latter a 16 KiB write's four slots would
    count as four requests' worth and the bound would be about a quarter of the DES's throughput with a 4-slot
    buffer.
    """
    loads = tuple(b for b in network.background_loads() if b.demand_us > 0.0)
    per_tx = (1.0 - network.read_fraction) * network.mean_transactions  # write transactions per request
    if not loads or network.background_slots <= 0 or network.queue_depth is None or per_tx <= 0.0:
        return math.inf
    jobs = network.background_slots + network.queue_depth * max(network.transactions)
    return _closed_throughput(tuple((b.demand_us / per_tx, b.servers, b.copies) for b in loads), jobs) / per_tx


@dataclass(frozen=True)
class SuspendedPool:
    """The write buffer's background runs where reads suspend part of them (``nand.suspend``): per background
    station, its index in the solver's order, one write transaction's demand there (us), servers and copies; the
    runs' population and the write transactions per request (:func:`write_buffer_capacity`)."""

    indices: tuple[int, ...]
    stations: tuple[tuple[float, int, float], ...]
    jobs: int
    per_tx: float


def suspended_pool(network: Network, index: dict[str, int]) -> SuspendedPool | None:
    """The :class:`SuspendedPool` of ``network`` (``index``: station name -> solver order), None where no read
    suspends background work or :func:`write_buffer_capacity` is unbounded."""
    if not any(st.suspends for st in network.stations):
        return None
    if not math.isfinite(write_buffer_capacity(network)):
        return None
    loads = tuple(b for b in network.background_loads() if b.demand_us > 0.0 and b.name in index)
    per_tx = (1.0 - network.read_fraction) * network.mean_transactions
    return SuspendedPool(indices=tuple(index[b.name] for b in loads),
                         stations=tuple((b.demand_us / per_tx, b.servers, b.copies) for b in loads),
                         jobs=network.background_slots + network.queue_depth * max(network.transactions),
                         per_tx=per_tx)


def suspended_drain_per_us(arrays: RouteArrays, x_per_us: float) -> float:
    """Requests/us that the write buffer's runs sustain at throughput ``x_per_us`` where reads suspend them (5.):
    at a station whose reads suspend the runs, a run sees the time the requests' visits and their suspensions
    leave, so its demand there is divided by 1 - rho_fg - rho_suspend (the shadow server of preemptive priority:
    Sevcik, Acta Informatica 8, 1977); then the exact product form of the runs' population, as
    :func:`write_buffer_capacity`."""
    a, pool = arrays, arrays.suspended_pool
    scaled = []
    for k, (demand, servers, copies) in zip(pool.indices, pool.stations):
        if a.bg_behind[k]:  # the reads go first here (where any read suspends, only a reads-first die does)
            busy = (x_per_us * a.visits[k] * a.service_us[k]
                    + x_per_us * x_per_us * a.visits[k] * a.bg_suspend_us2[k]) / servers
            demand = demand / max(1.0 - busy, 1e-6)
        scaled.append((demand, servers, copies))
    return _closed_throughput(tuple(scaled), pool.jobs) / pool.per_tx


FFT_MIN_POPULATION = 1024  # write-buffer pools above this use the FFT convolution (log-space: 0.2 s at 2,080)


@lru_cache(maxsize=256)
def _closed_throughput(stations: tuple[tuple[float, int, float], ...], population: int) -> float:
    demand, servers, copies = (np.array(col) for col in zip(*stations))
    if population > FFT_MIN_POPULATION:
        return closed_throughput_fft(demand, servers, copies, 0.0, population)
    return closed_throughput(demand, servers, copies, 0.0, population)


@dataclass(frozen=True)
class RouteArrays:
    """The network flattened for the compiled solver (one entry per station / station step)."""

    service_us: np.ndarray  # per station: mean per-visit service
    scv: np.ndarray
    servers: np.ndarray
    copies: np.ndarray
    visits: np.ndarray  # per station copy, per request
    step_station: np.ndarray  # per station step (route order)
    step_service_us: np.ndarray
    step_delay_us: np.ndarray
    step_visits: np.ndarray  # per request (1 or mean transactions)
    step_in_block: np.ndarray  # bool: inside the fork-join block
    step_routed: np.ndarray  # bool: picks one of the station's copies
    step_striped: np.ndarray  # bool: picks it by the request's striping (consecutive copies), not at random
    own_serial_us: np.ndarray  # [size class, 2]: the own transactions' serialisation at zero load (1.), and
    own_serial_routed_us: np.ndarray  # [size class, 2] the same at the address-routed stages only (2.)
    # what variable service adds to it (own_serial_parts)
    profile: np.ndarray  # [step, size class, entry, (a, b, P)]: top_level_profile, zero-padded
    slack: np.ndarray  # [step, operation, (service us, probability)]: a transaction's service by operation
    size_transactions: np.ndarray
    size_probs: np.ndarray
    pure_delay_us: float
    step_weight: np.ndarray = None  # per station step: fraction of base visits (operation share x probability)
    bg_demand_us: np.ndarray = None  # per station copy: background demand per request
    bg_residual_us: np.ndarray = None  # per station: background residual E[S^2] / (2 E[S])
    bg_behind: np.ndarray = None  # per station: the background queues behind the foreground (reads-first dies)
    # per station: the background work a read suspends (nand.suspend), its demand x suspension time per request, us^2
    bg_suspend_us2: np.ndarray = None
    suspended_pool: SuspendedPool | None = None  # the write buffer's runs where reads suspend them (5.)
    # per station where a reads-first die serves reads and write requests' operations together (write-through;
    # zeros elsewhere): the shares and suspensions of _foreground_reads_first, for reads_first_wait (4.)
    fg_reads_first: np.ndarray = None
    bg_capacity_per_us: float = math.inf  # requests/us the write buffer's background runs can sustain (5.)
    run_scv: np.ndarray = None  # per station: scv of an arrival's work, immediate feedback merged (3.)
    sibling_work: np.ndarray = None  # per station: work of a transaction queued behind its own siblings, in S (1.)
    fork_scale: np.ndarray = None  # per station: 1 - the copies' wait correlation, on the max-of-T term (1.)
    # how a transaction's excess waits at the fork-join block's steps combine in the max-of-T term (1.): 1 adds
    # them, 0 adds them as independent parts (root of the sum of squares); see stage_wait_correlation()
    stage_wait_correlation: float = 1.0
    buffer_pool: BufferPool | None = None  # the write buffer's pool of slots (5.; None: the bound alone)
    routed_stages: tuple[RoutedStage, ...] = ()  # the dies and channels as a stage (routed_stage.py, 6.), and
    routed_indices: tuple[int, ...] = ()  # their stations

    @property
    def one_transaction(self) -> bool:
        """Whether every request is one transaction (every size drawn splits into one)."""
        return bool(np.all(self.size_transactions[self.size_probs > 0] == 1))


def stage_wait_correlation(network: Network, loads: tuple[StationLoad, ...] | None = None) -> float:
    """How a transaction's excess waits at the successive steps of the fork-join block (at core groups and
    accelerators, the dies, the channels; ``loads``: ``network.loads()`` where the caller has them) combine in the
    max-of-T term (1., "Fork-join"): 0 (as independent parts) where every request does one operation
    (read-only or write-only work), and where reads and programs mix but the dies or the channels, not a core
    group, are the bottleneck (the largest demand per server); 1 (added outright) where such a mix runs
    behind a core group that is the bottleneck, and where the FTL adds operations (mapping reads and
    write-backs on the path, buffered programs beside it), which were not measured.

    E[max over T of (A_j + B_j)] exceeds its mean by less than the excess of max A plus that of max B unless
    a transaction's waits at the two stages move together; for independent normal parts the excesses add as
    standard deviations do (root of the sum of squares). On the cached 8-16 KiB comparisons at QD >= 6
    (docs/accuracy.md) the root takes the reads-only, writes-only and dies- or channel-bound 70 %-read answers
    closer to the DES (lower RMS and mean IOPS error, more within tolerance); on 70 %-read mixes behind a core
    group that is the bottleneck it would make more misses than it fixes. These are the knee's designs, whose
    answers lean high (docs/accuracy.md, per regime); the sum's longer max offsets part of that, so it is
    kept there. Why the knee leans high is the open question, not this term.
    The switch depends on the servers only through the core groups' demand per server: a core added to the
    bottleneck group can only move a mix from the sum to the root (more IOPS), so the route MVA stays
    monotone in servers."""
    on_path = [s for s in network.steps if s.station is not None and not s.per_request and not s.background
               and s.routing != "single" and network.op_weight(s) > 0]
    if any(s.probability != 1.0 for s in on_path):
        return 1.0  # some transactions make extra NAND operations (the FTL's): not measured, added outright
    if network.read_fraction in (0.0, 1.0):
        return 0.0
    if network.background_loads():
        return 1.0  # the reads among the FTL's buffered programs: not measured, added outright
    # reads and programs mix: independent where the dies or channels are the bottleneck, added at a core group
    per_server: dict[str, float] = {}  # the largest demand per server (us per request) of each kind of station
    for ld in network.loads() if loads is None else loads:
        per_server[ld.kind] = max(per_server.get(ld.kind, 0.0), ld.demand_us / ld.servers)
    core_bound = per_server.get("cores", 0.0) >= max(per_server.get("die", 0.0), per_server.get("channel", 0.0))
    return 1.0 if core_bound else 0.0


def _route_steps(network: Network, index: dict[str, int]) -> list:
    """The station steps the route solver walks: at a station of ``index``, not background, of positive
    operation weight, in route order."""
    return [s for s in network.steps if s.station is not None and s.station in index and not s.background
            and network.op_weight(s) > 0]


def _background_arrays(network: Network, index: dict[str, int], n: int
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per station of ``index`` (``n`` of them), the background work's demand per request and its residual
    E[S^2] / (2 E[S]), both in us (4.), and the suspension cost of the work a read suspends there (us^2 per request,
    :meth:`Network.suspension_terms`). Where reads suspend part of the work, the residual is that of the rest
    over the whole background demand: a read waits for the rest's residual and pays the suspension time of the
    suspended part."""
    bg_demand = np.zeros(n)
    bg_res = np.zeros(n)
    bg_suspend = np.zeros(n)
    for b in network.background_loads():
        if b.name in index and b.service_us > 0:
            k = index[b.name]
            bg_demand[k] = b.demand_us
            bg_res[k] = b.service_us * (1.0 + b.scv) / 2.0
            if network.station(b.name).suspends:
                waited, bg_suspend[k] = network.suspension_terms(b.name)
                bg_res[k] = waited / b.demand_us
    return bg_demand, bg_res, bg_suspend


def _foreground_reads_first(network: Network, steps, index: dict[str, int], n: int) -> np.ndarray:
    """Per station of ``index`` (``n`` of them) where it serves reads first and both read and write requests visit it
    at once (``Network.reads_first_in_effect``: a write-through drive above queue depth 1), the shares and sums of
    its foreground visits per request at one copy that :func:`~ssdco.model.queueing.priority.reads_first_wait`
    takes (f_r, g_r, h, m2, d_s, a, b, c, e; the suspended operations are the writes' programs and erases where
    ``Station.suspends``); zeros elsewhere."""
    out = np.zeros((n, FG_COLUMNS))
    if not network.reads_first_in_effect or not 0.0 < network.read_fraction < 1.0:
        return out
    visits = np.zeros((n, 2))
    demand = np.zeros((n, 2))
    waited = np.zeros(n)  # sum v E[S^2] that a read waits for
    for step in steps:
        station = network.station(step.station)
        if step.background or not station.reads_first:
            continue
        k = index[step.station]
        base = (1.0 if step.per_request else network.mean_transactions) * step.probability / station.copies
        for o, (op, share) in enumerate((("read", network.read_fraction), ("write", 1.0 - network.read_fraction))):
            if step.ops not in ("both", op):
                continue
            s1, s2 = network.step_moments(step, op)
            v = base * share
            visits[k, o] += v
            demand[k, o] += v * s1
            out[k, 3] += v * s2
            tau = station.suspension_us("program" if step.array == "data" else step.array) if o == 1 else None
            if tau is None:
                waited[k] += v * s2
            else:
                out[k, 4:] += (v * s1, v * s1 * tau, v * s2 * tau, v * s1 * tau * tau, v * s2 * tau * tau)
    for k in range(n):
        if visits[k].min() > 0.0 and demand[k].sum() > 0.0:
            out[k, :3] = visits[k, 0] / visits[k].sum(), demand[k, 0] / demand[k].sum(), waited[k] / out[k, 3]
        else:
            out[k] = 0.0
    return out


def _pure_delay_us(network: Network) -> float:
    """The per-request pure delays of ``network`` (us): each per-request step's delay, plus the service of
    those at no station; the block steps' delays are added once per request in the block. A per-transaction step
    at no station (a held die's array time) delays each of a request's parallel transactions alike, so once per
    request too (its mean over the operations that make it)."""
    pure = 0.0
    for s in network.steps:
        if s.background:
            continue
        if s.per_request:
            pure += s.delay_us
            if s.station is None:
                pure += network.step_moments(s)[0]
        elif s.station is None:
            pure += network.op_weight(s) * (network.step_moments(s)[0] + s.delay_us)
    return float(pure)


def _step_profiles(step, ld: StationLoad, sizes: np.ndarray, striped: bool = False
                   ) -> list[tuple[tuple[int, int, float], ...]]:
    """Per size class of ``sizes`` (transactions), the top-level profile rows (a, b, P) of ``step`` at the
    station of load ``ld``: :func:`top_level_profile` over the copies where the block step is routed (``striped``:
    over consecutive copies) and the request has several transactions, else one row (each transaction waits on
    its own)."""
    routed = step.routing != "single"
    out = []
    for t in sizes:
        if routed and not step.per_request and t > 1:
            # over the copies the request occupies; with one copy (one die, one channel) that copy holds
            # all T, which wait for the others once (as T / m at each of m copies do)
            out.append(top_level_profile(int(t), int(ld.copies), int(ld.servers), striped))
        else:
            out.append(((int(t), 0, 1.0),))  # one station: each transaction waits on its own
    return out


def _profile_and_slack(network: Network, steps, loads: tuple[StationLoad, ...], index: dict[str, int],
                       sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The route's profile array [step, size class, entry, (a, b, P)] (:func:`top_level_profile`, zero-padded)
    and slack array [step, operation, (service us, probability)] (a transaction's service by operation)."""
    profiles = {}
    slack = np.zeros((len(steps), 2, 2))
    for i, s in enumerate(steps):
        for j, rows in enumerate(_step_profiles(s, loads[index[s.station]], sizes, network.is_striped(s))):
            profiles[i, j] = rows
        if s.ops == "both":
            slack[i] = ((s.read_us, network.read_fraction), (s.write_us, 1.0 - network.read_fraction))
        else:
            slack[i, 0] = (s.read_us if s.ops == "read" else s.write_us, 1.0)
    profile = np.zeros((len(steps), len(sizes), max([2, *(len(v) for v in profiles.values())]), 3))
    for (i, j), entries in profiles.items():
        profile[i, j, : len(entries)] = entries
    return profile, slack


def _station_fields(network: Network, loads: tuple[StationLoad, ...]) -> dict[str, np.ndarray]:
    """The per-station fields of :class:`RouteArrays`: mean per-visit service (us), scv, servers, copies,
    visits per request, and the sibling-work ratio and fork scale of the max-of-T term (1.)."""
    return dict(
        service_us=np.array([ld.service_us for ld in loads]),
        scv=np.array([ld.scv for ld in loads]),
        servers=np.array([ld.servers for ld in loads], dtype=np.int64),
        copies=np.array([ld.copies for ld in loads], dtype=np.float64),
        visits=np.array([ld.visits for ld in loads]),
        sibling_work=np.array([network.sibling_work_ratio.get(ld.name, 1.0) for ld in loads]),
        fork_scale=np.array([1.0 - max(network.copy_work_correlation.get(ld.name, 0.0), 0.0) for ld in loads]),
    )


def _step_fields(network: Network, steps, index: dict[str, int]) -> dict[str, np.ndarray]:
    """The per-step fields of :class:`RouteArrays`: station index, mean service and delay (us), visits per
    request, whether in the fork-join block, whether routed over copies, and the operation weight."""
    return dict(
        step_station=np.array([index[s.station] for s in steps], dtype=np.int64),
        step_service_us=np.array([network.step_moments(s)[0] for s in steps]),
        step_delay_us=np.array([s.delay_us for s in steps]),
        step_visits=np.array([network.visits(s) for s in steps]),
        step_in_block=np.array([not s.per_request for s in steps], dtype=np.bool_),
        step_routed=np.array([s.routing != "single" for s in steps], dtype=np.bool_),
        step_striped=np.array([network.is_striped(s) for s in steps], dtype=np.bool_),
        step_weight=np.array([network.op_weight(s) for s in steps], dtype=np.float64),
    )


def route_arrays(network: Network, loads: tuple[StationLoad, ...]) -> RouteArrays:
    """Flatten ``network`` (with its per-station ``loads``) for :func:`solve_route`."""
    index = {ld.name: i for i, ld in enumerate(loads)}
    steps = _route_steps(network, index)
    bg_demand, bg_res, bg_suspend = _background_arrays(network, index, len(loads))
    pure = _pure_delay_us(network)
    sizes = np.array(network.transactions, dtype=np.int64)
    profile, slack = _profile_and_slack(network, steps, loads, index, sizes)
    stages = [st for st in routed_stages(network) if st.station in index]
    return RouteArrays(
        **_station_fields(network, loads),
        **_step_fields(network, steps, index),
        own_serial_us=np.array([own_serial_parts(network, steps, loads, int(t)) for t in sizes]).reshape(-1, 2),
        own_serial_routed_us=np.array([own_serial_parts(network, steps, loads, int(t), True)
                                       for t in sizes]).reshape(-1, 2),
        profile=profile,
        slack=slack,
        size_transactions=sizes,
        size_probs=np.array(network.request_probs, dtype=np.float64),
        pure_delay_us=pure,
        bg_demand_us=bg_demand,
        bg_residual_us=bg_res,
        bg_behind=np.array([network.station(ld.name).reads_first for ld in loads], dtype=np.bool_),
        bg_suspend_us2=bg_suspend,
        fg_reads_first=_foreground_reads_first(network, steps, index, len(loads)),
        bg_capacity_per_us=write_buffer_capacity(network),
        suspended_pool=suspended_pool(network, index),
        run_scv=merged_run_scv(network, steps, loads),
        stage_wait_correlation=stage_wait_correlation(network, loads),
        buffer_pool=buffer_pool(network, loads),
        routed_stages=tuple(stages),
        routed_indices=tuple(index[st.station] for st in stages),
    )


def _routed_spread(network: Network, step, ld: StationLoad, transactions: int,
                   variable_service: bool) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The spread of an address-routed block ``step`` over the copies of ``ld`` for a request of
    ``transactions`` transactions, as (values in us, their probabilities): (level - 1) x the step's weighted
    service over the level distribution, or with ``variable_service`` and scv > 0 the expected last own
    departure beyond one service, per operation."""
    if variable_service and (step.scv > 0.0 or step.probability < 1.0):
        # variable service: the last own transaction there leaves after the longest of the copies'
        # own work, a request-level quantity per operation (a request is all reads or all writes;
        # an operation that skips the step spreads nothing there); beyond one transaction's way, whose
        # mean there is p S
        ops = [(op, p) for op, p in (("read", network.read_fraction), ("write", 1.0 - network.read_fraction))
               if p > 0.0]
        last = own_last_departure(transactions, int(ld.copies), ld.servers, step.scv, network.is_striped(step),
                                  step.probability)
        return (tuple(network.step_moments(step, op)[0] * (last - step.probability)
                      if step.ops in ("both", op) else 0.0 for op, _ in ops),
                tuple(p for _, p in ops))
    service = network.op_weight(step) * network.step_moments(step)[0]
    levels = serial_level_distribution(transactions, int(ld.copies), ld.servers, network.is_striped(step))
    return tuple(max(q - 1, 0) * service for q in range(len(levels))), levels


def _run_services(network: Network, step, later_steps) -> list[float]:
    """The weighted services (us) of the run that single-copy block ``step`` begins at its station: its own,
    then every later block step at that station in ``later_steps`` that is not routed over copies, in a row
    (cache lookup, translate, dispatch) or not (dispatch after an accelerator's translate)."""
    service = [network.op_weight(step) * network.step_moments(step)[0]]
    service += [network.op_weight(later) * network.step_moments(later)[0] for later in later_steps
                if later.station == step.station and not later.per_request and later.routing == "single"]
    return service


def own_serialisation_us(network: Network, steps, loads: tuple[StationLoad, ...], transactions: int,
                         routed_only: bool = False, variable_service: bool = False) -> float:
    """What a request of ``transactions`` transactions spends, at zero load, beyond one transaction's way
    through the fork-join steps ``steps`` (1., "Fork-join"), in us: E[max over the stages of their spread]
    plus the runs' delays.

    A stage's spread is (level - 1) x its service, the level the number of own transactions one server
    there serves one after another: ceil(T / c) at a single station, random where the transactions pick
    among m copies (:func:`serial_level_distribution`; stages taken as independent). For identical jobs
    in a deterministic flow line the makespan is one job's way plus the largest spread (here the expected
    largest: the max of the means is 18 % short at queue depth 1 with four transactions over two dies behind a
    shared core group). A run of consecutive steps at one
    single-copy station (one core group running cache lookup, translate and dispatch) interleaves the
    transactions FCFS (:func:`own_run_departures`): the first leaves later than its own way through the
    run (a delay every transaction pays), and the spread is that between the first and the last. Runs of
    one station that other steps separate (cache lookup and dispatch on a core group, translate between
    them on an accelerator) count as one run: the station's servers do all of the request's work there.
    Taken as two independent stages, the larger spread alone, 16 KiB requests at queue depth 1 behind one
    fast core running parse, cache lookup and dispatch come out 3.9-5.4 % faster than the DES (as one run,
    within 1.1 %).
    ``routed_only``: the address-routed stages alone, which no core or accelerator count changes (the
    re-entry gaps of 2.). ``variable_service``: at address-routed stages whose service varies (configured
    scv > 0) the spread is the expected last own departure of independent gamma services
    (:func:`own_last_departure`) instead of the deterministic level; :func:`own_serial_parts` takes the
    difference of the two."""
    if transactions <= 1:
        return 0.0
    index = {ld.name: i for i, ld in enumerate(loads)}
    spreads: list[tuple[tuple[float, ...], tuple[float, ...]]] = []
    delay = 0.0
    merged: set[str] = set()  # single-copy stations whose runs are counted
    for i, step in enumerate(steps):
        if step.per_request:
            continue
        ld = loads[index[step.station]]
        if step.routing != "single" and ld.copies > 1:
            spreads.append(_routed_spread(network, step, ld, transactions, variable_service))
            continue
        if step.station in merged:  # served with the station's first run
            continue
        merged.add(step.station)
        if routed_only:
            continue
        # all of the station's steps in the block join the run: its servers do the request's work there
        service = _run_services(network, step, steps[i + 1:])
        first, last = own_run_departures(tuple(service), transactions, ld.servers)
        delay += first - sum(service)
        spreads.append(((last - first,), (1.0,)))
    return delay + expected_max(spreads)


def own_serial_parts(network: Network, steps, loads: tuple[StationLoad, ...], transactions: int,
                     routed_only: bool = False) -> tuple[float, float]:
    """(the own serialisation with deterministic levels, what variable service adds to it), us: the
    solver adds the first to the block and combines the second with the max-of-T waits (1.)."""
    fixed = own_serialisation_us(network, steps, loads, transactions, routed_only)
    if not any((s.scv > 0.0 or s.probability < 1.0) and s.routing != "single" for s in steps):
        return fixed, 0.0
    varied = own_serialisation_us(network, steps, loads, transactions, routed_only, variable_service=True)
    return fixed, max(varied - fixed, 0.0)


def _feedback_runs(feedback: np.ndarray) -> list[list[int]]:
    """The runs of two or more steps that follow each other at one station (``feedback[i]``: step i
    follows step i - 1 there, the route taken as a loop), each as its step indices in route order."""
    n = len(feedback)
    runs = []
    for start in range(n):
        if feedback[start] or not feedback[(start + 1) % n]:
            continue  # not the first step of a run of two or more
        run = [start]
        while feedback[(run[-1] + 1) % n] and len(run) < n:
            run.append((run[-1] + 1) % n)
        runs.append(run)
    return runs


def _run_work(steps, run: list[int], is_read: bool, t: int, nbytes: float) -> tuple[bool | None, float, float]:
    """(whether the run begins per request, the mean and the variance of the work in us and us^2) that one
    arrival of the run ``run`` of ``steps`` brings for a request of the operation ``is_read``, ``t``
    transactions and ``nbytes`` bytes; None where no step of the run serves the operation."""
    per_request = None  # whether the run begins per request (for this operation)
    mean = var = 0.0
    for i in run:
        step = steps[i]
        if step.ops != "both" and (step.ops == "read") != is_read:
            continue
        if per_request is None:
            per_request = step.per_request
        if per_request:
            count = 1.0 if step.per_request else float(t)
        else:
            count = 1.0 / t if step.per_request else 1.0
        service = (step.read_us if is_read else step.write_us) + (
            step.per_byte_us * nbytes if step.per_request else 0.0)
        q = step.probability
        mean += count * q * service
        var += count * (q * service * service * (1.0 + step.scv) - (q * service) ** 2)
    return per_request, mean, var


def _add_run_moments(network: Network, steps, run: list[int], acc: list[float]) -> None:
    """Add to ``acc`` ([arrivals, sum of work, sum of work^2] per request, us) the arrivals of the run
    ``run`` of ``steps`` and their work, mixed over operations and request sizes."""
    for is_read, p_op in ((True, network.read_fraction), (False, 1.0 - network.read_fraction)):
        for t, p_size, nbytes in zip(network.transactions, network.request_probs, network.request_bytes):
            if p_op * p_size <= 0.0:
                continue
            per_request, mean, var = _run_work(steps, run, is_read, t, nbytes)
            if per_request is None or mean <= 0.0:
                continue
            arrivals = p_op * p_size * (1.0 if per_request else float(t))
            acc[0] += arrivals
            acc[1] += arrivals * mean
            acc[2] += arrivals * (var + mean * mean)


def merged_run_scv(network: Network, steps, loads: tuple[StationLoad, ...]) -> np.ndarray:
    """Per station, the scv of the work one arrival brings when its immediate feedback is merged (3.): a
    run of steps that follow each other at one station (a core group running parse and then the cache
    lookup of each transaction) is one service, as Whitt's QNA eliminates immediate feedback; where no
    step follows another at its station, the per-visit scv. The run's work is mixed over operations and
    request sizes; a run that begins per request does its per-transaction steps once per transaction, a
    run that begins per transaction does its per-request steps once per request (1 / T of a transaction).
    Steps visited with a probability count as Bernoulli visits; services of scv > 0 add their variance."""
    out = np.array([ld.scv for ld in loads], dtype=np.float64)
    if not steps:
        return out
    index = {ld.name: i for i, ld in enumerate(loads)}
    st = np.array([index[s.station] for s in steps], dtype=np.int64)
    feedback = _immediate_feedback(st, np.array([s.routing != "single" for s in steps], dtype=np.bool_))
    moments: dict[int, list[float]] = {}  # station -> [arrivals, sum of work, sum of work^2] per request
    for run in _feedback_runs(feedback):
        _add_run_moments(network, steps, run, moments.setdefault(int(st[run[0]]), [0.0, 0.0, 0.0]))
    for k, (arrivals, m1, m2) in moments.items():
        if arrivals > 0.0 and m1 > 0.0:
            mean = m1 / arrivals
            out[k] = max(m2 / arrivals / (mean * mean) - 1.0, 0.0)
    return out


@nb.njit(cache=True)
def residual_cv2(scv):
    """Squared coefficient of variation of the residual of one service, the shape of a wait at light
    load (1., "Fork-join"), for gamma service of squared coefficient ``scv`` (E[S^3] = E[S]^3 (1 + scv)
    (1 + 2 scv)): 4 (1 + 2 scv) / (3 (1 + scv)) - 1, 1/3 for deterministic service, capped at 1 (the
    exponential). Takes a number or an array."""
    return np.minimum(1.0, 4.0 * (1.0 + 2.0 * scv) / (3.0 * (1.0 + scv)) - 1.0)


@nb.njit(cache=True)
def _mmc_above(c, a, out):
    """out[j] = P(J > j), j = 0 .. c - 1, for the M/M/c stationary distribution at offered load a (< c);
    out[c - 1] = P(J >= c) is Erlang C."""
    term = 1.0
    total = 1.0
    for i in range(1, c):
        term *= a / i
        total += term
    total += term * a / (c - a)  # the states i >= c: a^c / c! / (1 - a / c)
    term = 1.0
    below = 0.0
    for j in range(c):
        if j > 0:
            term *= a / j
        below += term
        out[j] = 1.0 - below / total


@nb.njit(cache=True)
def _sibling_distribution(tx, probs, copies, striped):
    """P(B = b), b < max tx: a transaction's own siblings ahead of it at its copy of a station that a
    fork-join step routes over ``copies`` copies. K ~ Bin(T - 1, 1/m) siblings share the copy (``striped``,
    consecutive copies: K = T // m, or T // m - 1 for the transactions of the T - (T % m) (T // m) at copies of
    the lower load) and the transaction's place among them is uniform, so B | K is uniform on 0..K; size
    classes are weighted by their transactions."""
    t_max = 1
    t_mean = 0.0
    for s in range(tx.shape[0]):
        t_max = max(t_max, tx[s])
        t_mean += probs[s] * tx[s]
    dist = np.zeros(t_max)
    q = 1.0 / copies
    for s in range(tx.shape[0]):
        t = tx[s]
        w = probs[s] * t / t_mean
        if striped:
            m = int(copies + 0.5)
            q = t // m
            high = (t % m) * (q + 1)  # transactions at the copies of load q + 1; the others have q
            if high > 0:
                for b in range(q + 1):
                    dist[b] += w * high / t / (q + 1)
            if q > 0:
                for b in range(q):
                    dist[b] += w * (t - high) / t / q
            continue
        binom = 1.0
        for k in range(t):
            if k > 0:
                binom = binom * (t - k) / k
            p_k = binom * q ** k * (1.0 - q) ** (t - 1 - k)
            for b in range(k + 1):
                dist[b] += w * p_k / (k + 1)
    return dist


@nb.njit(cache=True)
def stripe_others_share(n, transactions, copies):
    """The share of the other n - 1 requests' transactions at one copy that a transaction of a striped stream
    meets at its own, against the 1 / m of random copies (Schweitzer's (n - 1) / n not included): the requests in
    flight are the n latest, their T transactions each on the T consecutive copies after the previous request's,
    so the others take the n T - T positions after a request's own T and meet its copies only where they wrap
    around the m copies: O = #{p in [T, n T): p mod m < T}, and the share is O m / ((n - 1) T^2) (1 where
    T >= m: the request is on every copy). 0 where n T <= m: a stream that fits on the copies never queues there.
    """
    t = int(transactions)
    m = int(copies + 0.5)
    if n < 2 or t >= m:
        return 1.0
    hi = n * t
    overlap = (hi // m) * t + min(hi % m, t) - ((t // m) * t + min(t % m, t))
    return overlap * m / ((n - 1.0) * t * t)


@nb.njit(cache=True)
def _set_others_share(out, n, stripe_copies, sizes, probs):
    """out[k]: the share of the other n - 1 requests an arrival meets at one copy of station k, (n - 1) / n
    (Schweitzer), times :func:`stripe_others_share` at a striped station (``stripe_copies[k]`` > 1: its copies),
    mixed over the request sizes by their transactions."""
    alpha = (n - 1.0) / n
    t_mean = 0.0
    for s in range(sizes.shape[0]):
        t_mean += probs[s] * sizes[s]
    for k in range(out.shape[0]):
        out[k] = alpha
        if stripe_copies[k] > 1.0:
            share = 0.0
            for s in range(sizes.shape[0]):
                share += probs[s] * sizes[s] / t_mean * stripe_others_share(n, sizes[s], stripe_copies[k])
            out[k] = alpha * share


@nb.njit(cache=True, inline='always')
def _with_background(wait0, p_wait0, servers, util, visits, bg_demand, bg_res, bg_behind, bg_suspend, x, wait,
                     p_wait):
    """Per-visit waits of the closed class when background work arrives at rate x * bg_demand (4.). Where the
    background queues behind the foreground (``bg_behind``: a reads-first die), a foreground visit waits for the
    foreground ahead and for the residual of background work in service only: non-preemptive priority,
    W_high = W_0 + rho_low R_low / (1 - rho_high) at one server (Cobham, Oper. Res. 2(1), 1954), the Erlang C
    share P(wait) rho_low / rho over c servers, as in the FCFS term. Work a read suspends (``bg_suspend``, its
    demand x suspension time) costs the read the suspension time where it finds that work in service (PASTA:
    with probability its utilisation) instead of its residual: preemptive-resume priority at the suspension's
    price."""
    for k in range(wait0.shape[0]):
        wait[k] = wait0[k]
        p_wait[k] = p_wait0[k]
        if bg_demand[k] > 0.0 and x > 0.0:
            c = servers[k]
            ub = min(x * bg_demand[k] / c, 0.98)
            rho = min(ub + min(util[k], 1.0), 0.98)
            pc = erlang_c(c, c * rho)
            if bg_behind[k] and bg_suspend[k] > 0.0:
                # each visit finds suspended work in service with probability x bg_demand / c and pays its
                # suspension time: p_tau per visit on average, die time that the visits queue behind too
                p_tau = x * bg_suspend[k] / c
                u = min(util[k], 0.98)
                u_s = min(x * visits[k] * p_tau / c, 0.98 - u)
                wait[k] = ((wait0[k] * (1.0 - u) + pc * ub * bg_res[k] / (rho * c)) / (1.0 - u - u_s) + p_tau)
            elif bg_behind[k]:
                wait[k] = wait0[k] + pc * ub * bg_res[k] / (rho * c * (1.0 - min(util[k], 0.98)))
            else:
                wait[k] = wait0[k] / (1.0 - ub) + pc * ub * bg_res[k] / (rho * c * (1.0 - rho))
            p_wait[k] = min(1.0, p_wait0[k] + pc * ub / rho)


GAUSS_NODES = 8  # at most; Gauss-Legendre with n nodes on [0, 1] is exact for polynomials of degree < 2n
GL_NODES = np.zeros((GAUSS_NODES + 1, GAUSS_NODES))  # row n: the n nodes
GL_WEIGHTS = np.zeros((GAUSS_NODES + 1, GAUSS_NODES))
for _n in range(1, GAUSS_NODES + 1):
    _x, _w = np.polynomial.legendre.leggauss(_n)
    GL_NODES[_n, :_n] = 0.5 * (_x + 1.0)
    GL_WEIGHTS[_n, :_n] = 0.5 * _w


@nb.njit(cache=True)
def _max_wait_factor(profile, p_top, p_low, cv, powers, tx):
    """E[max of the waits at the copies a request occupies] / theta (1., "Fork-join").

    ``profile`` rows (a, b, P(A = a, B = b)): a copies at the top level wait with probability p_top, b
    copies below with p_low. With J the number that wait and the waits delta + exponential(theta cv),
    E[max] / theta = (1 - cv) P(J > 0) + cv E[H_J], and E[H_J] = int_0^1 (1 - E[(1 - z)^J]) / z dz
    (H_j = int_0^1 (1 - y^j) / (1 - y) dy), E[(1 - z)^J] = E[(1 - p_top z)^A (1 - p_low z)^B].
    ``powers``: scratch, 2 rows of at least tx + 1 (a + b <= tx, the request's transactions)."""
    if profile[1, 2] <= 0.0 and profile[0, 1] == 0.0:
        # one (a, 0) row: J ~ Bin(a, p_top), E[H_J] = sum_{i=1..a} (1 - (1 - p)^i) / i
        none = 1.0
        harmonic = 0.0
        for i in range(1, int(profile[0, 0]) + 1):
            none *= 1.0 - p_top
            harmonic += (1.0 - none) / i
        return (1.0 - cv) * (1.0 - none) + cv * harmonic
    top = powers[0]
    low = powers[1]
    n_pow = tx + 1
    nodes = min(GAUSS_NODES, (tx + 1) // 2)  # the integrand has degree < tx
    none = 0.0
    harmonic = 0.0
    for g in range(nodes + 1):
        z = 1.0 if g == nodes else GL_NODES[nodes, g]  # z = 1: P(J = 0)
        top[0] = 1.0
        low[0] = 1.0
        for e in range(1, n_pow):
            top[e] = top[e - 1] * (1.0 - p_top * z)
            low[e] = low[e - 1] * (1.0 - p_low * z)
        pgf = 0.0
        for e in range(profile.shape[0]):
            w = profile[e, 2]
            if w <= 0.0:
                break
            pgf += w * top[int(profile[e, 0])] * low[int(profile[e, 1])]
        if g == nodes:
            none = pgf
        else:
            harmonic += GL_WEIGHTS[nodes, g] * (1.0 - pgf) / z
    return (1.0 - cv) * (1.0 - none) + cv * harmonic


@nb.njit(cache=True, inline='always')
def _cycle_time(wait, p_wait, t, dl, st, blk, own_serial, profile, slack, powers, wait_cv2, sizes, probs, weight,
                pure_delay, features, fork_scale, stage_corr):
    """Mean cycle time of a request: per-request steps, then the fork-join block per size class (1.)."""
    n_steps = st.shape[0]
    total = pure_delay
    for i in range(n_steps):
        if not blk[i]:
            total += weight[i] * (t[i] + wait[st[i]])
    for s in range(sizes.shape[0]):
        tx = sizes[s]
        block = 0.0
        dl_block = 0.0
        # per step, E[max over the occupied copies of the step's wait] - its mean: summed, and squared and summed
        maxwait = 0.0
        maxwait_sq = 0.0
        for i in range(n_steps):
            if blk[i]:
                k = st[i]
                r_i = weight[i] * (t[i] + wait[k])
                block += r_i + weight[i] * dl[i]
                dl_block += weight[i] * dl[i]
                p = p_wait[k] * weight[i]
                if tx > 1 and wait[k] > 0.0 and p > 1e-12:
                    # a wait is 0 w.p. 1 - p, else delta + exponential(theta cv) with theta = W / P and
                    # delta = theta (1 - cv), so that the max of j waits is theta (1 + cv (H_j - 1))
                    rho = min(p_wait[k], 1.0)
                    cv = math.sqrt(rho + (1.0 - rho) * wait_cv2[k])
                    theta = wait[k] / p_wait[k]
                    delta = theta * (1.0 - cv)
                    # a copy a level below the top delays the request only if its wait exceeds the
                    # service of the request's own transaction there
                    tail = 0.0
                    for o in range(2):
                        over = slack[i, o, 0] - delta
                        tail += slack[i, o, 1] * (math.exp(-over / (theta * cv)) if over > 0.0 else 1.0)
                    emax = _max_wait_factor(profile[i, s], p, p * tail, cv, powers, tx)
                    excess = fork_scale[k] * (wait[k] * weight[i] / p * emax - wait[k] * weight[i])
                    maxwait += excess
                    maxwait_sq += excess * excess
        if stage_corr < 1.0:
            # the steps' excesses as parts of one transaction's time with correlation stage_corr: the max over
            # T of the sums exceeds its mean by the root of their variance sum (exact for normal parts)
            maxwait = math.sqrt(stage_corr * maxwait * maxwait + (1.0 - stage_corr) * maxwait_sq)
        if tx > 1 and not features & FORK_JOIN:
            block = tx * (block - dl_block) + dl_block  # the station-level view: visits in sequence
        elif tx > 1:
            block += own_serial[s, 0]  # the own transactions one after another (own_serialisation_us)
            # variable service makes the last own departure later still; that spread and the max-of-T
            # waits are independent parts of each transaction's time, so their excesses over the mean add
            # as standard deviations do (exact for normal parts), not one on top of the other
            if features & MAX_WAIT:
                block += math.sqrt(maxwait * maxwait + own_serial[s, 1] * own_serial[s, 1]) if maxwait > 0.0 \
                    else own_serial[s, 1]
            else:
                block += own_serial[s, 1]
        total += probs[s] * block
    return total


@nb.njit(cache=True)
def _immediate_feedback(st, routed):
    """Per station step: True if the step before it on the (circular) route is at the same station and
    neither step picks among address-routed copies, i.e. the job goes straight back into that station's
    queue. A station whose every step is such (a route of one station) keeps them as arrivals."""
    n_steps = st.shape[0]
    feedback = np.zeros(n_steps, dtype=np.bool_)
    has_arrival = np.zeros(st.max() + 1 if n_steps else 0, dtype=np.bool_)
    for i in range(n_steps):
        prev = i - 1 if i > 0 else n_steps - 1
        feedback[i] = n_steps > 1 and st[prev] == st[i] and not routed[i] and not routed[prev]
        if not feedback[i]:
            has_arrival[st[i]] = True
    for i in range(n_steps):
        if not has_arrival[st[i]]:
            feedback[i] = False
    return feedback


@nb.njit(cache=True)
def _traffic_shares(st, sv, routed, copies):
    """[0, k, p]: the share of station k's arrivals that come from station p's departures, [1, k, p]: the
    same at one of k's copies (a random split over the copies), for the traffic equations of 3.; rows of
    stations without steps are 0. Each step's arrivals are the departures of the step before it on the
    route, taken with the share of that station's departures that go on to this step.

    Known inconsistency, kept because it measures better: the share's denominator counts every visit to
    station p, the merged immediate-feedback visits included, although those are not departures of p's
    stream once merged. So a station visited in runs passes on only part of its departures' regularity
    (a core running four modules in a row: a quarter), and the rest of its arrivals count as Poisson.
    With the departing visits alone as the denominator, a closed loop of deterministic stations has no
    source of variability left, and the traffic equations go to ca^2 = 0 everywhere, whatever the load:
    a single fast core at 22 % running all five modules at QD 3 then waited nothing where the DES waits
    0.45 us per visit (jitter from channel collisions and from the pure delay between completion and the
    next parse). That denominator, with or without Whitt's hybrid superposition weight on top or a run ended
    at a pure delay, agrees worse with the cached DES comparisons (docs/accuracy.md), although it puts reads
    at QD 3 in lockstep behind one busy core on the DES."""
    k_count = copies.shape[0]
    n_steps = st.shape[0]
    wsum = np.zeros(k_count)
    for i in range(n_steps):
        wsum[st[i]] += sv[i]
    # a step that follows another at the same single station is that job's immediate feedback: it is not
    # an arrival of the station's stream but part of the work the job brought (Whitt's QNA merges such
    # visits into one service; :func:`merged_run_scv`), so the shares are over the other arrivals
    feedback = _immediate_feedback(st, routed)
    external = np.zeros(k_count)
    for i in range(n_steps):
        if not feedback[i]:
            external[st[i]] += sv[i]
    traffic = np.zeros((2, k_count, k_count))
    for i in range(n_steps):
        prev = i - 1 if i > 0 else n_steps - 1
        k, p = st[i], st[prev]
        if feedback[i]:
            continue
        w = sv[i] / external[k] * sv[prev] / wsum[p]
        traffic[0, k, p] += w
        traffic[1, k, p] += w / copies[k] if routed[i] else w
    return traffic


@nb.njit(cache=True, inline='always')
def _flow_scv(x, scv, servers, copies, visits, svc, traffic, work):
    """Arrival scv at each station (3.): ca2 at one copy (after the random split), ca2_in at the station
    (before it), from Whitt's traffic equations solved at throughput x > 0.

    With y = cd2 - 1 the departure equations are linear, y = diag(keep) A y + h: A = traffic[0] gives the
    share of station k's arrivals that come from station p, keep = 1 - u^2 (times the displacement
    factor below at address-routed copies) and h = u^2 (scv - 1), with ``scv`` that of the work one
    arrival brings (:func:`merged_run_scv`: immediate feedback merged). They are solved directly, not
    iterated from Poisson, which converges slowly (the regularity of a busy station moves one station per
    round along the loop): after 4 rounds a 2-core station 67 % busy still sees Poisson arrivals and waits
    2.7 us where the DES waits 0.1 us (-4.8 % IOPS).

    ``work`` rows: 0 the per-server utilisations (in), 1 ca2 and 2 ca2_in (out), 3 keep, 4 h, 5 the
    right-hand side, 6 .. 6 + k the system's matrix."""
    k_count = svc.shape[0]
    share = traffic[0]
    util, ca2, ca2_in, keep, h, rhs = work[0], work[1], work[2], work[3], work[4], work[5]
    system = work[6: 6 + k_count]
    for k in range(k_count):
        if copies[k] > 1.0:
            # address-routed copies: a stream split at random and merged again after the same service is
            # the stream itself, so at low load the merged output keeps the variability of the station's
            # arrivals (before the split); queueing at a copy moves it to the service's. Variable service
            # displaces each job at random, which destroys the regularity of the arrivals once the
            # spread of the delays (sigma) exceeds the spacing of the jobs (1 / lambda): kept by
            # 1 / (1 + (lambda sigma)^2) (mixed reads and programs: lambda sigma >> 1). The merged output
            # is not capped at Poisson: reads queued behind a program leave in a clump when it ends, and
            # a superposition keeps its streams' burstiness at long time scales (QNA's asymptotic
            # method), which is what a busy station downstream sees
            u = min(util[k], 1.0)
            lam_sigma = x * visits[k] * copies[k] * svc[k] * math.sqrt(scv[k])
            keep[k] = (1.0 - u * u) / (1.0 + lam_sigma * lam_sigma)
        else:
            # as one server doing the station's work: more servers do not make the output less regular
            # (with u = X D / c and Whitt's 1/sqrt(c) they would, and IOPS could fall)
            u = min(util[k] * servers[k], 1.0)
            keep[k] = 1.0 - u * u
        h[k] = u * u * (scv[k] - 1.0)
        # keep < 1 makes the system strictly diagonally dominant (the shares of a row add up to at most
        # 1), so it is never singular, even at a station without work (u = 0)
        keep[k] = min(keep[k], 1.0 - 1e-12)
    for k in range(k_count):
        for p in range(k_count):
            system[k, p] = -keep[k] * share[k, p]
        system[k, k] += 1.0
        rhs[k] = h[k]
    y = np.linalg.solve(system, rhs)
    for k in range(k_count):
        ca2_in[k] = 1.0
        ca2[k] = 1.0
        for p in range(k_count):
            ca2_in[k] += share[k, p] * y[p]
            ca2[k] += traffic[1, k, p] * y[p]


@nb.njit(cache=True, inline='always')
def _routed_gamma(k, util, copies, share, scv, bg_demand):
    """Kingman's gamma = (ca^2 + cs^2) / (1 + cs^2) at address-routed copies k (a channel; 3.), with ca^2
    that of its arrivals' local source: the merged output of address-routed copies upstream (its dies),
    each taken with Poisson arrivals (a 1 / m random split of the requests), cd^2 = 1 + u^2 (cs^2 - 1)
    (Whitt's departure equation at ca^2 = 1), merged by QNA's asymptotic method (the rate-weighted mean;
    W. Whitt, Bell Syst. Tech. J. 62(9), 1983). Arrivals from single-copy stations count as Poisson; so
    does a station fed by nothing routed (a die: gamma 1), or only by its own output around the loop (dies
    behind nothing but pure delays: counted as their own regular source they would see gamma = 1 - u^2 and
    no wait at all at full load, 6 dies at QD 8 +42 % against the DES), and so do the outputs of copies
    that also run background work (``bg_demand`` > 0: reads queued behind a buffered program leave
    together when it ends, which the foreground scv does not see; counted regular, the open JESD219 mix at
    70 % reads moves further from the DES's mean latency). The open solver uses the same factor
    (:func:`routed_arrival_gamma`).

    Deterministic dies u busy space their transfers out, and the channel waits less: channel-bound reads
    at QD 18 (2-4 channels 60-91 % busy behind 8 dies each) with Poisson arrivals wait 7.1 and 26.6 us in the
    model where the DES waits 4.6 and 20.9 us (the model 3-4.4 % low on IOPS; with this, -1.9..-2.6 %). The
    loop's own fixed-point flow at the dies instead (their arrivals' ca^2 propagated) puts the same designs
    +9..+13 % high (+4..+11 % with a 1 / channels share of it): the closed loop's flow is more regular
    than the DES's. Whitt's hybrid superposition weight 1 / (1 + 4 (1 - rho)^2 (dies - 1)) on top costs
    one design in each comparison set."""
    ca2 = 1.0
    for p in range(copies.shape[0]):
        if p != k and share[k, p] > 0.0 and copies[p] > 1.0 and bg_demand[p] <= 0.0:
            u = min(util[p], 1.0)
            ca2 += share[k, p] * u * u * (scv[p] - 1.0)
    return (ca2 + scv[k]) / (1.0 + scv[k])


@nb.njit(cache=True, inline='always')
def _waits_at(x, n, svc, flow_scv, servers, copies, visits, traffic, demand, f_residual, siblings,
              sibling_queue, above, features, wait0, p_wait0, work, bg_demand):
    """Per-visit waits (before the background's share) and P(wait) of every station when the closed
    workload of n requests runs at throughput x (requests/us); the per-server utilisations go to work[0]
    (``work``: scratch, see :func:`_flow_scv`).

    An arrival sees the other n - 1 requests: Schweitzer's estimate Q(n - 1) = (n - 1)/n Q(n), and the same
    share of the busy servers; at the copies of a striped stream that share is work[6 + k_count] (set by the
    kernel, :func:`stripe_others_share`).
    With Q = lam (S + W) the residual-corrected wait is linear in W, so each station's local fixed point is
    closed-form."""
    k_count = svc.shape[0]
    util, ca2, ca2_in = work[0], work[1], work[2]
    others = work[6 + k_count]
    for k in range(k_count):
        util[k] = x * demand[k] / servers[k]
        ca2[k] = 1.0
        ca2_in[k] = 1.0
    # the address-routed copies first: their waits do not use the propagated flow (_routed_gamma)
    for j in range(2 * k_count):
        if j == k_count and features & FLOW and x > 0.0 and n >= 2:  # 3. the flow; with one request nobody waits
            _flow_scv(x, flow_scv, servers, copies, visits, svc, traffic, work)
        k = j % k_count
        if (j < k_count) != (copies[k] > 1.0):
            continue
        wait0[k] = 0.0
        p_wait0[k] = 0.0
        if demand[k] <= 0.0 or n < 2:
            continue
        c = servers[k]
        gamma = 1.0
        if features & FLOW:
            if copies[k] == 1.0:
                gamma = (ca2[k] + flow_scv[k]) / (1.0 + flow_scv[k])
            else:
                gamma = _routed_gamma(k, util, copies, traffic[0], flow_scv, bg_demand)
        f = f_residual[k]
        lam = others[k] * x * visits[k]  # the others' visits per us at one copy: Q' = lam (S + W + W_sib)
        present = svc[k] + sibling_queue[k]  # a visit's time there besides the wait for others (in work)
        busy = min(others[k] * util[k], 0.999999)  # per server
        if c == 1:
            # W = gamma S (Q' - busy + f busy)
            slope = gamma * svc[k] * lam
            num = gamma * svc[k] * (lam * present - (1.0 - f) * busy)
            p_wait0[k] = busy
        else:
            # W = gamma (S / c) (E[(J - c)+] + f P(J >= c)) with E[(J - c)+] = Q' - c busy, the M/M/c
            # shape below c, and b own siblings ahead: the transaction waits once J >= c - b (1.)
            a_busy = c * busy
            _mmc_above(c, a_busy, above)
            const = 0.0
            pw = 0.0
            for b in range(siblings.shape[1]):
                pb = siblings[k, b]
                if pb <= 0.0:
                    continue
                need = c - b
                if need > 0:
                    # E[(J - need)+] = E[(J - c)+] + sum_{j = need .. c - 1} P(J > j)
                    const += pb * (above[need:c].sum() + f * above[need - 1] - a_busy)
                    pw += pb * above[need - 1]
            slope = gamma * svc[k] / c * lam
            num = gamma * svc[k] / c * (lam * present + const)
            p_wait0[k] = pw
        if gamma > 1.0 or copies[k] > 1.0:
            # bursty arrivals, and any at address-routed copies: gamma times the Poisson-arrival wait of
            # the same fixed point. Inside the fixed point gamma would also scale the others' waits in Q',
            # and the station would saturate at X = 1 / (gamma D), not at its capacity (3.)
            slope = svc[k] * lam if c == 1 else svc[k] / c * lam
        wait0[k] = max(num, 0.0) / (1.0 - slope) if slope < 1.0 else 1e30


@nb.njit(cache=True, inline='always')
def _reads_first_waits(wait, util, fg_first, x, visits):
    """:func:`reads_first_wait` at every station that ``fg_first`` marks (f_r > 0) and where visits wait."""
    for k in range(wait.shape[0]):
        f = fg_first[k]
        if f[0] > 0.0 and wait[k] > 0.0:
            wait[k] = reads_first_wait(wait[k], util[k], x, visits[k], f)


@nb.njit(cache=True)
def _cycle_at(x, n, svc, flow_scv, servers, copies, visits, st, t, dl, traffic, blk, own_serial, sizes, probs,
              pure_delay, features, weight, demand, f_residual, siblings, sibling_queue, above, bg_demand, bg_res,
              bg_behind, bg_suspend, has_bg, profile, slack, powers, wait_cv2, wait0, p_wait0, wait, p_wait, work,
              fork_scale, stage_corr, fg_first, has_fg_first):
    """Cycle time (us) of a request at throughput x with n requests in the system (``work``: scratch, see
    :func:`_flow_scv`). The helpers it calls are inlined: with this many array arguments, numba's call
    overhead would be about a quarter of the solve."""
    util = work[0]
    _waits_at(x, n, svc, flow_scv, servers, copies, visits, traffic, demand, f_residual, siblings,
              sibling_queue, above, features, wait0, p_wait0, work, bg_demand)
    if has_bg:
        _with_background(wait0, p_wait0, servers, util, visits, bg_demand, bg_res, bg_behind, bg_suspend, x, wait,
                         p_wait)
    else:
        wait[:] = wait0
        p_wait[:] = p_wait0
    if has_fg_first:
        _reads_first_waits(wait, util, fg_first, x, visits)
    return _cycle_time(wait, p_wait, t, dl, st, blk, own_serial, profile, slack, powers, wait_cv2, sizes, probs,
                       weight, pure_delay, features, fork_scale, stage_corr)


@nb.njit(cache=True)
def _residual_factors(svc, scv, servers, copies, st, t, dl, sv, routed, cycle0, features, closed_loop=True):
    """The residual service an arrival waits for at each station, in units of S (2., "Re-entry"):
    (1 + scv) / 2, moved to 1 for the share of arrivals that come back before the next job's service ends
    (P(same copy) x max(0, 1 - gap / S), gaps at zero load; ``cycle0``: the zero-load cycle time). In a
    closed loop the route wraps round (a completed request comes back as the next one); in an open
    network only the visits after an earlier one of the same request count."""
    k_count = svc.shape[0]
    n_steps = st.shape[0]
    resp = t + dl
    reentry = np.zeros(k_count)
    vsum = np.zeros(k_count)
    if features & REENTRY:
        for i in range(n_steps):
            k = st[i]
            gap = 0.0
            j = i - 1
            found = False
            for _ in range(n_steps - 1):
                if j < 0:
                    if not closed_loop:
                        break
                    j = n_steps - 1
                if st[j] == k:
                    found = True
                    break
                gap += resp[j]
                j -= 1
            if not found:
                if not closed_loop:
                    vsum[k] += sv[i]
                    continue
                gap = cycle0 - resp[i]
            same = 1.0 / copies[k] if routed[i] else 1.0
            if svc[k] > 0.0:
                reentry[k] += sv[i] * same * max(0.0, 1.0 - gap / svc[k])
            vsum[k] += sv[i]
    f_residual = 0.5 * (1.0 + scv)  # the residual service an arrival waits for, in units of S
    for k in range(k_count):
        if vsum[k] > 0.0:
            r = reentry[k] / vsum[k] / servers[k]
            f_residual[k] = r + (1.0 - r) * f_residual[k]
    return f_residual


@nb.njit(cache=True)
def _route_kernel(svc, scv, servers, copies, visits, st, t, dl, sv, blk, routed, striped, own_serial, own_serial_routed,
                  profile, slack, sizes, probs, pure_delay, n_max, features, weight, bg_demand, bg_res, bg_behind,
                  bg_suspend,
                  bg_capacity,
                  run_scv, sibling_work, fork_scale, stage_corr, fg_first, cap_background=True, x_at=-1.0):
    k_count = svc.shape[0]
    has_fg_first = fg_first.max() > 0.0
    n_steps = st.shape[0]
    demand = visits * svc
    capacity = bg_capacity
    for k in range(k_count):
        total = demand[k] + (bg_demand[k] if cap_background else 0.0)
        # the suspensions' die time, visits x (x bg_suspend) per request, grows with x (and so does the
        # foreground's, read visits x (x s), reads_first_wait): the root of x (total + x a) = c
        a = fg_first[k, 0] * visits[k] * fg_first[k, 5] / servers[k]
        if cap_background:
            a += visits[k] * bg_suspend[k] / servers[k]
        if total > 0.0 and a > 0.0:
            capacity = min(capacity, (math.sqrt(total * total + 4.0 * a * servers[k]) - total) / (2.0 * a))
        elif total > 0.0:
            capacity = min(capacity, servers[k] / total)
    x_by_n = np.zeros(n_max + 1)
    wait = np.zeros(k_count)
    p_wait = np.zeros(k_count)
    wait0 = np.zeros(k_count)  # before the background's share (4.)
    p_wait0 = np.zeros(k_count)
    has_bg = bg_demand.max() > 0.0
    above = np.zeros(max(servers.max(), 1))  # P(J > j) at one multi-server station, j < c
    work = np.zeros((7 + k_count, k_count))  # _flow_scv's rows, then the others' share at each station
    stripe_copies = np.zeros(k_count)  # the copies of a station a striped step routes over (0: none)
    for i in range(n_steps):
        if striped[i] and blk[i]:
            stripe_copies[st[i]] = copies[st[i]]
    t_max = 1
    for s in range(sizes.shape[0]):
        t_max = max(t_max, sizes[s])
    # own siblings ahead at stations that a fork-join step routes over several copies (1.)
    siblings = np.zeros((k_count, t_max))
    siblings[:, 0] = 1.0
    for i in range(n_steps):
        if blk[i] and routed[i] and t_max > 1 and copies[st[i]] > 1.0:
            siblings[st[i], :] = _sibling_distribution(sizes, probs, copies[st[i]], striped[i])
    # a visit's wait behind its own siblings there (b ahead on c servers: (b - c + 1) S / c), part of the
    # time the others spend at the station and so of the queue an arrival sees (1.)
    sibling_wait = np.zeros(k_count)
    for k in range(k_count):
        for b in range(servers[k], t_max):
            sibling_wait[k] += siblings[k, b] * (b - servers[k] + 1) * svc[k] / servers[k]
    # in the queue an arrival finds, a transaction waiting behind its own siblings brings the work of its
    # operation, E[m_op^2] / E[m_op] (``Network.sibling_work_ratio``), not the station's mean
    sibling_queue = sibling_wait * sibling_work
    # at a single-copy station that the fork-join block visits at one step, the others' transactions queued
    # behind their own siblings (b ahead, uniform on 0 .. T - 1) are in the queue an arrival finds too (1.)
    if t_max > 1:
        flat = _sibling_distribution(sizes, probs, 1.0, False)
        block_steps = np.zeros(k_count, dtype=np.int64)
        for i in range(n_steps):
            if blk[i]:
                block_steps[st[i]] += 1
        for i in range(n_steps):
            k = st[i]
            if blk[i] and not routed[i] and copies[k] == 1.0 and block_steps[k] == 1:
                for b in range(servers[k], t_max):  # weighted by the step's share of the station's visits
                    sibling_queue[k] += sv[i] / visits[k] * flat[b] * (b - servers[k] + 1) * t[i] / servers[k]
    wait_cv2 = residual_cv2(scv)
    traffic = _traffic_shares(st, sv, routed, copies)  # 3.
    # 2. re-entry: the fraction of arrivals that find the service they left just begun. The gaps are
    # taken at zero load (service and delays only), so they do not depend on the servers elsewhere.
    zero = np.zeros(k_count)
    powers = np.zeros((2, t_max + 1))  # scratch of _max_wait_factor
    cycle0 = _cycle_time(zero, zero, t, dl, st, blk, own_serial, profile, slack, powers, wait_cv2, sizes, probs, weight,
                         pure_delay, features, fork_scale, stage_corr)
    # the re-entry gaps count the own serialisation only where no core or accelerator count changes it
    cycle_gap = _cycle_time(zero, zero, t, dl, st, blk, own_serial_routed, profile, slack, powers, wait_cv2, sizes,
                            probs, weight, pure_delay, features, fork_scale, stage_corr)
    f_residual = _residual_factors(svc, scv, servers, copies, st, t, dl, sv, routed, cycle_gap, features)
    # X(n) = the largest X <= capacity with X cycle_n(X) <= n, floored at X(n - 1). X cycle_n(X) - n
    # rises with X, so the root lies between X(n - 1) (when that is still below it; otherwise the floor
    # holds) and the population bound n / cycle_n(0); Illinois regula falsi keeps F(lo) <= 0 < F(hi).
    for n in range(1, n_max + 1 if x_at < 0.0 else 1):  # x_at >= 0: the waits at X = x_at, no X(n) solved
        _set_others_share(work[6 + k_count], n, stripe_copies, sizes, probs)
        lo = x_by_n[n - 1]
        f_lo = lo * _cycle_at(lo, n, svc, run_scv, servers, copies, visits, st, t, dl, traffic, blk, own_serial,
                              sizes, probs, pure_delay, features, weight, demand, f_residual, siblings,
                              sibling_queue, above, bg_demand, bg_res, bg_behind, bg_suspend, has_bg, profile, slack,
                              powers, wait_cv2, wait0, p_wait0, wait, p_wait, work, fork_scale, stage_corr, fg_first,
                              has_fg_first) - n
        if f_lo > 0.0:
            x_by_n[n] = lo
            continue
        top = min(capacity, n / cycle0)
        hi = top
        if n > 2:  # a tighter first bracket: twice the last step
            hi = min(top, lo + 2.0 * (x_by_n[n - 1] - x_by_n[n - 2]))
        while True:
            f_hi = hi * _cycle_at(hi, n, svc, run_scv, servers, copies, visits, st, t, dl, traffic, blk, own_serial,
                                  sizes, probs, pure_delay, features, weight, demand, f_residual, siblings,
                                  sibling_queue, above, bg_demand, bg_res, bg_behind, bg_suspend, has_bg, profile,
                                  slack, powers, wait_cv2, wait0, p_wait0, wait, p_wait, work, fork_scale, stage_corr,
                                  fg_first, has_fg_first) - n
            if f_hi > 0.0 or hi >= top:
                break
            lo, f_lo = hi, f_hi
            hi = top
        if f_hi <= 0.0:
            x_by_n[n] = hi
            continue
        side = 0
        for _ in range(ROOT_ITERATIONS):
            mid = (lo * f_hi - hi * f_lo) / (f_hi - f_lo)
            if not lo < mid < hi:
                mid = 0.5 * (lo + hi)
            f_mid = mid * _cycle_at(mid, n, svc, run_scv, servers, copies, visits, st, t, dl, traffic, blk,
                                    own_serial, sizes, probs, pure_delay, features, weight, demand, f_residual,
                                    siblings, sibling_queue, above, bg_demand, bg_res, bg_behind, bg_suspend, has_bg,
                                    profile,
                                    slack, powers, wait_cv2, wait0, p_wait0, wait, p_wait, work, fork_scale,
                                    stage_corr, fg_first, has_fg_first) - n
            if abs(f_mid) <= ROOT_REL_TOL * n:  # X is then within about ROOT_REL_TOL of the root
                lo = mid
                break
            if f_mid <= 0.0:
                lo, f_lo = mid, f_mid
                if side == -1:
                    f_hi *= 0.5
                side = -1
            else:
                hi, f_hi = mid, f_mid
                if side == 1:
                    f_lo *= 0.5
                side = 1
            if hi - lo <= ROOT_REL_TOL * hi:
                break
        x_by_n[n] = lo
    x = x_by_n[n_max] if x_at < 0.0 else x_at
    _set_others_share(work[6 + k_count], n_max, stripe_copies, sizes, probs)
    cycle = _cycle_at(x, n_max, svc, run_scv, servers, copies, visits, st, t, dl, traffic, blk, own_serial, sizes,
                      probs, pure_delay, features, weight, demand, f_residual, siblings, sibling_queue, above,
                      bg_demand, bg_res, bg_behind, bg_suspend, has_bg, profile, slack, powers, wait_cv2, wait0,
                      p_wait0, wait,
                      p_wait, work, fork_scale, stage_corr, fg_first, has_fg_first)
    residence = visits * (svc + sibling_wait + wait)
    queue = x * residence
    return x_by_n, residence, queue, p_wait, cycle


@nb.njit(cache=True)
def _route_latency(wait, p_wait, t, dl, st, blk, own_serial, profile, slack, wait_cv2, sizes, probs, weight, pure_delay,
                   features, fork_scale, stage_corr):
    t_max = 1
    for s in range(sizes.shape[0]):
        t_max = max(t_max, sizes[s])
    powers = np.zeros((2, t_max + 1))  # scratch of _max_wait_factor
    return _cycle_time(wait, p_wait, t, dl, st, blk, own_serial, profile, slack, powers, wait_cv2, sizes, probs, weight,
                       pure_delay, features, fork_scale, stage_corr)


def route_latency(arrays: RouteArrays, wait_us: np.ndarray, p_wait: np.ndarray, batch_waits: bool = False,
                  features: int = ALL_FEATURES) -> float:
    """Mean latency (us) of a request along the route when each station's per-visit wait is ``wait_us`` (an
    arrival waits with probability ``p_wait``): its per-request steps plus the fork-join makespan of its
    transactions (1.), as in the closed solver's cycle time. The open solver uses it with its M/G/c waits;
    summing every transaction's visits instead treats a request's parallel transactions as sequential.

    ``batch_waits``: the waits are those of the first of a batch (``open.py``, M^X/G/c), so a request's
    transactions at a single station wait for the others once, together, and then follow each other (the
    serialisation of 1.); across address-routed copies the makespan still takes the max over the copies
    the request occupies. Without it each transaction at a single station waits on its own."""
    a = arrays
    fork_scale = a.fork_scale if a.fork_scale is not None else np.ones(a.service_us.shape[0])
    stage_corr = float(a.stage_wait_correlation)
    weight = a.step_weight if a.step_weight is not None else np.ones(a.step_station.shape[0])
    profile = a.profile
    if batch_waits:
        profile = profile.copy()
        single = ~a.step_routed
        profile[single] = 0.0
        profile[single, :, 0] = (1.0, 0.0, 1.0)
    return float(_route_latency(np.asarray(wait_us, dtype=np.float64), np.asarray(p_wait, dtype=np.float64),
                                a.step_service_us, a.step_delay_us, a.step_station, a.step_in_block, a.own_serial_us,
                                profile, a.slack, residual_cv2(a.scv), a.size_transactions, a.size_probs, weight,
                                a.pure_delay_us, int(features), fork_scale, stage_corr))


def routed_arrival_gamma(arrays: RouteArrays, x_per_us: float, demand_us: np.ndarray) -> np.ndarray:
    """Per station: the Kingman factor gamma (:func:`_routed_gamma`) by which the wait of a station fed by
    address-routed copies differs from its wait behind Poisson arrivals, when the network runs at
    ``x_per_us`` requests/us with per-copy demands ``demand_us`` (background work included); 1 at every
    other station. For the open solver, whose stations otherwise all see Poisson arrivals: the channels
    behind deterministic dies, and a single channel or the PCIe link behind them (on 100 uniformly
    sampled 4/8/16 KiB designs open at 80 % load the worst error is +22.4 % with the single-copy stations
    included, +25.0 % without them and +29.0 % without any of it)."""
    a = arrays
    k_count = a.service_us.shape[0]
    gamma = np.ones(k_count)
    if not np.any(a.copies > 1.0):
        return gamma
    share = _traffic_shares(a.step_station, a.step_visits, a.step_routed, a.copies)[0]
    util = x_per_us * np.asarray(demand_us, dtype=np.float64) / a.servers
    scv = a.run_scv if a.run_scv is not None else a.scv
    bg = a.bg_demand_us if a.bg_demand_us is not None else np.zeros(k_count)
    for k in range(k_count):
        if np.any((share[k] > 0.0) & (a.copies > 1.0)):
            gamma[k] = _routed_gamma(k, util, a.copies, share, scv, bg)
    return gamma


def residual_factors(arrays: RouteArrays, closed_loop: bool = True, features: int = ALL_FEATURES) -> np.ndarray:
    """Per station, the residual service an arrival waits for in units of its mean service S: (1 + scv) / 2,
    and 1 for the arrivals that come back before the service that started when they left has ended (2.,
    "Re-entry"; the closed solver's factor, used by the open solver too). A job that leaves a server and
    rejoins the back of its queue at once (a core group running two modules in a row) waits for everyone
    it left behind plus that full service: in M/G/1 the mean wait becomes rho S f / (1 - rho) with
    f = r + (1 - r) (1 + scv) / 2 for a share r of such arrivals (Little's law on the queue of visits;
    the arrivals that re-enter see on average what a Poisson arrival sees). ``closed_loop`` False (open
    networks): a request's first visit to a station is never a re-entry."""
    a = arrays
    cycle0 = 0.0  # only the wrap-round of a closed loop needs the zero-load cycle
    if closed_loop:
        # as in the kernel: the own serialisation only at the address-routed stages
        zero = np.zeros(a.service_us.shape[0])
        fork_scale = a.fork_scale if a.fork_scale is not None else np.ones(a.service_us.shape[0])
        stage_corr = float(a.stage_wait_correlation)
        weight = a.step_weight if a.step_weight is not None else np.ones(a.step_station.shape[0])
        cycle0 = float(_route_latency(zero, zero, a.step_service_us, a.step_delay_us, a.step_station, a.step_in_block,
                                      a.own_serial_routed_us, a.profile, a.slack, residual_cv2(a.scv),
                                      a.size_transactions, a.size_probs, weight, a.pure_delay_us, int(features),
                                      fork_scale, stage_corr))
    return _residual_factors(a.service_us, a.scv, a.servers, a.copies, a.step_station, a.step_service_us,
                             a.step_delay_us, a.step_visits, a.step_routed, cycle0, int(features), closed_loop)


def suspension_us2(arrays: RouteArrays) -> np.ndarray:
    """Per station, s: the die time (us per request at one copy) the reads spend suspending programs and erases is
    s x at throughput x (requests/us), in us^2 per request: each visit finds work it suspends in service with
    probability x x (its demand x suspension time) / c (4., the kernel's own term; a write-through drive's reads
    suspend the writes' operations alike, ``priority.reads_first_wait``)."""
    a = arrays
    s = np.zeros(a.service_us.shape)
    if a.bg_suspend_us2 is not None:
        s = s + np.where(a.bg_behind, a.visits * a.bg_suspend_us2 / a.servers, 0.0)
    if a.fg_reads_first is not None:
        s = s + a.fg_reads_first[:, 0] * a.visits * a.fg_reads_first[:, 5] / a.servers
    return s


def capacity_per_us(demand_us, suspension_us2, servers) -> np.ndarray:
    """Per station, the throughput (requests/us) its ``servers`` sustain with ``demand_us`` per request at one copy:
    c / D, and where reads suspend programs there (``suspension_us2`` s > 0, :func:`suspension_us2`) the root of
    x (D + s x) = c; inf without work."""
    d = np.asarray(demand_us, dtype=float)
    s = np.asarray(suspension_us2, dtype=float)
    safe_d = np.where(d > 0.0, d, 1.0)
    safe_s = np.where(s > 0.0, s, 1.0)
    root = (np.sqrt(d * d + 4.0 * safe_s * servers) - d) / (2.0 * safe_s)
    return np.where(d > 0.0, np.where(s > 0.0, root, servers / safe_d), np.inf)


def station_capacity_per_us(arrays: RouteArrays) -> np.ndarray:
    """Per station, the throughput (requests/us) its servers sustain: :func:`capacity_per_us` of D + D_background
    per copy, the suspensions' die time growing with x as in the kernel (4.). Their minimum is the route solver's
    capacity bound (without the write buffer's)."""
    a = arrays
    total = a.visits * a.service_us + (a.bg_demand_us if a.bg_demand_us is not None else 0.0)
    return capacity_per_us(total, suspension_us2(a), a.servers)


def queue_at_capacity(arrays: RouteArrays, sol: ClosedSolution) -> np.ndarray:
    """Mean jobs per station copy of ``sol`` with the requests that the capacity bound leaves over queued at
    the bottleneck.

    X(N) is capped at the capacity c / D of the bottleneck; there a request's cycle of waits at that X is shorter
    than N / X, and the rest of the population,
    X (N / X - cycle) = N - X cycle requests (``sol.capacity_wait_us`` per request), can only be queued at
    the station that holds X (``sol.capacity_stations``; Little's law; the
    latency N / X includes it already). With it one fast core 100 % busy with 4 KiB reads at QD 64 reports
    61.0 jobs, as the DES holds (3.4 without it). A request of T transactions may hold up to T jobs there, so
    for those this is a lower bound (16 KiB at QD 22: 20.6, 2.2 without it, where the DES counts 46.6
    transaction jobs). Split evenly over the stations at the bound and over each one's copies. Only the reported
    queues: the p99 estimate keeps ``sol.queue`` (with these it is further from the DES at two of three
    saturated designs)."""
    x = sol.throughput_per_us
    at_bound = np.array(sol.capacity_stations, dtype=np.int64)
    if sol.capacity_wait_us <= 0.0 or at_bound.size == 0:
        return sol.queue
    queue = sol.queue.copy()
    queue[at_bound] += x * sol.capacity_wait_us / at_bound.size / arrays.copies[at_bound]
    return queue


def _solver(arrays: RouteArrays, population: int, features: int):
    """The route kernel over ``arrays`` at ``population``: solve(cap_per_us, cap_background=True, x_at=-1.0) gives
    (X(n), residences, queues, P(wait), cycle) with X held to ``cap_per_us``, or with X fixed at ``x_at``."""
    if population < 1:
        raise ValueError(f"population must be >= 1, got {population}")
    a = arrays
    k = a.service_us.shape[0]
    weight = a.step_weight if a.step_weight is not None else np.ones(a.step_station.shape[0])
    bg_d = a.bg_demand_us if a.bg_demand_us is not None else np.zeros(k)
    bg_r = a.bg_residual_us if a.bg_residual_us is not None else np.zeros(k)
    sibling_work = a.sibling_work if a.sibling_work is not None else np.ones(k)
    fork_scale = a.fork_scale if a.fork_scale is not None else np.ones(k)
    stage_corr = float(a.stage_wait_correlation)
    fg_first = a.fg_reads_first if a.fg_reads_first is not None else np.zeros((k, FG_COLUMNS))

    def solve(cap_per_us: float, cap_background: bool = True, x_at: float = -1.0):
        return _route_kernel(a.service_us, a.scv, a.servers, a.copies, a.visits, a.step_station, a.step_service_us,
                             a.step_delay_us, a.step_visits, a.step_in_block, a.step_routed, a.step_striped,
                             a.own_serial_us,
                             a.own_serial_routed_us, a.profile, a.slack, a.size_transactions, a.size_probs,
                             a.pure_delay_us, int(population), int(features), weight, bg_d, bg_r,
                             a.bg_behind if a.bg_behind is not None else np.zeros(k, dtype=np.bool_),
                             a.bg_suspend_us2 if a.bg_suspend_us2 is not None else np.zeros(k), cap_per_us,
                             a.run_scv if a.run_scv is not None else a.scv, sibling_work, fork_scale, stage_corr,
                             fg_first, cap_background, float(x_at))

    return solve


def residences_at(arrays: RouteArrays, population: int, x_per_us: float,
                  features: int = ALL_FEATURES) -> tuple[np.ndarray, np.ndarray]:
    """Per station copy, the residence (us per request) and P(wait) that the route MVA's corrections give at
    ``population`` requests with X fixed at ``x_per_us`` (requests/us) instead of solved for; the write buffer's
    pool (5.) is not applied."""
    _, residence, _, p_wait, _ = _solver(arrays, population, features)(math.inf, x_at=x_per_us)
    return residence, p_wait


def solve_route(arrays: RouteArrays, population: int, features: int = ALL_FEATURES) -> ClosedSolution:
    """Solve the closed controller network at queue depth ``population`` (see the module docstring)."""
    a = arrays
    solve = _solver(arrays, population, features)

    # 5. the write buffer: its pool's chain (write_buffer.py) over the route without the buffer, whose
    # background work the chain's drain does (so it does not cap the route), or, where the chain does not
    # apply, the throughput bound of the buffer's background runs alone
    cap = float(a.bg_capacity_per_us)
    blocked = None  # of the writes: known from the chain only (at the bound alone, whatif takes Little's law)
    if a.buffer_pool is None or a.buffer_pool.queue_depth != population:
        xs, res, q, pw, cycle = solve(cap)
        x = float(xs[population])
        if a.suspended_pool is not None and suspended_drain_per_us(a, x) < x * (1.0 - POOL_REL_TOL):
            # reads suspend the runs: what the buffer drains falls as X rises; X = drain(X) lies below x
            cap = brentq(lambda y: y - suspended_drain_per_us(a, y), 0.0, x, rtol=POOL_REL_TOL)
            xs, res, q, pw, cycle = solve(cap)
            x = float(xs[population])
        held = x >= cap * (1.0 - 1e-9)
    else:
        pool = a.buffer_pool
        fast = solve(math.inf, cap_background=False)[0]
        own_util = (a.visits * a.service_us / a.servers)[list(pool.stations)]  # per request/us, per server

        @lru_cache(maxsize=None)
        def chain(x: float) -> tuple[float, float]:  # (X, blocked writes) through the chain, requests at x
            return pool_throughput(pool, fast, pool.drain_per_us(own_util * x))

        # the requests' share of the dies depends on X: X = chain(X), falling in X, lies between the route
        # alone and what the chain gives at that rate (without such a share, chain(x) is one number)
        top = float(fast[population])
        cap = chain(top)[0]
        if own_util.any() and cap < top * (1.0 - POOL_REL_TOL):
            cap = brentq(lambda x: x - chain(x)[0], cap, top, rtol=POOL_REL_TOL)
        held = cap < top * (1.0 - 1e-9)  # the chain holds the requests below the route alone
        blocked = chain(cap if own_util.any() else top)[1] if held else 0.0
        xs, res, q, pw, cycle = solve(cap if held else math.inf)
        xs = np.append(fast[:population], xs[population])  # X(n < N): the route without the buffer
        x = float(xs[population])
        held = held and x >= cap * (1.0 - 1e-9)
    # held by the write buffer, the route alone would run faster: the rest of N / X is the requests' wait for
    # the buffer (a write that finds too few free slots does its background run itself); held at a station's
    # capacity, it is queued there (queue_at_capacity)
    bound = station_capacity_per_us(a)
    at_bound = () if held else tuple(int(k) for k in np.flatnonzero(x >= bound * (1.0 - 1e-9)))
    return ClosedSolution(population=population, throughput_per_us=x, throughput_by_n=xs, residence_us=res,
                          queue=q, p_wait=pw, response_us=population / x,
                          buffer_wait_us=max(population / x - float(cycle), 0.0) if held else 0.0,
                          capacity_wait_us=max(population / x - float(cycle), 0.0) if at_bound else 0.0,
                          at_write_buffer_bound=held, write_blocked_fraction=blocked,
                          capacity_stations=at_bound)


STAGE_BEHIND_REST_UTILIZATION = 0.5  # the busiest station a die or channel at least this busy (6.)


def stage_behind_rest(network: Network, arrays: RouteArrays, sol: ClosedSolution,
                      utilization: np.ndarray) -> ClosedSolution:
    """``sol`` (the route MVA's solution of ``network`` at its queue depth) with X raised to what the dies and
    channels sustain, run event by event behind the rest of the route as a fixed delay (6.), where that is
    more; otherwise ``sol`` itself. Where the busiest station (``utilization``, per server, at ``sol``'s X) is a
    die or channel at least ``STAGE_BEHIND_REST_UTILIZATION`` busy, every request is one transaction, every die and
    channel station is in the stage (``routed_stage.routed_stages``), and X is not held at a bound. The
    residences at the dies and channels are scaled to the stage's time; the rest's are kept."""
    population = sol.population
    routed = list(arrays.routed_indices)
    held = any(st.hold for st in arrays.routed_stages)  # the absorbed hold's capacity is an estimate (held.py)
    if (not routed or sol.at_write_buffer_bound or (sol.capacity_wait_us > 0.0 and not held)
            or not arrays.one_transaction
            or {st.station for st in arrays.routed_stages}
            != {st.name for st in network.stations if st.kind in ROUTED_KINDS}):
        return sol
    busiest = int(np.argmax(utilization))
    if busiest not in routed or utilization[busiest] < STAGE_BEHIND_REST_UTILIZATION:
        return sol
    stage_us = float(np.sum(sol.residence_us[routed] * arrays.copies[routed]))
    think_us = sol.response_us - stage_us  # one transaction: no fork-join, the rest is everything else
    if set(sol.capacity_stations) & set(routed):  # (held only) the wait at a die's or channel's capacity is the stage's
        think_us -= sol.capacity_wait_us
    if not (stage_us > 0.0 and think_us >= -1e-9 * sol.response_us):
        return sol
    think_us = max(think_us, 0.0)
    # 200,000 requests (the stage's default): over 8 seeds the estimate's spread is 0.06-0.22 %, where 50,000
    # give up to 0.8 % with reads and programs mixed, which the max below would turn into a bias upwards
    capacity = station_capacity_per_us(arrays)
    if held:  # the stage runs the dies and channels as they are
        capacity = np.delete(capacity, routed)
    x = min(routed_stage_per_us(population, (1,), (1.0,), arrays.routed_stages, think_us=think_us),
            float(np.min(capacity, initial=math.inf)))
    if x <= sol.throughput_per_us and not held:
        return sol  # a held die's stage replaces X either way
    residence = sol.residence_us.copy()
    residence[routed] *= max(population / x - think_us, 0.0) / stage_us
    by_n = sol.throughput_by_n.copy()
    by_n[population] = x
    return replace(sol, throughput_per_us=x, throughput_by_n=by_n, residence_us=residence, queue=x * residence,
                   response_us=population / x)


def request_alone_us(network: Network) -> float:
    """One request's latency with the controller otherwise empty (us): the route MVA at population 1, the
    fork-join makespan of its transactions. ``whatif`` reads the same figure off its solve at the queue depth
    (``throughput_by_n[1]``, the same value bit for bit) and scales the Markov chain's lumping grids by it, so
    a chain attempted with this figure is the one ``whatif`` made (``schedule_chain._recalled``)."""
    return solve_route(route_arrays(network, network.loads()), 1).response_us
