"""The parameters a calibration fits: numeric fields of the device file named by their dotted path or a glob.

A parameter starts from the file's value (after ``--set``) and is bounded by (0, 100 x start], narrowed to the
field's own range where the configuration's validation has one (found by asking it: a value out of range is a
:class:`~ssdco.errors.ConfigError` whose ``allowed`` states the range).
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from typing import Any, Iterator, Mapping, Sequence

from ssdco.calibration.targets import target_config
from ssdco.errors import MISSING, ConfigError
from ssdco.spec import Config

#: Upper bound of a parameter, as a multiple of its starting value.
UPPER_FACTOR = 100.0
#: Lower bound of a parameter, as a multiple of its starting value (the open end 0 of the range (0, upper]).
LOWER_FACTOR = 1e-6
#: Fields each measured point sets: they are not parameters.
POINT_FIELDS = ("workload.queue_depth", "workload.arrival_iops", "workload.read_fraction", "workload.request_size_kib")
_BOUND_RE = re.compile(r"(<=|<|>=|>) ?(-?[0-9.]+(?:e[-+]?[0-9]+)?)")


@dataclass(frozen=True)
class Parameter:
    """One fitted field: its dotted ``path``, its ``start`` value (the file's) and its bounds ``lower`` <= value <=
    ``upper``, in the field's own unit (``cycles``, ``us``, ``mW`` as its name says)."""

    path: str
    start: float
    lower: float
    upper: float


def numeric_fields(raw: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, float]]:
    """Every (dotted path, value) of a number (not a boolean) in the TOML tables of ``raw``, in file order."""
    for key, value in raw.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            yield from numeric_fields(value, path + ".")
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            yield path, float(value)


def _matches(pattern: str, path: str) -> bool:
    """``path`` matches the glob ``pattern`` segment by segment (``*`` stays within one dotted segment)."""
    a, b = pattern.split("."), path.split(".")
    return len(a) == len(b) and all(fnmatch.fnmatchcase(x, y) for x, y in zip(b, a))


def _names(spec: str | Sequence[str]) -> list[str]:
    """The comma-separated names of ``--fit`` (one string or several)."""
    texts = [spec] if isinstance(spec, str) else list(spec)
    return [n.strip() for t in texts for n in t.split(",") if n.strip()]


def _paths(config: Config, names: list[str]) -> list[str]:
    """The dotted paths ``names`` (paths or globs) name in ``config.raw``, each once, in the order named."""
    fields = dict(numeric_fields(config.raw))
    out: list[str] = []
    for name in names:
        hits = [p for p in fields if _matches(name, p)] if any(c in name for c in "*?[") else [name]
        if not hits:
            raise ConfigError("--fit", name, name, "the glob matches no numeric field of " + config.source)
        out.extend(p for p in hits if p not in out)
    return out


def _check_field(config: Config, path: str) -> float:
    """The file's value of field ``path``: a number > 0 that is not one of the fields each point sets."""
    if path in POINT_FIELDS:
        raise ConfigError("--fit", path, path, "each measured point sets this field; expected a device parameter "
                                               "such as modules.cache_lookup.cycles or nand.t_read_us")
    node: Any = config.raw
    for part in path.split("."):
        node = node.get(part, MISSING) if isinstance(node, Mapping) else MISSING
    if node is MISSING:
        raise ConfigError("--fit", path, MISSING, f"no such field in {config.source}; expected the dotted path of a "
                                                  "number the file sets (set it with --set to give a start value)")
    if isinstance(node, bool) or not isinstance(node, (int, float)):
        raise ConfigError("--fit", path, node, "expected a numeric field")
    if node <= 0:
        raise ConfigError("--fit", path, node, "expected a start value > 0 (the fit scales each parameter by it "
                                               "and bounds it by (0, 100 x start]); give one with --set")
    return float(node)


def load_error(config: Config, overrides: Sequence[str]) -> ConfigError | None:
    """The error of ``config`` with ``overrides`` applied (None: it loads)."""
    try:
        target_config(config, None, overrides)
    except ConfigError as e:
        return e
    return None


def _bound(error: ConfigError | None, path: str, side: str, fallback: float) -> float | None:
    """The field's own bound on ``side`` (``"<"`` upper, ``">"`` lower) stated by ``error``; ``fallback`` where the
    value loads, None where it fails for another reason (another field's check)."""
    if error is None:
        return fallback
    if error.field != path:
        return None
    for op, number in _BOUND_RE.findall(error.allowed):
        if op.startswith(side):
            value = float(number)
            return value * (1 - 1e-9) if op == "<" else value * (1 + 1e-9) if op == ">" and value else value
    return None


def _valid_end(config: Config, path: str, start: float, end: float) -> float:
    """The value nearest ``end`` (towards ``start``, on a log scale) with which the configuration loads: the
    parameter's bound where a check across fields (not the field's own range) limits it."""
    side = "<" if end > start else ">"
    found = _bound(load_error(config, [f"{path}={end!r}"]), path, side, end)
    if found is not None:
        return max(found, start) if side == "<" else min(found, start)
    good, bad = start, end
    for _ in range(30):  # bisection in log space: within a factor 1.000001 of the limit
        mid = (good * bad) ** 0.5
        good, bad = (mid, bad) if load_error(config, [f"{path}={mid!r}"]) is None else (good, mid)
    return good


def _parameter(config: Config, path: str) -> Parameter:
    """The :class:`Parameter` of field ``path``: start and bounds, the field's own range where it has one."""
    start = _check_field(config, path)
    odd = load_error(config, [f"{path}={start * 1.0001 + 1e-3!r}"])
    if odd is not None:  # an integer field, or one tied to another (active_mw >= idle_mw ...)
        raise ConfigError("--fit", path, start, f"the field cannot vary continuously ({odd.allowed}); expected a "
                                                "real-valued field")
    upper = _valid_end(config, path, start, start * UPPER_FACTOR)
    lower = _valid_end(config, path, start, start * LOWER_FACTOR)
    if not lower < start <= upper:
        raise ConfigError("--fit", path, start, f"expected a start value within the field's range [{lower:g}, "
                                                f"{upper:g}]")
    return Parameter(path=path, start=start, lower=lower, upper=upper)


def resolve_parameters(config: Config, spec: str | Sequence[str]) -> tuple[Parameter, ...]:
    """The parameters ``--fit`` names (``modules.cache_lookup.cycles,nand.t_read_us``, ``modules.*.cycles``),
    each with its start value and bounds; a ConfigError names any that cannot be fitted."""
    names = _names(spec)
    if not names:
        raise ConfigError("--fit", "fit", spec, "expected one or more dotted field paths, e.g. nand.t_read_us")
    return tuple(_parameter(config, p) for p in _paths(config, names))
