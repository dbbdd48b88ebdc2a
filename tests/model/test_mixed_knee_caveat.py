"""whatif's caveat for a core bottleneck short of saturation while reads and programs mix (whatif.trust_caveats).

The caveat is the route MVA's: since 2026-11-29 (twenty-sixth session) the platoon stage answers wherever reads
and programs mix behind a core group (queueing/platoon_stage.py), so these tests ask for the route MVA's answer
(``platoon_stage=False``) and check the stage's against the same DES run."""

import copy

import pytest

from ssdco.model.caveats import MIXED_KNEE_SATURATED_DEPTH_OVER_KNEE, MIXED_KNEE_UTILIZATION, trust_caveats
from ssdco.model.queueing.route_mva import ALL_FEATURES, IDLE_BOUND
from ssdco.model.solvers import all_but
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import build_network
from ssdco.sim.des import simulate
from ssdco.spec import config_from_dict
from ssdco.validation.compare import IOPS_TOLERANCE
from tests.gallery import gallery

LOW, HIGH = MIXED_KNEE_UTILIZATION
KNEES = MIXED_KNEE_SATURATED_DEPTH_OVER_KNEE


def test_the_flagged_design_is_off_the_des_and_says_so():
    config = config_from_dict(gallery("reads-and-programs-at-a-busy-fast-core"))
    network = build_network(config)
    r = evaluate_network(config, network, solvers=all_but("platoon-stage"))
    assert r.method == "route-mva" and r.bottleneck == "cores:g1"
    assert LOW <= r.utilization["cores:g1"] < HIGH
    assert len(r.caveats) == 1 and "reads and programs mix and the bottleneck (cores:g1)" in r.caveats[0]
    des = simulate(network, requests=60_000, seed=1)
    assert r.iops / des.iops.value - 1.0 > IOPS_TOLERANCE  # the reason for the caveat (+8 %)
    # 16 KiB requests, four transactions: since 2026-11-29 the platoon stage forks them and answers (-0.7 %)
    staged = evaluate_network(config, network)
    assert staged.method == "platoon-stage" and staged.caveats == ()
    assert abs(staged.iops / des.iops.value - 1.0) <= IOPS_TOLERANCE


@pytest.mark.parametrize("read_fraction,expected", [(0.0, False), (0.3, True), (0.7, True), (1.0, False)])
def test_only_where_reads_and_programs_mix(read_fraction, expected):
    d = copy.deepcopy(gallery("reads-and-programs-at-a-busy-fast-core"))
    d["workload"]["read_fraction"] = read_fraction
    network = build_network(config_from_dict(d))
    assert bool(trust_caveats(network, 0.0, bottleneck=("cores:g1", 0.85))) == expected


def test_only_a_core_bottleneck_short_of_saturation_with_deterministic_service_and_the_route_mva():
    d = copy.deepcopy(gallery("reads-and-programs-at-a-busy-fast-core"))
    network = build_network(config_from_dict(d))
    assert trust_caveats(network, 0.0, bottleneck=("cores:g1", LOW))
    assert trust_caveats(network, 0.0, bottleneck=("cores:g1", LOW - 0.01)) == ()
    assert trust_caveats(network, 0.0, bottleneck=("cores:g1", HIGH)) == ()  # saturated: within 1 % (docs/accuracy.md)
    assert trust_caveats(network, 0.0, bottleneck=("die", 0.85)) == ()
    assert trust_caveats(network, 0.0, bottleneck=("channel", 0.85)) == ()
    assert trust_caveats(network, 0.0, scheduled=True, bottleneck=("cores:g1", 0.85)) == ()
    d["variability"] = {"nand_scv": 0.01}
    assert trust_caveats(build_network(config_from_dict(d)), 0.0, bottleneck=("cores:g1", 0.85)) == ()
    # an open workload: no caveat from this rule
    d = copy.deepcopy(gallery("reads-and-programs-at-a-busy-fast-core"))
    del d["workload"]["queue_depth"]
    d["workload"]["arrival_iops"] = 50_000.0
    assert trust_caveats(build_network(config_from_dict(d)), 0.0, bottleneck=("cores:g1", 0.85)) == ()


def test_at_capacity_in_the_model_only_under_three_knees():
    # the model's core group at capacity, the queue depth under MIXED_KNEE_SATURATED_DEPTH_OVER_KNEE times the knee
    # N* (N / N* is the population bound over the capacity bound): there the DES's cores still idle in bursts
    network = build_network(config_from_dict(gallery("reads-and-programs-at-a-busy-fast-core")))
    under = trust_caveats(network, 0.0, bottleneck=("cores:g1", 1.0), depth_over_knee=2.9)
    assert len(under) == 1 and "at capacity at queue depth" in under[0] and "2.9 times the knee" in under[0]
    assert trust_caveats(network, 0.0, bottleneck=("cores:g1", HIGH), depth_over_knee=2.0)
    assert trust_caveats(network, 0.0, bottleneck=("cores:g1", 1.0), depth_over_knee=KNEES) == ()
    assert trust_caveats(network, 0.0, bottleneck=("cores:g1", 1.0)) == ()  # not checked
    assert trust_caveats(network, 0.0, bottleneck=("die", 1.0), depth_over_knee=1.5) == ()
    assert trust_caveats(network, 0.0, scheduled=True, bottleneck=("cores:g1", 1.0), depth_over_knee=1.5) == ()
    d = copy.deepcopy(gallery("reads-and-programs-at-a-busy-fast-core"))
    d["workload"]["read_fraction"] = 1.0
    assert trust_caveats(build_network(config_from_dict(d)), 0.0, bottleneck=("cores:g1", 1.0),
                         depth_over_knee=1.5) == ()


def test_a_fresh_draw_at_capacity_under_three_knees_is_flagged_and_the_idle_bound_brings_it_in():
    # Seed 20261215 one-transaction draw 277 of benchmarks/accuracy.py run --hypothesis: 70 % reads at QD 31, the
    # model's slow dispatch-and-translate cores at capacity, 2.5 knees deep; the DES is 5.7 % below the route MVA
    # (1,000,000 requests). Here 100,000 requests. The idle bound (idle_bound.py: the cores idle while every
    # request is held behind programs at the dies) brings the answer within the tolerance; the caveat stays, as 8
    # of the 160 such answers on the development draws still miss (docs/accuracy.md).
    config = config_from_dict(gallery("saturated-mix-under-three-knees"))
    network = build_network(config)
    r = evaluate_network(config, network, solvers=all_but("platoon-stage"))
    before = evaluate_network(config, network, route_features=ALL_FEATURES & ~IDLE_BOUND,
                              solvers=all_but("platoon-stage"))
    assert r.method == before.method == "route-mva" and before.utilization[before.bottleneck] >= HIGH
    ratio = r.bounds.population_per_us / r.bounds.capacity_per_us
    assert 1.0 < ratio < KNEES
    # with the bound's root (2026-11-28, twenty-first session) the group is 96.6 % busy: the caveat's "short of
    # saturation" form flags it (the "at capacity" form did with the linear factor)
    assert LOW <= r.utilization[r.bottleneck] < HIGH
    assert any("reads and programs mix" in c and "short of saturation" in c for c in r.caveats)
    des = simulate(network, requests=100_000, seed=1)
    assert before.iops / des.iops.value - 1.0 > IOPS_TOLERANCE
    assert abs(r.iops / des.iops.value - 1.0) <= IOPS_TOLERANCE
    stage = evaluate_network(config, network)
    assert stage.method == "platoon-stage" and abs(stage.iops / des.iops.value - 1.0) <= IOPS_TOLERANCE
