"""``optimize(config, ...)``: the cheapest verified design, runners-up, binding constraints and sensitivity.

The verify/tighten loop
-----------------------
1. Solve the ILP (``ilp.py``) of the linear model (``problem.py``) at the target throughput X: the
   cheapest design (ties: lowest core-side power at X). Infeasible => stop: nothing in the space meets
   the target (explained below).
2. Verify the pick with the closed-network analytic model at the workload's queue depth
   (``ssdco.model.whatif.evaluate``): IOPS >= target, mean latency <= target (if any), core-side and DRAM
   power *at the operating point the design really runs at* within budget. Then (``verify_des``) with the
   embedded DES (``ssdco.validation.compare.validate``, ``des_requests`` requests, seeded): the same
   checks on the measured numbers. The analytic check is made first with the answer without whatif's platoon
   check, and in the main search a design that passes it is checked with whatif's own answer, where the platoon
   stage may answer instead of the route MVA (``model/queueing/platoon_stage.py``; 10-100 ms a design, too much for
   every one). The price, as with the screen below: a design the route MVA puts below a target and the stage
   above it is not found (the route MVA is mostly the higher of the two there: it misses the requests' moving
   in step). The auxiliary searches check with the answer without the platoon check alone, and with the DES
   where they verify as the pick was.
3. If a check fails, *tighten* and re-solve: a no-good cut (``nogood_<k>``) excludes exactly that design;
   when the ILP's optimum moves to a higher cost, every design of the previous cost level has been
   verified and failed, so one ``cost_floor`` row replaces that level's cuts (CBC slows down with many
   no-good cuts; a floor keeps the model small). Go to 1.

When the space is within ``enumeration_limit`` (the PM9A3 preset's 198,648 designs are), steps 2-3 do not
follow the solver: the enumeration table (``enumerate.py``, the same linear model; the cross-check
asserts its optimum equals the ILP's) lists the designs meeting the linear model in the ILP's objective
order, designs tied in cost and power by their row, and the loop verifies them in that order from the
first. The pick is then the same whichever solver broke a tie (CBC and HiGHS return different optima of
equal cost for the PM9A3 demo spec); 50 verifications take 0.05 s instead of 50 re-solves. Without a
table the loop verifies the solver's optimum first, so among exact ties the solver decides.

The returned pick is therefore the cheapest design (ties: lowest core-side power) that meets the linear
model *and* passes verification, provided the loop ends by itself: every design skipped was either
outside the linear model or failed verification, so nothing cheaper that passes was skipped.

Termination: the space is finite (``DesignSpace.size``). Every ILP re-solve either returns a design not
verified before (verified designs are cut or below the floor; a design the solver's tolerance lets back
in gets an explicit cut), or reports infeasibility; the floor only rises and cuts are only removed when
the floor already excludes their designs. So the loop verifies each design at most once and stops after
at most ``size`` verifications. ``optimizer.max_iterations`` (default 1000 designs verified) bounds the
work in practice; hitting it ends the search with ``status = "iteration_cap"`` and a message naming the
option to raise. Designs whose verification failed are remembered (the analytic model and the seeded DES
are deterministic), so re-solves for runners-up, binding constraints and sensitivity start from those
cuts. Auxiliary searches verify at most 200 candidates (25 without an enumeration table).

The auxiliary searches' screen
------------------------------
Every search but the main one (runners-up, binding checks, the infeasible case's explanation, sensitivity)
checks a candidate first with the analytic answer without the Markov chain of the requests' draws (the route
MVA: ``whatif --fast``'s, without even the chain's first states at QD 1-2) and only a candidate
that passes it with the verification's own answer (the full model, or ``--fast``'s); a design is reported
only when that passed it, and its figures are that answer's. At QD 1-8 a full verification can take seconds
(the chain), and an explanation verifies hundreds of designs: without the screen an infeasible target at QD 4
does not finish within 45 minutes (``benchmarks/speed.py optimize``); with ``--fast`` at QD 1-2 the
chain's first states cost tens of ms a design. The price: a design that the screen rejects but the
verification would pass is not found by those searches. The main search and the pick are never screened.
Where the verification does not try the chain (QD > 8, open work, random service; ``--fast`` at QD 3-8)
the screen is the verification's answer and changes nothing.

Answers
-------
* runners-up: the cheaper designs rejected by verification (what they lack), the next-cheapest verified
  designs (how much more they cost), and for each budget/target the cheapest design that breaks only it;
* binding: a budget or target binds when relaxing it alone admits a cheaper verified design (feasible
  case) or makes the problem feasible at all (infeasible case). In the feasible case "verified" is what the
  pick had: the analytic model and, with ``verify_des``, the DES (the text report says which).
  In the infeasible case, and in every other auxiliary search, it is the analytic model's alone, so where only
  the DES rejected designs a family can read as binding that the DES would not confirm;
* infeasible: the rows an elastic ILP must violate least, the lowest-power design meeting the IOPS target,
  and the highest-IOPS design within the power budgets;
* sensitivity (``explain=True``): per parameter, how far it can tighten before the pick fails (the pick's
  own requirement, exact) and how far it must loosen before a cheaper design wins (bisection with
  re-solves), and what the pick becomes. Sensitivity re-solves verify with the analytic model only.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

import numpy as np

from ssdco.errors import SsdcoError
from ssdco.model.queueing.schedule_chain import FAST_CHAIN_MAX_QUEUE_DEPTH
from ssdco.model.result import Result
from ssdco.model.solvers import all_but
from ssdco.model.solvers.schedules import CHAIN_MAX_QUEUE_DEPTH
from ssdco.model.whatif import evaluate
from ssdco.optimizer import ilp
from ssdco.optimizer.enumerate import (
    DesignTable,
    ParetoPoint,
    enumerate_space,
    linear_feasible,
    linear_optimum,
    pareto,
    pareto_front,
)
from ssdco.optimizer.problem import US_PER_S, Evaluation, LinearModel, Targets, make_targets, row_family
from ssdco.optimizer.space import Design, DesignSpace
from ssdco.spec import MODULES, Budgets, Config, Controller, CoreGroup

REL_STEP = 1e-3  # how far past a threshold the "becomes" re-solve looks (relative)
BISECT_REL_TOL = 5e-3
BISECT_MAX_STEPS = 12
SUB_SEARCH_CAP = 200  # designs verified per auxiliary search (runners-up, binding, sensitivity)
SUB_SEARCH_CAP_ILP = 25  # the same without an enumeration table (each candidate costs an ILP re-solve)


# --------------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Verdict:
    """Verification of one design: analytic result, optional DES validation, and what failed."""

    design: Design
    analytic: Result
    validation: Any | None  # ssdco.validation.compare.Validation
    failures: tuple[str, ...]

    @property
    def passed(self) -> bool:
        """No check failed."""
        return not self.failures

    @property
    def stage(self) -> str:
        """"des" when the DES was run, else "analytic"."""
        return "des" if self.validation is not None else "analytic"


@dataclass(frozen=True)
class Candidate:
    """A design reported beside the pick: its cost, what it lacks, and its analytic metrics."""

    design: Design | None  # None only for a "closest" entry saying that nothing comes close
    cost: float
    delta_cost: float
    kind: str  # "rejected" (cheaper, failed verification) | "costlier" | "breaks:<family>" | "closest:<what>"
    lacks: tuple[str, ...]
    iops: float
    latency_mean_us: float
    core_power_mw: float
    dram_power_mw: float
    verified_by: str  # "analytic" | "des"


@dataclass(frozen=True)
class Binding:
    """A budget or target and whether it binds the pick (or the infeasibility)."""

    name: str  # core_power_mw | dram_power_mw | min_iops | utilization_cap
    limit: float
    value: float | None  # the pick's requirement (None when infeasible)
    binds: bool | None  # None: undetermined (the check's search hit its cap)
    effect: str  # one sentence
    verified_by: str = "analytic"  # how the check's cheaper designs were verified: "analytic" | "des"


@dataclass(frozen=True)
class Sensitivity:
    """How far one parameter can move before the pick changes, each way."""

    parameter: str
    current: float
    binding: bool
    tighten_limit: float | None  # past this the pick no longer qualifies
    tighten_becomes: Design | None
    tighten_becomes_cost: float | None
    loosen_limit: float | None  # past this a cheaper design wins (None: loosening never changes the pick)
    loosen_becomes: Design | None
    loosen_becomes_cost: float | None


@dataclass(frozen=True)
class Infeasibility:
    """Why nothing qualifies: violated rows of the least-violating design and the closest designs."""

    rows: Mapping[str, tuple[float, float, str]]  # row -> (value needed, limit, explanation)
    least_violating: Design | None
    closest: tuple[Candidate, ...]


@dataclass(frozen=True)
class CrossCheck:
    """ILP optimum vs brute-force enumeration of the same linear model."""

    ilp_cost: float | None
    enumeration_cost: float | None
    agree: bool
    designs: int
    seconds: float


@dataclass(frozen=True)
class OptimizeResult:
    """Everything ``ssdco optimize`` reports (formatting in ``report.py``)."""

    config: Config = field(repr=False)
    space: DesignSpace = field(repr=False)
    targets: Targets
    status: str  # "optimal" | "infeasible" | "iteration_cap"
    message: str
    pick: Design | None
    cost: float | None
    cost_breakdown: Mapping[str, float]
    linear: Evaluation | None
    verdict: Verdict | None
    runners_up: tuple[Candidate, ...]
    binding: tuple[Binding, ...]
    infeasibility: Infeasibility | None
    sensitivity: tuple[Sensitivity, ...] | None
    cross_check: CrossCheck | None
    pareto: tuple[ParetoPoint, ...] | None
    pareto_seconds: float | None
    history: tuple[tuple[int, str, float, str], ...]  # (iteration, design label, cost, verdict)
    space_size: int
    solver: str
    solve_seconds: float
    time_to_optimum_seconds: float | None  # first ILP solve: the exact optimum of the linear model
    timing: Mapping[str, float]
    device: str = "as configured"  # the device variant (mapping option) of the pick
    device_options: tuple["DeviceOption", ...] = ()  # every variant searched ([optimizer.dram])

    @property
    def feasible(self) -> bool:
        """True when a verified pick was found."""
        return self.pick is not None

    def headline(self) -> list[tuple[str, str, str]]:
        """The headline figures as (metric, value, unit) rows: targets, the pick, its verified figures."""
        t = self.targets
        rows = [("status", self.status, ""),
                ("IOPS target (queue depth %d)" % t.queue_depth, _fmt_num(t.target_iops, 0), "IOPS"),
                ("core-side power budget", _fmt_num(t.core_power_mw, 1), "mW"),
                ("DRAM power budget", _fmt_num(t.dram_power_mw, 1), "mW"),
                ("designs in the space", f"{self.space_size:,}", "designs")]
        if self.pick is not None:
            rows += [("pick", self.pick.label(), ""), ("cost", _fmt_num(self.cost, 2), "relative units")]
        if self.verdict is not None:
            a = self.verdict.analytic
            rows += [("pick IOPS, model", _fmt_num(a.iops, 0), "IOPS"),
                     ("pick latency mean, model", _fmt_num(a.latency_mean_us, 2), "us"),
                     ("pick core-side power", _fmt_num(a.power.core_side_mw, 1), "mW"),
                     ("pick DRAM power", _fmt_num(a.power.dram_mw, 1), "mW")]
            v = self.verdict.validation
            if v is not None:
                rows += [("pick IOPS, DES", _fmt_num(v.des.iops.value, 0), "IOPS"), ("DES verdict", v.verdict, "")]
        return rows

    def __repr__(self) -> str:
        t = self.targets
        head = (f"<OptimizeResult {self.config.name}: {self.status}; >= {_fmt_num(t.target_iops, 0)} IOPS at queue "
                f"depth {t.queue_depth}, core-side <= {_fmt_num(t.core_power_mw, 1)} mW, DRAM <= "
                f"{_fmt_num(t.dram_power_mw, 1)} mW>")
        if self.pick is None:
            return head + f"\n  no design of {self.space_size:,} qualifies: {self.message}"
        lines = [head, f"  pick {self.pick.label()}, cost {_fmt_num(self.cost, 2)}"]
        if self.verdict is not None:
            a = self.verdict.analytic
            lines.append(f"  model: {_fmt_num(a.iops, 0)} IOPS, latency mean {_fmt_num(a.latency_mean_us, 2)} us, "
                         f"core-side {_fmt_num(a.power.core_side_mw, 1)} mW, DRAM {_fmt_num(a.power.dram_mw, 1)} mW")
            v = self.verdict.validation
            if v is not None:
                lines.append(f"  DES: {_fmt_num(v.des.iops.value, 0)} IOPS ({v.verdict})")
        lines.append(f"  {len(self.runners_up)} runner(s)-up; "
                     + (f"Pareto front of {len(self.pareto)} designs" if self.pareto is not None else "no Pareto front")
                     + f"; {self.space_size:,} designs in the space")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from ssdco.display import html_table

        return html_table(f"optimize {self.config.name}: {self.status}", self.headline())

    def to_frame(self):
        """A pandas DataFrame with one row per reported design: the pick, then the runners-up, or where nothing
        qualifies the closest designs (``kind``, cost, what each lacks, model IOPS, mean latency in us, core-side
        and DRAM power in mW). Needs pandas (the ``frame`` extra)."""
        from ssdco.display import data_frame

        cols = ["kind", "design", "cost", "delta_cost", "lacks", "iops", "latency_mean_us", "core_power_mw",
                "dram_power_mw", "verified_by"]
        rows = []
        if self.pick is not None and self.verdict is not None:
            a = self.verdict.analytic
            rows.append({"kind": "pick", "design": self.pick.label(), "cost": self.cost, "delta_cost": 0.0,
                         "lacks": "", "iops": a.iops, "latency_mean_us": a.latency_mean_us,
                         "core_power_mw": a.power.core_side_mw, "dram_power_mw": a.power.dram_mw,
                         "verified_by": self.verdict.stage})
        closest = self.infeasibility.closest if self.infeasibility is not None else ()
        for c in (*self.runners_up, *closest):
            rows.append({"kind": c.kind, "design": c.design.label() if c.design is not None else "",
                         "cost": c.cost, "delta_cost": c.delta_cost, "lacks": "; ".join(c.lacks), "iops": c.iops,
                         "latency_mean_us": c.latency_mean_us, "core_power_mw": c.core_power_mw,
                         "dram_power_mw": c.dram_power_mw, "verified_by": c.verified_by})
        return data_frame(rows, cols)

    def pareto_frame(self):
        """The Pareto front (``optimize(..., pareto_front=True)``) as a pandas DataFrame: design, cost, model
        IOPS, core-side power (mW), mean latency (us), whether it meets every target. Needs pandas."""
        from ssdco.display import data_frame

        if self.pareto is None:
            raise ValueError("no Pareto front: call ssdco.optimize(..., pareto_front=True)")
        cols = ["design", "device", "cost", "iops", "core_power_mw", "latency_mean_us", "meets_targets"]
        return data_frame([{"design": p.design.label(), "device": p.device, "cost": p.cost, "iops": p.iops,
                            "core_power_mw": p.core_power_mw, "latency_mean_us": p.latency_mean_us,
                            "meets_targets": p.meets_targets} for p in self.pareto], cols)

    def pick_config(self, name: str = "optimized", description: str = "") -> Config:
        """The device configuration running the pick (budgets = targets)."""
        if self.pick is None:
            raise ValueError("no feasible design")
        return self.config.with_controller(self.pick.to_controller(name, description))


def _fmt_num(x: float | None, digits: int) -> str:
    """``x`` with thousands separators; "unlimited" for inf, "n/a" for None or NaN."""
    if x is None or math.isnan(x):
        return "n/a"
    if math.isinf(x):
        return "unlimited"
    return f"{float(x):,.{digits}f}"


@dataclass(frozen=True)
class DeviceOption:
    """One device option (a ``[optimizer.nand]`` geometry and/or an ``[optimizer.dram]`` mapping option): its NAND
    and DRAM consequences and the best design it allows."""

    name: str
    mapping: str
    cache_fraction: float
    dram_size_gib: float
    dram_power_mw: float  # at the target IOPS (the same for every controller design)
    waf: float
    mapping_hit_ratio: float
    life_years: float  # at the target IOPS's host write rate
    feasible: bool
    cost: float | None
    pick: Design | None
    iops: float | None  # analytic IOPS of the pick
    note: str
    channels: int = 0  # the NAND geometry
    ways_per_channel: int = 0
    dies_per_chip: int = 0
    planes_per_die: int = 0
    nand_cost: float = 0.0  # NandSpec.cost, part of ``cost``
    channel_rate_mts: float = 0.0
    sram_mib: float = 0.0  # on-chip SRAM for the mapping table ([optimizer.sram])


@dataclass
class _Outcome:
    pick: Design | None
    status: str
    rejected: list[Verdict]
    iterations: int
    first_cost: float | None = None
    first_seconds: float | None = None


# --------------------------------------------------------------------------------------------------
# The searcher: caches, ILP calls, verification
# --------------------------------------------------------------------------------------------------
class _Searcher:
    def __init__(self, space: DesignSpace, model: LinearModel, config: Config, table: DesignTable | None = None):
        self.table = table
        self.space = space
        self.model = model
        self.config = config
        self.opts = space.options
        self.solver = ilp.solver_name(self.opts.solver)
        self.analytic_cache: dict[Design, Result] = {}
        self.full_cache: dict[Design, Result] = {}  # whatif's own answer, with the platoon check (and stage)
        self.screen_cache: dict[Design, Result] = {}  # answers without the chain (module docstring: the screen)
        # the screen differs from the verification's answer only where that tries the chain: closed work at QD 1-8,
        # with --fast at QD 1-2 (its first states)
        qd = config.workload.queue_depth
        self.screens = qd <= (CHAIN_MAX_QUEUE_DEPTH if self.opts.markov_chain else FAST_CHAIN_MAX_QUEUE_DEPTH)
        self.des_cache: dict[Design, Any] = {}
        self.ilp_solves = 0
        self.ilp_seconds = 0.0
        self.verify_seconds = 0.0
        self.screen_seconds = 0.0
        self.des_seconds = 0.0
        self.pick_cache: dict[tuple, _Outcome] = {}
        self.history: list[tuple[int, str, float, str]] = []

    # ---- ILP
    def solve(self, model: LinearModel, **kw) -> ilp.IlpSolution:
        sol = ilp.solve(model, solver=self.solver, **kw)
        self.ilp_solves += 1
        self.ilp_seconds += sol.seconds
        return sol

    # ---- verification
    def analytic(self, design: Design) -> Result:
        r = self.analytic_cache.get(design)
        if r is None:
            t0 = time.perf_counter()
            r = evaluate(self.space.config_for(design, "optimized"),
                         effort="full" if self.opts.markov_chain else "fast", solvers=all_but("platoon-stage"))
            self.verify_seconds += time.perf_counter() - t0
            self.analytic_cache[design] = r
        return r

    def full(self, design: Design) -> Result:
        """Whatif's own answer for ``design``: :meth:`analytic`'s, with the platoon check, where the platoon stage
        answers instead of the route MVA (``queueing/platoon_stage.py``, 10-100 ms) and the route MVA's caveats are
        complete. Only a route-MVA answer can change; others are :meth:`analytic`'s own."""
        r = self.full_cache.get(design)
        if r is None:
            r = self.analytic(design)
            if r.method == "route-mva":
                t0 = time.perf_counter()
                r = evaluate(self.space.config_for(design, "optimized"),
                             effort="full" if self.opts.markov_chain else "fast")
                self.verify_seconds += time.perf_counter() - t0
            self.full_cache[design] = r
        return r

    def screen(self, design: Design) -> Result:
        """The answer without the Markov chain (``evaluate(..., effort="screen")``)
        for ``design``: the auxiliary searches' first check (module docstring). The verification's own answer
        where that does not try the chain either."""
        if not self.screens:
            return self.analytic(design)
        r = self.screen_cache.get(design)
        if r is None:
            t0 = time.perf_counter()
            r = evaluate(self.space.config_for(design, "optimized"), effort="screen")
            self.screen_seconds += time.perf_counter() - t0
            self.screen_cache[design] = r
        return r

    def des(self, design: Design):
        v = self.des_cache.get(design)
        if v is None:
            from ssdco.validation.compare import validate

            t0 = time.perf_counter()
            try:
                v = validate(self.space.config_for(design, "optimized"), requests=self.opts.des_requests,
                             seed=self.opts.des_seed, markov_chain=self.opts.markov_chain)
            except SsdcoError as e:  # the DES refuses a design: report it as a failed check
                v = e
            self.des_seconds += time.perf_counter() - t0
            self.des_cache[design] = v
        return v

    def settle(self, validation):
        """The pick's DES verification with the extra runs from other seeds that ``ssdco validate`` makes
        (``replications.py``: 4 on closed deterministic work), so that the report can say whether the DES
        has one answer (verdict AGREE / DISAGREE / UNSETTLED), and with ``timing_spread_scv`` (``optimize
        --timing-spread``) the run with every service time varying (``compare.with_timing_spread_check``). The checks
        against the targets and the verdict stay on the main run, as for every design verified on the way."""
        from ssdco.validation.compare import with_replications, with_timing_spread_check

        t0 = time.perf_counter()
        settled = with_replications(validation, requests=self.opts.des_requests, seed=self.opts.des_seed)
        if self.opts.timing_spread_scv > 0.0:  # optimize --timing-spread: one more run, service times varying
            settled = with_timing_spread_check(settled, self.opts.timing_spread_scv, requests=self.opts.des_requests,
                                               seed=self.opts.des_seed)
        self.des_seconds += time.perf_counter() - t0
        return settled

    @staticmethod
    def _checks(t: Targets, iops: float, latency: float, core: float, dram: float, who: str,
                p99: float | None = None, drive: float = 0.0, p999: float | None = None) -> list[str]:
        """What a design's figures fail of ``t`` (``who`` says whose: "DES" checks the measured ``p999``; the
        model has no p99.9, so its ``p99`` estimate, a lower bound, screens a p99.9 target)."""
        out = []
        if iops < t.min_iops:
            out.append(f"{who} IOPS {iops:,.0f} < target {t.min_iops:,.0f}")
        if t.max_latency_us is not None and latency > t.max_latency_us:
            out.append(f"{who} mean latency {latency:.2f} us > target {t.max_latency_us:.2f} us")
        if t.max_p99_us is not None and (p99 is None or not p99 <= t.max_p99_us):
            shown = "unknown (unstable)" if p99 is None else f"{p99:.2f} us"
            out.append(f"{who} p99 latency {shown} > target {t.max_p99_us:.2f} us")
        if t.max_p999_us is not None:
            if who == "DES" and (p999 is None or not p999 <= t.max_p999_us):
                shown = "unknown" if p999 is None else f"{p999:.2f} us"
                out.append(f"DES p99.9 latency {shown} > target {t.max_p999_us:.2f} us")
            elif who != "DES" and p99 is not None and p99 > t.max_p999_us:
                out.append(f"{who} p99 latency {p99:.2f} us > the p99.9 target {t.max_p999_us:.2f} us "
                           f"(p99.9 >= p99)")
        if core > t.core_power_mw:
            out.append(f"{who} core-side power {core:.1f} mW > budget {t.core_power_mw:.1f} mW")
        if dram > t.dram_power_mw:
            out.append(f"{who} DRAM power {dram:.1f} mW > budget {t.dram_power_mw:.1f} mW")
        if drive > t.drive_power_mw:
            out.append(f"{who} whole-drive power {drive:.1f} mW > budget {t.drive_power_mw:.1f} mW")
        return out

    def analytic_failures(self, design: Design, t: Targets, screen: bool = False, full: bool = False) -> list[str]:
        """What ``design`` fails of ``t`` analytically: by the screen's answer with ``screen``, else by the answer
        without the platoon check and, where that passes, with ``full`` (or once :meth:`full` is known), by
        whatif's own: the platoon stage may answer there, and costs too much to run on every design."""
        r = self.screen(design) if screen else self.analytic(design)
        fails = self._checks(t, r.iops, r.latency_mean_us, r.power.core_side_mw, r.power.dram_mw,
                             "analytic (screen: without the chain)" if screen and self.screens else "analytic",
                             r.latency_p99_us, r.power.drive_mw)
        if not fails and not screen and (full or design in self.full_cache):
            r = self.full(design)
            fails = self._checks(t, r.iops, r.latency_mean_us, r.power.core_side_mw, r.power.dram_mw, "analytic",
                                 r.latency_p99_us, r.power.drive_mw)
        return fails

    def des_failures(self, design: Design, t: Targets) -> list[str]:
        v = self.des(design)
        if isinstance(v, Exception):
            return [f"DES could not run: {v}"]
        p = v.des_power_mw
        return self._checks(t, v.des.iops.value, v.des.mean_latency_us.value, p["cores"] + p["accelerators"],
                            p["dram"], "DES", v.des.p99_us, p["drive"], v.des.p999_us)

    def verdict(self, design: Design, t: Targets, des: bool, screen: bool = False) -> Verdict:
        """``design`` checked against ``t``: analytically (first by the screen when ``screen``), then by
        the DES when ``des`` and the analytic checks passed."""
        if screen and self.screens:  # without a separate screen its answer is the verification's own, checked below
            fails = self.analytic_failures(design, t, screen=True)
            if fails:
                return Verdict(design, self.screen(design), None, tuple(fails))
        fails = self.analytic_failures(design, t, full=not screen)  # the main search's: whatif's own answer
        val = None
        if not fails and des:
            fails = self.des_failures(design, t)
            v = self.des(design)
            val = None if isinstance(v, Exception) else v
        return Verdict(design, self.full(design) if design in self.full_cache else self.analytic(design), val,
                       tuple(fails))

    def known_failures(self, t: Targets, screen: bool = False) -> list[Design]:
        """Designs already verified that fail under ``t`` (deterministic, so they can be cut up front);
        with ``screen``, also those the screen rejected."""
        out = [d for d in self.analytic_cache if self.analytic_failures(d, t)]
        out += [d for d in self.des_cache if d not in out and self.des_failures(d, t)]
        if screen:
            failed = set(out)
            out += [d for d in self.screen_cache if d not in failed and self.analytic_failures(d, t, screen=True)]
        return out

    # ---- the loop
    def search(self, t: Targets, *, des: bool, drop: tuple[str, ...] = (), cost_cap: float | None = None,
               objective: str = "cost", extra_cuts: tuple[Design, ...] = (), record: bool = False,
               max_iterations: int | None = None, use_table: bool = True,
               cost_floor: float | None = None) -> _Outcome:
        """The verify/tighten loop (module docstring) under targets ``t``; cached by its arguments.

        ``use_table`` (and a table present): candidates come from the enumeration in the ILP's objective
        order instead of re-solves (the same linear model); the recorded main search still starts with
        the ILP solve, whose optimum the cross-check compares with the enumeration. Every search but the
        recorded main one screens its candidates (module docstring)."""
        screen = not record
        key = (t, des, drop, cost_cap, objective, extra_cuts, max_iterations, use_table, cost_floor)
        if not record and key in self.pick_cache:
            return self.pick_cache[key]
        model = self.model.at(t)
        if self.table is None or not use_table:
            max_iterations = min(max_iterations or self.opts.max_iterations, self.opts.max_iterations) \
                if record else min(max_iterations or SUB_SEARCH_CAP_ILP, SUB_SEARCH_CAP_ILP)
        lo = -math.inf if cost_floor is None else cost_floor
        hi = math.inf if cost_cap is None else cost_cap
        known = [d for d in self.known_failures(t, screen) if lo <= model.cost(d) <= hi]  # only cuts that can bind
        out = _Outcome(None, "iteration_cap", [], 0)
        cap = max_iterations or self.opts.max_iterations
        excluded = set(extra_cuts) | set(known)
        tried: set[Design] = set()

        def verify(cand: Design) -> bool:
            tried.add(cand)
            v = self._verify(model, cand, t, des, drop, screen)
            out.iterations += 1
            if record:
                self.history.append((len(self.history) + 1, cand.label(), model.cost(cand),
                                     "pass" if v.passed else "; ".join(v.failures)))
            if v.passed:
                out.pick, out.status = cand, "optimal"
                return True
            out.rejected.append(v)
            return False

        if use_table and self.table is not None and not record:
            # auxiliary searches: the enumeration answers in the ILP's order without a solver call
            self._walk_table(model, t, drop, cost_cap, objective, excluded, verify, out, cap, cost_floor)
            self.pick_cache[key] = out
            return out
        # first solve: the ILP (the exact optimum of the linear model)
        sol = self.solve(model, cuts=list(dict.fromkeys(list(extra_cuts) + known)), drop=drop, cost_cap=cost_cap,
                         cost_floor=cost_floor, objective=objective)
        out.first_seconds = sol.seconds
        if not sol.feasible:
            out.status = "infeasible"
        else:
            out.first_cost = model.cost(sol.design)
            if use_table and self.table is not None:
                # candidates in the enumeration's order from the start, not the solver's optimum first:
                # designs tied in cost and power then come in a fixed order (row index), so the pick does
                # not depend on which solver (CBC, HiGHS) broke the tie
                self._walk_table(model, t, drop, cost_cap, objective, excluded, verify, out, cap, cost_floor)
            elif not verify(sol.design):
                self._walk_ilp(model, drop, cost_cap, objective, list(extra_cuts), known, tried, sol.design,
                               verify, out, cap, cost_floor)
        self.pick_cache[key] = out
        return out

    def _walk_table(self, model, t, drop, cost_cap, objective, excluded, verify, out, cap, cost_floor) -> None:
        """Candidates in the ILP's objective order from the enumeration (cost, then core power at target)."""
        tab = self.table
        mask = linear_feasible(tab, model, drop)
        if cost_cap is not None:
            mask &= tab.cost <= cost_cap
        if cost_floor is not None:
            mask &= tab.cost >= cost_floor
        rows = np.flatnonzero(mask)
        power = tab.idle_mw[rows] + t.target_iops * tab.busy_mw_per_iops[rows]
        cost_key = np.round(tab.cost[rows] / ilp.COST_TOL)
        keys = (rows, power, cost_key) if objective == "cost" else (rows, cost_key, power)
        order = rows[np.lexsort(keys)]
        for b in order:
            d = tab.design(int(b))
            if d in excluded:
                continue
            if out.iterations >= cap or verify(d):
                return
        out.status = "infeasible"

    def _walk_ilp(self, model, drop, cost_cap, objective, permanent, known, tried, first, verify, out, cap,
                  cost_floor) -> None:
        """Re-solve the ILP after each failure: a no-good cut per failed design of the current cost level;
        once the ILP moves to a higher cost, one ``cost_floor`` row replaces that level's cuts."""
        by_level = objective == "cost"
        floor: float | None = cost_floor
        level_cost = model.cost(first)
        level_cuts = [first]
        solves = 0
        while out.iterations < cap and solves <= cap:
            cuts = list(dict.fromkeys(permanent + level_cuts + [d for d in known if floor is None or
                                                                 model.cost(d) >= floor]))
            sol = self.solve(model, cuts=cuts, drop=drop, cost_cap=cost_cap, cost_floor=floor, objective=objective)
            solves += 1
            if not sol.feasible:
                out.status = "infeasible"
                return
            d = sol.design
            c = model.cost(d)
            if d in tried:  # solver tolerance let a tried design back in: cut it explicitly
                level_cuts.append(d)
                continue
            tol = ilp.COST_TOL * max(1.0, abs(c))
            if by_level and c > level_cost + tol:
                # the previous cost level is exhausted: one floor row replaces its no-good cuts
                floor, level_cuts, level_cost = 0.5 * (level_cost + tol + c), [], c
            if verify(d):
                return
            level_cuts.append(d)

    def _verify(self, model: LinearModel, d: Design, t: Targets, des: bool, drop, screen: bool) -> Verdict:
        ev = model.evaluate(d)
        lin_fail = [r for r in ev.violated() if row_family(r) not in set(drop)]
        if lin_fail:  # outside the linear model (only at the solver's tolerance edge)
            res = self.screen(d) if screen else self.analytic(d)
            return Verdict(d, res, None, tuple(f"linear row {row} violated" for row in lin_fail))
        return self.verdict(d, t, des, screen)


# --------------------------------------------------------------------------------------------------
# optimize
# --------------------------------------------------------------------------------------------------
def optimize(config: Config, *, min_iops: float | None = None, core_power_mw: float | None = None,
             dram_power_mw: float | None = None, max_latency_us: float | None = None,
             options: Mapping[str, Any] | None = None, explain: bool = False, pareto_front: bool = False,
             cross_check: bool | None = None, max_p99_us: float | None = None,
             max_p999_us: float | None = None) -> OptimizeResult:
    """Find the cheapest controller design meeting the IOPS/latency target and the power budgets.

    With ``[optimizer.nand]`` (or ``options["nand"]``) the NAND geometry, and with ``[optimizer.dram]`` (or
    ``options["dram"]``) the mapping option and cache fraction are decisions too: every device variant
    (:func:`ssdco.optimizer.space.device_variants`) is solved, variants whose lifetime at the target is below
    ``min_life_years`` are rejected, and the cheapest verified pick over all variants wins (ties: the earlier
    variant); ``device_options`` reports each variant's geometry, NAND cost, DRAM size, DRAM power, WAF, lifetime
    and best design.

    Parameters
    ----------
    config : Config
        The device configuration (its controller is ignored; ``[optimizer]`` describes the space).
    min_iops, core_power_mw, dram_power_mw : float, optional
        Targets; default to the config's ``[budgets]`` (an absent budget is unlimited).
    max_latency_us : float, optional
        Mean-latency target L; at queue depth N it is the throughput target N / L (Little's law).
    max_p99_us : float, optional
        99th-percentile latency target (us). Not in the linear model: a candidate whose p99 estimate misses it
        is rejected before its DES run, and a pick whose DES p99 misses it is rejected too (the search goes on to
        the next cheapest design).
    max_p999_us : float, optional
        99.9th-percentile latency target (us). The model has no p99.9 estimate: its p99 estimate (a lower bound)
        screens candidates, the DES's measured p99.9 verifies the pick (so it needs ``verify_des``).
    options : mapping, optional
        Overrides of ``[optimizer]`` keys (e.g. ``{"verify_des": False}``).
    explain : bool
        Compute the sensitivity of the pick to each budget and target.
    pareto_front : bool
        Enumerate the space and return the Pareto front (cost, analytic IOPS, core-side power).
        Raises ConfigError when the space exceeds ``optimizer.enumeration_limit``.
    cross_check : bool, optional
        Compare the ILP optimum with brute-force enumeration (default: when the space is within the limit).

    Returns
    -------
    OptimizeResult
        Never raises for an infeasible target: ``status`` says what happened and the result explains it.
    """
    space = DesignSpace.from_config(config, options)
    kw = dict(min_iops=min_iops, core_power_mw=core_power_mw, dram_power_mw=dram_power_mw,
              max_latency_us=max_latency_us, explain=explain, pareto_front=pareto_front, cross_check=cross_check,
              max_p99_us=max_p99_us, max_p999_us=max_p999_us)
    if len(space.device_variants) == 1 and space.options.min_life_years <= 0:
        # one device option: the variant's config (a one-value [optimizer.nand] or [optimizer.dram] list set it)
        return _optimize_device(space.device_variants[0].config, options=_without_device_tables(options), **kw)
    return _optimize_variants(space, options, kw)


def _without_device_tables(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """``options`` without the device-option tables (``dram``, ``nand``, ``sram``), which the variants have
    resolved."""
    return {k: v for k, v in (options or {}).items() if k not in ("dram", "nand", "sram")}


def _mapping_fields(cfg: Config, fx) -> dict[str, Any]:
    """A :class:`DeviceOption`'s mapping fields: the variant's FTL mapping and its effects ``fx``
    (``model.ftl.ftl_effects``; a full table in the configured DRAM without them)."""
    return {"mapping": cfg.ftl.mapping if cfg.ftl else "full",
            "cache_fraction": cfg.ftl.cache_fraction if cfg.ftl else 1.0,
            "dram_size_gib": fx.dram_size_gib if fx else cfg.dram.size_gib, "sram_mib": cfg.sram.mapping_mib,
            "waf": fx.waf_total if fx else 1.0, "mapping_hit_ratio": fx.mapping_hit_ratio if fx else 1.0}


def _geometry_fields(cfg: Config) -> dict[str, Any]:
    """A :class:`DeviceOption`'s NAND geometry fields and the geometry's cost."""
    n = cfg.nand
    return {"channels": n.channels, "ways_per_channel": n.ways_per_channel, "dies_per_chip": n.dies_per_chip,
            "planes_per_die": n.planes_per_die, "nand_cost": n.cost, "channel_rate_mts": n.channel_rate_mts}


def _device_option(name: str, cfg: Config, r: OptimizeResult, min_life: float) -> DeviceOption:
    """The ``device_options`` row of one device variant searched as ``r``: its DRAM power and flash lifetime at
    the target; feasible when ``r`` is and the lifetime reaches ``min_life`` years."""
    from ssdco.model.power import compute_power
    from ssdco.network.build import build_network
    from ssdco.network.ftl_effects import ftl_effects

    fx = ftl_effects(cfg)
    t = r.targets
    w = cfg.workload
    write_rate = t.target_iops * (1.0 - w.read_fraction) * w.mean_request_bytes
    life = fx.life_years(write_rate) if fx is not None else math.inf
    net = build_network(cfg)
    dram_mw = compute_power(cfg, net, t.target_iops, {},
                            dram_size_gib=None if fx is None else fx.dram_size_gib).dram_mw
    ok = r.feasible and life >= min_life
    note = r.message
    if r.feasible and life < min_life:
        note = f"lifetime {life:.3g} years at {t.target_iops:,.0f} IOPS < min_life_years {min_life:g}"
    return DeviceOption(
        name=name, **_mapping_fields(cfg, fx), **_geometry_fields(cfg), dram_power_mw=float(dram_mw),
        life_years=float(life), feasible=ok,
        cost=r.cost if ok else None, pick=r.pick if ok else None,
        iops=(r.verdict.analytic.iops if ok and r.verdict is not None else None), note=note)


def _best_device_option(results: list[tuple[DeviceOption, OptimizeResult]]):
    """``(row, result, message)`` of the cheapest feasible variant (ties: the earlier one); without one, the
    first variant's result with its pick removed."""
    feasible = [(row, r) for row, r in results if row.feasible]
    if feasible:
        row, best = min(feasible, key=lambda x: x[1].cost)
        msg = (f"{best.message.rstrip().rstrip('.')}. Device option: {row.name} "
               f"(DRAM {row.dram_size_gib:.3g} GiB, {row.dram_power_mw:,.0f} mW).")
        return row, best, msg
    row, best = results[0]
    msg = f"no device option qualifies; first option ({row.name}): {row.note}"
    best = replace(best, pick=None, status="infeasible" if best.status == "optimal" else best.status,
                   cost=None, verdict=None, linear=None)
    return row, best, msg


def device_only_iops(config: Config) -> float:
    """IOPS of ``config``'s device with no firmware time (every module 0 cycles, no memory stall, on one core):
    what the host link, the dies and the channels sustain at the queue depth, an upper bound on every controller
    design's IOPS (the analytic model at the ``screen`` effort)."""
    modules = {m: replace(spec, cycles=0.0, memory_stall_us=0.0, service_us={})
               for m, spec in config.modules.items()}
    spec = next(iter(config.core_specs))
    free = replace(config, modules=modules).with_controller(
        Controller("device-only", "no firmware time", (CoreGroup("all", spec, 1, MODULES),), {}))
    return evaluate(free, effort="screen").iops


def _device_capped(config: Config, targets: Targets, cap_iops: float, seconds: float) -> OptimizeResult:
    """The result for a device variant whose device alone sustains ``cap_iops`` < the target: no design searched."""
    space = DesignSpace.from_config(config, {})
    message = (f"the device alone sustains {cap_iops:,.0f} IOPS at queue depth {targets.queue_depth} (no firmware "
               f"time), below the target {targets.target_iops:,.0f}: no controller design meets it")
    return OptimizeResult(
        config=config, space=space, targets=targets, status="infeasible", message=message, pick=None, cost=None,
        cost_breakdown={}, linear=None, verdict=None, runners_up=(), binding=(), infeasibility=None,
        sensitivity=None, cross_check=None, pareto=None, pareto_seconds=None, history=(), space_size=space.size(),
        solver="none", solve_seconds=seconds, time_to_optimum_seconds=None, timing={"device_bound_seconds": seconds})


def _optimize_variant(config: Config, options: dict[str, Any], kw: dict) -> OptimizeResult:
    """:func:`_optimize_device` for one device variant, unless the device alone misses the IOPS target
    (:func:`device_only_iops`): then the variant is infeasible at once and says why."""
    t0 = time.perf_counter()
    target_kw = {k: kw[k] for k in ("min_iops", "core_power_mw", "dram_power_mw", "max_latency_us", "max_p99_us",
                                    "max_p999_us")}
    targets = make_targets(DesignSpace.from_config(config, options), **target_kw)
    if math.isfinite(targets.target_iops) and targets.target_iops > 0:
        cap = device_only_iops(config)
        if cap < targets.target_iops:
            return _device_capped(config, targets, cap, time.perf_counter() - t0)
    return _optimize_device(config, options=options, **kw)


def _optimize_variants(space: DesignSpace, options: Mapping[str, Any] | None, kw: dict) -> OptimizeResult:
    t0 = time.perf_counter()
    opts = _without_device_tables(options)
    results: list[tuple[DeviceOption, OptimizeResult]] = []
    for v in space.device_variants:
        r = _optimize_variant(v.config, opts, kw)
        results.append((_device_option(v.name, v.config, r, space.options.min_life_years), r))
    row, best, msg = _best_device_option(results)
    front = _front_over_devices(results)
    timing = dict(best.timing)  # the pick's own search, and every option's counts summed
    timing["device_options_seconds"] = time.perf_counter() - t0
    for key in ("ilp_solves", "analytic_designs", "screened_designs"):
        timing[f"all_options_{key}"] = sum(r.timing.get(key, 0) for _, r in results)
    return replace(best, message=msg, device=row.name, device_options=tuple(o for o, _ in results), timing=timing,
                   solve_seconds=time.perf_counter() - t0, **front)


def _front_over_devices(results: list[tuple[DeviceOption, OptimizeResult]]) -> dict[str, Any]:
    """``pareto`` and ``pareto_seconds`` over every device option that has a front (each point named by its
    option): the non-dominated points of their union (cost including the option's NAND cost, IOPS, core-side
    power). Empty where no option computed a front; an option the device alone rules out has none."""
    fronts = [(row.name, r) for row, r in results if r.pareto is not None]
    if not fronts:
        return {}
    points = [replace(p, device=name) for name, r in fronts for p in r.pareto]
    keep = pareto_front(np.array([p.cost for p in points]), np.array([p.iops for p in points]),
                        np.array([p.core_power_mw for p in points]))
    return {"pareto": tuple(points[i] for i in keep),
            "pareto_seconds": sum(r.pareto_seconds or 0.0 for _, r in fronts)}


# Peak bytes per design of the enumeration's table and, on top of it, of the Pareto front's batch MVA (tracemalloc
# on the PM9A3 preset's space, rounded up).
ENUMERATION_BYTES_PER_DESIGN = 130
PARETO_BYTES_PER_DESIGN = 350


def enumeration_bytes(size: int, pareto_front: bool) -> int:
    """Peak memory (bytes) of enumerating ``size`` designs, and of their Pareto front with ``pareto_front``."""
    return size * (ENUMERATION_BYTES_PER_DESIGN + (PARETO_BYTES_PER_DESIGN if pareto_front else 0))


def _check_memory(config: Config, space: DesignSpace, size: int, pareto_front: bool) -> None:
    """Refuse, before allocating, an enumeration whose memory estimate exceeds ``optimizer.memory_limit_gb``."""
    from ssdco.errors import ConfigError

    need_gb = enumeration_bytes(size, pareto_front) / 1e9
    if need_gb > space.options.memory_limit_gb:
        raise ConfigError(config.source, "optimizer.memory_limit_gb", space.options.memory_limit_gb,
                          f"enumerating the {size:,} designs{' and their Pareto front' if pareto_front else ''} takes "
                          f"about {need_gb:.3g} GB; raise optimizer.memory_limit_gb to at least that, or lower "
                          f"optimizer.enumeration_limit below {size:,} to search without enumerating")


def _check_enumerable(config: Config, space: DesignSpace, size: int) -> None:
    """Refuse a Pareto front of a space larger than ``optimizer.enumeration_limit``."""
    from ssdco.errors import ConfigError

    if size > space.options.enumeration_limit:
        raise ConfigError(config.source, "optimizer.enumeration_limit", space.options.enumeration_limit,
                          f"the design space has {size:,} designs; raise the limit to at least that to "
                          "enumerate it for --pareto (or shrink the space: max_cores_per_group, max_units, core_specs)")


def _enumerated(space: DesignSpace, model: LinearModel, size: int) -> tuple[DesignTable | None, float]:
    """The table of every design and the seconds it took, when the space is within ``enumeration_limit``
    (small enough: the search verifies whole cost levels per ILP solve); else ``(None, 0.0)``."""
    if size > space.options.enumeration_limit:
        return None, 0.0
    t0 = time.perf_counter()
    table = enumerate_space(space, model.coef)
    return table, time.perf_counter() - t0


def _verified_pick(s: _Searcher, targets: Targets, pick: Design | None, des: bool) -> Verdict | None:
    """The pick's verdict, its DES run settled by the seed check and its analytic answer whatif's own, with
    every caveat (a pick passed it: ``s.analytic_failures``); None without a pick."""
    if pick is None:
        return None
    verdict = s.verdict(pick, targets, des)
    if verdict.validation is not None:
        verdict = replace(verdict, validation=s.settle(verdict.validation))
    return replace(verdict, analytic=s.full(pick))


def _outcome(s: _Searcher, targets: Targets, pick: Design | None, cost: float | None, main: _Outcome):
    """``(status, message, runners_up, binding, infeasibility)`` of the search ``main``: the pick's runners-up
    and binding constraints, or what rules every design out."""
    if pick is not None:
        runners, binding = _runners_and_binding(s, targets, pick, cost, main)
        return "optimal", _pick_message(pick, cost, main), runners, binding, None
    status = main.status
    infeas, binding = _explain_infeasible(s, targets, main)
    message = _infeasible_message(s, targets, main, binding)
    runners = [_candidate(s, targets, v.design, None, "rejected", list(v.failures), v.stage) for v in main.rejected]
    return status, message, runners, binding, infeas


def _cross_check(table: DesignTable, model: LinearModel, main: _Outcome, enum_seconds: float) -> CrossCheck:
    """The ILP's first optimum against brute-force enumeration of the linear model."""
    t0 = time.perf_counter()
    b, ecost = linear_optimum(table, model)
    ilp_cost = main.first_cost
    if main.first_cost is None and main.iterations == 0:
        ilp_cost = None
    agree = (ecost is None and ilp_cost is None) or (
        ecost is not None and ilp_cost is not None and abs(ecost - ilp_cost) <= ilp.COST_TOL * max(1.0, abs(ecost)))
    return CrossCheck(ilp_cost, ecost, bool(agree), len(table), enum_seconds + time.perf_counter() - t0)


def _pareto_front(s: _Searcher, table: DesignTable, model: LinearModel) -> tuple[tuple[ParetoPoint, ...], float]:
    """The Pareto front of the enumerated space, each point with whatif's IOPS, and the seconds its MVA took."""
    pts, front_seconds = pareto(table, model)
    return tuple(replace(p, iops_whatif=float(s.analytic(p.design).iops)) for p in pts), front_seconds


def _timing(s: _Searcher, main: _Outcome, enum_seconds: float, front_seconds: float | None) -> dict[str, float]:
    """``OptimizeResult.timing``: where the search spent its time, and how many solves and designs."""
    return {"ilp_seconds": s.ilp_seconds, "ilp_solves": s.ilp_solves, "verify_iterations": main.iterations,
            "analytic_seconds": s.verify_seconds, "screen_seconds": s.screen_seconds,
            "analytic_designs": len(s.analytic_cache),
            "screened_designs": len(s.screen_cache), "des_seconds": s.des_seconds,
            "enumeration_seconds": enum_seconds, "pareto_mva_seconds": front_seconds or 0.0}


def _optimize_device(config: Config, *, min_iops: float | None = None, core_power_mw: float | None = None,
                     dram_power_mw: float | None = None, max_latency_us: float | None = None,
                     options: Mapping[str, Any] | None = None, explain: bool = False, pareto_front: bool = False,
                     cross_check: bool | None = None, max_p99_us: float | None = None,
                     max_p999_us: float | None = None) -> OptimizeResult:
    """:func:`optimize` for one device variant (the controller design search)."""
    t_start = time.perf_counter()
    space = DesignSpace.from_config(config, options)
    targets = make_targets(space, min_iops=min_iops, core_power_mw=core_power_mw, dram_power_mw=dram_power_mw,
                           max_latency_us=max_latency_us, max_p99_us=max_p99_us, max_p999_us=max_p999_us)
    size = space.size()
    if pareto_front:
        _check_enumerable(config, space, size)
    if size <= space.options.enumeration_limit:
        _check_memory(config, space, size, pareto_front)
    cfg = replace(config, budgets=Budgets(core_power_mw=targets.core_power_mw, dram_power_mw=targets.dram_power_mw,
                                          min_iops=targets.min_iops, drive_power_mw=targets.drive_power_mw))
    space = replace(space, config=cfg)
    model = LinearModel(space, targets)
    opts = space.options
    table, enum_seconds = _enumerated(space, model, size)
    s = _Searcher(space, model, cfg, table)

    main = s.search(targets, des=opts.verify_des, record=True)
    pick = main.pick
    verdict = _verified_pick(s, targets, pick, opts.verify_des)
    linear = model.evaluate(pick) if pick is not None else None
    cost = linear.cost if linear is not None else None
    status, message, runners, binding, infeas = _outcome(s, targets, pick, cost, main)
    sens = _sensitivity(s, targets, pick, verdict) if (explain and pick is not None) else None
    if cross_check is None:
        cross_check = table is not None
    xc = _cross_check(table, model, main, enum_seconds) if cross_check and table is not None else None
    front, front_seconds = _pareto_front(s, table, model) if pareto_front and table is not None else (None, None)

    total = time.perf_counter() - t_start
    breakdown = _cost_breakdown(space, pick) if pick is not None else {}
    return OptimizeResult(
        config=cfg, space=space, targets=targets, status=status, message=message, pick=pick, cost=cost,
        cost_breakdown=breakdown, linear=linear, verdict=verdict, runners_up=tuple(runners),
        binding=tuple(binding), infeasibility=infeas, sensitivity=tuple(sens) if sens is not None else None,
        cross_check=xc, pareto=front, pareto_seconds=front_seconds, history=tuple(s.history), space_size=size,
        solver=s.solver, solve_seconds=total, time_to_optimum_seconds=main.first_seconds,
        timing=_timing(s, main, enum_seconds, front_seconds),
    )


# --------------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------------
def _cost_breakdown(space: DesignSpace, d: Design) -> dict[str, float]:
    cfg = space.config
    cores = sum(g.count * cfg.core_specs[g.spec].cost for g in d.groups)
    units = sum(u * cfg.accelerator_specs[m].unit_cost for m, u in d.hardware)
    dev = sum(cfg.accelerator_specs[m].development_cost for m, _ in d.hardware)
    from ssdco.network.ftl_effects import ftl_effects

    fx = ftl_effects(cfg)
    dram = (cfg.dram.size_gib if fx is None else fx.dram_size_gib) * cfg.dram.cost_per_gib
    nand = cfg.nand.cost
    sram = cfg.sram.mapping_mib * cfg.sram.cost_per_mib
    return {"cores": cores, "accelerator_units": units, "development": dev, "dram": dram, "nand": nand, "sram": sram,
            "total": cores + units + dev + dram + nand + sram}


def _candidate(s: _Searcher, t: Targets, d: Design, pick_cost: float | None, kind: str, lacks: list[str],
               verified_by: str = "analytic") -> Candidate:
    r = s.full_cache.get(d) or s.analytic(d)  # the answer its verification used
    c = s.model.cost(d)
    return Candidate(design=d, cost=c, delta_cost=(c - pick_cost) if pick_cost is not None else math.nan,
                     kind=kind, lacks=tuple(lacks), iops=r.iops, latency_mean_us=r.latency_mean_us,
                     core_power_mw=r.power.core_side_mw, dram_power_mw=r.power.dram_mw, verified_by=verified_by)


def _row_text(model: LinearModel, ev: Evaluation, row: str) -> str:
    """What a violated row means, in units a person reads."""
    t = model.targets
    x = t.target_iops
    if row == "core_power":
        return f"needs {ev.core_power_mw:.1f} mW core-side power at {x:,.0f} IOPS > budget {t.core_power_mw:.1f} mW"
    if row == "dram_power":
        return f"needs {ev.dram_power_mw:.1f} mW DRAM power at {x:,.0f} IOPS > budget {t.dram_power_mw:.1f} mW"
    if row == "population_bound":
        need = x * ev.zero_load_latency_us / US_PER_S
        return (f"zero-load latency {ev.zero_load_latency_us:.2f} us allows at most "
                f"{t.queue_depth / ev.zero_load_latency_us * US_PER_S:,.0f} IOPS at QD{t.queue_depth} "
                f"(needs {need:.1f} requests in flight)")
    if row.startswith("util_"):
        name = row[5:]
        station = next((k for k in ev.utilization if k.endswith(":" + name) or k == name
                        or name in k.split(":")[-1].split("+")), name)
        busy = ev.utilization.get(station, float("nan"))
        return f"{station} would be {busy:.0%} busy at {x:,.0f} IOPS > cap {t.utilization_cap:.0%}"
    return row


def _linear_lacks(model: LinearModel, d: Design, families: set[str] | None = None) -> list[str]:
    ev = model.evaluate(d)
    out, seen = [], set()
    for r in ev.violated():
        if families is not None and row_family(r) not in families:
            continue
        text = _row_text(model, ev, r)
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out


PARAM_OF_FAMILY = {"core_power": "core_power_mw", "dram_power": "dram_power_mw", "utilization": "utilization_cap",
                   "iops": "min_iops"}


def _relaxed(t: Targets, family: str) -> tuple[Targets, tuple[str, ...]]:
    """Targets and dropped ILP families that relax one budget/target entirely."""
    if family == "core_power":
        return t.replace(core_power_mw=math.inf), ()
    if family == "dram_power":
        return t.replace(dram_power_mw=math.inf), ()
    if family == "utilization":
        return t, ("utilization",)
    return t.replace(min_iops=0.0, max_latency_us=None), ()  # the IOPS / latency target


def _family_limit(t: Targets, family: str) -> float:
    return {"core_power": t.core_power_mw, "dram_power": t.dram_power_mw, "utilization": t.utilization_cap,
            "iops": t.target_iops}[family]


def _runners_and_binding(s: _Searcher, t: Targets, pick: Design, cost: float, main: _Outcome):
    opts = s.opts
    runners: list[Candidate] = []
    seen = {pick}
    for v in main.rejected:
        if v.design not in seen:
            seen.add(v.design)
            runners.append(_candidate(s, t, v.design, cost, "rejected", list(v.failures), v.stage))
    # next-cheapest designs that pass the analytic verification
    extra: tuple[Design, ...] = (pick,)
    floor = cost - ilp.COST_TOL * max(1.0, cost)  # everything cheaper was verified (and failed) by the main loop
    for _ in range(opts.runners_up):
        o = s.search(t, des=False, extra_cuts=extra, max_iterations=min(opts.max_iterations, SUB_SEARCH_CAP),
                     cost_floor=floor)
        if o.pick is None:
            break
        extra = extra + (o.pick,)
        if o.pick not in seen:
            seen.add(o.pick)
            c = s.model.cost(o.pick)
            lacks = [f"costs {c - cost:+.3g} more" if c - cost > ilp.COST_TOL else
                     "same cost, more core-side power at the target"]
            runners.append(_candidate(s, t, o.pick, cost, "costlier", lacks, "analytic"))
    # binding budgets/targets: relaxing one alone admits a cheaper design that passes the same verification as the
    # pick (the analytic model, and the DES unless verify_des is off)
    binding: list[Binding] = []
    lin = s.model.evaluate(pick)
    r = s.full(pick)  # the pick's own figures, as reported
    values = {"core_power": max(lin.core_power_mw, r.power.core_side_mw),
              "dram_power": max(lin.dram_power_mw, r.power.dram_mw),
              "utilization": float(lin.max_utilization),
              "iops": r.iops}
    for fam in ("core_power", "dram_power", "utilization", "iops"):
        limit = _family_limit(t, fam)
        if fam in ("core_power", "dram_power") and not math.isfinite(limit):
            continue
        if fam == "iops" and limit <= 0:
            continue
        tr, drop = _relaxed(t, fam)
        o = s.search(tr, des=opts.verify_des, drop=drop, cost_cap=cost - ilp.COST_TOL * max(1.0, cost),
                     max_iterations=min(opts.max_iterations, SUB_SEARCH_CAP))
        binds = o.pick is not None if o.status != "iteration_cap" else None
        name = PARAM_OF_FAMILY[fam]
        if binds is None:
            effect = (f"undetermined: relaxing it admits {o.iterations} cheaper design(s) of the linear model, all "
                      "failing verification, and the check stopped there")
        elif binds:
            d = o.pick
            lacks = s.analytic_failures(d, t)
            lacks += _linear_lacks(s.model, d, {fam} if fam != "iops" else {"utilization", "population"})
            lacks = lacks or [f"breaks {name}"]
            if d not in seen:
                seen.add(d)
                runners.append(_candidate(s, t, d, cost, f"breaks:{name}", lacks,
                                          "des" if opts.verify_des else "analytic"))
            effect = (f"binds: without it a design costing {s.model.cost(d):.3g} "
                      f"({s.model.cost(d) - cost:+.3g}) qualifies")
        else:
            effect = "not binding: relaxing it alone admits nothing cheaper"
        binding.append(Binding(name, limit, values[fam], binds, effect, "des" if opts.verify_des else "analytic"))
    runners.sort(key=lambda c: (c.cost, c.kind))
    return runners, binding


def _pick_message(pick: Design, cost: float, main: _Outcome) -> str:
    n = len(main.rejected)
    return (f"cheapest verified design: cost {cost:.4g}; {main.iterations} design(s) verified"
            + (f", {n} cheaper or tied design(s) failed verification and were cut" if n else ""))


def _explain_infeasible(s: _Searcher, t: Targets, main: _Outcome):
    model = s.model
    # 1. least relative violation (elastic ILP, no verification cuts)
    el = s.solve(model, elastic=True)
    rows: dict[str, tuple[float, float, str]] = {}
    least = el.design if el.feasible else None
    if least is not None:
        ev = model.evaluate(least)
        for r in ev.violated():
            rows[r] = (float(ev.rhs[r] - ev.slack[r]), float(ev.rhs[r]), _row_text(model, ev, r))
    # 2. binding families: relaxing one alone makes the search succeed
    binding: list[Binding] = []
    for fam in ("core_power", "dram_power", "utilization", "iops"):
        limit = _family_limit(t, fam)
        if fam in ("core_power", "dram_power") and not math.isfinite(limit):
            continue
        if fam == "iops" and limit <= 0:
            continue
        tr, drop = _relaxed(t, fam)
        o = s.search(tr, des=False, drop=drop, max_iterations=min(s.opts.max_iterations, SUB_SEARCH_CAP))
        name = PARAM_OF_FAMILY[fam]
        if o.pick is not None:
            effect = f"binds: relaxing {name} alone admits a design (cost {s.model.cost(o.pick):.3g})"
        else:
            effect = f"relaxing {name} alone is not enough"
        binding.append(Binding(name, limit, None, o.pick is not None, effect, "analytic"))
    # 3. closest designs
    closest: list[Candidate] = []
    if math.isfinite(t.core_power_mw):
        o = s.search(t.replace(core_power_mw=math.inf), des=False, objective="core_power",
                     max_iterations=min(s.opts.max_iterations, SUB_SEARCH_CAP))
        if o.pick is not None:
            r = s.analytic(o.pick)
            need = max(model.at(t).evaluate(o.pick).core_power_mw, r.power.core_side_mw)
            if need > t.core_power_mw:
                lack = f"needs {need:.1f} mW core-side power > budget {t.core_power_mw:.1f} mW"
            else:  # within the core budget: something else kept it from being the pick
                lack = (f"needs {need:.1f} mW core-side power (budget {t.core_power_mw:.1f} mW), but "
                        + _why_not_picked(s, t, main, o.pick))
            closest.append(_candidate(s, t, o.pick, None, "closest:lowest_power_meeting_iops",
                                      [lack + "; lowest-power design meeting the IOPS target"]))
    if t.target_iops > 0:
        best = _max_iops_within_budgets(s, t)
        if best is None and (math.isfinite(t.core_power_mw) or math.isfinite(t.dram_power_mw)):
            closest.append(_candidate_none("closest:highest_iops_within_budgets",
                                           "no design meets the power budgets at any throughput (idle power alone "
                                           "exceeds them)"))
        if best is not None:
            r = s.analytic(best)
            if r.iops < t.target_iops:
                lacks = [f"reaches {r.iops:,.0f} IOPS < target {t.target_iops:,.0f}; "
                         "highest-IOPS design within the power budgets"]
            else:  # it reaches the target, but breaks another row there (the utilisation cap, say)
                lacks = [f"reaches {r.iops:,.0f} IOPS (target {t.target_iops:,.0f}), but "
                         + _why_not_picked(s, t, main, best)
                         + "; highest-IOPS design within the power budgets"]
            closest.append(_candidate(s, t, best, None, "closest:highest_iops_within_budgets", lacks))
    if main.rejected:
        v = max(main.rejected, key=lambda v: v.analytic.iops)
        closest.append(_candidate(s, t, v.design, None, "closest:best_rejected", list(v.failures), v.stage))
    return Infeasibility(rows, least, tuple(closest)), binding


def _why_not_picked(s: _Searcher, t: Targets, main: _Outcome, d: Design) -> str:
    """Why design ``d``, good enough by one measure, is not the pick under ``t``, as a clause: the linear rows
    it breaks at the target and the analytic checks it fails (a core group's modules share one text, said
    once); else what the main search's verification said of it (the DES); else that the main search
    stopped before reaching it."""
    at_target = s.model.at(t)
    ev = at_target.evaluate(d)
    broken = dict.fromkeys([*(_row_text(at_target, ev, row) for row in ev.violated()), *s.analytic_failures(d, t)])
    if broken:
        return "at the target " + "; ".join(broken)
    said = dict.fromkeys(f for v in main.rejected if v.design == d for f in v.failures)
    if said:
        return "the search's verification found " + "; ".join(said)
    if main.status == "iteration_cap":
        return "the search stopped (optimizer.max_iterations) before verifying it"
    return "it failed the search's verification"  # defensive: an ended search verified every design it passed


def _candidate_none(kind: str, text: str) -> Candidate:
    """A 'closest design' entry that has no design (nothing qualifies even loosely)."""
    nan = math.nan
    return Candidate(design=None, cost=nan, delta_cost=nan, kind=kind, lacks=(text,), iops=nan, latency_mean_us=nan,
                     core_power_mw=nan, dram_power_mw=nan, verified_by="linear")


def _max_iops_within_budgets(s: _Searcher, t: Targets) -> Design | None:
    """Bisection on the IOPS target for the highest one a design meets within the power budgets."""
    base = t.replace(min_iops=0.0, max_latency_us=None, max_p99_us=None, max_p999_us=None)  # the power budgets
    o = s.search(base, des=False, max_iterations=min(s.opts.max_iterations, SUB_SEARCH_CAP))
    if o.pick is None:
        return None
    found = [o.pick]
    lo, hi = s.analytic(o.pick).iops, t.target_iops
    for _ in range(2 * BISECT_MAX_STEPS):  # to 1e-4: the last design found is then the highest-IOPS one
        if lo >= hi or hi - lo <= 1e-4 * hi:
            break
        mid = 0.5 * (lo + hi)
        o = s.search(base.replace(min_iops=mid), des=False, max_iterations=min(s.opts.max_iterations, SUB_SEARCH_CAP))
        if o.pick is not None:
            found.append(o.pick)
            lo = max(mid, s.analytic(o.pick).iops)
        else:
            hi = mid
    return max(found, key=lambda d: s.analytic(d).iops)


def _infeasible_message(s: _Searcher, t: Targets, main: _Outcome, binding: list[Binding]) -> str:
    binds = [b.name for b in binding if b.binds]
    if main.status == "iteration_cap":
        head = (f"stopped after {main.iterations} verify/tighten iterations (optimizer.max_iterations): the "
                f"cheapest designs meeting the linear model all fell short when verified; raise "
                "optimizer.max_iterations, lower optimizer.utilization_cap, or relax the target")
    elif main.rejected:
        head = (f"no design qualifies: the {len(main.rejected)} design(s) meeting the linear model all failed "
                "verification")
    else:
        head = "no design in the space meets the targets"
    if binds:
        head += "; binding: " + ", ".join(binds)
    return head


# --------------------------------------------------------------------------------------------------
# sensitivity
# --------------------------------------------------------------------------------------------------
def _with_param(t: Targets, name: str, value: float) -> Targets:
    if name == "min_iops":
        return t.replace(min_iops=value, max_latency_us=None)
    return t.replace(**{name: value})


def _sensitivity(s: _Searcher, t: Targets, pick: Design, verdict: Verdict) -> list[Sensitivity]:
    model = s.model
    lin = model.evaluate(pick)
    r = s.full(pick)  # the pick's own figures, as reported
    cost = lin.cost
    tol = ilp.COST_TOL * max(1.0, cost)
    des_core = des_dram = None
    des_iops = math.inf
    if verdict is not None and verdict.validation is not None:
        p = verdict.validation.des_power_mw
        des_core, des_dram = p["cores"] + p["accelerators"], p["dram"]
        des_iops = verdict.validation.des.iops.value
    needs = {
        "core_power_mw": max(lin.core_power_mw, r.power.core_side_mw, des_core or 0.0),
        "dram_power_mw": max(lin.dram_power_mw, r.power.dram_mw, des_dram or 0.0),
        "min_iops": min(model.max_iops(pick), r.iops, des_iops),
        "utilization_cap": lin.max_utilization,
    }
    current = {"core_power_mw": t.core_power_mw, "dram_power_mw": t.dram_power_mw, "min_iops": t.target_iops,
               "utilization_cap": t.utilization_cap}
    # loosening direction: +1 raises the value, -1 lowers it; the extreme is the loosest value
    spec = {"core_power_mw": (+1, math.inf), "dram_power_mw": (+1, math.inf), "min_iops": (-1, 0.0),
            "utilization_cap": (+1, 1.0)}

    def pick_at(name: str, value: float) -> Design | None:
        if name == "utilization_cap" and value > 1.0:
            return None
        iterations = min(s.opts.max_iterations, SUB_SEARCH_CAP)
        return s.search(_with_param(t, name, value), des=False, max_iterations=iterations).pick

    out = []
    for name, (direction, extreme) in spec.items():
        cur = current[name]
        need = needs[name]
        # tighten: the pick qualifies until the parameter passes its own requirement
        t_lim = need
        beyond = need * (1 + REL_STEP) + 1.0 if name == "min_iops" else need * (1 - REL_STEP)
        tb = pick_at(name, beyond) if beyond > 0 else None
        # loosen: bisection for the first value where a cheaper design qualifies
        l_lim = lb = None
        if math.isfinite(cur) or name == "min_iops":
            d_ext = pick_at(name, extreme) if extreme != cur else None
            if d_ext is not None and model.cost(d_ext) < cost - tol:
                def boundary(lo: float, hi: float, cheaper_at_hi: bool):
                    """Bisect [lo, hi] for where a cheaper design than the pick appears."""
                    best = d_ext
                    for _ in range(BISECT_MAX_STEPS):
                        if hi - lo <= BISECT_REL_TOL * max(abs(hi), 1e-12):
                            break
                        mid = 0.5 * (lo + hi)
                        d = pick_at(name, mid)
                        cheaper = d is not None and model.cost(d) < cost - tol
                        if cheaper:
                            best = d
                        if cheaper == cheaper_at_hi:
                            hi = mid
                        else:
                            lo = mid
                    edge = hi if cheaper_at_hi else lo
                    d_edge = pick_at(name, edge)
                    return edge, d_edge if d_edge is not None else best

                if direction > 0:
                    hi = _need_of(s, t, d_ext, name) if not math.isfinite(extreme) else extreme
                    l_lim, lb = boundary(cur, max(hi, cur), cheaper_at_hi=True)
                else:
                    l_lim, lb = boundary(extreme, cur, cheaper_at_hi=False)  # cheaper at lo, the pick at hi
        out.append(Sensitivity(
            parameter=name, current=cur, binding=l_lim is not None, tighten_limit=t_lim,
            tighten_becomes=tb, tighten_becomes_cost=model.cost(tb) if tb is not None else None,
            loosen_limit=l_lim, loosen_becomes=lb, loosen_becomes_cost=model.cost(lb) if lb is not None else None))
    return out


def _need_of(s: _Searcher, t: Targets, d: Design, name: str) -> float:
    """The value of budget ``name`` that design ``d`` needs (linear at the target and analytic)."""
    lin = s.model.at(t).evaluate(d)
    r = s.analytic(d)
    if name == "core_power_mw":
        return max(lin.core_power_mw, r.power.core_side_mw)
    return max(lin.dram_power_mw, r.power.dram_mw)
