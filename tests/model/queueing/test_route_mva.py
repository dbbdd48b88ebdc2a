"""Helpers of the route MVA's fork-join step (route_mva.py, 1.): exact occupancy statistics of T
transactions spread uniformly over m copies of c servers each."""

import copy
import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdco import load_config
from ssdco.model.queueing.route_mva import (
    STAGE_BEHIND_REST_UTILIZATION,
    expected_max,
    expected_serial_count,
    own_run_departures,
    request_alone_us,
    residual_cv2,
    route_arrays,
    serial_level_distribution,
    solve_route,
    stage_behind_rest,
    stage_wait_correlation,
    top_level_profile,
)
from ssdco.model.solvers import all_but
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import Network, Station, Step, build_network
from ssdco.sim.des import simulate
from ssdco.spec import config_from_dict
from ssdco.validation.compare import IOPS_TOLERANCE
from ssdco.validation.random_designs import random_config
from tests.gallery import gallery


def _stirling2(n: int, k: int) -> int:
    """Stirling number of the second kind (set partitions of n into k blocks)."""
    return round(sum((-1) ** i * math.comb(k, i) * (k - i) ** n for i in range(k + 1)) / math.factorial(k))


def _as_matrix(profile, transactions):
    out = np.zeros((transactions + 1, transactions + 1))
    for a, b, p in profile:
        out[a, b] += p
    return out


def _brute_force(transactions, copies, servers):
    """P(A = a, B = b) by enumerating all m^T placements."""
    out = np.zeros((transactions + 1, transactions + 1))
    for placement in np.ndindex(*([copies] * transactions)):
        loads = np.bincount(np.array(placement, dtype=int), minlength=copies)
        levels = -(-loads // servers)
        top = levels.max()
        out[(levels == top).sum(), ((loads > 0) & (levels < top)).sum()] += 1.0
    return out / copies ** transactions


@pytest.mark.parametrize("transactions,copies,servers", [(1, 3, 1), (2, 2, 1), (3, 3, 1), (4, 3, 1), (4, 4, 2),
                                                         (5, 3, 2), (6, 2, 3), (5, 4, 1)])
def test_top_level_profile_matches_enumeration(transactions, copies, servers):
    got = _as_matrix(top_level_profile(transactions, copies, servers), transactions)
    np.testing.assert_allclose(got, _brute_force(transactions, copies, servers), rtol=1e-10, atol=1e-13)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.integers(1, 4))
def test_top_level_profile_marginals(transactions, copies, servers):
    profile = top_level_profile(transactions, copies, servers)
    assert all(a >= 1 and b >= 0 and a + b <= min(copies, transactions) for a, b, _ in profile)
    assert math.isclose(sum(p for *_, p in profile), 1.0, abs_tol=1e-9)
    # the occupied copies A + B: P(D = d) = C(m, d) S(T, d) d! / m^T
    occupied = np.zeros(transactions + 1)
    for a, b, p in profile:
        occupied[a + b] += p
    if transactions <= 20:
        exact = [math.comb(copies, d) * _stirling2(transactions, d) * math.factorial(d) / copies ** transactions
                 for d in range(transactions + 1)]
        np.testing.assert_allclose(occupied, exact, atol=1e-9)
    mean = float(np.dot(np.arange(transactions + 1), occupied))
    assert math.isclose(mean, copies * (1.0 - (1.0 - 1.0 / copies) ** transactions), rel_tol=1e-8)


def test_large_requests_stay_in_floating_point_range():
    # 1 MiB of 4 KiB transactions over 32 four-plane dies and over 8 channels
    for copies, servers in ((32, 4), (8, 1)):
        profile = top_level_profile(256, copies, servers)
        assert math.isclose(sum(p for *_, p in profile), 1.0, abs_tol=1e-9)
    assert math.isclose(expected_serial_count(1024, 32, 4), 11.44, abs_tol=0.02)  # Monte Carlo: 11.445


def test_serial_count_is_the_expected_busiest_copy():
    # 2 transactions over 2 single-server copies: both on one copy half the time
    assert math.isclose(expected_serial_count(2, 2, 1), 1.5)
    assert expected_serial_count(4, 1, 2) == 2.0  # ceil(4 / 2) on one two-server station
    assert expected_serial_count(1, 8, 1) == 1.0
    # against the enumeration: E[top level]
    for t, m, c in ((4, 3, 1), (5, 4, 2), (6, 2, 3)):
        levels = np.zeros(m ** t)
        for i, placement in enumerate(np.ndindex(*([m] * t))):
            levels[i] = (-(-np.bincount(np.array(placement, dtype=int), minlength=m) // c)).max()
        assert math.isclose(expected_serial_count(t, m, c), levels.mean(), rel_tol=1e-12)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="transactions, copies, servers"):
        top_level_profile(0, 4, 1)


@pytest.mark.parametrize("scv", [0.0, 0.25, 0.5, 0.9])
@pytest.mark.parametrize("rho", [0.1, 0.5, 0.9])
def test_wait_shape_is_that_of_mg1(scv, rho):
    """P + (1 - P) residual_cv2 is the squared coefficient of variation of a wait, given that there is
    one, in M/G/1 with gamma service (Takacs: E[W^2] = 2 E[W]^2 + lam E[S^3] / (3 (1 - rho)))."""
    m2, m3 = 1.0 + scv, (1.0 + scv) * (1.0 + 2.0 * scv)  # E[S] = 1
    w1 = rho * m2 / (2.0 * (1.0 - rho))
    w2 = 2.0 * w1 * w1 + rho * m3 / (3.0 * (1.0 - rho))
    conditional_cv2 = rho * w2 / (w1 * w1) - 1.0  # P(wait) = rho
    assert math.isclose(rho + (1.0 - rho) * residual_cv2(scv), conditional_cv2, rel_tol=1e-12)


def test_residual_shape_limits():
    assert math.isclose(residual_cv2(0.0), 1.0 / 3.0)  # uniform residual of a deterministic service
    assert math.isclose(residual_cv2(1.0), 1.0)  # exponential
    assert residual_cv2(3.0) == 1.0  # capped: a wait's cv does not rise as P(wait) falls


def test_serial_level_distribution_is_a_distribution():
    for t, m, c in ((4, 2, 1), (4, 6, 2), (16, 8, 1), (3, 1, 2), (1024, 32, 4)):
        dist = serial_level_distribution(t, m, c)
        assert math.isclose(sum(dist), 1.0, abs_tol=1e-12)
        assert len(dist) == -(-t // c) + 1
    assert serial_level_distribution(4, 2, 1) == pytest.approx((0.0, 0.0, 6 / 16, 8 / 16, 2 / 16))
    assert serial_level_distribution(5, 1, 2) == (0.0, 0.0, 0.0, 1.0)


def test_own_run_interleaves_fcfs():
    # four transactions, three unit steps in a row, two servers: steps 1 and 2 of the first pair wait
    # behind step 1 of the second pair, so the pairs leave at 5 and 6 (one job's way is 3)
    assert own_run_departures((1.0, 1.0, 1.0), 4, 2) == (5.0, 6.0)
    # three servers: 1,2,3 start; then 4 with 1's and 2's second steps; the last leaves at 4
    assert own_run_departures((1.0, 1.0, 1.0), 4, 3) == (3.0, 4.0)
    # one step: ceil(T / c) levels, the first out after one service
    assert own_run_departures((2.0,), 5, 2) == (2.0, 6.0)
    assert own_run_departures((2.0, 3.0), 1, 1) == (5.0, 5.0)


def test_expected_max_of_independent_discrete():
    assert expected_max([((0.0, 10.0), (0.9, 0.1)), ((3.0,), (1.0,))]) == pytest.approx(0.9 * 3 + 0.1 * 10)
    rng = np.random.default_rng(1)
    a = ((0.0, 1.0, 4.0), (0.5, 0.3, 0.2))
    b = ((0.0, 2.0), (0.6, 0.4))
    draws = np.maximum(rng.choice(a[0], 400_000, p=a[1]), rng.choice(b[0], 400_000, p=b[1]))
    assert expected_max([a, b]) == pytest.approx(draws.mean(), abs=0.01)
    # exactly: P(max = 4) = 0.2, P(max = 2) = 0.8 x 0.4, P(max = 1) = 0.3 x 0.6
    assert expected_max([a, b]) == pytest.approx(4 * 0.2 + 2 * 0.32 + 1 * 0.18)
    assert expected_max([]) == 0.0


def test_last_own_departure_with_variable_service():
    from ssdco.model.queueing.route_mva import own_last_departure

    harmonic = sum(1.0 / k for k in range(1, 5))
    # exponential services on copies so many that the four never share one: the max of four, H_4
    assert own_last_departure(4, 10**6, 1, 1.0) == pytest.approx(harmonic, rel=1e-4)
    # one copy, one server: the four one after another, an Erlang-4 of mean 4 whatever the scv
    assert own_last_departure(4, 1, 1, 1.0) == pytest.approx(4.0, rel=1e-6)
    assert own_last_departure(4, 1, 1, 0.3) == pytest.approx(4.0, rel=1e-6)
    # one copy of two servers: two lanes of two exponentials, E[max of two Erlang-2] = 2.75
    assert own_last_departure(4, 1, 2, 1.0) == pytest.approx(2.75, rel=1e-6)
    # nearly deterministic service: the expected top level ceil(max load / c) of the deterministic model,
    # plus at most a few standard deviations of one service (sqrt(scv)) for the max over the jobs
    for t, m, c in ((4, 8, 1), (16, 32, 4), (8, 3, 2)):
        for scv in (1e-2, 1e-4, 1e-6):
            excess = own_last_departure(t, m, c, scv) - expected_serial_count(t, m, c)
            assert -1e-4 <= excess <= 3.0 * math.sqrt(scv), (t, m, c, scv, excess)
    # more variable service, a later last departure
    assert own_last_departure(4, 8, 1, 2.0) > own_last_departure(4, 8, 1, 1.0) > own_last_departure(4, 8, 1, 0.1)


@given(st.integers(1, 12), st.integers(1, 9), st.integers(0, 12))
@settings(max_examples=40)
def test_occupancy_mean_of_an_indicator_is_the_max_load_distribution(t, m, limit):
    from ssdco.model.queueing.route_mva import _occupancy_mean, _p_max_load_at_most

    g = (np.arange(t + 1) <= limit).astype(float)[:, None]
    want = 1.0 if limit >= t else _p_max_load_at_most(t, m, limit)
    assert _occupancy_mean(t, m, g)[0] == pytest.approx(want, abs=1e-12)


def test_variable_service_spread_of_a_step_one_operation_skips():
    # with a mapping cache and a write buffer the data read is a read-only die step: at 70 % reads the
    # writes skip it, so its spread is 0 for them (a distribution of total probability 1, not 0.7)
    from ssdco.model.queueing.route_mva import own_last_departure, own_serial_parts
    from ssdco.network.build import build_network
    from tests.conftest import PM9A3

    overrides = ["workload.read_fraction=0.7", "workload.request_size_kib=16", "variability.nand_scv=1.0"]
    net = build_network(load_config(PM9A3, controller="c01", overrides=overrides))
    loads = net.loads()
    steps = [s for s in net.steps if s.station is not None and not s.background and net.op_weight(s) > 0]
    (read_step,) = [s for s in steps if s.label == "nand_array"]
    assert read_step.ops == "read"
    die = next(ld for ld in loads if ld.name == "die")
    only = [read_step]  # the die read alone: E[max(0.7 x its spread, 0.3 x 0)] = 0.7 x its spread
    fixed, extra = own_serial_parts(net, only, loads, 4)
    last = own_last_departure(4, int(die.copies), die.servers, 1.0)
    spread = read_step.probability * net.step_moments(read_step, "read")[0] * (last - 1.0)
    assert fixed + extra == pytest.approx(0.7 * spread, rel=1e-9)


def test_dies_behind_nothing_but_a_delay_are_not_their_own_regular_source():
    # 8 requests, a 19 us delay, then a 531 us program on one of 6 dies at random. The dies' arrivals are
    # their own departures, through the delay: taken as a regular source, they waited nothing and the dies
    # ran at capacity (response 709 us, +42 %); as Poisson, like dies fed by a core, the DES's 1,006 us.
    network = Network(stations=(Station("die", "die", 1, 6),),
                      steps=(Step("elsewhere", None, True, 0.0, 0.0, delay_us=19.0),
                             Step("nand_array", "die", False, 531.0, 531.0, routing="uniform")),
                      read_fraction=0.0, request_bytes=(4096.0,), request_probs=(1.0,), transactions=(1,),
                      queue_depth=8, arrival_iops=None)
    model = solve_route(route_arrays(network, network.loads()), 8)
    des = simulate(network, requests=50_000, seed=1)
    assert model.throughput_per_us * 1e6 == pytest.approx(des.iops.value, rel=0.03)


def test_a_mix_behind_one_slow_core_at_queue_depth_6_is_the_platoon_stages_within_the_tolerance():
    # reads and programs mix behind a core group: the route MVA's answer is 3.7 % below a 400,000-request run (its
    # 95 % CI +/- 0.3 %), outside the tolerance; whatif's own answer there is the platoon stage's, within it
    config = config_from_dict(gallery("mix-behind-one-slow-core-at-queue-depth-6"))
    network = build_network(config)
    des = simulate(network, requests=400_000, seed=1).iops.value
    route = evaluate_network(config, network, solvers=all_but("platoon-stage"))
    assert route.method == "route-mva" and 1.0 - route.iops / des > IOPS_TOLERANCE
    stage = evaluate_network(config, network)
    assert stage.method == "platoon-stage" and abs(stage.iops / des - 1.0) <= IOPS_TOLERANCE


@pytest.mark.parametrize("seed", range(8))
def test_request_alone_is_whatifs_zero_load_latency_bit_for_bit(seed):
    # whatif scales the Markov chain's grids by 1 / X(1) of its solve at the queue depth; request_alone_us, the
    # solve at population 1, must be the same float, or a chain attempted with it would not be whatif's
    d = random_config(seed, mixed_sizes=True)
    d["workload"]["queue_depth"] = 2 + seed % 4
    network = build_network(config_from_dict(d))
    at_depth = solve_route(route_arrays(network, network.loads()), network.queue_depth)
    assert request_alone_us(network) == 1.0 / at_depth.throughput_by_n[1]


@pytest.mark.parametrize("read_fraction, overrides, expected", [
    (1.0, (), 0.0),  # reads only: the stages' excess waits add as independent parts
    (0.0, (), 0.0),  # writes only
    (0.7, (), 1.0),  # reads among the write buffer's background programs: added outright, as before
    (1.0, ('ftl.mapping="dftl"', "ftl.cache_fraction=0.1"), 1.0),  # some reads make a mapping read first
])
def test_stage_wait_correlation_by_the_work_on_the_path(pm9a3_path, read_fraction, overrides, expected):
    config = load_config(pm9a3_path, overrides=[f"workload.read_fraction={read_fraction}",
                                                 "workload.request_size_kib=16", *overrides])
    network = build_network(config)
    assert stage_wait_correlation(network) == expected
    assert route_arrays(network, network.loads()).stage_wait_correlation == expected


@pytest.mark.parametrize("design, expected", [
    ("bursty-read-write-mix", 1.0),  # reads and programs mix behind a core group, the bottleneck: added outright
    ("mixed-16k-requests-at-busy-channels", 0.0),  # the same mix with the channels the bottleneck: independent
])
def test_stage_wait_correlation_of_read_write_mixes_by_their_bottleneck(design, expected):
    assert stage_wait_correlation(build_network(config_from_dict(gallery(design)))) == expected


def test_independent_stage_waits_only_shorten_the_cycle():
    # the root of the sum of squares is below the sum where two stages wait: the same network answers more IOPS
    config = config_from_dict(gallery("sixteen-kib-reads-waiting-at-dies-and-channels"))
    network = build_network(config)
    arrays = route_arrays(network, network.loads())
    rss = solve_route(replace(arrays, stage_wait_correlation=0.0), network.queue_depth)
    added = solve_route(replace(arrays, stage_wait_correlation=1.0), network.queue_depth)
    assert rss.throughput_per_us > 1.02 * added.throughput_per_us
    assert rss.response_us < added.response_us


def _solved(d: dict):
    """The network of design ``d``, its route arrays, the route MVA's solution and the utilisation per server."""
    network = build_network(config_from_dict(d))
    loads = network.loads()
    arrays = route_arrays(network, loads)
    sol = solve_route(arrays, network.queue_depth)
    util = sol.throughput_per_us * np.array([ld.demand_us for ld in loads]) / np.array([ld.servers for ld in loads])
    return network, arrays, sol, util


def test_the_stage_behind_the_rest_raises_x_at_busy_channels_and_keeps_the_rests_residences():
    network, arrays, sol, util = _solved(gallery("reads-at-busy-channels-behind-fast-cores"))
    n = network.queue_depth
    staged = stage_behind_rest(network, arrays, sol, util)
    assert staged.throughput_per_us > 1.02 * sol.throughput_per_us  # the route MVA alone is 3.6 % low here
    routed = list(arrays.routed_indices)
    rest = [k for k in range(len(util)) if k not in routed]
    np.testing.assert_array_equal(staged.residence_us[rest], sol.residence_us[rest])
    think = sol.response_us - float(np.sum(sol.residence_us[routed] * arrays.copies[routed]))
    cycle = think + float(np.sum(staged.residence_us[routed] * arrays.copies[routed]))
    assert cycle == pytest.approx(n / staged.throughput_per_us, rel=1e-12)
    assert staged.response_us == pytest.approx(n / staged.throughput_per_us, rel=1e-12)
    np.testing.assert_allclose(staged.queue, staged.throughput_per_us * staged.residence_us, rtol=1e-12)
    assert staged.throughput_by_n[n] == staged.throughput_per_us
    np.testing.assert_array_equal(staged.throughput_by_n[:n], sol.throughput_by_n[:n])


def _changed(d: dict, section: str, **fields) -> dict:
    d = copy.deepcopy(d)
    d[section] = {**d[section], **fields}
    return d


@pytest.mark.parametrize("change", [
    # several transactions: the request's time at the stage is a fork-join makespan, not one visit
    lambda d: _changed(d, "workload", request_size_kib=16),
    # at QD 2 the channels are less than half busy
    lambda d: _changed(d, "workload", queue_depth=2),
    # a parse four times as long makes the core group the busiest station
    lambda d: _changed(d, "modules", parse={"cycles": 4 * d["modules"]["parse"]["cycles"]}),
], ids=["several-transactions", "channels-less-than-half-busy", "a-core-group-busiest"])
def test_the_stage_behind_the_rest_applies_only_to_one_transaction_and_busy_dies_or_channels(change):
    network, arrays, sol, util = _solved(change(gallery("reads-at-busy-channels-behind-fast-cores")))
    routed = set(arrays.routed_indices)
    busy = int(np.argmax(util)) in routed and util.max() >= STAGE_BEHIND_REST_UTILIZATION
    assert not busy or max(network.transactions) > 1
    assert stage_behind_rest(network, arrays, sol, util) is sol
