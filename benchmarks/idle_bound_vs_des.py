"""A bound that is not in the model yet: the busy core group idles while every request is away. ``whatif``'s route-MVA
answers at a busy core group, with and without the bound, side by side against cached DES runs of Hypothesis draws
(docs/accuracy.md, "The busy group idles while every request is away").

    .venv/bin/python benchmarks/idle_bound_vs_des.py --seeds 20261276 20261277 [--sizes 4|mixed] [--configs 300]
                                                     [--min-utilization 0.9] [--des-cache-dir DIR]

The bound, from the route MVA's own solution at its answer X: the bottleneck core group b (c cores, D us of work per
request), the mean time T a request spends elsewhere (the other stations' residences and the pure delays) and its
variance V (the services' spread on the way, rf (1 - rf) (t_write - t_read)^2 per step, plus each station's wait W
with P(wait) P taken as exponential given a wait, 2 W^2 / P - W^2), s^2 = V / T^2; the machine-repairman M/M/c//N
with think time T and service D idles I_MR of the time; X <= (c / D) (1 - I_MR min(1, s^2 / 2)) (the heavy-traffic
(ca^2 + cs^2) / 2 with cs^2 = 0 for deterministic cores). The DES runs as in ``route_feature_vs_des.py`` (60,000
requests, the draw's index as seed, cached per seed as ``fc_SEED_SIZES.json``).
"""

import argparse
import math
import time
from pathlib import Path

import numpy as np
from model_vs_des import cached_draws, des_iops_and_latency

from ssdco.model.route_mva import route_arrays, solve_route
from ssdco.model.whatif import evaluate_network

REQUESTS = 60_000
TOLERANCE = 0.03  # IOPS, as ssdco validate


def machine_repairman_per_us(population: int, servers: int, service_us: float, think_us: float) -> float:
    """Throughput (per us) of the closed M/M/c//N machine-repairman: N jobs, c exponential servers of mean
    service_us, and an exponential think time of mean think_us (birth-death balance in log space)."""
    log_p = [0.0]
    for n in range(1, population + 1):
        log_p.append(log_p[-1] + math.log((population - n + 1) * service_us / (min(n, servers) * think_us)))
    top = max(log_p)
    p = np.exp(np.array(log_p) - top)
    return float(np.dot(np.minimum(np.arange(population + 1), servers), p) / (p.sum() * service_us))


def one_transaction(network) -> bool:
    """Whether every request of the workload is one transaction (the bound is written for those only)."""
    arrays = route_arrays(network, network.loads())
    return bool(arrays.size_transactions[arrays.size_probs > 0].max() <= 1)


def idle_bound_per_us(network, bottleneck: str, read_fraction: float) -> float:
    """The bound above (requests/us) for the core group named ``bottleneck``, from the route MVA's solution. For
    requests of one transaction only: T sums the stations' residences, which a request's parallel transactions
    would count several times over (on the 8-16 KiB draws of seeds 20261248-52 it put answers up to 20 % low)."""
    loads = network.loads()
    arrays = route_arrays(network, loads)
    sol = solve_route(arrays, network.queue_depth)
    b = [ld.name for ld in loads].index(bottleneck)
    copies = np.array([ld.copies for ld in loads])
    residence = np.asarray(sol.residence_us) * copies
    demand = np.array([ld.demand_us for ld in loads]) * copies
    away_us = float(residence.sum() - residence[b]) + arrays.pure_delay_us
    variance = sum(read_fraction * (1.0 - read_fraction) * (s.write_us - s.read_us) ** 2
                   for s in network.steps if s.station is not None and s.station != bottleneck)
    for k in range(len(loads)):
        wait, p_wait = residence[k] - demand[k], float(sol.p_wait[k])
        if k != b and wait > 0.0 and p_wait > 0.0:
            variance += 2.0 * wait * wait / p_wait - wait * wait
    servers, work_us = int(arrays.servers[b]), float(demand[b])
    capacity = servers / work_us
    idle = 1.0 - machine_repairman_per_us(network.queue_depth, servers, work_us, away_us) / capacity
    return capacity * (1.0 - max(idle, 0.0) * min(1.0, 0.5 * variance / away_us ** 2))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", required=True, help="Hypothesis seeds to draw from")
    ap.add_argument("--sizes", choices=("4", "mixed"), default="4")
    ap.add_argument("--configs", type=int, default=300, help="draws per seed (Hypothesis may repeat some)")
    ap.add_argument("--min-utilization", type=float, default=0.9, help="the bottleneck core group at least this busy")
    ap.add_argument("--des-cache-dir", type=Path, help="directory of per-seed DES caches (fc_SEED_SIZES.json)")
    args = ap.parse_args()
    t0 = time.perf_counter()
    rows = []  # (name, IOPS error without the bound, with it)
    skipped = 0  # answers for requests of several transactions, which the bound is not written for
    for seed, i, d, config, network, cache in cached_draws(args.seeds, args.sizes, args.configs, args.des_cache_dir):
        r = evaluate_network(config, network)
        if (r.method != "route-mva" or not (r.bottleneck or "").startswith("cores")
                or r.utilization[r.bottleneck] < args.min_utilization):
            continue
        if not one_transaction(network):
            skipped += 1
            continue
        des_iops = des_iops_and_latency(d, network, REQUESTS, i, cache)[0]
        bound = idle_bound_per_us(network, r.bottleneck, d["workload"]["read_fraction"]) * 1e6
        rows.append((f"{seed} #{i}", r.iops / des_iops - 1.0, min(r.iops, bound) / des_iops - 1.0))
    print(f"{len(rows)} route-MVA answers at a core group {args.min_utilization:.0%} busy or more "
          f"({args.sizes} KiB setting, seeds {' '.join(map(str, args.seeds))}), {time.perf_counter() - t0:.1f} s; "
          f"{skipped} more for requests of several transactions skipped")
    if not rows:
        return
    for label, k in (("without the bound", 1), ("with it", 2)):
        e = np.array([row[k] for row in rows])
        print(f"  {label}: {int(np.sum(np.abs(e) > TOLERANCE))} outside IOPS {TOLERANCE:.0%}, "
              f"mean {e.mean():+.2%}, RMS {math.sqrt(float(np.mean(e * e))):.2%}")
    for name, before, after in rows:
        if (abs(before) > TOLERANCE) != (abs(after) > TOLERANCE) or abs(after - before) >= 0.01:
            print(f"  {name}: {before:+.2%} -> {after:+.2%}")


if __name__ == "__main__":
    main()
