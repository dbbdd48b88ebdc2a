"""The PM9A3 co-design study as a regenerable report: Markdown, CSV and PNG plots.

:func:`run_study` evaluates every controller preset next to the device file (``controllers/*.toml``,
c01-c10 for the PM9A3) and the optimizer's pick with the analytic model *and* the embedded DES (one seed for
all designs: common random numbers), checks the reference study's reported trends against both, and reads
every parameter's source from the ``#`` comments of the device TOML. :func:`write_study` writes
``report.md``, ``results.csv`` and four PNG plots.

Determinism: the DES is seeded, every number is formatted with fixed precision, nothing depends on the
clock or on the machine's speed, and the plots are drawn by the Agg canvas with fixed fonts (DejaVu Sans,
shipped with matplotlib), DPI and sizes, without the PNG ``Software`` tag. The same command in the same
environment (same ssdco, NumPy and matplotlib versions) therefore rewrites byte-identical files.

matplotlib is imported only when plots are drawn (:func:`render_plots`; extra ``plot``:
``pip install 'ssdco[plot]'``); :func:`require_matplotlib` checks for it up front.

References
----------
The study: PowerSim (MS thesis, seed 000), chapter 4 section 4 "실험 결과" and figures 13-14;
budgets 192 mW (cores) and 800 mW (DRAM) from its chapter 4 section 2.
"""

from __future__ import annotations

import csv
import io
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from ssdco.atomic import foreign_entries, write_bytes_atomic, write_dir_atomic, write_text_atomic
from ssdco.errors import ConfigError, SsdcoError
from ssdco.metrics import Metrics
from ssdco.spec import MODULES, Config, Controller, list_controller_presets, load_config

__all__ = ["ControllerRun", "ParamSource", "Study", "Trend", "parameter_sources", "run_study", "write_study",
           "check_study_dir", "STUDY_FILES",
           "study_csv", "study_markdown", "write_plots", "render_plots", "require_matplotlib", "PLOT_FILES"]

# --------------------------------------------------------------------------------------------------
# The study's reported trends (seed 000, ch. 4 §4, text around figures 13 and 14)
# --------------------------------------------------------------------------------------------------
STUDY_C02_CORE_POWER_CHANGE = -0.41  # "컨트롤러2는 ... 코어 전력이 41% 감소"
STUDY_C02_IOPS_CHANGE = -0.19  # "IOPS 또한 19% 낮아진 수치"
# "데이터 캐시 탐색 모듈을 하드웨어 가속하였을 때 가장 높은 개선율"
STUDY_BEST_SINGLE_ACCELERATOR = "cache_lookup"
# How close a reported percentage change must be to count as reproduced (the study's figures are read
# off bar charts and our presets are calibrated by hand): same sign and within 5 percentage points.
CHANGE_TOLERANCE_PP = 5.0
# "Highest"/"lowest" comparisons treat values within 0.5 % as a tie (below the model's error vs the DES).
TIE_TOLERANCE = 0.005
# c01 "achieves a bit lower IOPS than the real PM9A3": below the datasheet figure, by at most 20 %.
SLIGHTLY_BELOW = (0.80, 1.0)

PLOT_FILES = {
    "iops_power": "iops_power.png",
    "energy": "energy_per_io.png",
    "pareto": "pareto.png",
    "cdf": "latency_cdf.png",
}
DPI = 110
CDF_CONTROLLERS = ("c01", "c02", "<best single accelerator>", "c09")


# --------------------------------------------------------------------------------------------------
# Parameter sources: the '#' comments of the device TOML
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ParamSource:
    """One ``key = value  # comment`` line of the device TOML."""

    field: str  # dotted, e.g. "nand.t_read_us"
    value: str  # as written
    kind: str  # leading tag of the comment (S, D, E, PD, C, C/E, study, ...), "" if none
    comment: str  # the full comment, "" if the line has none


@dataclass(frozen=True)
class SourceNotes:
    """All source information found in a device TOML."""

    path: str
    header: tuple[str, ...]  # the file's leading comment block
    table_notes: Mapping[str, tuple[str, ...]]  # comment block right before a [table]
    params: tuple[ParamSource, ...]
    sources_table: Mapping[str, str]  # the free-form [sources] table


_TABLE_RE = re.compile(r"^\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_KEY_RE = re.compile(r"^([A-Za-z0-9_\-]+(?:\s*\.\s*[A-Za-z0-9_\-]+)*)\s*=\s*(.*)$")
_KIND_RE = re.compile(r"^((?:S|D|E|PD|C)(?:/(?:S|D|E|PD|C))*(?:-class)?|study)\b")


def _split_comment(rest: str) -> tuple[str, str]:
    """Split ``value  # comment`` at the first ``#`` outside a string."""
    quote = ""
    i = 0
    while i < len(rest):
        ch = rest[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            return rest[:i].strip(), rest[i + 1:].strip()
        i += 1
    return rest.strip(), ""


def parameter_sources(path: str | Path) -> SourceNotes:
    """Read every parameter's value and source comment from a device TOML (its ``#`` comments)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
        raw = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise SsdcoError(f"{path}: cannot read the parameter sources: {e}") from None
    header: list[str] = []
    notes: dict[str, tuple[str, ...]] = {}
    params: list[ParamSource] = []
    pending: list[str] = []
    table = ""
    seen_code = False
    for line in text.splitlines():
        s = line.strip()
        if not s:
            continue
        if s.startswith("#"):
            pending.append(s.lstrip("#").strip())
            continue
        if not seen_code:
            header, pending = pending, []
            seen_code = True
        m = _TABLE_RE.match(s)
        if m:
            table = re.sub(r"\s+", "", m.group(1))
            if pending:
                notes[table] = tuple(pending)
            pending = []
            continue
        m = _KEY_RE.match(s)
        if m:
            key = re.sub(r"\s+", "", m.group(1))
            value, comment = _split_comment(m.group(2))
            if pending:
                notes[table] = notes.get(table, ()) + tuple(pending)
                pending = []
            km = _KIND_RE.match(comment)
            params.append(ParamSource(field=f"{table}.{key}" if table else key, value=value,
                                      kind=km.group(1) if km else "", comment=comment))
    sources = {k: str(v) for k, v in raw.get("sources", {}).items()} if isinstance(raw.get("sources"), dict) else {}
    return SourceNotes(path=str(path), header=tuple(header), table_notes=notes, params=tuple(params),
                       sources_table=sources)


# --------------------------------------------------------------------------------------------------
# Running the designs
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ControllerRun:
    """One design evaluated both ways."""

    name: str
    origin: str  # "preset" or "optimizer"
    controller: Controller
    analytic: Metrics
    des: Metrics
    des_iops_half_width: float
    relative_error: Mapping[str, float]  # analytic / DES - 1
    agrees: bool
    cost: float | None
    latency_cdf_us: tuple[Any, Any] = field(repr=False)
    disagreements: tuple[str, ...] = ()  # the validate checks that failed: "IOPS", "latency", "utilisation"
    unsettled: bool = False  # no settled DES answer (Validation.unsettled)
    in_start_pattern: bool = False  # the DES run is still in the model's start pattern (Validation.in_start_pattern)
    des_runs: int = 1  # DES runs made: the main one and the seed check's extra ones
    des_runs_iops_spread: float | None = None  # (max - min) / main run's IOPS over those runs; None: one run
    analytic_method: str = ""  # which analytic solver answered (WhatIfResult.method, e.g. "route-mva")
    analytic_caveats: tuple[str, ...] = ()  # where the model is known to disagree with the DES (WhatIfResult.caveats)
    limited_by: str = ""  # what limits the analytic answer's throughput (Result.limited_by)


@dataclass(frozen=True)
class Trend:
    """One reported trend of the study and whether ssdco's analytic model and DES reproduce it."""

    title: str
    study: str
    analytic: str
    des: str
    analytic_ok: bool | None  # None: could not be evaluated (a controller is missing)
    des_ok: bool | None

    @property
    def verdict(self) -> str:
        """"reproduced", "not reproduced", or which method reproduces it."""
        a, d = self.analytic_ok, self.des_ok
        if a is None or d is None:
            return "not evaluated"
        if a and d:
            return "reproduced"
        if not a and not d:
            return "not reproduced"
        return "reproduced by the analytic model only" if a else "reproduced by the DES only"


@dataclass(frozen=True)
class Pareto:
    """The optimizer's Pareto front over (cost min, IOPS max, core-side power min), one entry per design."""

    costs: tuple[float, ...]
    iops: tuple[float, ...]  # analytic (MVA) IOPS at the workload's queue depth
    core_side_mw: tuple[float, ...]
    meets_targets: tuple[bool, ...]
    labels: tuple[str, ...]
    front_2d: tuple[int, ...]  # the subset non-dominated in cost x IOPS alone, sorted by cost
    space_size: int


@dataclass(frozen=True)
class OptimizerSummary:
    """What the report says about the optimizer's run."""

    status: str
    message: str
    target_iops: float
    target_source: str
    pick_label: str | None
    pick_cost: float | None
    pick_on_front: bool | None
    command: str = ""  # the `ssdco optimize` command that gives the same pick


@dataclass(frozen=True)
class Study:
    """Everything the report shows. Build with :func:`run_study`."""

    config_path: str
    config: Config
    requests: int
    seed: int
    runs: tuple[ControllerRun, ...]
    trends: tuple[Trend, ...]
    sources: SourceNotes
    pareto: Pareto | None
    optimizer: OptimizerSummary | None
    optimizer_note: str
    command: str

    def run(self, name: str) -> ControllerRun | None:
        """The run called ``name`` (None if absent)."""
        return next((r for r in self.runs if r.name == name), None)


def _evaluate_design(name: str, origin: str, config: Config, requests: int, seed: int, progress: bool,
                     cost: float | None) -> ControllerRun:
    from ssdco.validation.compare import validate

    # the same seed check as `ssdco validate` (extra runs on closed deterministic work, replications.py)
    v = validate(config, requests=requests, seed=seed, progress=progress, replications="auto")
    d = v.des
    check = v.replications
    return ControllerRun(name=name, origin=origin, controller=config.controller,
                         analytic=v.analytic.metrics, des=v.des_metrics,
                         des_iops_half_width=d.iops.half_width, relative_error=dict(v.relative_error),
                         agrees=v.agrees, cost=cost, latency_cdf_us=d.latency_cdf_us,
                         disagreements=v.failed_checks, unsettled=v.unsettled, in_start_pattern=v.in_start_pattern,
                         des_runs=v.des_runs,
                         des_runs_iops_spread=check.iops_spread if check is not None else None,
                         analytic_method=v.analytic.method, analytic_caveats=tuple(v.analytic.caveats),
                         limited_by=v.analytic.limited_by)


def _run_optimizer(config: Config, target_iops: float):
    """``ssdco.optimizer.search.optimize`` at ``target_iops`` within the config's power budgets.

    Returns ``(OptimizeResult or None, cost function or None, note)``; the cost function prices any
    controller with the optimizer's own cost model (None for a design outside its space)."""
    try:
        from ssdco.optimizer.problem import LinearModel
        from ssdco.optimizer.search import optimize
        from ssdco.optimizer.space import Design
    except ImportError as e:  # pragma: no cover - the optimizer ships with ssdco
        return None, None, f"the optimizer is not available ({e})"
    note = ""
    try:
        res = optimize(config, min_iops=target_iops, pareto_front=True)
    except ConfigError as e:
        if e.field != "optimizer.enumeration_limit":
            raise
        res = optimize(config, min_iops=target_iops, pareto_front=False)
        note = f" No Pareto front: {e.allowed}."
    model = LinearModel(res.space, res.targets)

    def cost(c: Controller) -> float | None:
        try:
            return model.cost(Design.from_controller(c))
        except (ValueError, KeyError):
            return None

    return res, cost, note


def _study_presets(path: Path) -> tuple[Config, list[str], list[Config]]:
    """The device configuration, its controller presets' names and their configurations; ConfigError for an
    open workload, SsdcoError without presets."""
    base = load_config(path)
    if base.workload.queue_depth is None:
        raise ConfigError(base.source, "workload.queue_depth", None,
                          "ssdco study needs a closed workload (queue_depth), as in the reference study: its "
                          "designs are compared at a queue depth and its optimizer searches at one; "
                          "arrival_iops is not supported")
    presets = list_controller_presets(path.parent)
    if not presets:
        raise SsdcoError(f"{path.parent / 'controllers'}: no controller presets (*.toml) to study")
    return base, presets, [load_config(path, controller=name) for name in presets]


def _study_target(base: Config, presets: list[str], preset_cfgs: list[Config],
                  min_iops: float | None) -> tuple[float, str]:
    """The optimizer's IOPS target and where it comes from: ``--min-iops``, the config's budgets.min_iops, or
    the first preset's analytic IOPS."""
    from ssdco.model.whatif import evaluate

    if min_iops is not None:
        return float(min_iops), "given on the command line (--min-iops)"
    if base.budgets.min_iops > 0:
        return base.budgets.min_iops, "the config's budgets.min_iops"
    return (evaluate(preset_cfgs[0]).iops,
            f"{presets[0]}'s analytic IOPS: meet both budgets at the baseline's throughput")


def _study_pareto(res) -> Pareto | None:
    """The optimizer's Pareto front as the study reports it (None when it was not enumerated)."""
    if res.pareto is None:
        return None
    from ssdco.optimizer.enumerate import pareto_front

    pts = res.pareto
    costs = tuple(float(p.cost) for p in pts)
    iops = tuple(float(p.iops) for p in pts)
    front2 = pareto_front(costs, iops, [0.0] * len(pts))
    return Pareto(costs=costs, iops=iops, core_side_mw=tuple(float(p.core_power_mw) for p in pts),
                  meets_targets=tuple(bool(p.meets_targets) for p in pts),
                  labels=tuple(p.design.label() for p in pts), front_2d=tuple(int(i) for i in front2),
                  space_size=int(res.space_size))


def _optimizer_summary(res, config_path: str | Path, target: float, target_source: str,
                       pareto: Pareto | None) -> OptimizerSummary:
    """What the optimizer answered at the study's target, and the ``ssdco optimize`` command that repeats it."""
    on_front = (None if pareto is None or res.pick is None else
                any(p.design == res.pick for p in res.pareto))
    return OptimizerSummary(status=res.status, message=res.message, target_iops=target,
                            target_source=target_source,
                            pick_label=res.pick.label() if res.pick is not None else None, pick_cost=res.cost,
                            pick_on_front=on_front,
                            command=optimize_command(config_path, target, res.targets.core_power_mw,
                                                     res.targets.dram_power_mw))


def _optimizer_note(res, target: float, target_source: str) -> str:
    """The report's one-line account of the optimizer run: space, target, budgets, status and message."""
    return (f"`ssdco.optimizer.search.optimize` over {res.space_size:,} designs, IOPS target "
            f"{target:,.0f} ({target_source}), budgets core side <= {res.targets.core_power_mw:g} mW and "
            f"DRAM <= {res.targets.dram_power_mw:g} mW: {res.status}; {res.message}.")


def run_study(config_path: str | Path, *, requests: int = 200_000, seed: int = 0, progress: bool = False,
              min_iops: float | None = None, command: str | None = None) -> Study:
    """Evaluate every controller preset and the optimizer's pick; check the study's trends.

    Parameters
    ----------
    config_path : path
        The device TOML (``configs/pm9a3-960.toml``); presets come from ``controllers/`` beside it.
    requests : int
        Requests each DES run completes (10 % warm-up discarded). On closed deterministic work each design's
        DES also makes ``ssdco validate``'s seed check: four more runs of a quarter of ``requests`` from seeds
        spawned from ``seed`` (``sim/replications.py``); the verdict is then "unsettled" where they
        disagree.
    seed : int
        DES seed, the same for every design (common random numbers).
    progress : bool
        tqdm bars on stderr.
    min_iops : float, optional
        IOPS target of the optimizer's pick. Default: the config's ``budgets.min_iops`` when it is set,
        else the analytic IOPS of the first preset (c01, the study's MQSim-like baseline): "the cheapest
        design that meets both power budgets at the baseline's throughput".
    command : str, optional
        The command line to print in the report (default: the equivalent ``ssdco study`` command).
    """
    if min_iops is not None and not (math.isfinite(min_iops) and min_iops >= 0):
        raise ConfigError("--min-iops", "min_iops", min_iops, "expected a finite number >= 0")
    path = Path(config_path)
    base, presets, preset_cfgs = _study_presets(path)
    target, target_source = _study_target(base, presets, preset_cfgs, min_iops)
    res, cost_fn, extra_note = _run_optimizer(base, target)
    runs = [_evaluate_design(name, "preset", cfg, requests, seed, progress,
                             cost_fn(cfg.controller) if cost_fn else None)
            for name, cfg in zip(presets, preset_cfgs)]
    pareto = summary = None
    note = "the optimizer is not available" + extra_note
    if res is not None:
        if res.pick is not None:
            ctrl = res.pick.to_controller("pick", f"optimizer's pick: {res.pick.label()}")
            runs.append(_evaluate_design("pick", "optimizer", base.with_controller(ctrl), requests, seed, progress,
                                         cost_fn(ctrl)))
        pareto = _study_pareto(res)
        summary = _optimizer_summary(res, config_path, target, target_source, pareto)
        note = _optimizer_note(res, target, target_source) + extra_note
    runs_t = tuple(runs)
    notes = parameter_sources(path)
    return Study(config_path=str(config_path), config=base, requests=requests, seed=seed, runs=runs_t,
                 trends=tuple(check_trends(runs_t, base, notes)), sources=notes, pareto=pareto, optimizer=summary,
                 optimizer_note=note,
                 command=command or default_command(config_path, requests=requests, seed=seed, min_iops=min_iops))


def optimize_command(config_path: str | Path, min_iops: float, core_power_mw: float, dram_power_mw: float) -> str:
    """The ``ssdco optimize`` command line that searches with the study's targets (budgets shown when set)."""
    parts = ["ssdco", "optimize", str(config_path), "--min-iops", f"{min_iops:.15g}"]
    if math.isfinite(core_power_mw):
        parts += ["--core-mw", f"{core_power_mw:g}"]
    if math.isfinite(dram_power_mw):
        parts += ["--dram-mw", f"{dram_power_mw:g}"]
    return " ".join(parts)


def default_command(config_path: str | Path, *, out: str | None = None, requests: int = 200_000,
                    seed: int = 0, min_iops: float | None = None) -> str:
    """The ``ssdco study`` command line (options shown only when not at their defaults)."""
    parts = ["ssdco", "study", str(config_path)]
    if out is not None and out != DEFAULT_OUT:
        parts += ["--out", str(out)]
    if requests != 200_000:
        parts += ["--requests", str(requests)]
    if seed != 0:
        parts += ["--seed", str(seed)]
    if min_iops is not None:
        parts += ["--min-iops", f"{min_iops:.15g}"]
    return " ".join(parts)


DEFAULT_OUT = "reports/pm9a3-study"
META_FIELDS = ("schema_version", "name", "description")  # file metadata, not model parameters


# --------------------------------------------------------------------------------------------------
# Trends
# --------------------------------------------------------------------------------------------------
def _pct(x: float) -> str:
    return f"{x * 100:+.1f} %"


def _accelerated(c: Controller) -> tuple[str, ...]:
    return tuple(m for m in MODULES if m in c.accelerator_units)


def _datasheet_iops(notes: SourceNotes) -> float | None:
    """The datasheet random-read figure from the device file's ``[sources]`` (e.g. "about 580 K IOPS")."""
    for text in notes.sources_table.values():
        m = re.search(r"(\d+(?:\.\d+)?)\s*([KM])\s*IOPS", text)
        if m and "random read" in text:
            return float(m.group(1)) * (1e3 if m.group(2) == "K" else 1e6)
    return None


def check_trends(runs: Sequence[ControllerRun], config: Config, notes: SourceNotes) -> list[Trend]:
    """Compare the study's reported trends with the analytic model and the DES (each on its own)."""
    by = {r.name: r for r in runs if r.origin == "preset"}
    found = (_trend_datasheet(by, notes), _trend_slow_cores(by), _trend_single_accelerators(by),
             _trend_budgets(by, config), _trend_hardware_path(by))
    return [t for t in found if t is not None]


def _both(fn):
    """``fn``'s (text, reproduced) for the analytic model and for the DES."""
    return fn("analytic"), fn("des")


def _trend_datasheet(by: dict, notes: SourceNotes) -> Trend | None:
    """Trend 0: c01 against the real drive's datasheet IOPS."""
    ds = _datasheet_iops(notes)
    if "c01" not in by or not ds:
        return None

    def t0(m):
        ratio = getattr(by["c01"], m).iops / ds
        return f"c01 {getattr(by['c01'], m).iops:,.0f} IOPS = {_pct(ratio - 1)} vs {ds:,.0f}", \
            SLIGHTLY_BELOW[0] <= ratio < SLIGHTLY_BELOW[1]
    (a_txt, a_ok), (d_txt, d_ok) = _both(t0)
    return Trend("c01 (MQSim-like) reaches a bit less than the real PM9A3's random-read IOPS",
                 f"\"slightly lower IOPS than the real PM9A3\" (datasheet about {ds:,.0f} IOPS, "
                 f"kind E in the device file); counted as reproduced when within "
                 f"{(1 - SLIGHTLY_BELOW[0]) * 100:.0f} % below", a_txt, d_txt, a_ok, d_ok)


def _trend_slow_cores(by: dict) -> Trend | None:
    """Trend 1: c02 against c01, slower cores."""
    if "c01" not in by or "c02" not in by:
        return None

    def t1(m):
        a, b = getattr(by["c01"], m), getattr(by["c02"], m)
        dp = b.core_side_mw / a.core_side_mw - 1 if a.core_side_mw > 0 else math.nan
        di = b.iops / a.iops - 1
        ok = all(math.copysign(1, got) == math.copysign(1, want) and abs(got - want) * 100 <= CHANGE_TOLERANCE_PP
                 for got, want in ((dp, STUDY_C02_CORE_POWER_CHANGE), (di, STUDY_C02_IOPS_CHANGE)))
        return f"core power {_pct(dp)}, IOPS {_pct(di)}", ok
    (a_txt, a_ok), (d_txt, d_ok) = _both(t1)
    return Trend("c02 vs c01: slower cores cut core power but also IOPS",
                 f"core power {_pct(STUDY_C02_CORE_POWER_CHANGE)}, IOPS {_pct(STUDY_C02_IOPS_CHANGE)} "
                 f"(reproduced: same sign, within {CHANGE_TOLERANCE_PP:.0f} percentage points)",
                 a_txt, d_txt, a_ok, d_ok)


def _trend_single_accelerators(by: dict) -> Trend | None:
    """Trend 2: c03-c06, one module accelerated each."""
    singles = [by[n] for n in ("c03", "c04", "c05", "c06") if n in by and len(_accelerated(by[n].controller)) == 1]
    if len(singles) != 4 or "c01" not in by:
        return None

    def t2(m):
        best = max(singles, key=lambda r: getattr(r, m).iops)
        bm = getattr(best, m)
        mod = _accelerated(best.controller)[0]
        gain = bm.iops / getattr(by["c01"], m).iops - 1
        lowest_power = min(singles, key=lambda r: getattr(r, m).core_side_mw) is best
        ok = mod == STUDY_BEST_SINGLE_ACCELERATOR and not bm.core_met
        txt = (f"best is {best.name} ({mod}): IOPS {_pct(gain)} vs c01, core-side power "
               f"{bm.core_side_mw:.0f} mW {'>' if not bm.core_met else '<='} {bm.core_limit_mw:.0f} mW"
               f"{'; also the lowest core power of the four' if lowest_power else ''}")
        return txt, ok
    (a_txt, a_ok), (d_txt, d_ok) = _both(t2)
    return Trend("c03-c06 (one module accelerated): cache lookup helps most, still over the core budget",
                 "accelerating the data-cache lookup gives the largest improvement, but core power still "
                 "exceeds the budget", a_txt, d_txt, a_ok, d_ok)


def _trend_budgets(by: dict, config: Config) -> Trend | None:
    """Trend 3: c07-c10 meet both power budgets."""
    group = [by[n] for n in ("c07", "c08", "c09", "c10") if n in by]
    if len(group) != 4:
        return None

    def t3(m):
        ok = all(getattr(r, m).both_met for r in group)
        miss = [r.name for r in group if not getattr(r, m).both_met]
        others = [n for n, r in by.items() if n not in ("c07", "c08", "c09", "c10") and getattr(r, m).both_met]
        txt = "c07-c10 all meet both" if ok else f"not met by {', '.join(miss)}"
        txt += f"; also meeting both: {', '.join(others)}" if others else "; no other preset meets both"
        return txt, ok
    (a_txt, a_ok), (d_txt, d_ok) = _both(t3)
    return Trend("c07-c10 meet both power budgets",
                 f"c07-c10 all meet the core ({config.budgets.core_power_mw:g} mW) and DRAM "
                 f"({config.budgets.dram_power_mw:g} mW) budgets", a_txt, d_txt, a_ok, d_ok)


def _trend_hardware_path(by: dict) -> Trend | None:
    """Trend 4: c09/c10, the critical path in hardware, best on every count."""
    if "c09" not in by or "c10" not in by or len(by) <= 2:
        return None

    def t4(m):
        top = [by["c09"], by["c10"]]
        rest = [r for n, r in by.items() if n not in ("c09", "c10")]

        def best(metric, higher):
            vals = [getattr(getattr(r, m), metric) for r in rest]
            ref = max(vals) if higher else min(vals)
            return all((getattr(getattr(r, m), metric) >= ref * (1 - TIE_TOLERANCE)) if higher else
                       (getattr(getattr(r, m), metric) <= ref * (1 + TIE_TOLERANCE)) for r in top)

        checks = {"IOPS": best("iops", True), "core-side power": best("core_side_mw", False),
                  "total power": best("total_mw", False), "energy per I/O": best("energy_per_io_nj", False)}
        ok = all(checks.values())
        runner = max(rest, key=lambda r: getattr(r, m).iops)
        txt = (", ".join(f"{k} {'yes' if v else 'NO'}" for k, v in checks.items())
               + f"; c09 {getattr(by['c09'], m).iops:,.0f} / c10 {getattr(by['c10'], m).iops:,.0f} IOPS,"
                 f" next best {runner.name} {getattr(runner, m).iops:,.0f}")
        return txt, ok
    (a_txt, a_ok), (d_txt, d_ok) = _both(t4)
    return Trend("c09/c10 (critical path fully in hardware): highest IOPS, lowest power and energy",
                 "c09 and c10 show the highest performance, the lowest power and the lowest energy "
                 f"(ties within {TIE_TOLERANCE:.1%} count as equal)", a_txt, d_txt, a_ok, d_ok)


# --------------------------------------------------------------------------------------------------
# CSV
# --------------------------------------------------------------------------------------------------
CSV_COLUMNS = (
    "controller", "origin", "placement", "cost",
    "analytic_iops", "des_iops", "des_iops_ci95_half_width",
    "analytic_latency_mean_us", "des_latency_mean_us", "analytic_latency_p99_us", "des_latency_p99_us",
    "analytic_core_power_mw", "analytic_accelerator_power_mw", "analytic_core_side_power_mw",
    "analytic_dram_power_mw", "analytic_total_power_mw",
    "des_core_power_mw", "des_accelerator_power_mw", "des_core_side_power_mw", "des_dram_power_mw",
    "des_total_power_mw",
    "analytic_energy_per_io_nj", "des_energy_per_io_nj",
    "core_budget_mw", "dram_budget_mw", "core_budget_met", "dram_budget_met", "budgets_met",
    "des_core_budget_met", "des_dram_budget_met",
    "error_iops", "error_latency_mean", "error_latency_p99", "error_power_total", "model_des_agree",
    "des_runs", "des_runs_iops_spread", "des_unsettled", "analytic_method", "analytic_caveats",
    "analytic_limited_by",
)


def _g(x: float | None, digits: int = 6) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return ""
    return f"{x:.{digits}g}"


def _fixed(x: float | None, decimals: int) -> str:
    """``x`` with a fixed number of decimals ("" when missing or not finite), for table columns whose
    neighbours are fixed-point: 65.00, not 65 next to 64.19."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return ""
    return f"{x:.{decimals}f}"


def placement_text(c: Controller) -> str:
    """Compact description of where each module runs, e.g. ``parse,cache_lookup: 1x r1g; translate: accel x1``."""
    parts = []
    for g in c.core_groups:
        parts.append(f"{'+'.join(g.modules)}: {g.count}x {g.spec}")
    for m in MODULES:
        if m in c.accelerator_units:
            parts.append(f"{m}: {c.accelerator_units[m]}x accel")
    return "; ".join(parts)


def study_csv(study: Study) -> str:
    """``results.csv``: one row per design (presets, then the optimizer's pick)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in study.runs:
        a, d, e = r.analytic, r.des, r.relative_error
        w.writerow([
            r.name, r.origin, placement_text(r.controller), _g(r.cost),
            _g(a.iops), _g(d.iops), _g(r.des_iops_half_width, 3),
            _g(a.latency_mean_us), _g(d.latency_mean_us), _g(a.latency_p99_us), _g(d.latency_p99_us),
            _g(a.cores_mw), _g(a.accelerators_mw), _g(a.core_side_mw), _g(a.dram_mw), _g(a.total_mw),
            _g(d.cores_mw), _g(d.accelerators_mw), _g(d.core_side_mw), _g(d.dram_mw), _g(d.total_mw),
            _g(a.energy_per_io_nj), _g(d.energy_per_io_nj),
            _g(a.core_limit_mw), _g(a.dram_limit_mw), str(a.core_met).lower(), str(a.dram_met).lower(),
            str(a.both_met).lower(), str(d.core_met).lower(), str(d.dram_met).lower(),
            _g(e.get("iops"), 4), _g(e.get("latency_mean_us"), 4), _g(e.get("latency_p99_us"), 4),
            _g(e.get("power_total_mw"), 4), str(r.agrees).lower(),
            r.des_runs, _g(r.des_runs_iops_spread, 4), str(r.unsettled).lower(),
            r.analytic_method, " | ".join(r.analytic_caveats), r.limited_by,
        ])
    return buf.getvalue()


# --------------------------------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------------------------------
def _md_escape(s: str) -> str:
    return s.replace("|", "\\|")


def _verdict_cell(r: ControllerRun) -> str:
    """The Model-vs-DES table's verdict for one design, as ``ssdco validate`` gives it."""
    if r.in_start_pattern:
        return "**unsettled** (the DES run is still in the start pattern the model reports, see its caveat)"
    if r.unsettled:
        return (f"**unsettled** (the DES's {r.des_runs} runs from different seeds span "
                f"{r.des_runs_iops_spread * 100:.1f} % of IOPS)")
    return "agree" if r.agrees else f"**disagree** ({', '.join(r.disagreements)} outside tolerance)"


def _caveat_lines(runs: Sequence[ControllerRun]) -> list[str]:
    """Markdown lines listing each design's analytic caveats (``WhatIfResult.caveats``); none if no design has any."""
    flagged = [r for r in runs if r.analytic_caveats]
    if not flagged:
        return []
    return (["", "The model's own caveats (`ssdco whatif` prints them; where the model is known to disagree with "
                 "the DES):", ""]
            + [f"- {r.name}: {_md_escape(c)}" for r in flagged for c in r.analytic_caveats])


def _seed_check_text(study: Study) -> str:
    """One sentence on the DES's seed check (sim/replications.py) over the designs that had it, or ""."""
    checked = [r for r in study.runs if r.des_runs_iops_spread is not None]
    if not checked:
        return ""
    widest = max(checked, key=lambda r: r.des_runs_iops_spread)
    extra = sorted({r.des_runs - 1 for r in checked})
    who = ("Every design's DES" if len(checked) == len(study.runs)
           else f"The DES of {len(checked)} of {len(study.runs)} designs")
    return (f"{who} was also run from {' or '.join(map(str, extra))} more seeds (a quarter of the requests "
            "each, `ssdco validate`'s check that its IOPS do not depend on the seed): the runs' IOPS span at most "
            f"{widest.des_runs_iops_spread * 100:.2f} % ({widest.name}); "
            f"unsettled: {', '.join(r.name for r in checked if r.unsettled) or 'none'}. ")


def _yes(b: bool) -> str:
    return "yes" if b else "**no**"


def _best_single(study: Study) -> str | None:
    singles = [r for r in study.runs if r.origin == "preset" and r.name in ("c03", "c04", "c05", "c06")
               and len(_accelerated(r.controller)) == 1]
    return max(singles, key=lambda r: r.des.iops).name if singles else None


def _optimizer_section(study: Study) -> list[str]:
    L = ["## The optimizer's pick", "", f"Optimizer: {study.optimizer_note}", ""]
    o = study.optimizer
    pick = next((r for r in study.runs if r.origin == "optimizer"), None)
    if o is None or pick is None:
        return L
    a, d = pick.analytic, pick.des
    L.append(f"Its targets: at least {o.target_iops:,.0f} IOPS ({o.target_source}) within the power budgets above. "
             f"`{o.command}` searches with the same targets and gives the same pick. The pick is the cheapest design "
             "that meets them, so another IOPS target picks another design: `make demo` runs `ssdco optimize` with "
             "its own `--min-iops`, and without `--min-iops` it takes the config's budgets.min_iops ("
             + (f"{study.config.budgets.min_iops:,.0f} IOPS" if study.config.budgets.min_iops > 0
                else "not set: no IOPS floor") + ").")
    L.append(f"The pick `{o.pick_label}` costs {_g(pick.cost, 4)} and reaches {a.iops:,.0f} IOPS (DES "
             f"{d.iops:,.0f}) at {a.core_side_mw:.1f} mW core-side and {a.dram_mw:.1f} mW DRAM power; budgets met: "
             f"analytic {'yes' if a.both_met else 'no'}, DES {'yes' if d.both_met else 'no'}"
             + ("" if o.pick_on_front is None else
                f"; it is {'on' if o.pick_on_front else 'not on'} the Pareto front") + ".")
    ok = [r for r in study.runs if r.origin == "preset" and r.cost is not None and r.analytic.both_met
          and r.analytic.iops >= o.target_iops]
    if ok:
        best = min(ok, key=lambda r: (r.cost, -r.analytic.iops))
        L.append(f"The cheapest preset that meets both budgets and the target is {best.name} (cost "
                 f"{_g(best.cost, 4)}, {best.analytic.iops:,.0f} IOPS): the pick costs "
                 f"{_pct(pick.cost / best.cost - 1)} relative to it.")
    else:
        L.append("No preset meets both budgets and the IOPS target.")
    L.append("")
    return L


def cdf_controllers(study: Study) -> list[str]:
    """The designs whose DES latency CDF is plotted: c01, c02, the best single accelerator, c09, the pick."""
    names = []
    for n in CDF_CONTROLLERS:
        n = _best_single(study) if n.startswith("<") else n
        if n and study.run(n) is not None and n not in names:
            names.append(n)
    return names + [r.name for r in study.runs if r.origin == "optimizer"]


def _intro_lines(study: Study, versions: Mapping[str, str] | None) -> list[str]:
    """The report's title, how to regenerate it, the device, workload and budgets, and how designs are run."""
    cfg = study.config
    b = cfg.budgets
    L = [f"# PM9A3 co-design study: {cfg.name}", "",
         f"Regenerate with `{study.command}` (this file, `results.csv` and the plots are rewritten; "
         f"the same command in the same environment gives byte-identical files; there is no timestamp).", "",
         f"Device: {cfg.raw.get('description') or cfg.name}. Workload: "
         + (f"closed, queue depth {cfg.workload.queue_depth}" if cfg.workload.closed
            else f"open, {cfg.workload.arrival_iops:,.0f} IOPS")
         + f", read fraction {cfg.workload.read_fraction:g}, {cfg.workload.mean_request_bytes / 1024:g} KiB requests. "
         f"Budgets: core side (cores + accelerators) <= {b.core_power_mw:g} mW, DRAM <= {b.dram_power_mw:g} mW.", "",
         f"Every design is solved by the analytic model (`ssdco whatif`) and simulated by the embedded DES "
         f"(`ssdco validate`: {study.requests:,} requests, 10 % warm-up discarded, seed {study.seed} for every "
         f"design). Model-vs-DES errors are analytic / DES - 1.", ""]
    if versions:
        L += ["Software: " + ", ".join(f"{k} {v}" for k, v in versions.items()) + ".", ""]
    return L


def _reproduced_mark(ok: bool | None) -> str:
    """A trend cell's suffix: reproduced, not reproduced, or nothing when the trend does not apply."""
    return "" if ok is None else (" (reproduced)" if ok else " (**not reproduced**)")


def _trends_section(study: Study) -> list[str]:
    """The study's reported trends, each recomputed from the analytic model and from the DES."""
    L = ["## The study's reported trends", "",
         "The reference study (PowerSim thesis, seed 000, ch. 4 §4, figures 13-14) reports these trends for "
         "its controllers 1-10; ssdco recomputes each from its own numbers, separately for the analytic model "
         "and the DES.", "",
         "| trend | study reports | ssdco analytic | ssdco DES | verdict |", "|---|---|---|---|---|"]
    for t in study.trends:
        L.append(f"| {_md_escape(t.title)} | {_md_escape(t.study)} | {_md_escape(t.analytic)}"
                 f"{_reproduced_mark(t.analytic_ok)} | {_md_escape(t.des)}{_reproduced_mark(t.des_ok)} | "
                 f"**{t.verdict}** |")
    L.append("")
    return L


def _designs_section(study: Study) -> list[str]:
    """Every design: origin, placement, description and cost."""
    L = ["## Designs", "", "| design | origin | placement (module: units) | description | cost |",
         "|---|---|---|---|---|"]
    for r in study.runs:
        L.append(f"| {r.name} | {r.origin} | {_md_escape(placement_text(r.controller))} | "
                 f"{_md_escape(r.controller.description)} | {_g(r.cost, 4) or 'n/a'} |")
    L += [""]
    return L


def _performance_section(study: Study) -> list[str]:
    """Throughput, latency, power and energy of every design, analytic / DES."""
    L = ["## Performance, power and energy", "",
         "Analytic model / DES. Power in mW (DES power: the same power model fed with the measured busy time), "
         "energy per I/O in nJ (cores + accelerators + DRAM).", "",
         "| design | IOPS | latency mean (us) | latency p99 (us) | cores | accelerators | DRAM | total "
         "| energy/IO (nJ) | limited by (analytic) |",
         "|---|---|---|---|---|---|---|---|---|---|"]
    for r in study.runs:
        a, d = r.analytic, r.des
        L.append(f"| {r.name} | {a.iops:,.0f} / {d.iops:,.0f} | {a.latency_mean_us:.2f} / {d.latency_mean_us:.2f} | "
                 f"{_fixed(a.latency_p99_us, 2) or 'n/a'} / {d.latency_p99_us:.2f} | "
                 f"{a.cores_mw:.1f} / {d.cores_mw:.1f} | "
                 f"{a.accelerators_mw:.1f} / {d.accelerators_mw:.1f} | {a.dram_mw:.1f} / {d.dram_mw:.1f} | "
                 f"{a.total_mw:.1f} / {d.total_mw:.1f} | {a.energy_per_io_nj:,.0f} / {d.energy_per_io_nj:,.0f} | "
                 f"{_md_escape(r.limited_by) or 'n/a'} |")
    L.append("")
    return L


def _budgets_section(study: Study) -> list[str]:
    """Which design meets which power budget (analytic model; where the DES differs)."""
    b = study.config.budgets
    L = ["## Budgets", "",
         f"Core-side power (cores + accelerators) against {b.core_power_mw:g} mW and DRAM power against "
         f"{b.dram_power_mw:g} mW, from the analytic model; the DES agrees unless noted.", "",
         "| design | core side (mW) | core budget met | DRAM (mW) | DRAM budget met | both met |",
         "|---|---|---|---|---|---|"]
    for r in study.runs:
        a, d = r.analytic, r.des
        note = "" if (a.core_met, a.dram_met) == (d.core_met, d.dram_met) else " (DES differs)"
        L.append(f"| {r.name} | {a.core_side_mw:.1f} | {_yes(a.core_met)} | {a.dram_mw:.1f} | {_yes(a.dram_met)} | "
                 f"{_yes(a.both_met)}{note} |")
    meet_core = [r.name for r in study.runs if r.analytic.core_met]
    meet_dram = [r.name for r in study.runs if r.analytic.dram_met]
    meet_both = [r.name for r in study.runs if r.analytic.both_met]
    L += ["", f"Core budget met by: {', '.join(meet_core) or 'none'}. DRAM budget met by: "
              f"{', '.join(meet_dram) or 'none'}. Both: {', '.join(meet_both) or 'none'}.", ""]
    return L


def _error_cell(e: Mapping[str, float], key: str) -> str:
    """A relative error as a signed percentage, ``n/a`` when absent or not finite."""
    return _pct(e[key]) if key in e and math.isfinite(e[key]) else "n/a"


def _budget_verdicts_text(runs: Sequence[ControllerRun]) -> str:
    """Whether the analytic model's and the DES's budget verdicts agree, or for which designs they differ."""
    differ = [r.name for r in runs if (r.analytic.core_met, r.analytic.dram_met) != (r.des.core_met, r.des.dram_met)]
    return "agree for every design." if not differ else "differ for " + ", ".join(differ) + "."


def _model_vs_des_section(study: Study) -> list[str]:
    """The analytic model's relative errors against the DES, per design, and their summary."""
    from ssdco.validation.compare import IOPS_TOLERANCE, LATENCY_TOLERANCE

    L = ["## Model vs DES", "",
         f"Relative error of the analytic model against the DES (tolerances of `ssdco validate`: IOPS "
         f"{IOPS_TOLERANCE:.0%}, mean latency {LATENCY_TOLERANCE:.0%}, station utilisation 0.05 absolute; the "
         f"p99 is a two-moment estimate and has no tolerance). DES IOPS 95 % CI half-width in brackets.", "",
         "| design | analytic method | IOPS error | mean latency error | p99 error | total power error | verdict |",
         "|---|---|---|---|---|---|---|"]
    for r in study.runs:
        e = r.relative_error
        L.append(f"| {r.name} | {r.analytic_method or 'n/a'} | {_error_cell(e, 'iops')} "
                 f"(+-{r.des_iops_half_width:,.0f}) | {_error_cell(e, 'latency_mean_us')} | "
                 f"{_error_cell(e, 'latency_p99_us')} | {_error_cell(e, 'power_total_mw')} | {_verdict_cell(r)} |")
    L += _caveat_lines(study.runs)
    worst = max(study.runs, key=lambda r: abs(r.relative_error.get("iops", 0.0)))
    L += ["", f"The model and the DES agree within tolerance for {sum(r.agrees for r in study.runs)} of "
              f"{len(study.runs)} designs; the largest IOPS error is {_pct(worst.relative_error.get('iops', 0.0))} "
              f"({worst.name}). {_seed_check_text(study)}Budget verdicts from the two methods "
              + _budget_verdicts_text(study.runs), ""]
    return L


def _plots_section(study: Study) -> list[str]:
    """The plots' image links (the Pareto front's when there is one) and how to read the latency plot."""
    L = ["## Plots", "",
         f"![IOPS and power per design](./{PLOT_FILES['iops_power']})", "",
         f"![Energy per I/O per design](./{PLOT_FILES['energy']})", ""]
    if study.pareto is not None:
        L += [f"![Pareto front: cost vs IOPS](./{PLOT_FILES['pareto']})", ""]
    L += [f"![DES latency tails](./{PLOT_FILES['cdf']})", "",
          "The latency plot shows every design's DES latency tail: the fraction of requests slower than a latency "
          "(1 - CDF) on a log axis, where p99 is 10^-2 and p99.9 is 10^-3; the optimizer's pick is the thick line.",
          ""]
    return L


def _parameter_rows(src: SourceNotes) -> list[str]:
    """The parameter table's rows: each model parameter with its value, kind and line comment, a table's note
    before its first parameter (a note before [a.b] also covers the [a.*] tables after it)."""
    L = []
    last_table = None
    group_note: dict[str, str] = {}
    for p in src.params:
        if p.field in META_FIELDS or p.field.startswith("sources."):
            continue
        table = p.field.rsplit(".", 1)[0] if "." in p.field else ""
        group = table.split(".")[0]
        if table != last_table and table in src.table_notes:
            group_note[group] = table
            L.append(f"| *[{table}]* | | | *{_md_escape(' '.join(src.table_notes[table]))}* |")
        last_table = table
        if p.comment:
            text = _md_escape(p.comment)
        elif group in group_note:
            text = f"(no line comment; see the note on [{group_note[group]}])"
        else:
            text = "(no comment in the file)"
        L.append(f"| `{p.field}` | `{_md_escape(p.value)}` | {p.kind or '-'} | {text} |")
    return L


def _parameters_section(study: Study) -> list[str]:
    """The device file's parameters with the sources its comments give, and its free-form ``[sources]``."""
    src = study.sources
    L = ["## Parameters and their sources", "",
         f"Read from the comments of `{src.path}` (kinds as the file's header defines them). Fields absent from "
         f"the file take the schema defaults of `ssdco/spec/`. The file's header:", ""]
    L += [f"> {_md_escape(h)}" for h in src.header]
    L += ["", "| parameter | value | kind | source (the line's comment) |", "|---|---|---|---|"]
    L += _parameter_rows(src)
    if src.sources_table:
        L += ["", "Free-form notes in `[sources]`:", ""]
        L += [f"* `{k}`: {v}" for k, v in src.sources_table.items()]
    L += ["", "Controller presets are described in `controllers/*.toml` (descriptions above).", ""]
    return L


def study_markdown(study: Study, versions: Mapping[str, str] | None = None) -> str:
    """``report.md``. ``versions`` (package -> version) is printed for provenance."""
    L = _intro_lines(study, versions)
    L += _trends_section(study)
    L += _designs_section(study)
    L += _optimizer_section(study)
    L += _performance_section(study)
    L += _budgets_section(study)
    L += _model_vs_des_section(study)
    L += _plots_section(study)
    L += _parameters_section(study)
    return "\n".join(L)


# --------------------------------------------------------------------------------------------------
# Plots
# --------------------------------------------------------------------------------------------------
_RC = {
    "font.family": "DejaVu Sans", "font.size": 9.0, "axes.titlesize": 10.0, "axes.labelsize": 9.0,
    "xtick.labelsize": 8.0, "ytick.labelsize": 8.0, "legend.fontsize": 8.0, "figure.dpi": 100.0,
    "savefig.dpi": float(DPI), "text.hinting": "force_autohint",
    "text.antialiased": True, "lines.antialiased": True, "patch.antialiased": True, "svg.hashsalt": "ssdco",
    "path.simplify": True, "axes.grid": True, "grid.alpha": 0.3, "grid.linestyle": "-", "axes.axisbelow": True,
    "image.cmap": "viridis",
}
_COLORS = {"analytic": "#1f77b4", "des": "#ff7f0e", "cores": "#d62728", "accel": "#9467bd", "dram": "#2ca02c",
           "budget": "#000000"}


def _import_matplotlib():
    try:
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise SsdcoError("the study's plots need matplotlib, which is not installed: pip install 'ssdco[plot]' "
                         "(or pip install matplotlib)") from None
    return matplotlib, Figure, FigureCanvasAgg


def require_matplotlib() -> None:
    """Raise :class:`SsdcoError` with an install hint when matplotlib is missing (check before long runs)."""
    _import_matplotlib()


def _png_bytes(fig, canvas_cls) -> bytes:
    canvas_cls(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    return buf.getvalue()


def _plot_iops_power(study: Study, Figure):
    import numpy as np

    runs = study.runs
    names = [r.name for r in runs]
    x = np.arange(len(runs))
    w = 0.38
    fig = Figure(figsize=(8.0, 7.6))
    ax1, ax2, ax3 = fig.subplots(3, 1, sharex=True)
    ha = ax1.bar(x - w / 2, [r.analytic.iops / 1e3 for r in runs], w, label="analytic model",
                 color=_COLORS["analytic"])
    hd = ax1.bar(x + w / 2, [r.des.iops / 1e3 for r in runs], w, label="DES", color=_COLORS["des"])
    ax1.set_ylabel("IOPS (thousands)")
    wl = study.config.workload
    ax1.set_title("Throughput" + (f" (closed workload, QD{wl.queue_depth})" if wl.closed else ""))
    ax1.set_ylim(0, max(max(r.analytic.iops, r.des.iops) for r in runs) / 1e3 * 1.12)
    for xi, r in zip(x, runs):
        ax1.text(xi, max(r.analytic.iops, r.des.iops) / 1e3 * 1.01, f"{r.analytic.iops / 1e3:.0f}",
                 ha="center", va="bottom", fontsize=7)

    b = study.config.budgets
    for ax, attr, limit, label, title in (
            (ax2, "core_side_mw", b.core_power_mw, "core-side power", "Core-side power (cores + accelerators)"),
            (ax3, "dram_mw", b.dram_power_mw, "DRAM power", "DRAM power")):
        va = [getattr(r.analytic, attr) for r in runs]
        vd = [getattr(r.des, attr) for r in runs]
        ax.bar(x - w / 2, va, w, color=_COLORS["analytic"])
        ax.bar(x + w / 2, vd, w, color=_COLORS["des"])
        top = max(max(va), max(vd), limit if math.isfinite(limit) else 0.0)
        if math.isfinite(limit):
            hb = ax.axhline(limit, color=_COLORS["budget"], linestyle="--", linewidth=1.2)
            ax.text(x[-1] + 0.5, limit + top * 0.015, f"budget {limit:g} mW", ha="right", va="bottom",
                    fontsize=8, bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.0})
        ax.set_ylabel(f"{label} (mW)")
        ax.set_title(title)
        ax.set_ylim(0, top * 1.15)
    ax3.set_xticks(x, names)
    ax3.set_xlim(-0.6, len(runs) - 0.4)
    ax3.set_xlabel("design" + (" (pick = the optimizer's choice)" if any(r.origin == "optimizer" for r in runs)
                               else ""))
    handles = [ha, hd] + ([hb] if math.isfinite(b.core_power_mw) or math.isfinite(b.dram_power_mw) else [])
    fig.legend(handles, ["analytic model", "DES", "power budget"][:len(handles)], loc="upper center", ncols=3,
               frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 0.965))
    return fig


def _plot_energy(study: Study, Figure):
    import numpy as np

    runs = study.runs
    x = np.arange(len(runs))
    fig = Figure(figsize=(8.0, 4.2))
    ax = fig.subplots()
    cores = np.array([r.analytic.cores_mw / r.analytic.iops * 1e6 for r in runs])
    acc = np.array([r.analytic.accelerators_mw / r.analytic.iops * 1e6 for r in runs])
    dram = np.array([r.analytic.dram_mw / r.analytic.iops * 1e6 for r in runs])
    ax.bar(x, dram, 0.6, label="DRAM", color=_COLORS["dram"])
    ax.bar(x, cores, 0.6, bottom=dram, label="cores", color=_COLORS["cores"])
    ax.bar(x, acc, 0.6, bottom=dram + cores, label="accelerators", color=_COLORS["accel"])
    ax.plot(x, [r.des.energy_per_io_nj for r in runs], "D", color="black", markersize=5,
            label="DES total")
    for xi, tot in zip(x, dram + cores + acc):
        ax.text(xi, tot * 1.01, f"{tot:,.0f}", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(x, [r.name for r in runs])
    ax.set_ylabel("energy per I/O (nJ)")
    ax.set_xlabel("design (bars: analytic model, by component)")
    ax.set_title("Controller energy per I/O (cores + accelerators + DRAM)")
    ax.set_ylim(0, float((dram + cores + acc).max()) * 1.15)
    ax.legend(loc="upper right", ncols=4)
    fig.tight_layout()
    return fig


def _spread_labels(points: list[tuple[float, float, str]], min_dy: float, near_dx: float) -> list[float]:
    """Label heights (data units) so labels of nearby points are at least ``min_dy`` apart (greedy, top down)."""
    order = sorted(range(len(points)), key=lambda i: (-points[i][1], points[i][0], points[i][2]))
    placed: list[tuple[float, float]] = []  # (x, label y)
    out = [0.0] * len(points)
    for i in order:
        x, y, _ = points[i]
        ly = y
        for px, py in sorted(placed, key=lambda t: -t[1]):
            if abs(px - x) <= near_dx and ly > py - min_dy:
                ly = py - min_dy
        placed.append((x, ly))
        out[i] = ly
    return out


def _labels_on_the_left(points: list[tuple[float, float]], heights: list[float], span_dx: float,
                        span_dy: float) -> list[bool]:
    """For each point (x, y) labelled at ``heights``: True when its label goes on the left, because another
    point lies within ``span_dx`` to its right and ``span_dy`` of the label's height (where a label on
    the right would cover it)."""
    return [any(0.0 < qx - x <= span_dx and abs(qy - ly) <= span_dy for j, (qx, qy) in enumerate(points) if j != i)
            for i, ((x, _), ly) in enumerate(zip(points, heights))]


def _pareto_zoom(costs, iops, marked: list[ControllerRun], target: float | None):
    """The zoom window ``(x0, x1, y0, y1)`` on the designs near the top of the front, where the presets and the
    pick sit, and ``top``, the highest IOPS (thousands) of the front and the marked designs."""
    top = max(float(iops.max()), max((r.analytic.iops / 1e3 for r in marked), default=0.0))
    ys = [r.analytic.iops / 1e3 for r in marked if r.analytic.iops / 1e3 >= 0.85 * top]
    if target is not None:
        ys.append(target)
    y0, y1 = min(ys) - 0.04 * top, top * 1.015
    sel = (iops >= y0) & (iops <= y1)
    xs = list(costs[sel]) + [r.cost for r in marked if y0 <= r.analytic.iops / 1e3 <= y1]
    x0, x1 = min(xs) - 0.25, max(xs) + 0.55
    return (x0, x1, y0, y1), top


def _scatter_front(ax, costs, iops, power, meets, f2, kw: Mapping[str, Any]):
    """The front's designs coloured by core-side power (circles meet every target, triangles miss one) and the
    cost-IOPS staircase ``f2``; returns the circles (the colour bar's mappable)."""
    sc = ax.scatter(costs[meets], iops[meets], c=power[meets], s=30, marker="o", edgecolors="black",
                    linewidths=0.4, zorder=3, label="front design meeting every target", **kw)
    ax.scatter(costs[~meets], iops[~meets], c=power[~meets], s=16, marker="v", alpha=0.85, linewidths=0,
               zorder=2, label="front design missing a target", **kw)
    if f2.size:
        ax.step(costs[f2], iops[f2], where="post", color="black", linewidth=1.0, zorder=1,
                label="cost-IOPS front (power ignored)")
    return sc


def _mark_designs(ax, marked: list[ControllerRun], target: float | None, kw: Mapping[str, Any]) -> None:
    """The IOPS target line, and the presets (squares) and the pick (a star) at their analytic IOPS."""
    if target is not None:
        ax.axhline(target, color="grey", linestyle="--", linewidth=1.0, zorder=1,
                   label=f"IOPS target {target:,.0f} k")
    for r in marked:
        star = r.origin == "optimizer"
        ax.scatter([r.cost], [r.analytic.iops / 1e3], marker="*" if star else "s", s=320 if star else 48,
                   c=[r.analytic.core_side_mw], edgecolors="red", linewidths=1.3, zorder=7 if star else 5, **kw)


def _design_label(r: ControllerRun) -> str:
    """A marked design's label: the preset's name, or "optimizer pick"."""
    return r.name if r.origin == "preset" else "optimizer pick"


def _label_outside_zoom(ax, marked: list[ControllerRun], inside: list[ControllerRun]) -> None:
    """Labels of the marked designs outside the zoom window, beside their points."""
    for r in marked:
        if r in inside:
            continue
        ax.annotate(_design_label(r), (r.cost, r.analytic.iops / 1e3), textcoords="offset points", xytext=(7, -3),
                    fontsize=7, color="darkred", zorder=9)


def _label_inside_zoom(ax, inside: list[ControllerRun], window: tuple[float, float, float, float]) -> None:
    """Labels of the designs inside the zoom window, spread apart vertically and each to the right of its point,
    unless another marked design sits there (c09 and c10: same IOPS)."""
    x0, x1, y0, y1 = window
    pts = [(r.cost, r.analytic.iops / 1e3, r.name) for r in inside]
    heights = _spread_labels(pts, min_dy=(y1 - y0) * 0.045, near_dx=(x1 - x0) * 0.12)
    left = _labels_on_the_left([(x, y) for x, y, _ in pts], heights, (x1 - x0) * 0.12, (y1 - y0) * 0.03)
    for r, ly, blocked in zip(inside, heights, left):
        side = -1.0 if blocked else 1.0
        ax.annotate(_design_label(r), (r.cost, r.analytic.iops / 1e3), xytext=(r.cost + side * (x1 - x0) * 0.035, ly),
                    textcoords="data", va="center", ha="right" if blocked else "left", fontsize=7.5,
                    color="darkred", weight="bold" if r.origin == "optimizer" else "normal", zorder=9,
                    arrowprops={"arrowstyle": "-", "color": "darkred", "linewidth": 0.5})


def _pareto_axes_text(ax_all, ax_zoom, n_front: int, space_size: int) -> None:
    """The left panel's legend (with entries for the presets and the pick), the axis labels and the titles."""
    ax_all.scatter([], [], marker="s", s=48, facecolors="none", edgecolors="red", linewidths=1.3,
                   label="presets c01-c10")
    ax_all.scatter([], [], marker="*", s=160, facecolors="none", edgecolors="red", linewidths=1.3,
                   label="optimizer pick")
    ax_all.legend(loc="lower right", fontsize=7)
    for ax in (ax_all, ax_zoom):
        ax.set_xlabel("cost (relative: cores + accelerators + DRAM)")
    ax_all.set_ylabel("IOPS (thousands, analytic model)")
    ax_all.set_title(f"Pareto front: {n_front:,} of {space_size:,} designs")
    ax_zoom.set_title("zoom on the dotted box")


def _pareto_colorbar(fig, sc, cax, budget: float, vmax: float) -> None:
    """The core-side power colour bar, the budget marked on it in red when it is set and within the scale."""
    import numpy as np

    cb = fig.colorbar(sc, cax=cax)
    cb.set_label("core-side power, cores + accelerators (mW)")
    if not (math.isfinite(budget) and budget <= vmax):
        return
    cb.ax.axhline(budget, color="red", linewidth=1.8)
    step = 50.0 if vmax > 120 else 20.0
    ticks = [t for t in np.arange(0.0, vmax + 1e-9, step) if abs(t - budget) > 0.12 * vmax] + [budget]
    cb.set_ticks(sorted(ticks))
    cb.set_ticklabels([f"budget {t:g}" if t == budget else f"{t:g}" for t in sorted(ticks)])
    for lab in cb.ax.get_yticklabels():
        if lab.get_text().startswith("budget"):
            lab.set_color("red")


def _plot_pareto(study: Study, Figure):
    """The Pareto front (cost against analytic IOPS, coloured by core-side power) with the presets and the pick:
    the whole front on the left, a zoom on its top on the right."""
    import numpy as np
    from matplotlib.patches import Rectangle

    p = study.pareto
    fig = Figure(figsize=(11.0, 5.4))
    gs = fig.add_gridspec(1, 3, width_ratios=(1.0, 1.15, 0.045), wspace=0.2)
    ax_all, ax_zoom, cax = fig.add_subplot(gs[0]), fig.add_subplot(gs[1]), fig.add_subplot(gs[2])
    costs, iops = np.asarray(p.costs, dtype=float), np.asarray(p.iops, dtype=float) / 1e3
    power = np.asarray(p.core_side_mw, dtype=float)
    meets = np.asarray(p.meets_targets, dtype=bool)
    marked = [r for r in study.runs if r.cost is not None]
    budget = study.config.budgets.core_power_mw
    vmax = max([float(power.max())] + [r.analytic.core_side_mw for r in marked]
               + ([budget] if math.isfinite(budget) else []))
    kw = {"cmap": "viridis", "vmin": 0.0, "vmax": vmax}
    target = study.optimizer.target_iops / 1e3 if study.optimizer is not None else None
    f2 = np.asarray(p.front_2d, dtype=int)
    (x0, x1, y0, y1), top = _pareto_zoom(costs, iops, marked, target)

    sc = None
    for ax in (ax_all, ax_zoom):
        sc = _scatter_front(ax, costs, iops, power, meets, f2, kw)
        _mark_designs(ax, marked, target, kw)
    ax_all.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, edgecolor="black", linestyle=":",
                               linewidth=1.0, zorder=8))
    ax_all.set_ylim(0, top * 1.06)
    ax_zoom.set_xlim(x0, x1)
    ax_zoom.set_ylim(y0, y1)
    # labels: outside the zoom on the left panel, inside it on the right one
    inside = [r for r in marked if y0 <= r.analytic.iops / 1e3 <= y1 and x0 <= r.cost <= x1]
    _label_outside_zoom(ax_all, marked, inside)
    _label_inside_zoom(ax_zoom, inside, (x0, x1, y0, y1))
    _pareto_axes_text(ax_all, ax_zoom, len(costs), p.space_size)
    _pareto_colorbar(fig, sc, cax, budget, vmax)
    fig.subplots_adjust(left=0.06, right=0.9, top=0.92, bottom=0.11)
    return fig


def _plot_cdf(study: Study, Figure):
    """Every design's DES latency tail, 1 - CDF on a log axis (ssdco/report/plots.py), the pick drawn thicker."""
    from ssdco.report.plots import latency_tail_figure

    curves = []
    for r in study.runs:
        xs, fs = (list(v) for v in r.latency_cdf_us)
        if xs:
            name = "optimizer pick" if r.origin == "optimizer" else r.name
            curves.append((f"{name}: mean {r.des.latency_mean_us:,.1f} us, p99 {r.des.latency_p99_us:,.1f} us",
                           xs, fs))
    title = f"DES latency tail of every design ({study.requests:,} requests each, seed {study.seed})"
    if not curves:
        fig = Figure(figsize=(8.0, 3.0))
        ax = fig.subplots()
        ax.text(0.5, 0.5, "no DES latency measured", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        ax.set_title(title)
        return fig
    return latency_tail_figure(curves, title=title, highlight=[c[0] for c in curves if c[0].startswith("optimizer")])


def render_plots(study: Study) -> dict[str, bytes]:
    """The study's PNG plots as bytes, keyed by file name."""
    matplotlib, Figure, Canvas = _import_matplotlib()
    out = {}
    with matplotlib.rc_context():
        matplotlib.rcdefaults()
        matplotlib.rcParams.update(_RC)
        makers = [("iops_power", _plot_iops_power), ("energy", _plot_energy), ("cdf", _plot_cdf)]
        if study.pareto is not None:
            makers.insert(2, ("pareto", _plot_pareto))
        for key, make in makers:
            out[PLOT_FILES[key]] = _png_bytes(make(study, Figure), Canvas)
    return out


def write_plots(study: Study, out_dir: str | Path) -> list[Path]:
    """Write the PNG plots atomically into ``out_dir``; returns their paths."""
    out_dir = Path(out_dir)
    paths = []
    for name, data in render_plots(study).items():
        p = out_dir / name
        write_bytes_atomic(p, data)
        paths.append(p)
    return paths


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for pkg in ("ssdco", "numpy", "matplotlib"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "not installed"
    return out


STUDY_FILES = ("report.md", "results.csv", *PLOT_FILES.values())


def check_study_dir(out_dir: str | Path) -> None:
    """Refuse (ConfigError naming ``--out``) a directory that holds files a study does not write: the study replaces
    the whole directory (:func:`write_study`)."""
    foreign = foreign_entries(out_dir, STUDY_FILES)
    if foreign:
        raise ConfigError("--out", "out", str(out_dir),
                          f"holds files a study does not write ({', '.join(foreign[:5])}"
                          f"{', ...' if len(foreign) > 5 else ''}); a study replaces the whole directory: give a "
                          "new or a study's own directory")


def write_study(study: Study, out_dir: str | Path) -> list[Path]:
    """Write ``report.md``, ``results.csv`` and the plots as directory ``out_dir``, all at once: into a hidden
    sibling directory that then replaces ``out_dir`` (``atomic.write_dir_atomic``), so that a killed study leaves
    the previous report or the new one, never a mix. ``out_dir`` may hold only a study's files
    (:func:`check_study_dir`).

    The plots are rendered first, so a missing matplotlib fails before anything is written."""
    out_dir = Path(out_dir)
    check_study_dir(out_dir)
    plots = render_plots(study)
    texts = {"results.csv": study_csv(study), "report.md": study_markdown(study, _versions())}

    def fill(d: Path) -> None:
        for name, data in plots.items():
            write_bytes_atomic(d / name, data)
        for name, text in texts.items():
            write_text_atomic(d / name, text)

    write_dir_atomic(out_dir, fill)
    return [out_dir / "report.md", out_dir / "results.csv", *(out_dir / name for name in plots)]
