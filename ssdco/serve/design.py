"""The page's controls and the design they describe: pure functions, no web framework.

A device configuration gives the controls' start values (:func:`controls_for`); the values of the controls give a
TOML-shaped design (:func:`design_from_values`): the configuration's own tables with the NAND and workload fields
replaced and the controller written inline, so that the downloaded file (:func:`design_toml`) loads by itself with
``ssdco whatif``. :func:`answer` evaluates a design with the analytic model or says, in the configuration's own
words, why it cannot.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import tomli_w

from ssdco.errors import SsdcoError
from ssdco.spec import Config, config_from_dict
from ssdco.spec.load import MAX_QUEUE_DEPTH
from ssdco.spec.schema import MODULES

ACCELERATOR = "accelerator"  # the placement value of a module on its hardware accelerator
MAX_UNITS = 16  # the largest core count or accelerator unit count a control offers
# (field, label, unit, smallest, largest, integer): the NAND controls, in page order
NAND_FIELDS: tuple[tuple[str, str, str, float, float, bool], ...] = (
    ("channels", "channels", "", 1, 64, True),
    ("ways_per_channel", "chips per channel", "", 1, 64, True),
    ("dies_per_chip", "dies per chip", "", 1, 16, True),
    ("planes_per_die", "planes per die", "", 1, 16, True),
    ("t_read_us", "tR (array read)", "us", 1, 10_000, False),
    ("t_prog_us", "tPROG (program)", "us", 1, 100_000, False),
    ("channel_rate_mts", "channel rate", "MT/s", 1, 10_000, False),
)
REQUEST_SIZES_KIB = (4, 8, 16, 32, 64, 128, 256)


@dataclass(frozen=True)
class Control:
    """One control of the page: ``id`` (the HTML id), what it shows (``label``, ``unit``), its start ``value``,
    and what it allows: ``options`` (value, label) pairs for a choice, or ``lo``..``hi`` (``integer`` or not, the
    field's arrows moving by ``step``) for a number. ``group`` is the page section it sits in."""

    id: str
    label: str
    group: str
    value: Any
    unit: str = ""
    options: tuple[tuple[Any, str], ...] = ()
    lo: float = -math.inf
    hi: float = math.inf
    integer: bool = False
    step: float | None = None  # what the number field's arrows add (None: 1 for an integer, any value else)

    @property
    def is_choice(self) -> bool:
        """A choice among ``options`` (else a number)."""
        return bool(self.options)


def slot_names(config: Config) -> tuple[str, ...]:
    """The core-group slots a module can be placed on: the controller's own groups by name, then ``g<N>`` names
    up to one group per module."""
    names = [g.name for g in config.controller.core_groups]
    n = 1
    while len(names) < len(MODULES):
        if f"g{n}" not in names:
            names.append(f"g{n}")
        n += 1
    return tuple(names)


def _controller_controls(config: Config) -> list[Control]:
    """Placement and unit count per module, core type and count per core-group slot."""
    ctrl = config.controller
    slots = slot_names(config)
    spec_names = tuple(config.core_specs)
    out = []
    for m in MODULES:
        kind, where = ctrl.placement(m)
        options = tuple((s, f"cores: {s}") for s in slots)
        if m in config.accelerator_specs:
            options = ((ACCELERATOR, "hardware accelerator"),) + options
        out.append(Control(f"place-{m}", m, "placement", ACCELERATOR if kind == "accel" else where, options=options))
        out.append(Control(f"units-{m}", f"{m} accelerator units", "accelerators",
                           ctrl.accelerator_units.get(m, 1), lo=1, hi=MAX_UNITS, integer=True))
    groups = {g.name: g for g in ctrl.core_groups}
    for i, s in enumerate(slots):
        g = groups.get(s)
        out.append(Control(f"spec-{i}", f"{s}: core type", "cores", g.spec if g else spec_names[0],
                           options=tuple((n, f"{n} ({config.core_specs[n].frequency_mhz:g} MHz)")
                                         for n in spec_names)))
        out.append(Control(f"count-{i}", f"{s}: cores", "cores", g.count if g else 1, lo=1, hi=MAX_UNITS,
                           integer=True))
    return out


def _workload_controls(config: Config) -> list[Control]:
    """Read share, request size and queue depth (or the offered rate of an open workload)."""
    w = config.workload
    out = [Control("workload-read_fraction", "read share", "workload", w.read_fraction, lo=0.0, hi=1.0, step=0.05)]
    sizes = w.request_sizes_kib
    if len(sizes) == 1:
        options = tuple((s, f"{s:g} KiB") for s in sorted({*REQUEST_SIZES_KIB, sizes[0]}))
        out.append(Control("workload-request_size_kib", "request size", "workload", sizes[0], unit="KiB",
                           options=options))
    if w.queue_depth is not None:
        out.append(Control("workload-queue_depth", "queue depth", "workload", w.queue_depth, lo=1,
                           hi=MAX_QUEUE_DEPTH, integer=True))
    else:
        out.append(Control("workload-arrival_iops", "offered rate", "workload", w.arrival_iops, unit="IOPS",
                           lo=1.0, hi=1e9))
    return out


def controls_for(config: Config) -> tuple[Control, ...]:
    """The page's controls with ``config``'s values: module placement and accelerator units, core groups, NAND
    geometry and timings, workload."""
    nand = [Control(f"nand-{f}", label, "nand", getattr(config.nand, f), unit=unit, lo=lo, hi=hi, integer=integer)
            for f, label, unit, lo, hi, integer in NAND_FIELDS]
    return tuple(_controller_controls(config) + nand + _workload_controls(config))


def _number(control: Control, value: Any) -> float | int:
    """``value`` of a number control as a number within its range, or ValueError saying what is allowed."""
    if isinstance(value, str):
        value = value.strip()
    try:
        x = float(value)
    except (TypeError, ValueError):
        x = math.nan
    if control.integer and math.isfinite(x) and x == int(x):
        x = int(x)
    if not math.isfinite(x) or not control.lo <= x <= control.hi or (control.integer and not isinstance(x, int)):
        kind = "an integer" if control.integer else "a number"
        allowed = f"{kind} in [{control.lo:g}, {control.hi:g}]"
        if value is None or value == "":  # a browser's number field sends nothing for a value outside its range
            raise ValueError(f"{control.label}: no value (empty, or outside the field's range); expected {allowed}")
        raise ValueError(f"{control.label}: {value!r} is not {allowed}")
    return x


def _value(control: Control, value: Any) -> Any:
    """``value`` checked against ``control``: one of its options, or a number in its range (ValueError else)."""
    if control.is_choice:
        for v, _ in control.options:
            if v == value or str(v) == str(value):
                return v
        allowed = ", ".join(str(v) for v, _ in control.options)
        raise ValueError(f"{control.label}: {value!r} is not one of {allowed}")
    return _number(control, value)


def _controller_table(config: Config, values: Mapping[str, Any]) -> dict[str, Any]:
    """The inline ``[controller]`` table the placement and core controls describe."""
    slots = slot_names(config)
    groups = []
    for i, s in enumerate(slots):
        modules = [m for m in MODULES if values[f"place-{m}"] == s]
        if modules:
            groups.append({"name": s, "spec": values[f"spec-{i}"], "count": values[f"count-{i}"], "modules": modules})
    accelerators = {m: values[f"units-{m}"] for m in MODULES if values[f"place-{m}"] == ACCELERATOR}
    table: dict[str, Any] = {"name": "serve", "description": f"designed in ssdco serve from {config.controller.name}",
                             "core_groups": groups}
    if accelerators:
        table["accelerators"] = accelerators
    return table


def design_from_values(config: Config, controls: Sequence[Control], values: Mapping[str, Any]) -> dict[str, Any]:
    """The TOML-shaped design of ``config`` with each control's value in ``values`` (by control id; a missing one
    keeps its start value). Raises ValueError naming a control whose value is not allowed."""
    checked = {c.id: _value(c, values.get(c.id, c.value)) for c in controls}
    raw = copy.deepcopy(dict(config.raw))
    for key, value in checked.items():
        table, _, field = key.partition("-")
        if table in ("nand", "workload"):
            raw.setdefault(table, {})[field] = value
    raw["controller"] = _controller_table(config, checked)
    return raw


@dataclass(frozen=True)
class Answer:
    """What the page shows for a design: the model's ``result`` (a :class:`~ssdco.model.result.Result`), or
    ``error``, the reason there is none, in the configuration's words."""

    result: Any = None
    error: str = ""


def design_config(config: Config, raw: Mapping[str, Any]) -> Config:
    """``raw`` validated as a configuration beside ``config``'s file (so that its relative references resolve)."""
    return config_from_dict(raw, source=config.source, base_dir=Path(config.source).parent)


def answer(config: Config, raw: Mapping[str, Any], effort: str = "fast") -> Answer:
    """The analytic model's answer for the design ``raw`` (IOPS, latency in us, power in mW), at ``effort``
    ("fast": the page's default, milliseconds; "full": every solver), or the error that stops it."""
    from ssdco.model.whatif import evaluate

    try:
        return Answer(result=evaluate(design_config(config, raw), effort=effort))
    except SsdcoError as e:
        return Answer(error=str(e))


def design_toml(config: Config, raw: Mapping[str, Any]) -> str:
    """``raw`` as a device configuration file that ``ssdco whatif FILE`` loads as it is (controller inline)."""
    return (f"# Designed in ssdco serve from {config.source}, controller {config.controller.name}.\n"
            f"# Run it with: ssdco whatif THIS_FILE\n" + tomli_w.dumps(raw))
