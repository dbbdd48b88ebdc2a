"""The model against the DES on the PM9A3 preset (controller c01) across write-buffer sizes: the grid behind the
README's "Not yet trustworthy: small write buffers" paragraph, so that its figures can be rerun and a change to
the write-buffer model (``route_mva.py``, 5.) measured against them.

For every combination of ``ftl.write_buffer_kib``, read fraction, request size and queue depth it prints the
buffer's slots (write transactions), the DES's IOPS, the model's IOPS, mean-latency and p99 errors, whether the
pair is within the acceptance tolerances (IOPS 3 %, mean latency 10 %; the p99 estimate has none, README "How
far to trust the model" counts it within 15 %) and whether ``whatif`` flags it (a ``CAVEAT:``). A miss that
``whatif`` does not flag is marked ``UNFLAGGED``: that is the case a user cannot see.

Run: ``.venv/bin/python benchmarks/write_buffer_vs_des.py [--requests N] [--seed S]`` (about 20 s with the
default 40,000 requests per run). Prints measured errors; asserts nothing.
"""

import argparse
import itertools
from pathlib import Path

from ssdco import load_config
from ssdco.model.network import build_network
from ssdco.model.whatif import evaluate_network
from ssdco.validation.compare import IOPS_TOLERANCE, LATENCY_TOLERANCE
from ssdco.validation.des import simulate

PM9A3 = Path(__file__).resolve().parent.parent / "configs" / "pm9a3-960.toml"
BUFFERS_KIB = (0, 16, 256, 2048)  # write-through, 4 and 64 slots of 4 KiB, the preset's default (512 slots)
READ_FRACTIONS = (0.0, 0.7)
SIZES_KIB = (4, 16)
QUEUE_DEPTHS = (1, 4, 32)
P99_WITHIN = 0.15  # the README's yardstick for the p99 estimate


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=40_000, help="DES requests per run (default 40,000)")
    parser.add_argument("--seed", type=int, default=1, help="DES seed (default 1)")
    args = parser.parse_args()
    print(f"{'buffer':>9} {'slots':>5} {'reads':>5} {'size':>6} {'QD':>3} {'DES IOPS':>9} {'IOPS err':>9} "
          f"{'lat err':>8} {'p99 err':>8}  verdict")
    within = flagged_misses = unflagged = total = p99_within = 0
    for kib, reads, size, depth in itertools.product(BUFFERS_KIB, READ_FRACTIONS, SIZES_KIB, QUEUE_DEPTHS):
        cfg = load_config(PM9A3, controller="c01", overrides=[
            f"ftl.write_buffer_kib={kib}", f"workload.read_fraction={reads}",
            f"workload.request_size_kib={size}", f"workload.queue_depth={depth}"])
        network = build_network(cfg)
        model = evaluate_network(cfg, network)
        des = simulate(network, requests=args.requests, seed=args.seed)
        iops_err = model.iops / des.iops.value - 1.0
        lat_err = model.latency_mean_us / des.mean_latency_us.value - 1.0
        p99_err = model.latency_p99_us / des.p99_us - 1.0
        p99_within += abs(p99_err) <= P99_WITHIN
        ok = abs(iops_err) <= IOPS_TOLERANCE and abs(lat_err) <= LATENCY_TOLERANCE
        total += 1
        within += ok
        if ok:
            verdict = "agree" + (" (flagged)" if model.caveats else "")
        elif model.caveats:
            verdict, flagged_misses = "miss, flagged", flagged_misses + 1
        else:
            verdict, unflagged = "miss, UNFLAGGED", unflagged + 1
        print(f"{kib:>5} KiB {network.background_slots:>5} {reads:>5.0%} {size:>3} KiB {depth:>3} "
              f"{des.iops.value:>9,.0f} {iops_err:>+9.1%} {lat_err:>+8.1%} {p99_err:>+8.1%}  {verdict}", flush=True)
    print(f"\n{within} of {total} within the tolerances; {flagged_misses} misses flagged by whatif, "
          f"{unflagged} not flagged; p99 within {P99_WITHIN:.0%} on {p99_within} of {total}")


if __name__ == "__main__":
    main()
