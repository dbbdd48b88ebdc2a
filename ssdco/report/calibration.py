"""``calibrate --plot``: measured against fitted IOPS and mean latency against queue depth, and the targets' errors."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Sequence

from ssdco.calibration.check import DesPoint, DesTarget
from ssdco.calibration.fit import Calibration
from ssdco.report.plots import _kiops_axis, require_matplotlib, write_png


def _groups(c: Calibration) -> dict[str, list[int]]:
    """Point indices by workload (read share and request size), each sorted by queue depth."""
    out: dict[str, list[int]] = {}
    for i, pf in enumerate(c.points):
        p = pf.point
        label = f"{p.read_fraction:.0%} read" + (f", {p.request_size_kib:g} KiB" if p.request_size_kib else "")
        out.setdefault(label, []).append(i)
    return {k: sorted(v, key=lambda i: c.points[i].point.queue_depth) for k, v in out.items()}


def _target_panel(ax, c: Calibration, target_checks: Sequence[DesTarget] | None) -> None:
    """Each target's relative error (model / target - 1, %) at the start values and fitted, the DES's as a mark."""
    names = [tf.target.name for tf in c.targets]
    y = list(range(len(names)))
    ax.barh([v + 0.2 for v in y], [100 * (tf.start / tf.target.value - 1) for tf in c.targets], height=0.4,
            color="#bbbbbb", label="model at the start values")
    ax.barh([v - 0.2 for v in y], [100 * tf.error for tf in c.targets], height=0.4, color="#1f77b4",
            label="fitted model")
    if target_checks:
        ax.plot([100 * (d.des / d.target.value - 1) for d in target_checks], [v - 0.2 for v in y], "s",
                color="#d62728", fillstyle="none", label="DES, fitted design")
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(y, names, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("error against the target (%)")
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(fontsize=7)


def calibration_figure(c: Calibration, checks: Sequence[DesPoint] | None = None, *, title: str = "calibrate",
                       target_checks: Sequence[DesTarget] | None = None):
    """Two panels against queue depth (log scale): IOPS and mean latency (us); measured points as circles, the
    fitted model as a line, the start values' model dashed, the DES on the fitted design as squares. With targets,
    a panel of each target's error at the start values and fitted (the DES's as squares)."""
    Figure, _ = require_matplotlib()
    panels = (2 if c.points else 0) + (1 if c.targets else 0)
    width = 5.0 * panels + (3.0 if c.targets else 0.0)
    fig = Figure(figsize=(width, 4.4))
    axes = list(fig.subplots(1, panels)) if panels > 1 else [fig.subplots(1, 1)]
    if c.targets:
        _target_panel(axes.pop(), c, target_checks)
    if c.points:
        _points_panels(axes[0], axes[1], c, checks)
    fig.suptitle("\n".join(textwrap.wrap(title, width=int(width * 11))), fontsize=10)
    fig.tight_layout()
    return fig


def _points_panels(ax_iops, ax_lat, c: Calibration, checks: Sequence[DesPoint] | None) -> None:
    """IOPS and mean latency against queue depth: measured, fitted, start values and DES."""
    colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]
    for k, (label, idx) in enumerate(_groups(c).items()):
        color = colors[k % len(colors)]
        qd = [c.points[i].point.queue_depth for i in idx]
        for ax, attr in ((ax_iops, "iops"), (ax_lat, "mean_latency_us")):
            ax.plot(qd, [getattr(c.points[i].point, attr) for i in idx], "o", color=color, label=f"measured ({label})")
            ax.plot(qd, [getattr(c.points[i].fitted, attr) for i in idx], "-", color=color, label="fitted model")
            ax.plot(qd, [getattr(c.points[i].start, attr) for i in idx], "--", color=color, alpha=0.5,
                    label="model at the start values")
            if checks is not None:
                ax.plot(qd, [getattr(checks[i].des, attr) for i in idx], "s", color=color, fillstyle="none",
                        label="DES, fitted design")
    ax_iops.set_ylabel("IOPS")
    _kiops_axis(ax_iops)
    ax_lat.set_ylabel("mean latency (us)")
    depths = sorted({pf.point.queue_depth for pf in c.points})
    for ax in (ax_iops, ax_lat):
        ax.set_xscale("log", base=2)
        ax.set_xticks(depths, [str(d) for d in depths])
        ax.set_xlabel("queue depth")
        ax.grid(True, alpha=0.3)
    ax_iops.legend(fontsize=7)


def plot_calibration(c: Calibration, path: str | Path, checks: Sequence[DesPoint] | None = None,
                     target_checks: Sequence[DesTarget] | None = None) -> Path:
    """``calibrate --plot``: :func:`calibration_figure` as a PNG at ``path``, written atomically."""
    names = ", ".join(p.path for p in c.parameters)
    return write_png(calibration_figure(c, checks, title=f"ssdco calibrate {c.config_name}, controller "
                                                         f"{c.controller}: {names}", target_checks=target_checks),
                     path)
