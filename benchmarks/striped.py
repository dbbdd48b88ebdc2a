"""The analytic model against its DES on sequential streams striped over consecutive dies
(``nand.sequential_allocation = "channel_first"``), on designs drawn at random around the PM9A3 preset.

    python benchmarks/striped.py [--designs N] [--seed S] [--requests R]

Each design draws a controller preset (c01-c10), a request size (4-512 KiB), a queue depth (1-128), a read share
(reads only with twice the weight of 70 % reads and of writes only) and whether a die is held through its transfer;
the model (``ssdco.evaluate``) answers it and one DES run of ``--requests`` requests (seed 1) measures it. The
table gives the IOPS and mean-latency errors and the solver that answered; the last line counts the designs
within the model's tolerances (3 % IOPS and 10 % mean latency) and names the worst. Run on demand; nothing here
is asserted.
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
SIZES_KIB = (4, 8, 16, 32, 64, 128, 256, 512)
QUEUE_DEPTHS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 128)
READ_FRACTIONS = (1.0, 1.0, 0.7, 0.0)


def draw(rng: np.random.Generator) -> tuple[str, list[str]]:
    """One design: (controller preset, ``--set`` overrides)."""
    controller = f"c{rng.integers(1, 11):02d}"
    overrides = ["workload.address_pattern='sequential'", "nand.sequential_allocation='channel_first'",
                 f"workload.request_size_kib={int(rng.choice(SIZES_KIB))}",
                 f"workload.queue_depth={int(rng.choice(QUEUE_DEPTHS))}",
                 f"workload.read_fraction={float(rng.choice(READ_FRACTIONS))}",
                 f"nand.die_held_through_transfer={'true' if rng.integers(0, 2) else 'false'}"]
    return controller, overrides


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--designs", type=int, default=60, help="designs drawn (default 60)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the draw (default 1)")
    parser.add_argument("--requests", type=int, default=40_000, help="DES requests per design (default 40,000)")
    args = parser.parse_args(argv)

    from ssdco import evaluate
    from ssdco.network.build import build_network
    from ssdco.sim.des import simulate
    from ssdco.spec import load_config

    rng = np.random.default_rng(args.seed)
    within, worst = 0, (0.0, "")
    print(f"{'design':<62} {'DES IOPS':>10} {'IOPS':>8} {'latency':>8}  solver")
    for _ in range(args.designs):
        controller, overrides = draw(rng)
        config = load_config(ROOT / "configs" / "pm9a3-960.toml", controller=controller, overrides=overrides)
        model = evaluate(config)
        des = simulate(build_network(config), requests=args.requests, seed=1)
        iops_err = model.iops / des.iops.value - 1.0
        latency_err = model.latency_mean_us / des.mean_latency_us.value - 1.0
        name = f"{controller} " + " ".join(o.split(".", 1)[1].replace("'", "") for o in overrides[2:])
        within += abs(iops_err) <= IOPS_TOLERANCE and abs(latency_err) <= LATENCY_TOLERANCE
        if abs(iops_err) > abs(worst[0]):
            worst = (iops_err, name)
        print(f"{name:<62} {des.iops.value:>10,.0f} {iops_err * 100:>+7.2f}% {latency_err * 100:>+7.2f}%  "
              f"{model.method}", flush=True)
    print(f"{within} of {args.designs} within {IOPS_TOLERANCE:.0%} IOPS and {LATENCY_TOLERANCE:.0%} mean latency; "
          f"worst IOPS error {worst[0] * 100:+.1f} % ({worst[1]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
