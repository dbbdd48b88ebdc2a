"""ssdco: SSD-controller hardware/software co-design.

Public API::

    import ssdco
    cfg = ssdco.load_config("configs/pm9a3-960.toml", controller="c07")
    result = ssdco.evaluate(cfg)          # analytic what-if (also ssdco.whatif), a frozen Result
    result.iops, result.latency_mean_us, result.power.total_mw, result.to_dict(), result.to_frame()
    check = ssdco.validate(cfg, requests=100_000, seed=1)   # analytic vs the embedded DES
    best = ssdco.optimize(cfg, min_iops=500_000, core_power_mw=192, dram_power_mw=800)
    rows = ssdco.sweep("configs/pm9a3-960.toml", {"workload.queue_depth": [1, 8, 32]}, controller="c07")

Every function takes a Config or a TOML path and uses the command line's defaults (ssdco.defaults).
"""

from .api import SweepTable, evaluate, optimize, sweep, validate, whatif
from .errors import ConfigError, SsdcoError
from .model.result import Result
from .spec import Config, load_config, load_controller

__all__ = ["Config", "ConfigError", "Result", "SsdcoError", "SweepTable", "evaluate", "load_config",
           "load_controller", "optimize", "sweep", "validate", "whatif"]
__version__ = "0.1.0"
