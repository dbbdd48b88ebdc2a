"""Fitting device parameters to measured points: bounded nonlinear least squares on the analytic model.

The residuals are relative errors, (model - measured) / measured, of each point's IOPS and mean latency (and its
p99 latency with ``fit_p99``), the model being :func:`ssdco.model.whatif.evaluate` of the configuration with the
parameters and the point's workload set through overrides. The parameters are scaled by their starting values
(x = value / start, so every one starts at 1) and bounded; the minimiser is ``scipy.optimize.least_squares``
(trust-region reflective, Branch, Coleman and Li 1999). At the solution the Jacobian J of the residuals in x
gives the covariance sigma^2 (J^T J)^-1 with sigma^2 = RSS / (m - n), the standard errors and the correlations.
Here m counts one residual per point for IOPS and mean latency together, plus its p99: a closed-loop run's IOPS X
and mean latency R are tied by Little's law (queue depth N = X R, in the model and in the measurement), so their
two relative errors are one observation (equal and opposite to first order), which counted twice would halve
sigma^2 and narrow the standard errors by up to sqrt(2); n is the number of parameters. A near-zero singular value
of J, or two parameters correlated beyond :data:`MAX_CORRELATION`, marks parameters the data cannot tell apart.

Targets (:mod:`~ssdco.calibration.targets`: any quantity of any controller, or a ratio of two) add one relative
error each, model / target - 1. Where every target states its ``tolerance`` (its relative standard uncertainty) and
no measured point is fitted, each error is divided by its tolerance and the uncertainty is known: sigma^2 = 1, so
the standard errors exist even with as many parameters as targets (the weighted least squares of a known
measurement error; Press et al., Numerical Recipes, 3rd ed., section 15.4).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ssdco.calibration.measurements import Point
from ssdco.calibration.params import Parameter
from ssdco.calibration.targets import Target, check_targets, predict_target, target_config
from ssdco.errors import MISSING, ConfigError
from ssdco.spec import Config

#: |correlation| above which two parameters are reported as not told apart by the data.
MAX_CORRELATION = 0.99
#: A singular value of the scaled Jacobian below this fraction of the largest is taken as zero.
SINGULAR_TOLERANCE = 1e-4
#: A parameter is named in an unidentifiable direction where its component in the direction's unit vector (of the
#: scaled parameters) exceeds this in magnitude.
DIRECTION_SHARE = 0.05
#: Relative step of the finite differences (in the scaled parameters): the solvers' iterations stop at tolerances
#: far below it, so the differences see the model's slope, not its rounding.
DIFF_STEP = 1e-4


@dataclass(frozen=True)
class Prediction:
    """The model's (or the DES's) answer at one point: IOPS, mean and p99 latency in us (p99 None: no estimate)."""

    iops: float
    mean_latency_us: float
    p99_us: float | None


@dataclass(frozen=True)
class FittedParameter:
    """A parameter's ``start`` and ``value`` after the fit, its ``standard_error`` (same unit; inf where the data
    do not determine it, nan without spare residuals) and ``at_bound`` (the fit stopped on one of its bounds)."""

    path: str
    start: float
    value: float
    standard_error: float
    lower: float
    upper: float
    at_bound: bool


@dataclass(frozen=True)
class PointFit:
    """One measured point with the model's answer at the start values and at the fitted ones, and the fitted
    answer's relative errors (model - measured) / measured (``p99`` None where not measured or not estimated)."""

    point: Point
    start: Prediction
    fitted: Prediction
    iops_error: float
    latency_error: float
    p99_error: float | None


@dataclass(frozen=True)
class TargetFit:
    """One target with the model's value at the start values and at the fitted ones, and the fitted value's
    relative error, fitted / target - 1."""

    target: Target
    start: float
    fitted: float

    @property
    def error(self) -> float:
        return self.fitted / self.target.value - 1.0


@dataclass(frozen=True)
class Unidentifiable:
    """Parameters the data cannot tell apart, and why (a near-zero singular value, or a correlation)."""

    parameters: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class Calibration:
    """The fit: parameters, points, the correlation matrix (rows and columns in the parameters' order), the
    scaled Jacobian's singular values, the unidentifiable sets, the residual sum of squares ``rss`` (of the
    ``residual_count`` relative errors), its degrees of freedom ``dof`` = m - n (m: one per point for IOPS and
    mean latency, tied by Little's law, plus one per fitted p99, plus one per target), the minimiser's ``status``,
    ``message`` and ``evaluations`` (model evaluations per point), the ``targets`` fitted and whether their
    tolerances gave a ``known_uncertainty`` (sigma^2 = 1, the errors weighted by the tolerances)."""

    config_name: str
    controller: str
    parameters: tuple[FittedParameter, ...]
    points: tuple[PointFit, ...]
    correlation: tuple[tuple[float, ...], ...]
    singular_values: tuple[float, ...]
    unidentifiable: tuple[Unidentifiable, ...]
    rss: float
    residual_count: int
    dof: int
    fit_p99: bool
    effort: str
    status: int
    message: str
    evaluations: int
    targets: tuple[TargetFit, ...] = ()
    known_uncertainty: bool = False

    @property
    def rms_error(self) -> float:
        """Root-mean-square relative error of the fitted residuals."""
        return math.sqrt(self.rss / self.residual_count) if self.residual_count else math.nan

    @property
    def values(self) -> dict[str, float]:
        """The fitted values by dotted path."""
        return {p.path: p.value for p in self.parameters}


def _literal(value: float) -> str:
    """``value`` as a TOML float literal."""
    text = repr(float(value))
    return text if any(c in text for c in ".en") else text + ".0"


def parameter_overrides(parameters: Sequence[Parameter], values: Sequence[float]) -> list[str]:
    """The ``--set`` overrides that give each parameter its value."""
    return [f"{p.path}={_literal(v)}" for p, v in zip(parameters, values)]


def point_config(config: Config, overrides: Sequence[str]) -> Config:
    """``config`` with ``overrides`` applied (the parameters' values and a point's workload)."""
    return target_config(config, None, overrides)


def predict(config: Config, parameters: Sequence[Parameter], values: Sequence[float], point: Point,
            effort: str = "full") -> Prediction:
    """The analytic model's IOPS, mean and p99 latency (us) at ``point`` with the parameters at ``values``."""
    from ssdco.model.whatif import evaluate

    r = evaluate(point_config(config, parameter_overrides(parameters, values) + point.overrides()), effort=effort)
    return Prediction(iops=r.iops, mean_latency_us=r.latency_mean_us, p99_us=r.latency_p99_us)


def _relative(model: float | None, measured: float | None) -> float | None:
    return None if model is None or measured is None else (model - measured) / measured


def residuals(points: Sequence[Point], predictions: Sequence[Prediction], fit_p99: bool) -> np.ndarray:
    """The relative errors (model - measured) / measured of IOPS and mean latency at each point, then of p99 where
    ``fit_p99`` and the point has one (a missing model estimate counts as an error of 1)."""
    out = []
    for point, pred in zip(points, predictions):
        out += [_relative(pred.iops, point.iops), _relative(pred.mean_latency_us, point.mean_latency_us)]
        if fit_p99 and point.p99_us is not None:
            p99 = _relative(pred.p99_us, point.p99_us)
            out.append(1.0 if p99 is None else p99)
    return np.asarray(out, dtype=float)


def independent_residuals(points: Sequence[Point], fit_p99: bool, targets: Sequence[Target] = ()) -> int:
    """The independent residuals of ``points`` and ``targets``: one per point (IOPS and mean latency), one per
    fitted p99, one per target."""
    return len(points) + (sum(p.p99_us is not None for p in points) if fit_p99 else 0) + len(targets)


def known_uncertainty(points: Sequence[Point], targets: Sequence[Target]) -> bool:
    """Whether the residuals' uncertainty is known: targets only, each with a tolerance (a ConfigError where some
    targets state one and others do not, or points are fitted beside them: the weights would mix scales)."""
    stated = [t for t in targets if t.tolerance is not None]
    if not stated:
        return False
    if len(stated) < len(targets) or points:
        other = next((t for t in targets if t.tolerance is None), None)
        where = other.source if other is not None else "--measured"
        raise ConfigError(where, "tolerance", MISSING, "some targets state a tolerance: give every target one and fit "
                                                       "no measured points beside them, or give none")
    return True


def _check_inputs(config: Config, parameters: Sequence[Parameter], points: Sequence[Point], fit_p99: bool,
                  targets: Sequence[Target]) -> None:
    """Refuse a fit with no parameters, nothing to fit, or fewer residuals than parameters."""
    if not parameters:
        raise ConfigError("--fit", "fit", "", "expected at least one parameter")
    if not points and not targets:
        raise ConfigError("--measured", "measured", "", "expected at least one measured point or target")
    m = independent_residuals(points, fit_p99, targets)
    if m < len(parameters):
        raise ConfigError("--fit", "fit", ",".join(p.path for p in parameters),
                          f"{len(parameters)} parameters need at least {len(parameters)} measured points or targets "
                          f"(more for standard errors); the {len(points)} point(s) and {len(targets)} target(s) give "
                          f"{m} independent residual(s) (IOPS and mean latency of a point are one, tied by Little's "
                          "law; its p99 another with --fit-p99)")
    for point in points:  # a point the configuration cannot take (a request size it refuses ...)
        point_config(config, point.overrides())
    check_targets(config, targets)


def _null_directions(s: np.ndarray, vt: np.ndarray, names: Sequence[str]) -> list[Unidentifiable]:
    """The unidentifiable combinations: right singular vectors of the scaled Jacobian with a near-zero singular
    value, each naming the parameters that make it up."""
    out = []
    largest = s[0] if s.size and s[0] > 0 else 1.0
    for k, value in enumerate(s):
        if value > SINGULAR_TOLERANCE * largest and value > 0:
            continue
        v = vt[k]
        who = tuple(n for n, c in zip(names, v) if abs(c) > DIRECTION_SHARE)
        combo = " ".join(f"{c:+.2f} x {n}" for n, c in zip(names, v) if abs(c) > DIRECTION_SHARE)
        what = "no measured quantity depends on it" if len(who) == 1 else "changing them together as " + combo + \
            " (relative changes) leaves every measured quantity the same"
        out.append(Unidentifiable(who, f"singular value {value / largest:.1e} of the largest: {what}"))
    return out


def _statistics(jac: np.ndarray, sigma2: float, names: Sequence[str]):
    """Covariance of the scaled parameters, correlation matrix, singular values and unidentifiable sets."""
    n = jac.shape[1]
    _, s, vt = np.linalg.svd(jac, full_matrices=False)
    null = _null_directions(s, vt, names)
    keep = s > SINGULAR_TOLERANCE * (s[0] if s.size else 1.0)
    inv = (vt[keep].T / s[keep] ** 2) @ vt[keep]  # (J^T J)^+ on the determined directions
    cov = sigma2 * inv
    undetermined = {name for u in null for name in u.parameters}
    var = np.array([math.inf if names[i] in undetermined else cov[i, i] for i in range(n)])
    determined = np.array([names[i] not in undetermined and inv[i, i] > 0 for i in range(n)])
    scale = np.sqrt(np.where(determined, np.diag(inv), np.nan))
    corr = inv / np.outer(scale, scale)  # sigma^2 cancels: the correlations need no spare residuals
    np.fill_diagonal(corr, 1.0)
    pairs = [Unidentifiable((names[i], names[j]), f"correlation {corr[i, j]:+.4f}: the data constrain a combination "
                                                  "of the two, not each")
             for i in range(n) for j in range(i + 1, n)
             if math.isfinite(corr[i, j]) and abs(corr[i, j]) > MAX_CORRELATION
             and not {names[i], names[j]} <= undetermined]
    return var, corr, s, tuple(null + pairs)


def _target_values(config: Config, parameters: Sequence[Parameter], values: Sequence[float],
                   targets: Sequence[Target], effort: str) -> list[float]:
    """The model's value of each target with the parameters at ``values``."""
    if not targets:
        return []
    with_values = point_config(config, parameter_overrides(parameters, values))
    return [predict_target(with_values, t, effort) for t in targets]


def target_residuals(targets: Sequence[Target], values: Sequence[float], weighted: bool) -> np.ndarray:
    """value / target - 1 of each target, divided by its tolerance where ``weighted``."""
    return np.asarray([(v / t.value - 1.0) / (t.tolerance if weighted else 1.0) for t, v in zip(targets, values)],
                      dtype=float)


def fit(config: Config, parameters: Sequence[Parameter], points: Sequence[Point], *, fit_p99: bool = False,
        effort: str = "full", targets: Sequence[Target] = ()) -> Calibration:
    """Fit ``parameters`` of ``config`` to the measured ``points`` and the ``targets`` (see the module's
    description); ``effort`` as :func:`ssdco.evaluate`'s (``"fast"``: whatif --fast's answers, milliseconds per
    point at queue depth 1-8)."""
    from scipy.optimize import least_squares

    _check_inputs(config, parameters, points, fit_p99, targets)
    weighted = known_uncertainty(points, targets)
    starts = np.array([p.start for p in parameters])
    calls = [0]

    def run(values) -> tuple[list[Prediction], list[float]]:
        calls[0] += 1
        return ([predict(config, parameters, values, pt, effort) for pt in points],
                _target_values(config, parameters, values, targets, effort))

    def fun(x: np.ndarray) -> np.ndarray:
        preds, target_values = run(x * starts)
        return np.concatenate([residuals(points, preds, fit_p99), target_residuals(targets, target_values, weighted)])

    lower = np.array([p.lower for p in parameters]) / starts
    upper = np.array([p.upper for p in parameters]) / starts
    sol = least_squares(fun, np.ones(len(parameters)), bounds=(lower, upper), method="trf", x_scale=1.0,
                        diff_step=DIFF_STEP, xtol=1e-10, ftol=1e-10, gtol=1e-10, max_nfev=200)
    rss = float(np.sum(sol.fun ** 2))
    dof = independent_residuals(points, fit_p99, targets) - len(parameters)
    names = [p.path for p in parameters]
    sigma2 = 1.0 if weighted else rss / dof if dof > 0 else math.nan
    var, corr, s, unident = _statistics(np.asarray(sol.jac), sigma2, names)
    values = sol.x * starts
    fitted = [FittedParameter(path=p.path, start=p.start, value=float(v), standard_error=float(math.sqrt(w) * p.start)
                              if math.isfinite(w) else float(w), lower=p.lower, upper=p.upper,
                              at_bound=bool(sol.active_mask[i] != 0))
              for i, (p, v, w) in enumerate(zip(parameters, values, var))]
    (start_preds, start_targets), (end_preds, end_targets) = run(starts), run(values)
    point_fits = tuple(PointFit(point=pt, start=a, fitted=b, iops_error=_relative(b.iops, pt.iops),
                                latency_error=_relative(b.mean_latency_us, pt.mean_latency_us),
                                p99_error=_relative(b.p99_us, pt.p99_us))
                       for pt, a, b in zip(points, start_preds, end_preds))
    return Calibration(config_name=config.name, controller=config.controller.name, parameters=tuple(fitted),
                       points=point_fits, correlation=tuple(tuple(float(c) for c in row) for row in corr),
                       singular_values=tuple(float(v) for v in s), unidentifiable=unident, rss=rss,
                       residual_count=int(sol.fun.size), dof=dof,
                       fit_p99=fit_p99, effort=effort, status=int(sol.status), message=str(sol.message),
                       evaluations=calls[0],
                       targets=tuple(TargetFit(target=t, start=a, fitted=b)
                                     for t, a, b in zip(targets, start_targets, end_targets)),
                       known_uncertainty=weighted)
