"""The open solver (ssdco/model/queueing/open.py): its formulas against Erlang C and Pollaczek-Khinchine computed
independently, and its answers against the DES."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdco.model.queueing.erlang import erlang_c
from ssdco.model.queueing.open import solve_open
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import build_network
from ssdco.sim.des import simulate
from ssdco.spec import config_from_dict
from ssdco.validation.random_designs import core_group_config, open_at, random_config
from tests.gallery import gallery
from tests.references import mg1_mean_wait, mmc_mean_wait


def erlang_c_textbook(c: int, a: float) -> float:
    """Erlang C from its defining sum (Kleinrock 3.5), independent of the recursion under test."""
    rho = a / c
    top = a ** c / math.factorial(c) / (1 - rho)
    return top / (sum(a ** k / math.factorial(k) for k in range(c)) + top)


@given(c=st.integers(1, 12), rho=st.floats(0.01, 0.98))
def test_erlang_c_matches_textbook(c, rho):
    assert erlang_c(c, rho * c) == pytest.approx(erlang_c_textbook(c, rho * c), rel=1e-9)


@given(c=st.integers(1, 8), rho=st.floats(0.05, 0.95), s=st.floats(0.1, 10.0))
@settings(max_examples=50)
def test_open_station_is_mmc(c, rho, s):
    lam = rho * c / s
    sol = solve_open([s], [1.0], [c], [1], [1.0], 0.0, lam)
    assert sol.residence_us[0] == pytest.approx(s + erlang_c_textbook(c, lam * s) * s / (c - lam * s), rel=1e-9)
    assert sol.residence_us[0] == pytest.approx(s + mmc_mean_wait(lam, s, c), rel=1e-12)


@given(rho=st.floats(0.05, 0.95), s=st.floats(0.1, 10.0), scv=st.sampled_from([0.0, 0.25, 1.0, 3.0]))
@settings(max_examples=50)
def test_open_single_server_is_pollaczek_khinchine(rho, s, scv):
    lam = rho / s
    sol = solve_open([s], [1.0], [1], [1], [scv], 0.0, lam)
    pk = lam * (s * s * (1 + scv)) / (2 * (1 - rho))  # lambda E[S^2] / (2 (1 - rho))
    assert sol.residence_us[0] - s == pytest.approx(pk, rel=1e-9)
    assert mg1_mean_wait(lam, s, scv) == pytest.approx(pk, rel=1e-12)


def test_unstable_when_utilisation_reaches_one():
    sol = solve_open([2.0, 1.0], [1.0, 1.0], [1, 1], [1, 1], [0.0, 0.0], 0.0, 0.5)
    assert not sol.stable and math.isinf(sol.response_us)
    assert solve_open([2.0, 1.0], [1.0, 1.0], [1, 1], [1, 1], [0.0, 0.0], 0.0, 0.49).stable


def test_copies_and_visits_split_the_load():
    # 4 copies each visited 0.25 times per request: per-copy arrival rate is lambda / 4
    sol = solve_open([0.25 * 8.0], [0.25], [1], [4], [1.0], 1.0, 0.3)
    lam_copy = 0.3 * 0.25
    expected = 1.0 + 4 * 0.25 * (8.0 + mmc_mean_wait(lam_copy, 8.0, 1))
    assert sol.response_us == pytest.approx(expected, rel=1e-12)


@given(rho=st.floats(0.05, 0.95), s=st.floats(0.1, 10.0), batch=st.integers(1, 16),
       scv=st.sampled_from([0.0, 0.25, 1.0]))
@settings(max_examples=50)
def test_batches_of_fixed_size_wait_as_in_mx_g_1(rho, s, batch, scv):
    # M^X/G/1 with X = batch: the first of a batch waits for the work found, lambda_B E[B^2] / (2 (1 - rho))
    # with B the batch's work (Gross & Harris), computed here from the batch's moments
    lam = rho / s  # transactions per us
    lam_batch = lam / batch
    e_b2 = batch * s * s * (1 + scv) + batch * (batch - 1) * s * s
    sol = solve_open([s], [1.0], [1], [1], [scv], 0.0, lam, batch_excess=[batch - 1.0])
    assert sol.residence_us[0] - s == pytest.approx(lam_batch * e_b2 / (2 * (1 - rho)), rel=1e-9)


def test_batches_wait_longer_on_every_server_count():
    for c in (1, 2, 4):
        one = solve_open([c * 0.8], [1.0], [c], [1], [0.0], 0.0, 1.0)
        four = solve_open([c * 0.8], [1.0], [c], [1], [0.0], 0.0, 1.0, batch_excess=[3.0])
        assert four.residence_us[0] > one.residence_us[0]


def test_residual_factors_of_an_open_route_count_only_visits_after_an_earlier_one():
    import numpy as np

    from ssdco import load_config
    from ssdco.model.queueing.route_mva import residual_factors, route_arrays
    from ssdco.network.build import build_network
    from tests.conftest import PM9A3

    net = build_network(load_config(PM9A3, controller="c02"))  # translate, dispatch, complete on 3 slow cores
    loads = net.loads()
    names = [ld.name for ld in loads]
    arrays = route_arrays(net, loads)
    open_f = dict(zip(names, residual_factors(arrays, closed_loop=False)))
    closed_f = dict(zip(names, residual_factors(arrays)))
    group = loads[names.index("cores:simple")]
    # dispatch follows translate at once (a re-entry); translate is a request's first visit there, and
    # complete comes back only after the die: r = 1 of 3 visits, over 3 servers
    r = 1.0 / 3.0 / group.servers
    assert open_f["cores:simple"] == pytest.approx(r + (1 - r) * (1 + group.scv) / 2)
    # a station visited once per request: never a re-entry in an open network; in the closed loop the
    # completed request comes back as the next one, so a little of it is
    assert open_f["die"] == 0.5 and closed_f["die"] > 0.5
    assert np.all(np.array(list(closed_f.values())) >= np.array(list(open_f.values())) - 1e-12)


@given(c=st.integers(1, 8), rho=st.floats(0.05, 0.98))
@settings(max_examples=50)
def test_batch_erlang_c_of_single_jobs_is_erlang_c(c, rho):
    from ssdco.model.queueing.open import batch_erlang_c

    a = rho * c
    p_wait, queued = batch_erlang_c(c, a / 100.0, 100.0, [0.0, 1.0])
    assert p_wait == pytest.approx(erlang_c_textbook(c, a), rel=1e-9)
    assert queued == pytest.approx(erlang_c_textbook(c, a) * a / (c - a), rel=1e-9)


@pytest.mark.parametrize("c,rho", [(2, 0.3), (3, 0.5), (4, 0.8), (3, 0.95)])
def test_batch_erlang_c_solves_the_mx_m_c_chain(c, rho):
    # against the truncated generator of M^X/M/c solved as a linear system (pi Q = 0, sum pi = 1)
    import numpy as np

    from ssdco.model.queueing.open import batch_erlang_c

    pmf = np.array([0.0, 4.0, 6.0, 4.0, 1.0]) / 15.0  # Bin(4, 1/2) given >= 1: 16 KiB over two dies
    s = 100.0
    lam_b = rho * c / (s * float(np.dot(np.arange(5), pmf)))
    n = 800
    q = np.zeros((n + 1, n + 1))
    for i in range(n + 1):
        for x in range(1, 5):
            q[i, min(i + x, n)] += lam_b * pmf[x]
        if i > 0:
            q[i, i - 1] += min(i, c) / s
        q[i, i] -= q[i].sum()
    system = q.T.copy()
    system[-1] = 1.0  # one balance equation is redundant: normalise instead
    pi = np.linalg.solve(system, np.r_[np.zeros(n), 1.0])
    p_wait, queued = batch_erlang_c(c, lam_b, s, pmf)
    assert p_wait == pytest.approx(pi[c:].sum(), rel=1e-6)
    assert queued == pytest.approx(float(np.dot(np.clip(np.arange(n + 1) - c, 0, None), pi)), rel=1e-6)


@given(rho=st.floats(0.05, 0.95), scv=st.sampled_from([0.0, 0.25, 1.0]))
@settings(max_examples=30)
def test_first_of_a_batch_on_one_server_waits_as_in_mx_g_1(rho, scv):
    # lambda_B E[B^2] / (2 (1 - rho)), E[B^2] = E[X] S^2 scv + E[X^2] S^2 (Gross & Harris), for a batch mix
    import numpy as np

    from ssdco.model.queueing.open import batch_first_wait

    pmf = np.array([0.0, 0.5, 0.3, 0.0, 0.2])
    ex, ex2 = float(np.dot(np.arange(5), pmf)), float(np.dot(np.arange(5) ** 2, pmf))
    s = 10.0
    lam_b = rho / (s * ex)
    wait, p_wait = batch_first_wait(1, lam_b, s, pmf, (1 + scv) / 2, ex2 / ex - 1)
    assert wait == pytest.approx(lam_b * (ex * s * s * scv + ex2 * s * s) / (2 * (1 - rho)), rel=1e-9)
    assert p_wait == pytest.approx(rho, rel=1e-9)


@given(c=st.integers(1, 6), rho=st.floats(0.05, 0.95), scv=st.sampled_from([0.0, 0.5, 1.0]))
@settings(max_examples=30)
def test_first_of_a_batch_of_one_waits_as_allen_cunneen(c, rho, scv):
    from ssdco.model.queueing.open import batch_first_wait

    s = 10.0
    a = rho * c
    wait, _ = batch_first_wait(c, a / s, s, [0.0, 1.0], (1 + scv) / 2, 0.0)
    assert wait == pytest.approx((1 + scv) / 2 * mmc_mean_wait(a / s, s, c), rel=1e-9)


def test_batch_erlang_c_at_vanishing_load():
    # no arrivals, and a load so small that the chain's terms underflow: nobody waits, and nothing divides by 0
    import numpy as np

    from ssdco.model.queueing.open import batch_erlang_c

    assert batch_erlang_c(3, 0.0, 10.0, [0.0, 1.0]) == (0.0, 0.0)
    p_wait, queued = batch_erlang_c(16, 1e-15, 1.0, np.r_[0.0, np.full(16, 1 / 16)])
    assert 0.0 <= p_wait < 1e-12 and 0.0 <= queued < 1e-12


# ---- Against the DES: open workloads (Poisson arrivals) with multi-transaction requests, the analytic mean latency
# against the DES. The open solver's stations are M/G/c queues (open.py); a request's transactions arrive at a
# station together, as a batch (M^X/G/c), and the request's latency is the route's fork-join makespan over them
# (route_mva.route_latency), as in the closed solver; a core group visited in runs or by batches is solved by work
# conservation instead (open_runs.py). A job that rejoins the queue it just left (a core running two modules in a
# row) waits for a full service, as in the closed solver (route_mva.residual_factors).
REQUESTS = 60_000


def _mean_error(config, requests: int = REQUESTS) -> float:
    network = build_network(config)
    model = evaluate_network(config, network)
    return model.latency_mean_us / simulate(network, requests=requests, seed=1).mean_latency_us.value - 1.0


@pytest.mark.parametrize("read_fraction,arrival_iops,tol", [
    (1.0, 234_000, 0.05),  # 60 % of the QD 32 IOPS; measured +0.9 %
    (0.7, 128_000, 0.10),  # measured -8.7 %: reads behind buffered programs
])
def test_jesd219_size_mix(read_fraction, arrival_iops, tol):
    from tests.network.test_ftl_effects import jesd219

    config = jesd219(f"workload.read_fraction={read_fraction}", f"workload.arrival_iops={arrival_iops}")
    assert abs(_mean_error(config, 100_000)) <= tol


def _open_at(seed: int, load: float, mixed_sizes: bool = True):
    return config_from_dict(open_at(random_config(seed, mixed_sizes), load))


def test_one_slow_core_running_three_modules_in_a_row():
    # random design 7 (4 KiB reads) at 80 % of capacity: cache lookup, translate and dispatch on one slow
    # core, each job rejoining its queue between modules. Measured -7.2 % with work conservation
    # (open_runs.py): the middle module's wait is 14 % short (it sees only part of what the requests ahead
    # release), the first wait 4 % short. Per-visit waits give -24 %, -3.3 % with the full residual on
    # re-entry. The bound is the 10 % tolerance (the figures over many designs: test_core_group_visited_in_runs
    # and docs/accuracy.md)
    assert abs(_mean_error(_open_at(7, 0.8, mixed_sizes=False))) <= 0.10


@pytest.mark.parametrize("cores,modules", [
    (1, ("parse", "translate")),  # per-visit waits +77.5 %, work conservation +0.7 %
    (2, ("cache_lookup", "translate")),  # -20.8 % and -0.5 %
    (2, ("translate",)),  # -7.2 % and -0.5 %: four transactions keep both cores busy
    (3, ("cache_lookup", "translate")),  # -26.3 % and -2.6 %
])
def test_core_group_visited_in_runs(cores, modules):
    # 16 KiB reads at 80 % of capacity, the core group the only queue (accuracy campaign, open-core-group): the
    # request's time there by work conservation on one server of c times the speed (open_runs.py), and the
    # group's mean queue (the jobs' waits, own siblings included; the per-visit waits put it 68 % high for
    # [parse, translate] on one core)
    config = config_from_dict(open_at(core_group_config(cores, modules), 0.8))
    network = build_network(config)
    model = evaluate_network(config, network)
    des = simulate(network, requests=100_000, seed=1)
    assert abs(model.latency_mean_us / des.mean_latency_us.value - 1.0) <= 0.05
    assert model.mean_jobs["cores:g"] == pytest.approx(des.mean_in_station["cores:g"], rel=0.10)


@pytest.mark.slow
@pytest.mark.parametrize("mixed_sizes,within", [(False, 25), (True, 24)], ids=["4KiB", "4-16KiB"])
def test_uniformly_sampled_designs_at_80_percent_of_capacity(mixed_sizes, within):
    # measured 25 / 25 and 24 / 25 within 10 % (24 and 22 without work conservation for core groups visited in
    # runs or batches, open_runs.py). The miss (+20 %) is a core group behind a busy deterministic one: its
    # arrivals are more regular than the Poisson stream open_runs.py assumes
    errors = np.array([_mean_error(_open_at(seed, 0.8, mixed_sizes)) for seed in range(25)])
    message = f"within 10 %: {np.sum(np.abs(errors) <= 0.10)}/25, errors {np.round(errors, 3).tolist()}"
    assert np.sum(np.abs(errors) <= 0.10) >= within, message


@pytest.mark.parametrize("seed", [34, 27])
def test_transactions_at_a_single_copy_wait_once(seed):
    # 16 KiB reads at 80 % of capacity: seed 34 has one die (four transactions in a row behind the same
    # batches, M^X/D/1), seed 27 one channel. The request's transactions at the only copy wait for the
    # others once, as the siblings at each of several copies do (route_mva.route_arrays); taken as four
    # independent waits, the latency would be +86 % and +62 % (it is +2.7 % and +5.5 %).
    config = _open_at(seed, 0.8)
    assert config.workload.request_sizes_kib == (16.0,)
    assert abs(_mean_error(config)) <= 0.10


@pytest.mark.parametrize("load", [0.5, 0.8])
def test_reads_and_programs_in_batches_over_few_dies(load):
    # random design 23: 16 KiB requests at 70 % reads over 3 dies (tR 20 us, tPROG 623 us), no write buffer.
    # A request's four transactions are all reads or all programs: the batch term of M^X/G/c takes the
    # operation's service (Network.batch_excess), and the dies' waits are correlated by the programs one
    # write lands on several dies, so their max is shorter (Network.copy_work_correlation, route_mva.py, 1.).
    # With the batch's transactions taken as independent reads and programs the latency is -14.5 % and
    # -21.7 %; with the batch term alone +14.1 % and +22.2 %; with both -1.1 % and -3.5 %.
    config = _open_at(23, load)
    assert config.workload.read_fraction == 0.7 and config.workload.request_sizes_kib == (16.0,)
    assert abs(_mean_error(config)) <= 0.05


@pytest.mark.parametrize("planes", [2, 3])
def test_batches_of_programs_on_multi_plane_dies_queue_as_mx_m_c(planes):
    # 16 KiB writes (four programs) over two dies of 2-3 planes, exponential program times, at 60 % load:
    # each die is an M^X/M/c queue fed Bin(4, 1/2) programs per request that reaches it
    # (Network.copy_batches), and its mean queue is what open.batch_erlang_c computes; the DES's wait per
    # program is that queue over the programs' rate (Little's law)
    from ssdco.model.queueing.open import batch_erlang_c

    d = random_config(48, mixed_sizes=True)
    d["nand"].update(channels=1, ways_per_channel=2, dies_per_chip=1, planes_per_die=planes)
    d["workload"].update(read_fraction=0.0, request_size_kib=16)
    d["variability"] = {"nand_scv": 1.0}
    d = open_at(d, 0.6)
    network = build_network(config_from_dict(d))
    (die,) = [ld for ld in network.loads() if ld.name == "die"]
    per_request, pmf = network.copy_batches["die"]
    assert die.servers == planes and die.copies == 2 and die.scv == 1.0
    assert pmf.tolist() == pytest.approx([0.0, 4 / 15, 6 / 15, 4 / 15, 1 / 15])
    arrival_per_us = network.arrival_iops / 1e6
    _, queued = batch_erlang_c(planes, arrival_per_us * per_request, die.service_us, pmf)
    want = queued / (arrival_per_us * die.visits)  # per program at one die
    des = simulate(network, requests=200_000, seed=1)
    assert des.station_wait_us["die"] == pytest.approx(want, rel=0.05)


@pytest.mark.parametrize("load,within", [(0.3, 10), (0.7, 9)])
def test_variable_nand_service_over_several_transactions(load, within):
    # designs 0-9 (4/8/16 KiB) with NAND scv 1: a request waits for the last of its transactions, and with
    # variable service that is later than the deterministic level (route_mva.own_last_departure: H_4 = 2.08
    # reads for four on separate dies, not one). Measured all 10 within 9 % at 30 % load and 9 within
    # 10.8 % at 70 %; with the deterministic level 3 and 7 (-7..-26 % and -13 %)
    errors = []
    for seed in range(10):
        d = random_config(seed, mixed_sizes=True)
        d["variability"] = {"nand_scv": 1.0}
        errors.append(_mean_error(config_from_dict(open_at(d, load))))
    assert np.sum(np.abs(errors) <= 0.10) >= within, np.round(errors, 3).tolist()


def test_channel_behind_deterministic_dies_at_80_percent_load():
    # the closed test's channel-bound reads (gallery("channel-bound-reads")), open at 80 % of capacity: the dies'
    # deterministic reads space out each channel's transfers; behind Poisson arrivals the model's channel
    # wait is 22.5 us against the DES's 16.3 us (latency +6.1 %), with route_mva.routed_arrival_gamma 18.1 us
    d = gallery("channel-bound-reads")
    capacity = evaluate_network(config_from_dict(d), build_network(config_from_dict(d))).bounds.capacity_per_us
    del d["workload"]["queue_depth"]
    d["workload"]["arrival_iops"] = 0.8 * capacity * 1e6
    config = config_from_dict(d)
    network = build_network(config)
    model = evaluate_network(config, network)
    des = simulate(network, requests=200_000, seed=1)
    channel = next(ld for ld in network.loads() if ld.name == "channel")
    model_wait = model.mean_jobs["channel"] / (model.iops / 1e6 * channel.visits) - channel.service_us
    assert model_wait == pytest.approx(des.station_wait_us["channel"], rel=0.15)
    assert model.latency_mean_us == pytest.approx(des.mean_latency_us.value, rel=0.05)
