"""The calibrated device file: the input TOML with each fitted value substituted in its own line.

No TOML writer is needed: the text stays the input's, comments and layout included; each fitted field's line
gets the fitted value and a comment naming the start value and the standard error ahead of its own comment. The
result is read back and must equal the input with exactly the fitted values changed.
"""

from __future__ import annotations

import math
import re
import tomllib
from typing import Any, Mapping, Sequence

from ssdco.calibration.fit import FittedParameter
from ssdco.errors import ConfigError

_HEADER_RE = re.compile(r"^\s*\[([^\[\]]+)\]\s*(#.*)?$")
_ARRAY_HEADER_RE = re.compile(r"^\s*\[\[")
_ASSIGN_RE = re.compile(r"^(\s*)([A-Za-z0-9_.\-]+)(\s*=\s*)([-+0-9.eE_]+|inf|nan)(\s*)(#\s?(.*))?$")


def _lines_of(text: str) -> dict[str, int]:
    """Line index of each ``key = number`` assignment by dotted path (tables from ``[table]`` headers)."""
    table: str | None = ""
    out: dict[str, int] = {}
    for i, line in enumerate(text.splitlines()):
        if _ARRAY_HEADER_RE.match(line):
            table = None  # arrays of tables are not parameters
            continue
        header = _HEADER_RE.match(line)
        if header:
            table = ".".join(part.strip() for part in header.group(1).split("."))
            continue
        m = _ASSIGN_RE.match(line)
        if m and table is not None:
            out[f"{table}.{m.group(2)}" if table else m.group(2)] = i
    return out


def check_substitutable(text: str, source: str, paths: Sequence[str]) -> None:
    """Refuse, before a fit, a ``--out`` whose fitted fields the input sets other than as ``key = number`` in
    their own table (an inline table, a dotted key elsewhere, or only a ``--set`` override)."""
    lines = _lines_of(text)
    for path in paths:
        if path not in lines:
            raise ConfigError(source, path, path, "--out substitutes each fitted value in the line that sets it; "
                                                  "expected a 'key = number' line in the field's [table] (set the "
                                                  "field in the file, or leave out --out)")


def _literal(value: float) -> str:
    """A TOML float literal of ``value`` with 6 significant digits."""
    text = f"{value:.6g}"
    return text if any(c in text for c in ".en") else text + ".0"


def _get(raw: Mapping[str, Any], path: str) -> Any:
    node: Any = raw
    for part in path.split("."):
        node = node[part]
    return node


def calibrated_toml(text: str, source: str, parameters: Sequence[FittedParameter]) -> str:
    """``text`` (the input device file) with each parameter's fitted value in place of its start value."""
    check_substitutable(text, source, [p.path for p in parameters])
    lines = text.splitlines(keepends=True)
    where = _lines_of(text)
    for p in parameters:
        i = where[p.path]
        body = lines[i].rstrip("\r\n")
        ending = lines[i][len(body):]
        m = _ASSIGN_RE.match(body)
        se = f"+- {p.standard_error:.3g}" if math.isfinite(p.standard_error) else "undetermined"
        note = f"# ssdco calibrate: fitted {se} (file: {m.group(4)})"
        own = f"; {m.group(7)}" if m.group(7) else ""
        lines[i] = f"{m.group(1)}{m.group(2)}{m.group(3)}{_literal(p.value)}  {note}{own}{ending}"
    out = "".join(lines)
    _verify(text, out, source, parameters)
    return out


def _verify(before: str, after: str, source: str, parameters: Sequence[FittedParameter]) -> None:
    """The substituted text parses, sets every fitted value and changes nothing else."""
    old, new = tomllib.loads(before), tomllib.loads(after)
    for p in parameters:
        node: Any = old
        parts = p.path.split(".")
        for part in parts[:-1]:
            node = node[part]
        node[parts[-1]] = float(_literal(p.value))
        if _get(new, p.path) != float(_literal(p.value)):
            raise ConfigError(source, p.path, _get(new, p.path), "the calibrated file did not take the fitted value")
    if old != new:
        raise ConfigError(source, "<file>", source, "substituting the fitted values changed other fields; expected "
                                                    "each fitted field set once as 'key = number'")
