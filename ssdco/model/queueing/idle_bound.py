"""The busy core group idles while every request is away: a bound on the route MVA's X at a busy core group.

At a queue depth of N requests the busiest core group b (c cores, D us of work per request) can only work while a
request is there. The route MVA's mean values keep b busy all the time once X reaches c / D; in the DES it idles
whenever all N requests are elsewhere at once, and how often that happens depends on how much the time away varies:
programs of 343 us among reads of 43 us make the requests bunch up at the dies, reads at quiet dies do not.

The bound, from the route MVA's waits at the X it gives (X = B(X); docs/accuracy.md, per solver):

* T, the mean time a request spends away from b: the other stations' residences and the pure delays;
* V, its variance: the services' spread over the operation mix and each step's own scv, plus each station's wait W
  (P(wait) P) taken as exponential given a wait, 2 W^2 / P - W^2; s^2 = V / T^2, and cs^2 that of b's work;
* I, the idle share of b in the machine-repairman M/M/c//N with think time T and service D (Kleinrock 1975,
  Sec. 3.8: exact for exponential times, and by Engset's insensitivity for any think-time distribution then);
* I0 = max(0, 1 - N D / (c (T + D))), the idle share where nothing varies: the deterministic cycle, X = min(c / D,
  N / (T + D)) (the asymptotic bounds, Lazowska et al. 1984, Sec. 5.2); I0 <= I, as the bounds hold for the
  machine-repairman too;
* X <= (c / D) (1 - I0 - (I - I0) min(1, sqrt((s^2 + cs^2) / 2))): the factor, on the idling above the deterministic
  cycle's, is the square root of the heavy-traffic (ca^2 + cs^2) / 2 (Kingman); 1 for exponential times, where the
  machine-repairman is exact, and 0 where nothing varies, where the deterministic cycle is. The root, not the
  linear form: the group's arrivals are the superposition of N requests' returns, and any spread in the time away
  soon scatters their phases, so the group idles much as it would for exponential times long before s^2 nears 1
  (measured: 29 requests, 2 cores of deterministic work, think times of scv 0.087, 0.3 and 1 idle 53, 62 and 72 %
  as much as with exponential work; docs/accuracy.md).

Taken at the route MVA's own X instead, the bound would move with that X, which an added server can raise (and with
it the waits elsewhere and their spread): so taken, 5 of 1,307 additions on random designs lower the answer. At a
fixed X an added server does not lengthen the route MVA's cycle, and none does.

Only for requests of one transaction: a request's parallel transactions would count their residences several
times over in T (on 8-16 KiB draws that form puts answers up to 20 % low).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy.optimize import brentq

from ssdco.model.queueing.erlang import machine_repairman
from ssdco.model.queueing.mva import ClosedSolution
from ssdco.model.queueing.route_mva import RouteArrays, residences_at
from ssdco.network.build import Network, Step

FIXED_POINT_REL_TOL = 1e-12  # X = B(X), relative
BINDS_REL_TOL = 1e-9  # the bound holds X where it is lower than the route MVA's by more than this, relative
# the factor's weight on s^2 + cs^2: the heavy-traffic (ca^2 + cs^2) / 2. Measured on the 8,400 development draws
# (docs/accuracy.md): 87 misses without the bound, 65 with it (22 in, 0 out); with a weight of 1, 55 (41 in, 9 out:
# 70 %-read mixes at QD 5-12 with the group 43-92 % busy, put 3.1-5.1 % low)
VARIABILITY_WEIGHT = 0.5
# the power on the weighted s^2 + cs^2 (docs/accuracy.md): on the
# development draws 62 misses with the linear form (1), 44 with the root (20 in, 2 out), 47 with 0.35, 51 with
# 0.65, 54 with 0.75 and, with a weight of 1, 60 with the root; on three held-out sets of draws the root has as
# many misses as the linear form or fewer (it puts some 70 %-read mixes at QD 10, the group 88-90 % busy, about
# 3.5 % low)
VARIABILITY_EXPONENT = 0.5


@dataclass(frozen=True)
class IdleBound:
    """The bound's parts (times in us, throughput in requests per us) at one core group."""

    station: str  # the core group b
    servers: int  # c
    work_us: float  # D, per request
    away_us: float  # T
    away_scv: float  # s^2 = V / T^2
    work_scv: float  # cs^2 of D
    idle_share: float  # I, of the machine-repairman M/M/c//N
    throughput_per_us: float  # the bound on X
    cycle_idle_share: float = 0.0  # I0, of the deterministic cycle

    @property
    def variability_factor(self) -> float:
        """min(1, sqrt((s^2 + cs^2) / 2)): the share of the machine-repairman's idling above the deterministic
        cycle's that the bound keeps."""
        return min(1.0, (VARIABILITY_WEIGHT * (self.away_scv + self.work_scv)) ** VARIABILITY_EXPONENT)

    @property
    def kept_idle_share(self) -> float:
        """I0 + (I - I0) min(1, sqrt((s^2 + cs^2) / 2)): the share of b's capacity the bound takes as idle."""
        return self.cycle_idle_share + (self.idle_share - self.cycle_idle_share) * self.variability_factor


def route_time_moments(network: Network, steps: list[Step]) -> tuple[float, float]:
    """Mean and variance (us, us^2) of the service and delay time of ``steps`` for one request of one transaction:
    over the read/write mix (the law of total variance), each step visited with its probability independently of
    the others (a ``follow`` step is taken as independent too) and its service drawn with its own scv."""
    moments = []  # per operation: (share, mean, variance)
    for op, share in (("read", network.read_fraction), ("write", 1.0 - network.read_fraction)):
        if share <= 0.0:
            continue
        mean = var = 0.0
        for step in steps:
            if step.ops not in ("both", op):
                continue
            m1, m2 = network.step_moments(step, op)
            m1 += step.delay_us
            m2 += 2.0 * m1 * step.delay_us - step.delay_us ** 2  # a fixed delay after the service
            p = step.probability
            mean += p * m1
            var += p * m2 - (p * m1) ** 2
        moments.append((share, mean, var))
    mean = sum(q * m for q, m, _ in moments)
    second = sum(q * (v + m * m) for q, m, v in moments)
    return mean, max(second - mean * mean, 0.0)


@dataclass(frozen=True)
class _Fixed:
    """What the bound reads off ``network`` alone, whatever the X: the core group's index, the stations' copies and
    demands per request (us), the group's work D and its variance, and the services' time away and its variance."""

    b: int
    copies: np.ndarray
    demand_us: np.ndarray
    servers: int
    work_us: float
    work_var: float
    service_us: float
    service_var: float


def _fixed(network: Network, station: str) -> _Fixed | None:
    loads = network.loads()
    b = [ld.name for ld in loads].index(station)
    if any(ld.name == station for ld in network.background_loads()):
        return None
    copies = np.array([ld.copies for ld in loads], dtype=np.float64)
    demand = np.array([ld.demand_us for ld in loads]) * copies
    if demand[b] <= 0.0:
        return None
    route = [s for s in network.steps if not s.background]
    service_us, service_var = route_time_moments(network, [s for s in route if s.station != station])
    work_us, work_var = route_time_moments(network, [s for s in route if s.station == station])
    return _Fixed(b, copies, demand, loads[b].servers, work_us, work_var, service_us, service_var)


def _bound(fixed: _Fixed, station: str, population: int, residence_us: np.ndarray, p_wait: np.ndarray) -> IdleBound:
    f = fixed
    residence = np.asarray(residence_us) * f.copies  # per request
    away_us, variance = f.service_us, f.service_var
    for k in range(residence.shape[0]):
        wait, p = float(residence[k] - f.demand_us[k]), float(p_wait[k])
        if k != f.b and wait > 0.0 and p > 0.0:
            away_us += wait
            variance += 2.0 * wait * wait / p - wait * wait
    capacity = f.servers / f.work_us
    work_scv = f.work_var / f.work_us ** 2
    if away_us <= 0.0:
        return IdleBound(station, f.servers, f.work_us, 0.0, 0.0, work_scv, 0.0, capacity)
    idle = max(1.0 - machine_repairman(population, away_us, f.work_us, f.servers)[0] / capacity, 0.0)
    cycle_idle = min(max(1.0 - population * f.work_us / (f.servers * (away_us + f.work_us)), 0.0), idle)
    bound = IdleBound(station, f.servers, f.work_us, away_us, variance / away_us ** 2, work_scv, idle, capacity,
                      cycle_idle)
    return replace(bound, throughput_per_us=capacity * (1.0 - bound.kept_idle_share))


def idle_bound(network: Network, population: int, residence_us: np.ndarray, p_wait: np.ndarray,
               station: str) -> IdleBound | None:
    """The bound above at core group ``station`` of ``network`` at ``population`` requests, from the route MVA's
    residences (us per request, per station copy) and P(wait) at some X (one transaction per request; the caller
    checks); None where ``station`` has no work or background work (its cores then work while the requests are
    away)."""
    fixed = _fixed(network, station)
    return None if fixed is None else _bound(fixed, station, population, residence_us, p_wait)


def held_by_idle_bound(network: Network, arrays: RouteArrays, sol: ClosedSolution, station: str, features: int,
                       held_extra_us: np.ndarray | None = None) -> tuple[ClosedSolution, IdleBound | None]:
    """``sol`` (the route MVA's solution of ``network`` over ``arrays``, solved with the corrections ``features``)
    with X held to :func:`idle_bound` at core group ``station``, and the bound, where that is lower; else ``sol``
    itself and None. The bound is taken at the X it gives: X = B(X), the waits elsewhere at that X
    (``residences_at``), so that it does not move with the route MVA's own X. The latency becomes N / X, and the
    rest of it over the route MVA's cycle is a wait at the busy group, as where the capacity bound holds X
    (``ClosedSolution.capacity_wait_us`` with ``capacity_stations`` the group). Only where every request is one
    transaction and X is not held by the write buffer. ``held_extra_us``: where ``arrays`` absorb held servers
    (``held.py``), the time per station that their residences hold beyond ``network``'s (taken off them)."""
    if not arrays.one_transaction or sol.at_write_buffer_bound:
        return sol, None
    n = sol.population
    fixed = _fixed(network, station)
    if fixed is None:
        return sol, None
    bound = _bound(fixed, station, n, sol.residence_us, sol.p_wait)
    if bound.throughput_per_us >= sol.throughput_per_us * (1.0 - BINDS_REL_TOL):
        return sol, None  # it does not hold X (where nothing varies the two agree but for rounding: N / (T + D))

    def at(x: float) -> IdleBound:
        residence, p_wait = residences_at(arrays, n, x, features)
        return _bound(fixed, station, n, residence if held_extra_us is None else residence - held_extra_us, p_wait)

    # X - B(X) > 0 at the route MVA's X; B(X) falls with X as the waits elsewhere grow, so the root usually lies
    # above B(X_route), and always above 0, where B > 0
    low = bound.throughput_per_us
    while low > 0.0 and low - at(low).throughput_per_us > 0.0:
        low *= 0.5
    bound = at(brentq(lambda x: x - at(x).throughput_per_us, low, sol.throughput_per_us, rtol=FIXED_POINT_REL_TOL))
    x = bound.throughput_per_us
    by_n = sol.throughput_by_n.copy()
    by_n[n] = x
    # the residences stay the route MVA's; the rest of N / X waits at the busy group, as where the capacity bound
    # holds X (queue_at_capacity puts it in the reported queues; the p99 estimate keeps the residences)
    return replace(sol, throughput_per_us=x, throughput_by_n=by_n, queue=x * sol.residence_us, response_us=n / x,
                   capacity_wait_us=sol.capacity_wait_us + n / x - sol.response_us, capacity_stations=(fixed.b,)), bound
