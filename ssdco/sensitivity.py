"""Which model parameter moves the answer: local elasticities, break-even values and global screening.

Local elasticities cover IOPS, latency, power (controller and whole drive) and energy per I/O.

The elasticity of a figure f to a parameter p is d ln f / d ln p: the percentage change of f per percent of p.
:func:`elasticities` takes it by central differences of the analytic model (``ssdco.evaluate``),
(f(p (1 + h)) - f(p (1 - h))) / (2 h f(p)), for every numeric field of the device file that the model reads (the
``[nand]``, ``[host]``, ``[dram]``, ``[modules.*]``, ``[core_specs.*]`` and ``[accelerator_specs.*]`` tables;
not the workload, budgets or search options). A field whose perturbed value the file's checks refuse (an integer
such as the channel count) or whose value is 0 is listed as not varied, with the reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

from ssdco.errors import ConfigError
from ssdco.spec import Config, apply_overrides, config_from_dict

#: The device-file tables whose numeric fields are model parameters.
PARAMETER_TABLES = ("nand", "host", "dram", "modules", "core_specs", "accelerator_specs")
#: The figures whose elasticities are reported: (name, unit, how the answer gives it).
FIGURES: tuple[tuple[str, Callable[[Any], float]], ...] = (
    ("iops", lambda r: r.iops),
    ("latency_mean_us", lambda r: r.latency_mean_us),
    ("core_side_mw", lambda r: r.power.core_side_mw),
    ("dram_mw", lambda r: r.power.dram_mw),
    ("energy_per_io_nj", lambda r: r.energy_per_io_nj),
    ("drive_mw", lambda r: r.power.drive_mw),
)
DEFAULT_STEP = 0.01  # h: 1 % either side


@dataclass(frozen=True)
class Elasticity:
    """The elasticities (dimensionless) of each of :data:`FIGURES` to one parameter at its ``value``."""

    parameter: str  # dotted path in the device file, e.g. "nand.t_read_us"
    value: float
    by_figure: dict[str, float]

    @property
    def largest(self) -> float:
        """The largest absolute elasticity over the figures."""
        return max((abs(x) for x in self.by_figure.values() if math.isfinite(x)), default=0.0)


@dataclass(frozen=True)
class Sensitivity:
    """:func:`elasticities`' answer: the varied parameters, most influential on IOPS first, and those not varied
    with why."""

    base: dict[str, float]  # each figure at the configured values
    step: float
    varied: tuple[Elasticity, ...]
    not_varied: tuple[tuple[str, str], ...]  # (parameter, reason)


def numeric_parameters(raw: dict[str, Any]) -> Iterator[tuple[str, float]]:
    """``(dotted path, value)`` of every number (not a boolean) in the device file's :data:`PARAMETER_TABLES`."""
    def walk(prefix: str, node: Any) -> Iterator[tuple[str, float]]:
        if isinstance(node, dict):
            for key, value in node.items():
                yield from walk(f"{prefix}.{key}", value)
        elif isinstance(node, (int, float)) and not isinstance(node, bool):
            yield prefix, float(node)

    for table in PARAMETER_TABLES:
        if isinstance(raw.get(table), dict):
            yield from walk(table, raw[table])


def _with(config: Config, path: str, value: float) -> Config:
    """``config`` with the field at ``path`` set to ``value`` (the file's checks applied)."""
    raw = apply_overrides(dict(config.raw), [f"{path}={value!r}"])
    return config_from_dict(raw, source=config.source, base_dir=Path(config.source).parent,
                            controller=config.controller)


def _figures(result) -> dict[str, float]:
    return {name: float(get(result)) for name, get in FIGURES}


def _elasticity(base: dict[str, float], up: dict[str, float], down: dict[str, float], step: float) -> dict:
    out = {}
    for name, f0 in base.items():
        out[name] = (up[name] - down[name]) / (2.0 * step * f0) if f0 and math.isfinite(f0) else math.nan
    return out


def elasticities(config: Config, *, step: float = DEFAULT_STEP, effort: str = "full",
                 parameters: tuple[str, ...] | None = None, progress: Callable[[str], None] | None = None
                 ) -> Sensitivity:
    """Elasticities of IOPS, mean latency (us), core-side, DRAM and whole-drive power (mW) and energy per I/O
    (nJ) to each numeric model parameter of ``config`` (or only ``parameters``, dotted paths), by central differences of
    ``ssdco.evaluate`` at ``effort`` with relative step ``step`` (module docstring). ``progress`` is called with
    each parameter's path before it is evaluated."""
    from ssdco.model.whatif import evaluate

    if not 0.0 < step < 0.5:
        raise ConfigError("command line", "--sensitivity-step", step, "expected a number in (0, 0.5)")
    found = dict(numeric_parameters(config.raw))
    if parameters is not None:
        unknown = [p for p in parameters if p not in found]
        if unknown:
            raise ConfigError(config.source, unknown[0], None, "a numeric field of the device file's "
                                                               + ", ".join(PARAMETER_TABLES) + " tables")
        found = {p: found[p] for p in parameters}
    base = _figures(evaluate(config, effort=effort))
    varied, skipped = [], []
    for path, value in found.items():
        if progress is not None:
            progress(path)
        if value == 0.0:
            skipped.append((path, "its value is 0 (no relative change)"))
            continue
        try:
            up = _figures(evaluate(_with(config, path, value * (1.0 + step)), effort=effort))
            down = _figures(evaluate(_with(config, path, value * (1.0 - step)), effort=effort))
        except ConfigError as e:
            skipped.append((path, f"the file's checks refuse {value:g} x (1 +- {step:g}): {e.allowed}"))
            continue
        varied.append(Elasticity(path, value, _elasticity(base, up, down, step)))
    varied.sort(key=lambda e: (-abs(e.by_figure["iops"]) if math.isfinite(e.by_figure["iops"]) else 0.0,
                               -e.largest))
    return Sensitivity(base=base, step=step, varied=tuple(varied), not_varied=tuple(skipped))


def sensitivity_table(s: Sensitivity, limit: int | None = None) -> str:
    """The elasticities as a text table (parameters with every elasticity below 1e-4 left out and counted)."""
    shown = [e for e in s.varied if e.largest >= 1e-4]
    quiet = len(s.varied) - len(shown)
    if limit is not None:
        shown = shown[:limit]
    names = [name for name, _ in FIGURES]
    width = max([len("parameter")] + [len(e.parameter) for e in shown])
    lines = [f"SENSITIVITY (elasticities: % change of each figure per 1 % of the parameter; central differences "
             f"of +-{s.step:.0%})",
             f"  {'parameter':<{width}} {'value':>10} " + " ".join(f"{n:>16}" for n in names)]
    for e in shown:
        lines.append(f"  {e.parameter:<{width}} {e.value:>10.4g} "
                     + " ".join(f"{e.by_figure[n]:>+16.4f}" for n in names))
    lines.append(f"  {quiet} other parameter(s) move no figure by 1e-4 or more; {len(s.not_varied)} not varied")
    for path, why in s.not_varied:
        lines.append(f"    {path}: {why}")
    return "\n".join(lines)


#: Multipliers of a parameter tried in each direction (``break_even``), nearest first: up to twice and down to half.
BREAK_EVEN_STEPS = (1.05, 1.1, 1.25, 1.5, 2.0)
BREAK_EVEN_BISECTIONS = 4  # halvings of the bracket once the answer changes: about 1/16 of its width


@dataclass(frozen=True)
class BreakEven:
    """Where ``parameter`` (from ``value``) makes ``decide``'s answer change, in each direction: the nearest
    multiplier found that changes it (``up`` > 1, ``down`` < 1; None: not within x2 or /2) and the answer there."""

    parameter: str
    value: float
    up: float | None
    up_answer: str | None
    down: float | None
    down_answer: str | None


def _changes(config: Config, path: str, value: float, factor: float, decide, base: str) -> tuple[bool, str | None]:
    try:
        answer = decide(_with(config, path, value * factor))
    except ConfigError:
        return False, None
    return answer != base, answer


def _bracket(config: Config, path: str, value: float, decide, base: str, steps) -> tuple[float | None, str | None]:
    """The nearest multiplier (to ``BREAK_EVEN_BISECTIONS`` halvings) in ``steps``' direction that changes the
    answer, and the answer there."""
    inside = 1.0
    for factor in steps:
        changed, answer = _changes(config, path, value, factor, decide, base)
        if changed:
            outside = factor
            for _ in range(BREAK_EVEN_BISECTIONS):
                middle = math.sqrt(inside * outside)
                moved, there = _changes(config, path, value, middle, decide, base)
                if moved:
                    outside, answer = middle, there
                else:
                    inside = middle
            return outside, answer
        inside = factor
    return None, None


def break_even(config: Config, parameter: str, decide: Callable[[Config], str | None]) -> BreakEven:
    """How far ``parameter`` (a dotted path) may move, up and down, before ``decide(config)`` (e.g. the optimizer's
    pick as a label) gives another answer: :data:`BREAK_EVEN_STEPS` outwards, then bisection in log scale.
    Raises ConfigError for an unknown or zero-valued parameter."""
    found = dict(numeric_parameters(config.raw))
    if parameter not in found or found[parameter] == 0.0:
        raise ConfigError(config.source, parameter, found.get(parameter), "a non-zero numeric field of the device "
                                                                          "file's " + ", ".join(PARAMETER_TABLES))
    value = found[parameter]
    base = decide(config)
    up, up_answer = _bracket(config, parameter, value, decide, base, BREAK_EVEN_STEPS)
    down, down_answer = _bracket(config, parameter, value, decide, base, tuple(1.0 / f for f in BREAK_EVEN_STEPS))
    return BreakEven(parameter, value, up, up_answer, down, down_answer)


def break_even_lines(rows: list[BreakEven], base_answer: str) -> list[str]:
    """The BREAK-EVEN table: for each parameter, the values at which the answer stops being ``base_answer``."""
    lines = [f"BREAK-EVEN (where the pick stops being {base_answer}; searched within x0.5 to x2)"]
    for b in rows:
        for direction, factor, answer in (("up", b.up, b.up_answer), ("down", b.down, b.down_answer)):
            where = (f"at {b.value * factor:.4g} ({factor - 1:+.1%}): {answer or 'nothing qualifies'}"
                     if factor is not None else "unchanged within the range")
            lines.append(f"  {b.parameter} {direction:<4} {where}")
    return lines


# --------------------------------------------------------------------------------------------------
# Global screening over stated ranges (Morris, by SALib)
# --------------------------------------------------------------------------------------------------
SALIB_HINT = "global sensitivity needs SALib, which is not installed: pip install 'ssdco[sensitivity]'"
MORRIS_LEVELS = 4  # grid levels of each parameter's range (SALib's default)
#: The figures the global screening reports: IOPS, mean latency (us), core-side, DRAM and whole-drive power (mW).
GLOBAL_FIGURES: tuple[tuple[str, Callable[[Any], float]], ...] = FIGURES[:4] + FIGURES[5:]


@dataclass(frozen=True)
class GlobalEffect:
    """Morris's measures of one parameter over its ``low``..``high`` range, per figure (in the figure's unit):
    ``mu_star`` the mean absolute change of the figure as the parameter crosses its whole range (elementary
    effects scaled to the range), ``sigma`` their spread (nonlinearity or interaction with the others),
    ``mu_star_conf`` the 95 % bootstrap half-width of ``mu_star``."""

    parameter: str
    low: float
    high: float
    mu_star: dict[str, float]
    sigma: dict[str, float]
    mu_star_conf: dict[str, float]


@dataclass(frozen=True)
class GlobalSensitivity:
    """:func:`global_sensitivity`'s answer: the effects, largest IOPS ``mu_star`` first, and the design count."""

    effects: tuple[GlobalEffect, ...]
    trajectories: int
    evaluations: int
    seed: int


def parse_ranges(text: str) -> dict[str, tuple[float, float]]:
    """``"nand.t_read_us=40:60,modules.parse.cycles=800:1400"`` as {path: (low, high)}; ConfigError otherwise."""
    out: dict[str, tuple[float, float]] = {}
    for item in (part.strip() for part in text.split(",") if part.strip()):
        path, _, span = item.partition("=")
        lo, _, hi = span.partition(":")
        try:
            low, high = float(lo), float(hi)
        except ValueError:
            low = high = math.nan
        if not path.strip() or not (math.isfinite(low) and math.isfinite(high) and low < high):
            raise ConfigError("command line", "--sensitivity-global", item,
                              "expected PATH=LOW:HIGH with numbers LOW < HIGH, e.g. nand.t_read_us=40:60")
        out[path.strip()] = (low, high)
    if len(out) < 2:
        raise ConfigError("command line", "--sensitivity-global", text, "expected at least two PATH=LOW:HIGH ranges")
    return out


def global_sensitivity(config: Config, ranges: dict[str, tuple[float, float]], *, trajectories: int = 10,
                       seed: int = 0, effort: str = "fast") -> GlobalSensitivity:
    """Morris's elementary-effects screening (SALib) of IOPS, mean latency, core-side, DRAM and drive power over
    ``ranges`` (dotted path -> (low, high)): ``trajectories`` x (parameters + 1) designs drawn from ``seed``, each
    answered by ``ssdco.evaluate`` at ``effort``. Morris, "Factorial sampling plans for preliminary computational
    experiments", Technometrics 33 (1991); Campolongo et al. (2007) for mu*. Raises ConfigError for a path that is
    not a numeric model parameter or a drawn value the file's checks refuse."""
    try:
        from SALib.analyze import morris as analyze
        from SALib.sample import morris as sample
    except ImportError:
        raise ConfigError("command line", "--sensitivity-global", "", SALIB_HINT) from None
    from ssdco.model.whatif import evaluate

    known = dict(numeric_parameters(config.raw))
    for path in ranges:
        if path not in known:
            raise ConfigError(config.source, path, None, "a numeric field the file sets in its "
                                                         + ", ".join(PARAMETER_TABLES) + " tables")
    names = list(ranges)
    problem = {"num_vars": len(names), "names": names, "bounds": [list(ranges[p]) for p in names]}
    x = sample.sample(problem, trajectories, num_levels=MORRIS_LEVELS, seed=seed)
    rows = []
    for point in x:
        raw = apply_overrides(dict(config.raw), [f"{p}={float(v)!r}" for p, v in zip(names, point)])
        design = config_from_dict(raw, source=config.source, base_dir=Path(config.source).parent,
                                  controller=config.controller)
        rows.append([float(get(evaluate(design, effort=effort))) for _, get in GLOBAL_FIGURES])
    y = np.asarray(rows)
    measures = {}
    for j, (figure, _) in enumerate(GLOBAL_FIGURES):
        measures[figure] = analyze.analyze(problem, x, y[:, j], num_levels=MORRIS_LEVELS, seed=seed)
    effects = [GlobalEffect(p, *ranges[p],
                            mu_star={f: float(m["mu_star"][i]) for f, m in measures.items()},
                            sigma={f: float(m["sigma"][i]) for f, m in measures.items()},
                            mu_star_conf={f: float(m["mu_star_conf"][i]) for f, m in measures.items()})
               for i, p in enumerate(names)]
    effects.sort(key=lambda e: -e.mu_star["iops"])
    return GlobalSensitivity(effects=tuple(effects), trajectories=trajectories, evaluations=len(x), seed=seed)


def global_table(g: GlobalSensitivity) -> str:
    """The Morris measures as a text table: per parameter, its range and mu* (sigma) of each figure."""
    heads = {"iops": "IOPS", "latency_mean_us": "latency us", "core_side_mw": "core mW", "dram_mw": "DRAM mW",
             "drive_mw": "drive mW"}
    lines = [f"GLOBAL SENSITIVITY (Morris, SALib: {g.trajectories} trajectories, {g.evaluations} designs, seed "
             f"{g.seed}): mu* = mean |change| of the figure across the parameter's whole range (sigma: its spread)",
             f"  {'parameter':<34}{'range':>18}" + "".join(f"{h:>22}" for h in heads.values())]
    for e in g.effects:
        cells = "".join(f"{e.mu_star[f]:>12,.4g} ({e.sigma[f]:,.3g})".rjust(22) for f in heads)
        lines.append(f"  {e.parameter:<34}{f'{e.low:g}..{e.high:g}':>18}{cells}")
    return "\n".join(lines)
