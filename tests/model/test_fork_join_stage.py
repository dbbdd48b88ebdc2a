"""The dies and channels run event by event behind the rest of the route for requests of several transactions
(route_mva.FORK_JOIN_STAGE, 7.): where it applies, that it only raises X, and a design against the DES."""

import numpy as np
import pytest

from ssdco.model.queueing.route_mva import ALL_FEATURES, FORK_JOIN_STAGE, stage_behind_rest
from ssdco.model.solvers import SCHEDULES, all_but
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import build_network
from ssdco.sim.des import simulate
from ssdco.spec import config_from_dict
from ssdco.validation.compare import IOPS_TOLERANCE, LATENCY_TOLERANCE
from ssdco.validation.random_designs import random_config
from tests.gallery import gallery
from tests.model.queueing.test_route_mva import _solved

WITHOUT = ALL_FEATURES & ~FORK_JOIN_STAGE


def test_sixteen_kib_reads_at_busy_channels_come_within_the_tolerance():
    # 16 KiB reads at QD 7 whose chain outgrows its budget: the route MVA's fork-join waits at the channels run long
    # (-7.8 % against 200,000 DES requests); the stage behind the rest gives -2.2 % (measured 2026-11-29)
    d = gallery("sixteen-kib-reads-at-busy-channels-at-queue-depth-7")
    config = config_from_dict(d)
    network = build_network(config)
    # the route MVA's answers (at QD 7 the platoon stage answers by default: whatif.STAGE_MAX_QUEUE_DEPTH)
    with_it = evaluate_network(config, network, solvers=all_but("platoon-stage"))
    without = evaluate_network(config, network, route_features=WITHOUT, solvers=all_but("platoon-stage"))
    des = simulate(network, requests=200_000, seed=1)
    assert with_it.method == without.method == "route-mva"
    assert without.iops / des.iops.value - 1.0 < -2 * IOPS_TOLERANCE
    assert abs(with_it.iops / des.iops.value - 1.0) <= IOPS_TOLERANCE
    assert abs(with_it.latency_mean_us / des.mean_latency_us.value - 1.0) <= LATENCY_TOLERANCE
    assert with_it.latency_mean_us == pytest.approx(7 / with_it.iops * 1e6, rel=1e-9)  # Little's law at the new X
    stage = evaluate_network(config, network)
    assert stage.method == "platoon-stage" and abs(stage.iops / des.iops.value - 1.0) <= IOPS_TOLERANCE


def test_the_stage_replaces_only_the_fork_join_makespan_and_keeps_the_rest():
    network, arrays, sol, util = _solved(gallery("sixteen-kib-reads-at-busy-channels-at-queue-depth-7"))
    staged = stage_behind_rest(network, arrays, sol, util)
    assert staged.throughput_per_us > sol.throughput_per_us
    assert staged.response_us == pytest.approx(sol.population / staged.throughput_per_us, rel=1e-12)
    routed = list(arrays.routed_indices)
    rest = [k for k in range(len(sol.residence_us)) if k not in routed]
    assert np.array_equal(staged.residence_us[rest], sol.residence_us[rest])
    assert np.all(staged.residence_us[routed] < sol.residence_us[routed])
    assert stage_behind_rest(network, arrays, sol, util, WITHOUT) is sol  # off: the route MVA's own answer


def _with_and_without(seed: int, mixed_sizes: bool):
    network = build_network(config := config_from_dict(random_config(20261129 + seed, mixed_sizes=mixed_sizes)))
    return (network, evaluate_network(config, network, solvers=all_but(*SCHEDULES)),
            evaluate_network(config, network, solvers=all_but(*SCHEDULES), route_features=WITHOUT))


@pytest.mark.parametrize("seed", range(40))
def test_it_only_raises_x_and_only_where_a_die_or_channel_is_the_busiest(seed):
    network, with_it, without = _with_and_without(seed, mixed_sizes=True)  # 4 of these 40 are raised
    assert with_it.iops >= without.iops
    if with_it.iops > without.iops:
        assert network.station(max(without.utilization, key=without.utilization.get)).kind in ("die", "channel")
        assert max(network.transactions) > 1


@pytest.mark.parametrize("seed", range(20))
def test_requests_of_one_transaction_are_left_as_they_were(seed):
    _, with_it, without = _with_and_without(seed, mixed_sizes=False)
    assert (with_it.iops, with_it.latency_mean_us) == (without.iops, without.latency_mean_us)
