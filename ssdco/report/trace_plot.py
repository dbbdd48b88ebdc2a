"""The PNG of ``ssdco trace --plot``: what each buffer policy and mapping does to the flash, in four panels.

(a) hit ratio against weighted execution time, one point per (policy, mapping, buffer size): a policy with the
higher hit ratio need not have the lower time; (b) erases and (c) merges (switch, partial, full, stacked) per
mapping, one bar per policy, at the largest buffer size; (d) weighted time against the buffer size, one line per
(policy, mapping). matplotlib comes from the ``plot`` extra (:func:`~ssdco.report.plots.require_matplotlib`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from ssdco.report.plots import COLORS, LINESTYLES, PlotError, require_matplotlib, write_png
from ssdco.trace.simulate import MIB, TraceResult

MARKERS = ("o", "s", "^", "D")
MERGES = (("switch_merges", "switch", ""), ("partial_merges", "partial", "//"), ("full_merges", "full", "xx"))


def _order(names: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(names))


def trace_figure(results: Sequence[TraceResult], title: str = "trace"):
    """The four panels of :mod:`ssdco.report.trace_plot` for ``results`` (of one
    :func:`~ssdco.trace.simulate.simulate_chunks` run); PlotError when there are none."""
    if not results:
        raise PlotError("results: expected the results of at least one (policy, buffer size, mapping), got none")
    Figure, _ = require_matplotlib()
    fig = Figure(figsize=(13.0, 9.0))
    (ax_hit, ax_erase), (ax_merge, ax_size) = fig.subplots(2, 2)
    policies, mappings = _order(r.policy for r in results), _order(r.mapping for r in results)
    colour = {p: COLORS[i % len(COLORS)] for i, p in enumerate(policies)}
    marker = {m: MARKERS[i % len(MARKERS)] for i, m in enumerate(mappings)}
    unit = results[0].time_unit
    _hit_panel(ax_hit, results, colour, marker, unit)
    largest = max(r.buffer_bytes for r in results)
    at_largest = {(r.policy, r.mapping): r for r in results if r.buffer_bytes == largest}
    _bars(ax_erase, at_largest, policies, mappings, colour, erases=True)
    ax_erase.set_title(f"(b) erases per mapping, buffer {largest / MIB:g} MiB", fontsize=10)
    _bars(ax_merge, at_largest, policies, mappings, colour, erases=False)
    ax_merge.set_title(f"(c) merges per mapping (switch, partial, full), buffer {largest / MIB:g} MiB", fontsize=10)
    _size_panel(ax_size, results, policies, mappings, colour, marker, unit)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


def _hit_panel(ax, results, colour, marker, unit) -> None:
    sizes = len({r.buffer_bytes for r in results})
    for r in results:
        ax.scatter(r.hit_ratio, r.weighted_time, color=colour[r.policy], marker=marker[r.mapping], s=40,
                   label=f"{r.policy} / {r.mapping}" if sizes == 1 else None)
        if sizes > 1:
            ax.annotate(f"{r.buffer_bytes / MIB:g}", (r.hit_ratio, r.weighted_time), fontsize=6,
                        xytext=(3, 3), textcoords="offset points")
    if sizes > 1:
        for policy, c in colour.items():
            ax.scatter([], [], color=c, label=policy)
        for mapping, m in marker.items():
            ax.scatter([], [], color="grey", marker=m, label=mapping)
    ax.set_xlabel("buffer hit ratio" + (" (labels: buffer MiB)" if sizes > 1 else ""))
    ax.set_ylabel(f"weighted execution time ({unit})")
    ax.set_title("(a) hit ratio against weighted execution time", fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, ncol=2)


def _bars(ax, at_largest, policies, mappings, colour, erases: bool) -> None:
    width = 0.8 / len(policies)
    for i, policy in enumerate(policies):
        xs = [j + (i - (len(policies) - 1) / 2) * width for j in range(len(mappings))]
        flash = [at_largest[(policy, m)].flash for m in mappings]
        if erases:
            ax.bar(xs, [f.erases for f in flash], width, color=colour[policy], label=policy)
            continue
        bottom = [0] * len(mappings)
        for field, label, hatch in MERGES:
            heights = [getattr(f, field) for f in flash]
            ax.bar(xs, heights, width, bottom=bottom, color=colour[policy], hatch=hatch, edgecolor="white",
                   label=policy if field == "switch_merges" else None)
            bottom = [b + h for b, h in zip(bottom, heights)]
    if not erases:
        for _, label, hatch in MERGES:
            ax.bar([0], [0], 0, color="grey", hatch=hatch, edgecolor="white", label=label)
    ax.set_xticks(range(len(mappings)), mappings)
    ax.set_ylabel("blocks erased" if erases else "merges")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)


def _size_panel(ax, results, policies, mappings, colour, marker, unit) -> None:
    for policy in policies:
        for k, mapping in enumerate(mappings):
            points = sorted((r.buffer_bytes / MIB, r.weighted_time) for r in results
                            if r.policy == policy and r.mapping == mapping)
            ax.plot([p[0] for p in points], [p[1] for p in points], color=colour[policy],
                    linestyle=LINESTYLES[k % len(LINESTYLES)], marker=marker[mapping], markersize=4,
                    label=f"{policy} / {mapping}")
    sizes = sorted({r.buffer_bytes / MIB for r in results})
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes, [f"{size:g}" for size in sizes])
    ax.minorticks_off()
    ax.set_xlabel("buffer size (MiB)")
    ax.set_ylabel(f"weighted execution time ({unit})")
    ax.set_title("(d) weighted execution time against the buffer size", fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, ncol=2)


def plot_trace(results: Sequence[TraceResult], path: str | Path, title: str = "trace") -> Path:
    """Write :func:`trace_figure` of ``results`` as a PNG to ``path`` (atomically); returns the path."""
    return write_png(trace_figure(results, title), path)
