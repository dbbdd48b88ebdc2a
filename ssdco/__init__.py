"""ssdco: SSD-controller hardware/software co-design.

Public API::

    import ssdco
    cfg = ssdco.load_config("configs/pm9a3-960.toml", controller="c07")
    result = ssdco.evaluate(cfg)          # analytic what-if, a frozen Result
    result.iops, result.latency_mean_us, result.power.total_mw, result.to_dict()
"""

from .errors import ConfigError, SsdcoError
from .model.whatif import Result, evaluate
from .spec import Config, load_config, load_controller

__all__ = ["Config", "ConfigError", "Result", "SsdcoError", "evaluate", "load_config", "load_controller"]
__version__ = "0.1.0"
