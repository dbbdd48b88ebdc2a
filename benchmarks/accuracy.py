"""The model-vs-DES accuracy campaign: draw designs, run the analytic model and the DES on each, keep the figures in
one JSON file, and render docs/accuracy.md from it.

    python benchmarks/accuracy.py run [--out reports/accuracy/campaign.json] [--first-seed S] [--uniform N]
                                      [--open N] [--buffered N] [--core-runs N] [--core-pairs N] [--no-fixed]
                                      [--requests N] [--open-requests N] [--fast] [--confirm N] [--spread SCV]
                                      [--hypothesis SEED ...] [--sizes 4|mixed] [--draws N] [--limit N]
    python benchmarks/accuracy.py render [--json reports/accuracy/campaign.json] [--out docs/accuracy.md] [--check]

``run`` draws the designs (``ssdco.validation.random_designs`` and the PM9A3 presets; the groups are described in
``GROUPS`` and in the JSON it writes), and for each runs ``whatif``'s model (``evaluate_network`` at the default
effort, timed; with ``--fast`` also at ``effort="fast"``) and one DES run (``simulate``, the design's seed), then
records the solver that answered, the bottleneck, both answers, their relative errors (model / DES - 1), the verdict
``ssdco validate`` gives (``ssdco.validation.compare.Validation``) and the caveats the model gave. A design is
*within* when its IOPS are within ``IOPS_TOLERANCE`` (3 %) and its mean latency within ``LATENCY_TOLERANCE`` (10 %)
of the DES's. ``--confirm N`` runs the DES again on every miss, N requests from another seed, and ``--spread SCV``
once more with every service time of that squared coefficient of variation (``validate --timing-spread``): a miss
that the longer run removes is the short run's noise or a pattern it had not yet left; one that the spread removes
rests on exactly constant timings. ``--hypothesis SEED ...`` runs instead the acceptance test's Hypothesis draws
(``tests/strategies.py``, ``--sizes 4``: one transaction per request, ``mixed``: 8-16 KiB), seeded with each SEED,
as group ``hypothesis`` (each design's ``draw`` is its index among that seed's draws), into
``reports/accuracy/hypothesis.json`` unless ``--out`` says otherwise: a fresh set like the test's, to see how far
its pinned draws generalise.

``render`` reads the JSON and writes docs/accuracy.md (atomically); ``--check`` writes nothing and exits 1 where the
page differs from what the JSON renders. The page is generated: edit this script or rerun the campaign, never the
page.
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's ssdco, not another one installed in the environment

DEFAULT_JSON = ROOT / "reports" / "accuracy" / "campaign.json"
DEFAULT_PAGE = ROOT / "docs" / "accuracy.md"
PM9A3 = ROOT / "configs" / "pm9a3-960.toml"
PRESETS = tuple(f"c{i:02d}" for i in range(1, 11))
PRESET_READ_DEPTHS = (1, 4, 32, 128)  # 4 KiB random reads, as the preset
PRESET_MIXED_DEPTHS = (4, 32)  # 70 % reads
BUFFER_KIB = (0, 16, 256, 2048)  # write-through, 4 and 64 slots of 4 KiB, the preset's 512
BUFFER_READ_FRACTIONS = (0.0, 0.7)
BUFFER_SIZES_KIB = (4, 16)
BUFFER_DEPTHS = (1, 4, 32)
OPEN_LOADS = (0.3, 0.5, 0.7, 0.85)
CORE_GROUP_PATTERNS = (("translate",), ("cache_lookup", "translate"), ("parse", "translate"))
CORE_GROUP_LOADS = (0.5, 0.8)
DEPTH_BANDS = (("1", 1, 1), ("2-4", 2, 4), ("5-16", 5, 16), ("17-64", 17, 64), (">64", 65, 10**9))
DRAWN_DEPTH_BANDS = ((1, 1), (2, 4), (5, 16), (17, 64), (65, 128))  # a band at random, then a depth in it
KINDS = {"cores": "core", "accel": "accelerator", "die": "die", "channel": "channel", "link": "link"}
CONFIRM_SEED_OFFSET = 1_000_000
QUEUE_DEPTH_STREAM = 11  # the second word of the generator that draws a uniform design's queue depth
BUFFER_STREAM = 12  # ... and of the one that draws a buffered design's buffer, mix and queue depth

GROUPS = {
    "uniform-4k": "uniformly sampled designs of `random_config` (`ssdco/validation/random_designs.py`: NAND "
                  "geometry and timings, accelerated modules and core groups over the ranges of the test suite's "
                  "strategies), 4 KiB requests (one transaction), read fraction 1, 0.7 or 0; closed, the queue depth "
                  "drawn as a band at random (1, 2-4, 5-16, 17-64, 65-128) and a depth uniformly within it",
    "uniform-mixed": "the same with 4, 8 or 16 KiB requests (one to four transactions, forked and joined)",
    "open": "a uniform design (every other one with 4/8/16 KiB requests) as an open workload (`open_at`): Poisson "
            "arrivals at 30, 50, 70 or 85 % of the model's capacity bound",
    "pm9a3": "the PM9A3 preset (`configs/pm9a3-960.toml`) with each controller c01-c10: 4 KiB random reads at queue "
             "depth 1, 4, 32 and 128, and 70 % reads (FTL effects, the 2 MiB write buffer) at queue depth 4 and 32",
    "pm9a3-buffer": "the PM9A3 preset with controller c01 over write buffers of 0, 16, 256 and 2,048 KiB, read "
                    "fraction 0 and 0.7, 4 and 16 KiB requests, queue depth 1, 4 and 32",
    "uniform-buffered": "a uniform design with 4/8/16 KiB requests given a write buffer of 16-1,024 KiB (4-256 "
                        "slots of 4 KiB), read fraction 0, 0.3 or 0.7 and queue depth 1, 2, 4, 8, 16 or 32",
    "open-core-group": "`core_group_config` as an open workload at 50 and 80 % of capacity: 16 KiB reads whose only "
                       "queue is one group of 1-3 slow cores running translate, cache lookup and translate, or parse "
                       "and translate (a core group visited in runs or by batches)",
    "core-run": "`core_run_config`: a bottleneck core group of one or two cores runs 2-4 consecutive modules of "
                "the route, at 0.8-3 times the knee",
    "core-pair": "`core_pair_config`: two nearly equally busy single-core groups split the modules between them",
    "hypothesis": "the acceptance test's Hypothesis draws (`tests/strategies.py`), which lean towards extreme values",
}

# The caveats' opening words (``ssdco/model/caveats.py``) and the short names the page gives them.
CAVEAT_NAMES = (
    ("the write buffer holds only", "a write buffer of few slots"),
    ("IOPS are held by the write buffer", "writes held by the buffer at low queue depth"),
    ("reads and programs mix and the bottleneck", "reads and programs mixing behind a core group at the knee"),
    ("reads and programs mix and the model has", "reads and programs mixing, at capacity under three knees"),
    ("the Markov chain of the requests' draws fit", "the Markov chain fits but is not solved"),
    ("the Markov chain of the requests' draws outgrew", "the Markov chain outgrows its budget"),
    ("the Markov chain of the requests' draws was skipped", "the Markov chain skipped (--fast)"),
    ("queue depth 2 with requests of several", "queue depth 2, several transactions"),
    ("queue depth", "queue depth 2-4, a busy core group or channel"),
    ("the regularity of the flow", "the flow correction moves the answer 5 % or more"),
    ("with deterministic service the requests settle", "several long-run patterns"),
    ("from a standing start", "a long-held start pattern"),
)


def caveat_name(sentence: str) -> str:
    """The short name of a caveat sentence (``CAVEAT_NAMES``; else its first six words)."""
    for opening, name in CAVEAT_NAMES:
        if sentence.startswith(opening):
            return name
    return " ".join(sentence.split()[:6])


def _num(x: float | None, digits: int = 5) -> float | None:
    """``x`` to ``digits`` significant digits; None for None, NaN or an infinity (JSON has none)."""
    if x is None or not math.isfinite(x):
        return None
    return float(f"{x:.{digits}g}")


# ---------------------------------------------------------------------------------------------------------- run

def clear_caches() -> None:
    """Empty every ``functools`` memo of the package, so that each timed evaluation starts cold."""
    for name, module in list(sys.modules.items()):
        if name.startswith("ssdco."):
            for value in vars(module).values():
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()


def drawn_queue_depth(seed: int) -> int:
    """A uniform design's queue depth: one of ``DRAWN_DEPTH_BANDS`` at random, then a depth uniformly within it."""
    import numpy as np

    rng = np.random.default_rng((seed, QUEUE_DEPTH_STREAM))
    lo, hi = DRAWN_DEPTH_BANDS[int(rng.integers(len(DRAWN_DEPTH_BANDS)))]
    return int(rng.integers(lo, hi + 1))


def uniform_design(seed: int, mixed: bool) -> dict:
    from ssdco.validation.random_designs import random_config

    d = random_config(seed, mixed_sizes=mixed)
    d["workload"]["queue_depth"] = drawn_queue_depth(seed)
    return d


def buffered_design(seed: int) -> dict:
    """A uniform design (4/8/16 KiB) with a read/write mix, a queue depth and a write buffer drawn by its seed."""
    import numpy as np

    d = uniform_design(seed, True)
    r = np.random.default_rng((seed, BUFFER_STREAM))
    d["workload"]["read_fraction"] = float(r.choice([0.0, 0.3, 0.7]))
    d["workload"]["queue_depth"] = int(r.choice([1, 2, 4, 8, 16, 32]))
    d["nand"].update(blocks_per_plane=1000, pages_per_block=256, page_size_kib=16, over_provisioning=0.07)
    n = d["nand"]
    raw_gb = (n["channels"] * n["ways_per_channel"] * n["dies_per_chip"] * n["planes_per_die"] * 1000 * 256 * 16
              * 1024 / 1e9)
    # 64 GB, or what the geometry holds after its over-provisioning (the loader refuses more than the raw NAND)
    d["ftl"] = {"write_buffer_kib": int(r.choice([16, 64, 256, 1024])),
                "capacity_gb": min(64.0, raw_gb / 1.07)}
    return d


def from_dict(d: dict | None, source: str):
    """A builder of the configuration of dict ``d`` (None: the draw gave no design)."""
    def build():
        from ssdco.spec import config_from_dict

        return None if d is None else config_from_dict(d, source=source)
    return build


def preset(controller: str, overrides: list[str]):
    def build():
        from ssdco import load_config

        return load_config(PM9A3, controller=controller, overrides=overrides)
    return build


def lazily(make, source: str):
    """A builder that draws its dict (``make()``, which may evaluate the model) only when run."""
    def build():
        return from_dict(make(), source)()
    return build


def plan(args: argparse.Namespace) -> list[dict]:
    """The campaign's designs, in order: each a dict of ``group``, ``seed`` (the design's and its DES run's),
    the labels the page groups by, and ``build`` (a function returning the Config, or None)."""
    from ssdco.validation import random_designs as rd

    s0 = args.first_seed
    items = []
    for mixed, group in ((False, "uniform-4k"), (True, "uniform-mixed")):
        items += [{"group": group, "seed": s, "build": from_dict(uniform_design(s, mixed), f"<{group} {s}>")}
                  for s in range(s0, s0 + args.uniform)]
    for i, s in enumerate(range(s0, s0 + args.open)):
        load = OPEN_LOADS[i % len(OPEN_LOADS)]
        items.append({"group": "open", "seed": s, "load": load,
                      "build": lazily(lambda s=s, i=i, load=load: rd.open_at(rd.random_config(s, i % 2 == 1), load),
                                      f"<open {s}>")})
    items += [{"group": "uniform-buffered", "seed": s, "build": from_dict(buffered_design(s), f"<buffered {s}>")}
              for s in range(s0, s0 + args.buffered)]
    if not args.no_fixed:
        for cores in (1, 2, 3):
            for modules in CORE_GROUP_PATTERNS:
                items += [{"group": "open-core-group", "seed": s0, "load": load,
                           "build": lazily(lambda c=cores, m=modules, load=load: rd.open_at(
                               rd.core_group_config(c, m), load), f"<open core group {cores} {modules}>")}
                          for load in CORE_GROUP_LOADS]
        for c in PRESETS:
            items += [{"group": "pm9a3", "seed": s0, "controller": c,
                       "build": preset(c, [f"workload.queue_depth={qd}"])} for qd in PRESET_READ_DEPTHS]
            items += [{"group": "pm9a3", "seed": s0, "controller": c,
                       "build": preset(c, [f"workload.queue_depth={qd}", "workload.read_fraction=0.7"])}
                      for qd in PRESET_MIXED_DEPTHS]
        for kib in BUFFER_KIB:
            for reads in BUFFER_READ_FRACTIONS:
                for size in BUFFER_SIZES_KIB:
                    items += [{"group": "pm9a3-buffer", "seed": s0, "controller": "c01", "buffer_kib": kib,
                               "build": preset("c01", [f"ftl.write_buffer_kib={kib}", f"workload.read_fraction={reads}",
                                                       f"workload.request_size_kib={size}",
                                                       f"workload.queue_depth={qd}"])} for qd in BUFFER_DEPTHS]
    items += [{"group": "core-run", "seed": s, "build": lazily(lambda s=s: rd.core_run_config(s), f"<core-run {s}>")}
              for s in range(s0, s0 + args.core_runs)]
    items += [{"group": "core-pair", "seed": s, "build": lazily(lambda s=s: rd.core_pair_config(s),
                                                                 f"<core-pair {s}>")}
              for s in range(s0, s0 + args.core_pairs)]
    for seed in args.hypothesis or ():
        drawn = hypothesis_configs(args.draws, seed, args.sizes)
        items += [{"group": "hypothesis", "seed": i, "hypothesis_seed": seed, "draw": i,
                   "build": from_dict(d, f"<hypothesis {seed} {i}>")} for i, d in enumerate(drawn)]
    return items[:args.limit] if args.limit else items


def hypothesis_configs(count: int, seed: int, sizes: str) -> list[dict]:
    """Up to ``count`` distinct configuration dicts drawn by the acceptance test's strategies (tests/strategies.py)
    from Hypothesis seeded with ``seed``, in drawing order (``sizes`` "4": one transaction per request, "mixed":
    8-16 KiB). As in the test (tests/conftest.py), Hypothesis harvests no constants from ssdco's source, so the
    draws depend only on the seed and the strategies."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    import tests.conftest as pins
    from tests.strategies import config_dicts

    strategy = (config_dicts(fixed_size=True) if sizes == "4"
                else config_dicts().filter(lambda d: d["workload"]["request_size_kib"] > 4))
    drawn: dict[str, dict] = {}

    @hypothesis_seed(seed)
    @settings(max_examples=count, derandomize=False, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(d):
        drawn.setdefault(json.dumps(d, sort_keys=True), d)

    if pins._providers is not None:
        saved = pins._providers._get_local_constants
        pins._providers._get_local_constants = lambda: pins._NO_CONSTANTS
        pins._CONSTANT_POOLS.clear()
    try:
        collect()
    finally:
        if pins._providers is not None:
            pins._providers._get_local_constants = saved
            pins._CONSTANT_POOLS.clear()
    return list(drawn.values())


def timed_answer(config, network, effort: str):
    """(the model's answer at ``effort``, its wall time in s), from cold memos."""
    from ssdco.model.whatif import evaluate_network

    clear_caches()
    t0 = time.perf_counter()
    result = evaluate_network(config, network, effort=effort)
    return result, time.perf_counter() - t0


def errors(result, des) -> dict:
    """The answer's relative errors against DES result ``des`` and whether both are within the tolerances."""
    from ssdco.validation.compare import IOPS_TOLERANCE, LATENCY_TOLERANCE

    x = result.iops / des.iops.value - 1.0
    r = result.latency_mean_us / des.mean_latency_us.value - 1.0
    within = abs(x) <= IOPS_TOLERANCE and abs(r) <= LATENCY_TOLERANCE
    return {"iops": _num(x, 4), "latency": _num(r, 4), "within": within}


def validation_of(config, network, analytic, des, seed: int):
    """``ssdco validate``'s :class:`Validation` of the answer and the DES run (its verdict and checks)."""
    from ssdco.metrics import relative
    from ssdco.validation.compare import Validation, des_power

    p = des_power(config, network, des)
    power = {"cores": p.cores_mw, "accelerators": p.accelerators_mw, "dram": p.dram_mw, "total": p.total_mw}
    rel = {"iops": relative(analytic.iops, des.iops.value),
           "latency_mean_us": relative(analytic.latency_mean_us, des.mean_latency_us.value)}
    util = {k: analytic.utilization[k] - des.utilization[k] for k in analytic.utilization if k in des.utilization}
    return Validation(config=config, analytic=analytic, des=des, des_power_mw=power, relative_error=rel,
                      utilization_error=util, seed=seed)


def describe(config, network, analytic) -> dict:
    """The design's workload and the answer's solver and bottleneck."""
    w = config.workload
    kinds = {s.name: s.kind for s in analytic.stations}
    return {"workload": analytic.workload, "queue_depth": network.queue_depth,
            "arrival_iops": _num(network.arrival_iops), "sizes_kib": [float(s) for s in w.request_sizes_kib],
            "transactions": max(network.transactions), "read_fraction": _num(w.read_fraction, 3),
            "method": analytic.method, "bottleneck": analytic.bottleneck,
            "bottleneck_kind": KINDS.get(kinds.get(analytic.bottleneck, ""), kinds.get(analytic.bottleneck, "")),
            "bottleneck_utilization": _num(analytic.utilization[analytic.bottleneck], 4)}


def measure(item: dict, args: argparse.Namespace) -> dict | None:
    """One design's record (None where the draw gave no design)."""
    from ssdco.network.build import build_network
    from ssdco.sim.des import simulate
    from ssdco.validation.compare import with_timing_spread

    config = item["build"]()
    if config is None:
        return None
    network = build_network(config)
    row = {k: v for k, v in item.items() if k != "build"}
    analytic, seconds = timed_answer(config, network, "full")
    row.update(describe(config, network, analytic))
    if not analytic.stable:
        return {**row, "unstable": True}
    requests = args.requests if network.queue_depth is not None else args.open_requests
    des = simulate(network, requests=requests, seed=item["seed"])
    v = validation_of(config, network, analytic, des, item["seed"])
    p99 = analytic.latency_p99_us
    row.update({
        "model": {"iops": _num(analytic.iops), "latency_us": _num(analytic.latency_mean_us), "p99_us": _num(p99),
                  "seconds": _num(seconds, 3)},
        "des": {"requests": requests, "iops": _num(des.iops.value), "iops_ci": _num(des.iops.relative_half_width, 3),
                "latency_us": _num(des.mean_latency_us.value),
                "latency_ci": _num(des.mean_latency_us.relative_half_width, 3), "p99_us": _num(des.p99_us)},
        "error": {"iops": _num(v.relative_error["iops"], 4), "latency": _num(v.relative_error["latency_mean_us"], 4),
                  "p99": _num(p99 / des.p99_us - 1.0, 4) if p99 is not None and des.p99_us > 0 else None},
        "within": v.iops_ok and v.latency_ok, "verdict": v.verdict, "failed_checks": list(v.failed_checks),
        "caveats": [caveat_name(c) for c in analytic.caveats]})
    if args.fast and network.queue_depth is not None:
        fast, fast_seconds = timed_answer(config, network, "fast")
        row["fast"] = {"method": fast.method, "seconds": _num(fast_seconds, 3), **errors(fast, des),
                       "caveats": [caveat_name(c) for c in fast.caveats]}
        for key, same in (("method", fast.method == analytic.method), ("caveats", row["fast"]["caveats"] == row[
                "caveats"]), ("iops", fast.iops == analytic.iops and fast.latency_mean_us == analytic.latency_mean_us)):
            if same:  # kept only where it differs from the default effort's (fast_of)
                del row["fast"][key]
                if key == "iops":
                    del row["fast"]["latency"], row["fast"]["within"]
    if not row["within"] and args.confirm:
        longer = simulate(network, requests=args.confirm, seed=item["seed"] + CONFIRM_SEED_OFFSET)
        row["confirm"] = {"requests": args.confirm, "iops_ci": _num(longer.iops.relative_half_width, 3),
                          **errors(analytic, longer)}
    if not row["within"] and args.spread:
        spread = simulate(build_network(with_timing_spread(config, args.spread)), requests=requests,
                          seed=item["seed"])
        row["spread"] = {"scv": args.spread, **errors(analytic, spread)}
    return row


def warm_up() -> None:
    """Compile (or load) the numba kernels before anything is timed."""
    from ssdco.network.build import build_network
    from ssdco.sim.des import simulate
    from ssdco.spec import config_from_dict
    from ssdco.validation.random_designs import open_at

    for qd in (2, 32):
        d = uniform_design(1, True)
        d["workload"]["queue_depth"] = qd
        config = config_from_dict(d, source="<warm-up>")
        network = build_network(config)
        for effort in ("full", "fast"):
            timed_answer(config, network, effort)
        simulate(network, requests=2_000, seed=0)
    config = config_from_dict(open_at(uniform_design(1, True), 0.5), source="<warm-up>")
    timed_answer(config, build_network(config), "full")
    simulate(build_network(config), requests=2_000, seed=0)


def write_campaign(path: Path, doc: dict) -> None:
    """The JSON, one design a line (small diffs between campaigns), written atomically."""
    from ssdco.atomic import write_text_atomic

    head = {k: v for k, v in doc.items() if k != "designs"}
    body = ",\n".join(json.dumps(d, separators=(",", ":")) for d in doc["designs"])
    text = json.dumps(head, indent=1)[:-2] + ',\n "designs": [\n' + body + "\n]}\n"
    json.loads(text)  # well formed
    write_text_atomic(path, text)


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from ssdco.validation.compare import IOPS_TOLERANCE, LATENCY_TOLERANCE, UTILIZATION_TOLERANCE

    items = plan(args)
    warm_up()
    rows = []
    t0 = time.perf_counter()
    for item in tqdm(items, desc="designs", unit="design", disable=args.quiet):
        row = measure(item, args)
        if row is not None:
            rows.append(row)
    used = sorted({r["group"] for r in rows}, key=list(GROUPS).index)
    doc = {"schema": "ssdco.accuracy/1",
           "command": shlex.join(["python", "benchmarks/accuracy.py", *sys.argv[1:]]),
           "requests": args.requests, "open_requests": args.open_requests, "fast": args.fast,
           "confirm_requests": args.confirm, "spread_scv": args.spread,
           "tolerances": {"iops": IOPS_TOLERANCE, "latency": LATENCY_TOLERANCE, "utilization": UTILIZATION_TOLERANCE},
           "groups": {g: GROUPS[g] for g in used}, "wall_seconds": round(time.perf_counter() - t0),
           "designs": rows}
    write_campaign(args.out, doc)
    print(f"{len(rows)} designs, {sum(r.get('within', False) for r in rows)} within the tolerances; "
          f"{doc['wall_seconds']} s; written to {args.out}")
    return 0


# ------------------------------------------------------------------------------------------------------- render

def quantile(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (linear interpolation, as numpy's default)."""
    s = sorted(values)
    if not s:
        return math.nan
    pos = q * (len(s) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def pct(x: float | None, signed: bool = False) -> str:
    if x is None or not math.isfinite(x):
        return "-"
    return f"{x * 100:+.2f} %" if signed else f"{x * 100:.2f} %"


def worst(values: list[float]) -> float | None:
    return max(values, key=abs) if values else None


def plural(n: int, one: str, many: str | None = None) -> str:
    """``n`` and the noun, singular or plural."""
    return f"{n:,} {one if n == 1 else many or one + 's'}"


def is_are(n: int) -> str:
    """``n`` and the verb: "1 is", "3 are"."""
    return f"{n:,} {'is' if n == 1 else 'are'}"


def percent(fraction: float) -> str:
    """A tolerance or a share as "3 %"."""
    return f"{fraction * 100:g} %"


def share(part: int, whole: int) -> str:
    return f"{part / whole * 100:.0f} %" if whole else "-"


def error_columns(rows: list[dict], key: str) -> list[str]:
    """Median, 95th percentile and worst (signed) of the rows' ``error[key]``."""
    e = [r["error"][key] for r in rows if r["error"][key] is not None]
    a = [abs(x) for x in e]
    return [pct(quantile(a, 0.5)), pct(quantile(a, 0.95)), pct(worst(e), signed=True)]


def solver_table(rows: list[dict]) -> list[str]:
    out = ["| solver | designs | within both | share | median \\|IOPS error\\| | 95th pct | worst IOPS error | "
           "median \\|latency error\\| | 95th pct | worst latency error | median model time |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for method in sorted({r["method"] for r in rows}, key=lambda m: (-sum(r["method"] == m for r in rows), m)):
        group = [r for r in rows if r["method"] == method]
        within = sum(r["within"] for r in group)
        times = [r["model"]["seconds"] for r in group]
        out.append(f"| {method} | {len(group)} | {within} | {share(within, len(group))} | "
                   + " | ".join(error_columns(group, "iops") + error_columns(group, "latency"))
                   + f" | {seconds(quantile(times, 0.5))} |")
    within = sum(r["within"] for r in rows)
    times = [r["model"]["seconds"] for r in rows]
    out.append(f"| **all** | {len(rows)} | {within} | {share(within, len(rows))} | "
               + " | ".join(error_columns(rows, "iops") + error_columns(rows, "latency"))
               + f" | {seconds(quantile(times, 0.5))} |")
    return out


def seconds(s: float) -> str:
    if not math.isfinite(s):
        return "-"
    return f"{s * 1e3:.1f} ms" if s < 1.0 else f"{s:.2f} s"


def band_of(qd: int) -> str:
    return next(name for name, lo, hi in DEPTH_BANDS if lo <= qd <= hi)


def regime_table(rows: list[dict]) -> list[str]:
    closed = [r for r in rows if r["queue_depth"] is not None]
    kinds = [k for k in KINDS.values() if any(r["bottleneck_kind"] == k for r in closed)]
    out = ["| queue depth | " + " | ".join(kinds) + " | all | median \\|IOPS error\\| | worst IOPS error |",
           "|---|" + "---:|" * (len(kinds) + 3)]
    for band, lo, hi in DEPTH_BANDS:
        group = [r for r in closed if lo <= r["queue_depth"] <= hi]
        if not group:
            continue
        cells = []
        for k in kinds:
            cell = [r for r in group if r["bottleneck_kind"] == k]
            cells.append(f"{sum(r['within'] for r in cell)} / {len(cell)}" if cell else "")
        median, _, bad = error_columns(group, "iops")
        out.append(f"| {band} | " + " | ".join(cells)
                   + f" | {sum(r['within'] for r in group)} / {len(group)} | {median} | {bad} |")
    cells = []
    for k in kinds:
        cell = [r for r in closed if r["bottleneck_kind"] == k]
        cells.append(f"{sum(r['within'] for r in cell)} / {len(cell)}")
    median, _, bad = error_columns(closed, "iops")
    out.append("| **all** | " + " | ".join(cells)
               + f" | {sum(r['within'] for r in closed)} / {len(closed)} | {median} | {bad} |")
    return out


def summary_table(label: str, groups: list[tuple[str, list[dict]]]) -> list[str]:
    """One row per (name, rows): designs, within, share, then the IOPS and latency errors."""
    out = [f"| {label} | designs | within both | share | median \\|IOPS error\\| | 95th pct | worst IOPS error | "
           "median \\|latency error\\| | 95th pct | worst latency error |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, group in groups:
        if not group:
            continue
        within = sum(r["within"] for r in group)
        out.append(f"| {name} | {len(group)} | {within} | {share(within, len(group))} | "
                   + " | ".join(error_columns(group, "iops") + error_columns(group, "latency")) + " |")
    return out


def mix_of(r: dict) -> str:
    f = r["read_fraction"]
    return "read-only" if f == 1.0 else "write-only" if f == 0.0 else "mixed"


def p99_table(rows: list[dict]) -> list[str]:
    out = ["| solver | designs with a p99 estimate | within 10 % | within 25 % | median \\|p99 error\\| | 95th pct | "
           "worst |", "|---|---:|---:|---:|---:|---:|---:|"]
    have = [r for r in rows if r["error"]["p99"] is not None]
    methods = sorted({r["method"] for r in have}, key=lambda m: (-sum(r["method"] == m for r in have), m))
    for name, group in [(m, [r for r in have if r["method"] == m]) for m in methods] + [("**all**", have)]:
        e = [abs(r["error"]["p99"]) for r in group]
        out.append(f"| {name} | {len(group)} | {sum(x <= 0.10 for x in e)} | {sum(x <= 0.25 for x in e)} | "
                   + " | ".join(error_columns(group, "p99")) + " |")
    return out


def caveat_lines(rows: list[dict]) -> list[str]:
    misses = [r for r in rows if not r["within"]]
    flagged_misses = [r for r in misses if r["caveats"]]
    caveated = [r for r in rows if r["caveats"]]
    out = [f"Of the {len(misses)} misses, {len(flagged_misses)} carry a caveat and {len(misses) - len(flagged_misses)} "
           f"carry none. Of the {len(caveated)} answers with a caveat, {sum(r['within'] for r in caveated)} are within "
           "the tolerances all the same.", ""]
    names = sorted({c for r in rows for c in r["caveats"]})
    if not names:
        return out
    out += ["| caveat | answers carrying it | within both | misses |", "|---|---:|---:|---:|"]
    for name in sorted(names, key=lambda n: (-sum(n in r["caveats"] for r in rows), n)):
        group = [r for r in rows if name in r["caveats"]]
        within = sum(r["within"] for r in group)
        out.append(f"| {name} | {len(group)} | {within} | {len(group) - within} |")
    return out


def noise(r: dict, tol: dict) -> bool:
    """A miss whose errors exceed the tolerances by less than the DES's own 95 % half-widths."""
    d = r["des"]
    return (abs(r["error"]["iops"]) - tol["iops"] <= (d["iops_ci"] or 0.0)
            and abs(r["error"]["latency"]) - tol["latency"] <= (d["latency_ci"] or 0.0))


def miss_table(rows: list[dict], doc: dict) -> list[str]:
    misses = sorted((r for r in rows if not r["within"]), key=lambda r: -abs(r["error"]["iops"]))
    confirm = doc.get("confirm_requests")
    spread = doc.get("spread_scv")
    head = ("| group | workload | sizes (KiB) | reads | solver | bottleneck | IOPS error (DES 95 % CI) | "
            "latency error | caveat |")
    rule = "|---|---|---|---:|---|---|---:|---:|---|"
    if confirm:
        head += f" against {confirm:,} requests |"
        rule += "---:|"
    if spread:
        head += f" with timing spread {spread:g} |"
        rule += "---:|"
    out = [head, rule]
    for r in misses:
        load = f"open, {percent(r['load'])} load" if r["queue_depth"] is None else f"QD {r['queue_depth']}"
        sizes = "/".join(f"{s:g}" for s in r["sizes_kib"])
        busy = f"{r['bottleneck']} ({r['bottleneck_utilization'] * 100:.0f} %)"
        line = (f"| {r['group']} | {load} | {sizes} | {percent(r['read_fraction'])} | {r['method']} | {busy} | "
                f"{pct(r['error']['iops'], True)} (+-{pct(r['des']['iops_ci'])}) | {pct(r['error']['latency'], True)} "
                f"| {'; '.join(r['caveats']) or 'none'} |")
        failed = "iops" if abs(r["error"]["iops"]) > doc["tolerances"]["iops"] else "latency"
        for key in [k for k, on in (("confirm", confirm), ("spread", spread)) if on]:
            c = r.get(key)
            label = "latency " if failed == "latency" else ""
            line += (f" {label}{pct(c[failed], True)} ({'within' if c['within'] else 'miss'}) |" if c else " - |")
        out.append(line)
    return out


def fast_of(r: dict) -> dict:
    """The ``--fast`` answer's record of design ``r``, its fields that ``run`` left out (the default effort's)
    filled in."""
    f = r["fast"]
    return {"method": f.get("method", r["method"]), "seconds": f["seconds"], "caveats": f.get("caveats", r["caveats"]),
            "iops": f.get("iops", r["error"]["iops"]), "latency": f.get("latency", r["error"]["latency"]),
            "within": f.get("within", r["within"])}


def fast_lines(rows: list[dict]) -> list[str]:
    have = [{**r, "fast": fast_of(r)} for r in rows if "fast" in r]
    changed = [r for r in have if r["fast"]["method"] != r["method"] or r["fast"]["iops"] != r["error"]["iops"]]
    if not have:
        return []
    fast_rows = [{**r, "method": r["fast"]["method"], "within": r["fast"]["within"],
                  "error": {"iops": r["fast"]["iops"], "latency": r["fast"]["latency"], "p99": None},
                  "model": {"seconds": r["fast"]["seconds"]}, "caveats": r["fast"]["caveats"]} for r in changed]
    full_s = [r["model"]["seconds"] for r in changed]
    fast_s = [r["fast"]["seconds"] for r in changed]
    lost = sum(r["within"] and not r["fast"]["within"] for r in changed)
    gained = sum(r["fast"]["within"] and not r["within"] for r in changed)
    misses = [r for r in fast_rows if not r["within"]]
    out = [f"`whatif --fast` (`effort=\"fast\"`) answers {plural(len(have), 'closed design')}; on "
           f"{len(have) - len(changed)} it gives the default effort's answer. On the other {len(changed)}, the default "
           f"effort takes a median {seconds(quantile(full_s, 0.5))} a design (worst "
           f"{seconds(max(full_s, default=math.nan))}) and `--fast` {seconds(quantile(fast_s, 0.5))} (worst "
           f"{seconds(max(fast_s, default=math.nan))}); `--fast` is within the tolerances on "
           f"{sum(r['within'] for r in fast_rows)} of them, the default effort on {sum(r['within'] for r in changed)} "
           f"({lost} lost by `--fast`, {gained} gained). Of `--fast`'s {plural(len(misses), 'miss', 'misses')} there, "
           f"{sum(bool(r['caveats']) for r in misses)} carry a caveat.", ""]
    if changed:
        out += ["Where `--fast`'s answer differs from the default effort's, by the solver `--fast` takes:", ""]
        out += solver_table(fast_rows)
    return out


def design_lines(doc: dict, rows: list[dict]) -> list[str]:
    out = ["| group | designs | how they are drawn |", "|---|---:|---|"]
    for group, text in doc["groups"].items():
        out.append(f"| {group} | {sum(r['group'] == group for r in rows)} | {text} |")
    return out


def headline(doc: dict, rows: list[dict]) -> list[str]:
    tol = doc["tolerances"]
    within = sum(r["within"] for r in rows)
    misses = [r for r in rows if not r["within"]]
    verdicts = {v: sum(r["verdict"] == v for r in rows) for v in ("AGREE", "DISAGREE", "UNSETTLED")}
    iops = [abs(r["error"]["iops"]) for r in rows]
    out = [f"**{within} of {len(rows)} designs ({share(within, len(rows))}) are within both tolerances** (IOPS "
           f"{percent(tol['iops'])}, mean latency {percent(tol['latency'])}); the median |IOPS error| is "
           f"{pct(quantile(iops, 0.5))}, the 95th percentile {pct(quantile(iops, 0.95))}, the worst "
           f"{pct(worst([r['error']['iops'] for r in rows]), True)}. Of the {plural(len(misses), 'miss', 'misses')}, "
           f"{is_are(sum(noise(r, tol) for r in misses))} within the DES's own 95 % confidence half-width of the "
           f"tolerance, and {sum(bool(r['caveats']) for r in misses)} carry a caveat.",
           "",
           f"`ssdco validate`'s verdict, which also holds every station's utilisation to {tol['utilization']:g} "
           f"(absolute) and says UNSETTLED where the DES run is still in a start pattern the model reports: AGREE "
           f"{verdicts['AGREE']}, DISAGREE {verdicts['DISAGREE']}, UNSETTLED {verdicts['UNSETTLED']}."]
    if doc.get("confirm_requests"):
        confirmed = [r for r in misses if "confirm" in r]
        out += ["", f"Each miss is run again in the DES with {doc['confirm_requests']:,} requests from another seed: "
                f"against that run {is_are(sum(not r['confirm']['within'] for r in confirmed))} still outside the "
                f"tolerances and {is_are(sum(r['confirm']['within'] for r in confirmed))} within them (the short "
                "run's noise, or a pattern it had not yet left)."]
    if doc.get("spread_scv"):
        spread = [r for r in misses if "spread" in r]
        out += ["", f"Run again with every service time of squared coefficient of variation {doc['spread_scv']:g} "
                f"(`validate --timing-spread`), {plural(sum(r['spread']['within'] for r in spread), 'miss', 'misses')} "
                f"of {len(spread)} fall within the tolerances: those rest on exactly constant timings."]
    return out


def render(doc: dict) -> str:
    rows = [r for r in doc["designs"] if not r.get("unstable")]
    closed = [r for r in rows if r["queue_depth"] is not None]
    tol = doc["tolerances"]
    requests = f"{doc['requests']:,} DES requests per closed design"
    if any(r["queue_depth"] is None for r in rows):
        requests += f" and {doc['open_requests']:,} per open one"
    L = ["# Model accuracy against the DES", "",
         "<!-- Generated by `python benchmarks/accuracy.py render` from reports/accuracy/campaign.json; do not edit "
         "by hand. -->", "",
         f"This page is generated from one campaign, `{doc['command']}` (its figures in "
         "`reports/accuracy/campaign.json`; `python benchmarks/accuracy.py render` writes the page again from them). "
         f"It runs `whatif`'s analytic model and the embedded DES on {len(rows)} designs, {requests}, and compares "
         f"their IOPS and mean latency (relative error = model / DES - 1). A design is *within* when its IOPS are "
         f"within {percent(tol['iops'])} and its mean latency within {percent(tol['latency'])} of the DES's, the "
         "tolerances of `ssdco validate`. A DES run's own 95 % confidence half-width is quoted beside each miss: a "
         "miss inside it may be the run's noise. Each design's seed, workload and figures are in the JSON.", ""]
    L += ["## Summary", ""] + headline(doc, rows) + [""]
    L += ["## The designs", ""] + design_lines(doc, rows) + [""]
    L += ["## Per solver", "",
          "The solver that answered (`Result.method`; docs/model.md describes each), with the model's wall time per "
          "design from cold memos.", ""] + solver_table(rows) + [""]
    L += ["## Per regime", "", "### Queue depth and bottleneck", "",
          "Closed designs within both tolerances, by queue depth and the kind of the model's bottleneck station.",
          ""] + regime_table(rows) + [""]
    L += ["### Read/write mix", ""] + summary_table("mix", [(m, [r for r in rows if mix_of(r) == m])
                                                          for m in ("read-only", "write-only", "mixed")]) + [""]
    L += ["### Request sizes", ""] + summary_table("transactions per request", [
        ("one", [r for r in rows if r["transactions"] == 1]),
        ("several (forked and joined)", [r for r in rows if r["transactions"] > 1])]) + [""]
    L += ["### By group", ""] + summary_table("group", [(g, [r for r in rows if r["group"] == g])
                                                       for g in doc["groups"]]) + [""]
    L += ["## Open and closed workloads", "",
          "An open workload's IOPS are its arrival rate in both the model and the DES, so its mean latency is what "
          "is compared.", ""]
    L += summary_table("workload", [("closed", closed), ("open", [r for r in rows if r["queue_depth"] is None])])
    L += [""]
    if any("fast" in r for r in rows):
        L += ["## `whatif --fast`", ""] + fast_lines(rows) + [""]
    L += ["## The p99 estimate", "",
          "The model's 99th-percentile latency (the solver's own where it has one, else `ssdco/model/p99.py`) "
          "against the DES's measured one. No tolerance applies to it.", ""] + p99_table(rows) + [""]
    L += ["## Caveats on the misses", "",
          "`whatif` gives a caveat where its answer is known to miss the DES (`ssdco/model/caveats.py`). Do the "
          "caveats fire on the misses, and how often is a caveated answer within the tolerances all the same?", ""]
    L += caveat_lines(rows) + [""]
    L += ["## The misses", "",
          "Every design outside the tolerances, largest IOPS error first (the bottleneck's utilisation is the "
          "model's; the reruns' columns give the error of the check the first run fails).", ""] + miss_table(rows, doc)
    return "\n".join(L) + "\n"


def render_command(args: argparse.Namespace) -> int:
    return write_or_check(args.out, render(json.loads(args.json.read_text())), args.json, args.check,
                          "python benchmarks/accuracy.py render")


def write_or_check(page: Path, text: str, source: Path, check: bool, command: str) -> int:
    """Write the generated ``page`` (atomically), or with ``check`` only compare it: exit status 1 (and a line
    naming ``command``, which writes it again) where it differs from ``text``, rendered from ``source``."""
    if check:
        if (page.read_text() if page.exists() else "") != text:
            print(f"{page} differs from what {source} renders: run `{command}`", file=sys.stderr)
            return 1
        return 0
    from ssdco.atomic import write_text_atomic

    write_text_atomic(page, text)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="draw the designs, run model and DES, write the JSON")
    r.add_argument("--out", type=Path, help=f"the JSON written (default {DEFAULT_JSON.relative_to(ROOT)}; with "
                   "--hypothesis reports/accuracy/hypothesis.json)")
    r.add_argument("--first-seed", type=int, default=0, help="the first design's seed (default 0)")
    r.add_argument("--uniform", type=int, default=120, help="uniform designs per request-size setting (120)")
    r.add_argument("--open", type=int, default=60, help="open-workload designs (60)")
    r.add_argument("--core-runs", type=int, default=30, help="core_run_config designs (30)")
    r.add_argument("--core-pairs", type=int, default=20, help="core_pair_config seeds, some giving no design (20)")
    r.add_argument("--buffered", type=int, default=40, help="uniform designs with a write buffer (40)")
    r.add_argument("--no-fixed", action="store_true",
                   help="leave out the fixed grids (the PM9A3 presets and buffers, the open core groups)")
    r.add_argument("--requests", type=int, default=60_000, help="DES requests per closed design (60,000)")
    r.add_argument("--open-requests", type=int, default=200_000, help="DES requests per open design (200,000)")
    r.add_argument("--fast", action="store_true", help="also answer each closed design at effort 'fast'")
    r.add_argument("--confirm", type=int, default=0, metavar="N", help="rerun the DES on every miss, N requests")
    r.add_argument("--spread", type=float, default=0.0, metavar="SCV",
                   help="rerun the DES on every miss with every service time of this scv")
    r.add_argument("--hypothesis", type=int, nargs="+", metavar="SEED",
                   help="run only the Hypothesis draws of these seeds")
    r.add_argument("--sizes", choices=("4", "mixed"), default="4", help="request sizes of the Hypothesis draws")
    r.add_argument("--draws", type=int, default=300, help="Hypothesis draws per seed (300; some may repeat)")
    r.add_argument("--limit", type=int, default=0, help="only the first N designs (a quick try)")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    g = sub.add_parser("render", help="write docs/accuracy.md from the JSON")
    g.add_argument("--json", type=Path, default=DEFAULT_JSON, help="the campaign's JSON (default %(default)s)")
    g.add_argument("--out", type=Path, default=DEFAULT_PAGE, help="the page (default %(default)s)")
    g.add_argument("--check", action="store_true", help="write nothing; exit 1 where the page differs")
    args = ap.parse_args()
    if args.command == "render":
        return render_command(args)
    if args.confirm and args.confirm < 1_000:
        ap.error(f"--confirm: expected at least 1000 requests, got {args.confirm}")
    if args.spread and not 0.0 < args.spread <= 100.0:
        ap.error(f"--spread: expected an scv in (0, 100], got {args.spread}")
    if args.hypothesis:
        args.uniform = args.open = args.buffered = args.core_runs = args.core_pairs = 0
        args.no_fixed = True
    if args.out is None:
        args.out = DEFAULT_JSON.with_name("hypothesis.json") if args.hypothesis else DEFAULT_JSON
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
