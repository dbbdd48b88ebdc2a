"""Calibration targets: any quantity the model answers, for any controller, absolute or as a ratio between two.

A measured point (:mod:`~ssdco.calibration.measurements`) is one closed-loop run of the configured controller. A
target is more general: a quantity (IOPS, a latency, a power, an energy per I/O) of a named controller preset at a
workload set by overrides, either as a value or as the ratio to the same quantity of another controller
(``relative_to``). Published studies report trends of this kind (controller B's core power is 41 % below A's), and a
target file states them so that ``ssdco calibrate --targets`` fits them. A target may give its ``tolerance``, the
relative standard uncertainty of its value; the fit then weights its error by it.

The file is TOML, one ``[[target]]`` table per target::

    [[target]]
    name = "c02 against c01: core power"   # optional: how the report names it
    controller = "c02"                      # optional: the configuration's controller
    quantity = "core_side_mw"               # one of QUANTITIES
    relative_to = "c01"                     # optional: a ratio to this controller's value
    value = 0.59                            # > 0: the quantity's unit, or a ratio
    tolerance = 0.005                       # optional, > 0: relative standard uncertainty of value
    set = ["workload.queue_depth=32"]       # optional: --set overrides of this target's workload
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from ssdco.errors import MISSING, ConfigError
from ssdco.spec import Config, apply_overrides, config_from_dict

#: What a target may measure: its name, unit and how it is read from an analytic answer (``ssdco.evaluate``).
QUANTITIES: dict[str, tuple[str, Callable[[Any], float | None]]] = {
    "iops": ("I/O per second", lambda r: r.iops),
    "mean_latency_us": ("us", lambda r: r.latency_mean_us),
    "p99_us": ("us", lambda r: r.latency_p99_us),
    "core_side_mw": ("mW, cores and accelerators", lambda r: r.power.core_side_mw),
    "dram_mw": ("mW", lambda r: r.power.dram_mw),
    "total_mw": ("mW, cores, accelerators and DRAM", lambda r: r.power.total_mw),
    "drive_mw": ("mW, the whole drive", lambda r: r.power.drive_mw),
    "energy_per_io_nj": ("nJ, cores, accelerators and DRAM", lambda r: r.energy_per_io_nj),
}
TARGET_KEYS = ("name", "controller", "quantity", "relative_to", "value", "tolerance", "set")


@dataclass(frozen=True)
class Target:
    """One calibration target: ``quantity`` of ``controller`` (None: the configuration's) with the workload
    ``overrides``, equal to ``value``, or, with ``relative_to``, equal to ``value`` times the same quantity of the
    controller ``relative_to``. ``tolerance``: the relative standard uncertainty of ``value`` (None: not stated).
    ``source``: the file and table (``targets.toml target[2]``)."""

    name: str
    quantity: str
    value: float
    controller: str | None = None
    relative_to: str | None = None
    tolerance: float | None = None
    overrides: tuple[str, ...] = ()
    source: str = ""

    @property
    def unit(self) -> str:
        """The unit of ``value``: the quantity's, or ``ratio``."""
        return "ratio" if self.relative_to else QUANTITIES[self.quantity][0]


def target_config(config: Config, controller: str | None, overrides: Sequence[str]) -> Config:
    """``config`` with ``overrides`` applied and the controller preset ``controller`` (None: its own)."""
    return config_from_dict(apply_overrides(dict(config.raw), list(overrides)), source=config.source,
                            base_dir=Path(config.source).parent,
                            controller=config.controller if controller is None else controller)


def quantity_of(config: Config, target: Target, controller: str | None, effort: str) -> float:
    """The analytic model's ``target.quantity`` for ``controller`` at the target's workload (a ConfigError where
    the model gives no such figure, as an unstable design's p99)."""
    from ssdco.model.whatif import evaluate

    value = QUANTITIES[target.quantity][1](evaluate(target_config(config, controller, target.overrides),
                                                    effort=effort))
    if value is None or not math.isfinite(value):
        raise ConfigError(target.source, "quantity", target.quantity,
                          f"the model gives no finite {target.quantity} for controller {controller or 'default'} "
                          "at this workload; expected a quantity it answers")
    return float(value)


def predict_target(config: Config, target: Target, effort: str = "full") -> float:
    """The model's value of ``target``: the quantity, or its ratio to ``relative_to``'s."""
    value = quantity_of(config, target, target.controller, effort)
    if target.relative_to is None:
        return value
    base = quantity_of(config, target, target.relative_to, effort)
    if base == 0:
        raise ConfigError(target.source, "relative_to", target.relative_to,
                          f"its {target.quantity} is 0 in the model, so no ratio exists; expected a controller "
                          "with a non-zero value")
    return value / base


def _text(source: str, field: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(source, field, value, "expected a non-empty string")
    return value.strip()


def _positive(source: str, field: str, value: Any) -> float:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0
    if not ok:
        raise ConfigError(source, field, value, "expected a finite number > 0")
    return float(value)


def _overrides(source: str, field: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and "=" in v for v in value):
        raise ConfigError(source, field, value, 'expected a list of "path=value" overrides, e.g. '
                                                '["workload.queue_depth=32"]')
    return tuple(value)


def _target(path: str, index: int, table: Any) -> Target:
    """Table ``index`` of the file's ``target`` array as a :class:`Target`."""
    where = f"target[{index}]"
    if not isinstance(table, Mapping):
        raise ConfigError(path, where, table, "expected a [[target]] table")
    for key in table:
        if key not in TARGET_KEYS:
            raise ConfigError(path, f"{where}.{key}", table[key], "unknown key; expected " + ", ".join(TARGET_KEYS))
    quantity = table.get("quantity", MISSING)
    if quantity not in QUANTITIES:
        raise ConfigError(path, f"{where}.quantity", quantity, "expected one of " + ", ".join(QUANTITIES))
    if "value" not in table:
        raise ConfigError(path, f"{where}.value", MISSING, "expected the target's value (> 0)")
    controller = _text(path, f"{where}.controller", table["controller"]) if "controller" in table else None
    relative = _text(path, f"{where}.relative_to", table["relative_to"]) if "relative_to" in table else None
    if relative is not None and relative == controller:
        raise ConfigError(path, f"{where}.relative_to", relative, "a ratio of a controller to itself is 1 whatever "
                                                                  "the parameters; expected another controller")
    name = _text(path, f"{where}.name", table["name"]) if "name" in table else \
        f"{controller or 'default'} {quantity}" + (f" / {relative}" if relative else "")
    return Target(name=name, quantity=quantity, value=_positive(path, f"{where}.value", table["value"]),
                  controller=controller, relative_to=relative,
                  tolerance=_positive(path, f"{where}.tolerance", table["tolerance"]) if "tolerance" in table else None,
                  overrides=_overrides(path, f"{where}.set", table["set"]) if "set" in table else (),
                  source=f"{Path(path).name} {where}")


def read_targets(path: str | Path) -> tuple[Target, ...]:
    """The targets of a TOML file of ``[[target]]`` tables (see the module's description)."""
    path = str(path)
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except OSError as e:
        raise ConfigError(path, "<file>", path, f"cannot read it: {e.strerror or e}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(path, "<syntax>", str(e), "expected a TOML file of [[target]] tables") from None
    extra = [k for k in doc if k != "target"]
    if extra:
        raise ConfigError(path, extra[0], doc[extra[0]], "unknown key; expected only [[target]] tables")
    tables = doc.get("target", MISSING)
    if not isinstance(tables, list) or not tables:
        raise ConfigError(path, "target", tables, "expected one or more [[target]] tables")
    return tuple(_target(path, i, t) for i, t in enumerate(tables))


def check_targets(config: Config, targets: Sequence[Target]) -> None:
    """Refuse a target whose controller or workload the configuration cannot take (a ConfigError naming it)."""
    for t in targets:
        for controller in (t.controller, t.relative_to):
            try:
                target_config(config, controller, t.overrides)
            except ConfigError as e:
                raise ConfigError(t.source, "controller" if controller else "set", controller or list(t.overrides),
                                  f"the configuration cannot take it: {e}") from None
