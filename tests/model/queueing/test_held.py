"""A die held through its transfer (``nand.die_held_through_transfer``, ``Step.hold_through``) in the analytic model:
the closed form where one is known, agreement with the DES on the PM9A3 presets, which solvers answer and which
decline, and that the field changes nothing where it is off."""

import pytest

from ssdco.model.queueing.erlang import machine_repairman
from ssdco.model.queueing.held import absorbed, finite_source_wait_us, release_waits_us
from ssdco.model.queueing.routed_stage import routed_stage_per_us, routed_stages
from ssdco.model.solvers import answer, context
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import Network, Station, Step, build_network
from ssdco.sim.des import simulate
from ssdco.spec import load_config

HOLD = "nand.die_held_through_transfer=true"


def nand_only(qd: int, *, dies: int = 1, t_read_us: float = 50.0, transfer_us: float = 20.0, hold: bool = True,
              arrival_iops: float | None = None) -> Network:
    """Dies on one channel and nothing else: a read's array time, then its transfer."""
    return Network(stations=(Station("die", "die", 1, dies), Station("channel", "channel", 1, 1)),
                   steps=(Step("nand_array", "die", False, t_read_us, t_read_us, routing="uniform",
                               hold_through="nand_transfer" if hold else ""),
                          Step("nand_transfer", "channel", False, transfer_us, transfer_us, routing="die_channel")),
                   read_fraction=1.0, request_bytes=(4096.0,), request_probs=(1.0,), transactions=(1,),
                   queue_depth=qd, arrival_iops=arrival_iops)


@pytest.mark.parametrize("qd", [1, 2, 8, 64])
def test_one_held_die_serves_a_read_per_array_and_transfer(qd):
    """One die, one channel: held, the die and its channel work one read at a time, 70 us each, so X = 1 / 70 per
    us and the latency QD x 70 us at any queue depth (exact)."""
    found = answer(context(nand_only(qd)))
    assert found.throughput_per_us == pytest.approx(1 / 70.0, rel=1e-9)
    assert found.response_us == pytest.approx(qd * 70.0, rel=1e-9)


def test_held_dies_hold_x_to_what_the_des_measures():
    """Four dies on a channel at QD 32, the dies the busiest: the routed stage runs them held (the DES's X)."""
    network = nand_only(32, dies=4)
    des = simulate(network, requests=100_000, seed=1)
    assert answer(context(network)).throughput_per_us * 1e6 == pytest.approx(des.iops.value, rel=0.01)


def test_the_release_wait_is_the_finite_source_queue_of_the_holders():
    """A channel behind K held dies is a machine-repairman queue of K sources: for exponential transfers its wait
    at a given utilisation is that queue's response less one transfer (exact), none with K <= servers, all K - 1
    others ahead at full utilisation (times (1 + scv) / 2: half of that for deterministic transfers)."""
    for think in (0.5, 2.0, 20.0):
        x, response = machine_repairman(4, think, 1.0)
        assert finite_source_wait_us(4, 1, x * 1.0, 1.0, 1.0) == pytest.approx(response - 1.0, rel=1e-6)
    assert finite_source_wait_us(1, 1, 0.9, 1.0, 1.0) == 0.0
    network = nand_only(64, dies=4)
    assert release_waits_us(network, network.loads(), 1.0)["channel"] == pytest.approx(0.5 * 3 * 20.0)
    assert release_waits_us(nand_only(1, dies=4), network.loads(), 1.0)["channel"] == 0.0  # no one else at QD 1


def test_absorbing_a_hold_moves_the_transfer_into_the_die():
    flat = absorbed(nand_only(8), {"channel": 5.0})
    assert [s.label for s in flat.steps] == ["nand_array"]  # the busy time of the die alone
    assert flat.steps[0].read_us == pytest.approx(50.0 + 20.0 + 5.0) and not flat.steps[0].hold_through


def test_the_stage_runs_the_die_held():
    """The routed stage keeps the hold: one die and its channel alone serve a read per 70 us."""
    stages = routed_stages(nand_only(4))
    assert stages[0].hold and not stages[1].hold
    assert routed_stage_per_us(4, (1,), (1.0,), stages, requests=2_000) == pytest.approx(1 / 70.0, rel=1e-9)


def test_solvers_that_do_not_hold_a_server_decline():
    ctx = context(nand_only(4))
    found = answer(ctx)
    assert found.solver == "route-mva"
    assert "held" in ctx.trace.declined["markov-chain"]
    exact = context(nand_only(4), effort="exact")
    assert answer(exact).solver == "route-mva"
    assert "product form" in exact.trace.declined["exact-convolution"]


def test_an_open_workload_with_a_held_die():
    """Open arrivals at a tenth of one held die's capacity: the latency is a little over the 70 us of a read alone,
    as the DES measures."""
    network = nand_only(None, arrival_iops=1e6 / 700.0)
    des = simulate(network, requests=100_000, seed=3)
    found = answer(context(network))
    assert found.solver == "open-mgc-allen-cunneen"
    assert found.response_us == pytest.approx(des.mean_latency_us.value, rel=0.03)


@pytest.mark.parametrize("controller, overrides", [
    ("c01", ["workload.queue_depth=4"]), ("c01", ["workload.queue_depth=32"]), ("c01", ["workload.queue_depth=128"]),
    ("c05", ["workload.queue_depth=32", "workload.read_fraction=0.7"]),
    ("c09", ["workload.queue_depth=4", "workload.request_size_kib=16"]),
    ("c09", ["workload.queue_depth=128"]),
])
def test_pm9a3_with_held_dies_agrees_with_the_des(pm9a3_path, controller, overrides):
    """The PM9A3 presets with the dies held through their transfers: the analytic IOPS within 3 % of the DES's."""
    config = load_config(str(pm9a3_path), controller=controller, overrides=[HOLD, *overrides])
    network = build_network(config)
    assert network.holds
    des = simulate(network, requests=100_000, seed=1)
    assert evaluate_network(config, network).iops == pytest.approx(des.iops.value, rel=0.03)


def test_the_field_off_builds_no_hold(pm9a3_path):
    assert not build_network(load_config(str(pm9a3_path), controller="c01")).holds
    held = build_network(load_config(str(pm9a3_path), controller="c01", overrides=[HOLD]))
    assert [held.steps[h].label for h, _ in held.holds] == ["nand_array"]


def command_first(qd: int, *, dies: int = 1, command_us: float = 1.0) -> Network:
    """The NAND steps with a command: the die picked and held, its command on the channel, tR, the transfer."""
    return Network(stations=(Station("die", "die", 1, dies), Station("channel", "channel", 1, 1)),
                   steps=(Step("nand_die", "die", False, 0.0, 0.0, routing="uniform", hold_through="nand_transfer"),
                          Step("nand_command", "channel", False, command_us, command_us, routing="die_channel"),
                          Step("nand_array", None, False, 50.0, 50.0),
                          Step("nand_transfer", "channel", False, 20.0, 20.0, routing="die_channel")),
                   read_fraction=1.0, request_bytes=(4096.0,), request_probs=(1.0,), transactions=(1,),
                   queue_depth=qd, arrival_iops=None)


@pytest.mark.parametrize("qd", [1, 2, 8])
def test_a_die_held_from_its_command_serves_a_read_per_command_array_and_transfer(qd):
    """One die, one channel, a 1 us command: a read per 1 + 50 + 20 = 71 us, in the DES and the model alike."""
    des = simulate(command_first(qd), requests=5_000)
    assert des.iops.value == pytest.approx(1e6 / 71.0, rel=1e-9)
    found = answer(context(command_first(qd)))
    assert found.throughput_per_us == pytest.approx(1 / 71.0, rel=1e-9)
    assert found.response_us == pytest.approx(qd * 71.0, rel=1e-9)


def test_two_dies_wait_for_the_channel_to_send_their_commands():
    """Two dies on one channel, QD 2, both picked at 0: commands 0-1 and 1-2, arrays 1-51 and 2-52, transfers 51-71
    and 71-91 (the second die held while it waits): latencies 71 and 91 us."""
    for seed in range(20):
        r = simulate(command_first(2, dies=2), requests=2, trace_requests=2, warmup_fraction=0.0, batches=2, seed=seed)
        if r.trace.tx_copy[0, 0] != r.trace.tx_copy[1, 0]:
            assert sorted(r.trace.latency_us) == pytest.approx([71.0, 91.0])
            return
    raise AssertionError("no seed put the two reads on different dies")


def test_the_command_needs_the_hold_and_builds_its_steps(pm9a3_path):
    from ssdco.errors import ConfigError

    with pytest.raises(ConfigError, match="die_held_through_transfer"):
        load_config(str(pm9a3_path), controller="c01", overrides=["nand.command_us=0.3"])
    config = load_config(str(pm9a3_path), controller="c01", overrides=[HOLD, "nand.command_us=0.3"])
    network = build_network(config)
    labels = [s.label for s in network.steps]
    assert labels[labels.index("nand_die"):labels.index("nand_transfer") + 1] == [
        "nand_die", "nand_command", "nand_array", "nand_transfer"]
    des = simulate(network, requests=100_000, seed=1)
    assert evaluate_network(config, network).iops == pytest.approx(des.iops.value, rel=0.03)

