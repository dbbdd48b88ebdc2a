"""How fast the stationary distributions of the Markov chain of the requests' draws are solved
(``ssdco/model/queueing/schedule_chain.py``, ``_stationary``), against the solver as it was at ``REFERENCE_COMMIT``
(power iteration for up to 20,000 steps, then a sparse LU), side by side in one run.

The chains are the ones ``whatif`` solves: for every closed deterministic configuration at queue depth 2-5 of
``schedule_chain_vs_des.py``'s set, ``whatif`` runs and every closed class it solves with at least
``--min-states`` states is kept. ``--slow-case`` adds the class that prompted the change: uniform design 373
at QD 3 explored on the 10 % grid with up to 1,000,000 states (381,981 states in its closed class; the
reference solver takes about 5 minutes on it). Both solvers then solve every kept class; the script prints,
per class where either solver left power iteration, the states, both times, which fallback the current one
used, and the L1 distance between the two answers; then the totals and their ratio.

The reference is read from git (``git show REFERENCE_COMMIT:ssdco/model/queueing/schedule_chain.py``, the function
and its two constants only), so run it from a clone: ``.venv/bin/python benchmarks/schedule_chain_solve.py
[--seeds 20261123 20261125] [--draws 150] [--random 200] [--min-states 15000] [--slow-case]`` (about 6 minutes
with the defaults on one core; 12 more with ``--slow-case``). Prints measurements; asserts nothing.
"""

import argparse
import ast
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import splu

from ssdco.model.queueing import schedule_chain
from ssdco.model.queueing.route_mva import request_alone_us
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import build_network
from ssdco.spec import config_from_dict
from ssdco.validation.random_designs import random_config

sys.path.insert(0, str(Path(__file__).resolve().parent))
from schedule_chain_vs_des import add_design_arguments, designs_chosen  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
REFERENCE_COMMIT = "3e90533"  # the last commit whose _stationary fell back from power iteration to LU directly
SLOW_CASE_SEED, SLOW_CASE_QUEUE_DEPTH = 373, 3


def reference_stationary():
    """``_stationary`` as of ``REFERENCE_COMMIT`` with its constants, compiled from git into a namespace of its
    own (the rest of that module is not needed)."""
    source = subprocess.run(["git", "show", f"{REFERENCE_COMMIT}:ssdco/model/queueing/schedule_chain.py"], cwd=ROOT,
                            check=True, capture_output=True, text=True).stdout
    wanted = {"POWER_ITERATIONS", "POWER_TOLERANCE", "_stationary"}
    nodes = [n for n in ast.parse(source).body
             if (isinstance(n, ast.FunctionDef) and n.name in wanted)
             or (isinstance(n, ast.Assign) and any(getattr(t, "id", None) in wanted for t in n.targets))]
    namespace = {"np": np, "sparse": sparse, "splu": splu}
    exec(compile(ast.Module(body=nodes, type_ignores=[]), f"{REFERENCE_COMMIT}:schedule_chain.py", "exec"),
         namespace)
    return namespace["_stationary"]


def whatif_classes(designs, min_states: int, max_qd: int) -> list[tuple[str, sparse.csr_matrix]]:
    """(configuration name, matrix) of every closed class of at least ``min_states`` states that ``whatif``
    solves on ``designs`` at queue depth 2 to ``max_qd``, caught on its way into ``_stationary``."""
    kept, current = [], [""]
    solve = schedule_chain._stationary

    def keep(Q):
        if Q.shape[0] >= min_states:
            kept.append((current[0], Q.tocsr(copy=True)))
        return solve(Q)

    schedule_chain._stationary = keep
    try:
        for name, d in designs:
            config = config_from_dict(d)
            network = build_network(config)
            if network.queue_depth is not None and 2 <= network.queue_depth <= max_qd:
                current[0] = name
                evaluate_network(config, network)
    finally:
        schedule_chain._stationary = solve
    return kept


def slow_case_class() -> tuple[str, sparse.csr_matrix]:
    """The closed class of uniform design ``SLOW_CASE_SEED`` at QD ``SLOW_CASE_QUEUE_DEPTH`` on the 10 % grid."""
    d = random_config(SLOW_CASE_SEED, mixed_sizes=True)
    d["workload"]["queue_depth"] = SLOW_CASE_QUEUE_DEPTH
    network = build_network(config_from_dict(d))
    caught = []
    solve = schedule_chain._stationary

    def catch(Q):
        caught.append(Q.tocsr(copy=True))
        raise StopIteration

    schedule_chain._stationary = catch
    try:
        schedule_chain.attempt_chain(network, request_alone_us(network), steps=((0.1, 1_000_000),))
    except StopIteration:
        pass
    finally:
        schedule_chain._stationary = solve
    return f"random {SLOW_CASE_SEED} at QD {SLOW_CASE_QUEUE_DEPTH}", caught[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_design_arguments(ap)
    ap.add_argument("--min-states", type=int, default=15_000)
    ap.add_argument("--slow-case", action="store_true")
    args = ap.parse_args()
    reference = reference_stationary()
    classes = whatif_classes(designs_chosen(args), args.min_states, args.max_queue_depth)
    if args.slow_case:
        classes.append(slow_case_class())
    print(f"{len(classes)} closed classes of at least {args.min_states:,} states\n")
    print(f"{'configuration':>28s}  {'states':>8s}  {'reference s':>11s}  {'current s':>9s}  "
          f"{'current solver':>16s}  L1 distance")
    totals = np.zeros(2)
    used = {"power": 0, "LU": 0, "unsolved": 0}  # and "ILU-GMRES <drop tolerance>", one per ILU_STEPS step used
    for name, Q in classes:
        seen = []
        gmres_, splu_ = schedule_chain._ilu_gmres, schedule_chain.splu

        def gmres_spy(*a, **k):
            seen.append(f"ILU-GMRES {a[4]:g}")  # its drop tolerance (ILU_STEPS)
            return gmres_(*a, **k)

        def splu_spy(*a, **k):
            seen.append("LU")
            return splu_(*a, **k)

        t0 = time.perf_counter()
        pi_reference = reference(Q)
        t1 = time.perf_counter()
        schedule_chain._ilu_gmres, schedule_chain.splu = gmres_spy, splu_spy
        try:
            pi_current = schedule_chain._stationary(Q)
        finally:
            schedule_chain._ilu_gmres, schedule_chain.splu = gmres_, splu_
        t2 = time.perf_counter()
        totals += (t1 - t0, t2 - t1)
        solver = "unsolved" if pi_current is None else (seen[-1] if seen else "power")
        used[solver] = used.get(solver, 0) + 1
        if seen or t1 - t0 > 1.0:
            distance = "-" if pi_current is None else f"{np.abs(pi_reference - pi_current).sum():.1e}"
            print(f"{name:>28s}  {Q.shape[0]:8d}  {t1 - t0:11.2f}  {t2 - t1:9.2f}  {solver:>16s}  {distance}",
                  flush=True)
    print("\nsolved by " + ", ".join(f"{solver} {count}" for solver, count in used.items())
          + " (unsolved: beyond LU_MAX_STATES after the incomplete LUs missed)")
    print(f"total: reference {totals[0]:.1f} s, current {totals[1]:.1f} s, ratio {totals[0] / totals[1]:.2f}x")


if __name__ == "__main__":
    main()
