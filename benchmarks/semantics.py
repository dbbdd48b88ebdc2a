"""The analytic model against its DES under one device semantic, on designs drawn at random around the PM9A3 preset.

    python benchmarks/semantics.py SEMANTIC [--designs N] [--seed S] [--requests R]

SEMANTIC is one of:

* ``striped``: sequential streams striped over consecutive dies (``nand.sequential_allocation = "channel_first"``);
  a request size of 4-512 KiB, reads only with twice the weight of 70 % reads and of writes only.
* ``reads-first``: dies serving reads ahead of programs (``nand.die_scheduling = "reads_first"``); 4-64 KiB uniform
  random requests, 50-90 % reads, a write buffer of 0 (write-through), 16 or 64 MiB.
* ``suspend``: reads suspending programs and erases at reads-first dies (``nand.suspend = "program_erase"``, one
  operation per die: ``independent_plane_reads = false``); a program suspension time of 20, 50 or 100 us (an erase's
  five times that), 4-16 KiB uniform random requests, 50-90 % reads, a write buffer of 0, 2 or 16 MiB.
* ``write-through``: no write buffer and requests of 32-128 KiB, more transactions than the accuracy campaign's
  4-16 KiB (docs/accuracy.md), 0-90 % reads, the dies first come first served; no ``--baseline``.

Each design also draws a controller preset (c01-c10), a queue depth (1-128) and whether a die is held through its
transfer; the model (``ssdco.evaluate``) answers it and one DES run (seed 1) measures it: ``--requests`` requests, or
enough for its writes to fill the write buffer twenty times over (at most 2,000,000), so that the run measures the
drive with its buffer full, the steady state the model answers, and not a buffer still filling.
The table gives the IOPS and mean-latency errors and the solver that answered; the last line counts the designs
within the model's tolerances (3 % IOPS and 10 % mean latency) and names the worst. ``--baseline`` also answers each
design with the semantic switched off in the model only (the DES keeps it) and counts those answers the same way:
what the model's handling of the semantic changes. Run on demand; nothing here is asserted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's ssdco, not another one installed in the environment

IOPS_TOLERANCE = 0.03
LATENCY_TOLERANCE = 0.10
QUEUE_DEPTHS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 128)
BUFFER_FILLS = 20  # the DES run's writes fill the write buffer this many times over
MAX_REQUESTS = 2_000_000


def des_requests(network, least: int) -> int:
    """DES requests for ``network``: ``least``, or enough for its writes to fill the write buffer
    ``BUFFER_FILLS`` times (at most ``MAX_REQUESTS``)."""
    writes = (1.0 - network.read_fraction) * network.mean_transactions
    if writes <= 0.0 or network.background_slots <= 0:
        return least
    return int(min(max(least, BUFFER_FILLS * network.background_slots / writes), MAX_REQUESTS))


def _striped(rng: np.random.Generator) -> list[str]:
    return ["workload.address_pattern='sequential'", "nand.sequential_allocation='channel_first'",
            f"workload.request_size_kib={int(rng.choice((4, 8, 16, 32, 64, 128, 256, 512)))}",
            f"workload.read_fraction={float(rng.choice((1.0, 1.0, 0.7, 0.0)))}"]


def _reads_first(rng: np.random.Generator) -> list[str]:
    return ["nand.die_scheduling='reads_first'",
            f"workload.request_size_kib={int(rng.choice((4, 8, 16, 32, 64)))}",
            f"workload.read_fraction={float(rng.choice((0.5, 0.7, 0.9)))}",
            f"ftl.write_buffer_kib={int(rng.choice((0, 16384, 65536)))}"]


def _suspend(rng: np.random.Generator) -> list[str]:
    program_us = float(rng.choice((20.0, 50.0, 100.0)))
    return ["nand.die_scheduling='reads_first'", "nand.independent_plane_reads=false", "nand.suspend='program_erase'",
            f"nand.t_suspend_program_us={program_us}", f"nand.t_suspend_erase_us={5 * program_us}",
            f"workload.request_size_kib={int(rng.choice((4, 8, 16)))}",
            f"workload.read_fraction={float(rng.choice((0.5, 0.7, 0.9)))}",
            f"ftl.write_buffer_kib={int(rng.choice((0, 2048, 16384)))}"]


def _write_through(rng: np.random.Generator) -> list[str]:
    return [f"workload.request_size_kib={int(rng.choice((32, 64, 128)))}",
            f"workload.read_fraction={float(rng.choice((0.0, 0.5, 0.7, 0.9)))}", "ftl.write_buffer_kib=0"]


SEMANTICS = {"striped": _striped, "reads-first": _reads_first, "suspend": _suspend, "write-through": _write_through}
#: The override that switches a semantic off (``--baseline``).
BASELINES = {"striped": "nand.sequential_allocation='random'", "reads-first": "nand.die_scheduling='fcfs'",
             "suspend": "nand.suspend='none'"}


def draw(rng: np.random.Generator, semantic: str) -> tuple[str, list[str]]:
    """One design: (controller preset, ``--set`` overrides)."""
    controller = f"c{rng.integers(1, 11):02d}"
    overrides = SEMANTICS[semantic](rng) + [
        f"workload.queue_depth={int(rng.choice(QUEUE_DEPTHS))}",
        f"nand.die_held_through_transfer={'true' if rng.integers(0, 2) else 'false'}"]
    return controller, overrides


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("semantic", choices=sorted(SEMANTICS))
    parser.add_argument("--designs", type=int, default=60, help="designs drawn (default 60)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the draw (default 1)")
    parser.add_argument("--requests", type=int, default=40_000,
                        help="DES requests per design at least (default 40,000; more to fill a write buffer)")
    parser.add_argument("--baseline", action="store_true",
                        help="also answer each design by the model with the semantic off (the DES keeps it)")
    args = parser.parse_args(argv)
    if args.baseline and args.semantic not in BASELINES:
        parser.error(f"--baseline: {args.semantic} has no override that switches it off "
                     f"(allowed with {', '.join(sorted(BASELINES))})")

    from ssdco import evaluate
    from ssdco.network.build import build_network
    from ssdco.sim.des import simulate
    from ssdco.spec import load_config

    rng = np.random.default_rng(args.seed)
    within, worst = 0, (0.0, "")
    base_within, base_worst = 0, 0.0
    extra = f" {'off IOPS':>8} {'off lat':>8}" if args.baseline else ""
    print(f"{'design':<78} {'DES IOPS':>10} {'IOPS':>8} {'latency':>8}{extra}  solver")
    for _ in range(args.designs):
        controller, overrides = draw(rng, args.semantic)
        config = load_config(ROOT / "configs" / "pm9a3-960.toml", controller=controller, overrides=overrides)
        model = evaluate(config)
        network = build_network(config)
        des = simulate(network, requests=des_requests(network, args.requests), seed=1)
        iops_err = model.iops / des.iops.value - 1.0
        latency_err = model.latency_mean_us / des.mean_latency_us.value - 1.0
        name = f"{controller} " + " ".join(o.split(".", 1)[1].replace("'", "") for o in overrides
                                           if "sequential" not in o and "die_scheduling" not in o
                                           and "independent_plane" not in o and "suspend=" not in o)
        within += abs(iops_err) <= IOPS_TOLERANCE and abs(latency_err) <= LATENCY_TOLERANCE
        if abs(iops_err) > abs(worst[0]):
            worst = (iops_err, name)
        extra = ""
        if args.baseline:
            off = evaluate(load_config(ROOT / "configs" / "pm9a3-960.toml", controller=controller,
                                       overrides=overrides + [BASELINES[args.semantic]]))
            off_iops = off.iops / des.iops.value - 1.0
            off_latency = off.latency_mean_us / des.mean_latency_us.value - 1.0
            base_within += abs(off_iops) <= IOPS_TOLERANCE and abs(off_latency) <= LATENCY_TOLERANCE
            base_worst = max(base_worst, abs(off_iops), key=abs)
            extra = f" {off_iops * 100:>+7.2f}% {off_latency * 100:>+7.2f}%"
        print(f"{name:<78} {des.iops.value:>10,.0f} {iops_err * 100:>+7.2f}% {latency_err * 100:>+7.2f}%{extra}  "
              f"{model.method}", flush=True)
    print(f"{within} of {args.designs} within {IOPS_TOLERANCE:.0%} IOPS and {LATENCY_TOLERANCE:.0%} mean latency; "
          f"worst IOPS error {worst[0] * 100:+.1f} % ({worst[1]})")
    if args.baseline:
        print(f"with the semantic off in the model: {base_within} of {args.designs} within; worst IOPS error "
              f"{base_worst * 100:.1f} %")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
