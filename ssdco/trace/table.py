"""The results of a trace simulation as a fixed-width text table and as CSV text."""

from __future__ import annotations

import csv
import io

from ssdco.trace.simulate import MIB, TraceResult

CSV_COLUMNS = ("policy", "buffer_mib", "ftl", "page_accesses", "hits", "misses", "hit_ratio", "host_reads",
               "host_writes", "flash_reads", "programs", "copies", "erases", "switch_merges", "partial_merges",
               "full_merges", "waf", "weighted_time", "time_unit")


def result_row(r: TraceResult) -> dict[str, object]:
    """One result as a CSV row (:data:`CSV_COLUMNS`); the buffer in MiB, the counts in pages and blocks."""
    f = r.flash
    return {"policy": r.policy, "buffer_mib": f"{r.buffer_bytes / MIB:g}", "ftl": r.mapping,
            "page_accesses": r.page_accesses, "hits": r.hits, "misses": r.misses, "hit_ratio": f"{r.hit_ratio:.6f}",
            "host_reads": f.host_reads, "host_writes": f.host_writes, "flash_reads": f.flash_reads,
            "programs": f.programs, "copies": f.copies, "erases": f.erases, "switch_merges": f.switch_merges,
            "partial_merges": f.partial_merges, "full_merges": f.full_merges, "waf": f"{f.waf:.4f}",
            "weighted_time": f"{r.weighted_time:.12g}", "time_unit": r.time_unit}


def results_csv(results: list[TraceResult]) -> str:
    """The results as CSV text with a header line."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(result_row(r) for r in results)
    return out.getvalue()


def results_table(results: list[TraceResult]) -> str:
    """The results as an aligned text table, one line per (policy, buffer size, mapping)."""
    unit = results[0].time_unit if results else "t_read"
    header = ("policy", "MiB", "ftl", "hit ratio", "flash reads", "programs", "erases", "switch", "partial", "full",
              "WAF", f"time ({unit})")
    rows = [(r.policy, f"{r.buffer_bytes / MIB:g}", r.mapping, f"{r.hit_ratio:.4f}", f"{r.flash.flash_reads:,}",
             f"{r.flash.programs:,}", f"{r.flash.erases:,}", f"{r.flash.switch_merges:,}",
             f"{r.flash.partial_merges:,}", f"{r.flash.full_merges:,}", f"{r.flash.waf:.2f}",
             f"{r.weighted_time:,.0f}") for r in results]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) if i < 3 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
             for row in [header, *rows]]
    return "\n".join(lines)
