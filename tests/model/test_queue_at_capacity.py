"""The queues whatif reports where the capacity bound holds the throughput (route_mva.queue_at_capacity), and the
DES's queues in ``validate --json`` per station copy like the model's."""

import copy

import numpy as np
import pytest
from hypothesis import given, settings

from ssdco import load_config
from ssdco.model.queueing.route_mva import queue_at_capacity, route_arrays, solve_route
from ssdco.model.solvers import all_but
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import build_network
from ssdco.sim.des import simulate
from ssdco.spec import config_from_dict
from ssdco.validation.compare import validate
from tests.conftest import PM9A3
from tests.gallery import gallery
from tests.strategies import config_dicts


def _saturated_reads(queue_depth: int) -> dict:
    """4 KiB reads behind one fast core running four modules (5.2 us a request): 100 % busy from QD 8."""
    d = copy.deepcopy(gallery("reads-and-programs-at-a-busy-fast-core"))
    d["workload"].update(read_fraction=1.0, request_size_kib=4, queue_depth=queue_depth)
    return d


def _jobs_and_delays(network, sol, queue) -> float:
    """Jobs at the stations (over all copies) plus the requests in pure delays: N by Little's law."""
    a = route_arrays(network, network.loads())
    # per-request steps' delays are in pure_delay_us already; the transactions' are per step
    delays_us = a.pure_delay_us + float(np.sum((a.step_delay_us * a.step_visits)[a.step_in_block]))
    return float(np.sum(queue * a.copies)) + sol.throughput_per_us * delays_us


def test_the_requests_left_over_by_the_capacity_bound_queue_at_the_bottleneck():
    network = build_network(config_from_dict(_saturated_reads(64)))
    a = route_arrays(network, network.loads())
    sol = solve_route(a, 64)
    assert sol.capacity_wait_us > 0.0  # held at the core's capacity
    assert _jobs_and_delays(network, sol, sol.queue) < 8.0  # before: the other 56 requests were nowhere
    assert _jobs_and_delays(network, sol, queue_at_capacity(a, sol)) == pytest.approx(64.0, rel=1e-9)


def test_the_bottleneck_queue_at_capacity_matches_the_des():
    config = config_from_dict(_saturated_reads(64))
    network = build_network(config)
    r = evaluate_network(config, network,
                         solvers=all_but("platoon-stage"))  # the route MVA's (the platoon stage's: below)
    des = simulate(network, requests=60_000, seed=1)
    assert r.utilization["cores:g1"] == pytest.approx(1.0, abs=1e-9)
    assert r.mean_jobs["cores:g1"] == pytest.approx(des.mean_in_station["cores:g1"], rel=0.02)  # 61.0 both
    stage = evaluate_network(config, network)  # the core serves several steps: the platoon stage answers
    assert stage.method == "platoon-stage"
    assert stage.mean_jobs["cores:g1"] == pytest.approx(des.mean_in_station["cores:g1"], rel=0.02)


def test_below_the_capacity_bound_the_queues_are_the_solvers():
    d = _saturated_reads(4)
    d["workload"]["read_fraction"] = 0.7  # programs: the dies hold the requests below the core's capacity
    network = build_network(config_from_dict(d))
    a = route_arrays(network, network.loads())
    sol = solve_route(a, 4)
    assert sol.capacity_wait_us == 0.0
    assert queue_at_capacity(a, sol) is sol.queue


@given(config_dicts(fixed_size=True))
@settings(max_examples=40)
def test_one_transaction_requests_are_all_somewhere(d):
    # Little's law over the route: every one of the N requests is at a station or in a pure delay. With one
    # transaction a request's cycle is the sum of its stations' residences and its delays, so this holds to
    # rounding below the capacity bound (X cycle = N at the root) and at it (the rest queued at the bottleneck);
    # on the 953 one-transaction designs of the cached DES comparisons within 3e-12
    network = build_network(config_from_dict(d, source="<generated>"))
    a = route_arrays(network, network.loads())
    sol = solve_route(a, network.queue_depth)
    total = _jobs_and_delays(network, sol, queue_at_capacity(a, sol))
    assert total == pytest.approx(network.queue_depth, rel=1e-9)


def test_validate_json_gives_the_des_queues_per_station_copy():
    config = load_config(PM9A3, controller="c01")
    v = validate(config, requests=20_000, seed=1)
    doc = v.to_dict()
    copies = {ld.name: ld.copies for ld in build_network(config).loads()}
    assert copies["die"] > 1
    for name, jobs in doc["des"]["mean_jobs"].items():
        assert jobs == pytest.approx(v.des.mean_in_station[name] / copies[name], rel=1e-12)
    # the same unit as the model's: 0.85 jobs per die in both (27 over the 32 dies)
    assert doc["des"]["mean_jobs"]["die"] == pytest.approx(doc["analytic"]["mean_jobs"]["die"], rel=0.10)
