"""Notebook display helpers of the result objects: a small HTML table and a pandas DataFrame.

pandas is optional (the ``frame`` extra); :func:`require_pandas` names the extra when it is missing.
"""

from __future__ import annotations

import html
import math
from typing import Any, Iterable, Mapping, Sequence

PANDAS_HINT = "pip install 'ssdco[frame]' (or pip install pandas)"


def require_pandas():
    """The pandas module, or ImportError naming the ``frame`` extra that provides it."""
    try:
        import pandas
    except ImportError:
        raise ImportError(f"to_frame() needs pandas, which is not installed: {PANDAS_HINT}") from None
    return pandas


def data_frame(rows: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None):
    """A pandas DataFrame of ``rows`` (dicts), in the order of ``columns`` when given."""
    pd = require_pandas()
    return pd.DataFrame(list(rows), columns=list(columns) if columns is not None else None)


def number(x: float | None, digits: int = 1, unit: str = "") -> str:
    """``x`` with thousands separators and ``digits`` decimals, then `` unit``; "n/a" for None or non-finite."""
    if x is None or not math.isfinite(float(x)):
        return "n/a"
    return f"{float(x):,.{digits}f}" + (f" {unit}" if unit else "")


def html_table(title: str, rows: Iterable[tuple[str, str, str]]) -> str:
    """A small HTML table (metric, value, unit) under a bold ``title``; every cell escaped."""
    body = "".join(f"<tr><td style='text-align:left'>{html.escape(m)}</td><td style='text-align:right'>"
                   f"{html.escape(v)}</td><td style='text-align:left'>{html.escape(u)}</td></tr>"
                   for m, v, u in rows)
    return (f"<div><b>{html.escape(title)}</b><table><thead><tr><th>metric</th><th>value</th><th>unit</th></tr>"
            f"</thead><tbody>{body}</tbody></table></div>")
