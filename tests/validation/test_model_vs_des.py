"""The analytic model against the embedded DES on generated closed, deterministic configurations.

Acceptance of the DES issue: on >= 100 Hypothesis-generated small configurations (closed, deterministic
service, mixed core sharing and accelerators) analytic IOPS within 3 % of the DES and mean latency
within 10 %. What the model achieves on this suite's draws is asserted as measured, so a regression fails
(and an improvement should tighten the numbers):

* one transaction per request: all 100 within both tolerances (measured: worst IOPS error +1.83 %, a 70 %-read
  mix at QD 6 answered by the platoon stage; the draws are this suite's only under pytest, whose conftest stops
  Hypothesis harvesting ssdco's literals);
* 8-16 KiB requests (fork-join of 2-4 transactions): all 100 within both tolerances (measured: worst IOPS error
  -1.23 %, 70 %-read 16 KiB requests at QD 29, the route MVA). Where the Markov chain outgrows its budget the
  platoon stage (ssdco/model/queueing/platoon_stage.py) answers; without it one draw misses, +4.60 % (+4.9 to
  +5.2 % against 1,000,000-request runs: 8 KiB 70 %-read requests at QD 4 over four two-plane dies with
  77-times-longer programs, two slow cores, whose chain outgrows 400,000 states even on a grid of 30 % of a
  request's latency). With the stage, that draw and its four neighbours are within 0.5 %.

tests/conftest.py pins these draws against Hypothesis's harvesting of source constants; the draws also change
whenever the source of ``_collect``'s inner function changes, since a derandomized test is seeded from it, and
draws made outside this module differ. ``benchmarks/accuracy.py run --hypothesis SEED`` draws fresh sets
reproducibly. On such sets many of the misses are at QD 2-5: there the chain outgrows its budget on
4-transaction requests at QD 3-5 and on read/program mixes.

Where the route MVA is taken, the misses are configurations where deterministic firmware on slow shared cores
dominates the cycle: requests then travel in convoys or platoons (the DES shows a 2-core group 74 % busy with
5.6 jobs queued on average) and no mean-value model sees that; and read/write mixes with the programs on the
critical path (6 of the 10 misses in 400 draws of these strategies, five with the model 3.6-5.5 % high, one
3.5 % low): fast reads crowd the firmware while writes hold the dies. On the PM9A3 presets below the model is
within 0.3 %. docs/accuracy.md (``benchmarks/accuracy.py``) has the model against the DES on uniformly sampled
designs.
"""

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings

from ssdco import load_config
from ssdco.model.queueing.route_mva import route_arrays, solve_route
from ssdco.model.solvers import all_but
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import build_network
from ssdco.sim.des import simulate
from ssdco.spec import config_from_dict
from ssdco.validation.compare import IOPS_TOLERANCE, LATENCY_TOLERANCE
from ssdco.validation.random_designs import random_config
from tests.conftest import PM9A3
from tests.gallery import gallery
from tests.strategies import CORE_SPECS, accelerator_spec, config_dicts

CONFIGS = 100
DES_REQUESTS = 60_000


def _errors(d: dict, seed: int) -> tuple[float, float]:
    config = config_from_dict(d, source="<generated>")
    network = build_network(config)
    model = evaluate_network(config, network)
    des = simulate(network, requests=DES_REQUESTS, seed=seed)
    return model.iops / des.iops.value - 1.0, model.latency_mean_us / des.mean_latency_us.value - 1.0


def _report(rows) -> str:
    rows = sorted(rows, key=lambda r: -abs(r[0]))
    return "\n".join(f"  IOPS {e_x:+.2%}  latency {e_r:+.2%}  workload {w}" for e_x, e_r, w in rows[:10])


def _collect(strategy) -> list:
    """Errors on CONFIGS distinct configurations drawn by Hypothesis (derandomized: the same set on
    every run, so the statistics below are reproducible)."""
    rows = []

    @settings(max_examples=CONFIGS, derandomize=True, database=None, deadline=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(strategy)
    def run(d):
        e_x, e_r = _errors(d, seed=len(rows))
        rows.append((e_x, e_r, d["workload"]))

    run()
    return rows


def _check(rows, min_within: int, max_iops_error: float):
    within = sum(abs(e_x) <= IOPS_TOLERANCE and abs(e_r) <= LATENCY_TOLERANCE for e_x, e_r, _ in rows)
    worst = max(abs(e_x) for e_x, _, _ in rows)
    message = (f"{within}/{len(rows)} within tolerance, worst IOPS error {worst:.2%}; largest errors:\n"
               f"{_report(rows)}")
    print(message.splitlines()[0])  # the README's figures for the pinned draws: pytest -s shows them
    assert len(rows) >= CONFIGS, message
    assert within >= min_within, message
    assert worst <= max_iops_error, message


@pytest.mark.slow
def test_single_transaction_requests():
    _check(_collect(config_dicts(fixed_size=True)), min_within=100, max_iops_error=IOPS_TOLERANCE)


@pytest.mark.slow
def test_multi_transaction_requests():
    sized = config_dicts().filter(lambda d: d["workload"]["request_size_kib"] > 4)
    _check(_collect(sized), min_within=100, max_iops_error=IOPS_TOLERANCE)


@pytest.mark.parametrize("controller", [f"c{i:02d}" for i in range(1, 11)])
def test_pm9a3_presets_agree(controller):
    config = load_config(PM9A3, controller=controller)
    network = build_network(config)
    model = evaluate_network(config, network)
    des = simulate(network, requests=100_000, seed=1)
    assert abs(model.iops / des.iops.value - 1) <= IOPS_TOLERANCE
    assert abs(model.latency_mean_us / des.mean_latency_us.value - 1) <= LATENCY_TOLERANCE


@pytest.mark.parametrize("queue_depth", [2, 3, 4, 6])
def test_fork_join_on_two_plane_dies_at_low_queue_depth(queue_depth):
    # 8 KiB writes (two transactions) on 4 dies of 2 planes, firmware light: an arriving transaction
    # waits when the others and its own sibling fill its die. Counting requests, not transactions,
    # at the die made the model 8-10 % high here; Erlang C without the own sibling +4..+7 %; now it
    # is within 1.3 % (route_mva.py, fork-join).
    d = {
        "name": "two-plane-dies",
        "nand": {"channels": 1, "ways_per_channel": 2, "dies_per_chip": 2, "planes_per_die": 2,
                 "independent_plane_reads": True, "t_read_us": 34.5, "t_prog_us": 314.3,
                 "channel_rate_mts": 1600.0, "ecc_overhead_fraction": 0.1},
        "host": {"pcie_gen": 3, "pcie_lanes": 4},
        "core_specs": CORE_SPECS,
        "modules": {"parse": {"cycles": 317.0}, "cache_lookup": {"cycles": 1402.0}, "translate": {"cycles": 281.0},
                    "dispatch": {"cycles": 955.0}, "complete": {"cycles": 969.0}},
        "accelerator_specs": {m: accelerator_spec(m) for m in ("cache_lookup", "dispatch")},
        "dram": {"size_gib": 1.0, "background_mw_per_gib": 120.0, "access_energy_nj": 12.8},
        "workload": {"read_fraction": 0.0, "mapping_unit_kib": 4, "request_size_kib": 8,
                     "queue_depth": queue_depth},
        "controller": {"name": "fj", "core_groups": [{"name": "g1", "spec": "slow", "count": 3,
                                                       "modules": ["parse", "translate", "complete"]}],
                       "accelerators": {"cache_lookup": 2, "dispatch": 2}},
    }
    e_x, e_r = _errors(d, seed=queue_depth)
    assert abs(e_x) <= IOPS_TOLERANCE and abs(e_r) <= LATENCY_TOLERANCE, (e_x, e_r)


@pytest.mark.parametrize("seed", [30, 44])
def test_shared_core_group_at_queue_depth_1(seed):
    # 16 KiB requests (four transactions) at QD 1; two slow cores run cache lookup, translate and dispatch
    # (and complete) in a row, so the transactions interleave FCFS and leave in pairs near the end, and
    # then collide at two dies (seed 30, reads) or plane pairs (seed 44, writes). Taking the makespan as
    # one transaction's way plus the largest *expected* stage spread, each step its own stage, the model
    # would be 18.4 % high on both; with the FCFS run and the expected *largest* spread (route_mva.py, 1.) it is
    # +1.7 % and +0.4 %.
    d = random_config(seed, mixed_sizes=True)
    assert d["workload"]["queue_depth"] == 1 and d["workload"]["request_size_kib"] == 16
    e_x, e_r = _errors(d, seed=1)
    assert abs(e_x) <= IOPS_TOLERANCE and abs(e_r) <= LATENCY_TOLERANCE, (e_x, e_r)


@pytest.mark.parametrize("seed", [103, 83])
def test_core_group_running_modules_in_a_row(seed):
    # 4 KiB uniform designs whose core group runs several modules one after another: seed 103, one slow
    # core for parse, cache lookup and translate (reads, QD 5); seed 83, three slow cores for all five
    # modules (70 % reads, QD 12). A request going straight back into the queue it left is no arrival of
    # that queue's stream: counting those visits as arrivals would make the flow look regular at a busy core
    # (its departures are) and give the per-visit scv of unequal modules where the request brings their
    # sum, the model -13.8 % and +4.7 % IOPS; with the feedback merged (route_mva.py, 3.) -0.5 % both.
    d = random_config(seed, mixed_sizes=False)
    assert len(d["controller"]["core_groups"][0]["modules"]) >= 3
    e_x, e_r = _errors(d, seed=1)
    assert abs(e_x) <= IOPS_TOLERANCE and abs(e_r) <= LATENCY_TOLERANCE, (e_x, e_r)


def test_reads_and_programs_mixed_at_the_dies():
    # random design 142: 16 KiB requests at 70 % reads over 2 dies (tR 96 us, tPROG 716 us), QD 5, no write buffer.
    # The others' transactions queued behind their own siblings are mostly programs, and one write's
    # programs land on both dies at once, so the dies' waits are correlated (Network.sibling_work_ratio,
    # Network.copy_work_correlation, route_mva.py, 1.). Taking the queued siblings at the mean service and
    # the dies' waits as independent, the model would be +4.0 % IOPS; with the correlation it is -1.0 %.
    d = random_config(142, mixed_sizes=True)
    assert d["workload"]["read_fraction"] == 0.7 and d["workload"]["request_size_kib"] == 16
    e_x, e_r = _errors(d, seed=1)
    assert abs(e_x) <= IOPS_TOLERANCE and abs(e_r) <= LATENCY_TOLERANCE, (e_x, e_r)


def test_bursty_output_of_mixed_dies_at_a_busy_slow_core():
    # reads queued behind a program leave together when it ends, so requests complete, and the next ones
    # start, in bursts: the DES's inter-start scv is about 2. With the dies' merged output capped at Poisson,
    # the slow core that parses them sees ca2 0.91 (route_mva.py, 3.) and the model is +4.2 % IOPS; with
    # the bursts passed on (ca2 1.4) it is -0.8 %
    d = gallery("bursty-read-write-mix")
    network = build_network(config_from_dict(d))
    des = simulate(network, requests=DES_REQUESTS, seed=1, trace_requests=DES_REQUESTS)
    starts = np.sort(des.trace.start_us)[DES_REQUESTS // 10:]
    gaps = np.diff(starts)
    assert gaps.var() / gaps.mean() ** 2 > 1.5
    e_x, e_r = _errors(d, seed=1)
    assert abs(e_x) <= IOPS_TOLERANCE and abs(e_r) <= LATENCY_TOLERANCE, (e_x, e_r)


def test_others_batches_queue_at_a_one_step_core():
    # a request's four cache lookups reach the one slow core together and queue behind each other: others
    # arriving find those queued too (route_mva.py, 1.). Without that part of the queue the model is +5.7 %
    # IOPS here; with it +2.4 % (the DES's 95 % half-width is 0.9 %)
    e_x, e_r = _errors(gallery("batched-lookups-at-one-slow-core"), seed=1)
    assert abs(e_x) <= IOPS_TOLERANCE and abs(e_r) <= LATENCY_TOLERANCE, (e_x, e_r)


def test_channel_fed_by_deterministic_dies_waits_less_than_behind_poisson_arrivals():
    # 4 KiB reads at QD 18, each channel about 90 % busy behind 8 dies: the dies' deterministic reads space
    # out the transfers, and the DES's channel wait is 21 us where Poisson arrivals gave the model 27 us and
    # -4.4 % IOPS. With the channel's arrivals as its dies' output (route_mva._routed_gamma): -2.2 %.
    d = gallery("channel-bound-reads")
    network = build_network(config_from_dict(d))
    model = evaluate_network(config_from_dict(d), network)
    des = simulate(network, requests=DES_REQUESTS, seed=1)
    channel = next(ld for ld in network.loads() if ld.name == "channel")
    model_wait = model.mean_jobs["channel"] / (model.iops / 1e6 * channel.visits) - channel.service_us
    assert model_wait == pytest.approx(des.station_wait_us["channel"], rel=0.15)
    e_x, e_r = _errors(d, seed=1)
    assert abs(e_x) <= IOPS_TOLERANCE and abs(e_r) <= LATENCY_TOLERANCE, (e_x, e_r)


@pytest.mark.parametrize("design", ["sixteen-kib-reads-waiting-at-dies-and-channels",
                                    "mixed-16k-requests-at-busy-channels"])
def test_excess_waits_at_dies_and_channels_add_as_independent_parts(design):
    # Requests of four transactions that wait at the dies and at the channels: each stage's max over the request's
    # transactions exceeds its mean wait, and added outright those excesses make the route MVA 5.4 % low on
    # 16 KiB reads at QD 12 (dies 46 %, channels 90 % busy; fresh draw 20261225 #117) and 3.3 % low on 70 %-read
    # 16 KiB requests at QD 39 (channels 91 %; 20261227 #123). Where every request does one operation, or the
    # dies or channels are the bottleneck, they add as independent parts (root of the sum of squares,
    # route_mva.stage_wait_correlation): -2.3 % and -1.5 %.
    # (the route MVA's answer: at QD 12 the platoon stage answers by default, whatif.STAGE_MAX_QUEUE_DEPTH, checked
    # at the end)
    config = config_from_dict(gallery(design))
    network = build_network(config)
    model = evaluate_network(config, network, solvers=all_but("platoon-stage"))
    assert model.method == "route-mva"
    des = simulate(network, requests=DES_REQUESTS, seed=1)
    e_x, e_r = model.iops / des.iops.value - 1.0, model.latency_mean_us / des.mean_latency_us.value - 1.0
    assert abs(e_x) <= IOPS_TOLERANCE and abs(e_r) <= LATENCY_TOLERANCE, (e_x, e_r)
    default = evaluate_network(config, network)
    e_x, e_r = default.iops / des.iops.value - 1.0, default.latency_mean_us / des.mean_latency_us.value - 1.0
    assert abs(e_x) <= IOPS_TOLERANCE and abs(e_r) <= LATENCY_TOLERANCE, (default.method, e_x, e_r)
    added = solve_route(replace(route_arrays(network, network.loads()), stage_wait_correlation=1.0),
                        network.queue_depth)
    assert added.throughput_per_us * 1e6 / des.iops.value - 1.0 < -IOPS_TOLERANCE


def test_busy_channels_run_event_by_event_behind_the_rest_of_the_route():
    # 4 KiB reads at QD 14, the channels the busiest stations (74 %; fresh draw 20261218 #213): the route MVA's
    # own solve is 3.6 % low, its channel waits too long. whatif runs the dies and channels event by event behind
    # the rest of the route as a fixed delay (route_mva.stage_behind_rest) and takes that where it is more.
    # (The route MVA's answer: the platoon stage answers by default at QD 14 with the channels the bottleneck,
    # whatif.STAGE_MAX_QUEUE_DEPTH; checked at the end.)
    config = config_from_dict(gallery("reads-at-busy-channels-behind-fast-cores"))
    network = build_network(config)
    model = evaluate_network(config, network, solvers=all_but("platoon-stage"))
    assert model.method == "route-mva" and max(model.utilization, key=model.utilization.get) == "channel"
    des = simulate(network, requests=DES_REQUESTS, seed=1)
    e_x, e_r = model.iops / des.iops.value - 1.0, model.latency_mean_us / des.mean_latency_us.value - 1.0
    assert abs(e_x) <= IOPS_TOLERANCE / 3 and abs(e_r) <= LATENCY_TOLERANCE / 3, (e_x, e_r)
    route = solve_route(route_arrays(network, network.loads()), network.queue_depth)
    assert route.throughput_per_us * 1e6 / des.iops.value - 1.0 < -IOPS_TOLERANCE
    default = evaluate_network(config, network)
    e_x, e_r = default.iops / des.iops.value - 1.0, default.latency_mean_us / des.mean_latency_us.value - 1.0
    assert default.method == "platoon-stage"
    assert abs(e_x) <= IOPS_TOLERANCE / 3 and abs(e_r) <= LATENCY_TOLERANCE / 3, (e_x, e_r)


def test_channels_at_queue_depth_7_below_their_capacity():
    # 16 KiB reads at QD 7 over two channels of one die each: the DES keeps the channels 96 % busy (a channel
    # whose share of the requests' transactions has run out idles while they wait for the other), where the
    # route MVA reaches their capacity c / D and is +4.1 % IOPS. The platoon stage, the default at QD 7, runs the
    # dies and channels event by event and agrees.
    d = gallery("reads-over-two-one-die-channels")
    config = config_from_dict(d)
    network = build_network(config)
    route = evaluate_network(config, network, solvers=all_but("platoon-stage"))
    des = simulate(network, requests=DES_REQUESTS, seed=1)
    assert route.method == "route-mva" and route.iops / des.iops.value - 1.0 > IOPS_TOLERANCE
    stage = evaluate_network(config, network)
    e_x, e_r = stage.iops / des.iops.value - 1.0, stage.latency_mean_us / des.mean_latency_us.value - 1.0
    assert stage.method == "platoon-stage"
    assert abs(e_x) <= IOPS_TOLERANCE and abs(e_r) <= LATENCY_TOLERANCE, (e_x, e_r)
    assert stage.utilization["channel"] == pytest.approx(des.utilization["channel"], abs=0.01)


def test_core_group_serving_a_transaction_in_two_runs_at_queue_depth_1():
    # one fast core runs cache lookup and, after an accelerator's translate, dispatch for each of a 16 KiB
    # request's four transactions: it does all eight steps one after another. Taken as two independent
    # stages (the larger spread alone) the model is +4.9 % IOPS with nobody else in the system; with the
    # core's runs as one (route_mva.own_serialisation_us) +0.6 %
    d = gallery("split-core-runs")
    e_x, e_r = _errors(d, seed=1)
    assert abs(e_x) <= IOPS_TOLERANCE and abs(e_r) <= LATENCY_TOLERANCE, (e_x, e_r)
