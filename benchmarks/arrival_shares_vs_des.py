"""The others an arrival sees (``route_mva.py``, 8.) on the simplest closed network: one core (one server) and a think
time, at a few queue depths, with the core's service deterministic or exponential and the think time exponential.

    .venv/bin/python benchmarks/arrival_shares_vs_des.py [--requests 200000]

Prints, per queue depth, the DES's IOPS and the route MVA's error against it with Schweitzer's estimate
((n - 1)/n, ``ARRIVAL_SHARES`` off, the default) and with the shares of the exact product-form MVA moved by the
weight (1 + scv) / 2 (on), and for exponential service the exact product-form MVA's too. The other corrections of
the route MVA are on, the idle bound aside (``whatif`` applies it after the solve). The run of 2026-11-28
(twenty-third session) is in docs/accuracy.md, "The others an arrival sees".
"""

import argparse

from ssdco.model.mva import solve_closed
from ssdco.model.network import Network, Station, Step
from ssdco.model.route_mva import ALL_FEATURES, ARRIVAL_SHARES, IDLE_BOUND, route_arrays, solve_route
from ssdco.validation.des import simulate

CORE_US, THINK_US = 10.0, 80.0
QUEUE_DEPTHS = (3, 5, 8, 12, 20)


def machine_repairman(queue_depth: int, core_scv: float) -> Network:
    """One core (one server, ``CORE_US`` a request) and an exponential think time of ``THINK_US`` (a station of 64
    servers, so that no request waits there)."""
    return Network(stations=(Station("cores:g1", "cores", 1, 1), Station("die", "die", 64, 1)),
                   steps=(Step("parse", "cores:g1", True, CORE_US, CORE_US, scv=core_scv),
                          Step("nand_array", "die", True, THINK_US, THINK_US, scv=1.0)),
                   read_fraction=1.0, request_bytes=(4096.0,), request_probs=(1.0,), transactions=(1,),
                   queue_depth=queue_depth, arrival_iops=None)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=200_000, help="DES requests per run")
    args = ap.parse_args()
    features = ALL_FEATURES & ~IDLE_BOUND
    print(f"one core ({CORE_US:g} us) and an exponential think time ({THINK_US:g} us); IOPS error against the DES")
    for core_scv, label in ((0.0, "deterministic"), (1.0, "exponential")):
        print(f"core service {label}:")
        for queue_depth in QUEUE_DEPTHS:
            network = machine_repairman(queue_depth, core_scv)
            arrays = route_arrays(network, network.loads())
            des = simulate(network, requests=args.requests, seed=1).iops.value / 1e6
            schweitzer = solve_route(arrays, queue_depth, features=features & ~ARRIVAL_SHARES).throughput_per_us
            shares = solve_route(arrays, queue_depth, features=features | ARRIVAL_SHARES).throughput_per_us
            line = (f"  QD {queue_depth:2d}: DES {des * 1e6:9,.0f} IOPS; Schweitzer {schweitzer / des - 1:+7.2%}, "
                    f"shares {shares / des - 1:+7.2%}")
            if core_scv == 1.0:
                exact = solve_closed([CORE_US, 0.0], [1, 64], [1, 1], [1.0, 1.0], THINK_US, queue_depth,
                                     exact=True).throughput_per_us
                line += f", exact product-form MVA {exact / des - 1:+7.2%}"
            print(line)


if __name__ == "__main__":
    main()
