"""Weighted execution time of a mapping's flash operations.

``time = reads * w_read + programs * w_program + erases * w_erase``. The default weights 1 : 10 : 80 (read :
program : erase) are the relative costs the buffer/FTL co-simulation literature uses (e.g. the CFLRU and FAB
evaluations); with NAND timings the weights are ``t_read_us``, ``t_prog_us``, ``t_erase_us`` and the time is in us.

Reference: S.-Y. Park, D. Jung, J.-U. Kang, J.-S. Kim, J. Lee, "CFLRU: a replacement algorithm for flash
memory", CASES 2006.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ssdco.errors import ConfigError
from ssdco.trace.mapping.base import FlashCounts


@dataclass(frozen=True)
class CostWeights:
    """Cost of one page read, one page program and one block erase, in ``unit`` (``t_read`` when relative to a
    read, ``us`` for NAND timings)."""

    read: float = 1.0
    program: float = 10.0
    erase: float = 80.0
    unit: str = "t_read"

    @classmethod
    def from_timings(cls, t_read_us: float, t_prog_us: float, t_erase_us: float) -> CostWeights:
        """Weights from NAND timings in us (time then in us); ConfigError unless each is finite and > 0."""
        for name, value in (("t_read_us", t_read_us), ("t_prog_us", t_prog_us), ("t_erase_us", t_erase_us)):
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise ConfigError("--nand-us", name, value, "expected a finite time in us > 0")
        return cls(float(t_read_us), float(t_prog_us), float(t_erase_us), "us")


def weighted_time(counts: FlashCounts, weights: CostWeights = CostWeights()) -> float:
    """Weighted execution time of ``counts`` (flash reads, programs, erases) in ``weights.unit``."""
    return counts.flash_reads * weights.read + counts.programs * weights.program + counts.erases * weights.erase
