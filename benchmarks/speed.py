"""Speed benchmarks, one part per component, each measured in this run beside what it is compared with.

    python benchmarks/speed.py [PART ...] [--quick]

Parts (all by default, in this order):

* ``whatif``: one full evaluation of the PM9A3 preset (config -> network -> solver -> power) and a batch of closed
  networks solved by the vectorised MVA kernel, against the same networks solved one at a time (goals: <= 1 ms per
  evaluation, >= 100 k configurations/s batched).
* ``write-buffer``: the write buffer's throughput bound (``route_mva.write_buffer_capacity``), the product-form
  network of the buffer's background runs solved by the log-space convolution (O(N^2 log m)) and by the tilted FFT
  convolution (O(N log N log m), used above ``route_mva.FFT_MIN_POPULATION`` jobs), on the PM9A3 write-only network
  for write buffers of 2-64 MiB, and ``whatif``'s time end to end.
* ``des``: the embedded DES beside SimPy and ciw (the ``bench`` extra) on a network all three express directly: an
  open tandem of 5 single-server FCFS stations with exponential service (means 0.5, 0.7, 0.6, 0.8, 0.4 us) fed by
  Poisson arrivals at 1 per us. Events are counted the same way for all three: 6 per completed customer (its
  arrival and its 5 service completions); for our DES that equals its heap pops, up to the customers still in
  flight at the end. Each also reports the mean sojourn time, which must agree with the Jackson network's
  sum 1 / (mu_i - lambda). Then our DES on the PM9A3 c01 network, where an event is one heap pop. Numba
  compilation is excluded; the Python-side set-up and analysis of each run are included.
* ``ftlsim``: the functional FTL simulator (``ssdco.sim.ftlsim``), host page writes per second (every host write
  the run applies: precondition, warm-up and measured window, address generation included), and the mapping
  caches' requests per second.
* ``optimize``: ``ssdco optimize`` on the PM9A3 preset: the exact optimum of the linear model by the ILP against
  brute-force enumeration, the full verified search (ILP + analytic model + DES) for the study's targets, and
  ``optimize`` against ``optimize --fast`` at low queue depths, where the Markov chain makes each verification cost
  up to seconds.
* ``optimize-large``: the exact optimum over spaces of 10^7-10^8 designs (up to 16 cores per group and 4
  accelerator units; up to 8 cores per group over nine NAND geometries): the space's size, how many designs the
  model evaluated (the ILP's bounds prune the rest), the ILP solves and the time (goal: >= 10 M designs in
  <= 10 s on one core).
* ``schedule-chain``: exploring the Markov chain of the requests' draws (``queueing/schedule_chain.py``) with its
  kernels as they are (compiled without numba's reference counting, ``_nrt=False``) against the same source
  compiled with counting, on uniform designs at queue depth 2-5, both on the 10 % grid; the two must explore the
  same chain, bit for bit.

* ``memory``: the peak memory and exit code of ``ssdco`` on the largest inputs (:data:`LARGE_INPUTS`), each in a
  fresh process (goal: <= 1 GB, or refused with a clear message before allocating).
* ``first-eval``: the first evaluation of each of 200 uniform random designs (every memo emptied before each), at
  the default (``full``) and the ``fast`` effort: median, 90th percentile and worst time, and which solver answered
  (goal: median <= 5 ms, worst <= 50 ms).

``--quick`` runs every part small: seconds to a minute each, but for the schedule-chain part, whose two compilations
take a few minutes the first time. Prints measured figures; asserts nothing but that the schedule-chain part's two
explorations agree.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's ssdco, not another one installed in the environment

import numpy as np  # noqa: E402

PM9A3 = ROOT / "configs" / "pm9a3-960.toml"


def best_of(fn, repeat=5, number=200) -> float:
    """The fastest of ``repeat`` mean times of ``number`` calls of ``fn``, s."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return min(times)


def timed(fn):
    """(``fn()``, its wall time in s)."""
    t0 = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - t0


# ------------------------------------------------------------------------------------------------------ whatif

def part_whatif(quick: bool) -> None:
    from ssdco import evaluate, load_config
    from ssdco.model.queueing.mva import solve_closed, solve_closed_batch
    from ssdco.network.build import build_network

    cfg = load_config(PM9A3, controller="c01")
    evaluate(cfg)  # compile / warm caches
    number = 20 if quick else 200
    t_eval = best_of(lambda: evaluate(cfg), number=number)
    net = build_network(cfg)
    loads = net.loads()
    d = np.array([ld.demand_us for ld in loads])
    c = np.array([ld.servers for ld in loads])
    m = np.array([ld.copies for ld in loads], dtype=float)
    v = np.array([ld.scv for ld in loads])
    t_mva = best_of(lambda: solve_closed(d, c, m, v, net.delay_us, 32), number=number)
    print(f"one full evaluation (PM9A3 c01, QD32): {t_eval * 1e3:.3f} ms   (of which MVA kernel {t_mva * 1e6:.1f} us)")
    rng = np.random.default_rng(0)
    batch = 20_000 if quick else 200_000
    dd = d * rng.uniform(0.5, 2.0, size=(batch, d.size))
    cc = np.tile(c, (batch, 1))
    cc[:, 1:6] = rng.integers(1, 4, size=(batch, 5))
    mm = np.tile(m, (batch, 1))
    vv = np.tile(v, (batch, 1))
    zz = np.full(batch, net.delay_us)
    solve_closed_batch(dd[:10], cc[:10], mm[:10], vv[:10], zz[:10], 32)  # compile
    xs, dt = timed(lambda: solve_closed_batch(dd, cc, mm, vv, zz, 32))
    print(f"batched MVA: {batch:,} configurations (QD32, {d.size} stations) in {dt:.3f} s = {batch / dt:,.0f} per "
          f"second  (mean IOPS {xs.mean() * 1e6:,.0f})")
    one = 200 if quick else 2000
    _, t_loop = timed(lambda: [solve_closed(dd[b], cc[b], mm[b], vv[b], zz[b], 32) for b in range(one)])
    print(f"ratio batched / one-at-a-time MVA: {t_loop / one / (dt / batch):.1f}x")


# ------------------------------------------------------------------------------------------------ write buffer

def part_write_buffer(quick: bool) -> None:
    from ssdco import evaluate, load_config
    from ssdco.model.queueing.convolution import closed_throughput, closed_throughput_fft
    from ssdco.network.build import build_network

    print(f"{'buffer':>8} {'jobs':>7} {'log-space':>11} {'FFT':>9} {'ratio':>7} {'rel. diff':>10} {'whatif':>9}")
    closed_throughput([1.0], [1], [1], 0.0, 2)  # numba's kernels, SciPy's FFT, the what-if path, untimed
    closed_throughput_fft([1.0], [1], [1], 0.0, 2)
    evaluate(load_config(PM9A3, controller="c01"))
    for kib in (2048, 4096) if quick else (2048, 4096, 8192, 16384, 65536):
        cfg = load_config(PM9A3, controller="c01",
                          overrides=["workload.read_fraction=0.0", f"ftl.write_buffer_kib={kib}"])
        network = build_network(cfg)
        loads = [b for b in network.background_loads() if b.demand_us > 0]
        args = ([b.demand_us for b in loads], [b.servers for b in loads], [b.copies for b in loads], 0.0,
                network.background_slots + network.queue_depth)
        fast, t_fast = timed(lambda: closed_throughput_fft(*args))
        if kib <= 16384:
            exact, t_exact = timed(lambda: closed_throughput(*args))
            ratio, diff, log_time = f"{t_exact / t_fast:6.0f}x", f"{fast / exact - 1:+.1e}", f"{t_exact * 1e3:8.0f} ms"
        else:
            ratio = diff = "-"
            log_time = "(~15 s)"
        _, t_whatif = timed(lambda: evaluate(cfg))
        print(f"{kib // 1024:>5} MiB {args[-1]:>7,} {log_time:>11} {t_fast * 1e3:6.0f} ms {ratio:>7} {diff:>10} "
              f"{t_whatif * 1e3:6.0f} ms")


# --------------------------------------------------------------------------------------------------------- DES

MEANS_US = (0.5, 0.7, 0.6, 0.8, 0.4)
LAMBDA = 1.0  # arrivals per us
EVENTS_PER_CUSTOMER = 1 + len(MEANS_US)
JACKSON_SOJOURN = sum(1.0 / (1.0 / m - LAMBDA) for m in MEANS_US)


def tandem_network():
    from ssdco.network.build import Network, Station, Step

    stations = tuple(Station(f"s{i}", "cores", 1) for i in range(len(MEANS_US)))
    steps = tuple(Step(f"s{i}", f"s{i}", True, m, m, scv=1.0) for i, m in enumerate(MEANS_US))
    return Network(stations=stations, steps=steps, read_fraction=1.0, request_bytes=(4096.0,),
                   request_probs=(1.0,), transactions=(1,), queue_depth=None, arrival_iops=LAMBDA * 1e6)


def run_ours(customers: int) -> tuple[float, float, float]:
    """(events/s by the common count, heap pops/s, mean sojourn us)."""
    from ssdco.sim.des import simulate

    net = tandem_network()
    simulate(net, requests=1_000)  # load or compile the kernel
    r, wall = timed(lambda: simulate(net, requests=customers, warmup_fraction=0.1, seed=1))
    return EVENTS_PER_CUSTOMER * customers / wall, r.events / wall, r.mean_latency_us.value


def run_ciw(customers: int) -> tuple[float, float]:
    """(events/s by the common count, mean sojourn)."""
    import ciw

    n = len(MEANS_US)
    routing = [[1.0 if j == i + 1 else 0.0 for j in range(n)] for i in range(n)]
    network = ciw.create_network(
        arrival_distributions=[ciw.dists.Exponential(rate=LAMBDA)] + [None] * (n - 1),
        service_distributions=[ciw.dists.Exponential(rate=1.0 / m) for m in MEANS_US],
        number_of_servers=[1] * n, routing=routing)
    ciw.seed(1)
    t0 = time.perf_counter()
    sim = ciw.Simulation(network)
    sim.simulate_until_max_time(customers / LAMBDA)
    wall = time.perf_counter() - t0
    first, last = {}, {}
    for rec in sim.get_all_records():
        if rec.node == 1:
            first[rec.id_number] = rec.arrival_date
        if rec.node == n:
            last[rec.id_number] = rec.exit_date
    done = [last[k] - first[k] for k in last if k in first]
    return EVENTS_PER_CUSTOMER * len(done) / wall, float(np.mean(done[len(done) // 10:]))


def run_simpy(customers: int) -> tuple[float, float]:
    """(events/s by the common count, mean sojourn)."""
    import simpy

    rnd = random.Random(1)
    env = simpy.Environment()
    servers = [simpy.Resource(env, capacity=1) for _ in MEANS_US]
    sojourn: list[float] = []

    def customer(env):
        t_in = env.now
        for res, m in zip(servers, MEANS_US):
            with res.request() as req:
                yield req
                yield env.timeout(rnd.expovariate(1.0 / m))
        sojourn.append(env.now - t_in)

    def source(env):
        while True:
            yield env.timeout(rnd.expovariate(LAMBDA))
            env.process(customer(env))

    env.process(source(env))
    _, wall = timed(lambda: env.run(until=customers / LAMBDA))
    return EVENTS_PER_CUSTOMER * len(sojourn) / wall, float(np.mean(sojourn[len(sojourn) // 10:]))


def part_des(quick: bool) -> None:
    from ssdco.network.build import build_network
    from ssdco.sim.des import simulate
    from ssdco.spec import load_config

    scale = 0.1 if quick else 1.0
    n_ours, n_simpy, n_ciw = int(2_000_000 * scale), int(200_000 * scale), int(30_000 * scale)
    print(f"open tandem of {len(MEANS_US)} exponential single-server stations, lambda = {LAMBDA}/us; "
          f"Jackson mean sojourn {JACKSON_SOJOURN:.4f} us; events = {EVENTS_PER_CUSTOMER} per completed customer")
    ours, pops, w_ours = run_ours(n_ours)
    print(f"ours : {n_ours:>9,} customers  {ours / 1e6:8.3f} M events/s  (heap pops {pops / 1e6:.3f} M/s)  "
          f"sojourn {w_ours:.4f} us")
    sp, w_sp = run_simpy(n_simpy)
    print(f"SimPy: {n_simpy:>9,} customers  {sp / 1e6:8.3f} M events/s  sojourn {w_sp:.4f} us")
    cw, w_cw = run_ciw(n_ciw)
    print(f"ciw  : {n_ciw:>9,} customers  {cw / 1e6:8.3f} M events/s  sojourn {w_cw:.4f} us")
    print(f"ratios: ours/SimPy = {ours / sp:,.0f}x   ours/ciw = {ours / cw:,.0f}x")
    net = build_network(load_config(PM9A3, controller="c01"))
    simulate(net, requests=1_000)
    r = simulate(net, requests=int(1_000_000 * scale), seed=1)
    print(f"ours  PM9A3 c01 QD{net.queue_depth}: {r.events / 1e6:6.2f} M heap pops in {r.wall_seconds:5.2f} s "
          f"loop time = {r.events_per_second / 1e6:6.2f} M events/s   (IOPS {r.iops.value:,.0f})")


# ------------------------------------------------------------------------------------------------------ ftlsim

def part_ftlsim(quick: bool) -> None:
    from ssdco.ftl.address_patterns import JESD219_LBA_SKEW, UniformPattern
    from ssdco.sim.ftlsim import simulate_ftl, simulate_lru_cache, simulate_partitioned_cache

    simulate_ftl(1 << 12, 64, 1.2, seed=0, policy="greedy")  # compile
    simulate_ftl(1 << 12, 64, 1.2, seed=0, policy="fifo")
    simulate_lru_cache(1 << 12, 100, seed=0)
    simulate_partitioned_cache(1 << 12, 64, 4, 100, seed=0, requests=1000, warmup_requests=0)
    pages = 1 << (16 if quick else 20)
    rates = []
    for alpha, policy, pattern, name in ((1.07, "greedy", UniformPattern(), "uniform"),
                                         (1.07, "fifo", UniformPattern(), "uniform"),
                                         (1.28, "greedy", UniformPattern(), "uniform"),
                                         (1.28, "fifo", UniformPattern(), "uniform"),
                                         (1.07, "greedy", JESD219_LBA_SKEW, "jesd219")):
        r, dt = timed(lambda: simulate_ftl(pages, 64, alpha, seed=1, policy=policy, pattern=pattern,
                                           host_writes=4 * pages, warmup_host_writes=4 * pages))
        total = 9 * pages
        rates.append(total / dt)
        print(f"ftl  {name:8s} {policy:6s} alpha={alpha:.2f} U={pages} Np=64: WAF {r.waf:6.3f}  "
              f"{total / 1e6:5.1f} M host writes in {dt:5.2f} s = {total / dt / 1e6:6.2f} M host writes/s")
    n = 1_000_000 if quick else 10_000_000
    _, dt = timed(lambda: simulate_lru_cache(1 << 22, 1 << 19, seed=1, pattern=JESD219_LBA_SKEW, requests=n,
                                             warmup_requests=0, write_fraction=0.3))
    print(f"lru  jesd219 C/N=1/8 N=4M: {n / dt / 1e6:6.2f} M requests/s")
    _, dt = timed(lambda: simulate_partitioned_cache(1 << 22, 1024, 256, 1 << 18, seed=1, pattern=JESD219_LBA_SKEW,
                                                     requests=n, warmup_requests=0))
    print(f"partitioned cache jesd219 N=4M: {n / dt / 1e6:6.2f} M requests/s")
    print(f"ftlsim host writes/s: slowest {min(rates):.3e}, fastest {max(rates):.3e} ({max(rates) / min(rates):.1f}x)")


# ---------------------------------------------------------------------------------------------------- optimize

LOW_QUEUE_DEPTH = [  # (label, overrides, min_iops): closed deterministic work where whatif tries the chain
    ("8 KiB reads at QD 2, >= 30 K IOPS", ["workload.queue_depth=2", "workload.request_size_kib=8"], 30_000),
    ("16 KiB reads at QD 3, >= 40 K IOPS", ["workload.queue_depth=3", "workload.request_size_kib=16"], 40_000),
    ("8 KiB reads at QD 4, >= 50 K IOPS", ["workload.queue_depth=4", "workload.request_size_kib=8"], 50_000),
    ("8 KiB reads at QD 4, >= 80 K IOPS (infeasible: explained)", ["workload.queue_depth=4",
                                                                   "workload.request_size_kib=8"], 80_000),
]
TARGETS = [  # (label, min_iops, core mW, DRAM mW)
    ("study: >= 500 K IOPS, cores <= 192 mW, DRAM <= 800 mW", 500_000, 192.0, 800.0),
    (">= 550 K IOPS (many cheaper designs fail verification)", 550_000, 192.0, 800.0),
    (">= 560 K IOPS, cores <= 60 mW", 560_000, 60.0, 800.0),
    (">= 650 K IOPS (infeasible: explained)", 650_000, 192.0, 800.0),
]


def median_time(fn, repeat=5):
    times, out = [], None
    for _ in range(repeat):
        out, t = timed(fn)
        times.append(t)
    return statistics.median(times), out


def linear_optimum_times(cfg, targets) -> None:
    from ssdco.optimizer import LinearModel, enumerate_space, ilp, linear_optimum, make_targets
    from ssdco.optimizer.space import DesignSpace

    space, t_coef = timed(lambda: DesignSpace.from_config(cfg))
    model = LinearModel(space, make_targets(space, min_iops=500_000))
    print(f"design space: {space.size():,} designs; {len(model.coef.groups)} software columns, "
          f"{len(model.coef.hw)} hardware columns (ILP variables {len(model.coef.groups) + len(model.coef.hw) + 1}); "
          f"solver {ilp.solver_name(space.options.solver).upper()}")
    print("time to the exact optimum of the linear model (median of 5), goal <= 1 s:")
    t_enum, table = median_time(lambda: enumerate_space(space, model.coef), repeat=3)
    for label, x, core, dram in targets:
        m = model.at(make_targets(space, min_iops=x, core_power_mw=core, dram_power_mw=dram))
        t_ilp, sol = median_time(lambda: ilp.solve(m))
        t_bf, (_, cost) = median_time(lambda: linear_optimum(table, m))
        c_ilp = m.cost(sol.design) if sol.feasible else None
        print(f"  {label}")
        print(f"    ILP {t_ilp:.3f} s -> cost {c_ilp if c_ilp is None else round(c_ilp, 4)};  enumeration "
              f"{t_bf * 1e3:.1f} ms (+ {t_enum:.2f} s to build the table) -> cost "
              f"{cost if cost is None else round(cost, 4)}; ILP / enumeration {t_ilp / t_bf:.1f}x")


def verified_searches(cfg, targets) -> None:
    from ssdco.optimizer import optimize

    print("full verified search (ILP + analytic model + DES, runners-up, binding constraints):")
    optimize(cfg, min_iops=500_000)  # warm numba caches
    for label, x, core, dram in targets:
        r, wall = timed(lambda: optimize(cfg, min_iops=x, core_power_mw=core, dram_power_mw=dram))
        tm = r.timing
        pick = f"cost {r.cost:.4g} {r.pick.label()}" if r.feasible else f"{r.status}: {r.message}"
        print(f"  {label}: {wall:.2f} s  ({tm['verify_iterations']} verified, {tm['ilp_solves']} ILP solve(s) "
              f"{tm['ilp_seconds']:.2f} s, DES {tm['des_seconds']:.2f} s)")
        print(f"    {pick}")


def fast_against_full(cases) -> None:
    from ssdco import load_config
    from ssdco.optimizer import optimize

    print("low queue depth, optimize against optimize --fast (each verifies its pick with the DES):")
    for label, overrides, x in cases:
        low = load_config(PM9A3, overrides=overrides)
        runs = {name: timed(lambda: optimize(low, min_iops=x, options=options))[::-1]
                for name, options in (("optimize", None), ("--fast", {"markov_chain": False}))}
        (t_full, full), (t_fast, _) = runs["optimize"], runs["--fast"]
        print(f"  {label}: {t_full:.2f} s against {t_fast:.2f} s ({t_full / t_fast:.1f}x); without --fast "
              f"{full.timing['analytic_designs']} design(s) verified in full, {full.timing['screened_designs']} "
              "screened")
        for name, (_, r) in runs.items():
            if r.feasible:
                v = r.verdict
                des = v.validation.des.iops.value if v.validation is not None else float("nan")
                print(f"    {name:<9} cost {r.cost:.4g} {r.pick.label()}: {v.analytic.method} {v.analytic.iops:,.0f} "
                      f"IOPS, DES {des:,.0f}, {len(v.analytic.caveats)} caveat(s)")
            else:
                print(f"    {name:<9} {r.status}: {r.message}")


def part_optimize(quick: bool) -> None:
    from ssdco import load_config
    from ssdco.optimizer import optimize

    cfg = load_config(PM9A3)
    targets = TARGETS[:1] if quick else TARGETS
    linear_optimum_times(cfg, targets)
    verified_searches(cfg, targets)
    if not quick:
        r, t = timed(lambda: optimize(cfg, min_iops=500_000, options={"verify_des": False}, pareto_front=True))
        print(f"Pareto front (MVA of all {r.space_size:,} designs): {len(r.pareto)} designs, {t:.2f} s "
              f"(batch MVA {r.pareto_seconds:.2f} s)")
        _, t = timed(lambda: optimize(cfg, min_iops=500_000, options={"verify_des": False}, explain=True))
        print(f"--explain (sensitivity by bisection with re-solves): {t:.2f} s")
        r, t = timed(lambda: optimize(cfg, min_iops=550_000, options={"verify_des": False, "enumeration_limit": 0}))
        print(f"550 K IOPS without the enumeration table (ILP re-solve per candidate): {t:.2f} s, "
              f"{r.timing['ilp_solves']} ILP solves, cost {r.cost:.4g}")
    fast_against_full(LOW_QUEUE_DEPTH[:1] if quick else LOW_QUEUE_DEPTH)


# ------------------------------------------------------------------------------------------- optimize, large

LARGE_SPACES = [  # (label, [optimizer] options): spaces of 10^7-10^8 designs around the PM9A3 preset
    ("1-16 cores per group, 1-4 accelerator units", {"max_cores_per_group": 16, "max_units": 4}),
    ("1-8 cores per group x 9 NAND geometries ({4,8,16} channels x {2,4,8} ways)",
     {"max_cores_per_group": 8, "nand": {"channels": [4, 8, 16], "ways_per_channel": [2, 4, 8]}}),
]
LARGE_QUICK = [("1-8 cores per group", {"max_cores_per_group": 8})]


def part_optimize_large(quick: bool) -> None:
    """The exact optimum over large spaces without evaluating them: the ILP's bounds prune, the model verifies."""
    from ssdco import load_config
    from ssdco.optimizer import optimize
    from ssdco.optimizer.space import DesignSpace

    cfg = load_config(PM9A3, overrides=["nand.cost_per_channel=0.5", "nand.cost_per_die=0.05"])
    print("the study's targets (>= 500 K IOPS, cores <= 192 mW, DRAM <= 800 mW), verified by the model "
          "(--no-des --fast); goal: >= 10 M designs in <= 10 s on one core")
    for label, options in LARGE_QUICK if quick else LARGE_SPACES:
        space = DesignSpace.from_config(cfg, options)
        size = space.size() * len(space.device_variants)
        opts = {**options, "verify_des": False, "markov_chain": False}
        r, wall = timed(lambda: optimize(cfg, min_iops=500_000, core_power_mw=192, dram_power_mw=800, options=opts))
        tm = r.timing  # over several device options, every option's search counts ("all_options_*")
        evaluated = int(tm.get("all_options_analytic_designs", tm.get("analytic_designs", 0))
                        + tm.get("all_options_screened_designs", tm.get("screened_designs", 0)))
        solves = int(tm.get("all_options_ilp_solves", tm.get("ilp_solves", 0)))
        pick = f"cost {r.cost:.4g} {r.pick.label()}" if r.feasible else f"{r.status}"
        print(f"  {label}: {size:,} designs ({len(space.device_variants)} device option(s)); "
              f"{evaluated:,} evaluated by the model ({evaluated / size:.2e} of the space), "
              f"{solves} ILP solve(s); {wall:.2f} s")
        print(f"    {pick}" + (f" on {r.device}" if r.device != "as configured" else ""))


# ---------------------------------------------------------------------------------------------- schedule chain

GRID = 0.1  # the lumping grid, a fraction of one request's latency alone


def counted_schedule_chain(workdir: Path):
    """``ssdco.model.queueing.schedule_chain`` compiled with numba's reference counting (its source with
    ``_nrt=False`` removed and numba's cache off), imported as a module of its own from a file in ``workdir``."""
    from ssdco.model.queueing import schedule_chain

    source = Path(schedule_chain.__file__).read_text()
    source = source.replace(", _nrt=False", "").replace("cache=True", "cache=False")
    path = workdir / "schedule_chain_counted.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("ssdco_schedule_chain_counted", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def explore(module, network, zero_load_us: float, max_states: int):
    """(seconds, what ``_explore`` returned) for ``module``'s compiled route of ``network``."""
    route = module._compile(network)
    args = (*route.ints, route.service, route.delay, route.prob, route.breakpoints, route.size_probs,
            route.scalars, route.read_fraction, GRID * zero_load_us, max_states, module.MAX_SEGMENT_EVENTS)
    found, seconds = timed(lambda: module._explore(*args))
    return seconds, found


def same(a, b) -> bool:
    """Whether two explorations returned the same status and arrays, bit for bit."""
    return a[0] == b[0] and all(np.array_equal(x, y) for x, y in zip(a[1:], b[1:]))


def part_schedule_chain(quick: bool) -> None:
    from ssdco.model.queueing import schedule_chain as current
    from ssdco.model.queueing.route_mva import request_alone_us
    from ssdco.network.build import build_network
    from ssdco.spec import config_from_dict
    from ssdco.validation.random_designs import random_config

    designs, max_states = (12, 20_000) if quick else (80, 200_000)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        counted = counted_schedule_chain(Path(tmp))
        for seed in range(designs):
            d = random_config(seed, mixed_sizes=True)
            d["workload"]["queue_depth"] = 2 + seed % 4
            network = build_network(config_from_dict(d))
            if current._compile(network) is None:
                continue
            zero = request_alone_us(network)
            t_counted, found_counted = explore(counted, network, zero, max_states)
            t_now, found_now = explore(current, network, zero, max_states)
            if not same(found_counted, found_now):
                sys.exit(f"design {seed}: the two compilations explored different chains")
            states = len(found_now[6]) if found_now[0] == current.OK else max_states
            rows.append((seed, states, t_counted, t_now))
            print(f"  design {seed:3d}  QD {network.queue_depth}  {states:7d} states  counted {t_counted:7.3f} s  "
                  f"as shipped {t_now:7.3f} s  {t_counted / max(t_now, 1e-9):5.1f}x", flush=True)
    timed_rows = rows[1:]  # the first exploration of each compiles the kernels: left out of the totals
    if not timed_rows:
        print("no chain to explore")
        return
    states = sum(r[1] for r in timed_rows)
    t_counted = sum(r[2] for r in timed_rows)
    t_now = sum(r[3] for r in timed_rows)
    print(f"{len(timed_rows)} explorations (the first, compiling, left out), {states:,} states, the same chains: "
          f"counted {t_counted:.1f} s ({states / t_counted:,.0f} states/s), as shipped {t_now:.1f} s "
          f"({states / t_now:,.0f} states/s), {t_counted / t_now:.2f}x")


def part_first_eval(quick: bool) -> None:
    from benchmarks.accuracy import clear_caches
    from ssdco.model.whatif import evaluate_network
    from ssdco.network.build import build_network
    from ssdco.spec import config_from_dict
    from ssdco.validation.random_designs import random_config

    designs = 40 if quick else 200
    configs = []
    for seed in range(900_000, 900_000 + designs):  # half one-transaction, half 4/8/16 KiB
        config = config_from_dict(random_config(seed, mixed_sizes=bool(seed % 2)))
        configs.append((config, build_network(config)))
    evaluate_network(*configs[0])  # compiles the kernels (cached on disk after the first run)
    for effort in ("full", "fast"):
        seconds, methods = [], {}
        for config, network in configs:
            clear_caches()
            r, t = timed(lambda: evaluate_network(config, network, effort=effort))
            seconds.append(t)
            methods[r.method] = methods.get(r.method, 0) + 1
        ms = np.array(seconds) * 1e3
        print(f"  {effort:<5} first evaluation of {designs} random designs: median {np.median(ms):.1f} ms, "
              f"p90 {np.percentile(ms, 90):.1f} ms, worst {ms.max():.1f} ms (goal: median <= 5 ms, worst <= 50 ms); "
              f"answered by {', '.join(f'{m} {n}' for m, n in sorted(methods.items()))}", flush=True)


# The largest inputs: (what, command-line arguments of ``ssdco``); ``memory`` reports each one's peak memory.
LARGE_INPUTS = (
    ("whatif: 16 ch x 8 ways, 4 MiB requests at queue depth 4096",
     ["whatif", "configs/pm9a3-960.toml", "--set", "nand.channels=16", "--set", "nand.ways_per_channel=8",
      "--set", "workload.request_size_kib=4096", "--set", "workload.queue_depth=4096"]),
    ("validate (DES, 20,000 requests): the same design",
     ["validate", "configs/pm9a3-960.toml", "--set", "nand.channels=16", "--set", "nand.ways_per_channel=8",
      "--set", "workload.request_size_kib=4096", "--set", "workload.queue_depth=4096", "--requests", "20000",
      "--replications", "0", "--progress", "off"]),
    ("optimize --pareto over 31,264,584 designs (12 cores per group, 6 units, enumeration limit raised)",
     ["optimize", "configs/pm9a3-960.toml", "--set", "optimizer.max_cores_per_group=12", "--set",
      "optimizer.max_units=6", "--set", "optimizer.enumeration_limit=50000000", "--no-des", "--pareto",
      "{tmp}/pareto.csv"]),
)
PEAK_WRAPPER = """import resource, runpy, sys
sys.argv = ["ssdco"] + sys.argv[1:]
try:
    runpy.run_module("ssdco", run_name="__main__")
except SystemExit as done:
    code = done.code
print("PEAK_KIB", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, code, file=sys.stderr)
"""


def part_memory(quick: bool) -> None:
    """Peak memory (resident set) and exit code of each of :data:`LARGE_INPUTS`, each in a fresh process (goal:
    <= 1 GB, or refused with a clear message before allocating)."""
    for what, argv in LARGE_INPUTS:
        started = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:
            done = subprocess.run([sys.executable, "-c", PEAK_WRAPPER, *(a.format(tmp=tmp) for a in argv)], cwd=ROOT,
                                  capture_output=True, text=True,
                                  env={**os.environ, "PYTHONPATH": str(ROOT), "SSDCO_COMPILE_NOTE": "0"})
        peak = [line.split() for line in done.stderr.splitlines() if line.startswith("PEAK_KIB")]
        kib, code = (int(peak[-1][1]), peak[-1][2]) if peak else (0, "?")
        said = next((line for line in done.stderr.splitlines() if line.startswith("ssdco: error")), "")
        print(f"  {what}: peak {kib / 1024:,.0f} MiB, exit {code}, {time.perf_counter() - started:.1f} s"
              + (f"\n      {said[:200]}" if said else ""), flush=True)


PARTS = {"whatif": part_whatif, "write-buffer": part_write_buffer, "des": part_des, "ftlsim": part_ftlsim,
         "optimize": part_optimize, "optimize-large": part_optimize_large, "schedule-chain": part_schedule_chain,
         "first-eval": part_first_eval,
         "memory": part_memory}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("parts", nargs="*", metavar="PART", help=f"the parts to run ({', '.join(PARTS)}; default all)")
    ap.add_argument("--quick", action="store_true", help="small runs (seconds to a few minutes per part)")
    args = ap.parse_args()
    unknown = [p for p in args.parts if p not in PARTS]
    if unknown:
        ap.error(f"unknown part(s) {', '.join(unknown)}: expected some of {', '.join(PARTS)}")
    for name in args.parts or list(PARTS):
        print(f"== {name}", flush=True)
        t0 = time.perf_counter()
        PARTS[name](args.quick)
        print(f"({name}: {time.perf_counter() - t0:.1f} s)\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
