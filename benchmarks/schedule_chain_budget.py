"""How far a larger state budget takes the Markov chain of the requests' draws (``queueing/schedule_chain.py``)
at one queue depth: for every closed deterministic configuration of ``schedule_chain_vs_des.py``'s set at that
depth where ``whatif``'s chain outgrew its budget (``attempt_chain(...).outgrown``; the route MVA answers), the
chain is explored again on the 10 % grid with ``--max-states`` states, and both answers are compared with a
DES run. Prints, per such configuration, the route MVA's IOPS error (and ``whatif``'s time), the chain's error,
its states and the time the exploration took (or "outgrown" and the time it took to give up), and the DES's 95 %
half-width. This is how ``SHALLOW_GRID_STEPS`` was chosen, and why queue depths 3-4 kept 100,000 states on the
10 % grid until the chain's throughput was read off its busy time (2026-11-27; docs/accuracy.md); since then they
have 400,000 (``GRID_STEPS``), so the designs this finds there are those that outgrow 400,000.

Run: ``.venv/bin/python benchmarks/schedule_chain_budget.py [--queue-depth 2] [--max-states 1000000]
[--seeds 20261123 20261125 20261128 20261129 20261130] [--random 400] [--requests 200000]`` (about 20 minutes
with the defaults on one core before the kernels dropped reference counting on 2026-11-27, which made exploring
three times faster; explorations that outgrow 1,000,000 states took 13-40 s each then). Asserts nothing.
"""

import argparse
import sys
import time
from pathlib import Path

from ssdco.model.queueing.route_mva import request_alone_us
from ssdco.model.queueing.schedule_chain import attempt_chain
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import build_network
from ssdco.sim.des import simulate
from ssdco.spec import config_from_dict

sys.path.insert(0, str(Path(__file__).resolve().parent))
from schedule_chain_vs_des import add_design_arguments, designs_chosen  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queue-depth", type=int, default=2)
    ap.add_argument("--max-states", type=int, default=1_000_000)
    add_design_arguments(ap, seeds=(20261123, 20261125, 20261128, 20261129, 20261130), random=400)
    ap.add_argument("--requests", type=int, default=200_000)
    args = ap.parse_args()
    if not 2 <= args.queue_depth <= args.max_queue_depth:
        ap.error(f"--queue-depth: expected 2 to --max-queue-depth ({args.max_queue_depth}; the designs are drawn up to "
                 f"it), got {args.queue_depth}")
    at_depth = outgrown = 0
    for name, d in designs_chosen(args):
        if d["workload"].get("queue_depth") != args.queue_depth:
            continue
        config = config_from_dict(d)
        network = build_network(config)
        t0 = time.perf_counter()
        model = evaluate_network(config, network)
        whatif_s = time.perf_counter() - t0
        at_depth += 1
        zero_load_us = request_alone_us(network)  # as whatif scales the grids: its attempt is recalled
        if not attempt_chain(network, zero_load_us).outgrown:
            continue
        outgrown += 1
        t0 = time.perf_counter()
        chain = attempt_chain(network, zero_load_us, steps=((0.1, args.max_states),)).solution
        chain_s = time.perf_counter() - t0
        des = simulate(network, requests=args.requests, seed=1)
        x_des = des.iops.value
        found = ("outgrown" if chain is None else
                 f"{chain.throughput_per_us * 1e6 / x_des - 1:+.2%} states {chain.states:,}")
        print(f"{name}: whatif {model.method} {model.iops / x_des - 1:+.2%} ({whatif_s:.1f} s)  "
              f"chain on 10 %, {args.max_states:,} states: {found} ({chain_s:.1f} s)  "
              f"DES 95 % CI +-{des.iops.relative_half_width:.2%}", flush=True)
    print(f"queue depth {args.queue_depth}: {at_depth} configurations, "
          f"{outgrown} where whatif's chain outgrew its budget")


if __name__ == "__main__":
    main()
