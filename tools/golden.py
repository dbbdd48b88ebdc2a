"""The refactor's golden file: every design's answer (method, IOPS, mean latency) recorded once, checked after.

A refactor of the model keeps every answer. This tool records, for a fixed set of designs, what
``ssdco.evaluate`` answers at the default effort and with ``effort="fast"`` (``whatif --fast``), and checks
a later tree against the record to a relative tolerance of 1e-9::

    python tools/golden.py record            # writes tools/golden.json (atomically)
    python tools/golden.py record --same-designs   # answers the stored designs again (after a deliberate change)
    python tools/golden.py check             # exit 1 and a list of the designs that moved
    python tools/golden.py check --only presets --limit 40
    python tools/golden.py check --des 200000 --json moved.json   # each moved answer's DES verdict

The designs are stored whole (TOML-shaped dicts), so the check does not depend on how they were drawn:
the PM9A3 presets c01-c10 at queue depths 1-128 and as open workloads, PM9A3 read/write mixes, the named
designs of ``configs/gallery/``, Hypothesis draws of the test strategies (one transaction, 4/8/16 KiB, open)
and uniform random designs (``ssdco.validation.random_designs``).
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GOLDEN = ROOT / "tools" / "golden.json"
RELATIVE_TOLERANCE = 1e-9
QUEUE_DEPTHS = (1, 2, 4, 8, 16, 32, 64, 128)
EFFORTS = {"default": {}, "fast": {"effort": "fast"}}


def _preset_dict(controller: str, workload: dict) -> dict:
    """The PM9A3 file as a dict with controller preset ``controller`` inlined and ``workload`` merged in."""
    raw = tomllib.loads((ROOT / "configs" / "pm9a3-960.toml").read_text())
    raw["controller"] = tomllib.loads((ROOT / "configs" / "controllers" / f"{controller}.toml").read_text())
    raw["controller"].pop("schema_version", None)
    raw.pop("optimizer", None)
    w = dict(raw["workload"])
    if "arrival_iops" in workload:
        w.pop("queue_depth", None)
    w.update(workload)
    raw["workload"] = w
    return raw


def preset_designs() -> list[tuple[str, str, dict]]:
    out = []
    for i in range(1, 11):
        c = f"c{i:02d}"
        for qd in QUEUE_DEPTHS:
            out.append(("presets", f"{c}-qd{qd}", _preset_dict(c, {"queue_depth": qd})))
        out.append(("presets", f"{c}-open-300k", _preset_dict(c, {"arrival_iops": 300_000.0})))
        for rf in (0.7, 0.0):
            out.append(("presets", f"{c}-qd32-read{rf}", _preset_dict(c, {"queue_depth": 32, "read_fraction": rf})))
    return out


def gallery_designs() -> list[tuple[str, str, dict]]:
    """The files of ``configs/gallery/``, named as in the record (dashes as underscores, no ``schema_version``)."""
    out = []
    for path in sorted((ROOT / "configs" / "gallery").glob("*.toml")):
        design = tomllib.loads(path.read_text())
        design.pop("schema_version", None)
        out.append(("gallery", path.stem.replace("-", "_"), design))
    return out


def hypothesis_designs(count: int) -> list[tuple[str, str, dict]]:
    from hypothesis import HealthCheck, Phase, given, settings

    from tests.strategies import config_dicts

    out = []
    sets = (("one-transaction", config_dicts(fixed_size=True)),
            ("sized", config_dicts().filter(lambda d: d["workload"]["request_size_kib"] > 4)),
            ("open", config_dicts(closed=False)))
    for label, strategy in sets:
        drawn: list[dict] = []

        @settings(max_examples=count if label != "open" else count // 2, derandomize=True, database=None,
                  deadline=None, phases=[Phase.generate], suppress_health_check=list(HealthCheck))
        @given(strategy)
        def collect(d):
            drawn.append(copy.deepcopy(d))

        collect()
        out += [("hypothesis", f"{label}-{k}", d) for k, d in enumerate(drawn)]
    return out


def random_designs(count: int) -> list[tuple[str, str, dict]]:
    from ssdco.validation.random_designs import random_config

    return [("random", f"{'sized' if m else 'fixed'}-{s}", random_config(s, mixed_sizes=m))
            for m in (False, True) for s in range(count)]


def all_designs(count: int) -> list[tuple[str, str, dict]]:
    return preset_designs() + gallery_designs() + hypothesis_designs(count) + random_designs(count // 2)


def answer(design: dict, effort: str, without: tuple[str, ...] = ()) -> dict:
    """The answer to ``design`` at ``effort``, with the solvers and route-MVA corrections named in ``without``
    left out (an experiment: what removing them would move)."""
    from ssdco.model.queueing import route_mva
    from ssdco.model.solvers import all_but
    from ssdco.model.whatif import evaluate_network
    from ssdco.network.build import build_network
    from ssdco.spec import config_from_dict

    config = config_from_dict(design, source="<golden>", base_dir=ROOT / "configs")
    features = route_mva.ALL_FEATURES
    bits = {n: getattr(route_mva, n.upper().replace("-", "_"), None) for n in without}
    corrections = {n: b for n, b in bits.items()  # a correction is one bit of ALL_FEATURES (route_mva's FLOW, ...)
                   if isinstance(b, int) and b > 0 and b & (b - 1) == 0 and b & route_mva.ALL_FEATURES}
    solvers = [n for n in without if n not in corrections]  # all_but refuses a name that is no solver
    for bit in corrections.values():
        features &= ~bit
    r = evaluate_network(config, build_network(config), **EFFORTS[effort],
                         solvers=all_but(*solvers) if solvers else None, route_features=features)
    return {"method": r.method, "iops": r.iops, "latency_mean_us": r.latency_mean_us,
            "latency_p99_us": r.latency_p99_us, "bottleneck": r.bottleneck, "stable": r.stable}


def _same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    if math.isinf(a) or math.isinf(b) or math.isnan(a) or math.isnan(b):
        return str(a) == str(b)
    return abs(a - b) <= RELATIVE_TOLERANCE * max(abs(a), abs(b), 1e-300)


def record(count: int, same_designs: bool = False) -> None:
    rows = []
    if same_designs:
        designs = [(r["group"], r["name"], r["design"]) for r in json.loads(GOLDEN.read_text())["designs"]]
    else:
        designs = all_designs(count)
    start = time.perf_counter()
    for k, (group, name, d) in enumerate(designs):
        row = {"group": group, "name": name, "design": d}
        for effort in EFFORTS:
            row[effort] = answer(d, effort)
        rows.append(row)
        if k % 25 == 0:
            print(f"{k}/{len(designs)} {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    tmp = GOLDEN.with_suffix(".json.tmp")
    tmp.write_text(json.dumps({"relative_tolerance": RELATIVE_TOLERANCE, "designs": rows}, indent=1))
    tmp.replace(GOLDEN)
    print(f"recorded {len(rows)} designs x {len(EFFORTS)} efforts into {GOLDEN.relative_to(ROOT)}")


def check(only: str | None, limit: int | None, efforts: list[str], des_requests: int = 0,
          json_out: Path | None = None, without: tuple[str, ...] = ()) -> int:
    rows = json.loads(GOLDEN.read_text())["designs"]
    if only:
        rows = [r for r in rows if r["group"] == only]
    rows = rows[:limit] if limit else rows
    moved = []
    for row in rows:
        for effort in efforts:
            want, got = row[effort], answer(row["design"], effort, without)
            if (want["method"] != got["method"] or want["bottleneck"] != got["bottleneck"]
                    or not all(_same(want[k], got[k]) for k in ("iops", "latency_mean_us", "latency_p99_us"))):
                moved.append((row["group"], row["name"], effort, want, got))
    verdicts = _des_verdicts(moved, des_requests) if des_requests else {}
    report = []
    for group, name, effort, want, got in moved:
        line = (f"MOVED {group}/{name} [{effort}]: {want['method']} {want['iops']:.9g} IOPS "
                f"{want['latency_mean_us']:.9g} us -> {got['method']} {got['iops']:.9g} IOPS "
                f"{got['latency_mean_us']:.9g} us")
        verdict = verdicts.get((group, name))
        if verdict:
            line += (f"; DES {verdict['des_iops']:.9g} IOPS {verdict['des_latency_us']:.9g} us: "
                     f"{_verdict_word(want, verdict)} -> {_verdict_word(got, verdict)}")
        print(line)
        report.append({"group": group, "name": name, "effort": effort, "before": want, "after": got,
                       "des": verdict})
    print(f"{len(rows) * len(efforts) - len(moved)} of {len(rows) * len(efforts)} answers unchanged")
    if json_out:
        from ssdco.atomic import write_text_atomic

        write_text_atomic(json_out, json.dumps({"moved": report}, indent=1))
    return 1 if moved else 0


def _des_verdicts(moved: list, requests: int) -> dict:
    """The DES's IOPS and mean latency (seed 0, ``requests`` requests) of each moved design, by (group, name)."""
    from ssdco.network.build import build_network
    from ssdco.sim.des import simulate
    from ssdco.spec import config_from_dict

    rows = {(r["group"], r["name"]): r["design"] for r in json.loads(GOLDEN.read_text())["designs"]}
    out = {}
    for group, name, *_ in moved:
        if (group, name) in out:
            continue
        config = config_from_dict(rows[(group, name)], source="<golden>", base_dir=ROOT / "configs")
        des = simulate(build_network(config), requests=requests, seed=0)
        out[(group, name)] = {"des_iops": des.iops.value, "des_latency_us": des.mean_latency_us.value,
                              "requests": requests}
    return out


def _verdict_word(answer: dict, des: dict) -> str:
    """AGREE when ``answer`` is within the validation's tolerances of the DES (3 % IOPS, 10 % mean latency)."""
    from ssdco.validation.compare import IOPS_TOLERANCE, LATENCY_TOLERANCE

    ok = (abs(answer["iops"] / des["des_iops"] - 1.0) <= IOPS_TOLERANCE
          and abs(answer["latency_mean_us"] / des["des_latency_us"] - 1.0) <= LATENCY_TOLERANCE)
    return "AGREE" if ok else "DIFFER"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("record")
    r.add_argument("--count", type=int, default=100, help="Hypothesis draws per closed set (default 100)")
    r.add_argument("--same-designs", action="store_true",
                   help="answer the designs of the existing record again instead of drawing them")
    c = sub.add_parser("check")
    c.add_argument("--only", choices=("presets", "gallery", "hypothesis", "random"))
    c.add_argument("--limit", type=int)
    c.add_argument("--effort", action="append", choices=tuple(EFFORTS))
    c.add_argument("--des", type=int, default=0, metavar="REQUESTS",
                   help="run the DES (seed 0, this many requests) on each moved design and give its verdict")
    c.add_argument("--json", type=Path, help="write the moved answers (and their DES verdicts) to this file")
    c.add_argument("--without", action="append", default=[], metavar="NAME",
                   help="leave out this solver (e.g. platoon-stage) or route-MVA correction (e.g. flow)")
    args = p.parse_args()
    if args.command == "record":
        record(args.count, args.same_designs)
        return 0
    try:
        return check(args.only, args.limit, args.effort or list(EFFORTS), args.des, args.json, tuple(args.without))
    except ValueError as e:  # an unknown --without name
        print(f"golden.py: --without: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
