"""``calibrate --plot``: measured against fitted IOPS and mean latency, against queue depth."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from ssdco.calibration.check import DesPoint
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


def calibration_figure(c: Calibration, checks: Sequence[DesPoint] | None = None, *, title: str = "calibrate"):
    """Two panels against queue depth (log scale): IOPS and mean latency (us); measured points as circles, the
    fitted model as a line, the start values' model dashed, the DES on the fitted design as squares."""
    Figure, _ = require_matplotlib()
    fig = Figure(figsize=(10.0, 4.4))
    ax_iops, ax_lat = fig.subplots(1, 2)
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
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_calibration(c: Calibration, path: str | Path, checks: Sequence[DesPoint] | None = None) -> Path:
    """``calibrate --plot``: :func:`calibration_figure` as a PNG at ``path``, written atomically."""
    names = ", ".join(p.path for p in c.parameters)
    return write_png(calibration_figure(c, checks, title=f"ssdco calibrate {c.config_name}, controller "
                                                         f"{c.controller}: {names}"), path)
