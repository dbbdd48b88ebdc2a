"""The page's background DES runs."""

import time

import pytest

from ssdco.serve.jobs import DesJobs
from ssdco.spec import load_config
from ssdco.validation.compare import validate
from tests.conftest import PM9A3

REQUESTS = 20_000


def _wait(jobs, job, timeout_s=300.0):
    seen = []
    deadline = time.monotonic() + timeout_s  # a guard against a hung thread, not a speed check
    while time.monotonic() < deadline:
        s = jobs.status(job)
        seen.append(s.completed)
        if s.done:
            return s, seen
        time.sleep(0.01)
    pytest.fail(f"DES job {job} did not end")


def test_a_run_reports_progress_and_ends_with_validate_s_answer():
    config = load_config(PM9A3, controller="c07")
    jobs = DesJobs()
    job = jobs.start(config, requests=REQUESTS, seed=3)
    status, seen = _wait(jobs, job)
    assert status.error == "" and status.fraction == 1.0 and status.completed == REQUESTS
    assert seen == sorted(seen)  # progress only grows
    direct = validate(config, requests=REQUESTS, seed=3, replications=0, markov_chain=False)
    assert status.validation.des.iops.value == direct.des.iops.value
    assert status.validation.verdict == direct.verdict


def test_a_new_run_replaces_the_one_before():
    config = load_config(PM9A3, controller="c01")
    jobs = DesJobs()
    first = jobs.start(config, requests=200_000)
    second = jobs.start(config, requests=REQUESTS)
    assert jobs.status(first) is None
    status, _ = _wait(jobs, second)
    assert status.validation is not None and jobs.status(first) is None


def test_a_design_the_des_cannot_run_ends_with_its_error():
    config = load_config(PM9A3, controller="c01", overrides=["workload.arrival_iops=5e6"])  # beyond capacity
    jobs = DesJobs()
    status, _ = _wait(jobs, jobs.start(config, requests=REQUESTS))
    assert status.validation is None and "workload.arrival_iops" in status.error and status.done
