"""The Markov chain's lumping grids (``ssdco/model/queueing/schedule_chain.py``): what ``schedule_chain`` explores,
against exploring every grid step on its own, on the configurations of ``schedule_chain_vs_des.py``.

``schedule_chain`` tries its steps (``default_grid_steps``: ``SHALLOW_GRID_STEPS`` at queue depth 2, ``GRID_STEPS``
at 3-5, ``HIGH_GRID_STEPS`` beyond) coarse to fine and
skips a step no coarser than one that outgrew as large a state budget, and after a fit a finer step whose
budget is below the states the fit needed: it assumes a finer grid never fits where a coarser one outgrew the
same budget. A step marked ``REFINE_ONLY`` (the 5 % grid's 400,000 states at queue depths 3-5) it tries only
after a coarser grid fit within a ``REFINE_GROWTH``-th of its budget, by design. This script explores every step
of every closed deterministic configuration at queue depth 2-5 and prints

* how often that assumption fails (a finer grid fits after a coarser one outgrew as large a budget: the skip
  would change the answer there), how often a refine-only step fits where no coarser grid let it be tried (the
  answers the design gives up), and whether the grid ``schedule_chain`` takes is the finest that fits among the
  steps its policy may take;
* the time of the explorations ``schedule_chain`` makes against the time of exploring every step (the cost
  the skip saves), median, 95th percentile and worst, and the ratio of the totals, measured in this one run.

Run: ``.venv/bin/python benchmarks/schedule_chain_steps.py [--seeds 20261123 20261125] [--draws 150]
[--random 200] [--first-seed 0]`` (about 15 minutes with the defaults on one core). Prints measurements;
asserts nothing.
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from ssdco.model.queueing import schedule_chain as sc
from ssdco.model.queueing.route_mva import request_alone_us
from ssdco.network.build import build_network
from ssdco.spec import config_from_dict

sys.path.insert(0, str(Path(__file__).resolve().parent))
from schedule_chain_vs_des import add_design_arguments, designs_chosen  # noqa: E402


def _explore_each(network) -> list[tuple[float, int, int, float, int, bool]] | None:
    """(grid fraction, most states, status, seconds, states found where it fits, refine-only) of every step
    explored on its own; None out of scope."""
    route = sc._compile(network)
    if route is None:
        return None
    zero = request_alone_us(network)
    return [(fraction, max_states, *_explore_step(route, zero, fraction, max_states), sc.REFINE_ONLY in marks)
            for fraction, max_states, *marks in sc.default_grid_steps(network.queue_depth)]


def _explore_step(route, zero_load_us: float, fraction: float, max_states: int) -> tuple[int, float, int]:
    """(status, seconds, states found where it fits) of the compiled chain ``route`` explored on one grid (a
    fraction of ``zero_load_us``)."""
    tic = time.perf_counter()
    found = sc._explore(*route.ints, route.service, route.delay, route.prob, route.breakpoints,
                        route.size_probs, route.scalars, route.read_fraction, fraction * zero_load_us, max_states,
                        sc.MAX_SEGMENT_EVENTS)
    return int(found[0]), time.perf_counter() - tic, sc.explored_states(found)


def _taken(steps, skip: bool, network) -> tuple[float | None, float]:
    """The grid fraction the step policy ends with and the seconds of the explorations it makes, replayed on
    the recorded explorations by ``schedule_chain.walk_grid_steps`` (``skip``: its rule; without it, every step
    is explored until one fits, then finer ones while they fit). A grid the policy adds where the finest fit
    closed on fewer states (``COLLAPSE_REFINE_FACTOR``) is explored on ``network`` when asked for."""
    recorded = {(fraction, max_states): (status, dt, states) for fraction, max_states, status, dt, states, _ in steps}
    seconds = 0.0

    def explore(fraction: float, max_states: int):
        nonlocal seconds
        if (fraction, max_states) not in recorded:
            recorded[(fraction, max_states)] = _explore_step(sc._compile(network), request_alone_us(network),
                                                             fraction, max_states)
        status, dt, states = recorded[(fraction, max_states)]
        seconds += dt
        return status, states

    policy = [(fraction, max_states) + ((sc.REFINE_ONLY,) if refine else ())
              for fraction, max_states, _, _, _, refine in steps]
    walk = sc.walk_grid_steps(policy, explore, skip=skip, states_of=lambda states: states)  # as attempt_chain's
    return (None if walk.aborted else walk.fraction), seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_design_arguments(ap)
    args = ap.parse_args()
    violations, given_up, not_finest, rows = 0, 0, 0, []
    for name, d in designs_chosen(args):
        network = build_network(config_from_dict(d))
        if network.queue_depth is None or not 2 <= network.queue_depth <= args.max_queue_depth:
            continue
        steps = _explore_each(network)
        if steps is None:
            continue
        ok = [status == sc.OK for _, _, status, *_ in steps]
        # the skip's assumption: no finer grid fits after a coarser one outgrew as large a budget
        if any(steps[i][2] == sc.TOO_MANY_STATES and ok[j] and steps[j][0] < steps[i][0] and steps[j][1] <= steps[i][1]
               for i in range(len(steps)) for j in range(i + 1, len(steps))):
            violations += 1
            print(f"  {name}: a finer grid fits after a coarser one outgrew as large a budget: {steps}")
        # a coarser fit that lets step j be tried (a refine-only step: one within a REFINE_GROWTH-th of its budget)
        coarser_fit = [any(ok[i] and steps[i][0] > steps[j][0]
                           and (not steps[j][5] or steps[i][4] * sc.REFINE_GROWTH <= steps[j][1]) for i in range(j))
                       for j in range(len(steps))]
        if any(ok[j] and steps[j][5] and not coarser_fit[j] for j in range(len(steps))):
            given_up += 1
        fitting = [step[0] for j, step in enumerate(steps) if ok[j] and (coarser_fit[j] or not step[5])]
        taken, seconds = _taken(steps, skip=True, network=network)
        if fitting and (taken is None or taken > min(fitting)):  # finer: the collapse refinement's grid
            not_finest += 1
        rows.append((seconds, _taken(steps, skip=False, network=network)[1], sum(step[3] for step in steps)))
    t = np.array(rows)
    print(f"{len(t)} configurations in the chain's scope; a finer grid fit after a coarser one outgrew as large a "
          f"budget: {violations}; a refine-only step fit where no coarser grid let it be tried: {given_up}; "
          f"the grid taken is not the finest that fits: {not_finest}")
    for label, col in (("schedule_chain (skips)", 0), ("without the skip", 1), ("every step", 2)):
        x = t[:, col]
        print(f"{label:>24s}: median {np.median(x):.2f} s, 95th percentile {np.quantile(x, 0.95):.2f} s, "
              f"worst {x.max():.2f} s, total {x.sum():.0f} s")
    print(f"total time without the skip / with it: {t[:, 1].sum() / t[:, 0].sum():.2f}")


if __name__ == "__main__":
    main()
