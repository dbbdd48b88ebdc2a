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

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ssdco.defaults import VERSION

__version__ = VERSION

# Imported on first use, so that ``import ssdco`` and ``ssdco --help`` stay cheap (the model pulls in NumPy,
# SciPy and numba): each public name and the module that defines it.
_LAZY = {"SweepTable": ".api", "evaluate": ".api", "optimize": ".api", "sweep": ".api", "validate": ".api",
         "whatif": ".api", "ConfigError": ".errors", "SsdcoError": ".errors", "Result": ".model.result",
         "Config": ".spec", "load_config": ".spec", "load_controller": ".spec"}

__all__ = ["Config", "ConfigError", "Result", "SsdcoError", "SweepTable", "evaluate", "load_config",
           "load_controller", "optimize", "sweep", "validate", "whatif"]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from ssdco.api import SweepTable, evaluate, optimize, sweep, validate, whatif
    from ssdco.errors import ConfigError, SsdcoError
    from ssdco.model.result import Result
    from ssdco.spec import Config, load_config, load_controller


def __getattr__(name: str):
    """The public name ``name``, importing its module on first use."""
    if name not in _LAZY:
        raise AttributeError(f"module 'ssdco' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
