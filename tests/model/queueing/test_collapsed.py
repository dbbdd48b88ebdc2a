"""The collapsed schedule of a closed network with one deterministic route (ssdco/model/queueing/collapsed.py), and
the default answer on the designs whose requests hold such a schedule or fall into step at a busy core."""

import copy

import pytest

from ssdco.model.queueing.collapsed import alone_us, collapsed_schedule
from ssdco.model.queueing.route_mva import route_arrays, solve_route
from ssdco.model.solvers import all_but
from ssdco.model.solvers.schedules import latency_alone_us
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import Network, Station, Step, build_network
from ssdco.sim.des import simulate
from ssdco.spec import config_from_dict
from ssdco.validation.compare import IOPS_TOLERANCE, LATENCY_TOLERANCE
from ssdco.validation.random_designs import random_config
from tests.gallery import gallery


def _network(die_us: float, copies: int = 1, queue_depth: int = 2, read_fraction: float = 1.0) -> Network:
    """One core runs translate (10 us) and dispatch (4 us); fetch and completion are 1 us delays."""
    steps = (Step("fetch", None, True, 0.0, 0.0, delay_us=1.0),
             Step("translate", "cores:g1", True, 10.0, 10.0),
             Step("dispatch", "cores:g1", True, 4.0, 4.0),
             Step("nand_array", "die", False, die_us, die_us, routing="uniform"),
             Step("completion", None, True, 0.0, 0.0, delay_us=1.0))
    return Network(stations=(Station("cores:g1", "cores", 1), Station("die", "die", 1, copies)), steps=steps,
                   read_fraction=read_fraction, request_bytes=(4096.0,), request_probs=(1.0,), transactions=(1,),
                   queue_depth=queue_depth, arrival_iops=None)


def test_schedule_of_two_requests_at_one_core_by_hand():
    # Both requests issued at 0 reach the core at 1: A translates 1-11, B 11-21, A dispatches 21-25 (it
    # rejoined the queue behind B), B 25-29; A reads 25-28 and is done at 29, back at the core at 30, where
    # B has left at 29. From then on each request takes 2 x 10 + 4 + 3 + 2 = 29 us: X = 2 / 29 per us.
    s = collapsed_schedule(_network(die_us=3.0))
    assert s is not None
    assert s.throughput_per_us == pytest.approx(2.0 / 29.0, rel=1e-3)  # the measured window: whole requests
    assert s.response_us == pytest.approx(29.0, rel=1e-12)
    assert s.des.latency_min_us == pytest.approx(29.0, rel=1e-12) and s.des.latency_max_us == pytest.approx(29.0)
    # in a period A translates 30-40 at once; B arrives at 34 and translates 40-50 (waits 6); A, back in
    # the queue at 40, dispatches 50-54 (waits 10), B 54-58 (waits 4): 10 us per request over two visits
    assert s.des.station_wait_us["cores:g1"] * 2 == pytest.approx(10.0, rel=1e-3)
    assert s.response_us == pytest.approx(10.0 + 10.0 + 4.0 + 3.0 + 2.0, rel=1e-12)


@pytest.mark.parametrize("design", ["two-reads-two-dies", "two-modules-on-one-slow-core"])
def test_schedule_matches_the_des_where_the_route_mva_missed(design):
    # two_reads_two_dies: the route MVA is -8.4 % (IOPS) and +63 % (p99); the DES has no wait at all.
    # two_modules_on_one_slow_core: +9.1 % and +11 %; the DES's core idles while both requests are at the NAND.
    config = config_from_dict(gallery(design))
    network = build_network(config)
    schedule = collapsed_schedule(network, requests=60_000)
    des = simulate(network, requests=60_000, seed=1)
    # no transaction waits at the collapsed copies: the run is the real network's, whatever the addresses pick
    assert schedule.throughput_per_us * 1e6 == pytest.approx(des.iops.value, rel=1e-9)
    assert schedule.response_us == pytest.approx(des.mean_latency_us.value, rel=1e-9)
    assert schedule.des.p99_us == pytest.approx(des.p99_us, rel=1e-9)
    # the default answer (the Markov chain of the draws, or the platoon stage) is within the tolerances too
    result = evaluate_network(config, network)
    assert abs(result.iops / des.iops.value - 1.0) <= IOPS_TOLERANCE
    assert abs(result.latency_mean_us / des.mean_latency_us.value - 1.0) <= LATENCY_TOLERANCE
    before = evaluate_network(config, network, solvers=all_but("markov-chain", "platoon-stage"))
    assert before.method == "route-mva" and abs(before.iops / des.iops.value - 1.0) > 0.03


def test_no_schedule_where_the_addresses_decide_who_waits():
    # a 20 us read takes longer than the 14 us the core spaces the requests by: on one die they would queue,
    # on two they queue only when both pick the same one, which the addresses decide
    assert collapsed_schedule(_network(die_us=20.0, copies=2)) is None
    # on a single die nothing is random: the schedule holds, with the die's wait in it
    s = collapsed_schedule(_network(die_us=20.0, copies=1))
    assert s is not None and s.des.station_wait_us["die"] > 0.0


@pytest.mark.parametrize("change", ["read_fraction", "variability", "sizes", "open"])
def test_no_schedule_where_requests_differ(change):
    d = copy.deepcopy(gallery("two-reads-two-dies"))
    if change == "read_fraction":
        d["workload"]["read_fraction"] = 0.7
    elif change == "variability":
        d["variability"] = {"firmware_scv": 0.5}
    elif change == "sizes":
        d["workload"]["request_size_kib"] = {"sizes": [4, 8], "probabilities": [0.5, 0.5]}
    else:
        del d["workload"]["queue_depth"]
        d["workload"]["arrival_iops"] = 50_000.0
    network = build_network(config_from_dict(d))
    assert collapsed_schedule(network) is None
    if change == "open":  # one request alone is the same whether the rest arrive open or closed
        closed = build_network(config_from_dict(gallery("two-reads-two-dies")))
        assert alone_us(network) == pytest.approx(alone_us(closed), rel=1e-12)
    else:
        assert alone_us(network) is None


def test_des_is_not_monotone_in_servers_where_the_schedule_holds():
    # Random design 1537: 4 KiB writes at QD 4 over 4 four-plane dies, three slow cores run complete. A
    # fourth complete core lowers the DES's IOPS by 1.1 % (deterministic FCFS: a different order at the
    # cores). The schedule gives the first exactly; the second has no schedule (the collapsed channels queue).
    # So "adding a server never lowers IOPS" holds for the route MVA (tests/model/test_whatif.py), not for the
    # DES, nor for a model that is exact on it.
    d = random_config(1537, mixed_sizes=False)
    assert d["workload"]["queue_depth"] == 4 and d["workload"]["read_fraction"] == 0.0
    more = copy.deepcopy(d)
    more["controller"]["core_groups"][1]["count"] += 1  # g2 runs complete
    des = [simulate(build_network(config_from_dict(x)), requests=100_000, seed=3).iops.value for x in (d, more)]
    assert des[1] < des[0] * (1 - 0.005)
    schedule = collapsed_schedule(build_network(config_from_dict(d)), requests=100_000)
    assert schedule.throughput_per_us * 1e6 == pytest.approx(des[0], rel=1e-6)
    assert collapsed_schedule(build_network(config_from_dict(more)), requests=100_000) is None


def test_dies_run_event_by_event_where_a_few_multi_plane_dies_hold_the_requests():
    # Seven reads over two four-plane dies hold nearly all N requests at the dies: there the route MVA's waits
    # are too long (its own solve is 3.5 % low); the platoon stage runs the dies event by event and agrees with
    # the DES.
    config = config_from_dict(gallery("reads-over-two-four-plane-dies-at-queue-depth-7"))
    network = build_network(config)
    result = evaluate_network(config, network)
    des = simulate(network, requests=100_000, seed=1)
    assert result.method == "platoon-stage" and result.caveats == ()
    assert abs(result.iops / des.iops.value - 1.0) <= IOPS_TOLERANCE / 3
    assert abs(result.latency_mean_us / des.mean_latency_us.value - 1.0) <= LATENCY_TOLERANCE / 3
    route = solve_route(route_arrays(network, network.loads()), network.queue_depth)
    assert route.throughput_per_us * 1e6 / des.iops.value - 1.0 < -IOPS_TOLERANCE


def test_requests_that_fall_into_step_at_a_busy_core():
    # 4 KiB reads at QD 4, one slow core 95 % busy: the route MVA is 16 % low (it takes the core as reached
    # at random times); the DES's requests queue once at the core and keep it busy. The Markov chain of the
    # requests' draws (the full effort) and the platoon stage (the fast effort: a core group the bottleneck)
    # both have it.
    config = config_from_dict(gallery("reads-in-step-at-one-slow-core"))
    network = build_network(config)
    des = simulate(network, requests=100_000, seed=1)
    route = evaluate_network(config, network, solvers=all_but("markov-chain", "platoon-stage"))
    assert route.method == "route-mva" and route.iops / des.iops.value - 1.0 < -IOPS_TOLERANCE
    chain = evaluate_network(config, network)
    assert chain.method == "markov-chain" and abs(chain.iops / des.iops.value - 1.0) <= IOPS_TOLERANCE
    stage = evaluate_network(config, network, effort="fast")
    assert stage.method == "platoon-stage" and stage.bottleneck.startswith("cores")
    assert abs(stage.iops / des.iops.value - 1.0) <= IOPS_TOLERANCE
    assert abs(stage.latency_mean_us / des.mean_latency_us.value - 1.0) <= LATENCY_TOLERANCE


@pytest.mark.parametrize("seed, read_fraction, route_low_by", [(1895, 1.0, 0.09), (657, 0.0, 0.11)])
def test_requests_in_step_above_queue_depth_8(seed, read_fraction, route_low_by):
    # Uniform designs 1895 (reads) and 657 (writes) at QD 9: the requests fall into step at the slow cores, which
    # the route MVA (about 9 % and 11 % low) takes as reached at random times. The platoon stage answers, a core
    # group the bottleneck, within the tolerances.
    d = random_config(seed, mixed_sizes=False)
    assert d["workload"]["queue_depth"] == 9 and d["workload"]["read_fraction"] == read_fraction
    config = config_from_dict(d)
    network = build_network(config)
    des = simulate(network, requests=100_000, seed=1)
    route = evaluate_network(config, network, solvers=all_but("markov-chain", "platoon-stage"))
    assert route.iops / des.iops.value - 1.0 < -route_low_by
    default = evaluate_network(config, network)
    assert default.method == "platoon-stage" and default.bottleneck.startswith("cores")
    assert abs(default.iops / des.iops.value - 1.0) <= IOPS_TOLERANCE
    assert abs(default.latency_mean_us / des.mean_latency_us.value - 1.0) <= LATENCY_TOLERANCE


@pytest.mark.parametrize("queue_depth", [1, 2])
def test_one_requests_own_schedule_is_its_latency_alone(queue_depth):
    # One request's own schedule (latency_alone_us, which the Markov chain's answers take for the population
    # bound N / R0) is the DES's latency at QD 1 exactly, 36.11 us; the route MVA's X(1) gives 36.16 us. Here
    # nothing drawn matters (one die), so the chain declines and the route MVA answers, within the tolerances.
    d = gallery("eight-kib-reads-through-one-die")
    d["workload"]["queue_depth"] = queue_depth
    config = config_from_dict(d)
    network = build_network(config)
    des = simulate(network, requests=20_000, seed=1)
    alone = simulate(build_network(config_from_dict({**d, "workload": {**d["workload"], "queue_depth": 1}})),
                     requests=20_000, seed=1)
    route_alone = 1.0 / solve_route(route_arrays(network, network.loads()), 1).throughput_by_n[1]
    exact_alone = latency_alone_us(network, route_alone)
    assert exact_alone == pytest.approx(alone.mean_latency_us.value, rel=1e-9)
    assert route_alone > exact_alone * 1.001
    r = evaluate_network(config, network)
    assert r.method == "route-mva" and r.iops / 1e6 <= r.bounds.population_per_us * (1 + 1e-12)
    assert abs(r.iops / des.iops.value - 1.0) <= IOPS_TOLERANCE
    assert abs(r.latency_mean_us / des.mean_latency_us.value - 1.0) <= LATENCY_TOLERANCE
