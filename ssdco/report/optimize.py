"""Formatting of an :class:`~ssdco.optimizer.search.OptimizeResult`: text, JSON dict, Pareto CSV, controller TOML.

Only strings and dicts are made here; ``ssdco/cli.py`` prints and writes files.

JSON schema ``ssdco.optimize/1`` (``ssdco optimize --json``): ``feasible``, ``status``, ``message``,
``targets``, ``cost``, ``cost_breakdown``, ``design`` (core groups, accelerators, per-module placement),
``analytic`` (the ``ssdco whatif --json`` document of the pick), ``des`` (``compare.des_to_dict`` of the
DES run that verified it, or null), ``model_vs_des`` (null without the DES: ``relative_error`` = analytic /
DES - 1, ``utilization_error``, ``tolerances``, ``des_replications``, ``des_timing_spread`` (null unless
``--timing-spread``), ``verdict`` AGREE / DISAGREE / UNSETTLED and ``agrees``, as in ``ssdco validate --json``),
``linear`` (the pick's slack vector at the target), ``runners_up``,
``binding`` (each: ``name``, ``limit``, ``value``, ``binds``, ``effect``, ``verified_by``: "des" where
its cheaper designs were verified as the pick was, with the DES, else "analytic"), ``infeasibility``,
``sensitivity``, ``cross_check``, ``pareto_points``, ``history``,
``space_size``, ``solver``, ``solve_seconds``, ``time_to_optimum_seconds``, ``timing``, ``device`` (the
mapping option of the pick) and ``device_options`` (one entry per ``[optimizer.dram]`` variant: ``name``,
``mapping``, ``cache_fraction``, ``sram_mib``, ``dram_size_gib``, ``dram_power_mw`` at the target, ``waf``,
``mapping_hit_ratio``, ``life_years`` at the target, ``feasible``, ``cost``, ``design``, ``iops``, ``note``).
"""

from __future__ import annotations

import csv
import io
import math
import textwrap
from typing import Any, Iterable

from ssdco.optimizer.enumerate import ParetoPoint
from ssdco.optimizer.space import Design
from ssdco.spec import MODULES, SCHEMA_VERSION

FAMILY_TEXT = {"core_power_mw": "core-side power budget", "dram_power_mw": "DRAM power budget",
               "min_iops": "IOPS target", "utilization_cap": "utilisation cap"}


def _num(x) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def design_dict(d: Design | None) -> dict[str, Any] | None:
    """A design as JSON: core groups, accelerators and where each module runs."""
    if d is None:
        return None
    placement = {}
    for m in MODULES:
        kind, where = d.placement(m)
        placement[m] = {"kind": "hardware", "units": where} if kind == "hardware" else {
            "kind": "software", "group": where.name, "spec": where.spec, "count": where.count}
    return {"label": d.label(),
            "core_groups": [{"name": g.name, "spec": g.spec, "count": g.count, "modules": list(g.modules)}
                            for g in d.groups],
            "accelerators": dict(d.hardware),
            "placement": placement}


def _candidate_dict(c) -> dict[str, Any]:
    return {"kind": c.kind, "cost": _num(c.cost), "delta_cost": _num(c.delta_cost), "lacks": list(c.lacks),
            "design": design_dict(c.design),
            "analytic": {"iops": _num(c.iops), "latency_mean_us": _num(c.latency_mean_us),
                         "core_power_mw": _num(c.core_power_mw), "dram_power_mw": _num(c.dram_power_mw)},
            "verified_by": c.verified_by}


MODEL_VS_DES_KEYS = ("relative_error", "utilization_error", "tolerances", "des_replications", "des_timing_spread",
                     "verdict", "agrees")


def _validation_dicts(v) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """``des`` and ``model_vs_des``: the pick's ``ssdco validate --json`` document, split (None without a DES)."""
    if v is None or v.validation is None:
        return None, None
    doc = v.validation.to_dict()
    return doc["des"], {k: doc[k] for k in MODEL_VS_DES_KEYS}


def _linear_dict(lin) -> dict[str, Any] | None:
    """``linear``: the pick's slack vector, utilisations, powers and zero-load latency at the target."""
    if lin is None:
        return None
    return {"slack": {k: _num(x) for k, x in lin.slack.items()},
            "utilization_at_target": {k: _num(x) for k, x in lin.utilization.items()},
            "core_power_mw_at_target": _num(lin.core_power_mw),
            "dram_power_mw_at_target": _num(lin.dram_power_mw),
            "zero_load_latency_us": _num(lin.zero_load_latency_us)}


def _infeasibility_dict(inf) -> dict[str, Any] | None:
    """``infeasibility``: the violated rows, the least-violating design and the closest designs."""
    if inf is None:
        return None
    return {"violated_rows": {k: {"value": _num(a), "limit": _num(b), "explanation": text}
                              for k, (a, b, text) in inf.rows.items()},
            "least_violating": design_dict(inf.least_violating),
            "closest": [_candidate_dict(c) for c in inf.closest]}


def _sensitivity_dict(x) -> dict[str, Any]:
    """One ``sensitivity`` entry: how far a parameter may move each way, and the design past each limit."""
    return {"parameter": x.parameter, "current": _num(x.current), "binding": x.binding,
            "tighten_limit": _num(x.tighten_limit), "tighten_becomes": design_dict(x.tighten_becomes),
            "tighten_becomes_cost": _num(x.tighten_becomes_cost), "loosen_limit": _num(x.loosen_limit),
            "loosen_becomes": design_dict(x.loosen_becomes), "loosen_becomes_cost": _num(x.loosen_becomes_cost)}


def _cross_check_dict(xc) -> dict[str, Any] | None:
    """``cross_check``: the ILP's optimum cost against brute-force enumeration's."""
    if xc is None:
        return None
    return {"ilp_cost": _num(xc.ilp_cost), "enumeration_cost": _num(xc.enumeration_cost), "agree": xc.agree,
            "designs": xc.designs, "seconds": _num(xc.seconds)}


def _targets_dict(t) -> dict[str, Any]:
    """``targets``: the IOPS/latency target and the budgets searched with."""
    return {"min_iops": _num(t.min_iops), "max_latency_us": _num(t.max_latency_us), "max_p99_us": _num(t.max_p99_us),
            "max_p999_us": _num(t.max_p999_us),
            "target_iops": _num(t.target_iops), "queue_depth": t.queue_depth,
            "core_power_mw": _num(t.core_power_mw), "dram_power_mw": _num(t.dram_power_mw),
            "drive_power_mw": _num(t.drive_power_mw), "utilization_cap": _num(t.utilization_cap)}


def _device_option_dict(o) -> dict[str, Any]:
    """One ``device_options`` entry (an ``[optimizer.nand]`` / ``[optimizer.dram]`` variant)."""
    return {"name": o.name, "channels": o.channels, "ways_per_channel": o.ways_per_channel,
            "dies_per_chip": o.dies_per_chip, "planes_per_die": o.planes_per_die, "nand_cost": _num(o.nand_cost),
            "channel_rate_mts": _num(o.channel_rate_mts),
            "mapping": o.mapping, "cache_fraction": _num(o.cache_fraction), "sram_mib": _num(o.sram_mib),
            "dram_size_gib": _num(o.dram_size_gib), "dram_power_mw": _num(o.dram_power_mw),
            "waf": _num(o.waf), "mapping_hit_ratio": _num(o.mapping_hit_ratio),
            "life_years": _num(o.life_years), "feasible": o.feasible, "cost": _num(o.cost),
            "design": design_dict(o.pick), "iops": _num(o.iops), "note": o.note}


def to_json(r) -> dict[str, Any]:
    """The ``ssdco optimize --json`` document (schema ``ssdco.optimize/1``)."""
    v = r.verdict
    des, model_vs_des = _validation_dicts(v)
    return {
        "schema": "ssdco.optimize/1",
        "config": r.config.name,
        "feasible": r.feasible,
        "status": r.status,
        "message": r.message,
        "targets": _targets_dict(r.targets),
        "cost": _num(r.cost),
        "cost_breakdown": {k: _num(x) for k, x in r.cost_breakdown.items()},
        "design": design_dict(r.pick),
        "analytic": v.analytic.to_dict() if v is not None else None,
        "des": des,
        "model_vs_des": model_vs_des,
        "linear": _linear_dict(r.linear),
        "runners_up": [_candidate_dict(c) for c in r.runners_up],
        "binding": [{"name": b.name, "limit": _num(b.limit), "value": _num(b.value), "binds": b.binds,
                     "effect": b.effect, "verified_by": b.verified_by} for b in r.binding],
        "infeasibility": _infeasibility_dict(r.infeasibility),
        "sensitivity": [_sensitivity_dict(x) for x in r.sensitivity] if r.sensitivity is not None else None,
        "cross_check": _cross_check_dict(r.cross_check),
        "pareto_points": len(r.pareto) if r.pareto is not None else None,
        "history": [{"step": i, "design": lbl, "cost": _num(c), "verdict": verdict}
                    for i, lbl, c, verdict in r.history],
        "space_size": r.space_size,
        "solver": r.solver,
        "solve_seconds": _num(r.solve_seconds),
        "time_to_optimum_seconds": _num(r.time_to_optimum_seconds),
        "timing": {k: _num(x) for k, x in r.timing.items()},
        "device": r.device,
        "device_options": [_device_option_dict(o) for o in r.device_options],
    }


# --------------------------------------------------------------------------------------------------
# text
# --------------------------------------------------------------------------------------------------
def _mw(x) -> str:
    return "not set" if x is None or not math.isfinite(x) else f"{x:,.1f} mW"


def _at_most_mw(x) -> str:
    """``<= X mW`` for a set power budget, ``not set`` for an unset (unlimited) one."""
    return "not set" if x is None or not math.isfinite(x) else f"<= {_mw(x)}"


def _targets_line(t) -> str:
    parts = [f">= {t.min_iops:,.0f} IOPS" if t.min_iops > 0 else "no IOPS floor"]
    if t.max_latency_us is not None:
        parts.append(f"mean latency <= {t.max_latency_us:,.2f} us (= {t.queue_depth / t.max_latency_us * 1e6:,.0f} "
                     f"IOPS at QD{t.queue_depth})")
    if t.max_p99_us is not None:
        parts.append(f"p99 latency <= {t.max_p99_us:,.2f} us")
    if t.max_p999_us is not None:
        parts.append(f"p99.9 latency <= {t.max_p999_us:,.2f} us (DES)")
    parts += [f"{name} {_at_most_mw(mw)}" if math.isfinite(mw) else f"{name} power not set"
              for name, mw in (("core-side", t.core_power_mw), ("DRAM", t.dram_power_mw))]
    if math.isfinite(t.drive_power_mw):  # checked on verified designs, not in the linear model
        parts.append(f"whole drive {_at_most_mw(t.drive_power_mw)} (verified)")
    parts.append(f"utilisation cap {t.utilization_cap:.0%}"
                 + (f" at {t.target_iops:,.0f} IOPS" if t.target_iops > 0 else ""))
    return "; ".join(parts)


def _spec_name(config, spec: str) -> str:
    """A core spec's name with its clock, e.g. ``r1g (1000 MHz)``."""
    c = config.core_specs.get(spec)
    return spec if c is None else f"{spec} ({c.frequency_mhz:g} MHz)"


def _space_line(r) -> str:
    o = r.space.options
    hw = ", ".join(o.hardware_modules) or "none"
    specs = ", ".join(_spec_name(r.config, name) for name in o.core_specs)
    return (f"{r.space_size:,} designs (core specs {specs} x 1..{o.max_cores_per_group} per group, "
            f"any grouping of software modules; hardware for {hw}, 1..{o.max_units} units)")


def _cost_line(r) -> str:
    """What "cost" means: relative silicon cost from the config's cost fields, with the unit's core named."""
    cfg = r.config
    unit = next((name for name in r.space.options.core_specs
                 if name in cfg.core_specs and cfg.core_specs[name].cost == 1.0), None)
    per_core = ", ".join(f"{n} {cfg.core_specs[n].cost:g}" for n in r.space.options.core_specs if n in cfg.core_specs)
    return ("relative silicon cost (no unit; from the config's cost fields"
            + (f", 1 = one {_spec_name(cfg, unit).replace(' (', ' core (', 1)}" if unit else "")
            + f"): a core costs core_specs.*.cost ({per_core}), an accelerator unit its unit_cost plus its "
              f"module's development_cost once, DRAM cost_per_gib per GiB")


def _search_lines(r) -> list[str]:
    """How the search went: solver, time to the linear optimum, designs verified, screening, cross-check."""
    solve = f"  search   {r.solver.upper()} ILP"
    if r.time_to_optimum_seconds is not None:
        solve += f": linear optimum in {r.time_to_optimum_seconds:.3f} s"
    solve += f"; {r.timing.get('verify_iterations', 0)} design(s) verified; total {r.solve_seconds:.2f} s"
    L = [solve]
    if r.timing.get("screened_designs"):
        L.append(f"  screen   the other searches (runners-up, binding, explanation) checked "
                 f"{r.timing['screened_designs']:,} design(s) without the Markov chain first and verified only "
                 f"those that passed with the chain")
    if r.cross_check is not None:
        xc = r.cross_check
        L.append(f"  check    brute-force enumeration of {xc.designs:,} designs: optimum cost "
                 f"{_cost(xc.enumeration_cost)} vs ILP {_cost(xc.ilp_cost)} -> {'agree' if xc.agree else 'DISAGREE'}")
    return L


def _device_options_lines(r) -> list[str]:
    """The DEVICE OPTIONS table (one row per ``[optimizer.nand]`` / ``[optimizer.dram]`` variant; ``*`` marks the
    pick's): what each option costs (its NAND geometry's part too) and the best design it allows."""
    if not r.device_options:
        return []
    width = max(22, *(len(o.name) for o in r.device_options))
    L = ["", "DEVICE OPTIONS (NAND geometry and mapping table; DRAM size and power follow from them; cost includes "
             "the NAND's)",
         f"  {'option':<{width}} {'NAND cost':>9} {'DRAM GiB':>8} {'DRAM mW':>8} {'WAF':>6} {'hit':>6} {'life y':>8} "
         f"{'cost':>7}  best design"]
    for o in r.device_options:
        mark = "*" if o.name == r.device and r.feasible else " "
        cost = f"{o.cost:.4g}" if o.cost is not None else "-"
        best = o.pick.label() if o.pick is not None else f"none: {o.note}"
        life = f"{o.life_years:.3g}" if math.isfinite(o.life_years) else "inf"
        L.append(f" {mark}{o.name:<{width}} {o.nand_cost:>9.4g} {o.dram_size_gib:>8.3f} {o.dram_power_mw:>8.1f} "
                 f"{o.waf:>6.2f} {o.mapping_hit_ratio:>6.3f} {life:>8} {cost:>7}  {best}")
    return L


def _runners_up_lines(r) -> list[str]:
    """The RUNNERS-UP table: the first 12 next-cheapest designs and what each lacks."""
    if not r.runners_up:
        return []
    L = ["", "RUNNERS-UP (what each lacks)",
         f"  {'cost':>7} {'vs pick':>8}  {'analytic IOPS':>13} {'core mW':>8}  design / lacks"]
    for c in r.runners_up[:12]:
        delta = "" if not math.isfinite(c.delta_cost) else f"{c.delta_cost:+.3g}"
        L.append(f"  {c.cost:>7.4g} {delta:>8}  {c.iops:>13,.0f} {c.core_power_mw:>8.1f}  {c.design.label()}")
        tag = {"costlier": " (analytic only)", "rejected": " (failed verification)"}.get(c.kind, "")
        L.append(f"  {'':>7} {'':>8}  {'':>13} {'':>8}    -> {'; '.join(c.lacks)}{tag}")
    if len(r.runners_up) > 12:
        L.append(f"  ... {len(r.runners_up) - 12} more in --json")
    return L


def _binding_lines(r) -> list[str]:
    """BINDING CONSTRAINTS: each budget/target relaxed alone, and what that buys."""
    if not r.binding:
        return []
    by_des = all(b.verified_by == "des" for b in r.binding)  # an infeasible target's checks: analytic only
    L = ["", "BINDING CONSTRAINTS (each relaxed alone; the designs found so are verified "
             + ("as the pick is, by the analytic model and the DES)" if by_des
                else "analytically, not by the DES)")]
    for b in r.binding:
        val = "" if b.value is None else f" (pick: {_fmt_param(b.name, b.value)})"
        L.append(f"  {FAMILY_TEXT.get(b.name, b.name):<24} {_fmt_param(b.name, b.limit):>14}{val}: {b.effect}")
    return L


def _sensitivity_entry(x) -> list[str]:
    """One parameter of SENSITIVITY: its value, and how far it may tighten and must loosen to change the pick."""
    L = [f"  {FAMILY_TEXT.get(x.parameter, x.parameter)} = {_fmt_param(x.parameter, x.current)}"
         + ("  [binding]" if x.binding else "")]
    word = "rise to" if x.parameter == "min_iops" else "fall to"
    L.append(f"    tighten: may {word} {_fmt_param(x.parameter, x.tighten_limit)}; past it -> "
             + (f"{x.tighten_becomes.label()} (cost {x.tighten_becomes_cost:.4g})" if x.tighten_becomes
                else "nothing qualifies"))
    if x.loosen_limit is None:
        L.append("    loosen:  no amount of loosening alone buys a cheaper design")
    else:
        word = "fall to" if x.parameter == "min_iops" else "rise to"
        L.append(f"    loosen:  must {word} {_fmt_param(x.parameter, x.loosen_limit)} -> "
                 + (f"{x.loosen_becomes.label()} (cost {x.loosen_becomes_cost:.4g})" if x.loosen_becomes
                    else "n/a"))
    return L


def _sensitivity_lines(r) -> list[str]:
    """SENSITIVITY (with ``--explain``)."""
    if r.sensitivity is None:
        return []
    L = ["", "SENSITIVITY (how far each parameter can move before the pick changes)"]
    for x in r.sensitivity:
        L += _sensitivity_entry(x)
    return L


def _pareto_lines(r) -> list[str]:
    """The Pareto front's summary (with ``--pareto`` or ``--plot``)."""
    if r.pareto is None:
        return []
    n_ok = sum(p.meets_targets for p in r.pareto)
    return ["", f"PARETO FRONT: {len(r.pareto)} non-dominated designs over (cost, analytic IOPS, core-side power), "
                f"{n_ok} meet the targets; MVA of all {r.space_size:,} designs took {r.pareto_seconds:.2f} s"]


def format_text(r) -> str:
    """The human-readable ``ssdco optimize`` report."""
    t = r.targets
    L = [f"ssdco optimize: {r.config.name}  (closed workload, queue depth {t.queue_depth})",
         f"  target   {_targets_line(t)}",
         f"  space    {_space_line(r)}",
         f"  cost     {_cost_line(r)}"]
    L += _search_lines(r)
    L += _device_options_lines(r)
    L.append("")
    L += _pick_block(r) if r.feasible else _infeasible_block(r)
    L += _runners_up_lines(r)
    L += _binding_lines(r)
    L += _sensitivity_lines(r)
    L += _pareto_lines(r)
    L += ["", f"  {r.message}"]
    return "\n".join(L)


def _cost(x) -> str:
    return "none" if x is None else f"{x:.4g}"


def _fmt_param(name: str, v) -> str:
    if v is None:
        return "n/a"
    if name == "utilization_cap":
        return f"{v:.1%}"
    if name == "min_iops":
        return f"{v:,.0f} IOPS"
    return _mw(v)


def _placement_lines(r) -> list[str]:
    """The PICK headline with its cost breakdown, and where each module runs."""
    d, b = r.pick, r.cost_breakdown
    L = [f"PICK  cost {r.cost:.4g}  (cores {b['cores']:.4g}, accelerator units {b['accelerator_units']:.4g}, "
         f"development {b['development']:.4g}, DRAM {b['dram']:.4g}"
         + (f", NAND {b['nand']:.4g})" if b.get("nand") else ")")]
    for m in MODULES:
        kind, where = d.placement(m)
        if kind == "hardware":
            L.append(f"  {m:<14} hardware, {where} unit(s)")
        else:
            L.append(f"  {m:<14} software on core group '{where.name}' ({where.count} x "
                     f"{_spec_name(r.config, where.spec)})")
    return L


def _verified_row(label: str, av: float, dv: float | None, target: str, spec: str, des_run: bool) -> str:
    """One row of the verified table: the analytic and the DES value (format ``spec``), model/DES - 1, target."""
    ds = format(dv, spec) if dv is not None else ("n/a" if des_run else "not run")
    err = f"{av / dv - 1.0:+.1%}" if dv and math.isfinite(av) else ""
    return f"  {label:<22}{format(av, spec):>14}{ds:>16}{err:>11}   {target}"


def _verified_lines(r) -> list[str]:
    """The pick's figures from the analytic model and the DES, their relative difference and the target."""
    a, val, t = r.verdict.analytic, r.verdict.validation, r.targets
    des = val.des if val is not None else None
    dp = val.des_power_mw if val is not None else None
    rows = (
        ("IOPS", a.iops, des.iops.value if des else None, f">= {t.min_iops:,.0f}" if t.min_iops > 0 else "not set",
         ",.0f"),
        ("latency mean (us)", a.latency_mean_us, des.mean_latency_us.value if des else None,
         f"<= {t.max_latency_us:,.2f}" if t.max_latency_us is not None else "", ".2f"),
        ("latency p99 (us)", a.latency_p99_us if a.latency_p99_us is not None else math.nan,
         des.p99_us if des else None,
         f"<= {t.max_p99_us:,.2f}" if t.max_p99_us is not None else "(estimate vs measured)", ".2f"),
        ("core-side power (mW)", a.power.core_side_mw, (dp["cores"] + dp["accelerators"]) if dp else None,
         _at_most_mw(t.core_power_mw), ".1f"),
        ("DRAM power (mW)", a.power.dram_mw, dp["dram"] if dp else None, _at_most_mw(t.dram_power_mw), ".1f"),
    )
    L = ["", f"  {'verified':<22}{'analytic':>14}{'DES' if val is not None else '':>16}"
             f"{'model/DES' if val is not None else '':>11}   target"]
    L += [_verified_row(label, av, dv, target, spec, val is not None) for label, av, dv, target, spec in rows]
    return L


def _limited_by_line(a, des) -> str:
    """What limits the pick's throughput: the analytic answer's station (or its busiest one) and the DES's
    busiest station (``des``: the DES run, or None)."""
    station = a.limited_by if a.limited_by in a.utilization else a.busiest_station
    return (f"  limited by: {a.limited_by} (analytic: " + ("" if station == a.limited_by else "busiest station ")
            + f"{station} {a.utilization[station]:.0%} busy"
            + (f"; DES: busiest station {max(des.utilization, key=des.utilization.get)} "
               f"{max(des.utilization.values()):.0%} busy" if des is not None else "") + ")")


def _pick_block(r) -> list[str]:
    """The PICK section: placement, verified figures, what limits it, the verdict and the model's caveats."""
    v = r.verdict
    a, val, t = v.analytic, v.validation, r.targets
    L = _placement_lines(r)
    L += _verified_lines(r)
    L.append(_limited_by_line(a, val.des if val is not None else None))
    lin = r.linear
    if t.target_iops > 0:  # the linear model's figures at the IOPS target (none without one)
        worst = max(lin.utilization, key=lin.utilization.get)
        L.append(f"  linear model at {t.target_iops:,.0f} IOPS: core-side {lin.core_power_mw:.1f} mW, busiest "
                 f"station {worst} at {lin.utilization[worst]:.0%} (cap {t.utilization_cap:.0%})")
    L.append("  verdict: " + ("meets every target under the analytic model"
                              + (" and the DES" if val is not None else " (DES verification off)")))
    if val is not None:
        L += model_vs_des_lines(val)
    for caveat in a.caveats:  # where the analytic model is known to be off the DES (whatif.trust_caveats)
        L += textwrap.wrap(f"CAVEAT (analytic model): {caveat}", width=118, initial_indent="  ",
                           subsequent_indent="    ", break_on_hyphens=False)
    return L


def model_vs_des_lines(val) -> list[str]:
    """How far the pick's analytic answer is from its DES run, against the tolerances of ``ssdco validate``,
    and whether the DES runs from other seeds agree (``val``: a ``Validation``)."""
    from ssdco.validation.compare import IOPS_TOLERANCE, LATENCY_TOLERANCE, UTILIZATION_TOLERANCE, timing_spread_note

    e = val.relative_error
    half = val.des.iops.half_width / val.des.iops.value if val.des.iops.value > 0 else math.nan
    L = [f"  model vs DES: {val.verdict} (IOPS {e['iops']:+.2%}, mean latency {e['latency_mean_us']:+.2%}; tolerances "
         f"{IOPS_TOLERANCE:.0%} and {LATENCY_TOLERANCE:.0%}, utilisations within {UTILIZATION_TOLERANCE:.0%} absolute)"]
    if val.failed_checks and not val.unsettled:
        L.append(f"    outside tolerance: {', '.join(val.failed_checks)} (`ssdco validate` on the --write-design "
                 f"file shows each station)")
    more = f"    DES IOPS 95% CI +/-{half:.2%}"
    rep = val.replications
    if rep is not None:
        more += (f"; {len(rep.seeds)} more runs from other seeds ({rep.requests:,} requests each) span "
                 f"{rep.iops_spread:.2%} (heterogeneity p = {rep.heterogeneity_p:.2g})")
    L.append(more)
    if val.unsettled:
        L += textwrap.wrap(f"    the DES has no single settled answer here: {val.unsettled_reason()}; rerun `ssdco "
                           "validate` on the --write-design file with more --requests", width=118,
                           subsequent_indent="      ", break_on_hyphens=False)
    if val.timing_spread is not None:  # optimize --timing-spread
        L += textwrap.wrap("    " + val.timing_spread.summary(), width=118, subsequent_indent="      ",
                           break_on_hyphens=False)
        note = timing_spread_note(val)
        if note:
            L += textwrap.wrap("    " + note, width=118, subsequent_indent="      ", break_on_hyphens=False)
    return L


def _infeasible_block(r) -> list[str]:
    L = [f"INFEASIBLE  {r.message}"]
    inf = r.infeasibility
    if inf is not None and inf.least_violating is not None and inf.rows:
        L.append(f"  least-violating design under the linear model: {inf.least_violating.label()}")
        for row, (val, lim, text) in inf.rows.items():
            over = (val / lim - 1.0) if lim else math.inf
            L.append(f"    {row:<18} {over:+.1%} over: {text}")
    if inf is not None:
        for c in inf.closest:
            what = c.kind.split(':', 1)[1].replace('_', ' ').replace("iops", "IOPS")
            if c.design is None:
                L.append(f"  {what}: none")
            else:
                L.append(f"  {what}: {c.design.label()} (cost {c.cost:.4g})")
            L.append(f"    -> {'; '.join(c.lacks)}")
    return L


# --------------------------------------------------------------------------------------------------
# files
# --------------------------------------------------------------------------------------------------
def pareto_csv(points: Iterable[ParetoPoint]) -> str:
    """The Pareto front as CSV (one design per row, cheapest first)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["cost", "iops_mva", "iops_whatif", "core_power_mw", "latency_mean_us", "meets_targets", "cores",
                "accelerator_units", "design", "device"])
    for p in points:
        w.writerow([f"{p.cost:.6g}", f"{p.iops:.1f}", "" if p.iops_whatif is None else f"{p.iops_whatif:.1f}",
                    f"{p.core_power_mw:.3f}", f"{p.latency_mean_us:.3f}", int(p.meets_targets),
                    sum(g.count for g in p.design.groups), sum(u for _, u in p.design.hardware), p.design.label(),
                    p.device])
    return buf.getvalue()


def _toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def design_toml(design: Design, name: str, description: str = "") -> str:
    """A controller file (``schema_version = 1``) that ``ssdco whatif --controller FILE`` accepts."""
    L = [f"schema_version = {SCHEMA_VERSION}", f"name = {_toml_str(name)}", f"description = {_toml_str(description)}"]
    for g in design.groups:
        L += ["", "[[core_groups]]", f"name = {_toml_str(g.name)}", f"spec = {_toml_str(g.spec)}",
              f"count = {g.count}", "modules = [" + ", ".join(_toml_str(m) for m in g.modules) + "]"]
    if design.hardware:
        L += ["", "[accelerators]"] + [f"{m} = {u}" for m, u in design.hardware]
    return "\n".join(L) + "\n"
