"""What each solver and each route-MVA correction contributes: how many model-vs-DES verdicts change without it.

For each design (uniform random designs from ``ssdco.validation.random_designs``, one-transaction and 4/8/16 KiB,
seeds from ``--first-seed``), the DES runs once and the model answers with every solver, then once with each
refiner or schedule solver left out (``solvers=all_but(name)``) and once with each route-MVA correction switched off
(``route_features``). A verdict is "within" when the model is within 3 % IOPS and 10 % mean latency of the DES
(``ssdco.validation.compare``). The table counts, per variant, the designs whose answer changes, and the verdicts
that change (gained: within only with the solver; lost: within only without it)::

    python tools/solver_contributions.py --designs 200 --first-seed 500000 --out reports/accuracy/contributions.json

The JSON is written atomically; ``--render`` prints the Markdown table docs/model.md quotes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MODEL_PAGE = ROOT / "docs" / "model.md"
BEGIN, END = "<!-- contributions:", "<!-- /contributions -->"
SOLVERS_LEFT_OUT = ("markov-chain", "platoon-stage")


def feature_bits() -> dict[str, int]:
    from ssdco.model.queueing import route_mva as rm

    names = ("FORK_JOIN", "MAX_WAIT", "REENTRY", "FLOW", "IDLE_BOUND")
    return {n.lower(): getattr(rm, n) for n in names}


def _within(model_iops: float, model_latency_us: float, des) -> bool:
    from ssdco.validation.compare import IOPS_TOLERANCE, LATENCY_TOLERANCE

    return (abs(model_iops / des.iops.value - 1.0) <= IOPS_TOLERANCE
            and abs(model_latency_us / des.mean_latency_us.value - 1.0) <= LATENCY_TOLERANCE)


def one_design(seed: int, mixed: bool, requests: int) -> dict:
    from benchmarks.accuracy import clear_caches  # each variant timed from cold: the first would fill the caches
    from ssdco.model.queueing.route_mva import ALL_FEATURES
    from ssdco.model.solvers import all_but
    from ssdco.model.whatif import evaluate_network
    from ssdco.network.build import build_network
    from ssdco.sim.des import simulate
    from ssdco.spec import config_from_dict
    from ssdco.validation.random_designs import random_config

    d = random_config(seed, mixed_sizes=mixed)
    config = config_from_dict(d, source=f"<random {seed}>")
    network = build_network(config)
    des = simulate(network, requests=requests, seed=seed)
    variants = {"all": {}}
    variants.update({f"without {n}": {"solvers": all_but(n)} for n in SOLVERS_LEFT_OUT})
    variants.update({f"without {n}": {"route_features": ALL_FEATURES & ~bit} for n, bit in feature_bits().items()})
    row = {"seed": seed, "mixed_sizes": mixed, "queue_depth": d["workload"]["queue_depth"],
           "des_iops": des.iops.value, "des_latency_us": des.mean_latency_us.value, "variants": {}}
    for name, kw in variants.items():
        clear_caches()
        t0 = time.perf_counter()
        r = evaluate_network(config, network, **kw)
        row["variants"][name] = {"method": r.method, "iops": r.iops, "latency_mean_us": r.latency_mean_us,
                                 "within": _within(r.iops, r.latency_mean_us, des),
                                 "seconds": time.perf_counter() - t0}
    return row


def render(rows: list[dict]) -> str:
    base = {(r["seed"], r["mixed_sizes"]): r["variants"]["all"] for r in rows}
    answered: dict[str, int] = {}
    for b in base.values():
        answered[b["method"]] = answered.get(b["method"], 0) + 1
    within = sum(b["within"] for b in base.values())
    out = [f"{len(rows)} designs; with every solver {within} within the DES's tolerances.", "",
           "| left out | answers changed | verdicts gained by it | verdicts lost by it | median time without it |",
           "|---|---:|---:|---:|---:|"]
    names = [n for n in rows[0]["variants"] if n != "all"]
    for name in names:
        changed = gained = lost = 0
        for r in rows:
            a, v = r["variants"]["all"], r["variants"][name]
            if a["iops"] != v["iops"] or a["latency_mean_us"] != v["latency_mean_us"]:
                changed += 1
            gained += a["within"] and not v["within"]
            lost += v["within"] and not a["within"]
        times = sorted(r["variants"][name]["seconds"] for r in rows)
        out.append(f"| {name.removeprefix('without ')} | {changed} | {gained} | {lost} | "
                   f"{times[len(times) // 2] * 1e3:.1f} ms |")
    times = sorted(r["variants"]["all"]["seconds"] for r in rows)
    out += ["", f"Median time with every solver: {times[len(times) // 2] * 1e3:.1f} ms. Answers by solver: "
            + ", ".join(f"{k} {v}" for k, v in sorted(answered.items()))]
    return "\n".join(out)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--designs", type=int, default=200, help="designs per request-size setting (default 200)")
    p.add_argument("--first-seed", type=int, default=500_000)
    p.add_argument("--requests", type=int, default=60_000, help="DES requests per design (default 60,000)")
    p.add_argument("--out", type=Path, default=ROOT / "reports" / "accuracy" / "contributions.json")
    p.add_argument("--render", action="store_true", help="print the table of an existing --out file")
    p.add_argument("--write", action="store_true", help="with --render: put the table into docs/model.md")
    p.add_argument("--check", action="store_true", help="with --render: exit 1 if docs/model.md's table differs")
    args = p.parse_args()
    if args.render:
        table = render(json.loads(args.out.read_text())["designs"])
        if args.write or args.check:
            page = MODEL_PAGE.read_text()
            start = page.index("-->", page.index(BEGIN)) + len("-->")
            end = page.index(END)
            wanted = page[:start] + "\n" + table + "\n" + page[end:]
            if args.check:
                if wanted != page:
                    print("docs/model.md's contribution table is not the rendered JSON: run "
                          "python tools/solver_contributions.py --render --write", file=sys.stderr)
                    return 1
                return 0
            from ssdco.atomic import write_text_atomic

            write_text_atomic(MODEL_PAGE, wanted)
            return 0
        print(table)
        return 0
    from tqdm import tqdm

    rows = []
    todo = [(s, m) for m in (False, True) for s in range(args.first_seed, args.first_seed + args.designs)]
    for seed, mixed in tqdm(todo, desc="designs", unit="design"):
        rows.append(one_design(seed, mixed, args.requests))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".json.tmp")
    tmp.write_text(json.dumps({"command": " ".join(["python tools/solver_contributions.py"] + sys.argv[1:]),
                               "designs": rows}, indent=1))
    tmp.replace(args.out)
    print(render(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
