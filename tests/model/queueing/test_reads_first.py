"""Dies serving reads first (``nand.die_scheduling = "reads_first"``, ``Station.reads_first``): the DES's two
queues against non-preemptive priority (Cobham, Oper. Res. 2(1), 1954), the open solver's background behind the
reads, when the order is in effect, which solvers decline it, the caveat, the model against the DES on the MQSim
mix it was built for (``benchmarks/semantics.py reads-first`` measures random designs) and the config field."""

import numpy as np
import pytest

from ssdco import evaluate
from ssdco.errors import ConfigError
from ssdco.model.solvers import answer, context
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import Network, Station, Step, build_network
from ssdco.sim.des import simulate
from ssdco.spec import load_config
from tests.conftest import PM9A3

READ_US, WRITE_US, READ_FRACTION = 1.0, 4.0, 0.7
ARRIVAL_PER_US = 0.4  # utilisation 0.4 x (0.7 x 1 + 0.3 x 4) = 0.76


def one_die(reads_first: bool, *, background: bool = False) -> Network:
    """One single-server die at Poisson arrivals, exponential services. Foreground: reads of READ_US and writes of
    WRITE_US queue at the die. ``background``: a write is acknowledged by a buffer (no wait) and its program is the
    write buffer's background work at the die."""
    die = Station("die", "die", 1, reads_first=reads_first)
    if background:
        steps = (Step("read", "die", True, READ_US, 0.0, scv=1.0, ops="read"),
                 Step("program", "die", False, 0.0, WRITE_US, scv=1.0, ops="write", background=True))
    else:
        steps = (Step("op", "die", True, READ_US, WRITE_US, scv=1.0),)
    return Network(stations=(die,), steps=steps, queue_depth=None, arrival_iops=ARRIVAL_PER_US * 1e6,
                   read_fraction=READ_FRACTION, request_bytes=(4096.0,), request_probs=(1.0,), transactions=(1,),
                   background_slots=1_000 if background else 0)


def cobham_waits_us() -> tuple[float, float]:
    """Mean queueing waits (us) of the reads and the writes at the one die: W_k = R / ((1 - s_{k-1})(1 - s_k)),
    R = sum lambda_i E[S_i^2] / 2 (exponential: E[S^2] = 2 S^2), s_k the load of the classes up to k."""
    lam_r, lam_w = ARRIVAL_PER_US * READ_FRACTION, ARRIVAL_PER_US * (1 - READ_FRACTION)
    residual = lam_r * READ_US ** 2 + lam_w * WRITE_US ** 2
    rho_r, rho = lam_r * READ_US, lam_r * READ_US + lam_w * WRITE_US
    return residual / (1 - rho_r), residual / ((1 - rho_r) * (1 - rho))


def test_the_des_serves_queued_reads_ahead_of_queued_writes():
    read_wait, write_wait = cobham_waits_us()
    truth = READ_FRACTION * (READ_US + read_wait) + (1 - READ_FRACTION) * (WRITE_US + write_wait)
    fcfs_wait = (ARRIVAL_PER_US * (READ_FRACTION * READ_US ** 2 + (1 - READ_FRACTION) * WRITE_US ** 2)
                 / (1 - ARRIVAL_PER_US * (READ_FRACTION * READ_US + (1 - READ_FRACTION) * WRITE_US)))
    fcfs = READ_FRACTION * READ_US + (1 - READ_FRACTION) * WRITE_US + fcfs_wait  # Pollaczek-Khinchine
    runs = [simulate(one_die(True), requests=400_000, seed=seed).mean_latency_us.value for seed in (1, 2, 3)]
    assert sum(runs) / 3 == pytest.approx(truth, rel=0.03)
    assert abs(truth / fcfs - 1) > 0.2  # the oracle tells the two orders apart
    assert simulate(one_die(False), requests=400_000, seed=1).mean_latency_us.value == pytest.approx(fcfs, rel=0.05)


def test_the_open_solver_splits_the_foreground_wait_as_priority_does():
    """Reads and writes both queue at the reads-first die: the open solver's answer is Cobham's."""
    read_wait, write_wait = cobham_waits_us()
    truth = READ_FRACTION * (READ_US + read_wait) + (1 - READ_FRACTION) * (WRITE_US + write_wait)
    model = evaluate_network(load_config(PM9A3, controller="c01"), one_die(True))
    assert model.latency_mean_us == pytest.approx(truth, rel=1e-9)
    fcfs = evaluate_network(load_config(PM9A3, controller="c01"), one_die(False))
    assert fcfs.latency_mean_us > 1.3 * model.latency_mean_us


def test_the_route_mva_follows_the_des_at_a_busy_write_through_drive():
    """16 KiB requests, 70 % reads, no write buffer, queue depth 32: the reads pass the writes' programs at the
    dies; the route MVA's priority split follows the DES, where the first-come-first-served wait stays low."""
    mix = ["workload.read_fraction=0.7", "ftl.write_buffer_kib=0", "workload.request_size_kib=16",
           "workload.queue_depth=32"]
    config = load_config(PM9A3, controller="c09", overrides=mix + ["nand.die_scheduling='reads_first'"])
    network = build_network(config)
    assert network.reads_first_in_effect and not network.background_loads()
    des = sum(simulate(network, requests=100_000, seed=seed).iops.value for seed in (1, 2)) / 2
    model = evaluate(config)
    assert model.method == "route-mva"
    assert model.iops == pytest.approx(des, rel=0.03)
    fcfs = evaluate(load_config(PM9A3, controller="c09", overrides=mix)).iops
    assert fcfs < 0.96 * des  # taking the dies first come first served misses the DES


def test_background_programs_wait_behind_the_reads_in_the_des_and_the_open_solver():
    """Reads meet the other reads and the residual of a program in service (the high class of Cobham's two);
    writes take no time in the foreground."""
    read_wait, _ = cobham_waits_us()
    truth = READ_FRACTION * (READ_US + read_wait)
    runs = [simulate(one_die(True, background=True), requests=400_000, seed=seed).mean_latency_us.value
            for seed in (1, 2, 3)]
    assert sum(runs) / 3 == pytest.approx(truth, rel=0.03)
    model = evaluate_network(load_config(PM9A3, controller="c01"), one_die(True, background=True))
    assert model.latency_mean_us == pytest.approx(truth, rel=1e-9)
    fcfs = evaluate_network(load_config(PM9A3, controller="c01"), one_die(False, background=True))
    assert fcfs.latency_mean_us > 1.5 * model.latency_mean_us  # first come first served: behind the programs too


def test_the_order_is_in_effect_only_where_a_die_serves_reads_and_other_work():
    assert one_die(True).reads_first_in_effect and one_die(True, background=True).reads_first_in_effect
    assert not one_die(False).reads_first_in_effect
    reads = build_network(load_config(PM9A3, controller="c01", overrides=["nand.die_scheduling='reads_first'"]))
    assert reads.station("die").reads_first and not reads.reads_first_in_effect  # reads only: nothing to reorder
    writes = load_config(PM9A3, controller="c01", overrides=["nand.die_scheduling='reads_first'",
                                                               "workload.read_fraction=0.0"])
    assert not build_network(writes).station("channel").reads_first


@pytest.mark.parametrize("suspend", ["none", "program_erase"])
def test_one_request_in_flight_without_a_write_buffer_is_served_in_arrival_order(suspend):
    """At queue depth 1 a write-through drive has one request in flight, all reads or all writes: its die queues
    never hold a read and a program together, so reads first (with or without suspend) is first come first served,
    in the DES event for event and in the model, whose first-come-first-served solvers answer."""
    base = ["workload.read_fraction=0.7", "ftl.write_buffer_kib=0", "workload.request_size_kib=16",
            "workload.queue_depth=1", "nand.independent_plane_reads=false"]
    first = load_config(PM9A3, controller="c01", overrides=base + [
        "nand.die_scheduling='reads_first'", f"nand.suspend='{suspend}'"])
    fcfs = load_config(PM9A3, controller="c01", overrides=base)
    network = build_network(first)
    assert network.station("die").reads_first and not network.reads_first_in_effect
    des_first, des_fcfs = (simulate(build_network(c), requests=4_000, seed=3) for c in (first, fcfs))
    assert des_first.mean_latency_us.value == des_fcfs.mean_latency_us.value
    assert des_first.suspensions == 0
    model_first, model_fcfs = evaluate(first), evaluate(fcfs)
    assert model_first.method == model_fcfs.method != "route-mva"
    assert model_first.iops == model_fcfs.iops
    assert not any("reads ahead" in c for c in model_first.caveats)
    deeper = load_config(PM9A3, controller="c01", overrides=base[:-2] + [
        "workload.queue_depth=2", "nand.die_scheduling='reads_first'"])
    assert build_network(deeper).reads_first_in_effect  # two requests: a read can meet a write's program


MIX = ["nand.die_scheduling='reads_first'", "workload.read_fraction=0.7", "ftl.write_buffer_kib=65536"]


@pytest.mark.parametrize("qd, solver_gone", [(4, "markov-chain"), (1, "exact-convolution")])
def test_solvers_that_run_first_come_first_served_queues_decline(qd, solver_gone):
    config = load_config(PM9A3, controller="c01", overrides=MIX + [f"workload.queue_depth={qd}"])
    ctx = context(build_network(config), effort="exact" if solver_gone == "exact-convolution" else "full")
    found = answer(ctx)
    assert "reads first" in ctx.trace.declined[solver_gone]
    assert found.solver == "route-mva"
    assert any("serve reads ahead of programs" in c for c in evaluate(config).caveats)
    assert not any("reads ahead" in c for c in evaluate(load_config(PM9A3, controller="c01")).caveats)


def test_the_model_against_the_des_at_a_busy_mixed_drive():
    """70 % reads of 4 KiB at queue depth 32 behind a 64 MiB write buffer (the MQSim mix's shape on the PM9A3
    preset): the programs behind the reads raise the IOPS, and the model follows."""
    config = load_config(PM9A3, controller="c09", overrides=MIX + ["workload.queue_depth=32"])
    fcfs = load_config(PM9A3, controller="c09", overrides=MIX[1:] + ["workload.queue_depth=32"])
    des = simulate(build_network(config), requests=60_000, seed=1).iops.value
    des_fcfs = simulate(build_network(fcfs), requests=60_000, seed=1).iops.value
    assert des > 1.03 * des_fcfs
    assert evaluate(config).iops == pytest.approx(des, rel=0.03)


def test_an_unknown_order_is_refused_by_name():
    with pytest.raises(ConfigError, match=r"die_scheduling.*lifo.*reads_first"):
        load_config(PM9A3, controller="c01", overrides=["nand.die_scheduling='lifo'"])


def _completions_per_window(trace, window_us: float = 10_000.0):
    """Requests completed per ``window_us`` window of a DES trace, after its first fifth (the warm-up)."""
    end = np.sort(trace.end_us[np.isfinite(trace.end_us)])
    edges = np.arange(end[len(end) // 5], end[-1], window_us)
    return np.histogram(end, bins=edges)[0]


def test_reads_first_dies_behind_a_first_come_first_served_channel_can_cycle_in_the_des():
    """c10, 16 KiB, half writes, a 64 MiB write buffer, queue depth 128: with the channel first come first served
    the DES falls into a cycle of bursts and stalls (the reads' data wait behind the flushes' transfers while the
    dies, free of reads, flush at full rate) far below the model, and the caveat says so; with the reads' data
    first on the channel (MQSim's order) it runs steadily and the model follows it."""
    base = ["workload.request_size_kib=16", "workload.read_fraction=0.5", "workload.queue_depth=128",
            "ftl.write_buffer_kib=65536", "nand.die_scheduling='reads_first'"]
    cycling = load_config(PM9A3, controller="c10", overrides=base)
    steady = load_config(PM9A3, controller="c10", overrides=base + ["nand.channel_scheduling='data_out_first'"])
    des = {name: simulate(build_network(c), requests=200_000, seed=1, trace_requests=200_000)
           for name, c in (("cycling", cycling), ("steady", steady))}
    assert des["cycling"].iops.value < 0.85 * des["steady"].iops.value
    assert des["cycling"].utilization["die"] < 0.85  # the dies idle through the stalls
    stalls = {name: _completions_per_window(run.trace) for name, run in des.items()}
    assert stalls["cycling"].min() < 0.1 * stalls["cycling"].mean()  # windows where almost nothing completes
    assert stalls["steady"].min() > 0.5 * stalls["steady"].mean()
    assert any("cycle between bursts and stalls" in c for c in evaluate(cycling).caveats)
    model = evaluate(steady)
    assert not any("cycle between bursts and stalls" in c for c in model.caveats)
    assert model.iops == pytest.approx(des["steady"].iops.value, rel=0.03)
