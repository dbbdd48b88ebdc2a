"""How fast the Markov chain of the requests' draws is explored (``queueing/schedule_chain.py``), against the
same code as it was before its kernels dropped numba's reference counting (commit ``REFERENCE_COMMIT``), side by
side in one run.

For every closed deterministic configuration at queue depth 2-5 of ``schedule_chain_vs_des.py``'s set, both
implementations explore the chain on the 10 % grid with at most ``--max-states`` states. The script checks
that both explore the same chain (status, transitions, probabilities and per-state figures, bit for bit) and
prints per configuration the states and both times, then the totals, the states per second and the ratio.

The reference is read from git (``git show REFERENCE_COMMIT:ssdco/model/queueing/schedule_chain.py``), so run it from a
clone: ``.venv/bin/python benchmarks/schedule_chain_speed.py [--seeds 20261123] [--draws 40] [--random 40]
[--max-states 200000]`` (about 5 minutes with the defaults on one core, the first run compiling both). Prints
measurements; asserts nothing but that the chains agree.
"""

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from ssdco.model.queueing import schedule_chain as current
from ssdco.model.queueing.route_mva import request_alone_us
from ssdco.network.build import build_network
from ssdco.spec import config_from_dict

sys.path.insert(0, str(Path(__file__).resolve().parent))
from schedule_chain_vs_des import add_design_arguments, designs_chosen  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
REFERENCE_COMMIT = "31a01d4"  # the last commit with every kernel reference-counted
GRID = 0.1


def reference_module(workdir: Path):
    """``schedule_chain`` as of ``REFERENCE_COMMIT``, imported as a module of the ``ssdco.model`` package (its
    relative imports resolve there) from a file in ``workdir``."""
    source = subprocess.run(["git", "show", f"{REFERENCE_COMMIT}:ssdco/model/queueing/schedule_chain.py"], cwd=ROOT,
                            check=True, capture_output=True, text=True).stdout
    path = workdir / "schedule_chain_reference.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("ssdco.model.schedule_chain_reference", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def explore(module, network, zero_load_us: float, max_states: int):
    """(seconds, what ``_explore`` returned) for ``module``'s compiled route of ``network``."""
    route = module._compile(network)
    args = (*route.ints, route.service, route.delay, route.prob, route.breakpoints, route.size_probs,
            route.scalars, route.read_fraction, GRID * zero_load_us, max_states, module.MAX_SEGMENT_EVENTS)
    t0 = time.perf_counter()
    found = module._explore(*args)
    return time.perf_counter() - t0, found


def same(a, b) -> bool:
    """Whether two explorations returned the same status and arrays, bit for bit."""
    return a[0] == b[0] and all(np.array_equal(x, y) for x, y in zip(a[1:], b[1:]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_design_arguments(ap, seeds=(20261123,), draws=40, random=40)
    ap.add_argument("--max-states", type=int, default=200_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        reference = reference_module(Path(tmp))
        rows = []
        for name, d in designs_chosen(args):
            network = build_network(config_from_dict(d))
            if network.queue_depth is None or not 2 <= network.queue_depth <= args.max_queue_depth:
                continue
            if current._compile(network) is None:
                continue
            zero = request_alone_us(network)
            t_ref, found_ref = explore(reference, network, zero, args.max_states)
            t_now, found_now = explore(current, network, zero, args.max_states)
            if not same(found_ref, found_now):
                sys.exit(f"{name}: the two implementations explored different chains")
            states = len(found_now[6]) if found_now[0] == current.OK else args.max_states
            rows.append((name, states, t_ref, t_now))
            print(f"{name:>26s}  QD {network.queue_depth}  {states:7d} states  reference {t_ref:7.3f} s  "
                  f"now {t_now:7.3f} s  {t_ref / max(t_now, 1e-9):5.1f}x", flush=True)
    # the first exploration of each compiles (or loads) the kernels: left out of the totals
    timed = rows[1:]
    states = sum(r[1] for r in timed)
    t_ref = sum(r[2] for r in timed)
    t_now = sum(r[3] for r in timed)
    print(f"{len(timed)} explorations (the first, compiling, left out), {states:,} states, the same chains: "
          f"reference {t_ref:.1f} s ({states / t_ref:,.0f} states/s), now {t_now:.1f} s "
          f"({states / t_now:,.0f} states/s), {t_ref / t_now:.2f}x")


if __name__ == "__main__":
    main()
