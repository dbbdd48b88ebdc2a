"""Open workloads on one core group that a request visits more than once: the analytic model beside the DES.

Run: ``.venv/bin/python benchmarks/open_core_runs.py [--requests 100000]`` (about ten seconds). No
assertions: this prints where the open solver stands on core groups visited in runs or by batches
(``ssdco/model/queueing/open_runs.py``, work conservation on one server c times as fast), and, for one core, the
closed-form first wait that work conservation gives beside the DES's.

The designs (``ssdco.validation.random_designs.core_group_config``): 16 KiB reads (4 transactions) at
50 % and 80 % of capacity, one core group of 1-3 slow cores running ``[translate]``, ``[cache_lookup,
translate]`` (two per-transaction modules in a row) or ``[parse, translate]`` (the request's parse, then
its transactions; cache lookup on an accelerator in between), every other module on accelerators and the
NAND fast, so that the core group is the only queue.

Work conservation on one server (FCFS; Poisson requests at rate lam; the request's work at the core
Y = A + T B for ``[parse, translate]``, T (B1 + B2) for ``[cache_lookup, translate]``; rho = lam Y): if the
request brought Y at once, an arrival would find V' = lam Y^2 / (2 (1 - rho)) (M/D/1). The work not yet
released by the requests present is U, and the server never idles while some is pending, so the first
visit waits E[V] = V' - E[U]:

* ``[parse, translate]``: E[U] = lam T B (W1 + A), so W1 = (V' - lam T B A) / (1 + lam T B); the
  transactions then wait W2 = rho (W1 + A), the work that arrived during the parse's stay;
* ``[cache_lookup, translate]``: transaction j's translate is released after its cache lookup, at
  W1 + j B1, so E[U] = lam B2 (T W1 + B1 T (T + 1) / 2).

Measured with per-visit M^X/G/c waits (before ``open_runs.py``): [parse, translate] +37..+78 % on one
core and +10..+50 % on two; [cache_lookup, translate] -6..-9 % on one, -18..-26 % on two and three;
[translate] -4..-10 % on two and three (Erlang C's idle-core discount for a batch that fills every core).
"""

from __future__ import annotations

import argparse

from ssdco.model.whatif import evaluate_network
from ssdco.network.build import build_network
from ssdco.sim.des import simulate
from ssdco.spec import config_from_dict
from ssdco.validation.random_designs import core_group_config, open_at

PATTERNS = (("translate",), ("cache_lookup", "translate"), ("parse", "translate"))
GROUP = "cores:g"


def design(cores: int, modules: tuple[str, ...], load: float):
    """(config, network) of the design described in the module docstring at ``load`` x its capacity."""
    config = config_from_dict(open_at(core_group_config(cores, modules), load))
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
          f"first visit's wait: {'DES':>7} {'work conservation (one core)':>28}")
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
                wc = first_wait_by_work_conservation(network, modules) if cores == 1 else None
                error = model.latency_mean_us / des.mean_latency_us.value - 1.0
                print(f"{cores:>5}  {'+'.join(modules):<26} {load:>4.0%}  {model.latency_mean_us:>13.1f} "
                      f"{des.mean_latency_us.value:>8.1f} {error:>+7.1%}   {'':>19} {des_first:>7.1f} "
                      f"{'' if wc is None else f'{wc:.1f}':>28}")


if __name__ == "__main__":
    main()
