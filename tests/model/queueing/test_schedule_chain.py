"""The Markov chain of a closed deterministic network whose randomness is the requests' draws
(ssdco/model/queueing/schedule_chain.py): closed forms, work conservation, agreement with the DES, scope."""

import copy
import inspect
from dataclasses import replace
from functools import lru_cache

import numpy as np
import pytest

from ssdco import load_config
from ssdco.model.caveats import CHAIN_OUTGROWN_CAVEAT_MAX_QUEUE_DEPTH, route_mva_at_risk, trust_caveats
from ssdco.model.queueing import schedule_chain as chain_module
from ssdco.model.queueing.route_mva import request_alone_us, route_arrays, solve_route
from ssdco.model.queueing.schedule_chain import GRID_STEPS, schedule_chain
from ssdco.model.solvers import all_but
from ssdco.model.solvers.schedules import CHAIN_MAX_QUEUE_DEPTH
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import Network, Station, Step, build_network
from ssdco.sim.des import simulate
from ssdco.spec import config_from_dict
from ssdco.validation.compare import IOPS_TOLERANCE, LATENCY_TOLERANCE
from ssdco.validation.random_designs import random_config
from tests.conftest import PM9A3
from tests.gallery import gallery


def _dies(dies: int, servers: int = 1, queue_depth: int = 2, service_us: float = 10.0) -> Network:
    """Requests that do nothing but one read at a uniformly chosen die, reissued as they complete."""
    steps = (Step("nand_array", "die", False, service_us, service_us, routing="uniform"),)
    return Network(stations=(Station("die", "die", servers, dies),), steps=steps, read_fraction=1.0,
                   request_bytes=(4096.0,), request_probs=(1.0,), transactions=(1,), queue_depth=queue_depth,
                   arrival_iops=None)


def _uniform_design_at(seed: int, queue_depth: int):
    """(config, network, one request's latency alone in us) of uniform design ``seed`` (4/8/16 KiB) at
    ``queue_depth``."""
    d = random_config(seed, mixed_sizes=True)
    d["workload"]["queue_depth"] = queue_depth
    config = config_from_dict(d)
    network = build_network(config)
    return config, network, request_alone_us(network)


@pytest.mark.parametrize("dies", [2, 3, 5])
def test_two_requests_over_uniform_dies_by_hand(dies):
    # Everything happens on multiples of the read time S: at each multiple the requests that completed pick
    # dies, and one that picks the die the other holds waits one read. Whether the two share a die in a
    # slot is 1/D whatever came before, so X = (2 (1 - 1/D) + 1/D) / S = (2 - 1/D) / S.
    network = _dies(dies)
    chain = schedule_chain(network, request_alone_us(network))
    assert chain is not None and chain.patterns == ((pytest.approx(1.0), pytest.approx(chain.throughput_per_us)),)
    assert chain.throughput_per_us == pytest.approx((2.0 - 1.0 / dies) / 10.0, rel=1e-12)
    assert chain.response_us == pytest.approx(2.0 / chain.throughput_per_us, rel=1e-12)
    assert chain.p_wait[0] == pytest.approx((1.0 / dies) / (2.0 - 1.0 / dies), rel=1e-12)


def test_requests_never_wait_at_dies_with_a_server_each():
    network = _dies(3, servers=2)
    chain = schedule_chain(network, request_alone_us(network))
    assert chain.throughput_per_us == pytest.approx(2.0 / 10.0, rel=1e-12)
    assert chain.p_wait[0] == 0.0


@pytest.mark.parametrize("seed, lumped", [(3, False), (4, False), (12, False), (12, True), (14, True)])
def test_busy_servers_are_the_work_brought(seed, lumped):
    # Work conservation: each station's mean busy servers is X times the service a request brings it, over
    # all its copies, whatever the schedule; the chain counts busy time and completions separately. Exact for
    # the exact chain; lumping the states (a 2 % grid) moves it by a few 1e-4 (seed 14: 1.9e-4).
    _, network, zero = _uniform_design_at(seed, queue_depth=2)
    steps = ((0.02, 100_000),) if lumped else ((1e-6, 100_000),)
    chain = schedule_chain(network, zero, steps=steps)
    assert chain is not None
    loads = {ld.name: ld for ld in network.loads()}
    for k, station in enumerate(network.stations):
        if station.name in loads:
            ld = loads[station.name]
            assert chain.busy_servers[k] == pytest.approx(chain.throughput_per_us * ld.demand_us * ld.copies,
                                                          rel=1e-3 if lumped else 1e-9), station.name
            assert chain.mean_jobs[k] >= chain.busy_servers[k] - 1e-12


@pytest.mark.parametrize("seed", [3, 8, 12])
def test_chain_matches_the_des(seed):
    # 8 KiB reads and writes at QD 2 (uniform designs): the chain is exact up to its lumping of remaining times
    # (a grid of 2 % of one request's latency where the exact chain is too large); the route MVA is 2.3-2.6 %
    # off on seeds 3 and 8 (-10.8 % on seed 4, which is in the DES-backed test below).
    _, network, zero = _uniform_design_at(seed, queue_depth=2)
    chain = schedule_chain(network, zero)
    des = simulate(network, requests=100_000, seed=1)
    tolerance = max(0.003, 2.0 * des.iops.relative_half_width)
    assert chain.throughput_per_us * 1e6 == pytest.approx(des.iops.value, rel=tolerance)


@pytest.mark.parametrize("seed", [4, 12])
def test_lumping_keeps_the_answer(seed):
    # The same chain solved exactly and lumped on a grid of 2 % of a request's latency: 2,587 states become
    # 797 (seed 4, 8 KiB reads at QD 2) and 15,458 become 504 (seed 12, 70 % reads), the throughput moves by
    # less than 1e-4.
    _, network, zero = _uniform_design_at(seed, queue_depth=2)
    exact = schedule_chain(network, zero, steps=((1e-6, 100_000),))
    lumped = schedule_chain(network, zero, steps=((0.02, 100_000),))
    assert lumped.states < exact.states / 3
    assert lumped.throughput_per_us == pytest.approx(exact.throughput_per_us, rel=1e-4)


def test_whatif_takes_the_chain_where_the_route_mva_misses():
    # 70 % reads at QD 3, one slow core the bottleneck: the route MVA is +8.5 % (IOPS) against the DES, the
    # chain within its noise.
    config = config_from_dict(gallery("reads-and-programs-at-one-slow-core"))
    network = build_network(config)
    result = evaluate_network(config, network)
    des = simulate(network, requests=100_000, seed=1)
    assert result.method == "markov-chain" and result.caveats == ()
    assert abs(result.iops / des.iops.value - 1.0) <= 0.005
    assert abs(result.latency_mean_us / des.mean_latency_us.value - 1.0) <= 0.005
    route = evaluate_network(config, network, solvers=all_but("markov-chain", "platoon-stage"))
    assert route.method == "route-mva" and route.iops / des.iops.value - 1.0 > IOPS_TOLERANCE
    # per station as the other solvers report: jobs per copy, Little's law on the whole system
    assert sum(result.mean_jobs[ld.name] * ld.copies for ld in network.loads()) <= network.queue_depth


def test_a_lumped_chain_is_held_to_the_capacity_bound():
    # Only the 10 % grid fits here, and its chain counted completions 2.6 % faster than its own busy time at the
    # bottleneck core allows: whatif said 10,913 IOPS at QD 4, above the capacity of 10,633 and the QD 5 answer.
    d = gallery("reads-over-a-coarse-grid")
    iops = {}
    for queue_depth in (3, 4, 5):
        d["workload"]["queue_depth"] = queue_depth
        config = config_from_dict(d)
        result = evaluate_network(config, build_network(config))
        iops[queue_depth] = result.iops
        assert result.iops <= result.bounds.capacity_per_us * 1e6 * (1 + 1e-12), queue_depth
    assert iops[3] <= iops[4] <= iops[5]
    d["workload"]["queue_depth"] = 4
    network = build_network(config_from_dict(d))
    # whatif now refines this answer on the 5 % grid (206,551 states, GRID_STEPS' refine-only step); the 10 % grid
    # alone is what needed the hold
    chain = schedule_chain(network, request_alone_us(network), steps=((0.1, 100_000),))
    assert chain.grid_us == pytest.approx(0.1 * request_alone_us(network))
    des = simulate(network, requests=60_000, seed=1)
    assert abs(chain.throughput_per_us * 1e6 / des.iops.value - 1.0) <= 0.001
    assert chain.response_us == pytest.approx(4 / chain.throughput_per_us)


def test_whatif_takes_a_coarser_grid_where_the_finer_ones_outgrow_the_budget():
    # 8 KiB reads at QD 4 (uniform design 14): the chain outgrows 100,000 states on grids of 2 % and 5 % of one
    # request's latency and fits on 10 % (88,260 states); that answer is within 0.1 % of the DES, the route MVA
    # +7.4 %. With GRID_STEPS' 400,000 states for the 5 % grid after a fit, it fits there too (212,167 states,
    # -0.09 % against a 1,000,000-request run where the 10 % grid is +0.10 %).
    config, network, zero = _uniform_design_at(14, queue_depth=4)
    a_hundred_thousand_each = ((1e-4, 3_000), (0.1, 100_000), (0.05, 100_000), (0.02, 100_000))
    chain = schedule_chain(network, zero, steps=a_hundred_thousand_each)  # the grids are tried coarsest first
    assert chain is not None and chain.grid_us == pytest.approx(0.1 * zero, rel=1e-12)
    refined = schedule_chain(network, zero)
    assert refined.grid_us == pytest.approx(0.05 * zero, rel=1e-12) and 100_000 < refined.states <= 400_000
    result = evaluate_network(config, network)
    des = simulate(network, requests=100_000, seed=1)
    assert result.method == "markov-chain" and result.iops == pytest.approx(refined.throughput_per_us * 1e6)
    for answer in (chain, refined):
        assert abs(answer.throughput_per_us * 1e6 / des.iops.value - 1.0) <= 0.005
    route = evaluate_network(config, network, solvers=all_but("markov-chain", "platoon-stage"))
    assert route.iops / des.iops.value - 1.0 > IOPS_TOLERANCE


def _at_queue_depth_2(which: str):
    """(config, network, one request's latency alone in us) of a design at QD 2 whose chain needs more than
    100,000 states on the 10 % grid."""
    if which == "uniform design 156":
        return _uniform_design_at(156, queue_depth=2)
    config = config_from_dict(gallery("mixed-16k-reads-at-queue-depth-2"))
    network = build_network(config)
    return config, network, request_alone_us(network)


@pytest.mark.parametrize("which, outgrown_budget, most_states", [("uniform design 156", 100_000, 200_000),
                                                                 ("mixed 16 KiB reads", 200_000, 400_000)])
def test_at_queue_depth_2_the_10_percent_grid_may_take_400000_states(which, outgrown_budget, most_states):
    # 16 KiB requests at QD 2. Uniform design 156 needs 117,438 states on the 10 % grid, more than 100,000;
    # 70 %-read requests (gallery("mixed-16k-reads-at-queue-depth-2"), a fresh Hypothesis draw) need 228,241,
    # more than 200,000. Both fit SHALLOW_GRID_STEPS' 400,000, and the chain is within the DES's noise where the
    # route MVA is 4 % and 5.6 % low.
    config, network, zero = _at_queue_depth_2(which)
    assert chain_module.default_grid_steps(2) == chain_module.SHALLOW_GRID_STEPS
    assert chain_module.SHALLOW_GRID_STEPS[1] == (0.1, 400_000)
    assert schedule_chain(network, zero, steps=((0.1, outgrown_budget),)) is None
    chain = schedule_chain(network, zero)
    assert chain is not None and outgrown_budget < chain.states <= most_states
    assert chain.grid_us == pytest.approx(0.1 * zero, rel=1e-12)
    result = evaluate_network(config, network)
    des = simulate(network, requests=200_000, seed=1)
    assert result.method == "markov-chain" and not result.caveats
    assert abs(result.iops / des.iops.value - 1.0) <= 0.01
    route = evaluate_network(config, network, effort="fast", solvers=all_but("platoon-stage"))
    assert route.method == "route-mva" and route.iops / des.iops.value - 1.0 < -IOPS_TOLERANCE


def test_whatif_fast_tries_the_chains_first_states_at_queue_depth_2():
    # whatif --fast at QD 1-2 still tries the chain on the exact grid within FAST_GRID_STEPS' 3,000 states. Two reads
    # behind one slow core running every module (gallery("reads-at-queue-depth-2-behind-one-slow-core")): the
    # route MVA is 14 % low, the chain exact, and --fast gives the chain's answer. The 70 %-read 16 KiB requests of
    # gallery("mixed-16k-reads-at-queue-depth-2") need 200,000-400,000 states: --fast gives up and says so.
    config = config_from_dict(gallery("reads-at-queue-depth-2-behind-one-slow-core"))
    network = build_network(config)
    fast = evaluate_network(config, network, effort="fast")
    full = evaluate_network(config, network)
    route_mva = evaluate_network(config, network, solvers=all_but("markov-chain", "platoon-stage"))
    des = simulate(network, requests=60_000, seed=1)
    assert (fast.method, fast.iops, fast.latency_mean_us) == ("markov-chain", full.iops, full.latency_mean_us)
    assert not fast.caveats
    assert fast.iops == pytest.approx(des.iops.value, rel=0.005)
    assert route_mva.iops < (1 - IOPS_TOLERANCE) * des.iops.value  # what --fast would answer without the chain
    # without even the first states (the optimizer's screen): the route MVA, the caveat of the skipped chain absent
    # (one transaction, the core under 70 % busy)
    bare = evaluate_network(config, network, effort="screen")
    assert (bare.method, bare.iops) == ("route-mva", route_mva.iops)
    # 16 KiB reads at QD 2: past the first states, the route MVA and the skipped chain's caveat (the platoon stage,
    # which forks these requests, answers in its place by default: platoon_stage=False asks for the route MVA)
    config = config_from_dict(gallery("mixed-16k-reads-at-queue-depth-2"))
    fast = evaluate_network(config, build_network(config), effort="fast", solvers=all_but("platoon-stage"))
    assert fast.method == "route-mva"
    assert any(c.startswith("the Markov chain of the requests' draws was skipped (--fast)") for c in fast.caveats)


def test_whatif_takes_the_chain_at_queue_depth_1():
    # One request alone: its chain is its own draws (here 3 states: the two reads on one die or on two), exact
    # for deterministic service. The route MVA's fork-join estimate is 3.9 % low on IOPS (a fresh Hypothesis
    # draw, gallery("reads-alone-over-three-dies")); the DES's 95 % half-width is about 0.12 %.
    config = config_from_dict(gallery("reads-alone-over-three-dies"))
    network = build_network(config)
    model = evaluate_network(config, network)
    route_mva = evaluate_network(config, network, solvers=all_but("markov-chain", "platoon-stage"))
    des = simulate(network, requests=60_000, seed=1)
    assert model.method == "markov-chain" and route_mva.method == "route-mva"
    fast = evaluate_network(config, network, effort="fast")  # whatif --fast takes so small a chain too
    assert (fast.method, fast.iops, fast.caveats) == ("markov-chain", model.iops, model.caveats)
    assert model.iops == pytest.approx(des.iops.value, rel=0.005)
    assert model.latency_mean_us == pytest.approx(des.mean_latency_us.value, rel=0.005)
    assert route_mva.iops < (1 - IOPS_TOLERANCE) * des.iops.value  # what the chain corrects


def test_the_outgrown_chain_caveat_is_not_raised_at_queue_depth_1():
    # its figures were measured at queue depth 2-5; at 1 the chain is one request's own draws
    network = build_network(config_from_dict(gallery("reads-alone-over-three-dies")))  # requests of two transactions
    assert not route_mva_at_risk(network, None)
    assert route_mva_at_risk(replace(network, queue_depth=2), None)


def test_whatif_takes_the_chain_at_queue_depth_5():
    # reads at QD 5 behind three slow cores: the route MVA is 4 % low on IOPS, the chain within the DES's
    # noise. At queue depth 5 the grids tried are GRID_STEPS, as at 3-4: this chain fits the 10 % grid within
    # 100,000 states and is refined on a finer one.
    config = config_from_dict(gallery("reads-at-queue-depth-5"))
    network = build_network(config)
    result = evaluate_network(config, network)
    des = simulate(network, requests=100_000, seed=1)
    assert result.method == "markov-chain"
    assert abs(result.iops / des.iops.value - 1.0) <= 0.005
    assert abs(result.latency_mean_us / des.mean_latency_us.value - 1.0) <= 0.005
    route = evaluate_network(config, network, effort="fast", solvers=all_but("platoon-stage"))
    assert route.method == "route-mva" and route.iops / des.iops.value - 1.0 < -IOPS_TOLERANCE
    fast = evaluate_network(config, network, effort="fast")  # whatif --fast: the platoon stage answers
    assert fast.method == "platoon-stage" and abs(fast.iops / des.iops.value - 1.0) <= IOPS_TOLERANCE
    zero = request_alone_us(network)
    chain = schedule_chain(network, zero)
    assert chain_module.default_grid_steps(5) == GRID_STEPS
    assert 0.02 * zero * (1 - 1e-12) <= chain.grid_us <= 0.05 * zero * (1 + 1e-12)


def test_at_queue_depth_5_the_5_percent_grid_may_take_400000_states_after_the_10_percent_grid_fit():
    # 4 KiB reads at QD 5 over eight dies behind two fast cores
    # (gallery("reads-over-eight-dies-behind-two-cores-at-queue-depth-5"), a fresh Hypothesis draw): the route
    # MVA is 4 % low, with no caveat. The chain outgrows 100,000 states on the 5 % and 2 % grids alone (no 10 %
    # grid); with GRID_STEPS it fits the 10 % grid and is refined on the 5 % grid in about 165,000 states, within
    # the DES's noise.
    config = config_from_dict(gallery("reads-over-eight-dies-behind-two-cores-at-queue-depth-5"))
    network = build_network(config)
    zero = request_alone_us(network)
    assert schedule_chain(network, zero, steps=((1e-4, 3_000), (0.05, 100_000), (0.02, 100_000))) is None
    result = evaluate_network(config, network)
    assert result.method == "markov-chain" and not result.caveats
    chain = schedule_chain(network, zero)  # whatif's, recalled
    assert chain.grid_us == pytest.approx(0.05 * zero, rel=1e-12) and 100_000 < chain.states <= 400_000
    des = simulate(network, requests=200_000, seed=1)
    assert abs(result.iops / des.iops.value - 1.0) <= 0.005
    assert abs(result.latency_mean_us / des.mean_latency_us.value - 1.0) <= 0.005
    route_mva = evaluate_network(config, network, effort="fast", solvers=all_but("platoon-stage"))
    assert route_mva.method == "route-mva" and not route_mva.caveats
    assert route_mva.iops / des.iops.value - 1.0 < -IOPS_TOLERANCE
    # whatif --fast: the platoon stage answers where the route MVA would (a core group serves several steps)
    fast = evaluate_network(config, network, effort="fast")
    assert fast.method == "platoon-stage" and abs(fast.iops / des.iops.value - 1.0) <= IOPS_TOLERANCE


def test_p99_estimate_takes_the_chains_own_waits():
    # PM9A3 c05, 8 KiB reads at QD 3: a lumped chain's busy servers and X x demand differ by ~1e-3 at the dies;
    # taken as a wait there (with P(wait) ~2e-6) it put the p99 estimate 48 % above the DES. From the chain's
    # waiting jobs it is within 1 % (measured +0.8 %).
    config = load_config(PM9A3, controller="c05",
                         overrides=["workload.queue_depth=3", "workload.request_size_kib=8"])
    network = build_network(config)
    result = evaluate_network(config, network)
    des = simulate(network, requests=100_000, seed=1)
    assert result.method == "markov-chain"
    assert abs(result.iops / des.iops.value - 1.0) <= 0.005
    assert abs(result.latency_p99_us / des.p99_us - 1.0) <= 0.03


def test_several_long_run_patterns_are_reported():
    # 8 KiB reads at QD 2: the chain has closed classes of two throughputs; the start reaches the faster about
    # 95 % of the time, and the DES, seeded three ways, shows it every time.
    config = config_from_dict(gallery("two-patterns-at-queue-depth-2"))
    network = build_network(config)
    result = evaluate_network(config, network)
    chain = schedule_chain(network, request_alone_us(network))
    assert len(chain.patterns) == 2 and 0.9 < chain.patterns[0][0] < 1.0
    assert chain.patterns[1][1] < 0.95 * chain.patterns[0][1]
    assert sum(w for w, _ in chain.patterns) == pytest.approx(1.0, rel=1e-9)
    assert result.method == "markov-chain" and len(result.caveats) == 1 and "patterns" in result.caveats[0]
    for seed in (1, 2, 3):
        des = simulate(network, requests=30_000, seed=seed)
        assert result.iops == pytest.approx(des.iops.value, rel=0.003)
    assert abs(result.latency_mean_us / des.mean_latency_us.value - 1.0) <= LATENCY_TOLERANCE


def _memo_size() -> int:
    """How many answers the memo of chain answers holds."""
    return chain_module._recalled.cache_info().currsize


@pytest.fixture
def fresh_memo():
    """An empty memo of chain answers at the start of the test (and after it)."""
    chain_module._recalled.cache_clear()
    yield chain_module._recalled.cache_clear
    chain_module._recalled.cache_clear()


@pytest.fixture
def explorations(monkeypatch) -> list:
    """The lumping grid (us) of every exploration the test makes."""
    grids = []
    real = chain_module._explore

    grid_at = list(inspect.signature(real.py_func).parameters).index("grid")

    def counted(*args):
        grids.append(args[grid_at])
        return real(*args)

    monkeypatch.setattr(chain_module, "_explore", counted)
    return grids


def test_the_chain_is_deterministic(fresh_memo):
    network = build_network(config_from_dict(gallery("reads-and-programs-at-one-slow-core")))
    a = schedule_chain(network, request_alone_us(network))
    fresh_memo()  # explored anew, not recalled
    b = schedule_chain(network, request_alone_us(network))
    assert a.throughput_per_us == b.throughput_per_us and a.states == b.states
    assert np.array_equal(a.mean_jobs, b.mean_jobs)


def test_no_chain_outside_its_scope():
    base = gallery("reads-and-programs-at-one-slow-core")
    network = build_network(config_from_dict(base))
    zero = request_alone_us(network)
    assert schedule_chain(network, zero, steps=((0.02, 10),)) is None  # outgrows its state budget
    varied = copy.deepcopy(base)
    varied["variability"] = {"nand_scv": 1.0}
    assert schedule_chain(build_network(config_from_dict(varied)), zero) is None
    opened = copy.deepcopy(base)
    del opened["workload"]["queue_depth"]
    opened["workload"]["arrival_iops"] = 1000.0
    assert schedule_chain(build_network(config_from_dict(opened)), zero) is None
    buffered = build_network(load_config(PM9A3, overrides=["workload.queue_depth=2", "workload.read_fraction=0.7"]))
    assert buffered.has_background and schedule_chain(buffered, zero) is None
    # one die and one operation: nothing drawn matters (collapsed.py's case)
    assert schedule_chain(_dies(1), 10.0) is None


def test_a_grid_no_coarser_than_one_that_outgrew_its_budget_is_not_explored(fresh_memo, explorations):
    # Exploring a chain that outgrows its budget costs as much as solving one that fits: after a grid outgrows
    # a budget, finer grids with no larger budget are skipped, and a larger budget is still tried.
    network = build_network(config_from_dict(gallery("reads-and-programs-at-one-slow-core")))
    zero = request_alone_us(network)
    explored = explorations
    assert schedule_chain(network, zero, steps=((0.1, 10), (0.05, 10), (0.02, 5))) is None
    assert explored == [pytest.approx(0.1 * zero)]
    explored.clear()
    chain = schedule_chain(network, zero, steps=((0.1, 10), (0.05, 100_000), (0.02, 10)))
    assert explored == [pytest.approx(0.1 * zero), pytest.approx(0.05 * zero)]
    assert chain is not None and chain.grid_us == pytest.approx(0.05 * zero)


def test_a_finer_grid_whose_budget_a_coarser_fit_already_exceeded_is_not_explored():
    # SHALLOW_GRID_STEPS: the 10 % grid may fit with more states than the finer grids' budget; a finer grid needs
    # at least as many, so exploring it would only cost the time of outgrowing its budget. A finer step with a
    # budget as large as what the coarser fit needed is still tried.
    calls = []

    def explore(fraction, max_states):
        calls.append(fraction)
        needs = {0.1: 150, 0.05: 250, 0.02: 280}[fraction]  # the result: the states the grid needs
        return (chain_module.OK if needs <= max_states else chain_module.TOO_MANY_STATES), needs

    steps = ((0.1, 200), (0.05, 100), (0.02, 300))
    walk = chain_module.walk_grid_steps(steps, explore, states_of=lambda states: states)
    assert calls == [0.1, 0.02] and (walk.fraction, walk.found) == (0.02, 280)
    for without in ({"skip": False, "states_of": lambda states: states}, {}):  # no skip, or no states_of
        calls.clear()
        walk = chain_module.walk_grid_steps(steps, explore, **without)
        # 0.05 is explored, outgrows its budget and ends the walk at the 10 % grid
        assert calls == [0.1, 0.05] and (walk.fraction, walk.found) == (0.1, 150)


def test_a_refine_only_step_is_explored_only_after_a_coarser_grid_fit():
    # GRID_STEPS at queue depths 3-4: the 5 % grid's larger budget refines an answer of the 10 % grid; where the
    # 10 % grid outgrew its budget, exploring the 5 % grid with more states would only cost the time of outgrowing it
    ok, over = chain_module.OK, chain_module.TOO_MANY_STATES
    steps = ((0.1, 100), (0.05, 400, chain_module.REFINE_ONLY), (0.02, 100))
    for skip in (True, False):
        explore, calls = _scripted({0.1: over, 0.05: ok, 0.02: over})
        walk = chain_module.walk_grid_steps(steps, explore, skip=skip)
        assert walk.fraction is None and walk.outgrown == (((0.1, 100),) if skip else ((0.1, 100), (0.02, 100)))
        assert calls == ([0.1] if skip else [0.1, 0.02])
        explore, calls = _scripted({0.1: ok, 0.05: ok, 0.02: over})
        walk = chain_module.walk_grid_steps(steps, explore, skip=skip)
        assert (walk.fraction, walk.found) == (0.05, "found at 0.05") and calls == [0.1, 0.05, 0.02]
    # the same step unmarked is tried where the 10 % grid outgrew (a larger budget than the one that outgrew)
    explore, calls = _scripted({0.1: over, 0.05: ok, 0.02: over})
    walk = chain_module.walk_grid_steps(tuple(step[:2] for step in steps), explore)
    assert walk.fraction == 0.05 and calls == [0.1, 0.05]  # 2 % skipped: 10 % outgrew as large a budget
    assert chain_module.default_grid_steps(3) == chain_module.default_grid_steps(4) == chain_module.GRID_STEPS
    assert chain_module.GRID_STEPS[2] == (0.05, 400_000, chain_module.REFINE_ONLY)


def test_a_refine_only_step_is_skipped_where_the_coarser_fit_needed_more_than_a_quarter_of_its_budget():
    # GRID_STEPS at queue depths 3-4: the 10 % grid may fit up to 400,000 states, and a finer grid needs a median 3.8
    # times as many, so after a fit beyond a quarter of the 5 % grid's budget exploring it would mostly cost the
    # time of outgrowing it
    assert chain_module.REFINE_GROWTH == 4
    calls = []

    def explore(fraction, max_states):
        calls.append(fraction)
        return chain_module.OK, {0.1: needs_at_10, 0.05: 4 * needs_at_10, 0.02: 20 * needs_at_10}[fraction]

    steps = ((0.1, 400), (0.05, 400, chain_module.REFINE_ONLY), (0.02, 100))
    for needs_at_10, expected_calls, expected_fraction in ((100, [0.1, 0.05], 0.05), (101, [0.1], 0.1)):
        calls.clear()
        walk = chain_module.walk_grid_steps(steps, explore, states_of=lambda states: states)
        assert calls == expected_calls and walk.fraction == expected_fraction
    calls.clear()  # without states_of (the states unknown) the refine-only step is tried after any fit
    walk = chain_module.walk_grid_steps(steps, explore)
    assert calls == [0.1, 0.05, 0.02] and walk.fraction == 0.02


def test_a_finest_fit_with_fewer_states_than_the_coarser_one_is_refined_once_more():
    # a grid halved multiplies the states; where the finest that fits closed on fewer than the coarser fit before
    # it, its representatives fell into an orbit of their own, and a grid COLLAPSE_REFINE_FACTOR times finer is
    # explored within the finest fit's budget and taken where it fits
    assert chain_module.COLLAPSE_REFINE_FACTOR == 2
    calls = []

    def explore(fraction, max_states):
        calls.append((fraction, max_states))
        needs = states[fraction]
        return (chain_module.OK if needs <= max_states else chain_module.TOO_MANY_STATES), needs

    steps = ((0.1, 400), (0.05, 400, chain_module.REFINE_ONLY), (0.02, 100))
    for states, expected_calls, expected in (
            ({0.1: 6, 0.05: 60, 0.02: 6, 0.01: 80}, [(0.1, 400), (0.05, 400), (0.02, 100), (0.01, 100)], 0.01),
            ({0.1: 6, 0.05: 60, 0.02: 6, 0.01: 101}, [(0.1, 400), (0.05, 400), (0.02, 100), (0.01, 100)], 0.02),
            ({0.1: 6, 0.05: 60, 0.02: 60}, [(0.1, 400), (0.05, 400), (0.02, 100)], 0.02),  # as many: no collapse
            ({0.1: 6, 0.05: 60, 0.02: 200}, [(0.1, 400), (0.05, 400), (0.02, 100)], 0.05)):  # 2 % outgrew
        calls.clear()
        walk = chain_module.walk_grid_steps(steps, explore, states_of=lambda n: n)
        assert calls == expected_calls and walk.fraction == expected
    calls.clear()  # without states_of the states are unknown, and nothing more is explored
    states = {0.1: 6, 0.05: 60, 0.02: 6, 0.01: 80}
    assert chain_module.walk_grid_steps(steps, explore).fraction == 0.02 and len(calls) == 3
    # any other status of the extra exploration ends the walk without an answer, as for the steps
    explore_bug, _ = _scripted({0.1: chain_module.OK, 0.05: chain_module.OK, 0.02: chain_module.OK,
                                0.01: chain_module.BUG})
    walk = chain_module.walk_grid_steps(steps, explore_bug, states_of=lambda found: {
        "found at 0.1": 6, "found at 0.05": 60, "found at 0.02": 6}[found])
    assert walk.aborted and walk.fraction is None


def test_writes_whose_finer_grid_collapses_get_the_grid_finer_still():
    # Seed 20261287 one-transaction draw 56 (gallery("writes-whose-finer-grid-collapses-at-queue-depth-4")): the
    # 2 % grid, the finest of GRID_STEPS, closes on the 10 % grid's 64 states and is 7 % below the DES; the 1 % grid
    # is within its noise
    config = config_from_dict(gallery("writes-whose-finer-grid-collapses-at-queue-depth-4"))
    network = build_network(config)
    zero = request_alone_us(network)
    assert network.queue_depth == 4 and chain_module.default_grid_steps(4) == chain_module.GRID_STEPS
    des = simulate(network, requests=100_000, seed=1)
    states = {}
    for fraction, max_states, *_ in chain_module.GRID_STEPS[1:]:
        chain = schedule_chain(network, zero, steps=((fraction, max_states),))
        states[fraction] = chain.states
        if fraction == 0.02:
            assert chain.throughput_per_us * 1e6 / des.iops.value - 1.0 < -IOPS_TOLERANCE
    assert states[0.02] < states[0.05]
    result = evaluate_network(config, network)
    assert result.method == "markov-chain" and not result.caveats
    chain = schedule_chain(network, zero)  # whatif's, recalled
    assert chain.grid_us == pytest.approx(0.01 * zero, rel=1e-12) and chain.states > states[0.05]
    assert abs(result.iops / des.iops.value - 1.0) <= 0.005
    assert abs(result.latency_mean_us / des.mean_latency_us.value - 1.0) <= 0.005


def test_at_queue_depths_3_and_4_the_10_percent_grid_may_take_400000_states():
    # 8 KiB reads at QD 4 over eight four-plane dies (gallery("eight-kib-reads-over-eight-dies-at-queue-depth-4"),
    # a fresh Hypothesis draw): the route MVA is 8 % low; the chain needs about 175,000 states on the 10 % grid, more
    # than 100,000, and is within the DES's noise. The 400,000 budget relies on the chain's throughput being read
    # off its busy time: with its completions counted, the 10 % grid's answers beyond 100,000 states make misses
    # where the route MVA is right (docs/accuracy.md).
    assert chain_module.GRID_STEPS[1] == (0.1, 400_000)
    config = config_from_dict(gallery("eight-kib-reads-over-eight-dies-at-queue-depth-4"))
    network = build_network(config)
    zero = request_alone_us(network)
    assert schedule_chain(network, zero, steps=((0.1, 100_000),)) is None
    result = evaluate_network(config, network)
    assert result.method == "markov-chain" and not result.caveats
    chain = schedule_chain(network, zero)  # whatif's, recalled
    assert chain.grid_us == pytest.approx(0.1 * zero, rel=1e-12) and 100_000 < chain.states <= 400_000
    des = simulate(network, requests=200_000, seed=1)
    assert abs(result.iops / des.iops.value - 1.0) <= IOPS_TOLERANCE
    assert abs(result.latency_mean_us / des.mean_latency_us.value - 1.0) <= LATENCY_TOLERANCE
    route_mva = evaluate_network(config, network, effort="fast")
    assert route_mva.method == "route-mva" and route_mva.iops / des.iops.value - 1.0 < -IOPS_TOLERANCE


def test_at_queue_depths_3_and_4_the_5_percent_grid_may_take_400000_states_after_the_10_percent_grid_fit():
    # 8 KiB writes at QD 3 (gallery("writes-over-one-channel-at-queue-depth-3"), a fresh Hypothesis draw): the
    # chain fits the 10 % grid in about 4,000 states, where its completions count 4 % too few (its busy time, which
    # whatif reads X off, gives -1.9 %); the 5 % grid needs about 307,000, beyond 100,000, and there the chain is
    # within the DES's noise.
    config = config_from_dict(gallery("writes-over-one-channel-at-queue-depth-3"))
    network = build_network(config)
    zero = request_alone_us(network)
    des = simulate(network, requests=200_000, seed=1)
    coarse = schedule_chain(network, zero, steps=((0.1, 100_000),))
    assert coarse is not None and coarse.states < 10_000
    assert coarse.counted_throughput_per_us * 1e6 / des.iops.value - 1.0 < -IOPS_TOLERANCE
    assert -IOPS_TOLERANCE < coarse.throughput_per_us * 1e6 / des.iops.value - 1.0 < -0.01
    assert schedule_chain(network, zero, steps=((0.05, 100_000),)) is None
    result = evaluate_network(config, network)
    assert result.method == "markov-chain" and not result.caveats
    chain = schedule_chain(network, zero)  # whatif's, recalled
    assert chain.grid_us == pytest.approx(0.05 * zero, rel=1e-12) and 100_000 < chain.states <= 400_000
    assert abs(result.iops / des.iops.value - 1.0) <= 0.01


def test_the_chains_throughput_is_read_off_its_busy_time():
    # Seed 20261224 one-transaction draw 96 (gallery("programs-among-fast-reads-on-a-coarse-grid")): the chain fits
    # only its 10 % grid, 27 us against 10 us reads, and its completions count 5.4 % too few; its busy time, which
    # X = sum of busy servers / sum of demands reads, is within the DES's noise (counted completions give -5.8 %
    # against a 1,000,000-request run).
    config = config_from_dict(gallery("programs-among-fast-reads-on-a-coarse-grid"))
    network = build_network(config)
    zero = request_alone_us(network)
    chain = schedule_chain(network, zero)
    assert chain.grid_us == pytest.approx(0.1 * zero, rel=1e-12)
    loads = network.loads()
    index = {s.name: k for k, s in enumerate(network.stations)}
    busy = sum(chain.busy_servers[index[ld.name]] for ld in loads)
    assert chain.throughput_per_us * sum(ld.demand_us * ld.copies for ld in loads) == pytest.approx(busy, rel=1e-12)
    assert chain.response_us == pytest.approx(network.queue_depth / chain.throughput_per_us, rel=1e-12)
    des = simulate(network, requests=200_000, seed=1)
    assert chain.counted_throughput_per_us * 1e6 / des.iops.value - 1.0 < -IOPS_TOLERANCE
    result = evaluate_network(config, network)
    assert result.method == "markov-chain" and not result.caveats
    assert abs(result.iops / des.iops.value - 1.0) <= 0.01
    assert abs(result.latency_mean_us / des.mean_latency_us.value - 1.0) <= 0.01


def test_at_queue_depth_8_the_chain_answers_where_it_fits_40000_states():
    # Reads and programs on one two-plane die at QD 8 (gallery("reads-and-programs-on-one-die-at-queue-depth-8"),
    # a fresh Hypothesis draw): the route MVA approaches the die's capacity too slowly and is 3 % low; the chain,
    # tried up to QD 8 (CHAIN_MAX_QUEUE_DEPTH), fits a few thousand states and is within the DES's noise.
    config = config_from_dict(gallery("reads-and-programs-on-one-die-at-queue-depth-8"))
    network = build_network(config)
    assert network.queue_depth == 8 == CHAIN_MAX_QUEUE_DEPTH
    assert chain_module.default_grid_steps(8) == chain_module.default_grid_steps(6) == chain_module.HIGH_GRID_STEPS
    assert chain_module.default_grid_steps(5) == GRID_STEPS
    assert max(step[1] for step in chain_module.HIGH_GRID_STEPS) == 40_000
    des = simulate(network, requests=100_000, seed=1)
    result = evaluate_network(config, network)
    assert result.method == "markov-chain" and not result.caveats
    assert abs(result.iops / des.iops.value - 1.0) <= 0.01
    assert abs(result.latency_mean_us / des.mean_latency_us.value - 1.0) <= 0.01
    route = solve_route(route_arrays(network, network.loads()), network.queue_depth)
    assert route.throughput_per_us * 1e6 / des.iops.value - 1.0 < -IOPS_TOLERANCE
    # without the chain, the route MVA runs the die event by event behind the rest of the route (route_mva.py, 7.),
    # and, at QD 8 (whatif.STAGE_MAX_QUEUE_DEPTH), the platoon stage answers in its place
    staged = evaluate_network(config, network, effort="fast", solvers=all_but("platoon-stage"))
    assert staged.method == "route-mva" and abs(staged.iops / des.iops.value - 1.0) <= IOPS_TOLERANCE
    stage = evaluate_network(config, network, effort="fast")
    assert stage.method == "platoon-stage" and abs(stage.iops / des.iops.value - 1.0) <= IOPS_TOLERANCE
    deeper = copy.deepcopy(gallery("reads-and-programs-on-one-die-at-queue-depth-8"))
    deeper["workload"]["queue_depth"] = CHAIN_MAX_QUEUE_DEPTH + 1  # the chain is not tried: the stage answers
    assert evaluate_network(config_from_dict(deeper), build_network(config_from_dict(deeper))).method == "platoon-stage"


def test_the_chain_outgrown_caveat_stays_at_queue_depths_2_to_5():
    # it was measured there (whatif.trust_caveats); at QD 6-8, where the chain is tried too, it is not given
    d = copy.deepcopy(gallery("reads-and-programs-on-one-die-at-queue-depth-8"))
    d["workload"]["request_size_kib"] = 16  # several transactions: route_mva_at_risk
    flagged = {}
    for qd in (5, 6, 8):
        d["workload"]["queue_depth"] = qd
        network = build_network(config_from_dict(d))
        assert route_mva_at_risk(network, None)
        caveats = trust_caveats(network, 0.0, chain_outgrown=True)
        flagged[qd] = any("outgrew its state budget" in c for c in caveats)
    assert flagged == {5: True, 6: False, 8: False}
    assert CHAIN_OUTGROWN_CAVEAT_MAX_QUEUE_DEPTH == 5


def _scripted(statuses: dict):
    """An ``explore`` for walk_grid_steps that answers from ``statuses`` (by grid fraction) and logs its calls."""
    calls = []

    def explore(fraction, max_states):
        calls.append(fraction)
        return statuses[fraction], f"found at {fraction}"
    return explore, calls


@pytest.mark.parametrize("skip", [True, False])
def test_the_step_policy_takes_the_finest_grid_that_fits(skip):
    ok, over = chain_module.OK, chain_module.TOO_MANY_STATES
    # coarse to fine until one fits, then finer ones while they fit; a finer one that overflows ends the walk
    explore, calls = _scripted({0.1: over, 0.05: ok, 0.02: ok, 0.01: over})
    walk = chain_module.walk_grid_steps(((0.1, 100), (0.05, 1000), (0.02, 1000), (0.01, 1000)), explore, skip=skip)
    assert (walk.fraction, walk.found, walk.outgrown, walk.aborted) == (0.02, "found at 0.02", ((0.1, 100),), False)
    assert calls == [0.1, 0.05, 0.02, 0.01]
    # a grid no coarser than one that outgrew as large a budget is skipped (only with the skip)
    steps = ((0.1, 100), (0.05, 100), (0.02, 100), (0.01, 100))
    explore, calls = _scripted({0.1: over, 0.05: over, 0.02: over, 0.01: over})
    walk = chain_module.walk_grid_steps(steps, explore, skip=skip)
    assert walk.fraction is None and not walk.aborted
    assert calls == ([0.1] if skip else [0.1, 0.05, 0.02, 0.01])
    assert walk.outgrown == (((0.1, 100),) if skip else tuple(steps))
    # any other status (nothing drawn that matters, a bug) ends the walk without an answer
    explore, calls = _scripted({0.1: chain_module.NO_DRAWS})
    walk = chain_module.walk_grid_steps(steps, explore, skip=skip)
    assert walk.aborted and walk.fraction is None and calls == [0.1]


def _renamed(network: Network, prefix: str) -> Network:
    """``network`` with every station renamed: the same queues under other names."""
    names = {st.name: prefix + st.name for st in network.stations}
    return replace(network, stations=tuple(replace(st, name=names[st.name]) for st in network.stations),
                   steps=tuple(replace(s, station=names.get(s.station)) for s in network.steps))


def test_a_network_met_again_is_answered_from_the_memo(fresh_memo, explorations):
    # the optimizer verifies designs whose queues are the same under other names (or the same design under
    # other targets): one exploration serves them all, with the answer a fresh exploration gives
    network = build_network(config_from_dict(gallery("reads-and-programs-at-one-slow-core")))
    zero = request_alone_us(network)
    first = schedule_chain(network, zero)
    explored = len(explorations)
    assert explored >= 1 and _memo_size() == 1
    renamed = _renamed(network, "other_")
    again = schedule_chain(renamed, zero)
    assert len(explorations) == explored and _memo_size() == 1
    assert again.throughput_per_us == first.throughput_per_us and again.states == first.states
    assert np.array_equal(again.mean_jobs, first.mean_jobs) and again.patterns == first.patterns
    fresh_memo()
    assert schedule_chain(renamed, zero).throughput_per_us == first.throughput_per_us  # explored anew: the same


def test_what_the_queues_see_is_explored_anew(fresh_memo, explorations):
    network = build_network(config_from_dict(gallery("reads-and-programs-at-one-slow-core")))
    zero = request_alone_us(network)
    schedule_chain(network, zero)
    counts = [len(explorations)]
    deeper = replace(network, queue_depth=network.queue_depth + 1)
    schedule_chain(deeper, zero)  # another queue depth
    counts.append(len(explorations))
    schedule_chain(network, 1.01 * zero)  # other grids
    counts.append(len(explorations))
    slower = replace(network, steps=tuple(replace(s, read_us=s.read_us * 1.001) for s in network.steps))
    schedule_chain(slower, zero)  # other service times
    counts.append(len(explorations))
    schedule_chain(network, zero, steps=((0.05, 100_000),))  # other steps
    counts.append(len(explorations))
    assert all(b > a for a, b in zip(counts, counts[1:])) and _memo_size() == 5


def test_the_memo_keeps_the_most_recent_answers_and_they_cannot_be_changed(fresh_memo, explorations,
                                                                           monkeypatch):
    monkeypatch.setattr(chain_module, "_recalled", lru_cache(maxsize=2)(chain_module._recalled.__wrapped__))
    a, b, c = (_dies(d) for d in (2, 3, 5))
    for network in (a, b, a, c):  # a used again after b: b is the oldest when c arrives
        chain = schedule_chain(network, 10.0)
    assert _memo_size() == 2
    count = len(explorations)
    schedule_chain(a, 10.0)
    assert len(explorations) == count  # kept
    schedule_chain(b, 10.0)
    assert len(explorations) > count  # dropped, explored anew
    with pytest.raises(ValueError):
        chain.mean_jobs[0] = 1.0  # the arrays are shared with the memo


def _two_rings(size: int, leave_a: float, leave_b: float):
    """Two rings of ``size`` states each: a step goes round its ring or, with probability ``leave_a`` (from
    ring A) or ``leave_b`` (from B), across to the same place on the other ring. With small crossings the chain
    mixes slowly, as the chains of networks that keep one order for long do."""
    from scipy import sparse
    i = np.arange(size)
    rows = np.concatenate([i, i, size + i, size + i])
    cols = np.concatenate([(i + 1) % size, size + i, size + (i + 1) % size, i])
    p = np.concatenate([np.full(size, 1 - leave_a), np.full(size, leave_a), np.full(size, 1 - leave_b),
                        np.full(size, leave_b)])
    return sparse.csr_matrix((p, (rows, cols)), shape=(2 * size, 2 * size))


def _stationary_dense(Q) -> np.ndarray:
    """pi Q = pi, sum pi = 1, by least squares on the dense matrix: the reference for small chains."""
    m = Q.shape[0]
    A = np.vstack([Q.toarray().T - np.eye(m), np.ones((1, m))])
    b = np.zeros(m + 1)
    b[-1] = 1.0
    return np.linalg.lstsq(A, b, rcond=None)[0]


class _CountingProducts:
    """A matrix that counts its products with vectors."""

    def __init__(self, matrix):
        self.matrix, self.shape, self.products = matrix, matrix.shape, 0

    def __matmul__(self, vector):
        self.products += 1
        return self.matrix @ vector


@pytest.fixture
def solvers_used(monkeypatch) -> list[str]:
    """The fallback solvers ``_stationary`` calls, in order."""
    used = []
    gmres, splu = chain_module._ilu_gmres, chain_module.splu
    monkeypatch.setattr(chain_module, "_ilu_gmres", lambda *a: used.append(f"ILU-GMRES {a[4]:g}") or gmres(*a))
    monkeypatch.setattr(chain_module, "splu", lambda *a, **k: used.append("LU") or splu(*a, **k))
    return used


def test_a_chain_that_mixes_fast_is_solved_by_power_iteration(solvers_used):
    Q = _two_rings(300, 0.2, 0.1)
    pi = chain_module._stationary(Q)
    assert solvers_used == []
    assert np.abs(pi - _stationary_dense(Q)).sum() < 1e-10


def test_power_iteration_gives_up_early_on_a_chain_that_mixes_slowly():
    QT = _CountingProducts(_two_rings(300, 2e-6, 1e-6).T.tocsr())
    _, converged = chain_module._power_iteration(QT)
    assert not converged and QT.products == 2 * chain_module.POWER_RATE_WINDOW


def test_a_chain_that_mixes_slowly_is_solved_by_ilu_gmres(solvers_used):
    Q = _two_rings(300, 2e-6, 1e-6)
    pi = chain_module._stationary(Q)
    assert solvers_used == ["ILU-GMRES 0.01"]
    want = _stationary_dense(Q)
    assert np.abs(pi - want).sum() < 1e-9
    assert pi[:300].sum() == pytest.approx(1 / 3, rel=1e-9)  # the rings hold mass in the ratio of their crossings


def test_where_gmres_does_not_reach_the_tolerance_the_lu_solves_the_chain(solvers_used, monkeypatch):
    monkeypatch.setattr(chain_module, "GMRES_RESTARTS", 0)
    Q = _two_rings(300, 2e-6, 1e-6)
    pi = chain_module._stationary(Q)
    assert solvers_used == ["ILU-GMRES 0.01", "ILU-GMRES 0.0001", "LU"]
    assert np.abs(pi - _stationary_dense(Q)).sum() < 1e-9


def test_where_the_sparse_incomplete_lu_does_not_reach_the_tolerance_a_denser_one_is_tried(solvers_used,
                                                                                          monkeypatch):
    # Hypothesis seed 20261280 #135's 313,864-state class needs 18 GMRES cycles behind ILU_STEPS' first incomplete
    # LU and 6 behind the second; here a first one that drops nearly everything stands in for it
    assert chain_module.ILU_STEPS == ((1e-2, 3.0), (1e-4, 10.0))
    monkeypatch.setattr(chain_module, "ILU_STEPS", ((0.9, 1.0), (1e-4, 10.0)))
    Q = _two_rings(300, 2e-6, 1e-6)
    pi = chain_module._stationary(Q)
    assert solvers_used == ["ILU-GMRES 0.9", "ILU-GMRES 0.0001"]
    assert np.abs(pi - _stationary_dense(Q)).sum() < 1e-9


def test_beyond_lu_max_states_an_unsolved_chain_gives_no_answer(solvers_used, monkeypatch, fresh_memo):
    # the LU's factors may fill in without bound: Hypothesis seed 20261286 #232's 158,164-state class runs for more
    # than 15 minutes there. Beyond LU_MAX_STATES the chain has no answer, and whatif answers as where it outgrew
    assert chain_module.LU_MAX_STATES == 50_000 and chain_module.GMRES_RESTARTS == 16
    monkeypatch.setattr(chain_module, "GMRES_RESTARTS", 0)
    Q = _two_rings(300, 2e-6, 1e-6)
    monkeypatch.setattr(chain_module, "LU_MAX_STATES", 599)
    assert chain_module._stationary(Q) is None and solvers_used == ["ILU-GMRES 0.01", "ILU-GMRES 0.0001"]
    monkeypatch.setattr(chain_module, "LU_MAX_STATES", 600)
    assert chain_module._stationary(Q) is not None and solvers_used[2:] == ["ILU-GMRES 0.01", "ILU-GMRES 0.0001", "LU"]
    # and attempt_chain then reports the chain as outgrown, with no solution
    network = build_network(config_from_dict(gallery("reads-at-queue-depth-5")))
    monkeypatch.setattr(chain_module, "_stationary", lambda Q: None)
    attempt = chain_module.attempt_chain(network, request_alone_us(network))
    assert attempt.solution is None and attempt.outgrown and attempt.unsolved


def test_a_chain_that_outgrew_its_budget_is_not_reported_as_unsolved(fresh_memo):
    network = build_network(config_from_dict(gallery("reads-at-queue-depth-5")))
    attempt = chain_module.attempt_chain(network, request_alone_us(network), steps=((0.001, 50),))
    assert attempt.solution is None and attempt.outgrown and not attempt.unsolved
