"""Open workloads on one core group that a request visits more than once: the analytic model beside the DES.

Run: ``.venv/bin/python benchmarks/open_core_runs.py [--requests 100000]`` (about half a minute). No
assertions: this prints where the open solver (``ssdco/model/open.py``, per-visit M^X/G/c waits) stands on
the pattern behind most of its remaining misses, and, for one core, what work conservation predicts.

The designs: 16 KiB reads (4 transactions) at 50 % and 80 % of capacity, one core group of 1-3 slow cores
running ``[translate]``, ``[cache_lookup, translate]`` (two per-transaction modules in a row) or ``[parse,
translate]`` (the request's parse, then its transactions; cache lookup on an accelerator in between), every
other module on accelerators and the NAND fast, so that the core group is the only queue.

Work conservation on one server (FCFS; Poisson requests at rate lam; the request's work at the core
Y = A + T B for ``[parse, translate]``, T (B1 + B2) for ``[cache_lookup, translate]``; rho = lam Y): if the
request brought Y at once, an arrival would find V' = lam Y^2 / (2 (1 - rho)) (M/D/1). The work not yet
released by the requests present is U, and the server never idles while some is pending, so the first
visit waits E[V] = V' - E[U]:

* ``[parse, translate]``: E[U] = lam T B (W1 + A), so W1 = (V' - lam T B A) / (1 + lam T B); the
  transactions then wait W2 = rho (W1 + A), the work that arrived during the parse's stay;
* ``[cache_lookup, translate]``: transaction j's translate is released after its cache lookup, at
  W1 + j B1, so E[U] = lam B2 (T W1 + B1 T (T + 1) / 2).

The model gives every visit the first-of-batch M^X/G/c wait instead (plus the re-entry residual).
"""

from __future__ import annotations

import argparse
import copy

from ssdco.model.network import build_network
from ssdco.model.whatif import evaluate_network
from ssdco.spec import config_from_dict
from ssdco.validation.des import simulate
from ssdco.validation.random_designs import random_config

MODULES = ("parse", "cache_lookup", "translate", "dispatch", "complete")
PATTERNS = (("translate",), ("cache_lookup", "translate"), ("parse", "translate"))
GROUP = "cores:g"


def design(cores: int, modules: tuple[str, ...], load: float):
    """(config, network) of the design described in the module docstring at ``load`` x its capacity."""
    raw = random_config(44, True)  # a template: its core specs, module cycles and device
    raw["workload"].update(request_size_kib=16, read_fraction=1.0)
    raw["nand"].update(t_read_us=5.0, channels=8, ways_per_channel=8)
    raw["controller"]["core_groups"] = [{"name": "g", "spec": "slow", "count": cores, "modules": list(modules)}]
    raw["controller"]["accelerators"] = {m: 4 for m in MODULES if m not in modules}
    closed = config_from_dict(raw)
    capacity_iops = evaluate_network(closed, build_network(closed)).bounds.capacity_per_us * 1e6
    raw = copy.deepcopy(raw)
    raw["workload"].pop("queue_depth")
    raw["workload"]["arrival_iops"] = load * capacity_iops
    config = config_from_dict(raw)
    return config, build_network(config)


def first_wait_by_work_conservation(network, modules: tuple[str, ...]) -> float | None:
    """The first visit's mean wait (us) at a single core by work conservation (module docstring)."""
    lam = network.arrival_iops / 1e6
    t = network.transactions[0]
    service = {s.label: network.step_moments(s)[0] for s in network.steps if s.station == GROUP}
    if modules == ("parse", "translate"):
        a, b = service["parse"], service["translate"]
        y = a + t * b
        v_all = lam * y * y / (2.0 * (1.0 - lam * y))
        return (v_all - lam * t * b * a) / (1.0 + lam * t * b)
    if modules == ("cache_lookup", "translate"):
        b1, b2 = service["cache_lookup"], service["translate"]
        y = t * (b1 + b2)
        v_all = lam * y * y / (2.0 * (1.0 - lam * y))
        return (v_all - lam * b2 * b1 * t * (t + 1) / 2.0) / (1.0 + lam * t * b2)
    return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=100_000)
    args = ap.parse_args()
    print(f"{'cores':>5}  {'modules':<26} {'load':>4}  {'latency model':>13} {'DES':>8} {'error':>7}   "
          f"first visit's wait: {'model':>7} {'DES':>7} {'work cons.':>10}")
    for cores in (1, 2, 3):
        for modules in PATTERNS:
            for load in (0.5, 0.8):
                config, network = design(cores, modules, load)
                model = evaluate_network(config, network)
                des = simulate(network, requests=args.requests, seed=1)
                t = network.transactions[0]
                first = network.steps[[s.station for s in network.steps].index(GROUP)]
                s_first = network.step_moments(first)[0]
                # DES: the first module's mean residence per visit less its service and, for a batch of T
                # on c servers, the mean wait behind the own transactions ahead
                own_ahead = 0.0 if first.per_request else sum((j // cores) for j in range(t)) / t * s_first
                des_first = des.step_residence_us[first.label] - s_first - own_ahead
                visits = next(ld.visits for ld in network.loads() if ld.name == GROUP)
                service = next(ld.service_us for ld in network.loads() if ld.name == GROUP)
                model_wait = model.mean_jobs[GROUP] / (model.iops / 1e6) / visits - service
                wc = first_wait_by_work_conservation(network, modules) if cores == 1 else None
                error = model.latency_mean_us / des.mean_latency_us.value - 1.0
                print(f"{cores:>5}  {'+'.join(modules):<26} {load:>4.0%}  {model.latency_mean_us:>13.1f} "
                      f"{des.mean_latency_us.value:>8.1f} {error:>+7.1%}   {'':>19} {model_wait:>7.1f} "
                      f"{des_first:>7.1f} {'' if wc is None else f'{wc:.1f}':>10}")


if __name__ == "__main__":
    main()
