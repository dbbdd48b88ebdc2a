"""The analytic p99 latency estimate (whatif.py, ``_p99_estimate``) against the DES's measured p99.

Measured on uniformly sampled closed designs (ssdco.validation.random_designs.random_config, seeds 0-39,
60,000 DES requests, seed 1), asserted below as measured so a regression fails:

============================  =====================  ================  =================
designs                       within 15 % of the DES  median |error|    before (sum of
                                                                        exponential waits)
============================  =====================  ================  =================
4 KiB                         35 / 40                5.5 %             8 / 40, 25.8 %
4/8/16 KiB (fork-join)        31 / 40                6.7 %             3 / 40, 43.5 %
============================  =====================  ================  =================

(Before the residual's shape came from the third moment of the station's actual service mix, not from
a gamma of the same scv, and before the waits were scaled to the latency's queueing part instead of
shifting the modes: 35 / 40 at a median of 8.1 %, and 33 / 40 at 6.6 %.)

On PM9A3 with its write buffer (150,000 requests), the estimate is within 15 % of the DES on 18 of 23
read/write mixes, queue depths 4-128, open and closed, JESD219 and DFTL (median 8.4 %; before, 7 of 23
at a median of 63 %, as low as -96 %); the misses: +31 % and +17 % at 90 % reads, +21 % open at 190 K
IOPS and 70 % reads, +17 % open at 100 K and 30 % reads, -16 % with JESD219 and a partitioned mapping
cache (-14 % before the varying part of the path went into the gamma, when the DFTL mix was +21 %, now
+4 %; test_configured_service_variability).

What changed: a request is all reads or all writes, so the latency is a mixture of two service paths
(the old single gamma put p99 at the mean on a 70 % read mix, -62 %); in a closed network a station's
queue cannot vary more than the rest of the network can absorb (+130 % on a saturated deterministic
bottleneck); a request's transactions run in parallel, so one transaction's path carries the variance;
and a wait has the M/G/1 shape the route MVA uses. A station's queue also spreads no more than a uniform
split of the network's jobs (before that bound, 32 / 40 and 32 / 40: two saturated dies at QD 27-45 were
+40..+62 %). When the closed model took a request's transactions to share its operation at the dies
(route_mva.py, 1.: the queued siblings bring their operation's work, and a write's programs make the dies'
waits correlated, so the mean latency takes a shorter max over them) the 4/8/16 KiB count went from 32 to
31: design 32 (70 % reads, QD 38) moved from +13 % to +22 %. Its die wait rose from 3 % below the DES's
to 5 % above, and the estimate takes the latency's spread from the station wait, not from the max over
the dies that the mean is scaled to; the model's mean IOPS over the 700 DES comparisons improved (682 to
686 within tolerance), so the bound below was lowered to 31, not the model change dropped. The remaining
misses are the convoy and lockstep designs of test_model_vs_des.py (up to +62 % at QD 2) and a fork-join
at QD 30 (+35 %).
"""

import numpy as np
import pytest

from ssdco import load_config
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import build_network
from ssdco.sim.des import simulate
from ssdco.spec import config_from_dict
from ssdco.validation.random_designs import open_at, random_config
from tests.conftest import PM9A3

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
    # there are (+61.5 % and +61.1 % before the uniform-split bound); measured +13.2 % and +14.0 %
    assert abs(_p99_error(config_from_dict(random_config(seed, mixed)))) <= 0.15


@pytest.mark.slow
@pytest.mark.parametrize("mixed,within,median", [(False, 35, 0.06), (True, 31, 0.08)], ids=["4KiB", "4-16KiB"])
def test_uniformly_sampled_designs(mixed, within, median):
    # measured 35 / 40 (median 5.5 %) and 31 / 40 (median 6.5 %; 32 / 40 before the operation terms of
    # route_mva.py, 1., see the module docstring)
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
    # and 28 with every visit independent: a slow core running three modules in a row was -44 %, then -19 %,
    # now +0.9 %). At 50 %: 40 / 40 and 39 / 40 (28 / 40 for 4/8/16 KiB with one transaction's variance,
    # 16-23 % low with the mean within 6 %)
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
    # Reads queue behind the buffered writes' programs, erases and page transfers (background work the
    # old estimate left out of the wait's shape), and at the buffer's bound a write either returns at once
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
    # mean alone made a gamma of tiny shape: p99 -28..-39 % at 10 % load with NAND scv 2, +6..+30 % at 50 %
    # load; the designs are now within 11.3 % (all 18), where 5 of 18 were within 15 %
    errors = []
    for seed in range(6):
        d = random_config(seed, mixed_sizes=False)
        d["variability"] = dict(variability)
        if load is not None:
            d = open_at(d, load)
        errors.append(_p99_error(config_from_dict(d)))
    assert max(abs(e) for e in errors) <= 0.15, np.round(errors, 3).tolist()
