"""The model against the DES on the PM9A3 preset (controller c01) across write-buffer sizes: the grid behind the
"Not yet trustworthy: small write buffers" section of docs/accuracy.md, so that its figures can be rerun and a
change to the write-buffer model (``route_mva.py``, 5.) measured against them.

For every combination of ``ftl.write_buffer_kib``, read fraction, request size and queue depth it prints the
buffer's slots (write transactions), the DES's IOPS, the model's IOPS, mean-latency and p99 errors, whether the
pair is within the acceptance tolerances (IOPS 3 %, mean latency 10 %; the p99 estimate has none, docs/accuracy.md
counts it within 15 %) and whether ``whatif`` flags it (a ``CAVEAT:``). A miss that
``whatif`` does not flag is marked ``UNFLAGGED``: that is the case a user cannot see.

``--random N`` runs N uniformly sampled designs instead (``ssdco.validation.random_designs``, seeds 0 .. N - 1:
4/8/16 KiB requests), each given 0, 30 or 70 % reads, a queue depth of 1-32 and a buffer of 4-256 slots.

Run: ``.venv/bin/python benchmarks/write_buffer_vs_des.py [--random N] [--requests N] [--seed S]`` (about 20 s
for the grid with the default 40,000 requests per run). Prints measured errors; asserts nothing.
"""

import argparse
import itertools
from pathlib import Path

import numpy as np

from ssdco import load_config
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import build_network
from ssdco.sim.des import simulate
from ssdco.spec import config_from_dict
from ssdco.validation.compare import IOPS_TOLERANCE, LATENCY_TOLERANCE
from ssdco.validation.random_designs import random_config

PM9A3 = Path(__file__).resolve().parent.parent / "configs" / "pm9a3-960.toml"
BUFFERS_KIB = (0, 16, 256, 2048)  # write-through, 4 and 64 slots of 4 KiB, the preset's default (512 slots)
READ_FRACTIONS = (0.0, 0.7)
SIZES_KIB = (4, 16)
QUEUE_DEPTHS = (1, 4, 32)
P99_WITHIN = 0.15  # docs/accuracy.md's yardstick for the p99 estimate


def random_buffered_design(seed: int) -> dict:
    """Design ``seed`` of ``random_config`` (4/8/16 KiB) with a read/write mix, a queue depth and a write buffer
    drawn from a generator seeded ``1000 + seed``."""
    d = random_config(seed, mixed_sizes=True)
    r = np.random.default_rng(1000 + seed)
    d["workload"]["read_fraction"] = float(r.choice([0.0, 0.3, 0.7]))
    d["workload"]["queue_depth"] = int(r.choice([1, 2, 4, 8, 16, 32]))
    d["ftl"] = {"write_buffer_kib": int(r.choice([16, 64, 256, 1024])), "capacity_gb": 64.0}
    d["nand"].update(blocks_per_plane=1000, pages_per_block=256, page_size_kib=16, over_provisioning=0.07)
    return d


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--random", type=int, default=0, metavar="N",
                        help="N uniformly sampled designs instead of the PM9A3 grid")
    parser.add_argument("--requests", type=int, default=40_000, help="DES requests per run (default 40,000)")
    parser.add_argument("--seed", type=int, default=1, help="DES seed (default 1)")
    args = parser.parse_args()
    if args.random:
        cases = [(f"design {seed:>3}", config_from_dict(random_buffered_design(seed))) for seed in range(args.random)]
    else:
        cases = [("PM9A3 c01", load_config(PM9A3, controller="c01", overrides=[
            f"ftl.write_buffer_kib={kib}", f"workload.read_fraction={reads}",
            f"workload.request_size_kib={size}", f"workload.queue_depth={depth}"]))
            for kib, reads, size, depth in itertools.product(BUFFERS_KIB, READ_FRACTIONS, SIZES_KIB, QUEUE_DEPTHS)]
    print(f"{'':>10} {'buffer':>9} {'slots':>5} {'reads':>5} {'size':>6} {'QD':>3} {'DES IOPS':>9} {'IOPS err':>9} "
          f"{'lat err':>8} {'p99 err':>8}  verdict")
    within = flagged_misses = unflagged = p99_within = 0
    iops_errors = []
    for label, cfg in cases:
        network = build_network(cfg)
        model = evaluate_network(cfg, network)
        des = simulate(network, requests=args.requests, seed=args.seed)
        iops_err = model.iops / des.iops.value - 1.0
        lat_err = model.latency_mean_us / des.mean_latency_us.value - 1.0
        p99_err = model.latency_p99_us / des.p99_us - 1.0
        iops_errors.append(iops_err)
        p99_within += abs(p99_err) <= P99_WITHIN
        ok = abs(iops_err) <= IOPS_TOLERANCE and abs(lat_err) <= LATENCY_TOLERANCE
        within += ok
        if ok:
            verdict = "agree" + (" (flagged)" if model.caveats else "")
        elif model.caveats:
            verdict, flagged_misses = "miss, flagged", flagged_misses + 1
        else:
            verdict, unflagged = "miss, UNFLAGGED", unflagged + 1
        w = cfg.workload
        size = "/".join(f"{x:g}" for x in w.request_sizes_kib)
        print(f"{label:>10} {cfg.ftl.write_buffer_kib:>5g} KiB {network.background_slots:>5} {w.read_fraction:>5.0%} "
              f"{size:>3} KiB {w.queue_depth:>3} {des.iops.value:>9,.0f} {iops_err:>+9.1%} {lat_err:>+8.1%} "
              f"{p99_err:>+8.1%}  {verdict}", flush=True)
    errors = np.abs(iops_errors)
    print(f"\n{within} of {len(cases)} within the tolerances; {flagged_misses} misses flagged by whatif, "
          f"{unflagged} not flagged; IOPS error mean {errors.mean():.1%}, worst "
          f"{iops_errors[int(errors.argmax())]:+.1%}; p99 within {P99_WITHIN:.0%} on {p99_within} of {len(cases)}")


if __name__ == "__main__":
    main()
