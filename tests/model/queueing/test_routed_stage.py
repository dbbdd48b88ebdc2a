"""The routed stage (ssdco/model/queueing/routed_stage.py): its estimate against exact chains, where it applies,
and how the route MVA and whatif use it."""

import copy
import math
from fractions import Fraction
from itertools import product

import numpy as np
import pytest

from ssdco.model.queueing.routed_stage import RoutedStage, routed_stage_per_us, routed_stages
from ssdco.network.build import build_network
from ssdco.spec import config_from_dict
from tests.gallery import gallery


def _exact_per_slot(population: int, transactions: int, copies: int, servers: int) -> float:
    """Requests per slot of the stage alone with one service time (every service starts at a multiple of it)
    by its exact Markov chain: the state is the requests in arrival order, each the tuple of its transactions
    left per copy (small cases only)."""
    placements = {}
    for draw in product(range(copies), repeat=transactions):  # each equally likely
        left = tuple(draw.count(k) for k in range(copies))
        placements[left] = placements.get(left, 0) + Fraction(1, copies ** transactions)

    def step(state):
        """{next state: probability} and the requests completed in the slot."""
        capacity = [servers] * copies
        kept = []
        for request in state:
            left = list(request)
            for k in range(copies):
                served = min(capacity[k], left[k])
                capacity[k] -= served
                left[k] -= served
            if any(left):
                kept.append(tuple(left))
        done = len(state) - len(kept)
        out = {(tuple(kept), ()): Fraction(1)}
        for _ in range(done):  # the newcomers' placements are independent, so their order does not matter
            grown = {}
            for (keep, new), p in out.items():
                for left, q in placements.items():
                    key = (keep, new + (left,))
                    grown[key] = grown.get(key, 0) + p * q
            out = grown
        nxt = {}
        for (keep, new), p in out.items():
            s = keep + tuple(sorted(new))
            nxt[s] = nxt.get(s, 0) + p
        return nxt, done

    start = tuple(sorted(next(iter(placements)) for _ in range(population)))
    index, order, rows = {start: 0}, [start], []
    while len(rows) < len(order):
        nxt, done = step(order[len(rows)])
        for s in nxt:
            if s not in index:
                index[s] = len(order)
                order.append(s)
        rows.append((nxt, done))
    n = len(order)
    p = np.zeros((n, n))
    for i, (nxt, _) in enumerate(rows):
        for s, q in nxt.items():
            p[i, index[s]] += float(q)
    a = np.vstack([p.T - np.eye(n), np.ones(n)])
    pi = np.linalg.lstsq(a, np.r_[np.zeros(n), 1.0], rcond=None)[0]
    return float(sum(pi[i] * done for i, (_, done) in enumerate(rows)))


def _per_slot(population, transactions, copies, servers, probs=(1.0,), **kwargs) -> float:
    """The estimate in requests per slot: one station, one service time of 1 us (reads only)."""
    sizes = transactions if isinstance(transactions, tuple) else (transactions,)
    stage = RoutedStage("die", copies, servers, 1.0, 1.0, 1.0)
    return routed_stage_per_us(population, sizes, probs, (stage,), **kwargs)


@pytest.mark.parametrize("population, transactions, copies, servers", [
    (2, 1, 2, 1),  # 1.5 per slot: split with probability 1/2 whatever the last slot did
    (3, 2, 2, 1),
    (2, 3, 3, 1),
    (3, 2, 2, 2),
    (4, 1, 3, 1),
])
def test_estimate_matches_the_exact_chain(population, transactions, copies, servers):
    exact = _exact_per_slot(population, transactions, copies, servers)
    # the estimate's standard error is about 0.1 % on these (eight seeds each): four of them
    assert _per_slot(population, transactions, copies, servers) == pytest.approx(exact, rel=0.004)


def test_two_requests_over_two_single_server_copies_complete_one_and_a_half_per_slot():
    assert _exact_per_slot(2, 1, 2, 1) == pytest.approx(1.5, abs=1e-12)


def test_one_copy_or_one_request_is_exact():
    # one copy: always busy, c / T requests per slot; one one-transaction request alone: one per slot
    assert _per_slot(3, 4, 1, 2) == pytest.approx(0.5, rel=1e-9)
    assert _per_slot(1, 1, 8, 1) == pytest.approx(1.0, rel=1e-9)


def test_the_estimate_is_seeded_and_approaches_capacity_as_about_one_over_n():
    a = _per_slot(7, 4, 2, 1)
    assert _per_slot(7, 4, 2, 1) == a  # the same bits every time
    assert _per_slot(7, 4, 2, 1, seed=1) != a
    idle = [1.0 - _per_slot(n, 4, 2, 1) * 4 / 2 for n in (7, 14, 28)]
    assert idle[0] > idle[1] > idle[2] > 0.0
    assert idle[0] / idle[2] == pytest.approx(4.0, rel=0.25)


def test_mixed_sizes_draw_each_requests_transactions():
    mixed = _per_slot(8, (1, 4), 4, 1, probs=(0.5, 0.5))
    assert _per_slot(8, 1, 4, 1) > mixed > _per_slot(8, 4, 4, 1)


def test_reads_and_programs_mixed():
    # a request's transactions share its operation: one slow program holds all of a write's transactions
    def dies(read_fraction):
        return (RoutedStage("die", 12, 3, 50.0, 500.0, read_fraction),)

    reads = routed_stage_per_us(6, (4,), (1.0,), dies(1.0))
    writes = routed_stage_per_us(6, (4,), (1.0,), dies(0.0))
    mixed = routed_stage_per_us(6, (4,), (1.0,), dies(0.7))
    assert reads == pytest.approx(10.0 * writes, rel=1e-9)  # one service time: the same run, 10x as long
    assert writes < mixed < reads
    # no faster than the capacity bound of the mean work, c m / (T E[S])
    assert mixed < 3 * 12 / (4 * (0.7 * 50.0 + 0.3 * 500.0))


def test_dies_feeding_one_channel_hold_it_below_its_capacity():
    # one channel alone, its only copy, is always busy; fed by 8 single-plane dies that the requests pick at
    # random, it idles while no die has a read done (seed 20261212 one-transaction draw 79, rounded: the DES's
    # channel 97 % busy at QD 10, where the route MVA had it at capacity, +3.1 % IOPS)
    channel = RoutedStage("channel", 1, 1, 5.632, 5.632, 1.0)
    dies = RoutedStage("die", 8, 1, 26.1, 723.9, 1.0)
    alone = routed_stage_per_us(10, (1,), (1.0,), (channel,))
    fed = routed_stage_per_us(10, (1,), (1.0,), (dies, channel))
    assert alone == pytest.approx(1.0 / 5.632, rel=1e-9)
    assert 0.95 * alone < fed < 0.99 * alone
    # with instant reads the dies take nothing away
    quick = RoutedStage("die", 8, 1, 1e-6, 1e-6, 1.0)
    assert routed_stage_per_us(10, (1,), (1.0,), (quick, channel)) == pytest.approx(alone, rel=1e-5)


def _stage(**kwargs) -> RoutedStage:
    return RoutedStage(**{"station": "die", "copies": 2, "servers": 1, "read_us": 1.0, "write_us": 2.0,
                          "read_fraction": 0.5, **kwargs})


@pytest.mark.parametrize("kwargs, stages, message", [
    ({"population": 0}, (_stage(),), "population"),
    ({}, (_stage(copies=0),), "copies"),
    ({}, (_stage(servers=0),), "servers"),
    ({"requests": 0}, (_stage(),), "requests"),
    ({}, (_stage(read_fraction=1.5),), "read fraction"),
    ({}, (_stage(write_us=0.0),), "service"),
    ({}, (), "one or two stages"),
    ({"transactions": (0,)}, (_stage(),), ">= 1 transactions"),
    ({"probs": (0.5,)}, (_stage(),), "summing to 1"),
    ({"transactions": (1, 2)}, (_stage(),), "summing to 1"),
    ({}, (_stage(), _stage(station="channel", read_fraction=1.0)), "read fractions differ"),
    ({"think_us": -1.0}, (_stage(),), "think_us"),
    ({"think_us": math.inf}, (_stage(),), "think_us"),
])
def test_bad_arguments_are_refused(kwargs, stages, message):
    args = {"population": 2, "transactions": (1,), "probs": (1.0,), "stages": stages, **kwargs}
    with pytest.raises(ValueError, match=message):
        routed_stage_per_us(**args)


def test_a_think_time_between_completion_and_the_next_arrival():
    # one request: one visit per S + Z; two requests over one single-server die (10 us) behind a 30 us think
    # time meet once, leave it 10 us apart, and never meet again in a 40 us cycle: 2 per 40 us
    one = (RoutedStage("die", 4, 1, 10.0, 10.0, 1.0),)
    assert routed_stage_per_us(1, (1,), (1.0,), one, think_us=30.0) == pytest.approx(1.0 / 40.0, rel=1e-9)
    single = (RoutedStage("die", 1, 1, 10.0, 10.0, 1.0),)
    assert routed_stage_per_us(2, (1,), (1.0,), single, think_us=30.0) == pytest.approx(2.0 / 40.0, rel=1e-9)
    # with more requests than the die can keep apart it is the die's capacity, and a think time only lowers X
    assert routed_stage_per_us(5, (1,), (1.0,), single, think_us=30.0) == pytest.approx(0.1, rel=1e-9)
    dies = (RoutedStage("die", 3, 2, 50.0, 500.0, 0.5),)
    xs = [routed_stage_per_us(6, (1, 2), (0.5, 0.5), dies, think_us=z) for z in (0.0, 20.0, 200.0)]
    assert xs[0] > xs[1] > xs[2]
    assert xs[2] < 6.0 / (200.0 + 0.5 * 50.0 + 0.5 * 500.0)  # N over one request's time alone, at most
    assert routed_stage_per_us(6, (1, 2), (0.5, 0.5), dies, think_us=0.0) == xs[0]


def _network(d):
    return build_network(config_from_dict(d))


def test_where_the_stage_applies():
    d = gallery("reads-over-two-one-die-channels")
    assert [s.station for s in routed_stages(_network(d))] == ["die", "channel"]
    mix = gallery("bursty-read-write-mix")  # reads and programs at the dies
    die, channel = routed_stages(_network(mix))
    assert (die.read_us, die.write_us, die.read_fraction) == (19.8, 875.0, 0.7)
    assert channel.read_us == channel.write_us
    jittered = copy.deepcopy(d)
    jittered["variability"] = {"nand_scv": 0.01}
    assert routed_stages(_network(jittered)) == ()
    opened = copy.deepcopy(d)
    del opened["workload"]["queue_depth"]
    opened["workload"]["arrival_iops"] = 10_000.0
    assert routed_stages(_network(opened)) == ()
    with_ftl = copy.deepcopy(d)
    with_ftl["workload"]["read_fraction"] = 0.7
    with_ftl["ftl"] = {"write_buffer_kib": 2048}  # programs in the background, reads only in the loop
    assert routed_stages(_network(with_ftl)) == ()
