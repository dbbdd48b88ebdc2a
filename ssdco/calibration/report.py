"""The calibration's report: a text table for the terminal and a JSON-ready dict."""

from __future__ import annotations

import math
import textwrap
from typing import Any, Sequence

from ssdco.calibration.check import DesPoint, DesTarget, des_points, des_targets
from ssdco.calibration.fit import Calibration

WIDTH = 118


def _num(x: float | None, digits: int = 1) -> str:
    if x is None or not math.isfinite(x):
        return "n/a" if x is None or math.isnan(x) else "inf"
    return f"{x:,.{digits}f}"


def _sig(x: float) -> str:
    """``x`` with 6 significant digits (inf, nan as words)."""
    if not math.isfinite(x):
        return "inf" if x > 0 else "n/a"
    return f"{x:,.6g}"


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:+.2%}"


def _wrap(text: str) -> list[str]:
    return textwrap.wrap(text, width=WIDTH, subsequent_indent="    ", break_on_hyphens=False)


def parameter_lines(c: Calibration) -> list[str]:
    """Per parameter: start, fitted value, standard error, bounds, and whether the fit stopped on a bound."""
    w = max(len(p.path) for p in c.parameters) + 2
    lines = [f"  {'parameter':<{w}}{'start':>12}{'fitted':>14}{'std. error':>13}{'rel. SE':>9}   bounds"]
    for p in c.parameters:
        rel = p.standard_error / abs(p.value) if p.value else math.inf
        flag = "   AT BOUND" if p.at_bound else ""
        lines.append(f"  {p.path:<{w}}{_sig(p.start):>12}{_sig(p.value):>14}{_sig(p.standard_error):>13}"
                     f"{f'{rel:.2%}' if math.isfinite(rel) else _sig(rel):>9}   [{p.lower:.3g}, {p.upper:.3g}]{flag}")
    return lines


def correlation_lines(c: Calibration) -> list[str]:
    """The parameters' correlation matrix (n/a where a parameter is undetermined)."""
    n = len(c.parameters)
    if n < 2:
        return []
    w = max(len(p.path) for p in c.parameters) + 6
    lines = ["  correlation" + " " * (w - 11) + "".join(f"{f'[{j + 1}]':>8}" for j in range(n))]
    for i, p in enumerate(c.parameters):
        cells = "".join(f"{v:>8.3f}" if math.isfinite(v) else f"{'n/a':>8}" for v in c.correlation[i])
        lines.append(f"  {f'[{i + 1}] ' + p.path:<{w}}{cells}")
    return lines


def identifiability_lines(c: Calibration) -> list[str]:
    """Which parameters the data cannot tell apart, or that every one is determined."""
    sv = ", ".join(f"{s:.3g}" for s in c.singular_values)
    if not c.unidentifiable:
        return _wrap(f"  identifiable: the data determine every parameter (singular values of the scaled Jacobian "
                     f"{sv}; no |correlation| above 0.99)")
    lines = []
    for u in c.unidentifiable:
        if len(u.parameters) == 1:
            lines += _wrap(f"  UNIDENTIFIABLE: the data do not determine {u.parameters[0]} ({u.reason}); its fitted "
                           "value is arbitrary: leave it out of --fit, or measure what depends on it (measured "
                           "points compare IOPS and latency; a power needs a --targets target)")
            continue
        lines += _wrap(f"  UNIDENTIFIABLE: the data cannot tell apart {', '.join(u.parameters)} ({u.reason}); "
                       f"their fitted values are one of many that fit equally well: measure points where they act "
                       f"differently (another queue depth, read share or request size), or fit fewer parameters")
    return lines


def point_lines(c: Calibration) -> list[str]:
    """Measured against fitted IOPS and mean latency (and p99 where measured) per point, with relative errors."""
    w = max(len(pf.point.source) for pf in c.points) + 2
    head = (f"  {'point':<{w}}{'QD':>4}{'read':>6}{'IOPS meas.':>13}{'fitted':>11}{'error':>9}"
            f"{'lat. meas.':>12}{'fitted':>9}{'error':>9}")
    has_p99 = any(pf.point.p99_us is not None for pf in c.points)
    lines = [head + (f"{'p99 meas.':>11}{'fitted':>9}{'error':>9}" if has_p99 else "")]
    for pf in c.points:
        pt, f = pf.point, pf.fitted
        line = (f"  {pt.source:<{w}}{pt.queue_depth:>4}{pt.read_fraction:>6.2f}{_num(pt.iops, 0):>13}"
                f"{_num(f.iops, 0):>11}{_pct(pf.iops_error):>9}{_num(pt.mean_latency_us, 2):>12}"
                f"{_num(f.mean_latency_us, 2):>9}{_pct(pf.latency_error):>9}")
        if has_p99:
            line += f"{_num(pt.p99_us, 2):>11}{_num(f.p99_us, 2):>9}{_pct(pf.p99_error):>9}"
        lines.append(line)
    return lines


def target_lines(c: Calibration) -> list[str]:
    """Each target's value against the model's at the start values and at the fitted ones."""
    w = max(len(tf.target.name) for tf in c.targets) + 2
    lines = [f"  {'target':<{w}}{'quantity':>18}{'unit':>7}{'value':>14}{'tol.':>7}{'start':>14}{'fitted':>14}"
             f"{'error':>9}"]
    for tf in c.targets:
        t = tf.target
        unit = "ratio" if t.relative_to else t.quantity.rsplit("_", 1)[-1] if "_" in t.quantity else ""
        lines.append(f"  {t.name:<{w}}{t.quantity:>18}{unit:>7}{_sig(t.value):>14}"
                     f"{f'{t.tolerance:.2%}' if t.tolerance else '-':>7}{_sig(tf.start):>14}{_sig(tf.fitted):>14}"
                     f"{_pct(tf.error):>9}")
    return lines


def des_target_lines(checks: Sequence[DesTarget], requests: int, seed: int) -> list[str]:
    """Model against DES on the fitted design for each target."""
    w = max(len(d.target.name) for d in checks) + 2
    lines = _wrap(f"  DES check of the targets ({requests:,} requests per run, seed {seed}; power from the DES's "
                  "measured busy time); difference = (model - DES) / DES")
    lines += [f"  {'target':<{w}}{'value':>14}{'model':>14}{'DES':>14}{'diff.':>9}{'DES error':>11}"]
    for d in checks:
        lines.append(f"  {d.target.name:<{w}}{_sig(d.target.value):>14}{_sig(d.model):>14}{_sig(d.des):>14}"
                     f"{_pct(d.difference):>9}{_pct(d.des / d.target.value - 1):>11}")
    return lines


def _fit_summary(c: Calibration) -> list[str]:
    """The fit's residuals, degrees of freedom and the minimiser's message."""
    what = ", ".join(([f"IOPS, mean latency{' and p99' if c.fit_p99 else ''} of {len(c.points)} point(s)"]
                      if c.points else []) + ([f"{len(c.targets)} target(s)"] if c.targets else []))
    if c.known_uncertainty:
        text = (f"  fit: errors of {what}, each divided by its tolerance; chi-square {c.rss:.3g} over {c.dof} degrees "
                "of freedom; standard errors from the tolerances (known uncertainty)")
    else:
        text = (f"  fit: relative errors of {what}; rms {c.rms_error:.2%} over {c.residual_count} residuals (RSS "
                f"{c.rss:.3g}, {c.dof} degrees of freedom"
                + (": a point's IOPS and mean latency count once, tied by Little's law)" if c.points else ")")
                + ("; no degrees of freedom left for standard errors: measure more points, or state each target's "
                   "tolerance" if c.dof <= 0 else ""))
    return _wrap(text + f"; scipy.optimize.least_squares: {c.message} ({c.evaluations} model evaluations per "
                 + ("point" if c.points else "target") + ")")


def des_lines(checks: Sequence[DesPoint], requests: int, seed: int) -> list[str]:
    """Model against DES on the fitted design at each point."""
    lines = [f"  DES check of the fitted design ({requests:,} requests, seed {seed}); difference = (model - DES) / DES",
             f"  {'QD':>4}{'read':>6}{'IOPS model':>13}{'DES':>11}{'diff.':>9}{'lat. model':>12}{'DES':>9}"
             f"{'diff.':>9}{'p99 model':>11}{'DES':>9}"]
    for d in checks:
        lines.append(f"  {d.queue_depth:>4}{d.read_fraction:>6.2f}{_num(d.model.iops, 0):>13}{_num(d.des.iops, 0):>11}"
                     f"{_pct(d.iops_difference):>9}{_num(d.model.mean_latency_us, 2):>12}"
                     f"{_num(d.des.mean_latency_us, 2):>9}{_pct(d.latency_difference):>9}"
                     f"{_num(d.model.p99_us, 2):>11}{_num(d.des.p99_us, 2):>9}")
    return lines


def format_calibration(c: Calibration, *, files: Sequence[str] = (), checks: Sequence[DesPoint] | None = None,
                       des_requests: int = 0, des_seed: int = 0,
                       target_checks: Sequence[DesTarget] | None = None) -> str:
    """The calibration as the terminal report of ``ssdco calibrate``."""
    fitted = ([f"{len(c.points)} points from {len(files)} file(s)"] if c.points else []) + \
        ([f"{len(c.targets)} target(s)"] if c.targets else [])
    lines = [f"ssdco calibrate: {c.config_name}  controller {c.controller}  ({', '.join(fitted)}, "
             f"{len(c.parameters)} parameter(s); analytic model, effort {c.effort})", ""]
    lines += parameter_lines(c) + [""]
    corr = correlation_lines(c)
    lines += corr + ([""] if corr else [])
    lines += identifiability_lines(c) + [""]
    if c.status <= 0:
        lines += _wrap(f"  NOT CONVERGED: scipy.optimize.least_squares stopped with status {c.status} ({c.message}); "
                       "the values are where it stopped") + [""]
    lines += point_lines(c) + [""] if c.points else []
    lines += target_lines(c) + [""] if c.targets else []
    lines += _fit_summary(c)
    if checks:
        lines += [""] + des_lines(checks, des_requests, des_seed)
    if target_checks:
        lines += [""] + des_target_lines(target_checks, des_requests, des_seed)
    return "\n".join(lines)


def calibration_dict(c: Calibration, *, files: Sequence[str] = (), checks: Sequence[DesPoint] | None = None,
                     target_checks: Sequence[DesTarget] | None = None) -> dict[str, Any]:
    """The calibration as a JSON-ready dict (nan and inf as None)."""
    def clean(x: float | None) -> float | None:
        return None if x is None or not math.isfinite(x) else x

    return {
        "config": c.config_name, "controller": c.controller, "files": list(files), "effort": c.effort,
        "fit_p99": c.fit_p99,
        "parameters": [{"path": p.path, "start": p.start, "value": p.value, "standard_error": clean(p.standard_error),
                        "lower": p.lower, "upper": p.upper, "at_bound": p.at_bound} for p in c.parameters],
        "correlation": [[clean(v) for v in row] for row in c.correlation],
        "singular_values": list(c.singular_values),
        "identifiable": not c.unidentifiable,
        "unidentifiable": [{"parameters": list(u.parameters), "reason": u.reason} for u in c.unidentifiable],
        "points": [{"source": pf.point.source, "queue_depth": pf.point.queue_depth,
                    "read_fraction": pf.point.read_fraction, "request_size_kib": pf.point.request_size_kib,
                    "measured_iops": pf.point.iops, "fitted_iops": pf.fitted.iops, "start_iops": pf.start.iops,
                    "iops_error": pf.iops_error, "measured_mean_latency_us": pf.point.mean_latency_us,
                    "fitted_mean_latency_us": pf.fitted.mean_latency_us,
                    "start_mean_latency_us": pf.start.mean_latency_us, "latency_error": pf.latency_error,
                    "measured_p99_us": pf.point.p99_us, "fitted_p99_us": pf.fitted.p99_us,
                    "p99_error": pf.p99_error} for pf in c.points],
        "targets": [{"source": tf.target.source, "name": tf.target.name, "quantity": tf.target.quantity,
                     "controller": tf.target.controller, "relative_to": tf.target.relative_to,
                     "set": list(tf.target.overrides), "value": tf.target.value, "tolerance": tf.target.tolerance,
                     "start": tf.start, "fitted": tf.fitted, "error": tf.error} for tf in c.targets],
        "known_uncertainty": c.known_uncertainty,
        "rss": c.rss, "residuals": c.residual_count, "dof": c.dof, "rms_error": clean(c.rms_error),
        "status": c.status, "message": c.message,
        "evaluations": c.evaluations,
        "des_check": None if checks is None else des_points(checks),
        "des_target_check": None if target_checks is None else des_targets(target_checks),
    }
