"""The waits at address-routed copies take regularity from the flow (route_mva.py, 3.,
:func:`route_mva._wait_displacement`): a job that waits longer than the jobs' spacing lands at random in the
copies' merged output."""

import numpy as np
import pytest

from ssdco.model.queueing.route_mva import (
    ALL_FEATURES,
    FLOW,
    IDLE_BOUND,
    WAIT_DISPLACEMENT,
    _wait_displacement,
    route_arrays,
    solve_route,
)
from ssdco.model.solvers import all_but
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import build_network
from ssdco.sim.des import simulate
from ssdco.spec import config_from_dict
from ssdco.validation.compare import IOPS_TOLERANCE
from tests.gallery import gallery


def test_the_share_kept_is_one_minus_the_displaced_share_squared():
    copies = np.array([1.0, 8.0, 4.0, 8.0])
    visits = np.array([1.0, 1 / 8, 1 / 4, 1 / 8])  # per copy
    wait = np.array([5.0, 40.0, 0.0, 1e30])
    p_wait = np.array([0.9, 0.5, 0.0, 1.0])
    out = np.zeros(4)
    x = 0.05  # requests per us: 20 us apart
    _wait_displacement(x, copies, visits, wait, p_wait, out)
    spread = x * 40.0 / 0.5  # lambda theta: those who wait, wait 80 us, four spacings
    displaced = 0.5 * spread ** 2 / (1 + spread ** 2)
    assert out[0] == 1.0  # a single-copy station: its own arrivals, no merge
    assert out[1] == pytest.approx((1 - displaced) ** 2, rel=1e-12)
    assert out[2] == 1.0  # nobody waits
    assert out[3] == pytest.approx(0.0, abs=1e-9)  # saturated: every job waits without end


def test_short_waits_displace_little():
    copies, visits, p_wait = np.array([8.0]), np.array([1 / 8]), np.array([0.5])
    kept = []
    for wait in (0.1, 1.0, 10.0, 100.0):  # us, at 20 us spacing
        out = np.zeros(1)
        _wait_displacement(0.05, copies, visits, np.array([wait]), p_wait, out)
        kept.append(out[0])
    assert kept == sorted(kept, reverse=True) and kept[0] > 0.999 and kept[-1] < 0.26


def test_reads_behind_a_slow_completion_core_come_within_the_tolerance():
    # Seed 20261250 one-transaction draw 75: without the displacement the completion core's arrivals were taken as
    # regular as the deterministic stations make them, and the model was +3.8 % against the DES (1,000,000
    # requests); with it, +2.7 % (here 100,000 requests: +3.7 % and +2.6 %). Since the idle bound's root (2026-11-28,
    # twenty-first session) the bound alone brings the answer in (-0.6 % with or without the displacement), so the
    # displacement is checked with the bound off. (Since the twenty-eighth session the platoon stage answers by
    # default at QD 14 behind a core group, whatif.STAGE_MAX_QUEUE_DEPTH: the route MVA is asked for.)
    config = config_from_dict(gallery("reads-behind-a-slow-completion-core"))
    network = build_network(config)
    arrays = route_arrays(network, network.loads())
    des = simulate(network, requests=100_000, seed=1).iops.value
    before = solve_route(arrays, 14, features=ALL_FEATURES & ~WAIT_DISPLACEMENT).throughput_per_us * 1e6
    r = evaluate_network(config, network, route_features=ALL_FEATURES & ~IDLE_BOUND, solvers=all_but("platoon-stage"))
    assert r.method == "route-mva"
    assert before / des - 1.0 > IOPS_TOLERANCE
    assert 0.0 < r.iops / des - 1.0 <= IOPS_TOLERANCE
    assert abs(evaluate_network(config, network, solvers=all_but("platoon-stage")).iops / des - 1.0) <= IOPS_TOLERANCE
    stage = evaluate_network(config, network)
    assert stage.method == "platoon-stage" and abs(stage.iops / des - 1.0) <= IOPS_TOLERANCE


def test_requests_of_several_transactions_are_left_as_they_were():
    # measured on one-transaction requests only; on the 8-16 KiB draws it moved 8 answers by 0.5 % or more (5
    # closer to the DES, 3 further) and the route MVA alone on gallery("reads-dipping-at-queue-depth-4") from
    # -1.3 to -3.4 %
    network = build_network(config_from_dict(gallery("eight-kib-reads-over-eight-dies-at-queue-depth-4")))
    arrays = route_arrays(network, network.loads())
    assert max(network.transactions) > 1
    with_it = solve_route(arrays, network.queue_depth)
    without = solve_route(arrays, network.queue_depth, features=ALL_FEATURES & ~WAIT_DISPLACEMENT)
    assert with_it.throughput_per_us == without.throughput_per_us
    assert np.array_equal(with_it.residence_us, without.residence_us)


def test_whatif_can_answer_without_a_correction_to_measure_it():
    # evaluate_network(..., route_features=...): what tools/solver_contributions.py compares
    config = config_from_dict(gallery("reads-behind-a-slow-completion-core"))
    network = build_network(config)
    arrays = route_arrays(network, network.loads())
    # without the idle bound too, which holds this design's answer below the route MVA's (idle_bound.py)
    bits = ALL_FEATURES & ~WAIT_DISPLACEMENT & ~IDLE_BOUND
    without = evaluate_network(config, network, route_features=bits,
                               solvers=all_but("platoon-stage"))  # the stage: QD 14
    assert without.method == "route-mva"
    assert without.iops == pytest.approx(solve_route(arrays, 14, features=bits).throughput_per_us * 1e6, rel=1e-12)
    assert without.iops > evaluate_network(config, network, route_features=ALL_FEATURES & ~IDLE_BOUND,
                                           solvers=all_but("platoon-stage")).iops
    assert without.flow_correction_share == pytest.approx(
        solve_route(arrays, 14, features=bits).throughput_per_us
        / solve_route(arrays, 14, features=bits & ~FLOW).throughput_per_us - 1.0, rel=1e-12)
