"""Where the periodic schedule's start depends on the addresses: the chain with its draw-free orbits kept
(schedule_chain.attempt_chain(orbits=True)) tells whether the requests settle in the schedule's orbit, and whatif
answers with the pattern they settle in most often (docs/accuracy.md, per solver)."""

import re

import pytest

from ssdco.model.caveats import start_pattern_caveats
from ssdco.model.queueing.periodic import periodic_schedule
from ssdco.model.queueing.route_mva import request_alone_us
from ssdco.model.queueing.schedule_chain import attempt_chain
from ssdco.model.solvers.schedules import ORBIT_MATCH_TOLERANCE
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import build_network
from ssdco.sim.des import simulate
from ssdco.spec import config_from_dict
from tests.gallery import gallery


def _network(design):
    config = config_from_dict(gallery(design))
    return config, build_network(config)


def test_the_schedule_counts_the_waits_at_collapsed_copies_before_its_period():
    # one request alone never waits; two requests over two dies collide once at the collapsed die on their way
    # into the orbit (where they never wait again); #195's start has one transfer wait at the collapsed channel
    assert periodic_schedule(_network("eight-kib-reads-through-one-die")[1]).start_routed_waits == 0
    assert periodic_schedule(_network("two-reads-two-dies")[1]).start_routed_waits == 1
    assert periodic_schedule(_network("reads-whose-start-collision-picks-their-pattern")[1]).start_routed_waits == 1


def test_without_orbits_the_chain_has_no_answer_where_the_requests_reach_a_draw_free_orbit():
    _, network = _network("reads-whose-start-collision-picks-their-pattern")
    attempt = attempt_chain(network, request_alone_us(network))
    assert attempt.solution is None and not attempt.outgrown


def test_with_orbits_the_chain_finds_the_schedules_orbit_and_a_slower_pattern_each_with_probability_one_half():
    _, network = _network("reads-whose-start-collision-picks-their-pattern")
    schedule = periodic_schedule(network)
    chain = attempt_chain(network, request_alone_us(network), orbits=True).solution
    assert chain is not None and len(chain.patterns) == 2
    (w_slow, x_slow), (w_orbit, x_orbit) = chain.patterns
    # the collision at the start happens where both transfers pick one of the two channels
    assert w_slow == pytest.approx(0.5, abs=1e-9) and w_orbit == pytest.approx(0.5, abs=1e-9)
    assert x_orbit == pytest.approx(schedule.throughput_per_us, rel=ORBIT_MATCH_TOLERANCE)
    assert x_slow / schedule.throughput_per_us - 1.0 == pytest.approx(-0.065, abs=0.005)
    # equally likely: the answer is the slower
    assert chain.throughput_per_us == pytest.approx(x_slow, rel=1e-12)


def test_where_the_only_pattern_is_the_schedules_orbit_the_schedule_answers():
    # four requests that hold a slower convoy for a long while but always end in the schedule's orbit
    # (tests/validation/test_replications.py): the chain has one closed class, the orbit
    config, network = _network("reads-locking-into-start-dependent-patterns")
    schedule = periodic_schedule(network)
    assert schedule.start_routed_waits > 0
    chain = attempt_chain(network, request_alone_us(network), orbits=True).solution
    assert len(chain.patterns) == 1
    assert chain.throughput_per_us == pytest.approx(schedule.throughput_per_us, rel=ORBIT_MATCH_TOLERANCE)
    result = evaluate_network(config, network)
    assert result.method == "periodic-schedule"
    assert result.iops == pytest.approx(schedule.throughput_per_us * 1e6, rel=1e-12)
    # the only caveat: the slower start the requests hold for hundreds of thousands of requests (test_start_pattern)
    start = result.start_pattern
    assert start is not None and start.settle_requests > 100_000 and start.iops < 0.95 * result.iops
    assert result.caveats == start_pattern_caveats(start, result.iops, 4)


@pytest.mark.parametrize("markov_chain", [True, False])
def test_whatif_answers_the_slower_of_two_equally_likely_patterns_and_names_the_schedules(markov_chain):
    config, network = _network("reads-whose-start-collision-picks-their-pattern")
    schedule_iops = periodic_schedule(network).throughput_per_us * 1e6
    result = evaluate_network(config, network,
                              effort="full" if markov_chain else "fast")  # --fast tries the chain's first states
    assert result.method == "markov-chain"
    assert result.iops / schedule_iops - 1.0 == pytest.approx(-0.065, abs=0.005)
    (caveat,) = result.caveats
    assert "the slowest of the most likely ones (50.0% each)" in caveat
    (other,) = re.findall(r"the others are ([\d,]+) IOPS with probability 50.0%", caveat)
    assert float(other.replace(",", "")) == pytest.approx(schedule_iops, rel=ORBIT_MATCH_TOLERANCE)


def test_each_des_run_settles_in_one_of_the_two_patterns_and_both_occur():
    # the DES's seed decides the start's collision: Hypothesis seed 20261294 #195's two 60,000- and
    # 1,000,000-request runs both settled in the slower pattern, where the schedule had said +6.9 %
    _, network = _network("reads-whose-start-collision-picks-their-pattern")
    chain = attempt_chain(network, request_alone_us(network), orbits=True).solution
    patterns = [x * 1e6 for _, x in chain.patterns]
    seen = set()
    for seed in range(8):
        des = simulate(network, requests=20_000, seed=seed).iops
        nearest = min(range(2), key=lambda k: abs(des.value / patterns[k] - 1.0))
        assert abs(des.value / patterns[nearest] - 1.0) < max(2e-3, 2.0 * des.relative_half_width)
        seen.add(nearest)
    assert seen == {0, 1}
