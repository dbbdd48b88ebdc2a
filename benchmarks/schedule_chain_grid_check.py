"""Whether two lumping grids agreeing makes a larger state budget safe at queue depths 3-4 (tried 2026-11-27, not
kept; docs/accuracy.md, "a larger budget at QD 3-4, taken where two grids agree"). Later that day the larger budget
was taken without the screen (``schedule_chain.GRID_STEPS``: 400,000 states on the 10 % grid), once the chain's
throughput was read off its busy time.

For every closed deterministic configuration at queue depth 3 or 4 whose chain outgrows the steps ``whatif`` had
when the check was made (``CHECKED_STEPS``) and where the route MVA answers then, the chain is explored on the 20 %
grid with at most ``--screen-states`` states and on the 10 % grid with at most ``--max-states``, and both are
compared with a DES run. The candidate rule takes the 10 % answer
where the 20 % one fits and the two agree within a tolerance; the script prints, per tolerance, how many answers
the rule takes and how many of the route MVA's misses it fixes and how many it makes (IOPS tolerance of
``ssdco validate``), and the extra time the rule would cost ``whatif`` on these designs (median, 90th percentile,
worst). It does so twice: with the chain's throughput counted from its completions (as the rule was tried, and as
docs/accuracy.md quotes it) and read off its busy time (``schedule_chain._work_conserving``, what ``whatif`` has
taken since).

Configurations: ``schedule_chain_vs_des.py``'s set (``--seeds``, ``--draws``, ``--random``, ``--first-seed``, held to
queue depth 5) and, with ``--fresh SEED ...``, the fresh draws of ``model_vs_des.py --hypothesis SEED``
(``--fresh-configs`` per seed and request-size setting, 300 by default; the seeds before 20261210 were drawn with 150).

Run: ``.venv/bin/python benchmarks/schedule_chain_grid_check.py [--seeds 20261203] [--random 400]
[--fresh 20261222 20261223] [--requests 200000]`` (about 5 s per configuration that outgrows the budget; the
docs' figures took two runs of 20 and 15 minutes on one core each). Prints measured errors; asserts nothing.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from ssdco.model.queueing.route_mva import request_alone_us
from ssdco.model.queueing.schedule_chain import REFINE_ONLY, attempt_chain
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import build_network
from ssdco.sim.des import simulate
from ssdco.spec import config_from_dict
from ssdco.validation.compare import IOPS_TOLERANCE

sys.path.insert(0, str(Path(__file__).resolve().parent))
from model_vs_des import hypothesis_configs  # noqa: E402
from schedule_chain_vs_des import add_design_arguments, designs_chosen  # noqa: E402

AGREEMENT_TOLERANCES = (0.005, 0.01, 0.02, 0.05)
# whatif's steps at queue depths 3-4 when the check was made (GRID_STEPS until late on 2026-11-27)
CHECKED_STEPS = ((1e-4, 3_000), (0.1, 100_000), (0.05, 400_000, REFINE_ONLY), (0.02, 100_000))


def _explore(network, zero_load_us: float, fraction: float,
             max_states: int) -> tuple[dict[str, float] | None, float]:
    """(the chain's IOPS on one grid, counted from its completions and read off its busy time, or None where it
    outgrows ``max_states``; seconds taken)."""
    t0 = time.perf_counter()
    solution = attempt_chain(network, zero_load_us, steps=((fraction, max_states),)).solution
    found = None if solution is None else {"counted": solution.counted_throughput_per_us * 1e6,
                                           "busy time": solution.throughput_per_us * 1e6}
    return found, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_design_arguments(ap, seeds=(20261203,), random=400)
    ap.add_argument("--fresh", type=int, nargs="*", default=[], help="model_vs_des.py --hypothesis seeds")
    ap.add_argument("--fresh-configs", type=int, default=300,
                    help="draws per fresh seed and request-size setting (model_vs_des.py --configs)")
    ap.add_argument("--screen-states", type=int, default=100_000, help="the 20 %% grid's budget")
    ap.add_argument("--max-states", type=int, default=400_000, help="the 10 %% grid's budget")
    ap.add_argument("--requests", type=int, default=200_000)
    args = ap.parse_args()
    designs = designs_chosen(args) + [(f"fresh {seed}:{sizes}:{i}", d) for seed in args.fresh
                                      for sizes in ("4", "mixed")
                                      for i, d in enumerate(hypothesis_configs(args.fresh_configs, seed, sizes))]
    rows = []  # (route MVA error, 20 % answer errors or None, 10 % answer errors or None, extra seconds)
    for name, d in designs:
        config = config_from_dict(d)
        network = build_network(config)
        if network.queue_depth not in (3, 4):
            continue
        model = evaluate_network(config, network, effort="fast")  # whatif's answer where the chain outgrows
        zero_load_us = request_alone_us(network)  # as whatif scales the grids
        if model.method != "route-mva" or not attempt_chain(network, zero_load_us, steps=CHECKED_STEPS).outgrown:
            continue
        coarse, coarse_s = _explore(network, zero_load_us, 0.2, args.screen_states)
        fine, fine_s = (None, 0.0) if coarse is None else _explore(network, zero_load_us, 0.1, args.max_states)
        x_des = simulate(network, requests=args.requests, seed=1).iops.value
        errors = [None if x is None else {k: v / x_des - 1 for k, v in x.items()} for x in (coarse, fine)]
        rows.append((model.iops / x_des - 1, *errors, coarse_s + fine_s))
        shown = ["outgrown" if e is None else f"{e['counted']:+.2%} counted, {e['busy time']:+.2%} busy time"
                 for e in errors]
        print(f"{name}: QD {network.queue_depth} route MVA {model.iops / x_des - 1:+.2%}  20 % grid {shown[0]}  "
              f"10 % grid {shown[1]}  (+{coarse_s + fine_s:.1f} s)", flush=True)
    print(f"{len(rows)} configurations at QD 3-4 with the chain over whatif's budget; route MVA misses: "
          f"{sum(abs(r[0]) > IOPS_TOLERANCE for r in rows)}")
    for kind in ("counted", "busy time"):
        for tolerance in (*AGREEMENT_TOLERANCES, float("inf")):
            taken = [(r[0], r[2][kind]) for r in rows if r[1] is not None and r[2] is not None
                     and abs((1 + r[2][kind]) / (1 + r[1][kind]) - 1) <= tolerance]
            fixed = sum(abs(route) > IOPS_TOLERANCE >= abs(chain) for route, chain in taken)
            made = sum(abs(chain) > IOPS_TOLERANCE >= abs(route) for route, chain in taken)
            agree = ("any answer on both grids" if tolerance == float("inf")
                     else f"grids agree within {tolerance:.1%}")
            print(f"{kind}: {agree}: {len(taken)} taken, {fixed} misses fixed, {made} made")
    if rows:
        extra = [r[3] for r in rows]
        print(f"extra whatif time: median {statistics.median(extra):.2f} s, 90th percentile "
              f"{np.percentile(extra, 90):.2f} s, worst {max(extra):.2f} s")


if __name__ == "__main__":
    main()
