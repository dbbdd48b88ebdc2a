"""Speed of the embedded DES (ssdco.sim.des) beside ciw and SimPy on the same network.

Run: ``python benchmarks/des_speed.py`` (about a minute; ``--quick`` for a few seconds). No assertions.

The common network is one all three simulators express directly: an open tandem of 5 single-server FCFS
stations with exponential service (means 0.5, 0.7, 0.6, 0.8, 0.4 us) fed by Poisson arrivals at 1 per us.
Events are counted the same way for all three: **6 per completed customer** (its arrival and its 5
service completions). For our DES that equals its heap pops, up to the handful of customers still in
flight at the end. Each simulator also reports the mean sojourn time, which must agree with the Jackson
network value sum 1 / (mu_i - lambda) (a check that the three simulate the same thing).

Our DES is also timed on the PM9A3 c01 network (configs/pm9a3-960.toml, controller c01), where an event is
one heap pop. Numba compilation is excluded (a small run first loads or compiles the kernel); the
Python-side set-up and result analysis of each run are included in the wall time we divide by.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

import numpy as np

from ssdco.network.build import Network, Station, Step, build_network
from ssdco.sim.des import simulate
from ssdco.spec import load_config

MEANS_US = (0.5, 0.7, 0.6, 0.8, 0.4)
LAMBDA = 1.0  # arrivals per us
EVENTS_PER_CUSTOMER = 1 + len(MEANS_US)
JACKSON_SOJOURN = sum(1.0 / (1.0 / m - LAMBDA) for m in MEANS_US)
ROOT = Path(__file__).resolve().parent.parent


def tandem_network() -> Network:
    stations = tuple(Station(f"s{i}", "cores", 1) for i in range(len(MEANS_US)))
    steps = tuple(Step(f"s{i}", f"s{i}", True, m, m, scv=1.0) for i, m in enumerate(MEANS_US))
    return Network(stations=stations, steps=steps, read_fraction=1.0, request_bytes=(4096.0,),
                   request_probs=(1.0,), transactions=(1,), queue_depth=None, arrival_iops=LAMBDA * 1e6)


def run_ours(customers: int) -> tuple[float, float, float]:
    """(events/s by the common count, heap pops/s, mean sojourn us)."""
    net = tandem_network()
    simulate(net, requests=1_000)  # load or compile the kernel
    t0 = time.perf_counter()
    r = simulate(net, requests=customers, warmup_fraction=0.1, seed=1)
    wall = time.perf_counter() - t0
    return EVENTS_PER_CUSTOMER * customers / wall, r.events / wall, r.mean_latency_us.value


def run_ciw(customers: int) -> tuple[float, float]:
    """(events/s by the common count, mean sojourn)."""
    import ciw

    n = len(MEANS_US)
    routing = [[1.0 if j == i + 1 else 0.0 for j in range(n)] for i in range(n)]
    network = ciw.create_network(
        arrival_distributions=[ciw.dists.Exponential(rate=LAMBDA)] + [None] * (n - 1),
        service_distributions=[ciw.dists.Exponential(rate=1.0 / m) for m in MEANS_US],
        number_of_servers=[1] * n,
        routing=routing,
    )
    ciw.seed(1)
    horizon = customers / LAMBDA
    t0 = time.perf_counter()
    sim = ciw.Simulation(network)
    sim.simulate_until_max_time(horizon)
    wall = time.perf_counter() - t0
    recs = sim.get_all_records()
    first = {}
    last = {}
    for rec in recs:
        if rec.node == 1:
            first[rec.id_number] = rec.arrival_date
        if rec.node == n:
            last[rec.id_number] = rec.exit_date
    done = [last[k] - first[k] for k in last if k in first]
    warm = len(done) // 10
    return EVENTS_PER_CUSTOMER * len(done) / wall, float(np.mean(done[warm:]))


def run_simpy(customers: int) -> tuple[float, float]:
    """(events/s by the common count, mean sojourn)."""
    import simpy

    rnd = random.Random(1)
    env = simpy.Environment()
    servers = [simpy.Resource(env, capacity=1) for _ in MEANS_US]
    sojourn: list[float] = []

    def customer(env):
        t_in = env.now
        for res, m in zip(servers, MEANS_US):
            with res.request() as req:
                yield req
                yield env.timeout(rnd.expovariate(1.0 / m))
        sojourn.append(env.now - t_in)

    def source(env):
        while True:
            yield env.timeout(rnd.expovariate(LAMBDA))
            env.process(customer(env))

    env.process(source(env))
    t0 = time.perf_counter()
    env.run(until=customers / LAMBDA)
    wall = time.perf_counter() - t0
    warm = len(sojourn) // 10
    return EVENTS_PER_CUSTOMER * len(sojourn) / wall, float(np.mean(sojourn[warm:]))


def run_pm9a3(requests: int) -> float:
    net = build_network(load_config(str(ROOT / "configs" / "pm9a3-960.toml"), controller="c01"))
    simulate(net, requests=1_000)
    r = simulate(net, requests=requests, seed=1)
    print(f"ours  PM9A3 c01 QD{net.queue_depth}: {r.events / 1e6:6.2f} M heap pops in {r.wall_seconds:5.2f} s "
          f"loop time = {r.events_per_second / 1e6:6.2f} M events/s   (IOPS {r.iops.value:,.0f})")
    return r.events_per_second


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small runs (a few seconds)")
    a = ap.parse_args()
    scale = 0.1 if a.quick else 1.0
    n_ours, n_simpy, n_ciw = int(2_000_000 * scale), int(200_000 * scale), int(30_000 * scale)

    print(f"open tandem of {len(MEANS_US)} exponential single-server stations, lambda = {LAMBDA}/us; "
          f"Jackson mean sojourn {JACKSON_SOJOURN:.4f} us; events = {EVENTS_PER_CUSTOMER} per completed customer")
    ours, pops, w_ours = run_ours(n_ours)
    print(f"ours : {n_ours:>9,} customers  {ours / 1e6:8.3f} M events/s  (heap pops {pops / 1e6:.3f} M/s)  "
          f"sojourn {w_ours:.4f} us")
    sp, w_sp = run_simpy(n_simpy)
    print(f"SimPy: {n_simpy:>9,} customers  {sp / 1e6:8.3f} M events/s  sojourn {w_sp:.4f} us")
    cw, w_cw = run_ciw(n_ciw)
    print(f"ciw  : {n_ciw:>9,} customers  {cw / 1e6:8.3f} M events/s  sojourn {w_cw:.4f} us")
    print(f"ratios: ours/SimPy = {ours / sp:,.0f}x   ours/ciw = {ours / cw:,.0f}x")
    run_pm9a3(int(1_000_000 * scale))


if __name__ == "__main__":
    main()
