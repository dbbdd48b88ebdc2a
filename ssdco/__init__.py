"""ssdco: SSD-controller hardware/software co-design.

Public API::

    import ssdco
    cfg = ssdco.load_config("configs/pm9a3-960.toml", controller="c07")
    result = ssdco.evaluate(cfg)          # analytic what-if, a frozen Result
    result.iops, result.latency_mean_us, result.power.total_mw, result.to_dict()
    check = ssdco.validate(cfg, requests=100_000, seed=1)   # analytic vs the embedded DES
    best = ssdco.optimize(cfg, min_iops=500_000, core_power_mw=192, dram_power_mw=800)
"""

from .errors import ConfigError, SsdcoError
from .model.result import Result
from .model.whatif import evaluate
from .spec import Config, load_config, load_controller


def validate(config, **kwargs):
    """Run the analytic model and the DES on ``config``; see :func:`ssdco.validation.compare.validate`."""
    from .validation.compare import validate as _validate

    return _validate(config, **kwargs)


def optimize(config, **kwargs):
    """Cheapest design meeting the targets; see :func:`ssdco.optimizer.search.optimize`."""
    from .optimizer import optimize as _optimize

    return _optimize(config, **kwargs)


__all__ = ["Config", "ConfigError", "Result", "SsdcoError", "evaluate", "load_config", "load_controller",
           "optimize", "validate"]
__version__ = "0.1.0"
