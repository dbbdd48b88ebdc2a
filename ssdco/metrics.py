"""One design's headline figures by one method: the record the analytic model, the DES and the reports share.

``Result.metrics`` (the analytic model) and ``Validation.des_metrics`` (a DES run, its power taken at the measured
IOPS) give it, the study's report reads it, and :meth:`Metrics.relative_to` is the one place that turns two of them
into the model-vs-DES errors (``Validation.relative_error``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Metrics:
    """IOPS, latencies (us) and power by part (mW) of one design by one method, with the power budgets (mW; inf:
    none) they are held to."""

    iops: float
    latency_mean_us: float
    latency_p99_us: float | None
    cores_mw: float
    accelerators_mw: float
    dram_mw: float
    core_limit_mw: float = math.inf
    dram_limit_mw: float = math.inf
    sram_mw: float = 0.0  # the mapping table's on-chip SRAM ([sram]), in the total but in neither budget

    @property
    def core_side_mw(self) -> float:
        """Cores and accelerators, mW (what the core budget limits)."""
        return self.cores_mw + self.accelerators_mw

    @property
    def total_mw(self) -> float:
        """Cores, accelerators, DRAM and the mapping table's SRAM, mW (the controller's power, as
        :attr:`ssdco.model.power.Power.total_mw`)."""
        return self.cores_mw + self.accelerators_mw + self.dram_mw + self.sram_mw

    @property
    def energy_per_io_nj(self) -> float:
        """Total power over IOPS, nJ per I/O (inf without throughput)."""
        return self.total_mw / self.iops * 1e6 if self.iops > 0 else math.inf

    @property
    def core_met(self) -> bool:
        return self.core_side_mw <= self.core_limit_mw

    @property
    def dram_met(self) -> bool:
        return self.dram_mw <= self.dram_limit_mw

    @property
    def both_met(self) -> bool:
        return self.core_met and self.dram_met

    def relative_to(self, measured: Metrics) -> dict[str, float]:
        """These figures over ``measured``'s, less 1: ``iops``, ``latency_mean_us``, ``power_total_mw`` (NaN where
        nothing was measured) and ``latency_p99_us`` where both give one."""
        rel = {"iops": relative(self.iops, measured.iops),
               "latency_mean_us": relative(self.latency_mean_us, measured.latency_mean_us),
               "power_total_mw": relative(self.total_mw, measured.total_mw)}
        if self.latency_p99_us is not None and measured.latency_p99_us is not None and measured.latency_p99_us > 0:
            rel["latency_p99_us"] = self.latency_p99_us / measured.latency_p99_us - 1.0
        return rel


def relative(model: float, measured: float) -> float:
    """model / measured - 1 (NaN where nothing was measured)."""
    return model / measured - 1.0 if measured > 0.0 else math.nan
