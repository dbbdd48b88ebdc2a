"""The fitted design in the discrete-event simulator: model against DES at each measured point and target."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from ssdco.calibration.fit import Calibration, Prediction, parameter_overrides, point_config
from ssdco.calibration.targets import Target, target_config
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


@dataclass(frozen=True)
class DesTarget:
    """One target's fitted model value and the DES's on the fitted design (the quantity's unit, or a ratio), and
    the model's relative difference from the DES, (model - DES) / DES."""

    target: Target
    model: float
    des: float

    @property
    def difference(self) -> float:
        return (self.model - self.des) / self.des if self.des else math.inf


def _des_quantity(config: Config, quantity: str, requests: int, seed: int) -> float:
    """``quantity`` (a key of :data:`~ssdco.calibration.targets.QUANTITIES`) measured by the DES on ``config``;
    powers from the analytic power model fed with the DES's measured throughput and busy servers."""
    from ssdco.network.build import build_network
    from ssdco.sim.des import simulate
    from ssdco.validation.compare import des_power

    network = build_network(config)
    r = simulate(network, requests=requests, seed=seed)
    power = des_power(config, network, r)
    iops = r.iops.value
    return {"iops": iops, "mean_latency_us": r.mean_latency_us.value, "p99_us": r.p99_us,
            "core_side_mw": power.core_side_mw, "dram_mw": power.dram_mw, "total_mw": power.total_mw,
            "drive_mw": power.drive_mw, "energy_per_io_nj": power.energy_per_io_nj(iops)}[quantity]


def des_target_check(config: Config, calibration: Calibration, *, requests: int = DES_REQUESTS,
                     seed: int = DES_SEED) -> tuple[DesTarget, ...]:
    """Run the DES (``requests`` requests, ``seed``) on ``config`` with the fitted values for each target (twice
    for a ratio: the controller and ``relative_to``)."""
    fitted = point_config(config, parameter_overrides(calibration.parameters,
                                                      [p.value for p in calibration.parameters]))
    out = []
    for tf in calibration.targets:
        t = tf.target

        def measured(controller: str | None) -> float:
            return _des_quantity(target_config(fitted, controller, t.overrides), t.quantity, requests, seed)

        des = measured(t.controller)
        if t.relative_to is not None:
            des /= measured(t.relative_to)
        out.append(DesTarget(target=t, model=tf.fitted, des=des))
    return tuple(out)


def des_targets(checks: Sequence[DesTarget]) -> list[dict]:
    """The DES check of the targets as JSON-ready rows."""
    return [{"name": c.target.name, "value": c.target.value, "model": c.model, "des": c.des,
             "difference": c.difference} for c in checks]
