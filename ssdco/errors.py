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
