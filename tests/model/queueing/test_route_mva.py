"""Helpers of the route MVA's fork-join step (route_mva.py, 1.): exact occupancy statistics of T
transactions spread uniformly over m copies of c servers each."""

import copy
import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdco import evaluate, load_config
from ssdco.model.queueing.route_mva import (
    ALL_FEATURES,
    FLOW,
    IDLE_BOUND,
    STAGE_BEHIND_REST_UTILIZATION,
    _flow_scv,
    _traffic_shares,
    expected_max,
    expected_serial_count,
    own_run_departures,
    queue_at_capacity,
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
from ssdco.validation.compare import IOPS_TOLERANCE, LATENCY_TOLERANCE, validate
from ssdco.validation.random_designs import random_config
from tests.conftest import PM9A3
from tests.gallery import gallery
from tests.strategies import CORE_SPECS, accelerator_spec, config_dicts


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


def test_last_own_departure_of_steps_taken_with_a_probability():
    """A step a transaction takes with chance p (an FTL event): the jobs served are binomial."""
    from scipy.stats import binom

    from ssdco.model.queueing.route_mva import own_last_departure

    p = 0.26
    # deterministic service on separate copies: the last leaves after one service unless none is served
    assert own_last_departure(4, 10**6, 1, 0.0, probability=p) == pytest.approx(1 - (1 - p) ** 4, rel=1e-5)
    # one copy, one server: the served jobs one after another, 4 p on average, whatever the scv
    assert own_last_departure(4, 1, 1, 0.0, probability=p) == pytest.approx(4 * p, rel=1e-9)
    assert own_last_departure(4, 1, 1, 0.5, probability=p) == pytest.approx(4 * p, rel=1e-6)
    # exponential service on separate copies: E[H_J], J binomial(4, p), to the trapezoid grid's 3e-4 (as H_4 above)
    want = sum(binom.pmf(j, 4, p) * sum(1.0 / k for k in range(1, j + 1)) for j in range(5))
    assert own_last_departure(4, 10**6, 1, 1.0, probability=p) == pytest.approx(want, abs=5e-4)
    assert own_last_departure(4, 8, 1, 0.0, probability=1.0) == expected_serial_count(4, 8, 1)


def test_a_write_through_write_of_several_transactions_waits_for_its_last_program():
    """At queue depth 1, a 16 KiB write of four 4 KiB transactions programs its page on one transaction of about
    four (a probability per transaction): the request waits for the transaction that programs, and the route MVA
    (answering where the die is held through its transfer and the Markov chain declines) follows the DES."""
    config = load_config(PM9A3, controller="c07", overrides=[
        "workload.request_size_kib=16", "ftl.write_buffer_kib=0", "workload.queue_depth=1",
        "workload.read_fraction=0.0", "nand.independent_plane_reads=false", "nand.die_held_through_transfer=true"])
    network = build_network(config)
    model = evaluate(config)
    assert model.method == "route-mva"
    assert any(s.probability < 1.0 and s.station == "die" for s in network.steps)
    des = simulate(network, requests=20_000, seed=1).mean_latency_us.value
    assert model.latency_mean_us == pytest.approx(des, rel=0.05)


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
    (0.7, (), 1.0),  # reads among the write buffer's background programs: added outright
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


# ---- The route MVA's arrival variability (route_mva.py, 3.): Whitt's traffic equations solved to their fixed
# point by ``_flow_scv``, with the displacement by variable service at address-routed copies (their merged
# output not capped at Poisson), and the wait of a station whose arrivals are burstier than Poisson.
def _arrays(config):
    network = build_network(config)
    return route_arrays(network, network.loads())


def _capacity(a):
    """The route's throughput bound (requests/us): the busiest station's servers over its demand."""
    return min(c / d for c, d in zip(a.servers, a.visits * a.service_us) if d > 0)


def _solve(a, x):
    """(ca2 at one copy, ca2 at the station) from _flow_scv at throughput x (requests/us)."""
    k = a.service_us.shape[0]
    work = np.zeros((6 + k, k))
    work[0] = x * a.visits * a.service_us / a.servers
    traffic = _traffic_shares(a.step_station, a.step_visits, a.step_routed, a.copies)
    _flow_scv(x, a.run_scv, a.servers, a.copies, a.visits, a.service_us, traffic, work)
    return work[1].copy(), work[2].copy()


def _iterate(a, x, rounds):
    """The same equations iterated from Poisson, step by step along the route (the form they had), with a
    step that follows another at the same single station merged into the job's work there (immediate
    feedback: not an arrival; the station departs with the scv of the merged work)."""
    k = a.service_us.shape[0]
    st, sv, routed = a.step_station, a.step_visits, a.step_routed
    n = st.shape[0]
    util = x * a.visits * a.service_us / a.servers
    split = np.array([sv[i - 1] / sv[st == st[i - 1]].sum() for i in range(n)])
    feedback = np.array([st[i - 1] == st[i] and not routed[i] and not routed[i - 1] for i in range(n)])
    ca2, ca2_in, cd2 = np.ones(k), np.ones(k), np.ones(k)
    for _ in range(rounds):
        for j in range(k):
            if a.copies[j] > 1:
                u = min(util[j], 1.0)
                lam_sigma = x * a.visits[j] * a.copies[j] * a.service_us[j] * math.sqrt(a.scv[j])
                keep = (1 - u * u) / (1 + lam_sigma ** 2)
                cd2[j] = 1 + keep * (ca2_in[j] - 1) + u * u * (a.scv[j] - 1)
            else:
                u = min(util[j] * a.servers[j], 1.0)
                cd2[j] = 1 + (1 - u * u) * (ca2[j] - 1) + u * u * (a.run_scv[j] - 1)
        acc, acc_in, wsum = np.zeros(k), np.zeros(k), np.zeros(k)
        for i in range(n):
            if feedback[i]:
                continue
            a2 = split[i] * cd2[st[i - 1]] + 1 - split[i]
            acc_in[st[i]] += sv[i] * a2
            if a.step_routed[i]:
                q = 1 / a.copies[st[i]]
                a2 = q * a2 + 1 - q
            acc[st[i]] += sv[i] * a2
            wsum[st[i]] += sv[i]
        seen = wsum > 0
        ca2[seen], ca2_in[seen] = acc[seen] / wsum[seen], acc_in[seen] / wsum[seen]
    return ca2, ca2_in


@pytest.mark.parametrize("seed,mixed", [(3, False), (16, False), (20, True), (146, False), (72, False)])
def test_fixed_point_equals_the_iterated_equations(seed, mixed):
    # 3,000 rounds from Poisson converge even where the loop contracts slowly (lightly loaded stations)
    a = _arrays(config_from_dict(random_config(seed, mixed)))
    capacity = _capacity(a)
    for load in (0.2, 0.7, 0.95):
        got = _solve(a, load * capacity)
        want = _iterate(a, load * capacity, 3_000)
        np.testing.assert_allclose(got[0], want[0], atol=1e-8)
        np.testing.assert_allclose(got[1], want[1], atol=1e-8)


def _names(seed, mixed=False):
    return [ld.name for ld in build_network(config_from_dict(random_config(seed, mixed))).loads()]


def test_four_rounds_were_far_from_the_fixed_point():
    # uniform seed 146 (DES: 0.1 us of wait at its 2-core dispatch group, 67 % busy; the model with 4
    # rounds waited 2.7 us there, -4.8 % IOPS): the busy deterministic group makes the flow regular, but
    # that regularity moves one station per round along the loop, and after 4 rounds it has not come
    # back to the group's own arrivals
    a = _arrays(config_from_dict(random_config(146, False)))
    group = _names(146).index("cores:g1")
    capacity = _capacity(a)
    x = 0.7 * capacity
    assert _iterate(a, x, 4)[0][group] > 0.9
    assert _solve(a, x)[0][group] < 0.1


def test_variable_die_service_leaves_the_dies_own_burstiness():
    # uniform seed 72: 30 % programs of 672 us among 20 us reads, so the dies displace the jobs at random and
    # the regularity of their arrivals is lost; what the channel after them sees is the dies' own burstiness,
    # 1 + u^2 (cs^2 - 1) (reads queued behind a program leave together), not capped at Poisson. Seed 146's
    # deterministic dies pass on the regularity of their arrivals
    a = _arrays(config_from_dict(random_config(72, False)))
    names = _names(72)
    die, channel = names.index("die"), names.index("channel")
    x = 0.7 * _capacity(a)
    _, ca2_in = _solve(a, x)
    u = x * a.visits[die] * a.service_us[die] / a.servers[die]
    lam_sigma = x * a.visits[die] * a.copies[die] * a.service_us[die] * math.sqrt(a.scv[die])
    keep = (1 - u * u) / (1 + lam_sigma ** 2)
    assert keep < 0.02  # the dies' arrivals are all but forgotten
    assert ca2_in[channel] == pytest.approx(1 + keep * (ca2_in[die] - 1) + u * u * (a.scv[die] - 1), abs=1e-9)
    assert ca2_in[channel] > 1.0  # burstier than Poisson (capped, it would be 1)
    a = _arrays(config_from_dict(random_config(146, False)))
    _, ca2_in = _solve(a, 0.7 * _capacity(a))
    assert ca2_in[_names(146).index("channel")] == pytest.approx(0.0, abs=1e-9)


def test_no_singular_system_when_the_loads_vanish():
    # at a vanishing throughput every station keeps its arrivals' regularity (u = 0): the equations of a
    # closed deterministic loop then have no unique solution unless keep stays below 1
    a = _arrays(config_from_dict(random_config(146, False)))
    ca2, ca2_in = _solve(a, 1e-200)
    assert np.all(np.isfinite(ca2)) and np.all(np.isfinite(ca2_in))


def _feedback_design(sizes_kib, probs):
    # one slow core runs parse and then each transaction's cache lookup (a run of immediate feedback);
    # translate and dispatch are accelerators, complete another core group
    return config_from_dict({
        "name": "feedback",
        "nand": {"channels": 2, "ways_per_channel": 2, "dies_per_chip": 1, "planes_per_die": 1,
                 "independent_plane_reads": False, "t_read_us": 40.0, "t_prog_us": 600.0,
                 "channel_rate_mts": 1200.0, "ecc_overhead_fraction": 0.1},
        "host": {"pcie_gen": 3, "pcie_lanes": 4},
        "core_specs": CORE_SPECS,
        "modules": {"parse": {"cycles": 900.0}, "cache_lookup": {"cycles": 300.0}, "translate": {"cycles": 500.0},
                    "dispatch": {"cycles": 700.0}, "complete": {"cycles": 600.0}},
        "accelerator_specs": {m: accelerator_spec(m) for m in ("translate", "dispatch")},
        "dram": {"size_gib": 1.0, "background_mw_per_gib": 120.0, "access_energy_nj": 12.8},
        "workload": {"read_fraction": 1.0, "mapping_unit_kib": 4,
                     "request_size_kib": {"sizes": sizes_kib, "probabilities": probs}, "queue_depth": 8},
        "controller": {"name": "fb", "core_groups": [
            {"name": "g1", "spec": "slow", "count": 1, "modules": ["parse", "cache_lookup"]},
            {"name": "g2", "spec": "slow", "count": 1, "modules": ["complete"]}],
            "accelerators": {"translate": 1, "dispatch": 1}},
    })


def _step_service(network, label_part):
    (step,) = [s for s in network.steps if label_part in s.label and not s.background]
    return network.step_moments(step)[0]


def test_immediate_feedback_is_not_an_arrival():
    # the cache lookups follow the request's own parse at g1: g1's arrivals are the requests coming from
    # g2 (complete) alone, and the share of g1's departures that feeds g1 again is no arrival stream
    network = build_network(_feedback_design([16.0], [1.0]))
    a = route_arrays(network, network.loads())
    names = [ld.name for ld in network.loads()]
    g1, g2 = names.index("cores:g1"), names.index("cores:g2")
    traffic = _traffic_shares(a.step_station, a.step_visits, a.step_routed, a.copies)
    assert traffic[0, g1, g1] == 0.0
    assert traffic[0, g1].sum() == pytest.approx(1.0)
    assert traffic[0, g1, g2] == pytest.approx(1.0)


def test_merged_run_scv_is_that_of_the_runs_work():
    # one size (16 KiB, 4 transactions): parse + 4 cache lookups is the same work every time, although
    # parse and a cache lookup differ (the per-visit scv); two sizes (4 and 16 KiB, 1 or 4 lookups) mix
    # two totals; stations without feedback keep their per-visit scv
    for sizes, probs in (([16.0], [1.0]), ([4.0, 16.0], [0.5, 0.5])):
        config = _feedback_design(sizes, probs)
        network = build_network(config)
        loads = network.loads()
        a = route_arrays(network, loads)
        g1 = [ld.name for ld in loads].index("cores:g1")
        parse, lookup = _step_service(network, "parse"), _step_service(network, "cache_lookup")
        assert loads[g1].scv > 0.01  # a parse and a cache lookup differ
        totals = np.array([parse + lookup * math.ceil(s / 4.0) for s in sizes])
        p = np.array(probs)
        want = (p * totals ** 2).sum() / (p * totals).sum() ** 2 - 1.0
        assert a.run_scv[g1] == pytest.approx(want, abs=1e-12)
        others = [k for k in range(len(loads)) if k != g1]
        np.testing.assert_allclose(a.run_scv[others], a.scv[others])


def test_bursty_arrivals_do_not_lower_a_stations_capacity():
    # the mixed dies' bursts reach the slow core that parses the next requests (ca2 > 1 there). Scaling the
    # wait by gamma = (ca2 + cs2) / (1 + cs2) > 1 inside the station's fixed point saturated it at
    # X = 1 / (gamma D): 79 % of its capacity at any queue depth. Scaled outside, X(n) still reaches c / D
    network = build_network(config_from_dict(gallery("bursty-read-write-mix")))
    a = route_arrays(network, network.loads())
    g1 = [ld.name for ld in network.loads()].index("cores:g1")
    capacity = _capacity(a)
    assert a.servers[g1] / (a.visits[g1] * a.service_us[g1]) == pytest.approx(capacity)
    ca2, _ = _solve(a, 0.95 * capacity)
    assert ca2[g1] > 1.2
    assert solve_route(a, 400).throughput_per_us >= 0.995 * capacity


# ---- Requests of several transactions at busy channels: the route MVA's fork-join waits there run long, and the
# platoon stage, which runs the dies and channels event by event, answers.
def test_sixteen_kib_reads_at_busy_channels_come_within_the_tolerance():
    # 16 KiB reads at QD 7 whose chain outgrows its budget: the route MVA alone is -7.8 % against 200,000 DES
    # requests; the platoon stage (the default at QD 7) is within the tolerance
    d = gallery("sixteen-kib-reads-at-busy-channels-at-queue-depth-7")
    config = config_from_dict(d)
    network = build_network(config)
    route = evaluate_network(config, network, solvers=all_but("platoon-stage"))
    des = simulate(network, requests=200_000, seed=1)
    assert route.method == "route-mva" and route.iops / des.iops.value - 1.0 < -2 * IOPS_TOLERANCE
    stage = evaluate_network(config, network)
    assert stage.method == "platoon-stage" and abs(stage.iops / des.iops.value - 1.0) <= IOPS_TOLERANCE
    assert abs(stage.latency_mean_us / des.mean_latency_us.value - 1.0) <= LATENCY_TOLERANCE


def test_reads_behind_a_slow_completion_core_come_within_the_tolerance():
    # The completion core's arrivals are taken as regular as the deterministic stations make them, and the route MVA
    # alone is +3.7 % against the DES; the idle bound brings it in (-0.6 %), and the platoon stage, which answers by
    # default at QD 14 behind a core group (whatif.STAGE_MAX_QUEUE_DEPTH), is within too.
    config = config_from_dict(gallery("reads-behind-a-slow-completion-core"))
    network = build_network(config)
    des = simulate(network, requests=100_000, seed=1).iops.value
    r = evaluate_network(config, network, route_features=ALL_FEATURES & ~IDLE_BOUND, solvers=all_but("platoon-stage"))
    assert r.method == "route-mva"
    assert r.iops / des - 1.0 > IOPS_TOLERANCE
    assert abs(evaluate_network(config, network, solvers=all_but("platoon-stage")).iops / des - 1.0) <= IOPS_TOLERANCE
    stage = evaluate_network(config, network)
    assert stage.method == "platoon-stage" and abs(stage.iops / des - 1.0) <= IOPS_TOLERANCE


def test_whatif_can_answer_without_a_correction_to_measure_it():
    # evaluate_network(..., route_features=...): what tools/solver_contributions.py compares
    config = config_from_dict(gallery("reads-behind-a-slow-completion-core"))
    network = build_network(config)
    arrays = route_arrays(network, network.loads())
    # without the idle bound too, which holds this design's answer below the route MVA's (idle_bound.py)
    bits = ALL_FEATURES & ~IDLE_BOUND
    without = evaluate_network(config, network, route_features=bits,
                               solvers=all_but("platoon-stage"))  # the stage: QD 14
    assert without.method == "route-mva"
    assert without.iops == pytest.approx(solve_route(arrays, 14, features=bits).throughput_per_us * 1e6, rel=1e-12)
    assert without.iops > evaluate_network(config, network, solvers=all_but("platoon-stage")).iops
    assert without.flow_correction_share == pytest.approx(
        solve_route(arrays, 14, features=bits).throughput_per_us
        / solve_route(arrays, 14, features=bits & ~FLOW).throughput_per_us - 1.0, rel=1e-12)


# ---- The queues whatif reports where the capacity bound holds the throughput (route_mva.queue_at_capacity), and the
# DES's queues in ``validate --json`` per station copy like the model's.
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


# --------------------------------------------------------------------------------------------------
# A sequential stream striped over consecutive copies ("stripe" routing): the loads are fixed


def test_striped_loads_and_same_copy_pairs():
    from ssdco.network.build import same_copy_pairs, striped_loads

    assert striped_loads(3, 8) == (1, 1, 1)
    assert striped_loads(10, 4) == (3, 3, 2, 2)
    assert striped_loads(8, 8) == (1,) * 8
    assert same_copy_pairs(10, 4, True) == 2 * 6 + 2 * 2  # two copies of 3 (6 ordered pairs each), two of 2
    assert same_copy_pairs(3, 8, True) == 0.0
    assert same_copy_pairs(4, 2, False) == pytest.approx(4 * 3 / 2)  # T (T - 1) / m at random copies


def test_striped_levels_profiles_and_last_departures_follow_the_fixed_loads():
    from ssdco.model.queueing.route_mva import own_last_departure

    # 10 over 4 copies of 2 servers: loads 3, 3, 2, 2 -> top level ceil(3 / 2) = 2 at the two copies of 3; the
    # copies of 2 fill level 1 only (below the top)
    assert serial_level_distribution(10, 4, 2, striped=True) == (0.0, 0.0, 1.0, 0.0, 0.0, 0.0)
    assert top_level_profile(10, 4, 2, striped=True) == ((2, 2, 1.0),)
    # fewer transactions than copies: one each, all at the top level
    assert top_level_profile(3, 8, 1, striped=True) == ((3, 0, 1.0),)
    assert expected_serial_count(3, 8, 1, striped=True) == 1.0
    # exponential services, one per copy: E[max of 4 exponentials] = H_4 exactly (no sharing, unlike at random)
    harmonic = sum(1.0 / k for k in range(1, 5))
    assert own_last_departure(4, 8, 1, 1.0, True) == pytest.approx(harmonic, rel=1e-4)
    assert own_last_departure(4, 8, 1, 1.0, False) > own_last_departure(4, 8, 1, 1.0, True)
    # two per copy on one server each: E[max of two Erlang-2] = 2.75
    assert own_last_departure(4, 2, 1, 1.0, True) == pytest.approx(2.75, rel=1e-4)


def test_striped_siblings_ahead_at_a_copy():
    from ssdco.model.queueing.route_mva import _sibling_distribution

    tx, probs = np.array([10]), np.array([1.0])
    # loads 3, 3, 2, 2: six transactions have 0-2 ahead (1/3 each), four have 0-1 (1/2 each)
    got = _sibling_distribution(tx, probs, 4.0, True)
    assert got[:3] == pytest.approx([0.6 / 3 + 0.4 / 2, 0.6 / 3 + 0.4 / 2, 0.6 / 3])
    assert got.sum() == pytest.approx(1.0)
    assert _sibling_distribution(np.array([3]), probs, 8.0, True)[:3] == pytest.approx([1.0, 0.0, 0.0])
