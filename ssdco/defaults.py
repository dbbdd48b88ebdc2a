"""Defaults shared by the command line (``ssdco ...``) and the Python API (``ssdco.validate`` ...).

One place for every default a user can see, so that ``ssdco validate cfg.toml`` and ``ssdco.validate(cfg)``
run the same experiment. This module imports nothing: ``ssdco --help`` and ``import ssdco`` read it cheaply.
"""

from __future__ import annotations

DES_REQUESTS = 200_000  # requests a DES run completes (validate, study; 10 % warm-up discarded)
SEED = 0  # DES seed (same seed => identical results)
REPLICATIONS = "auto"  # validate's extra DES runs from other seeds: "auto" = AUTO_REPLICATIONS where it applies
AUTO_REPLICATIONS = 4  # the extra runs of "auto" on closed work whose every service is deterministic (else 0)
SWEEP_DES_REQUESTS = 0  # sweep: DES requests per grid point (0: analytic model only)
SWEEP_REPLICATIONS = 0  # sweep: extra DES runs per grid point (0: one run per point)
SWEEP_WORKERS = 1  # sweep: local worker processes (1: run in this process)
SWEEP_OUT = "sweep.csv"  # sweep: CSV output of the command line
CONNECT_TIMEOUT_S = 20.0  # sweep: how long to wait for a Dask scheduler to answer (s)
STUDY_OUT = "reports/pm9a3-study"  # study: output directory
VERSION = "0.1.0"  # the package version (pyproject.toml reads it from here)
