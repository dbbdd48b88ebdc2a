"""Display of the result objects: a small HTML table, a pandas DataFrame, and the flat rows both are made of.

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


# The flat rows of ``ssdco sweep``'s CSV and of ``to_frame()``: one column per number, dotted names.
POWER_PARTS = ("cores", "accelerators", "dram", "total")


def _flatten_budgets(prefix: str, budgets: Mapping[str, Any], out: dict[str, Any], values: bool) -> None:
    for name, b in budgets.items():
        if values:
            out[f"{prefix}budgets.{name}.value"] = b.get("value_mw", b.get("value"))
        out[f"{prefix}budgets.{name}.met"] = b["met"]


def flatten_whatif(d: Mapping[str, Any]) -> dict[str, Any]:
    """The sweep's analytic columns from a ``Result.to_dict()`` (``ssdco whatif --json``) document."""
    out: dict[str, Any] = {
        "controller": d["controller"], "stable": d["stable"], "method": d["method"], "bottleneck": d["bottleneck"],
        "limited_by": d["limited_by"], "iops": d["iops"],
        "latency_us.mean": d["latency_us"]["mean"], "latency_us.p99": d["latency_us"]["p99"],
        "bounds.capacity_iops": d["bounds"]["capacity_iops"], "energy_per_io_nj": d["energy_per_io_nj"],
        "caveats": "; ".join(d.get("caveats", ())),  # known disagreements with the DES (whatif.trust_caveats)
        # the route MVA's flow correction's share of IOPS (whatif.flow_correction_share); empty where not computed
        "flow_correction_share": d.get("flow_correction_share"),
    }
    out.update({f"utilization.{k}": v for k, v in d["utilization"].items()})
    out.update({f"power_mw.{p}": d["power_mw"][p] for p in POWER_PARTS})
    _flatten_budgets("", d["budgets"], out, values=True)
    return out


def flatten_validation(d: Mapping[str, Any]) -> dict[str, Any]:
    """Analytic plus DES columns from a ``Validation.to_dict()`` (``ssdco validate --json``) document.

    Wall-clock fields (events per second, seconds) are left out so a row depends only on its inputs."""
    out = flatten_whatif(d["analytic"])
    des = d["des"]
    lo, hi = des["iops_ci95"]
    out.update({"des.iops": des["iops"], "des.iops_ci95_low": lo, "des.iops_ci95_high": hi})
    out.update({f"des.latency_us.{k}": v for k, v in des["latency_us"].items()})
    out.update({f"des.utilization.{k}": v for k, v in des["utilization"].items()})
    out.update({f"des.power_mw.{p}": des["power_mw"][p] for p in POWER_PARTS})
    out["des.energy_per_io_nj"] = des["energy_per_io_nj"]
    _flatten_budgets("des.", des["budgets"], out, values=False)
    out.update({f"rel_error.{k}": v for k, v in d["relative_error"].items()})
    out["agrees"] = d["agrees"]
    check = d.get("des_replications")
    out["des.runs"] = 1 + (len(check["runs"]) if check else 0)
    if check:
        out["des.runs_iops_spread"] = check["iops_spread"]
        out["des.unsettled"] = check["unsettled"]
    return out
