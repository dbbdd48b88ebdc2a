"""FTL effects in the DES: mapping-cache reads on the critical path, background flush/GC work, write buffer.

Model-vs-DES errors measured on mixed read/write workloads (PM9A3 preset, QD32, 100 k requests, seed 1),
asserted below as measured so a regression fails:

=================================================  ==========  ==========
workload                                           IOPS error  latency
=================================================  ==========  ==========
70 % reads, full table, uniform                    -0.5 %      +0.5 %
70 % reads, DFTL f = 0.1, uniform                  +1.4 %      -1.4 %
70 % reads, partitioned f = 0.1, uniform           +0.4 %      -0.4 %
70 % reads, DFTL f = 0.25, JESD219 skew            +0.9 %      -1.0 %
70 % reads, partitioned f = 0.25, JESD219 skew     +0.3 %      -0.3 %
50 % reads, full table, uniform                    +0.7 %      -0.7 %
90 % reads, QD8                                    -0.5 %      +0.5 %
30 % reads, full table, uniform                    +1.0 %      -1.0 %
10 % reads, full table, uniform                    +1.0 %      -1.0 %
write only, full table, uniform                    -0.5 %      +0.7 %
=================================================  ==========  ==========

The background work is an open stream in the model (route_mva.py, item 4), capped by what the write
buffer's closed pool of background jobs can sustain (item 5). 30 % reads was -11.3 % / +12.7 % until
the background fixed point was solved per population (item 4); write only was +6.2 % / -5.7 % without
the write-buffer cap, where randomly placed flushes leave some dies idle while the buffer is full.
The partitioned mapping cache at f = 0.1 was -5.3 % (and -6.6 % with the JESD219 mix) while the closed
queue carried the background's share of the wait as well (item 4). Every case is now held to the
acceptance tolerance, 3 %.
"""

import numpy as np
import pytest

from ssdco import load_config
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import build_network
from ssdco.sim.des import NAND_HIST, simulate
from tests.conftest import PM9A3

REQUESTS = 100_000


def pm9a3(*overrides):
    return load_config(PM9A3, overrides=list(overrides))


def run(*overrides, requests=REQUESTS, seed=1):
    c = pm9a3(*overrides)
    net = build_network(c)
    return c, net, simulate(net, requests=requests, seed=seed)


MIXED = ("workload.read_fraction=0.7", "ftl.cache_fraction=0.1")


def test_partitioned_cache_bounds_reads_to_two_nand_operations_and_cuts_the_tail():
    _, _, dftl = run(*MIXED, 'ftl.mapping="dftl"')
    _, _, part = run(*MIXED, 'ftl.mapping="partitioned"')
    # die visits per read transaction: data read, + mapping read on a miss (+ DFTL's write-back)
    assert part.nand_ops_per_read_tx[3:].sum() == 0
    assert part.nand_ops_per_read_tx[2] > 0  # misses do happen
    assert dftl.nand_ops_per_read_tx[3] > 0  # a DFTL read behind a dirty eviction: write-back + 2 reads
    assert len(dftl.nand_ops_per_read_tx) == NAND_HIST
    # the reference study's claim: the partitioned cache's read tail is shorter
    assert part.read_latency_percentiles_us[99.9] < dftl.read_latency_percentiles_us[99.9]
    assert part.read_latency_percentiles_us[99.9] < 0.7 * dftl.read_latency_percentiles_us[99.9]


def test_full_table_reads_need_one_nand_operation():
    _, _, d = run("workload.read_fraction=0.7")
    assert d.nand_ops_per_read_tx[1] == d.nand_ops_per_read_tx.sum() > 0


def test_background_work_is_on_the_stations_but_not_on_the_write_path():
    c, net, d = run("workload.read_fraction=0.0", "workload.queue_depth=1", requests=20_000)
    assert d.mean_latency_us.value < c.nand.t_prog_us / 4  # acknowledged from the buffer
    assert d.utilization["die"] > 0.05  # programs, GC copies and erases run in the background
    assert d.step_visits_per_s["bg_program"] > 0 and d.step_visits_per_s["bg_transfer"] > 0
    assert d.read_latency_percentiles_us is None


def test_full_write_buffer_pushes_back_to_program_throughput():
    c, net, d = run("workload.read_fraction=0.0", "workload.queue_depth=64", "ftl.write_buffer_kib=64",
                    requests=40_000)
    m = evaluate_network(c, net)
    bound = m.bounds.capacity_per_us * 1e6  # dies x servers x units per program / (tPROG x WAF)
    assert d.iops.value <= bound * 1.01
    _, _, big = run("workload.read_fraction=0.0", "workload.queue_depth=64", requests=40_000)
    assert d.iops.value < big.iops.value <= bound * 1.01  # a smaller buffer never helps
    assert big.utilization["die"] > 0.85  # the dies, not the host path, limit sustained writes


@pytest.mark.parametrize("overrides", [
    ("workload.read_fraction=0.0", "workload.queue_depth=4"),  # measured +0.1 %
    ("workload.read_fraction=0.7", "workload.queue_depth=32"),  # +0.2 %
    ("workload.read_fraction=0.3", "workload.request_size_kib=16", "workload.queue_depth=8"),  # +2.1 %
])
def test_no_write_buffer_is_write_through(overrides):
    # write_buffer_kib = 0: every write waits for its own NAND work (programs, GC copies, erases), which is
    # then on the critical path like any other step. It used to leave one background slot: a write-only
    # QD 4 run was +2.2 %, 70 % reads at QD 32 +27 % and 16 KiB writes -68 % against that DES
    c, net, d = run(*overrides, "ftl.write_buffer_kib=0", requests=40_000)
    assert net.background_slots == 0 and not any(s.background for s in net.steps)
    assert any(s.label == "bg_program" and s.ops == "write" for s in net.steps)
    m = evaluate_network(c, net)
    assert m.iops == pytest.approx(d.iops.value, rel=0.03)
    assert m.latency_mean_us == pytest.approx(d.mean_latency_us.value, rel=0.10)
    _, _, buffered = run(*overrides, requests=40_000)
    assert d.iops.value < buffered.iops.value  # the buffer takes the programs off the critical path


def test_same_seed_same_result_with_background_clones():
    _, _, a = run(*MIXED, 'ftl.mapping="dftl"', requests=20_000, seed=3)
    _, _, b = run(*MIXED, 'ftl.mapping="dftl"', requests=20_000, seed=3)
    _, _, c = run(*MIXED, 'ftl.mapping="dftl"', requests=20_000, seed=4)
    assert a.fingerprint() == b.fingerprint() != c.fingerprint()
    assert np.array_equal(a.nand_ops_per_read_tx, b.nand_ops_per_read_tx)


CASES = [
    (("workload.read_fraction=0.7",), 0.03, 0.03),
    (("workload.read_fraction=0.7", 'ftl.mapping="dftl"', "ftl.cache_fraction=0.1"), 0.03, 0.03),
    # measured +0.4 % (-5.3 % before the closed queue left out the background's share, route_mva.py 4.)
    (("workload.read_fraction=0.7", 'ftl.mapping="partitioned"', "ftl.cache_fraction=0.1"), 0.03, 0.03),
    (("workload.read_fraction=0.7", 'ftl.mapping="dftl"', "ftl.cache_fraction=0.25",
      'workload.address_pattern="jesd219"'), 0.03, 0.03),
    (("workload.read_fraction=0.7", 'ftl.mapping="partitioned"', "ftl.cache_fraction=0.25",
      'workload.address_pattern="jesd219"'), 0.03, 0.03),
    (("workload.read_fraction=0.5",), 0.03, 0.03),
    (("workload.read_fraction=0.9", "workload.queue_depth=8"), 0.03, 0.03),
    (("workload.read_fraction=0.3",), 0.03, 0.03),
    (("workload.read_fraction=0.1",), 0.03, 0.03),
    (("workload.read_fraction=0.0",), 0.03, 0.03),
]


@pytest.mark.parametrize("overrides,iops_tol,latency_tol", CASES, ids=[" ".join(c[0]) for c in CASES])
def test_model_agrees_with_des_on_mixed_workloads(overrides, iops_tol, latency_tol):
    c, net, d = run(*overrides)
    m = evaluate_network(c, net)
    e_x = m.iops / d.iops.value - 1
    e_r = m.latency_mean_us / d.mean_latency_us.value - 1
    assert abs(e_x) <= iops_tol, f"IOPS model {m.iops:,.0f} vs DES {d.iops.value:,.0f} ({e_x:+.2%})"
    assert abs(e_r) <= latency_tol, f"latency model {m.latency_mean_us:.1f} vs DES {d.mean_latency_us.value:.1f}"
    # the background work is in both: the die's utilisation agrees too
    assert m.utilization["die"] == pytest.approx(d.utilization["die"], rel=0.15)


SMALL_BUFFER_CASES = [  # measured (the accuracy campaign's pm9a3-buffer grid): before the chain of slots | with it
    ("ftl.write_buffer_kib=16", "workload.read_fraction=0.7", "workload.queue_depth=1"),  # +56.4 % | +1.1 %
    ("ftl.write_buffer_kib=16", "workload.read_fraction=0.7", "workload.queue_depth=4"),  # +45.1 % | +1.8 %
    ("ftl.write_buffer_kib=16", "workload.read_fraction=0.7", "workload.request_size_kib=16",
     "workload.queue_depth=32"),  # -42.9 % | -1.0 %
    ("ftl.write_buffer_kib=256", "workload.read_fraction=0.7", "workload.request_size_kib=16",
     "workload.queue_depth=32"),  # +11.7 % | +0.4 %
]


@pytest.mark.parametrize("overrides", SMALL_BUFFER_CASES, ids=[" ".join(c) for c in SMALL_BUFFER_CASES])
def test_model_agrees_with_des_with_a_write_buffer_of_a_few_slots(overrides):
    # 4 or 64 slots: writes find the buffer full at any load and do their flush themselves; the model's chain
    # of the buffer's slots (model/queueing/write_buffer.py) holds these to the acceptance tolerance. Others of the
    # grid stay off (docs/accuracy.md, caveats on the misses), and whatif flags them all.
    c, net, d = run(*overrides, requests=40_000)
    m = evaluate_network(c, net)
    assert m.iops == pytest.approx(d.iops.value, rel=0.03)
    assert m.latency_mean_us == pytest.approx(d.mean_latency_us.value, rel=0.10)


@pytest.mark.parametrize("read_fraction,mapping,rate", [(0.7, "full", 200_000), (0.7, "partitioned", 200_000),
                                                         (0.3, "full", 200_000)])
def test_open_mixed_workload_latency_agrees(read_fraction, mapping, rate):
    """Open arrivals: background work as a second Poisson class of the M/G/c stations (open.py).
    Measured: +0.7 %, +1.6 %, +0.4 % mean-latency error."""
    import tomllib

    from ssdco.spec import config_from_dict

    raw = tomllib.loads(PM9A3.read_text())
    w = {k: v for k, v in raw["workload"].items() if k != "queue_depth"}
    raw["workload"] = {**w, "read_fraction": read_fraction, "arrival_iops": rate}
    raw["ftl"] = {**raw["ftl"], "mapping": mapping, "cache_fraction": 1.0 if mapping == "full" else 0.1}
    c = config_from_dict(raw, source=str(PM9A3), base_dir=PM9A3.parent)
    net = build_network(c)
    m = evaluate_network(c, net)
    d = simulate(net, requests=REQUESTS, seed=1)
    assert m.latency_mean_us == pytest.approx(d.mean_latency_us.value, rel=0.04)
    assert m.utilization["die"] == pytest.approx(d.utilization["die"], rel=0.03)


JESD219_CASES = [
    (("workload.read_fraction=0.5",), 0.03),  # measured +0.3 % IOPS, -0.3 % latency (-6.9 % before item 4's fix)
    # +1.1 % (-6.6 % before the closed queue left out the background's share, route_mva.py 4.)
    (("workload.read_fraction=0.7", 'ftl.mapping="partitioned"', "ftl.cache_fraction=0.1"), 0.03),
    # +2.6 %, the closest to the tolerance (+1.0 % before route_mva.py 1. took the fork-join max of the
    # waits over the dies a request occupies instead of over its transactions: JESD219 has requests of up
    # to 16 transactions, over fewer distinct dies)
    (("workload.read_fraction=0.7", 'ftl.mapping="dftl"', "ftl.cache_fraction=0.1"), 0.03),
    (("workload.read_fraction=0.0",), 0.03),  # -1.3 % (+5.5 % without the write-buffer cap)
]


@pytest.mark.parametrize("overrides,tol", JESD219_CASES, ids=[" ".join(c[0]) for c in JESD219_CASES])
def test_model_agrees_with_des_on_the_jesd219_workload(overrides, tol):
    """JESD219 transfer-size mix (0.5-64 KiB: fork-join of up to 16 transactions, read-modify-write of
    sub-4 KiB writes) and its 50/30/20 % LBA skew, in both the model and the DES."""
    from tests.model.test_ftl import jesd219

    c = jesd219(*overrides)
    net = build_network(c)
    m = evaluate_network(c, net)
    d = simulate(net, requests=REQUESTS, seed=1)
    assert m.iops == pytest.approx(d.iops.value, rel=tol)
    assert m.latency_mean_us == pytest.approx(d.mean_latency_us.value, rel=tol + 0.01)


def test_open_workload_beyond_the_write_bound_is_refused():
    import tomllib

    from ssdco.sim.des import DesError
    from ssdco.spec import config_from_dict

    raw = tomllib.loads(PM9A3.read_text())
    w = {k: v for k, v in raw["workload"].items() if k != "queue_depth"}
    raw["workload"] = {**w, "read_fraction": 0.0, "arrival_iops": 400_000}  # above program throughput / WAF
    c = config_from_dict(raw, source=str(PM9A3), base_dir=PM9A3.parent)
    net = build_network(c)
    assert not evaluate_network(c, net).stable
    with pytest.raises(DesError, match="die"):
        simulate(net, requests=10_000, seed=1)
