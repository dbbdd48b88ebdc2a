"""ssdco.model.p99: the pieces of the p99 estimate (residual shapes, per-operation visits, the write buffer's
split, the mixture quantile), then the estimate's agreement with the DES's p99."""

import math

import numpy as np
import pytest
from scipy import stats

from ssdco import load_config
from ssdco.model.p99 import _buffer_split, _mixture_quantile
from ssdco.model.queueing.route_mva import route_arrays, route_latency, solve_route
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import build_network
from ssdco.sim.des import simulate
from ssdco.spec import config_from_dict
from ssdco.validation.random_designs import open_at, random_config
from tests.conftest import PM9A3


def _network(*overrides):
    return build_network(load_config(PM9A3, controller="c01", overrides=list(overrides)))


def test_residual_scv_of_one_deterministic_service_is_a_third_and_of_the_exponential_one():
    read_only = _network()
    for name, value in read_only.residual_scv.items():
        assert value == pytest.approx(1.0 / 3.0), name  # every station serves one fixed time
    exponential = _network("variability.firmware_scv=1.0")
    assert exponential.residual_scv["cores:parse"] == pytest.approx(1.0)


def test_the_varying_part_of_the_path_is_the_steps_with_variance():
    # operation_paths' last entry: the mean of the steps whose time varies (the p99 puts it in the gamma
    # with the wait); a deterministic read path has none, with NAND scv 1 it is the die and channel steps'
    ((_, mean, var, variable),) = _network().operation_paths
    assert var == 0.0 and variable == 0.0 and mean > 0.0
    net = _network("variability.nand_scv=1.0")
    ((_, mean, var, variable),) = net.operation_paths
    nand = [s for s in net.steps if s.station in ("die", "channel") and not s.background]
    assert variable == pytest.approx(sum(s.probability * net.step_moments(s, "read")[0] for s in nand))
    assert var == pytest.approx(sum(s.probability * net.step_moments(s, "read")[0] ** 2 for s in nand))
    assert 0.0 < variable < mean


def test_residual_scv_counts_the_background_work_and_rare_erases_raise_it():
    net = _network("workload.read_fraction=0.0")
    # write-only: the dies serve only background programs, reads of GC copies and erases
    m = np.zeros(3)
    for s in net.steps:
        if s.station == "die" and net.visits(s) > 0:
            m += net.visits(s) * np.array(net.step_raw_moments(s))
    assert net.residual_scv["die"] == pytest.approx(4 * m[0] * m[2] / (3 * m[1] ** 2) - 1)
    assert net.residual_scv["die"] > 1.0  # 5 ms erases among 0.46 ms programs: heavier than exponential


def test_writes_skip_the_nand_stations_with_a_write_buffer_and_the_modes_mix_to_the_station_visits():
    net = _network("workload.read_fraction=0.7")
    (p_read, read_req, read_path), (p_write, write_req, write_path) = net.operation_visits
    assert (p_read, p_write) == pytest.approx((0.7, 0.3))
    assert read_path["die"] == 1.0 and "die" not in write_path and "channel" not in write_path
    path = {}  # one transaction's path, mixed over the operations
    for s in net.steps:
        if s.station is not None and not s.background:
            path[s.station] = path.get(s.station, 0.0) + net.op_weight(s)
    for name, v in path.items():
        assert p_read * read_path.get(name, 0.0) + p_write * write_path.get(name, 0.0) == pytest.approx(v)
    loads = {ld.name: ld for ld in net.loads()}
    for name, ld in loads.items():  # visits per request, summed over copies
        mixed = p_read * read_req.get(name, 0.0) + p_write * write_req.get(name, 0.0)
        assert mixed == pytest.approx(ld.visits * ld.copies), name


def test_the_route_solver_reports_the_wait_for_the_write_buffer_only_at_its_bound():
    for rf, at_bound in ((0.0, True), (0.7, False), (1.0, False)):
        net = _network(f"workload.read_fraction={rf}")
        arrays = route_arrays(net, net.loads())
        sol = solve_route(arrays, net.queue_depth)
        assert math.isclose(sol.throughput_per_us, arrays.bg_capacity_per_us, rel_tol=1e-9) == at_bound
        assert (sol.buffer_wait_us > 0.0) == at_bound
        assert 0.0 <= sol.buffer_wait_us < sol.response_us


def test_buffer_split_keeps_the_mean_and_littles_law():
    net = _network("workload.read_fraction=0.0")
    writes = (1.0, 4.4, 0.0, 0.0)
    runs_per_us, extra = 0.236, 131.0
    fast, blocked = _buffer_split(net, writes, extra, runs_per_us)
    assert fast[0] + blocked[0] == pytest.approx(1.0)
    sojourn = blocked[1] - fast[1] + blocked[2] - fast[2]  # the run's service + its wait
    assert sojourn == pytest.approx(net.background_slots / runs_per_us + extra)
    assert blocked[0] * sojourn == pytest.approx(extra)  # the writes' mean wait for the buffer
    # all clones busy plus the blocked writes' own runs: Little's law on the background runs
    assert runs_per_us * sojourn == pytest.approx(net.background_slots + runs_per_us * blocked[0] * sojourn)


def test_buffer_split_with_the_chains_blocked_fraction_keeps_the_mean():
    # where the buffer's chain holds the requests (write_buffer.py) its blocked fraction is known; the blocked
    # writes' run then lasts extra / blocked on average, whatever the slots' occupancy
    net = _network("workload.read_fraction=0.0", "ftl.write_buffer_kib=16", "workload.queue_depth=1")
    writes = (1.0, 4.4, 0.0, 0.0)
    extra, blocked_fraction = 120.0, 0.2
    fast, blocked = _buffer_split(net, writes, extra, 0.01, blocked_fraction)
    assert blocked[0] == pytest.approx(blocked_fraction) and fast[0] == pytest.approx(1.0 - blocked_fraction)
    sojourn = blocked[1] - fast[1] + blocked[2] - fast[2]
    assert blocked[0] * sojourn == pytest.approx(extra)


def test_mixture_quantile_of_one_gamma_and_of_a_two_mode_mixture():
    q = 0.99
    one = _mixture_quantile(((1.0, 10.0, 50.0, 2000.0),), q)
    shape, scale = 50.0 ** 2 / 2000.0, 2000.0 / 50.0
    assert one == pytest.approx(10.0 + stats.gamma.ppf(q, shape, scale=scale))
    comps = ((0.7, 58.0, 50.0, 14000.0), (0.3, 4.4, 0.0, 0.0))
    x = _mixture_quantile(comps, q)
    cdf = 0.7 * stats.gamma.cdf(x - 58.0, 50.0 ** 2 / 14000.0, scale=14000.0 / 50.0) + 0.3 * (x >= 4.4)
    assert cdf == pytest.approx(q)
    # a mode without a wait is a normal around its shift; without variance a point mass
    assert _mixture_quantile(((1.0, 5.0, 0.0, 4.0),), 0.5) == pytest.approx(5.0)
    assert _mixture_quantile(((1.0, 5.0, 0.0, 0.0),), q) == pytest.approx(5.0)


def test_batch_excess_of_the_fork():
    from ssdco.spec import config_from_dict
    from ssdco.validation.random_designs import random_config

    for seed in range(30):
        raw = random_config(seed, True)
        net = build_network(config_from_dict(raw))
        t = np.array(net.transactions, dtype=float)
        p = np.array(net.request_probs)
        excess = float(np.dot(p, t * t) / np.dot(p, t) - 1.0)
        copies = {s.name: s.copies for s in net.stations}
        mean_service = {ld.name: ld.service_us for ld in net.loads()}
        rf = net.read_fraction
        for name, value in net.batch_excess.items():
            steps = [s for s in net.steps if s.station == name and not s.background and net.visits(s) > 0]
            visits = sum(net.visits(s) for s in steps)
            # a batch is of one step and one operation: its siblings' work goes with that operation's
            # mean service squared (per-transaction steps have no per-byte part)
            op_square = {s: ((rf * s.read_us ** 2 + (1 - rf) * s.write_us ** 2) if s.ops == "both" else
                             (s.read_us if s.ops == "read" else s.write_us) ** 2) for s in steps}
            expected = sum(net.visits(s) * excess / (copies[name] if s.routing != "single" else 1)
                           * op_square[s] / mean_service[name] ** 2 for s in steps if not s.per_request) / visits
            assert value == pytest.approx(expected), (seed, name)
            if all(s.per_request for s in steps) or excess == 0:
                assert value == 0.0
    # 16 KiB requests (4 transactions) through one core: every transaction arrives with 3 siblings
    net = _network("workload.request_size_kib=16")
    assert net.batch_excess["cores:ftl"] == pytest.approx(3.0)  # translate, per transaction
    assert net.batch_excess["die"] == pytest.approx(3.0 / 32)  # spread over 32 dies
    assert net.batch_excess["cores:parse"] == 0.0  # per request


def test_a_batch_of_programs_brings_the_programs_work():
    # random design 23: 16 KiB requests (4 transactions) over 3 dies, 70 % reads, tR 20.2 us, tPROG 623 us,
    # no write buffer. A request's transactions are all reads or all programs, so the siblings in a
    # transaction's batch ((4 - 1) / 3 = 1 on average) bring E[m_op^2], not the mixture's mean squared
    from ssdco.spec import config_from_dict
    from ssdco.validation.random_designs import random_config

    config = config_from_dict(random_config(23, True))
    net = build_network(config)
    t_read, t_prog = config.nand.t_read_us, config.nand.t_prog_us
    mean = 0.7 * t_read + 0.3 * t_prog
    square = 0.7 * t_read ** 2 + 0.3 * t_prog ** 2
    assert net.batch_excess["die"] == pytest.approx(1.0 * square / mean ** 2)
    assert net.sibling_work_ratio["die"] == pytest.approx(square / mean ** 2)
    assert net.sibling_work_ratio["die"] > 2.8  # the programs dominate
    assert "cores:g1" not in net.sibling_work_ratio  # only address-routed stations have siblings ahead
    # the work one request brings to two of the three dies: multinomial split of 4, E[T (T - 1)] = 12
    cov = 12 / 9 * square - (4 / 3 * mean) ** 2
    var = 4 / 3 * square + 12 / 9 * square - (4 / 3 * mean) ** 2
    assert net.copy_work_correlation["die"] == pytest.approx(cov / var)
    assert net.copy_work_correlation["die"] > 0.3


def test_one_operation_splits_its_work_over_the_copies_with_negative_correlation():
    # one service time: the split of T transactions over m copies gives corr (E[T (T - 1)] - E[T]^2) /
    # (m E[T] - E[T]^2 + E[T (T - 1)]): -1 / (m - 1) for T = 1, -0.5 for T = 4 over 3 copies
    from ssdco.spec import config_from_dict
    from ssdco.validation.random_designs import random_config

    raw = random_config(23, True)
    raw["workload"]["read_fraction"] = 1.0
    assert build_network(config_from_dict(raw)).copy_work_correlation["die"] == pytest.approx(-0.5)
    net = _network()  # PM9A3 4 KiB reads over 32 dies and 8 channels
    assert net.copy_work_correlation["die"] == pytest.approx(-1.0 / 31)
    assert net.copy_work_correlation["channel"] == pytest.approx(-1.0 / 7)


def test_mixing_reads_and_programs_in_one_batch_size_waits_as_mx_g_1_of_the_batch_work():
    # M^X/G/1 with batches of X = 4 all reads (service a) or all programs (b): the first of a batch waits
    # lambda_B E[Y^2] / (2 (1 - rho)) with Y = 4 S_op, E[Y^2] = 16 E[S_op^2]; the open solver gets it from
    # the mixture's scv and the batch term weighted as Network.batch_excess weights it
    from ssdco.model.queueing.open import solve_open

    a, b, p_read, rho = 20.0, 600.0, 0.7, 0.6
    mean = p_read * a + (1 - p_read) * b
    square = p_read * a * a + (1 - p_read) * b * b
    lam = rho / mean  # transactions per us
    sol = solve_open([mean], [1.0], [1], [1], [square / mean ** 2 - 1.0], 0.0, lam,
                     batch_excess=[3.0 * square / mean ** 2])
    assert sol.residence_us[0] - mean == pytest.approx(lam / 4 * 16 * square / (2 * (1 - rho)), rel=1e-12)


def test_route_latency_at_zero_waits_is_the_closed_solvers_latency_of_one_request():
    # (read-only: with buffered writes the closed solver's one request also waits behind background programs)
    for overrides in ((), ("workload.request_size_kib=16",), ("workload.request_size_kib=64",)):
        net = _network(*overrides)
        arrays = route_arrays(net, net.loads())
        zero = np.zeros(len(net.loads()))
        one = solve_route(arrays, 1)
        assert route_latency(arrays, zero, zero) == pytest.approx(1.0 / one.throughput_by_n[1], rel=1e-12)
        assert route_latency(arrays, zero, zero, batch_waits=True) == pytest.approx(1.0 / one.throughput_by_n[1])


def test_batch_waits_wait_once_at_a_single_station():
    net = _network("workload.request_size_kib=16")  # 4 transactions
    loads = net.loads()
    arrays = route_arrays(net, loads)
    zero = np.zeros(len(loads))
    wait = np.array([10.0 if ld.name == "cores:ftl" else 0.0 for ld in loads])
    p_wait = np.array([0.5 if ld.name == "cores:ftl" else 0.0 for ld in loads])
    base = route_latency(arrays, zero, zero)
    # each of the 4 waits on its own: the request waits for the longest of 4; as a batch, once
    assert route_latency(arrays, wait, p_wait, batch_waits=True) == pytest.approx(base + 10.0)
    assert route_latency(arrays, wait, p_wait) > base + 10.0


def test_mixture_quantile_survives_a_wait_that_is_almost_always_zero():
    # found by Hypothesis (open workload, 1,000 IOPS): a gamma of shape 3e-4 has its 0.99 quantile a
    # rounding error above its shift, where the mixture's CDF evaluates to 0.7 and brentq had no bracket
    comps = ((0.7, 15.396381944444446, 0.009334535520608256, 0.2958012130298993),
             (0.3, 276.39638194444444, 0.009334535520608256, 0.2958012130298993))
    assert _mixture_quantile(comps, 0.99) == pytest.approx(276.39638194444444)


def test_max_of_transactions_variance():
    # exponential waits (gamma of shape 1): the max of T has variance theta^2 sum_{k<=T} 1 / k^2 (Renyi's
    # representation of exponential order statistics); one transaction keeps the gamma's own variance; a size
    # mixture is a mixture of the maxima
    from ssdco.model.p99 import max_of_transactions_var

    theta = 30.0
    for t in (1, 2, 4):
        want = theta ** 2 * sum(1.0 / k ** 2 for k in range(1, t + 1))
        assert max_of_transactions_var(theta, theta ** 2, [t], [1.0]) == pytest.approx(want, rel=1e-3)
    means = [theta * sum(1.0 / k for k in range(1, t + 1)) for t in (1, 4)]
    seconds = [theta ** 2 * sum(1.0 / k ** 2 for k in range(1, t + 1)) + m * m for t, m in zip((1, 4), means)]
    mixed = 0.5 * (seconds[0] + seconds[1]) - (0.5 * (means[0] + means[1])) ** 2
    assert max_of_transactions_var(theta, theta ** 2, [1, 4], [0.5, 0.5]) == pytest.approx(mixed, rel=1e-3)
    # a nearly deterministic wait: its max is nearly deterministic too
    assert max_of_transactions_var(10.0, 0.01, [4], [1.0]) < 0.01


# ---- The analytic p99 latency estimate (whatif.py, ``_p99_estimate``) against the DES's measured p99.
#
# Measured on uniformly sampled closed designs (ssdco.validation.random_designs.random_config, seeds 0-39,
# 60,000 DES requests, seed 1), asserted below as measured so a regression fails:
#
# ============================  =====================  ================  =================
# designs                       within 15 % of the DES  median |error|    a sum of
#                                                                         exponential waits
# ============================  =====================  ================  =================
# 4 KiB                         35 / 40                5.5 %             8 / 40, 25.8 %
# 4/8/16 KiB (fork-join)        31 / 40                6.7 %             3 / 40, 43.5 %
# ============================  =====================  ================  =================
#
# (With the residual's shape a gamma of the station's scv instead of from the third moment of its actual
# service mix, and the modes shifted instead of the waits scaled to the latency's queueing part: 35 / 40 at a
# median of 8.1 %, and 33 / 40 at 6.6 %.)
#
# On PM9A3 with its write buffer (150,000 requests), the estimate is within 15 % of the DES on 18 of 23
# read/write mixes, queue depths 4-128, open and closed, JESD219 and DFTL (median 8.4 %; with the write
# buffer's background work left out of the wait's shape, 7 of 23 at a median of 63 %, as low as -96 %); the
# misses: +31 % and +17 % at 90 % reads, +21 % open at 190 K IOPS and 70 % reads, +17 % open at 100 K and
# 30 % reads, -16 % with JESD219 and a partitioned mapping cache (-14 % with the varying part of the path
# outside the gamma, which puts the DFTL mix at +21 % instead of +4 %; test_configured_service_variability).
#
# The estimate's parts: a request is all reads or all writes, so the latency is a mixture of two service
# paths (a single gamma puts p99 at the mean on a 70 % read mix, -62 %); in a closed network a station's
# queue cannot vary more than the rest of the network can absorb (+130 % without that on a saturated
# deterministic bottleneck); a request's transactions run in parallel, so one transaction's path carries the
# variance; and a wait has the M/G/1 shape the route MVA uses. A station's queue also spreads no more than a
# uniform split of the network's jobs (without that bound, 32 / 40 and 32 / 40: two saturated dies at
# QD 27-45 are +40..+62 %). The closed model takes a request's transactions to share its operation at the
# dies (route_mva.py, 1.: the queued siblings bring their operation's work, and a write's programs make the
# dies' waits correlated, so the mean latency takes a shorter max over them); without that the 4/8/16 KiB
# count is 32, with it 31: design 32 (70 % reads, QD 38) is +22 % (+13 % without). Its die wait is 5 % above
# the DES's (3 % below without), and the estimate takes the latency's spread from the station wait, not from
# the max over the dies that the mean is scaled to; the operation terms bring the model's mean IOPS within
# tolerance on 686 of the 700 DES comparisons (682 without), so the model keeps the terms and the bound below is
# 31. The remaining misses are the convoy and lockstep designs of test_model_vs_des.py (up to +62 % at QD 2) and
# a fork-join at QD 30 (+35 %).
REQUESTS = 60_000


def _p99_error(config) -> float:
    network = build_network(config)
    model = evaluate_network(config, network)
    return model.latency_p99_us / simulate(network, requests=REQUESTS, seed=1).p99_us - 1.0


@pytest.mark.parametrize("controller", ["c01", "c02", "c09"])
def test_pm9a3_presets(controller):
    # measured +3.4 %, +0.9 %, +3.4 %
    assert abs(_p99_error(load_config(PM9A3, controller=controller))) <= 0.06


@pytest.mark.parametrize("seed,mixed,what", [
    (16, False, "70 % reads at QD 2: reads and programs are the two modes (was -62 %)"),
    (20, True, "70 % reads, QD 2, 8-16 KiB (was -55 %)"),
    (33, False, "a saturated deterministic bottleneck at QD 18: latency nearly constant (was +130 %)"),
    (6, True, "fork-join of 2 transactions at QD 21 (was +128 %)"),
])
def test_designs_that_the_single_gamma_missed(seed, mixed, what):
    # measured 0.0 %, +3.7 %, +0.2 %, +1.0 %
    assert abs(_p99_error(config_from_dict(random_config(seed, mixed)))) <= 0.06, what


@pytest.mark.parametrize("seed,mixed", [(30, False), (38, True)])
def test_two_saturated_dies_split_the_population_no_wider_than_uniformly(seed, mixed):
    # QD 42 and 27 on two dies: the M/G/1 shape near saturation spreads a die's queue far beyond the jobs
    # there are (+61.5 % and +61.1 % without the uniform-split bound); measured +13.2 % and +14.0 %
    assert abs(_p99_error(config_from_dict(random_config(seed, mixed)))) <= 0.15


@pytest.mark.slow
@pytest.mark.parametrize("mixed,within,median", [(False, 35, 0.06), (True, 31, 0.08)], ids=["4KiB", "4-16KiB"])
def test_uniformly_sampled_designs(mixed, within, median):
    # measured 35 / 40 (median 5.5 %) and 31 / 40 (median 6.5 %; 32 / 40 without the operation terms of
    # route_mva.py, 1., see the comment above)
    errors = np.array([_p99_error(config_from_dict(random_config(seed, mixed))) for seed in range(40)])
    worst = sorted(errors, key=abs)[-5:]
    message = (f"within 15 %: {np.sum(np.abs(errors) <= 0.15)}/40, median |e| {np.median(np.abs(errors)):.1%}, "
               f"worst {worst}")
    assert np.sum(np.abs(errors) <= 0.15) >= within, message
    assert np.median(np.abs(errors)) <= median, message


@pytest.mark.slow
@pytest.mark.parametrize("load,mixed,within", [(0.8, False, 39), (0.8, True, 38), (0.5, False, 40), (0.5, True, 39)],
                         ids=["80%-4KiB", "80%-4-16KiB", "50%-4KiB", "50%-4-16KiB"])
def test_open_workloads(load, mixed, within):
    # the same designs as open workloads at 80 % and 50 % of their capacity. A station visited in runs
    # (open_runs.py) has its visits' waits on a transaction's path move together (the same backlog), so their
    # variance adds as (visits)^2, not as visits, and separate groups' waits (before and after the NAND) are
    # correlated by exp(-gap / tau), tau the queue's relaxation time; and a request waits for the slowest of
    # its transactions, whose waits at the dies and channels are independent: that part of the delay varies
    # as their max (whatif.max_of_transactions_var). Measured at 80 %: 39 / 40 and 38 / 40 within 15 % (34 / 40
    # for 4/8/16 KiB with the variance of one transaction's waits; 38 and 31 with the groups independent; 34
    # and 28 with every visit independent: a slow core running three modules in a row is -44 % with every visit
    # independent, -19 % with the groups independent, +0.9 % here). At 50 %: 40 / 40 and 39 / 40 (28 / 40 for
    # 4/8/16 KiB with one transaction's variance, 16-23 % low with the mean within 6 %)
    from ssdco.validation.random_designs import open_at

    errors = np.array([_p99_error(config_from_dict(open_at(random_config(seed, mixed), load))) for seed in range(40)])
    worst = sorted(errors, key=abs)[-5:]
    message = f"within 15 %: {np.sum(np.abs(errors) <= 0.15)}/40, worst {worst}"
    assert np.sum(np.abs(errors) <= 0.15) >= within, message


FTL_REQUESTS = 150_000  # the write buffer's tail needs more requests than the designs above


def _ftl_p99_error(*overrides: str, jesd219: bool = False) -> float:
    if jesd219:
        from tests.network.test_ftl_effects import jesd219 as with_jesd219
        config = with_jesd219(*overrides)
    else:
        config = load_config(PM9A3, controller="c01", overrides=list(overrides))
    network = build_network(config)
    model = evaluate_network(config, network)
    return model.latency_p99_us / simulate(network, requests=FTL_REQUESTS, seed=1).p99_us - 1.0


@pytest.mark.parametrize("overrides,jesd219,what", [
    (("workload.read_fraction=0.0",), False,
     "write-only at QD 32: 90 % of writes done in 5 us, the rest do their background run (was -96 %)"),
    (("workload.read_fraction=0.3",), False, "reads wait behind buffered writes' programs (was -84 %)"),
    (("workload.read_fraction=0.7",), False, "the same at 70 % reads (was -56 %)"),
    (("workload.read_fraction=0.3",), True, "JESD219 size mix and skew, 30 % reads (was -85 %)"),
    (("workload.read_fraction=0.3", "workload.arrival_iops=190000"), False,
     "open workload, 30 % reads at 190 K IOPS (was -32 %)"),
    (("workload.read_fraction=0.0", "ftl.write_buffer_kib=16", "workload.queue_depth=1"), False,
     "4 slots, write-only at QD 1: the chain's blocked fraction (+181 % by Little's law on all slots busy)"),
    (("workload.read_fraction=0.7", "ftl.write_buffer_kib=16", "workload.queue_depth=1"), False,
     "4 slots, 70 % reads at QD 1 (+67 % by Little's law on all slots busy)"),
    (("workload.read_fraction=0.0", "ftl.write_buffer_kib=0", "workload.queue_depth=1"), False,
     "write-through at QD 1: the erase in 1 of 1,100 writes is its own component (+129 % in the gamma)"),
    (("workload.read_fraction=0.7", "ftl.write_buffer_kib=0", "workload.queue_depth=32"), False,
     "write-through, 70 % reads at QD 32 (+55 % with the erase in the gamma)"),
])
def test_write_buffer_workloads(overrides, jesd219, what):
    # Reads queue behind the buffered writes' programs, erases and page transfers (background work that is
    # part of the wait's shape), and at the buffer's bound a write either returns at once
    # or does its run itself. Measured +4.1 %, +7.3 %, +11.4 %, -13.9 %, -4.9 %; with 4 slots -5.0 %, +0.1 %;
    # write-through +9.8 %, +4.6 %.
    assert abs(_ftl_p99_error(*overrides, jesd219=jesd219)) <= 0.15, what


@pytest.mark.parametrize("variability,load", [
    ({"nand_scv": 2.0}, 0.1),
    ({"firmware_scv": 1.0, "nand_scv": 1.0, "host_scv": 1.0}, 0.5),
    ({"nand_scv": 1.0}, None),  # closed, at the design's queue depth
], ids=["nand-scv2-open-10%", "all-scv1-open-50%", "nand-scv1-closed"])
def test_configured_service_variability(variability, load):
    # 4 KiB designs 0-5 with [variability]: the part of the path that varies (its steps' mean, with their
    # variance) is in the gamma with the wait, the rest is a fixed shift. The path's variance on the wait's
    # mean alone would make a gamma of tiny shape: p99 -28..-39 % at 10 % load with NAND scv 2, +6..+30 % at
    # 50 % load, 5 of 18 designs within 15 %; with the varying part in the gamma all 18 are within 11.3 %
    errors = []
    for seed in range(6):
        d = random_config(seed, mixed_sizes=False)
        d["variability"] = dict(variability)
        if load is not None:
            d = open_at(d, load)
        errors.append(_p99_error(config_from_dict(d)))
    assert max(abs(e) for e in errors) <= 0.15, np.round(errors, 3).tolist()
