"""User-facing errors. Every bad input becomes one ``ConfigError`` naming file, field, value and what is allowed."""

from __future__ import annotations


class SsdcoError(Exception):
    """Base class for errors that the CLI reports as one clean message (exit code 2)."""


class ConfigError(SsdcoError):
    """A configuration file or value is malformed.

    Parameters
    ----------
    source : str
        The file (or ``--set`` override) the value came from.
    field : str
        Dotted path of the offending field, e.g. ``nand.t_read_us``.
    value : object
        The offending value (``None`` when the field is missing).
    allowed : str
        What would have been accepted.
    """

    def __init__(self, source: str, field: str, value: object, allowed: str):
        self.source = source
        self.field = field
        self.value = value
        self.allowed = allowed
        shown = "<missing>" if value is _MISSING else repr(value)
        super().__init__(f"{source}: field '{field}' = {shown}: {allowed}")


class _Missing:
    def __repr__(self) -> str:  # pragma: no cover - cosmetic
        return "<missing>"


_MISSING = _Missing()
MISSING = _MISSING


def unstable_open_workload(bottleneck: str, utilization: float, capacity_iops: float) -> str:
    """Why an open workload has no steady state: its bottleneck's utilisation and the largest stable rate.

    ``utilization`` is the bottleneck's offered load per server (>= 1 here); ``capacity_iops`` the rate at
    which it reaches 1 (the asymptotic bound X <= c_k / D_k), so every rate below it is stable."""
    close = utilization < 1.001  # just at capacity: enough digits that the rate given is not shown below it
    rho = f"{utilization:.9g}" if close else f"{utilization:.4g}"
    cap = f"{capacity_iops:,.2f}" if close else f"{capacity_iops:,.0f}"
    return (f"the open workload is unstable: its bottleneck station '{bottleneck}' would be "
            f"{utilization * 100:,.1f} % utilised (utilisation {rho}, needs < 1); "
            f"expected an arrival rate below {cap} IOPS, the maximum stable arrival rate "
            f"(the capacity of '{bottleneck}')")


def unstable_open_workload_error(source: str, arrival_iops: float, bottleneck: str, utilization: float,
                                 capacity_iops: float) -> ConfigError:
    """The :class:`ConfigError` of an open workload beyond capacity, naming ``workload.arrival_iops``."""
    return ConfigError(source, "workload.arrival_iops", arrival_iops,
                       unstable_open_workload(bottleneck, utilization, capacity_iops))
