"""What every solver shares: the :class:`Answer` record, the :class:`Fit` verdict, the :class:`Solver` protocol
and the per-evaluation :class:`Context`.

A solver declares its domain (``fits``: cheap and pure, saying why not where it does not fit) and answers
(``solve``), or declines with None where it finds only while solving that it cannot answer (a state budget
outgrown, a schedule that does not repeat). A *refiner* (``refines`` not empty) replaces the answer of the solvers
it names, in its domain, and is handed that answer (``prior``): its residences are the fixed delays of the
stations it does not run itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

import numpy as np

from ssdco.model.bounds import asymptotic_bounds
from ssdco.model.queueing.held import held_loads, held_route_arrays
from ssdco.model.queueing.open_runs import eligible_stations
from ssdco.model.queueing.route_mva import ALL_FEATURES, RouteArrays, route_arrays, solve_route, suspension_us2
from ssdco.network.build import Network, StationLoad

EFFORTS = ("screen", "fast", "full", "exact")
"""Effort levels, cheapest first:

* ``screen``: no Markov chain of the requests' draws and no platoon stage (the optimizer's first pass over
  hundreds of candidates);
* ``fast``: the chain only within its first states at queue depth 1-2 (``whatif --fast``);
* ``full``: every solver in its domain (the default);
* ``exact``: the exact exponential product-form solution (convolution) for closed workloads.
"""


@dataclass(frozen=True)
class Fit:
    """Whether a solver's declared domain holds for a network, and why not where it does not."""

    ok: bool
    why: str = ""

    def __bool__(self) -> bool:
        return self.ok


FITS = Fit(True)


@dataclass(frozen=True)
class Answer:
    """One solver's answer. Rates in requests per us, times in us; arrays per station of ``Network.loads()``.

    ``residence_us``: time per request at one copy; ``p_wait``: the fraction of visits that queue; ``mean_jobs``:
    per copy. ``p99_us``: the latency percentile where the solver knows it (a seeded run), else None
    (``p99.p99_estimate_us`` estimates it). ``held_to_bounds``: an answer above the asymptotic upper bound is held
    to it (a lumped chain's or an estimate's error); ``at_capacity``: the bottleneck is busy throughout, so X is the
    bound.
    ``zero_load_us``: one request's latency alone for the population bound (None: the sum of the demands).
    ``route_solution``: the route-level solution beside the answer (the write buffer's wait and bound).
    ``chain``: the Markov chain behind the answer, for its patterns and start.
    ``correlated``: the stations whose waits on a transaction's path move together (``p99.p99_estimate_us``)."""

    solver: str
    throughput_per_us: float
    response_us: float
    residence_us: np.ndarray
    p_wait: np.ndarray
    mean_jobs: np.ndarray
    stable: bool = True
    p99_us: float | None = None
    held_to_bounds: bool = False
    at_capacity: bool = False
    zero_load_us: float | None = None
    route_solution: Any = None
    chain: Any = None
    correlated: tuple[str, ...] = ()  # stations whose waits on one transaction's path move together (p99)
    seeded: bool = False  # the answer rests on a seeded event-by-event run of part of the network


class Solver(Protocol):
    """A solver: a name, a declared domain and an answer (see the module docstring)."""

    name: str
    refines: tuple[str, ...]

    def fits(self, ctx: Context, prior: Answer | None = None) -> Fit: ...

    def solve(self, ctx: Context, prior: Answer | None = None) -> Answer | None: ...


@dataclass
class Trace:
    """What the solvers found on the way to the answer: declines with their reasons, and the Markov chain's
    outcome (outgrown, unsolved, skipped), which the caveats and the platoon stage's domain read."""

    declined: dict[str, str] = field(default_factory=dict)
    primary: str = ""  # the primary solver that answered, before any refiner
    chain_outgrown: bool = False
    chain_unsolved: bool = False
    idle_bound: Any = None  # the idle bound that holds the route MVA's X, where it does


@dataclass
class Context:
    """One evaluation: the network, its station loads as arrays, the effort, the solvers allowed, and the route
    MVA's baseline solution, computed once on first use (several solvers start from it)."""

    network: Network
    effort: str = "full"
    allowed: frozenset[str] | None = None
    route_features: int = ALL_FEATURES
    trace: Trace = field(default_factory=Trace)

    def allows(self, name: str) -> bool:
        return self.allowed is None or name in self.allowed

    @property
    def closed(self) -> bool:
        return self.network.queue_depth is not None

    @cached_property
    def loads(self) -> tuple[StationLoad, ...]:
        return self.network.loads()

    @cached_property
    def names(self) -> list[str]:
        return [ld.name for ld in self.loads]

    @cached_property
    def background(self) -> tuple[np.ndarray, np.ndarray]:
        """Per station: the background work's demand (us per request) and its second moment."""
        bg = {b.name: b for b in self.network.background_loads()}
        demand = np.array([bg[ld.name].demand_us if ld.name in bg else 0.0 for ld in self.loads])
        m2 = np.array([bg[ld.name].visits * bg[ld.name].service_us ** 2 * (1.0 + bg[ld.name].scv)
                       if ld.name in bg else 0.0 for ld in self.loads])
        return demand, m2

    @cached_property
    def demand_us(self) -> np.ndarray:
        """Per station: the requests' demand (us per request at one copy), background work excluded; a held server's
        demand with the release steps' service in it (the least it is held; ``held.py``)."""
        if self.network.holds:
            return np.array([ld.demand_us for ld in self._held_without_waits])
        return np.array([ld.demand_us for ld in self.loads])

    @cached_property
    def _held_without_waits(self) -> tuple[StationLoad, ...]:
        """With held servers: the loads with each hold as short as it can be (no wait at the held-through steps)."""
        return held_loads(self.network, 0.0, {})[0]

    @cached_property
    def total_demand_us(self) -> np.ndarray:
        return self.demand_us + self.background[0]

    @cached_property
    def servers(self) -> np.ndarray:
        return np.array([ld.servers for ld in self.loads], dtype=np.int64)

    @cached_property
    def copies(self) -> np.ndarray:
        return np.array([ld.copies for ld in self.loads], dtype=np.float64)

    @cached_property
    def arrays(self) -> RouteArrays:
        """The route arrays the mean-value solvers walk; with held servers over the held loads (``held.py``)."""
        return self._held[0] if self.network.holds else route_arrays(self.network, self.loads)

    @cached_property
    def held_extra_us(self) -> np.ndarray:
        """Per station: the time (us per request at one copy) that a holder's residence in the held solution counts
        beyond its own (``held.held_extra_us``); zero without held servers."""
        return self._held[1] if self.network.holds else np.zeros(len(self.loads))

    @cached_property
    def _held(self) -> tuple[RouteArrays, np.ndarray, tuple[StationLoad, ...]]:
        return held_route_arrays(self.network, self.route_features)

    @property
    def solver_loads(self) -> tuple[StationLoad, ...]:
        """The station loads the mean-value solvers take: with held servers, the holders busy through the hold
        (``held.py``); else :attr:`loads`."""
        return self._held[2] if self.network.holds else self.loads

    @cached_property
    def busy_demand_us(self) -> np.ndarray:
        """Per station: the time (us per request at one copy) its servers are busy, background work and a held
        server's hold included."""
        return self.arrays.visits * self.arrays.service_us + self.background[0]

    def suspension_demand_us(self, x_per_us: float) -> np.ndarray:
        """Per station: the time (us per request at one copy) its servers spend suspending programs and erases for
        the reads at throughput ``x_per_us`` (per us): each visit finds work it suspends in service with
        probability x x bg_suspend / c and spends the suspension time (route_mva 4., the solvers' own term); a
        write-through drive's reads suspend the writes' operations alike (``priority.reads_first_wait``)."""
        return x_per_us * self.suspension_us2

    @cached_property
    def suspension_us2(self) -> np.ndarray:
        """Per station: ``route_mva.suspension_us2`` of the route arrays (us^2 per request at one copy)."""
        return suspension_us2(self.arrays)

    @cached_property
    def baseline(self):
        """The route MVA's solution without the corrections that run parts of the network event by event."""
        return solve_route(self.arrays, self.network.queue_depth, features=self.route_features)

    @cached_property
    def zero_load_us(self) -> float:
        """One request's latency alone as the route MVA has it (the fork-join makespan at X(1)); with held servers,
        with no wait at the release stations."""
        if self.network.holds:
            return solve_route(route_arrays(self.network, self._held_without_waits), 1,
                               features=self.route_features).response_us
        return 1.0 / self.baseline.throughput_by_n[1]

    @cached_property
    def bottleneck(self) -> str:
        """The station with the largest demand per server (the asymptotic bounds' bottleneck)."""
        return asymptotic_bounds(self.names, self.total_demand_us, self.servers, self.copies, self.network.delay_us,
                                 self.network.queue_depth, None).bottleneck

    @cached_property
    def correlated(self) -> tuple[str, ...]:
        """Stations whose waits on one transaction's path move together (the p99 estimate)."""
        return eligible_stations(self.network, self.loads)

    @property
    def deterministic(self) -> bool:
        return all(step.scv == 0.0 for step in self.network.steps)
