"""Program/erase suspend (``nand.suspend``, ``Station.suspend_program_us``/``suspend_erase_us``): the DES against
preemptive-resume priority (Conway, Maxwell and Miller, "Theory of Scheduling", 1967, ch. 8), the die time the
suspensions take, the open solver against the same closed form, the route MVA against the DES on a mixed drive,
the caveat and the config checks."""

import pytest

from ssdco import evaluate
from ssdco.errors import ConfigError
from ssdco.model.queueing.route_mva import route_arrays, suspended_drain_per_us
from ssdco.model.solvers import context
from ssdco.model.whatif import evaluate_network
from ssdco.network.build import Network, Station, Step, build_network
from ssdco.sim.des import simulate
from ssdco.spec import load_config
from tests.conftest import PM9A3

READ_US, WRITE_US, READ_FRACTION = 1.0, 4.0, 0.7
ARRIVAL_PER_US = 0.4  # utilisation 0.4 x (0.7 x 1 + 0.3 x 4) = 0.76


def one_die(suspend_us: float | None, *, background: bool = False) -> Network:
    """One single-server reads-first die at Poisson arrivals, exponential services; a read suspends a program in
    service after ``suspend_us`` (None: it does not). Foreground: reads and writes queue at the die.
    ``background``: a write's program is the write buffer's background work."""
    die = Station("die", "die", 1, reads_first=True, suspend_program_us=suspend_us)
    if background:
        steps = (Step("read", "die", True, READ_US, 0.0, scv=1.0, ops="read", array="data"),
                 Step("program", "die", False, 0.0, WRITE_US, scv=1.0, ops="write", background=True,
                      array="program"))
    else:
        steps = (Step("op", "die", True, READ_US, WRITE_US, scv=1.0, array="data"),)
    return Network(stations=(die,), steps=steps, queue_depth=None, arrival_iops=ARRIVAL_PER_US * 1e6,
                   read_fraction=READ_FRACTION, request_bytes=(4096.0,), request_probs=(1.0,), transactions=(1,),
                   background_slots=1_000 if background else 0)


def preemptive_resume_us() -> tuple[float, float]:
    """Mean times in system (us) of reads and writes at the one die under preemptive-resume priority: the reads see
    only the reads, T_r = S_r + lambda_r E[S_r^2] / (2 (1 - rho_r)); a write takes S_w / (1 - rho_r) +
    (lambda_r E[S_r^2] + lambda_w E[S_w^2]) / (2 (1 - rho_r)(1 - rho)) (exponential: E[S^2] = 2 S^2)."""
    lam_r, lam_w = ARRIVAL_PER_US * READ_FRACTION, ARRIVAL_PER_US * (1 - READ_FRACTION)
    rho_r, rho = lam_r * READ_US, lam_r * READ_US + lam_w * WRITE_US
    read = READ_US + lam_r * READ_US ** 2 / (1 - rho_r)
    write = WRITE_US / (1 - rho_r) + (lam_r * READ_US ** 2 + lam_w * WRITE_US ** 2) / ((1 - rho_r) * (1 - rho))
    return read, write


def test_the_des_preempts_programs_for_reads():
    read, write = preemptive_resume_us()
    truth = READ_FRACTION * read + (1 - READ_FRACTION) * write
    runs = [simulate(one_die(0.0), requests=400_000, seed=seed) for seed in (1, 2, 3)]
    assert sum(r.mean_latency_us.value for r in runs) / 3 == pytest.approx(truth, rel=0.02)
    assert all(r.suspensions > 0 for r in runs)
    reads_first = simulate(one_die(None), requests=400_000, seed=1)
    assert reads_first.suspensions == 0
    assert abs(reads_first.mean_latency_us.value / truth - 1) > 0.15  # the oracle tells the orders apart


def test_background_programs_are_suspended_in_the_des_and_the_open_solver():
    """The reads meet only the reads: the open solver's answer is the closed form."""
    read, _ = preemptive_resume_us()
    truth = READ_FRACTION * read
    runs = [simulate(one_die(0.0, background=True), requests=400_000, seed=seed).mean_latency_us.value
            for seed in (1, 2, 3)]
    assert sum(runs) / 3 == pytest.approx(truth, rel=0.02)
    model = evaluate_network(load_config(PM9A3, controller="c01"), one_die(0.0, background=True))
    assert model.latency_mean_us == pytest.approx(truth, rel=1e-9)


def test_each_suspension_takes_its_time_at_the_die():
    """Busy time = the reads' and programs' work + suspensions x the suspension time (conservation of work)."""
    tau = 0.3
    des = simulate(one_die(tau), requests=400_000, seed=4)
    lam = des.iops.value / 1e6  # per us
    suspensions_per_us = des.suspensions / des.simulated_time_us
    work = lam * (READ_FRACTION * READ_US + (1 - READ_FRACTION) * WRITE_US) + suspensions_per_us * tau
    assert des.utilization["die"] == pytest.approx(work, rel=0.01)
    assert suspensions_per_us * tau > 0.03  # the suspensions' share is large enough to be seen


def test_the_open_solver_charges_the_suspension_time():
    """A read finding a program in service pays the suspension time: the model is within 5 % of the DES."""
    network = one_die(0.5, background=True)
    des = simulate(network, requests=400_000, seed=5).mean_latency_us.value
    model = evaluate_network(load_config(PM9A3, controller="c01"), network).latency_mean_us
    assert model == pytest.approx(des, rel=0.05)
    assert model > evaluate_network(load_config(PM9A3, controller="c01"), one_die(0.0, background=True)
                                    ).latency_mean_us


def test_the_open_solver_suspends_foreground_programs_as_preemptive_resume():
    """Reads and writes both queue at the die: at a zero suspension time the open solver's answer is the closed
    form of preemptive-resume priority; at 0.3 and 1 us (a read's 30 % and 100 %) it follows the DES, where the
    first-come-first-served split without suspensions would not."""
    read, write = preemptive_resume_us()
    config = load_config(PM9A3, controller="c01")
    exact = evaluate_network(config, one_die(0.0))
    assert exact.latency_mean_us == pytest.approx(READ_FRACTION * read + (1 - READ_FRACTION) * write, rel=1e-9)
    for tau in (0.3, 1.0):
        des = [simulate(one_die(tau), requests=400_000, seed=seed) for seed in (1, 2, 3)]
        des_us = sum(r.mean_latency_us.value for r in des) / 3
        model = evaluate_network(config, one_die(tau))
        assert model.latency_mean_us == pytest.approx(des_us, rel=0.04)
        assert model.utilization["die"] == pytest.approx(des[0].utilization["die"], rel=0.01)
    assert evaluate_network(config, one_die(None)).latency_mean_us < 0.9 * des_us  # the suspensions count


def test_the_route_mva_suspends_a_write_through_drive_s_programs():
    """8 KiB requests, half of them writes, no write buffer, queue depth 128 at c06: the reads suspend the writes'
    programs, whose suspensions take the dies' time; the route MVA follows the DES, and without the suspensions
    (reads first alone) it would be far above it."""
    base = ["nand.independent_plane_reads=false", "nand.die_scheduling='reads_first'", "workload.read_fraction=0.5",
            "ftl.write_buffer_kib=0", "workload.request_size_kib=8", "workload.queue_depth=128"]
    suspend = ["nand.suspend='program_erase'", "nand.t_suspend_program_us=100", "nand.t_suspend_erase_us=500"]
    config = load_config(PM9A3, controller="c06", overrides=base + suspend)
    des = simulate(build_network(config), requests=60_000, seed=1)
    assert des.suspensions > 0
    model = evaluate(config)
    assert model.iops == pytest.approx(des.iops.value, rel=0.03)
    assert evaluate(load_config(PM9A3, controller="c06", overrides=base)).iops > 1.1 * des.iops.value


MIX = ["nand.independent_plane_reads=false", "nand.die_scheduling='reads_first'", "workload.read_fraction=0.7",
       "ftl.write_buffer_kib=65536", "workload.queue_depth=4"]


@pytest.mark.parametrize("suspend_us", [20.0, 100.0])
def test_the_model_against_the_des_at_a_mixed_drive(suspend_us):
    """70 % reads of 4 KiB at queue depth 4 behind a 64 MiB write buffer on the PM9A3 preset: suspending the
    buffer's programs raises the IOPS, and the route MVA follows within 5 % (QD 32: about 10 %, the caveat)."""
    times = [f"nand.t_suspend_program_us={suspend_us}", f"nand.t_suspend_erase_us={5 * suspend_us}"]
    config = load_config(PM9A3, controller="c09", overrides=MIX + ["nand.suspend='program_erase'"] + times)
    plain = load_config(PM9A3, controller="c09", overrides=MIX)
    des = simulate(build_network(config), requests=60_000, seed=1)
    assert des.suspensions > 0
    assert des.iops.value > 1.05 * simulate(build_network(plain), requests=60_000, seed=1).iops.value
    answer = evaluate(config)
    assert answer.iops == pytest.approx(des.iops.value, rel=0.05)
    assert any("suspend programs" in c for c in answer.caveats)
    assert not any("suspend programs" in c for c in evaluate(plain).caveats)


def test_a_default_drive_does_not_suspend():
    config = load_config(PM9A3, controller="c01")
    assert config.nand.suspend == "none"
    assert not build_network(config).station("die").suspends


@pytest.mark.parametrize("overrides, allowed", [
    (["nand.suspend='program'"], "die_scheduling"),
    (["nand.suspend='erase'", "nand.die_scheduling='reads_first'"], "independent_plane_reads"),
    (["nand.suspend='program'", "nand.die_scheduling='reads_first'", "nand.independent_plane_reads=false",
      "nand.die_held_through_transfer=true", "nand.command_us=0.3"], "command_us"),
    (["nand.suspend='always'"], "program_erase"),
    (["nand.t_suspend_program_us=-1"], ">= 0"),
])
def test_bad_suspend_settings_are_refused_by_name(overrides, allowed):
    with pytest.raises(ConfigError, match=rf"nand\.(suspend|t_suspend_program_us).*{allowed}"):
        load_config(PM9A3, controller="c01", overrides=overrides)


def test_where_the_write_buffer_bounds_the_drive_its_flushes_slow_down_by_the_reads_share():
    """QD 32 behind a 2 MiB buffer: the buffer's programs get the die time that the reads and their suspensions
    leave (the shadow server), which holds the IOPS below the dies' capacity; the DES agrees within 3 %."""
    overrides = ["nand.independent_plane_reads=false", "nand.die_scheduling='reads_first'",
                 "workload.read_fraction=0.7", "ftl.write_buffer_kib=2048", "workload.queue_depth=32",
                 "nand.suspend='program_erase'", "nand.t_suspend_program_us=20", "nand.t_suspend_erase_us=100"]
    config = load_config(PM9A3, controller="c09", overrides=overrides)
    network = build_network(config)
    arrays = route_arrays(network, network.loads())
    answer = evaluate(config)
    x_per_us = answer.iops / 1e6
    assert suspended_drain_per_us(arrays, x_per_us) == pytest.approx(x_per_us, rel=1e-3)  # X = drain(X)
    assert arrays.bg_capacity_per_us > 1.5 * x_per_us  # the buffer's runs alone would drain far more
    des = simulate(network, requests=200_000, seed=1)
    assert answer.iops == pytest.approx(des.iops.value, rel=0.03)


def test_the_reported_die_utilisation_counts_the_suspensions():
    """The model's die utilisation is the reads', the programs' and the suspensions' time, as the DES measures it."""
    tau = 0.3
    network = one_die(tau, background=True)
    des = simulate(network, requests=400_000, seed=5)
    model = evaluate_network(load_config(PM9A3, controller="c01"), network)
    work = ARRIVAL_PER_US * (READ_FRACTION * READ_US + (1 - READ_FRACTION) * WRITE_US)
    assert model.utilization["die"] > work + 0.03  # the suspensions' share is there
    assert model.utilization["die"] == pytest.approx(des.utilization["die"], rel=0.02)


def test_the_capacity_bound_counts_the_suspensions():
    """At queue depth 1024 the dies of the write-through drive above are saturated: the DES stays below the model's
    capacity bound, which counts the suspensions' die time (the root of x (D + s x) = c) and lies close to it; c / D
    alone would be far above."""
    overrides = ["nand.independent_plane_reads=false", "nand.die_scheduling='reads_first'",
                 "workload.read_fraction=0.5", "ftl.write_buffer_kib=0", "workload.request_size_kib=8",
                 "workload.queue_depth=1024", "nand.suspend='program_erase'", "nand.t_suspend_program_us=100",
                 "nand.t_suspend_erase_us=500"]
    config = load_config(PM9A3, controller="c06", overrides=overrides)
    des = simulate(build_network(config), requests=60_000, seed=1).iops.value
    model = evaluate(config)
    capacity = model.bounds.capacity_per_us * 1e6
    assert model.bounds.bottleneck == "die"
    assert des <= capacity < 1.05 * des
    ctx = context(build_network(config))
    die = ctx.names.index("die")
    assert ctx.servers[die] / ctx.total_demand_us[die] * 1e6 > 1.15 * des  # without the suspensions' time
