"""PNG plots of ``optimize --plot``, ``sweep --plot``, ``validate --plot`` and the study's latency tail.

Every figure function takes plain numbers (costs, IOPS, latencies in us) and checks them first: bad input raises
:class:`PlotError` (an :class:`~ssdco.errors.SsdcoError` and a ValueError) naming the argument, the bad value and
what is allowed. matplotlib (the ``plot`` extra) is imported inside the functions; without it they raise
:class:`PlotError` with the install command. Files are written atomically (:mod:`ssdco.atomic`).
"""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Any, Mapping, Sequence

from ssdco.atomic import write_bytes_atomic
from ssdco.errors import SsdcoError

DPI = 130
MATPLOTLIB_HINT = "pip install 'ssdco[plot]' (or pip install matplotlib)"
# ten distinct colours, then again with another line style: every design of the study reads apart
COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
          "#17becf")
LINESTYLES = ("-", "--", "-.", ":")


class PlotError(SsdcoError, ValueError):
    """A plot cannot be drawn: bad input (naming the argument, value and what is allowed) or no matplotlib."""


def require_matplotlib():
    """The ``Figure`` class and the Agg canvas, or :class:`PlotError` naming the ``plot`` extra."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise PlotError(f"plots need matplotlib, which is not installed: {MATPLOTLIB_HINT}") from None
    return Figure, FigureCanvasAgg


def png_bytes(fig) -> bytes:
    """The figure as PNG bytes (no timestamp in the metadata: the same figure gives the same bytes)."""
    _, canvas = require_matplotlib()
    canvas(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    return buf.getvalue()


def write_png(fig, path: str | Path) -> Path:
    """Write ``fig`` as a PNG to ``path`` atomically; returns the path."""
    path = Path(path)
    write_bytes_atomic(path, png_bytes(fig))
    return path


# --------------------------------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------------------------------
def _numbers(name: str, values: Any, *, positive: bool = False, nonnegative: bool = False,
             allow_empty: bool = False) -> list[float]:
    """``values`` as a list of finite floats, or :class:`PlotError` naming ``name`` and the first bad value."""
    try:
        out = [float(v) for v in values]
    except (TypeError, ValueError):
        raise PlotError(f"{name}: expected a sequence of numbers, got {values!r:.80}") from None
    if not out and not allow_empty:
        raise PlotError(f"{name}: expected at least one value, got none")
    for v in out:
        if not math.isfinite(v) or (positive and v <= 0.0) or (nonnegative and v < 0.0):
            allowed = "finite numbers > 0" if positive else "finite numbers >= 0" if nonnegative else "finite numbers"
            raise PlotError(f"{name}: value {v!r} is not allowed; expected {allowed}")
    return out


def _same_length(**seqs: Sequence[Any]) -> None:
    lengths = {k: len(v) for k, v in seqs.items()}
    if len(set(lengths.values())) > 1:
        raise PlotError("expected equally long sequences, got " + ", ".join(f"{k} {n}" for k, n in lengths.items()))


def _optional(name: str, x: float | None, positive: bool = True) -> float | None:
    if x is None:
        return None
    v = _numbers(name, [x], positive=positive)[0]
    return v


def _kiops_axis(ax) -> None:
    """Thousands separators on a y axis in IOPS."""
    from matplotlib.ticker import FuncFormatter

    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))


# --------------------------------------------------------------------------------------------------
# optimize --plot: the Pareto front
# --------------------------------------------------------------------------------------------------
def pareto_figure(costs: Sequence[float], iops: Sequence[float], meets: Sequence[bool], *,
                  pick: tuple[float, float] | None = None, target_iops: float | None = None,
                  title: str = "Pareto front", pick_label: str = "pick",
                  power_mw: Sequence[float] | None = None, power_budget_mw: float | None = None,
                  devices: Sequence[str] | None = None, pick_power_mw: float | None = None):
    """Cost (relative units) vs IOPS of the Pareto front's designs, those meeting every target filled, the pick
    a star, the IOPS target a dashed line. ``pick`` is (cost, IOPS). With ``power_mw`` (core-side, mW) a second
    panel draws cost vs power with ``power_budget_mw`` dashed; with ``devices`` naming two or more device options,
    each option's designs have their own colour."""
    Figure, _ = require_matplotlib()
    c = _numbers("costs", costs, nonnegative=True)
    x = _numbers("iops", iops, nonnegative=True)
    _same_length(costs=c, iops=x, meets=list(meets))
    m = [bool(v) for v in meets]
    target = _optional("target_iops", target_iops, positive=False)
    if pick is not None:
        if len(pick) != 2:
            raise PlotError(f"pick: expected (cost, IOPS), got {pick!r}")
        pick = tuple(_numbers("pick", pick, nonnegative=True))  # type: ignore[assignment]
    power = None if power_mw is None else _numbers("power_mw", power_mw, nonnegative=True)
    if power is not None:
        _same_length(costs=c, power_mw=power)
    if devices is not None:
        _same_length(costs=c, devices=list(devices))
    fig = Figure(figsize=(13.0 if power is not None else 8.0, 5.2))
    ax, ax_power = fig.subplots(1, 2) if power is not None else (fig.subplots(), None)
    colours = _device_colours(devices)
    order = sorted(range(len(c)), key=lambda i: (c[i], -x[i]))
    front_c, front_x, best = [], [], -math.inf
    for i in order:  # the cost-IOPS staircase: each design that beats every cheaper one
        if x[i] > best:
            front_c.append(c[i])
            front_x.append(x[i])
            best = x[i]
    if front_c:
        ax.step(front_c, front_x, where="post", color="black", linewidth=1.0, zorder=1,
                label="cost-IOPS front (power ignored)")
    _front_points(ax, c, x, m, devices, colours)
    _iops_target_and_pick(ax, target, pick, pick_label)
    ax.set_xlabel("cost (relative units: cores, accelerators and the device's options)")
    ax.set_ylabel("IOPS (analytic model)")
    _kiops_axis(ax)
    ax.set_ylim(0, max(x + ([target] if target else []) + ([pick[1]] if pick else [])) * 1.08)
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    if ax_power is not None:
        _power_panel(ax_power, c, power, m, devices, colours, power_budget_mw,
                     None if pick is None or pick_power_mw is None else (pick[0], pick_power_mw))
    fig.tight_layout()
    return fig


def _device_colours(devices: Sequence[str] | None) -> dict[str, str]:
    """A colour per device option, in order of appearance (empty with fewer than two options)."""
    names = list(dict.fromkeys(devices or ()))
    palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"]
    return {n: palette[i % len(palette)] for i, n in enumerate(names)} if len(names) > 1 else {}


def _front_points(ax, c, y, meets, devices, colours) -> None:
    """The front's designs at (cost, y): meeting every target filled (coloured by device option where there are
    several), missing one grey triangles."""
    groups = [(name, colour) for name, colour in colours.items()] or [(None, "#1f77b4")]
    for name, colour in groups:
        idx = [i for i in range(len(c)) if meets[i] and (name is None or devices[i] == name)]
        label = "design meeting every target" + (f" ({name})" if name is not None else "")
        ax.scatter([c[i] for i in idx], [y[i] for i in idx], s=28, color=colour, edgecolors="black",
                   linewidths=0.4, zorder=3, label=label)
    ax.scatter([c[i] for i in range(len(c)) if not meets[i]], [y[i] for i in range(len(c)) if not meets[i]], s=22,
               marker="v", color="#bbbbbb", zorder=2, label="design missing a target (power or IOPS)")


def _iops_target_and_pick(ax, target: float | None, pick: tuple[float, float] | None, pick_label: str) -> None:
    """The IOPS panel's target line (where > 0) and the pick's star."""
    shown = target if target is not None and target > 0 else None
    _limit_and_pick(ax, shown, f"IOPS target {shown:,.0f}" if shown else "", pick,
                    f"{pick_label}: cost {pick[0]:.2f}, {pick[1]:,.0f} IOPS" if pick is not None else "")


def _limit_and_pick(ax, limit: float | None, limit_label: str, pick: tuple[float, float] | None,
                    pick_label: str) -> None:
    """A target or budget as a dashed red line at ``limit`` (None: none) and the pick, (cost, value), as a star."""
    if limit is not None:
        ax.axhline(limit, color="#d62728", linestyle="--", linewidth=1.2, zorder=2, label=limit_label)
    if pick is not None:
        ax.scatter([pick[0]], [pick[1]], marker="*", s=360, color="#ffbf00", edgecolors="black", linewidths=1.0,
                   zorder=5, label=pick_label)


def _power_panel(ax, c, power, meets, devices, colours, budget_mw, pick) -> None:
    """Cost vs core-side power of the front's designs, the budget dashed and the pick a star."""
    _front_points(ax, c, power, meets, devices, colours)
    finite = budget_mw is not None and math.isfinite(budget_mw)
    _limit_and_pick(ax, budget_mw if finite else None, f"core-side budget {budget_mw:g} mW" if finite else "", pick,
                    f"pick: {pick[1]:,.1f} mW" if pick is not None else "")
    ax.set_xlabel("cost (relative units)")
    ax.set_ylabel("core-side power (mW, analytic model)")
    ax.set_title("cost vs power", fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best", fontsize=7, framealpha=0.8)


def plot_optimize(result, path: str | Path) -> Path:
    """``optimize --plot``: the Pareto front of an :class:`~ssdco.optimizer.search.OptimizeResult` computed with
    ``pareto_front=True`` (cost vs IOPS and cost vs core-side power, each device option in its own colour), the
    pick, the IOPS target and the core-side budget, as a PNG at ``path``."""
    if result.pareto is None:
        raise PlotError("optimize --plot: the result has no Pareto front; optimize with pareto_front=True")
    pts = result.pareto
    pick = None
    if result.pick is not None and result.verdict is not None:
        pick = (float(result.cost), float(result.verdict.analytic.iops))
    t = result.targets
    title = (f"{result.config.name}: Pareto front, {len(pts):,} of {result.space_size:,} designs\n"
             f"(queue depth {t.queue_depth}; budgets core-side <= {t.core_power_mw:g} mW, "
             f"DRAM <= {t.dram_power_mw:g} mW)")
    pick_power = result.verdict.analytic.power.core_side_mw if pick is not None else None
    fig = pareto_figure([p.cost for p in pts], [p.iops for p in pts], [p.meets_targets for p in pts], pick=pick,
                        target_iops=t.target_iops, title=title, pick_label="pick",
                        power_mw=[p.core_power_mw for p in pts], power_budget_mw=t.core_power_mw,
                        devices=[p.device for p in pts], pick_power_mw=pick_power)
    return write_png(fig, path)


# --------------------------------------------------------------------------------------------------
# sweep --plot: metrics against the grid
# --------------------------------------------------------------------------------------------------
SWEEP_PANELS = (("iops", "des.iops", "IOPS"), ("latency_us.mean", "des.latency_us.mean", "mean latency (us)"))


def _axis_value(v: Any) -> Any:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return v
    try:
        return float(v) if str(v).strip() not in ("", "true", "false") else str(v)
    except ValueError:
        return str(v)


def _plottable_rows(rows: Sequence[Mapping[str, Any]], axes: list[str]) -> list[Mapping[str, Any]]:
    """The rows with an IOPS value; PlotError without axes, without such rows or for an axis that is no column."""
    if not axes:
        raise PlotError("axes: expected at least one grid field, got none")
    rows = [r for r in rows if r.get("iops") not in (None, "")]
    if not rows:
        raise PlotError("rows: no grid point has an IOPS value to plot (every point failed?)")
    for a in axes:
        if a not in rows[0]:
            raise PlotError(f"axes: {a!r} is not a column of the rows; expected one of the grid fields")
    return rows


def _sweep_groups(rows: list[Mapping[str, Any]], positions: list[float],
                  others: list[str]) -> dict[str, list[tuple[float, Mapping[str, Any]]]]:
    """(x position, row) pairs by combination of the other axes' values ("a=1, b=2"; "" for a single axis)."""
    groups: dict[str, list[tuple[float, Mapping[str, Any]]]] = {}
    for p, r in zip(positions, rows):
        key = ", ".join(f"{a}={r[a]}" for a in others)
        groups.setdefault(key, []).append((p, r))
    return groups


def _sweep_panel(ax, rows: list[Mapping[str, Any]], groups: Mapping[str, list[tuple[float, Mapping[str, Any]]]],
                 col: str, des_col: str, label: str) -> None:
    """One panel: the model's ``col`` against the first axis, a line per group, the DES's ``des_col`` as open
    markers; the y axis from 0."""
    for k, (key, members) in enumerate(groups.items()):
        color = COLORS[k % len(COLORS)]
        pairs = sorted((p, y) for p, r in members if r.get(col) not in (None, "")
                       for y in _numbers(col, [r[col]], nonnegative=True))
        ax.plot([p for p, _ in pairs], [y for _, y in pairs], "o-", color=color, linewidth=1.4, markersize=4,
                label=f"model{', ' + key if key else ''}")
        des = sorted((p, float(r[des_col])) for p, r in members if r.get(des_col) not in (None, ""))
        if des:
            ax.plot([p for p, _ in des], [y for _, y in des], "s", mfc="none", color=color, markersize=7,
                    label=f"DES{', ' + key if key else ''}")
    ax.set_ylabel(label)
    ax.grid(True, alpha=0.3)
    top = max((float(r[c]) for r in rows for c in (col, des_col) if r.get(c) not in (None, "")), default=1.0)
    ax.set_ylim(0, top * 1.1 if top > 0 else 1.0)


def _sweep_x_axis(panels, xs_raw: list[Any], numeric: bool, categories: list[str]) -> None:
    """Ticks of the first axis: its categories when it is not numeric; a log2 scale when its values span 16x or
    more."""
    if not numeric:
        panels[1].set_xticks(range(len(categories)), categories)
    elif len(set(xs_raw)) > 2 and min(xs_raw) > 0 and max(xs_raw) / min(xs_raw) >= 16:
        for ax in panels:
            ax.set_xscale("log", base=2)
        panels[1].set_xticks(sorted(set(float(v) for v in xs_raw)), [f"{v:g}" for v in sorted(set(xs_raw))])


def sweep_figure(rows: Sequence[Mapping[str, Any]], axes: Sequence[str], *, title: str = "sweep"):
    """IOPS and mean latency (us) against the first grid axis, one line per combination of the other axes;
    DES values (``des.iops``, ``des.latency_us.mean``) as open markers where the rows have them."""
    Figure, _ = require_matplotlib()
    axes = list(axes)
    rows = _plottable_rows(rows, axes)
    first, others = axes[0], axes[1:]
    xs_raw = [_axis_value(r[first]) for r in rows]
    numeric = all(isinstance(v, (int, float)) for v in xs_raw)
    categories = list(dict.fromkeys(str(v) for v in xs_raw))
    positions = [float(v) if numeric else categories.index(str(r[first])) for v, r in zip(xs_raw, rows)]
    groups = _sweep_groups(rows, positions, others)
    fig = Figure(figsize=(8.0, 6.4))
    panels = fig.subplots(2, 1, sharex=True)
    has_des = any(r.get("des.iops") not in (None, "") for r in rows)
    for ax, (col, des_col, label) in zip(panels, SWEEP_PANELS):
        _sweep_panel(ax, rows, groups, col, des_col, label)
    _kiops_axis(panels[0])
    _sweep_x_axis(panels, xs_raw, numeric, categories)
    panels[1].set_xlabel(first)
    panels[0].set_title(title)
    n_entries = len(groups) * (2 if has_des else 1)
    panels[0].legend(loc="best", fontsize=8, ncols=1 if n_entries <= 6 else 2)
    fig.tight_layout()
    return fig


def plot_sweep(rows: Sequence[Mapping[str, Any]], axes: Sequence[str], path: str | Path, *,
               title: str = "sweep") -> Path:
    """``sweep --plot``: :func:`sweep_figure` of ``rows`` (dicts of a sweep's columns) as a PNG at ``path``."""
    return write_png(sweep_figure(rows, axes, title=title), path)


# --------------------------------------------------------------------------------------------------
# validate --plot: the DES's latency distribution and the model's marks
# --------------------------------------------------------------------------------------------------
def _tail(xs: list[float], fs: list[float]) -> tuple[list[float], list[float]]:
    """(x, 1 - F(x)) where it is > 0 (a log axis cannot show the last point's 0)."""
    pts = [(x, 1.0 - f) for x, f in zip(xs, fs) if 1.0 - f > 1e-12]
    return [p[0] for p in pts], [p[1] for p in pts]


def _check_cdf(name: str, latency_us: Sequence[float], fraction: Sequence[float]) -> tuple[list[float], list[float]]:
    xs = _numbers(f"{name} latency_us", latency_us, positive=True)
    fs = _numbers(f"{name} fraction", fraction)
    _same_length(latency_us=xs, fraction=fs)
    if any(f < 0.0 or f > 1.0 + 1e-9 for f in fs) or any(b < a for a, b in zip(fs, fs[1:])):
        raise PlotError(f"{name} fraction: expected a non-decreasing CDF within [0, 1], got {fs[:3]}...")
    if any(b < a for a, b in zip(xs, xs[1:])):
        raise PlotError(f"{name} latency_us: expected ascending latencies, got {xs[:3]}...")
    return xs, fs


def validation_figure(latency_us: Sequence[float], fraction: Sequence[float], *, model_mean_us: float,
                      model_p99_us: float | None, des_mean_us: float, des_p99_us: float, title: str = "validate"):
    """The DES's latency CDF (left, linear, to its p99.9) and tail 1 - CDF (right, log), with the model's mean
    and p99 (dashed, dotted) and the DES's mean and p99 (markers). Latencies in us."""
    Figure, _ = require_matplotlib()
    xs, fs = _check_cdf("DES", latency_us, fraction)
    mm = _optional("model_mean_us", model_mean_us)
    mp = _optional("model_p99_us", model_p99_us)
    dm = _optional("des_mean_us", des_mean_us)
    dp = _optional("des_p99_us", des_p99_us)
    fig = Figure(figsize=(10.0, 4.6))
    ax_cdf, ax_tail = fig.subplots(1, 2)
    px, pf = [xs[0]] + xs, [0.0] + fs
    ax_cdf.step(px, pf, where="post", color="#ff7f0e", linewidth=1.6, label="DES latency CDF")
    tx, tf = _tail(xs, fs)
    ax_tail.step(tx, tf, where="post", color="#ff7f0e", linewidth=1.6, label="DES 1 - CDF")
    for ax, p99_y in ((ax_cdf, 0.99), (ax_tail, 0.01)):
        ax.axvline(mm, color="#1f77b4", linestyle="--", linewidth=1.3, label=f"model mean {mm:,.2f} us")
        if mp is not None:
            ax.axvline(mp, color="#1f77b4", linestyle=":", linewidth=1.6, label=f"model p99 {mp:,.2f} us")
        ax.plot([dm], [_cdf_at(xs, fs, dm) if ax is ax_cdf else max(1.0 - _cdf_at(xs, fs, dm), 1e-6)], "o",
                color="black", markersize=5, label=f"DES mean {dm:,.2f} us")
        ax.plot([dp], [p99_y], "D", color="#d62728", markersize=5, label=f"DES p99 {dp:,.2f} us")
        ax.set_xlabel("request latency (us)")
        ax.grid(True, alpha=0.3)
    hi = _quantile(xs, fs, 0.999)
    lo = xs[0]
    marks = [v for v in (mm, mp, dm, dp) if v is not None]
    left, right = min([lo] + marks), max([hi] + marks)
    pad = (right - left) * 0.05 or right * 0.05
    ax_cdf.set_xlim(left - pad, right + pad)
    ax_cdf.set_ylim(0, 1.02)
    ax_cdf.set_ylabel("fraction of requests <= latency (CDF)")
    ax_cdf.set_title("CDF (x axis to the DES's p99.9)")
    ax_tail.set_yscale("log")
    ax_tail.set_ylabel("fraction of requests > latency (1 - CDF)")
    ax_tail.set_title("tail, log scale")
    ax_cdf.legend(loc="lower right", fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def _cdf_at(xs: list[float], fs: list[float], x: float) -> float:
    """F(x) of the step CDF (x, F)."""
    f = 0.0
    for xi, fi in zip(xs, fs):
        if xi > x:
            break
        f = fi
    return f


def _quantile(xs: list[float], fs: list[float], q: float) -> float:
    for xi, fi in zip(xs, fs):
        if fi >= q:
            return xi
    return xs[-1]


def plot_validation(v, path: str | Path) -> Path:
    """``validate --plot``: :func:`validation_figure` of a :class:`~ssdco.validation.compare.Validation` as a PNG."""
    xs, fs = v.des.latency_cdf_us
    a, d = v.analytic, v.des
    wl = f"queue depth {a.queue_depth}" if a.workload == "closed" else f"{a.arrival_iops:,.0f} IOPS offered"
    title = (f"{a.config_name}, controller {a.controller} ({wl}): model vs DES latency, "
             f"{d.measured_requests:,} requests measured; verdict {v.verdict}")
    fig = validation_figure(list(xs), list(fs), model_mean_us=a.latency_mean_us, model_p99_us=a.latency_p99_us,
                            des_mean_us=d.mean_latency_us.value, des_p99_us=d.p99_us, title=title)
    return write_png(fig, path)


# --------------------------------------------------------------------------------------------------
# The study: every design's latency tail
# --------------------------------------------------------------------------------------------------
def latency_tail_figure(curves: Sequence[tuple[str, Sequence[float], Sequence[float]]], *,
                        title: str = "DES latency tails", highlight: Sequence[str] = ()):
    """Every curve's tail 1 - CDF (log y) against latency (us), one colour and line style per curve, the
    legend outside the axes (no label covers a curve). ``curves``: (label, latency_us, CDF fraction);
    labels in ``highlight`` are drawn thick, black and dashed."""
    Figure, _ = require_matplotlib()
    if not curves:
        raise PlotError("curves: expected at least one (label, latency_us, fraction) curve, got none")
    labels = [c[0] for c in curves]
    if len(set(labels)) != len(labels):
        raise PlotError(f"curves: labels must differ, got {labels}")
    checked = [(label, *_check_cdf(label, xs, fs)) for label, xs, fs in curves]
    fig = Figure(figsize=(10.0, 5.2))
    ax = fig.subplots()
    floor, hi = 1.0, 0.0
    k = 0
    for label, xs, fs in checked:
        tx, tf = _tail(xs, fs)
        if not tx:
            continue
        if label in highlight:  # black and thick: apart from every other colour
            color, style, width = "black", "--", 2.4
        else:
            color, style, width = COLORS[k % len(COLORS)], LINESTYLES[(k // len(COLORS)) % len(LINESTYLES)], 1.3
            k += 1
        ax.step(tx, tf, where="post", color=color, linestyle=style, linewidth=width, label=label)
        floor = min(floor, min(tf))
        hi = max(hi, max(tx))
    ax.set_yscale("log")
    ax.set_ylim(max(floor * 0.5, 1e-7), 1.2)
    for q, text in ((1e-2, "p99"), (1e-3, "p99.9")):
        if q >= floor:
            ax.axhline(q, color="grey", linestyle=":", linewidth=0.9)
            ax.text(1.0, q, f" {text}", transform=ax.get_yaxis_transform(), va="center", ha="left", fontsize=8,
                    color="grey")
    ax.set_xlabel("request latency (us)")
    ax.set_ylabel("fraction of requests slower (1 - CDF, log)")
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.06, 1.0), fontsize=8, frameon=False, title="design (DES)")
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------------------------------
# whatif/optimize --sensitivity-plot: a tornado of elasticities
# --------------------------------------------------------------------------------------------------
TORNADO_PARAMETERS = 12  # bars shown: the parameters with the largest elasticities
TORNADO_FIGURES = (("iops", "IOPS"), ("core_side_mw", "core-side power"), ("energy_per_io_nj", "energy per I/O"))


def tornado_figure(sensitivity, *, title: str = "sensitivity"):
    """A tornado chart of ``sensitivity`` (``ssdco.sensitivity.Sensitivity``): for the parameters with the largest
    elasticities, one bar per figure of :data:`TORNADO_FIGURES` (% change per 1 % of the parameter)."""
    import math

    Figure, _ = require_matplotlib()
    names = [n for n, _ in TORNADO_FIGURES]

    def weight(e) -> float:
        return max((abs(e.by_figure[n]) for n in names if math.isfinite(e.by_figure[n])), default=0.0)

    shown = sorted((e for e in sensitivity.varied if weight(e) >= 1e-4), key=weight, reverse=True)
    shown = shown[:TORNADO_PARAMETERS][::-1]  # largest at the top
    if not shown:
        raise PlotError("--sensitivity-plot: no parameter moves IOPS, core-side power or energy per I/O")
    fig = Figure(figsize=(8.0, 1.2 + 0.45 * len(shown)))
    ax = fig.add_subplot(1, 1, 1)
    height = 0.8 / len(TORNADO_FIGURES)
    for k, (name, label) in enumerate(TORNADO_FIGURES):
        values = [e.by_figure[name] if math.isfinite(e.by_figure[name]) else 0.0 for e in shown]
        ax.barh([i + (k - 1) * height for i in range(len(shown))], values, height=height, label=label)
    ax.set_yticks(range(len(shown)))
    ax.set_yticklabels([f"{e.parameter} ({e.value:g})" for e in shown], fontsize=8)
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel("elasticity: % change of the figure per +1 % of the parameter")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def plot_tornado(sensitivity, path: str | Path, *, title: str = "sensitivity") -> Path:
    """``--sensitivity-plot``: :func:`tornado_figure` as a PNG at ``path`` (atomically)."""
    return write_png(tornado_figure(sensitivity, title=title), path)
