"""Shared fixtures and Hypothesis profiles.

``HYPOTHESIS_PROFILE=ci`` (set by .ci/run) derandomises and trims example counts so the suite is
reproducible and fits CI's 2 cores; ``dev`` (default) explores more.
"""

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "configs"
PM9A3 = CONFIGS / "pm9a3-960.toml"


@pytest.fixture(scope="session")
def pm9a3_path() -> Path:
    return PM9A3
