"""Model vs DES: run both on one configuration and line their numbers up.

The DES result is turned into the same keys as ``ssdco whatif --json`` (its power computed from the
*measured* busy servers with the same power model), plus confidence intervals and measured percentiles;
``relative_error`` = analytic / DES - 1 per metric and per station utilisation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping

from ssdco import defaults
from ssdco.errors import ConfigError, unstable_open_workload_error
from ssdco.metrics import Metrics, relative
from ssdco.model.power import compute_power
from ssdco.model.result import Result, _num, budget_dict, check_budgets
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import Network, build_network
from ssdco.rng import SeedLike
from ssdco.sim.des import DesResult, simulate
from ssdco.sim.replications import ReplicationCheck, default_runs, replication_check
from ssdco.spec import Config, Variability
from ssdco.spec.search_options import MAX_TIMING_SPREAD_SCV

# Agreement the model must reach against the DES on closed, deterministic configurations
# (issue "DES and ssdco validate"): IOPS within 3 %, mean latency within 10 %.
IOPS_TOLERANCE = 0.03
LATENCY_TOLERANCE = 0.10
UTILIZATION_TOLERANCE = 0.05  # absolute, per station (reported, part of the verdict)


def with_timing_spread(config: Config, scv: float) -> Config:
    """``config`` with every service time varying: each of its ``[variability]`` scv (firmware, NAND, host)
    raised to at least ``scv`` (a squared coefficient of variation; 0.01 is a 10 % standard deviation)."""
    if not (math.isfinite(scv) and 0.0 < scv <= MAX_TIMING_SPREAD_SCV):
        raise ValueError(f"timing spread: expected an scv > 0 and <= {MAX_TIMING_SPREAD_SCV:g}, got {scv!r}")
    v = config.variability
    return replace(config, variability=Variability(firmware_scv=max(v.firmware_scv, scv),
                                                   nand_scv=max(v.nand_scv, scv), host_scv=max(v.host_scv, scv)))


@dataclass(frozen=True)
class TimingSpreadCheck:
    """The DES run once more with every service time varying (:func:`with_timing_spread`; the same requests and,
    for an int seed, the same seed as the main run) and the analytic answer's errors against it. The model
    answers for the configuration as given; a disagreement that this run removes rests on exactly constant
    service times, which can hold requests in step (docs/accuracy.md, the misses)."""

    scv: float
    des: DesResult
    relative_error: Mapping[str, float]  # analytic / this run - 1: "iops", "latency_mean_us"
    utilization_error: Mapping[str, float]  # analytic - this run, absolute, per station

    @property
    def agrees(self) -> bool:
        """The main run's three checks against this run: IOPS within :data:`IOPS_TOLERANCE`, mean latency within
        :data:`LATENCY_TOLERANCE`, every station's utilisation within :data:`UTILIZATION_TOLERANCE`."""
        return (abs(self.relative_error["iops"]) <= IOPS_TOLERANCE
                and abs(self.relative_error["latency_mean_us"]) <= LATENCY_TOLERANCE
                and all(abs(e) <= UTILIZATION_TOLERANCE for e in self.utilization_error.values()))

    def summary(self) -> str:
        """One sentence on this run and the model's errors against it (``validate`` and ``optimize`` print it)."""
        return (f"DES with every service time varying (scv >= {self.scv:g}, a {math.sqrt(self.scv):.0%} standard "
                f"deviation; same requests and seed): IOPS {self.des.iops.value:,.0f} (model "
                f"{self.relative_error['iops']:+.2%}), latency mean {self.des.mean_latency_us.value:,.2f} us (model "
                f"{self.relative_error['latency_mean_us']:+.2%}): "
                + ("IOPS, latency and utilisation within" if self.agrees else "outside") + " the tolerances")

    def to_dict(self) -> dict[str, Any]:
        """``validate --json``'s ``des_timing_spread``."""
        return {"scv": self.scv, "iops": _num(self.des.iops.value),
                "iops_ci95": [_num(self.des.iops.low), _num(self.des.iops.high)],
                "latency_mean_us": _num(self.des.mean_latency_us.value),
                "relative_error": {k: _num(v) for k, v in self.relative_error.items()},
                "utilization_error": {k: _num(v) for k, v in self.utilization_error.items()}, "agrees": self.agrees}


@dataclass(frozen=True)
class Validation:
    """Analytic and DES answers for one configuration and their relative errors."""

    config: Config
    analytic: Result
    des: DesResult
    des_power_mw: Mapping[str, float]
    relative_error: Mapping[str, float]
    utilization_error: Mapping[str, float]  # analytic - DES, absolute
    replications: ReplicationCheck | None = None  # extra DES runs from other seeds (replications.py), if made
    timing_spread: TimingSpreadCheck | None = None  # the DES with every service time varying, if asked for
    seed: int | None = None  # the seed given (an int); the DES's own numba seed is derived from it (``des.numba_seed``)

    @property
    def des_metrics(self) -> Metrics:
        """The DES run's headline figures (:class:`ssdco.metrics.Metrics`), its power at the measured IOPS, held to
        the same budgets as the analytic answer's."""
        return des_metrics(self.des, self.des_power_mw, self.analytic.metrics)

    @property
    def iops_ok(self) -> bool:
        """IOPS within :data:`IOPS_TOLERANCE`."""
        return abs(self.relative_error["iops"]) <= IOPS_TOLERANCE

    @property
    def latency_ok(self) -> bool:
        """Mean latency within :data:`LATENCY_TOLERANCE`."""
        return abs(self.relative_error["latency_mean_us"]) <= LATENCY_TOLERANCE

    @property
    def utilization_ok(self) -> bool:
        """Every station's utilisation within :data:`UTILIZATION_TOLERANCE` (absolute)."""
        return all(abs(e) <= UTILIZATION_TOLERANCE for e in self.utilization_error.values())

    @property
    def failed_checks(self) -> tuple[str, ...]:
        """The checks outside tolerance, in order: "IOPS", "latency", "utilisation"."""
        return tuple(name for name, ok in (("IOPS", self.iops_ok), ("latency", self.latency_ok),
                                           ("utilisation", self.utilization_ok)) if not ok)

    @property
    def in_start_pattern(self) -> bool:
        """The DES run is still in the start pattern the model reports (``Result.start_pattern``: the requests,
        all issued at once, hold it for long before they settle into the long-run pattern the answer gives): its IOPS
        is outside the tolerance of the answer's and within it of the start pattern's."""
        start = self.analytic.start_pattern
        return (start is not None and not self.iops_ok
                and abs(relative(start.iops, self.des.iops.value)) <= IOPS_TOLERANCE)

    @property
    def unsettled(self) -> bool:
        """No single settled DES answer to compare with: the DES runs from other seeds disagree on IOPS by more than
        the tolerance, or the run is still in the model's start pattern (:attr:`in_start_pattern`)."""
        return (self.replications is not None and self.replications.unsettled) or self.in_start_pattern

    def unsettled_reason(self) -> str:
        """Why the verdict is UNSETTLED, in a sentence for ``validate``, ``optimize`` and the study report (""
        where it is not)."""
        reasons = []
        r = self.replications
        if r is not None and r.unsettled:
            reasons.append(f"the DES's runs from different seeds disagree on IOPS by {r.iops_spread:.1%}, more than "
                           f"the {IOPS_TOLERANCE:.0%} tolerance, beyond their confidence intervals: with deterministic "
                           "service the requests can hold one pattern for hundreds of thousands of requests before "
                           "settling into another, so no single DES answer exists to compare with")
        if self.in_start_pattern:
            start = self.analytic.start_pattern
            reasons.append(f"the DES run is still in the start pattern the model reports: "
                           f"{start.iops:,.0f} IOPS, {relative(start.iops, self.des.iops.value):+.2%} from the "
                           f"DES's, held for about {start.settle_requests:,.0f} requests on average before the "
                           f"long-run pattern the answer gives (the model's estimate; it can be longer)")
        return "; ".join(reasons)

    @property
    def des_runs(self) -> int:
        """DES runs made: the main one and the seed check's extra ones."""
        return 1 + (len(self.replications.seeds) if self.replications is not None else 0)

    @property
    def verdict(self) -> str:
        """UNSETTLED where the DES's runs disagree or the run is still in the model's start pattern
        (:attr:`unsettled`), else AGREE where all three checks hold, else DISAGREE."""
        if self.unsettled:
            return "UNSETTLED"
        return "DISAGREE" if self.failed_checks else "AGREE"

    @property
    def agrees(self) -> bool:
        """The verdict is AGREE: all three checks hold and the DES's runs are settled."""
        return self.verdict == "AGREE"

    def headline(self) -> list[tuple[str, str, str]]:
        """The headline figures as (metric, value, unit) rows: the model's, the DES's and their error."""
        from ssdco.display import number

        a, d, rel = self.analytic, self.des, self.relative_error
        return [("IOPS, model", number(a.iops, 0), "IOPS"),
                ("IOPS, DES (95% CI half-width)", f"{number(d.iops.value, 0)} +- {number(d.iops.half_width, 0)}",
                 "IOPS"),
                ("IOPS error (model / DES - 1)", f"{rel['iops']:+.2%}", f"tolerance {IOPS_TOLERANCE:.0%}"),
                ("latency mean, model", number(a.latency_mean_us, 2), "us"),
                ("latency mean, DES", number(d.mean_latency_us.value, 2), "us"),
                ("latency mean error", f"{rel['latency_mean_us']:+.2%}", f"tolerance {LATENCY_TOLERANCE:.0%}"),
                ("latency p99, model", number(a.latency_p99_us, 2), "us"),
                ("latency p99, DES", number(d.p99_us, 2), "us"),
                ("DES requests measured", f"{d.measured_requests:,}", "requests"),
                ("DES runs", str(self.des_runs), ""),
                ("verdict", self.verdict, "")]

    def __repr__(self) -> str:
        a, d, rel = self.analytic, self.des, self.relative_error
        return "\n".join([
            f"<Validation {a.config_name}, controller {a.controller}: {self.verdict}"
            + (f" ({', '.join(self.failed_checks)} outside tolerance)" if self.verdict == "DISAGREE" else "") + ">",
            f"  IOPS     model {a.iops:,.0f}, DES {d.iops.value:,.0f} +- {d.iops.half_width:,.0f} "
            f"({rel['iops']:+.2%}, tolerance {IOPS_TOLERANCE:.0%})",
            f"  latency  model {a.latency_mean_us:,.2f} us, DES {d.mean_latency_us.value:,.2f} us mean "
            f"({rel['latency_mean_us']:+.2%}, tolerance {LATENCY_TOLERANCE:.0%}); DES p99 {d.p99_us:,.2f} us",
            f"  DES      {d.measured_requests:,} requests measured after {d.warmup_requests:,} warm-up, "
            f"{self.des_runs} run(s)"])

    def _repr_html_(self) -> str:
        from ssdco.display import html_table

        a = self.analytic
        return html_table(f"validate {a.config_name}, controller {a.controller}: {self.verdict}", self.headline())

    def to_frame(self):
        """A one-row pandas DataFrame: the model's and the DES's figures and their errors, with the columns of
        ``ssdco sweep --des-requests``'s CSV (IOPS, us, mW; needs pandas: the ``frame`` extra)."""
        from ssdco.display import data_frame, flatten_validation

        return data_frame([{"config": self.analytic.config_name, **flatten_validation(self.to_dict())}])

    def latency_cdf(self) -> tuple[Any, Any]:
        """The DES's measured latency distribution: (latency in us ascending, fraction of requests at or below)."""
        return self.des.latency_cdf_us

    def to_dict(self) -> dict[str, Any]:
        """The ``ssdco validate --json`` document."""
        return {
            "schema": "ssdco.validate/1",
            "seed": self.seed,
            "analytic": self.analytic.to_dict(),
            "des": des_to_dict(self.config, self.des, self.des_power_mw,
                               {ld.name: ld.copies for ld in self.analytic.stations}),
            "relative_error": {k: _num(v) for k, v in self.relative_error.items()},
            "utilization_error": {k: _num(v) for k, v in self.utilization_error.items()},
            "tolerances": {"iops": IOPS_TOLERANCE, "latency_mean_us": LATENCY_TOLERANCE,
                           "utilization_abs": UTILIZATION_TOLERANCE},
            "des_replications": None if self.replications is None else self.replications.to_dict(),
            "des_timing_spread": None if self.timing_spread is None else self.timing_spread.to_dict(),
            "des_in_start_pattern": self.in_start_pattern,
            "verdict": self.verdict,
            "agrees": self.agrees,
        }


def unstable_result_error(config: Config, result: Result) -> ConfigError:
    """The error of an open workload that ``result`` found unstable (see :func:`validate`)."""
    return unstable_open_workload_error(config.source, config.workload.arrival_iops, result.bottleneck,
                                        result.utilization[result.bottleneck],
                                        result.bounds.capacity_iops)


def des_power(config: Config, network: Network, des: DesResult):
    """Power from the DES's measured throughput and busy servers (same model as the analytic path)."""
    return compute_power(config, network, des.iops.value, des.mean_busy_servers)


def des_to_dict(config: Config, des: DesResult, power_mw: Mapping[str, float],
                copies: Mapping[str, float]) -> dict[str, Any]:
    """DES metrics under the ``whatif --json`` keys, plus CIs, percentiles, CDF and speed (``copies``: per
    station, to give its mean jobs per copy as ``whatif`` does)."""
    iops = des.iops.value
    total = power_mw["total"]
    return {
        "iops": _num(iops),
        "iops_ci95": [_num(des.iops.low), _num(des.iops.high)],
        "latency_us": {"mean": _num(des.mean_latency_us.value), "p50": _num(des.p50_us),
                       "p99": _num(des.p99_us), "p99_9": _num(des.p999_us)},
        "latency_mean_ci95_us": [_num(des.mean_latency_us.low), _num(des.mean_latency_us.high)],
        "utilization": {k: _num(v) for k, v in des.utilization.items()},
        # per station copy, as in ``whatif --json`` (the DES sums over the copies)
        "mean_jobs": {k: _num(v / copies.get(k, 1.0)) for k, v in des.mean_in_station.items()},
        "bottleneck": max(des.utilization, key=des.utilization.get),
        "power_mw": {k: _num(v) for k, v in power_mw.items()},
        "energy_per_io_nj": _num(total / iops * 1e6 if iops > 0 else math.inf),
        "budgets": {k: budget_dict(k, b) for k, b in _des_budgets(config, des, power_mw).items()},
        "requests_measured": des.measured_requests,
        "events": des.events,
        "events_per_second": _num(des.events_per_second),
        "wall_seconds": _num(des.wall_seconds),
    }


def _des_budgets(config: Config, des: DesResult, power_mw: Mapping[str, float]):
    class _P:  # the attributes check_budgets reads
        core_side_mw = power_mw["cores"] + power_mw["accelerators"]
        dram_mw = power_mw["dram"]
        drive_mw = power_mw["drive"]

    return check_budgets(config, des.iops.value, _P)


def validate(config: Config, *, requests: int = defaults.DES_REQUESTS, seed: SeedLike = defaults.SEED,
             progress: bool | Callable[[int, int], object] = False,
             service_family: str = "auto", replications: int | str = 0, markov_chain: bool = True,
             timing_spread_scv: float | None = None) -> Validation:
    """Run the analytic model and the DES on ``config`` and compare them.

    ``markov_chain=False`` (``validate --fast``): the analytic answer skips the Markov chain of the requests'
    draws, as ``whatif --fast`` does, so that the DES checks that answer.

    ``replications``: that many more DES runs from seeds spawned from ``seed``, each of a quarter of
    ``requests``, to check that the DES's IOPS does not depend on its seed (``replications.py``); ``"auto"``
    (``ssdco validate``'s default) makes :func:`~ssdco.sim.replications.default_runs` of them: 4 on
    closed deterministic workloads, else none. With an int ``seed`` the result is
    reproducible; a Generator seed is advanced by the main run before the extra seeds are spawned.

    ``progress``: True for tqdm bars on stderr; a callable gets ``(completed, requests)`` of the main DES run
    after each chunk of about 0.5 % (see :func:`~ssdco.sim.des.simulate`).

    ``timing_spread_scv`` (``validate --timing-spread``): one more DES run of ``requests`` with every service
    time varying by at least that scv (:class:`TimingSpreadCheck`), after the others; the verdict stays the
    main run's.

    Raises
    ------
    ConfigError
        An open workload beyond capacity (no steady state for the DES to measure), naming
        ``workload.arrival_iops``, the bottleneck station, its utilisation and the largest stable rate.
    """
    # a bad spread is refused before anything runs
    spread_config = None if timing_spread_scv is None else with_timing_spread(config, timing_spread_scv)
    network = build_network(config)
    analytic = evaluate_network(config, network, effort="full" if markov_chain else "fast")
    if not analytic.stable:
        raise unstable_result_error(config, analytic)
    des = simulate(network, requests=requests, seed=seed, progress=progress, service_family=service_family)
    p = des_power(config, network, des)
    power = {"cores": p.cores_mw, "accelerators": p.accelerators_mw, "dram": p.dram_mw, "sram": p.sram_mw,
             "total": p.total_mw,
             "nand": p.nand_mw, "drive": p.drive_mw}
    rel = analytic.metrics.relative_to(des_metrics(des, power, analytic.metrics))
    util_err = {k: analytic.utilization[k] - des.utilization[k] for k in analytic.utilization if k in des.utilization}
    given = seed if isinstance(seed, int) and not isinstance(seed, bool) else None
    v = Validation(config=config, analytic=analytic, des=des, des_power_mw=power, relative_error=rel,
                   utilization_error=util_err, seed=given)
    bars = progress is True  # a callable reports the main run only
    v = with_replications(v, requests=requests, seed=seed, runs=replications, network=network,
                          service_family=service_family, progress=bars)
    if spread_config is None:
        return v
    return with_timing_spread_check(v, timing_spread_scv, requests=requests, seed=seed,
                                    service_family=service_family, progress=bars)


def des_metrics(des: DesResult, power_mw: Mapping[str, float], analytic: Metrics) -> Metrics:
    """A DES run's figures as :class:`ssdco.metrics.Metrics` (``power_mw``: its power by part at the measured IOPS),
    held to ``analytic``'s budgets."""
    return Metrics(iops=des.iops.value, latency_mean_us=des.mean_latency_us.value, latency_p99_us=des.p99_us,
                   cores_mw=power_mw["cores"], accelerators_mw=power_mw["accelerators"], dram_mw=power_mw["dram"],
                   core_limit_mw=analytic.core_limit_mw, dram_limit_mw=analytic.dram_limit_mw,
                   sram_mw=power_mw.get("sram", 0.0))


def timing_spread_note(validation: Validation) -> str:
    """What ``validation``'s timing-spread run says about its verdict, where it says something (else ""): the DES
    agrees with the model only with the spread (the difference rests on exactly constant timings) or only without
    it (the agreement holds for exactly constant timings)."""
    t = validation.timing_spread
    if t is None or validation.verdict == "UNSETTLED" or t.agrees == validation.agrees:
        return ""
    if t.agrees:
        return ("spread: with varying service times the DES agrees with the model, so the difference rests on "
                "exactly constant timings, which let requests move in step")
    return ("spread: with varying service times the DES leaves the model's tolerances, so the agreement holds for "
            "exactly constant timings")


def with_timing_spread_check(validation: Validation, scv: float, *, requests: int, seed: SeedLike,
                             service_family: str = "auto", progress: bool = False) -> Validation:
    """``validation`` with one more DES run of ``requests`` with every service time varying by at least ``scv``
    (:func:`with_timing_spread`, :class:`TimingSpreadCheck`); ``requests`` and ``seed`` those of the main run, so
    that ``validate(..., timing_spread_scv=S)`` and ``with_timing_spread_check(validate(...), S)`` are the same for
    an int seed (the optimizer adds the check to its pick's verification this way). The verdict stays the main
    run's. Raises ValueError for an scv outside (0, :data:`MAX_TIMING_SPREAD_SCV`]."""
    spread_config = with_timing_spread(validation.config, scv)
    analytic = validation.analytic
    spread = simulate(build_network(spread_config), requests=requests, seed=seed, progress=progress,
                      service_family=service_family)
    return replace(validation, timing_spread=TimingSpreadCheck(
        scv=scv, des=spread,
        relative_error={"iops": relative(analytic.iops, spread.iops.value),
                        "latency_mean_us": relative(analytic.latency_mean_us, spread.mean_latency_us.value)},
        utilization_error={k: analytic.utilization[k] - spread.utilization[k] for k in analytic.utilization
                           if k in spread.utilization}))


def with_replications(validation: Validation, *, requests: int, seed: SeedLike, runs: int | str = "auto",
                      network: Network | None = None, service_family: str = "auto",
                      progress: bool = False) -> Validation:
    """``validation`` with ``runs`` more DES runs from seeds spawned from ``seed`` (``replications.py``), each
    of a quarter of ``requests``; ``"auto"``: :func:`~ssdco.sim.replications.default_runs` of them.

    ``requests`` and ``seed`` must be those of the main run, so that ``validate(..., replications=R)`` and
    ``with_replications(validate(...), runs=R)`` are the same (the optimizer adds the runs to its pick's
    verification this way). With 0 runs ``validation`` is returned as it is."""
    if network is None:
        network = build_network(validation.config)
    if runs == "auto":
        runs = default_runs(network)
    if not runs:
        return validation
    check = replication_check(network, validation.des, requests=requests, seed=seed, runs=runs,
                              iops_tolerance=IOPS_TOLERANCE, service_family=service_family, progress=progress)
    return replace(validation, replications=check)
