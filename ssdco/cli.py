"""Command line: ``ssdco whatif | validate | ...``. The only module that prints or sets exit codes.

Exit codes: 0 success, 2 bad input (configuration, arguments) with one clear message and no traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
from pathlib import Path
from typing import Sequence

from .errors import SsdcoError

EXIT_USAGE = 2


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("config", help="device configuration TOML (e.g. configs/pm9a3-960.toml)")
    p.add_argument("--controller", "-c", metavar="NAME|FILE",
                   help="controller preset name (configs/controllers/NAME.toml) or a controller TOML file")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="FIELD=VALUE",
                   help="override a config field, e.g. --set workload.queue_depth=64 (repeatable)")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON (schema in README)")


def build_parser() -> argparse.ArgumentParser:
    """The ``ssdco`` argument parser."""
    p = argparse.ArgumentParser(prog="ssdco", description="SSD-controller hardware/software co-design.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    w = sub.add_parser("whatif", help="analytic IOPS, latency, utilisation, power and budgets of one design")
    _common(w)
    w.add_argument("--exact", action="store_true",
                   help="exact exponential product-form solution instead of the deterministic-service corrected MVA")
    return p


def write_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (temp file in the same directory, then rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _fmt(x: float | None, unit: str = "", digits: int = 1) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "n/a"
    return f"{x:,.{digits}f}{unit}"


def format_result(r) -> str:
    """Human-readable table of a what-if :class:`~ssdco.model.whatif.Result`."""
    lines = []
    wl = f"closed, queue depth {r.queue_depth}" if r.workload == "closed" else f"open, {r.arrival_iops:,.0f} IOPS offered"
    lines.append(f"ssdco whatif: {r.config_name}  controller {r.controller}  ({wl}; {r.method})")
    lines.append("")
    if not r.stable:
        lines.append("UNSTABLE: offered load exceeds the capacity of "
                     f"{r.bottleneck} (capacity {r.bounds.capacity_per_us * 1e6:,.0f} IOPS)")
    lines.append(f"  IOPS                 {_fmt(r.iops, '', 0)}")
    lines.append(f"  latency mean         {_fmt(r.latency_mean_us, ' us', 2)}")
    lines.append(f"  latency p99 (est.)   {_fmt(r.latency_p99_us, ' us', 2)}")
    cap = r.bounds.capacity_per_us * 1e6
    pop = r.bounds.population_per_us * 1e6
    limit = "queue depth (N / zero-load latency)" if pop < cap else f"bottleneck station {r.bottleneck}"
    lines.append(f"  bounds               X <= {_fmt(cap, '', 0)} (capacity of {r.bottleneck})"
                 + (f", X <= {_fmt(pop, '', 0)} (N / {r.bounds.zero_load_latency_us:.2f} us)" if math.isfinite(pop) else ""))
    lines.append(f"  bottleneck           {r.bottleneck}; tightest bound: {limit}")
    lines.append("")
    lines.append("  station                 servers x copies   utilisation   mean jobs/copy")
    for ld in r.stations:
        lines.append(f"  {ld.name:<24}{ld.servers:>4} x {ld.copies:<6}   {r.utilization[ld.name]:>10.3f}   "
                     f"{r.mean_jobs[ld.name]:>12.3f}")
    lines.append("")
    p = r.power
    lines.append(f"  power: cores {p.cores_mw:.1f} mW, accelerators {p.accelerators_mw:.1f} mW, "
                 f"DRAM {p.dram_mw:.1f} mW, total {p.total_mw:.1f} mW")
    lines.append(f"  energy per I/O       {_fmt(r.energy_per_io_nj, ' nJ', 1)}")
    lines.append("")
    lines.append("  budget                limit          value         met")
    for name, b in r.budgets.items():
        unit = "" if name == "min_iops" else " mW"
        lines.append(f"  {name:<20}{_fmt(b.limit, unit, 1):>12}  {_fmt(b.value, unit, 1):>14}   {'yes' if b.met else 'NO'}")
    return "\n".join(lines)


def _cmd_whatif(args) -> int:
    from . import evaluate, load_config

    config = load_config(args.config, controller=args.controller, overrides=args.overrides)
    result = evaluate(config, exact=args.exact)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        print(format_result(result))
    return 0


COMMANDS = {"whatif": _cmd_whatif}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ssdco`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except SsdcoError as e:
        print(f"ssdco: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("ssdco: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
