"""Work conservation at a station a request visits in runs or batches (ssdco/model/queueing/open_runs.py), on small
hand-built open networks whose answers are known in closed form."""

import math

import pytest

from ssdco.model.queueing.open_runs import eligible_stations, run_times
from ssdco.network.build import Network, Station, Step


def _network(steps, servers: int = 1, transactions: int = 4, iops: float = 1.0, extra=()) -> Network:
    stations = (Station("cores:g", "cores", servers), *extra)
    return Network(stations=stations, steps=tuple(steps), read_fraction=1.0, request_bytes=(4096.0 * transactions,),
                   request_probs=(1.0,), transactions=(transactions,), queue_depth=None, arrival_iops=iops)


def _at_load(steps, load: float, servers: int = 1, transactions: int = 4, extra=()) -> Network:
    """The network with its arrival rate set to ``load`` x the core group's capacity."""
    work = sum(s.read_us * (1 if s.per_request else transactions) for s in steps if s.station == "cores:g")
    return _network(steps, servers, transactions, load * servers / work * 1e6, extra)


def _excess(net: Network) -> float:
    return run_times(net, net.loads(), net.arrival_iops / 1e6)["cores:g"].excess_us


@pytest.mark.parametrize("load", [0.3, 0.8])
def test_one_batch_waits_as_mx_d_1(load):
    # four transactions of one module on one core: the batch waits lam E[Y^2] / (2 (1 - rho)), Y = 4 B
    b, t = 20.0, 4
    net = _at_load([Step("translate", "cores:g", False, b, b)], load)
    lam = net.arrival_iops / 1e6
    assert _excess(net) == pytest.approx(lam * (t * b) ** 2 / (2 * (1 - load)), rel=1e-9)


@pytest.mark.parametrize("servers", [2, 3])
def test_a_batch_of_at_least_c_transactions_keeps_every_core_busy(servers):
    # c cores fed batches of 4 >= c: one server c times as fast (M^X/D/1 with service B / c)
    b, t, load = 20.0, 4, 0.8
    net = _at_load([Step("translate", "cores:g", False, b, b)], load, servers=servers)
    lam = net.arrival_iops / 1e6
    assert _excess(net) == pytest.approx(lam * (t * b / servers) ** 2 / (2 * (1 - load)), rel=1e-9)


@pytest.mark.parametrize("load", [0.5, 0.8])
def test_parse_then_the_transactions(load):
    # parse (A, per request) then each transaction's translate (B) in a row on one core: the parse waits
    # W1 = V' - E[U] = (V' - lam T B A) / (1 + lam T B); the transactions wait rho (W1 + A), the work that
    # arrived during the parse's stay
    a, b, t = 1.2, 27.0, 4
    net = _at_load([Step("parse", "cores:g", True, a, a), Step("translate", "cores:g", False, b, b)], load)
    lam = net.arrival_iops / 1e6
    y = a + t * b
    v_all = lam * y * y / (2 * (1 - load))
    w1 = (v_all - lam * t * b * a) / (1 + lam * t * b)
    assert _excess(net) == pytest.approx(w1 + load * (w1 + a), rel=1e-6)


@pytest.mark.parametrize("load", [0.5, 0.8])
def test_two_modules_for_each_transaction(load):
    # cache lookup (B1) then translate (B2) for each of 4 transactions: translate j is released at W1 + j B1,
    # so E[U] = lam B2 (T W1 + B1 T (T + 1) / 2); the last translate finishes after W1, E[U] (the requests
    # ahead release it before) and the cache lookups of the arrivals before its release at W1 + T B1
    b1, b2, t = 24.0, 27.0, 4
    net = _at_load([Step("cache_lookup", "cores:g", False, b1, b1), Step("translate", "cores:g", False, b2, b2)],
                   load)
    lam = net.arrival_iops / 1e6
    y = t * (b1 + b2)
    v_all = lam * y * y / (2 * (1 - load))
    w1 = (v_all - lam * b2 * b1 * t * (t + 1) / 2) / (1 + lam * t * b2)
    unreleased = lam * b2 * (t * w1 + b1 * t * (t + 1) / 2)
    assert _excess(net) == pytest.approx(w1 + unreleased + lam * t * b1 * (w1 + t * b1), rel=1e-6)


def test_visits_far_apart_are_separate_groups_and_near_ones_one():
    # parse, then a pure delay, then translate: a delay shorter than the mean service keeps them one group
    # (the translate waits for the work that arrived during the parse's stay and the delay); a long one
    # (the NAND) makes them independent arrivals, each waiting the time-average work
    a, b, t, load = 10.0, 10.0, 1, 0.6
    def steps(gap):
        return [Step("parse", "cores:g", True, a, a), Step("nand", None, True, gap, gap),
                Step("translate", "cores:g", False, b, b)]
    gap = 1.0
    near, far = (_at_load(steps(g), load, transactions=t) for g in (gap, 1000.0))
    lam = near.arrival_iops / 1e6
    v_independent = lam * (a * a + b * b) / (2 * (1 - load))  # M/D/1 of the two streams
    assert _excess(far) == pytest.approx(2 * v_independent, rel=1e-9)
    v_all = lam * (a + b) ** 2 / (2 * (1 - load))
    w1 = (v_all - lam * b * (a + gap)) / (1 + lam * b)  # the translate is released at W1 + A + gap
    assert _excess(near) == pytest.approx(w1 + load * (w1 + a + gap), rel=1e-6)


def test_groups_are_the_same_for_reads_and_writes():
    # parse, the NAND (a 1 us read, a 1000 us program), translate, at 70 % reads: the read's gap alone would
    # join the two visits and the write's split them, and the schedule of one operation then had a group
    # the other did not (IndexError, found by test_open_workload_stability_matches_utilisation). The gap
    # mixed over the operations (300.7 us, over the mean service) splits them for both: two independent
    # M/D/1 streams, as for a long gap in test_visits_far_apart_are_separate_groups_and_near_ones_one
    a, load = 10.0, 0.6
    steps = (Step("parse", "cores:g", True, a, a), Step("nand", None, True, 1.0, 1000.0),
             Step("translate", "cores:g", True, a, a))
    lam = load / (2 * a)
    net = Network(stations=(Station("cores:g", "cores", 1),), steps=steps, read_fraction=0.7,
                  request_bytes=(4096.0,), request_probs=(1.0,), transactions=(1,), queue_depth=None,
                  arrival_iops=lam * 1e6)
    assert _excess(net) == pytest.approx(2 * lam * 2 * a * a / (2 * (1 - load)), rel=1e-9)


def test_groups_are_the_same_for_every_request_size():
    # parse, a per-byte transfer (1 us for 4 KiB, 16 us for 64 KiB), complete, at 50/50 sizes: the gap at
    # the mean size (8.5 us, under the 10 us mean service) joins the two visits for both sizes, where the
    # large request's own gap split them and the schedules disagreed (IndexError)
    a, load = 10.0, 0.5
    steps = (Step("parse", "cores:g", True, a, a), Step("transfer", None, True, 0.0, 0.0, per_byte_us=16.0 / 65536),
             Step("complete", "cores:g", True, a, a))
    lam = load / (2 * a)
    net = Network(stations=(Station("cores:g", "cores", 1),), steps=steps, read_fraction=1.0,
                  request_bytes=(4096.0, 65536.0), request_probs=(0.5, 0.5), transactions=(1, 1),
                  queue_depth=None, arrival_iops=lam * 1e6)
    assert 0.0 < _excess(net) < math.inf


def test_saturated_station_is_infinite():
    b = 20.0
    net = _network([Step("translate", "cores:g", False, b, b)], iops=1.0 / (4 * b) * 1e6)
    assert math.isinf(_excess(net))


def test_only_single_copy_stations_with_batches_or_several_visits_qualify():
    steps = [Step("parse", "cores:g", True, 1.0, 1.0), Step("pcie", "pcie", True, 2.0, 2.0),
             Step("array", "die", False, 50.0, 50.0, routing="uniform"), Step("complete", "cores:g", True, 1.0, 1.0)]
    extra = (Station("pcie", "link", 1), Station("die", "die", 1, copies=8))
    net = _network(steps, extra=extra, iops=1000.0)
    assert eligible_stations(net, net.loads()) == ("cores:g",)  # two visits; pcie: one visit; die: 8 copies
    one_visit = _network([Step("parse", "cores:g", True, 1.0, 1.0)], iops=1000.0)
    assert eligible_stations(one_visit, one_visit.loads()) == ()


@pytest.mark.parametrize("servers", [2, 3])
def test_one_job_at_a_time_on_c_cores_waits_as_allen_cunneen(servers):
    # a per-transaction step of 4 KiB requests (one job at a time) on c cores: the fast server's wait times
    # C(c, a) / rho, which is the M/D/c wait of Allen-Cunneen, C(c, a) S / (2 (c - a)) (open.py)
    from tests.references import erlang_c

    b, load = 20.0, 0.6
    net = _at_load([Step("translate", "cores:g", False, b, b)], load, servers=servers, transactions=1)
    a = load * servers
    assert _excess(net) == pytest.approx(erlang_c(servers, a) * b / (2 * (servers - a)), rel=1e-9)


def test_path_wait_weight():
    # a transaction's visits per group: parse and translate with a short delay between are one group, whose
    # waits move together in the p99 estimate (weight 3^2); with the NAND between, two groups, whose waits
    # are correlated by exp(-gap / tau): independent 1^2 + 2^2, the same backlog (1 + 2)^2
    from ssdco.model.queueing.open_runs import path_wait_weight

    def steps(gap):
        return [Step("parse", "cores:g", True, 10.0, 10.0), Step("nand", None, True, gap, gap),
                Step("translate", "cores:g", False, 10.0, 10.0), Step("dispatch", "cores:g", False, 10.0, 10.0)]
    near, far = (_network(steps(g), transactions=1, iops=1000.0) for g in (1.0, 1000.0))
    assert path_wait_weight(near, "cores:g", True, 50.0) == pytest.approx(9.0)
    assert path_wait_weight(far, "cores:g", True, 0.0) == pytest.approx(5.0)
    assert path_wait_weight(far, "cores:g", True, 1e12) == pytest.approx(9.0)
    # the zero-load gap from the end of parse to the start of translate is the NAND's 1000 us
    assert path_wait_weight(far, "cores:g", True, 500.0) == pytest.approx(5.0 + 4.0 * math.exp(-2.0))


def test_relaxation_time_of_the_m_m_1_queue():
    # 1 / (mu (1 - sqrt(rho))^2): the slowest rate in the M/M/1 queue's autocorrelation (Abate & Whitt 1988);
    # c servers as one c times as fast; an idle station forgets at once
    from ssdco.model.queueing.open_runs import relaxation_time_us

    assert relaxation_time_us(10.0, 1, 0.81) == pytest.approx(10.0 / 0.1 ** 2)
    assert relaxation_time_us(10.0, 2, 0.81) == pytest.approx(5.0 / 0.1 ** 2)
    assert relaxation_time_us(10.0, 1, 0.0) == 0.0
    assert relaxation_time_us(10.0, 1, 0.5) < relaxation_time_us(10.0, 1, 0.9)


def test_the_jobs_waits_count_the_own_transactions_ahead():
    # a batch of 4 on one core: transaction j waits W1 + (j - 1) B, so the request's jobs wait 4 W1 + 6 B
    b, t, load = 20.0, 4, 0.8
    net = _at_load([Step("translate", "cores:g", False, b, b)], load)
    times = run_times(net, net.loads(), net.arrival_iops / 1e6)["cores:g"]
    assert times.job_wait_us == pytest.approx(t * times.excess_us + 6 * b, rel=1e-9)
