"""The fitted design in the discrete-event simulator: model against DES at each measured point."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ssdco.calibration.fit import Calibration, Prediction, parameter_overrides, point_config
from ssdco.spec import Config

#: Requests each DES run completes (10 % warm-up discarded) and its seed.
DES_REQUESTS = 20_000
DES_SEED = 0


@dataclass(frozen=True)
class DesPoint:
    """One measured point's fitted model answer and the DES's on the fitted design (IOPS; latencies in us), and the
    model's relative difference from the DES, (model - DES) / DES."""

    queue_depth: int
    read_fraction: float
    model: Prediction
    des: Prediction

    @property
    def iops_difference(self) -> float:
        return (self.model.iops - self.des.iops) / self.des.iops

    @property
    def latency_difference(self) -> float:
        return (self.model.mean_latency_us - self.des.mean_latency_us) / self.des.mean_latency_us


def des_check(config: Config, calibration: Calibration, *, requests: int = DES_REQUESTS,
              seed: int = DES_SEED) -> tuple[DesPoint, ...]:
    """Run the DES (``requests`` requests, ``seed``) on ``config`` with the fitted values at each measured point."""
    from ssdco.network.build import build_network
    from ssdco.sim.des import simulate

    fitted = parameter_overrides(calibration.parameters, [p.value for p in calibration.parameters])
    out = []
    for pf in calibration.points:
        network = build_network(point_config(config, fitted + pf.point.overrides()))
        r = simulate(network, requests=requests, seed=seed)
        des = Prediction(iops=r.iops.value, mean_latency_us=r.mean_latency_us.value, p99_us=r.p99_us)
        out.append(DesPoint(queue_depth=pf.point.queue_depth, read_fraction=pf.point.read_fraction,
                            model=pf.fitted, des=des))
    return tuple(out)


def des_points(checks: Sequence[DesPoint]) -> list[dict]:
    """The DES check as JSON-ready rows."""
    return [{"queue_depth": c.queue_depth, "read_fraction": c.read_fraction, "model_iops": c.model.iops,
             "des_iops": c.des.iops, "iops_difference": c.iops_difference,
             "model_mean_latency_us": c.model.mean_latency_us, "des_mean_latency_us": c.des.mean_latency_us,
             "latency_difference": c.latency_difference, "model_p99_us": c.model.p99_us, "des_p99_us": c.des.p99_us}
            for c in checks]
