"""Command line: ``ssdco whatif | validate | ...``. The only module that prints or sets exit codes.

Exit codes (:data:`EXIT_CODES`, shown by ``ssdco --help``): 0 met / agree, 1 not met / infeasible / disagree,
2 bad input (configuration, arguments) with one clear message and no traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import textwrap
from pathlib import Path
from typing import Sequence

from ssdco import defaults
from ssdco.atomic import check_output_path, recover_dir, write_text_atomic
from ssdco.errors import MISSING, ConfigError, SsdcoError
from ssdco.first_run import note_if_compiling

EXIT_OK = 0
EXIT_NOT_MET = 1  # the answer is out: a budget or target not met, nothing feasible, the model and DES disagree
EXIT_USAGE = 2
EXIT_CODES = """exit status:
  0  the answer meets what was asked: whatif answered (with --check: every set budget and target met and
     the workload stable; an unset one is not checked); validate AGREE; optimize a feasible pick; sweep every
     point computed; study the report written; calibrate every parameter determined by the data; serve
     stopped by Ctrl-C
  1  it does not: whatif --check a budget or target not met, or an open workload unstable; validate DISAGREE
     or UNSETTLED; optimize infeasible (nothing meets the targets); sweep some points ended in an error;
     calibrate some parameters unidentifiable (or the minimiser failed): --out is not written
  2  bad input: a configuration, argument or output path that cannot be used (one line names it)"""


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("config", help="device configuration TOML (e.g. configs/pm9a3-960.toml)")
    p.add_argument("--controller", "-c", metavar="NAME|FILE",
                   help="controller preset name (configs/controllers/NAME.toml) or a controller TOML file")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="FIELD=VALUE",
                   help="override a config field, e.g. --set workload.queue_depth=64 (repeatable)")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON (schema in README)")


def build_parser() -> argparse.ArgumentParser:
    """The ``ssdco`` argument parser."""
    p = argparse.ArgumentParser(prog="ssdco", description="SSD-controller hardware/software co-design.",
                                epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"ssdco {defaults.VERSION}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_whatif(sub)
    _add_validate(sub)
    _add_study(sub)
    _add_sweep(sub)
    _add_optimize(sub)
    _add_import_mqsim(sub)
    _add_trace(sub)
    _add_calibrate(sub)
    _add_serve(sub)
    # ---- more subcommands register here ----
    return p


def _add_whatif(sub) -> None:
    """The ``ssdco whatif`` subcommand's options."""
    w = sub.add_parser("whatif", help="analytic IOPS, latency, utilisation, power and budgets of one design")
    _common(w)
    w.add_argument("--check", action="store_true",
                   help="exit 1 when a set budget or target is not met or the open workload is unstable "
                        "(without it whatif reports them and exits 0)")
    w.add_argument("--exact", action="store_true",
                   help="exact exponential product-form solution instead of the deterministic-service corrected MVA")
    w.add_argument("--fast", action="store_true",
                   help="skip the Markov chain of the requests' draws that answers closed deterministic work at "
                        "queue depth 1-8 (at queue depth 1-2 it is still tried within its first 3,000 states): "
                        "milliseconds instead of up to seconds; the route MVA answers instead, less accurate at queue "
                        "depth 2-5 (a caveat says where it is at risk; README, \"Speed\")")
    _add_trace_workload(w)
    w.add_argument("--sensitivity", action="store_true",
                   help="also the elasticity of IOPS, latency, power and energy per I/O to every numeric device and "
                        "firmware parameter (central differences of the model; two answers per parameter: seconds, "
                        "a minute at queue depth 1-8 without --fast)")
    w.add_argument("--sensitivity-step", type=float, default=0.01, metavar="H",
                   help="relative step of the central differences (default 0.01: 1 %% either side)")
    w.add_argument("--sensitivity-plot", metavar="FILE.png",
                   help="with --sensitivity: a tornado chart of the largest elasticities (needs matplotlib)")
    w.add_argument("--sensitivity-parameters", type=_name_list, metavar="P1,P2",
                   help="with --sensitivity: only these parameters (dotted paths, e.g. nand.t_read_us)")
    w.add_argument("--sensitivity-global", metavar="P=LO:HI,...",
                   help="global screening over stated ranges (Morris's method, by SALib: the sensitivity extra): "
                        "mu* and sigma of IOPS, latency, core, DRAM and drive power for each parameter, e.g. "
                        "nand.t_read_us=40:60,modules.cache_lookup.cycles=1000:1600")
    w.add_argument("--trajectories", type=_int_at_least(2, 1000), default=10, metavar="N",
                   help="with --sensitivity-global: Morris trajectories, N x (parameters + 1) designs (default "
                        "%(default)s)")
    w.add_argument("--sensitivity-seed", type=_nonnegative_int, default=defaults.SEED, metavar="S",
                   help="with --sensitivity-global: the seed of the drawn designs (default %(default)s)")


def _add_trace_workload(p) -> None:
    """The options that take a command's workload from a block trace (``whatif``, ``validate``, ``optimize``)."""
    p.add_argument("--trace", metavar="TRACE",
                   help="take the read share and request-size mix from a block trace (MSR/SNIA CSV, blkparse text, "
                        "fio iolog; gzip or not); --set still overrides them")
    p.add_argument("--trace-format", choices=("auto", "msr", "blkparse", "fio"), default="auto",
                   help="the trace's format (default: detected from its first line)")
    p.add_argument("--buffer", choices=("lru", "fab", "lirs", "arc"),
                   help="with --trace: also replay it through this buffer policy and --ftl's mapping, and set "
                        "ftl.read_hit_fraction, ftl.flush_fraction and ftl.waf from what reaches the flash (needs "
                        "an [ftl] table)")
    p.add_argument("--buffer-mib", type=_positive_float, default=16.0, metavar="MIB",
                   help="with --buffer: the buffer's size (default %(default)s MiB)")
    p.add_argument("--ftl", choices=("page", "bast", "fast"), default="page",
                   help="with --buffer: the FTL mapping behind it (default %(default)s)")
    p.add_argument("--log-blocks", type=_int_at_least(2), default=16, metavar="N",
                   help="with --buffer and --ftl bast or fast: log blocks (default %(default)s)")
    p.add_argument("--flush-at-end", action="store_true",
                   help="with --buffer: write the pages still dirty when the trace ends (a shutdown's flush), so "
                        "that a short trace does not understate the writes that reach the flash")


def _add_validate(sub) -> None:
    """The ``ssdco validate`` subcommand's options."""
    v = sub.add_parser("validate", help="run the analytic model and the embedded DES side by side")
    _common(v)
    _add_trace_workload(v)
    v.add_argument("--requests", type=_des_requests(), default=defaults.DES_REQUESTS, metavar="N",
                   help="requests the DES completes (default %(default)s; 10%% warm-up discarded)")
    v.add_argument("--seed", type=_nonnegative_int, default=defaults.SEED,
                   help="DES seed (same seed => identical results; default %(default)s)")
    v.add_argument("--fast", action="store_true", help="check whatif --fast's answer: the analytic side skips the "
                                                       "Markov chain of the requests' draws (beyond its first states "
                                                       "at queue depth 1-2)")
    v.add_argument("--replications", type=_replications, default=defaults.REPLICATIONS, metavar="R|auto",
                   help="extra DES runs from other seeds, each of a quarter of the requests, to check that the DES's "
                        "IOPS does not depend on its seed (auto: %d for a closed workload whose every service is "
                        "deterministic, where requests can hold start-dependent patterns; 0 otherwise)"
                        % defaults.AUTO_REPLICATIONS)
    v.add_argument("--timing-spread", type=_timing_spread_scv, metavar="SCV",
                   help="run the DES once more with every service time varying, its squared coefficient of "
                        "variation at least SCV (0.01: a 10%% standard deviation), same requests and seed, and "
                        "compare the model with it too: a disagreement it removes rests on exactly constant "
                        "timings, which can hold requests in step (the verdict stays the main run's)")
    v.add_argument("--progress", choices=("auto", "on", "off"), default="auto",
                   help="progress bar on stderr (auto: when stderr is a terminal)")
    v.add_argument("--plot", metavar="FILE.png",
                   help="write the DES's latency CDF and tail with the model's mean and p99 as PNG (needs matplotlib)")


def _add_study(sub) -> None:
    """The ``ssdco study`` subcommand's options."""
    st = sub.add_parser("study", help="the PM9A3 co-design study as a regenerable report (Markdown, CSV, PNG plots)")
    st.add_argument("config", help="device configuration TOML (e.g. configs/pm9a3-960.toml); presets from controllers/")
    st.add_argument("--out", default=defaults.STUDY_OUT, metavar="DIR",
                    help="output directory (default %(default)s)")
    st.add_argument("--requests", type=_des_requests(), default=defaults.DES_REQUESTS, metavar="N",
                    help="requests each DES run completes (default %(default)s)")
    st.add_argument("--seed", type=_nonnegative_int, default=defaults.SEED,
                    help="DES seed, the same for every design (default %(default)s)")
    st.add_argument("--min-iops", type=_nonnegative_float, default=None, metavar="X",
                    help="IOPS target of the optimizer's pick (default: budgets.min_iops if set, else c01's IOPS)")
    st.add_argument("--progress", choices=("auto", "on", "off"), default="auto",
                    help="progress bars on stderr (auto: when stderr is a terminal)")


def _add_sweep(sub) -> None:
    """The ``ssdco sweep`` subcommand's options."""
    sw = sub.add_parser("sweep", help="evaluate a grid of parameter values into a resumable CSV (optionally Parquet)")
    sw.add_argument("config", help="device configuration TOML (e.g. configs/pm9a3-960.toml)")
    sw.add_argument("--controller", "-c", metavar="NAME|FILE",
                    help="controller preset name or file (or sweep it: --grid controller=c01,c07)")
    sw.add_argument("--set", dest="overrides", action="append", default=[], metavar="FIELD=VALUE",
                    help="fixed override applied at every grid point (repeatable)")
    sw.add_argument("--grid", action="append", default=[], metavar="FIELD=V1,V2,...", required=True,
                    help="grid axis, values are TOML literals as for --set (repeatable; cartesian product)")
    sw.add_argument("--out", default=defaults.SWEEP_OUT, metavar="FILE.csv",
                    help="CSV output; an existing file of the same sweep is resumed (default %(default)s)")
    sw.add_argument("--parquet", metavar="FILE.parquet", help="also write Parquet (needs pyarrow)")
    sw.add_argument("--des-requests", type=_des_requests(or_zero=True), default=defaults.SWEEP_DES_REQUESTS,
                    metavar="N",
                    help="also run the DES with N requests per point (default 0: analytic model only)")
    sw.add_argument("--seed", type=_nonnegative_int, default=defaults.SEED,
                    help="DES seed, the same at every point (default %(default)s)")
    sw.add_argument("--fast", action="store_true",
                    help="whatif --fast at every point: skip the Markov chain of the requests' draws beyond its first "
                         "states at queue depth 1-2 (milliseconds per point instead of up to seconds at queue depth "
                         "1-8)")
    sw.add_argument("--replications", type=_replications, default=defaults.SWEEP_REPLICATIONS, metavar="R|auto",
                    help="extra DES runs per point from other seeds, each of a quarter of the requests, to check that "
                         "the DES's IOPS does not depend on its seed, as validate does (default 0: one run per point; "
                         "auto: validate's default at each point); needs --des-requests")
    sw.add_argument("--workers", type=_positive_int, default=defaults.SWEEP_WORKERS, metavar="K",
                    help="local worker processes (default 1: run in this process)")
    sw.add_argument("--scheduler", metavar="ADDRESS",
                    help="run the points on a Dask cluster, e.g. tcp://127.0.0.1:8786 (needs the sweep extra)")
    sw.add_argument("--connect-timeout-s", type=_float_in(positive=True, maximum=3600.0),
                    default=defaults.CONNECT_TIMEOUT_S, metavar="S",
                    help="how long to wait for the Dask scheduler to answer (default 20 s)")
    sw.add_argument("--progress", choices=("auto", "on", "off"), default="auto",
                    help="progress bar on stderr (auto: when stderr is a terminal)")
    sw.add_argument("--plot", metavar="FILE.png",
                    help="write IOPS and mean latency against the grid's first axis, a line per value of the others, "
                         "as PNG (needs matplotlib)")


def _add_optimize(sub) -> None:
    """The ``ssdco optimize`` subcommand's options."""
    op = sub.add_parser("optimize", help="cheapest controller design that meets IOPS/latency and power budgets "
                                         "(ILP over the [optimizer] space, verified by the analytic model and the DES)")
    _common(op)  # --controller is accepted but ignored: the search replaces the controller
    _add_trace_workload(op)
    op.add_argument("--min-iops", type=_nonnegative_float, default=None, metavar="N",
                    help="IOPS target at the workload's queue depth (default budgets.min_iops)")
    op.add_argument("--core-mw", type=_positive_float, default=None, metavar="MW",
                    help="core-side power budget, cores + accelerators (default budgets.core_power_mw)")
    op.add_argument("--dram-mw", type=_positive_float, default=None, metavar="MW",
                    help="DRAM power budget (default budgets.dram_power_mw)")
    op.add_argument("--drive-mw", type=_positive_float, default=None, metavar="MW",
                    help="whole-drive power budget: controller, DRAM, NAND, SoC static and PCIe PHY (default "
                         "budgets.drive_power_mw); checked on each verified design, as --max-p99-us is")
    op.add_argument("--max-latency-us", type=_positive_float, default=None, metavar="L",
                    help="mean-latency target; at queue depth N it is the IOPS target N / L (Little's law)")
    op.add_argument("--max-p99-us", type=_positive_float, default=None, metavar="P",
                    help="99th-percentile latency target, us: the model's estimate screens each candidate, the "
                         "DES's measured p99 verifies the pick (a pick that misses it is rejected)")
    op.add_argument("--max-p999-us", type=_positive_float, default=None, metavar="P",
                    help="99.9th-percentile latency target, us: the model has no p99.9 estimate, so its p99 estimate "
                         "(a lower bound) screens and the DES's measured p99.9 verifies the pick (not with --no-des)")
    op.add_argument("--pareto", metavar="FILE.csv",
                    help="enumerate the space and write the Pareto front (cost, IOPS, core-side power) as CSV")
    op.add_argument("--plot", metavar="FILE.png",
                    help="write the Pareto front as PNG: cost vs IOPS (with the target) and cost vs core-side power "
                         "(with the budget), each device option in its own colour, the pick a star (enumerates the "
                         "space as --pareto does; needs matplotlib)")
    op.add_argument("--explain", action="store_true",
                    help="sensitivity: how far each budget/target can move before the pick changes, and to what")
    op.add_argument("--sensitivity", action="store_true",
                    help="the pick's elasticities of IOPS, latency, power and energy per I/O to every numeric "
                         "device and firmware parameter (whatif --sensitivity on the pick)")
    op.add_argument("--sensitivity-plot", metavar="FILE.png",
                    help="with --sensitivity: a tornado chart of the pick's largest elasticities (needs matplotlib)")
    op.add_argument("--sensitivity-parameters", type=_name_list, metavar="P1,P2",
                    help="with --sensitivity: only these parameters (dotted paths, e.g. nand.t_read_us)")
    op.add_argument("--break-even", type=_int_at_least(1, 10), default=0, metavar="N",
                    help="with --sensitivity: for the N parameters IOPS is most elastic to, the values (within x0.5 "
                         "to x2) at which the pick changes, by searching again at each trial value (about ten "
                         "searches per parameter and direction)")
    op.add_argument("--write-design", metavar="FILE.toml",
                    help="write the pick as a controller file for whatif/validate --controller FILE.toml")
    op.add_argument("--no-des", action="store_true",
                    help="verify with the analytic model only (same as --set optimizer.verify_des=false)")
    op.add_argument("--fast", action="store_true",
                    help="verify with whatif --fast's answers: skip the Markov chain of the requests' draws at queue "
                         "depth 1-8, beyond its first states at 1-2 (same as --set optimizer.markov_chain=false); the "
                         "DES still checks the pick")
    op.add_argument("--timing-spread", type=_timing_spread_scv, default=None, metavar="SCV",
                    help="run the pick's DES once more with every service time varying, its squared coefficient of "
                         "variation at least SCV (0.01: a 10%% standard deviation), and compare the model with it too, "
                         "as validate --timing-spread does (same as --set optimizer.timing_spread_scv=SCV)")
    op.add_argument("--min-life-years", type=_nonnegative_float, default=None, metavar="Y",
                    help="reject mapping options whose flash wears out sooner at the target IOPS "
                         "(same as --set optimizer.min_life_years=Y; needs an [ftl] table)")


def _name_list(text: str) -> tuple[str, ...]:
    """A comma-separated list of names, lower-cased, blanks dropped."""
    return tuple(part.strip().lower() for part in text.split(",") if part.strip())


def _mib_list(text: str) -> tuple[float, ...]:
    """A comma-separated list of sizes in MiB, each > 0."""
    try:
        sizes = tuple(float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected sizes in MiB separated by commas, e.g. 16,32; got {text!r}")
    if not sizes or not all(math.isfinite(x) and x > 0 for x in sizes):
        raise argparse.ArgumentTypeError(f"expected sizes in MiB > 0, got {text!r}")
    return sizes


def _nand_us(text: str) -> tuple[float, float, float]:
    """``T_READ,T_PROG,T_ERASE`` in us, each > 0."""
    try:
        times = tuple(float(part) for part in text.split(","))
    except ValueError:
        times = ()
    if len(times) != 3 or not all(math.isfinite(x) and x > 0 for x in times):
        raise argparse.ArgumentTypeError(f"expected T_READ,T_PROG,T_ERASE in us (e.g. 60,700,3500), got {text!r}")
    return times  # type: ignore[return-value]


def _add_trace(sub) -> None:
    """The ``ssdco trace`` subcommand's options."""
    t = sub.add_parser("trace", help="replay a block trace (or a synthetic one) through buffer policies and FTL "
                                     "mappings: hit ratio, flash reads/programs/erases, merges, WAF, weighted time")
    t.add_argument("trace", nargs="?", metavar="TRACE",
                   help="trace file: MSR Cambridge / SNIA CSV, blkparse text or fio iolog v2/v3, gzipped or not")
    t.add_argument("--synthetic", metavar="PATTERN", choices=("uniform", "hotcold", "sequential", "database"),
                   help="instead of TRACE, a seeded synthetic trace: uniform, hotcold, sequential or database")
    t.add_argument("--records", type=_positive_int, default=100_000, metavar="N",
                   help="records of the synthetic trace (default %(default)s)")
    t.add_argument("--seed", type=_nonnegative_int, default=defaults.SEED,
                   help="seed of the synthetic trace (default %(default)s)")
    t.add_argument("--footprint-mib", type=_positive_float, default=256.0, metavar="MIB",
                   help="address space the synthetic trace covers (default %(default)s MiB)")
    t.add_argument("--format", choices=("auto", "msr", "blkparse", "fio"), default="auto",
                   help="trace format (default auto: detected from the first line)")
    t.add_argument("--skip-bad", action="store_true", help="skip and count malformed lines instead of stopping")
    t.add_argument("--buffer", type=_name_list, default=("lru", "fab", "lirs", "arc"), metavar="P1,P2",
                   help="buffer policies: lru, fab, lirs, arc (default all)")
    t.add_argument("--buffer-mib", type=_mib_list, default=(16.0,), metavar="M1,M2",
                   help="buffer sizes in MiB (default 16)")
    t.add_argument("--ftl", type=_name_list, default=("page", "bast", "fast"), metavar="F1,F2",
                   help="FTL mappings: page, bast, fast (default all)")
    t.add_argument("--page-kib", type=_positive_int, default=4, metavar="K", help="flash page size (default 4 KiB)")
    t.add_argument("--pages-per-block", type=_int_at_least(2), default=64, metavar="N",
                   help="pages per erase block (default %(default)s)")
    t.add_argument("--log-blocks", type=_int_at_least(2), default=16, metavar="N",
                   help="log blocks of BAST and FAST (FAST: one sequential, the rest random; default %(default)s)")
    t.add_argument("--op", type=_positive_float, default=0.07, metavar="X",
                   help="over-provisioning of the page-level mapping, a fraction of the logical pages written "
                        "(default %(default)s)")
    t.add_argument("--nand-us", type=_nand_us, metavar="TR,TP,TE",
                   help="weights from NAND timings t_read_us,t_prog_us,t_erase_us (time in us); default weights "
                        "read 1 : program 10 : erase 80")
    t.add_argument("--flush-at-end", action="store_true",
                   help="write every page still dirty when the trace ends (a shutdown's flush; default: left out)")
    t.add_argument("--out", metavar="FILE.csv", help="also write the results as CSV (atomically)")
    t.add_argument("--plot", metavar="FILE.png", help="also draw hit ratio against weighted time, erases and merges "
                                                      "per mapping, and a buffer-size curve (needs matplotlib)")
    t.add_argument("--progress", choices=("auto", "on", "off"), default="auto",
                   help="progress bar of the records replayed, on stderr (auto: when stderr is a terminal)")


def _add_import_mqsim(sub) -> None:
    """The ``ssdco import-mqsim`` subcommand's options."""
    im = sub.add_parser("import-mqsim", help="an MQSim drive (ssdconfig.xml + workload.xml) as an ssdco device file, "
                                             "listing the MQSim parameters ssdco leaves out")
    im.add_argument("ssd_xml", metavar="SSDCONFIG.xml", help="MQSim's execution parameters (the -i file)")
    im.add_argument("workload_xml", metavar="WORKLOAD.xml", help="MQSim's IO scenarios (the -w file)")
    im.add_argument("-o", "--out", required=True, metavar="FILE.toml", help="the device file to write")
    im.add_argument("--flow", type=_int_at_least(0), default=0, metavar="N",
                    help="which synthetic flow of the workload file to take (0: the first)")
    im.add_argument("--force", action="store_true", help="replace --out if it exists")


def _add_calibrate(sub) -> None:
    """The ``ssdco calibrate`` subcommand's options."""
    ca = sub.add_parser("calibrate", help="fit device parameters to measured IOPS and latency (CSV or fio JSON), or "
                                          "to targets across controllers, by least squares on the analytic model")
    _common(ca)
    ca.add_argument("--measured", nargs="+", default=[], metavar="FILE",
                    help="measurements: CSV (queue_depth,read_fraction,iops,mean_latency_us[,p99_us]"
                         "[,request_size_kib]) or fio --output-format=json output; several files may be given")
    ca.add_argument("--targets", nargs="+", default=[], metavar="FILE.toml",
                    help="targets: TOML [[target]] tables, each a quantity (iops, mean_latency_us, p99_us, "
                         "core_side_mw, dram_mw, total_mw, drive_mw, energy_per_io_nj) of a controller, a value or a "
                         "ratio to another controller (relative_to), an optional tolerance; see the user guide")
    ca.add_argument("--fit", action="append", required=True, metavar="PARAM[,PARAM...]",
                    help="numeric device fields to fit by dotted path, e.g. modules.cache_lookup.cycles,"
                         "nand.t_read_us; a glob such as modules.*.cycles names several (repeatable)")
    ca.add_argument("--fit-p99", action="store_true", help="also fit the measured p99 latencies (p99_us, fio's "
                                                           "clat percentile) against the model's p99 estimate")
    ca.add_argument("--fast", action="store_true", help="whatif --fast's answers at every point (milliseconds at "
                                                        "queue depth 1-8 instead of up to seconds)")
    ca.add_argument("--des-check", action="store_true",
                    help="run the DES on the fitted design at each point and print model against DES")
    ca.add_argument("--des-requests", type=_des_requests(), default=20_000, metavar="N",
                    help="requests of each --des-check run (default %(default)s)")
    ca.add_argument("--seed", type=_nonnegative_int, default=defaults.SEED,
                    help="seed of the --des-check runs (default %(default)s)")
    ca.add_argument("--out", metavar="FILE.toml", help="write the calibrated device file (the input with the fitted "
                                                       "values substituted, comments kept)")
    ca.add_argument("--plot", metavar="FILE.png", help="write measured and fitted IOPS and mean latency against "
                                                       "queue depth as PNG (needs matplotlib)")


def _add_serve(sub) -> None:
    """The ``ssdco serve`` subcommand's options."""
    sv = sub.add_parser("serve", help="a local web page to explore a design live: controls, IOPS, latency, power "
                                      "against the budgets, the bottleneck, the DES on demand (needs the serve "
                                      "extra)")
    sv.add_argument("config", help="device configuration TOML (e.g. configs/pm9a3-960.toml)")
    sv.add_argument("--controller", "-c", metavar="NAME|FILE",
                    help="the controller the page starts from: a preset name or a controller TOML file")
    sv.add_argument("--set", dest="overrides", action="append", default=[], metavar="FIELD=VALUE",
                    help="override a config field before the page starts, as whatif's --set (repeatable)")
    sv.add_argument("--port", type=_int_at_least(1, 65535, or_zero=True), default=8050,
                    help="TCP port (default %(default)s; 0: any free port)")
    sv.add_argument("--host", default="127.0.0.1",
                    help="address to listen on (default %(default)s, this machine only; the page has no login, so "
                         "another address shows it to anyone who can reach it)")
    sv.add_argument("--des-requests", type=_des_requests(), default=defaults.DES_REQUESTS, metavar="N",
                    help="requests of each 'validate with the DES' run (default %(default)s)")


def _int_at_least(minimum: int, maximum: int | None = None, or_zero: bool = False):
    """argparse type: an integer in [``minimum``, ``maximum``] (or 0 with ``or_zero``), with a clear message
    otherwise."""
    allowed = f"an integer >= {minimum}" if maximum is None else f"an integer in [{minimum:,}, {maximum:,}]"
    if or_zero:
        allowed = f"0 or {allowed}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not ((or_zero and value == 0)
                                 or (value >= minimum and (maximum is None or value <= maximum))):
            raise argparse.ArgumentTypeError(f"expected {allowed}, got {text!r}")
        return value

    return parse


_positive_int = _int_at_least(1)
_nonnegative_int = _int_at_least(0)


def _des_requests(or_zero: bool = False):
    """argparse type for a DES request count: enough to fill the batch means, at most MAX_REQUESTS (the DES is
    imported only when the option is given, so that ``--help`` stays cheap)."""

    def parse(text: str) -> int:
        from ssdco.sim.des import MAX_REQUESTS, min_requests

        return _int_at_least(min_requests(), MAX_REQUESTS, or_zero)(text)

    return parse


def _replications(text: str) -> str | int:
    """argparse type of ``validate``'s and ``sweep``'s ``--replications``: ``auto`` or an integer in
    [0, MAX_REPLICATIONS]."""
    from ssdco.sim.replications import MAX_REPLICATIONS

    if text == "auto":
        return text
    try:
        return _int_at_least(0, MAX_REPLICATIONS)(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected auto or an integer in [0, {MAX_REPLICATIONS:,}], got {text!r}")


def _float_in(positive: bool, maximum: float = math.inf):
    """argparse type: a finite number > 0 (``positive``) or >= 0, up to ``maximum``, with a clear message
    otherwise."""
    allowed = f"a number {'>' if positive else '>='} 0" + (f" and <= {maximum:g}" if maximum < math.inf else "")

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and (value > 0.0 if positive else value >= 0.0) and value <= maximum):
            raise argparse.ArgumentTypeError(f"expected {allowed}, got {text!r}")
        return value

    return parse


_positive_float = _float_in(positive=True)
_nonnegative_float = _float_in(positive=False)


def _timing_spread_scv(text: str) -> float:
    """argparse type of ``validate --timing-spread``: an scv > 0, at most the config's own limit."""
    from ssdco.validation.compare import MAX_TIMING_SPREAD_SCV

    return _float_in(positive=True, maximum=MAX_TIMING_SPREAD_SCV)(text)


def write_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (see :mod:`ssdco.atomic`)."""
    write_text_atomic(path, text)


def _fmt(x: float | None, unit: str = "", digits: int = 1) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "n/a"
    return f"{x:,.{digits}f}{unit}"


def format_result(r, source: str | None = None) -> str:
    """Human-readable table of a what-if :class:`~ssdco.model.whatif.Result` (``source``: the config file)."""
    from ssdco.errors import unstable_open_workload_error

    lines = []
    wl = (f"closed, queue depth {r.queue_depth}" if r.workload == "closed"
          else f"open, {r.arrival_iops:,.0f} IOPS offered")
    lines.append(f"ssdco whatif: {r.config_name}  controller {r.controller}  ({wl}; {r.method})")
    lines.append("")
    if not r.stable:  # an answer, not an error ("stable": false; exit 1 with --check): validate's error's words
        why = unstable_open_workload_error(source or r.config_name, r.arrival_iops, r.bottleneck,
                                           r.utilization[r.bottleneck], r.bounds.capacity_iops)
        lines += textwrap.wrap(f"UNSTABLE: {why}; latency has no steady-state value", width=118,
                               subsequent_indent="  ", break_on_hyphens=False) + [""]
        lines.append("  IOPS                 unstable (no steady state: no throughput, latency or power figures)")
    else:
        lines.append(f"  IOPS                 {_fmt(r.iops, '', 0)}")
        lines.append(f"  latency mean         {_fmt(r.latency_mean_us, ' us', 2)}")
        lines.append(f"  {'latency p99 (est.)':<21}{_fmt(r.latency_p99_us, ' us', 2)}")
    lines += _bounds_lines(r)
    lines.append("")
    load = "utilisation" if r.stable else "offered load"
    lines.append(f"  station                 servers x copies   {load:>11}   mean jobs/copy")
    for ld in r.stations:
        jobs = f"{r.mean_jobs[ld.name]:>12.3f}" if r.stable else f"{'-':>12}"
        lines.append(f"  {ld.name:<24}{ld.servers:>4} x {ld.copies:<6}   {r.utilization[ld.name]:>10.3f}   {jobs}")
    lines.append("")
    if r.stable:
        lines += _power_ftl_budget_lines(r)
    for caveat in r.caveats:  # known disagreements with the DES (whatif.trust_caveats)
        lines += [""] + textwrap.wrap(f"CAVEAT: {caveat}; check with ssdco validate.", width=118,
                                      subsequent_indent="  ", break_on_hyphens=False)
    return "\n".join(lines)


def _bounds_lines(r) -> list[str]:
    """The bounds line and the line saying what limits throughput (``Result.limited_by``)."""
    cap = r.bounds.capacity_iops
    pop = r.bounds.population_iops
    wbuf = r.bounds.write_buffer_iops
    idle = r.bounds.idle_iops
    idle_text = f"{r.bounds.idle_station} idle while every request is away"
    limit = min([(pop, "queue depth (N / zero-load latency)"), (wbuf, "write buffer (its background runs)"),
                 (idle, idle_text),
                 (cap, f"bottleneck station {r.bottleneck}")], key=lambda bound: bound[0])[1]  # the first smallest
    population_bound = f", X <= {_fmt(pop, '', 0)} (N / {r.bounds.zero_load_latency_us:.2f} us)"
    bounds = (f"  bounds (IOPS)        X <= {_fmt(cap, '', 0)} (capacity of {r.bottleneck})"
              + (population_bound if math.isfinite(pop) else "")
              + (f", X <= {_fmt(wbuf, '', 0)} (write buffer)" if math.isfinite(wbuf) else "")
              + (f", X <= {_fmt(idle, '', 0)} ({idle_text})" if math.isfinite(idle) else ""))
    busiest, limited = r.busiest_station, r.limited_by
    if limited in r.utilization:  # a station
        text = f"{limited} ({r.utilization[limited]:.0%} {'busy' if r.stable else 'offered load'}"
    else:
        text = f"{limited} (busiest station {busiest}, {r.utilization[busiest]:.0%} busy"
    return [bounds, f"  bottleneck           {text}; tightest bound: {limit})"]


def _power_ftl_budget_lines(r) -> list[str]:
    """Power, energy, FTL (wear figures only where the workload writes) and the budget table of a stable answer;
    an unset budget or target reads "not set", not met."""
    p = r.power
    lines = [f"  power: cores {p.cores_mw:.1f} mW, accelerators {p.accelerators_mw:.1f} mW, "
             f"DRAM {p.dram_mw:.1f} mW" + (f", SRAM {p.sram_mw:.1f} mW" if p.sram_mw else "")
             + f", total {p.total_mw:.1f} mW",
             f"  energy per I/O       {_fmt(r.energy_per_io_nj, ' nJ', 1)}",
             f"  whole drive: {p.drive_mw:,.1f} mW (+ NAND {p.nand_mw:,.1f}, SoC static {p.soc_static_mw:,.1f}, "
             f"PCIe PHY {p.phy_mw:,.1f}), {_fmt(p.drive_energy_per_io_nj(r.iops), ' nJ', 1)} per I/O", ""]
    if r.ftl is not None:  # [ftl] table: mapping option, WAF, lifetime (ssdco/network/ftl_effects.py)
        f = r.ftl
        lines.append(f"  FTL: {f['mapping']} mapping (hit ratio {f['mapping_hit_ratio']:.3f}, "
                     f"DRAM {f['dram_size_gib']:.3f} GiB, "
                     f"<= {f['max_nand_ops_per_read']} NAND ops per read), {f['gc_policy']} GC"
                     + (" (fresh drive: none during the run)" if f["drive_state"] == "fresh" else ""))
        if f["host_write_mb_s"] > 0:  # WAF, endurance and life describe writes: none on a read-only workload
            finite_life = f["life_years"] is not None and math.isfinite(f["life_years"])
            life = f"{f['life_years']:.3g} years" if finite_life else "unlimited"
            steady = "steady-state " if f["drive_state"] == "fresh" else ""  # a fresh run's WAF is 1; wear is not
            lines.append(f"       {steady}WAF {f['waf']:.2f} (GC {f['waf_gc']:.2f}), host writes "
                         f"{f['host_write_mb_s']:,.1f} MB/s, TBW {f['tbw']:,.0f} TB, {f['dwpd']:.2f} DWPD (5 y), "
                         f"life at this rate {life}")
        else:
            lines.append("       read-only workload: no flash wear")
        lines.append("")
    lines.append("  budget                limit          value         met")
    for name, b in r.budgets.items():
        unit = " IOPS" if name == "min_iops" else " mW"
        limit = _fmt(b.limit, unit, 1 if unit == " mW" else 0) if b.is_set else "not set"
        met = ("yes" if b.met else "NO") if b.is_set else "-"
        lines.append(f"  {name:<20}{limit:>14}  {_fmt(b.value, unit, 1 if unit == ' mW' else 0):>14}   {met}")
    return lines


def _traced_config(args, extra: list[str] | None = None):
    """The command's device file with ``--trace``'s workload and ``--buffer``'s NAND work set, under the user's own
    ``--set`` (and ``extra`` overrides): ``(config, trace workload or None, NAND work or None)``. With ``--buffer``
    the trace is read once: its workload is counted on the way to the replay, which needs only the device's
    geometry (which the trace's workload does not set)."""
    from ssdco import load_config
    from ssdco.trace.workload import WorkloadTally

    user = list(args.overrides) + list(extra or [])
    device = load_config(args.config, controller=args.controller, overrides=user)
    if not args.trace:
        _trace_nand_work(args, device, None)  # --buffer without --trace: an error
        return device, None, None
    tally = WorkloadTally()
    nand_work = _trace_nand_work(args, device, tally)
    traced = _trace_workload(args.trace, args.trace_format, tally if nand_work is not None else None)
    nand = nand_work.overrides() if nand_work is not None else []
    config = load_config(args.config, controller=args.controller, overrides=traced.overrides() + nand + user)
    return config, traced, nand_work


def _trace_doc(args, traced, nand_work) -> dict:
    """The JSON keys of what ``--trace`` and ``--buffer`` set (none without them)."""
    doc = {}
    if traced:
        doc["trace_workload"] = {"trace": args.trace, **traced.to_dict()}
    if nand_work is not None:
        doc["trace_nand_work"] = nand_work.to_dict()
    return doc


def _print_trace_lines(args, traced, nand_work) -> None:
    """The lines saying what ``--trace`` and ``--buffer`` set (none without them)."""
    if traced:
        print(_trace_workload_line(args.trace, traced))
    if nand_work is not None:
        print(_trace_nand_work_line(nand_work))


def _cmd_whatif(args) -> int:
    from ssdco import evaluate

    _check_sensitivity_plot(args)
    config, traced, nand_work = _traced_config(args)
    effort = "exact" if args.exact else "fast" if args.fast else "full"
    result = evaluate(config, effort=effort)
    sens = None
    glob = _global_sensitivity(args, config, effort)
    if args.sensitivity:
        from ssdco.sensitivity import elasticities

        sens = elasticities(config, step=args.sensitivity_step, effort=effort,
                            parameters=args.sensitivity_parameters)
        _sensitivity_plot(args, sens, f"{config.name}, controller {config.controller.name}")
    if args.json:
        doc = {**result.to_dict(), **_trace_doc(args, traced, nand_work)}
        if sens is not None:
            doc["sensitivity"] = _sensitivity_dict(sens)
        if glob is not None:
            doc["global_sensitivity"] = _global_dict(glob)
        print(json.dumps(doc, indent=2))
    else:
        _print_trace_lines(args, traced, nand_work)
        print(format_result(result, source=args.config))
        if sens is not None:
            from ssdco.sensitivity import sensitivity_table

            print()
            print(sensitivity_table(sens))
        if glob is not None:
            from ssdco.sensitivity import global_table

            print()
            print(global_table(glob))
    return EXIT_NOT_MET if args.check and not (result.stable and result.budgets_met) else EXIT_OK


def _global_sensitivity(args, config, effort: str):
    """``whatif --sensitivity-global``'s Morris screening (None without the option)."""
    if args.sensitivity_global is None:
        return None
    from ssdco.sensitivity import global_sensitivity, parse_ranges

    return global_sensitivity(config, parse_ranges(args.sensitivity_global), trajectories=args.trajectories,
                              seed=args.sensitivity_seed, effort=effort)


def _global_dict(g) -> dict:
    """The JSON form of ``whatif --sensitivity-global`` (each measure in its figure's unit)."""
    return {"method": "morris", "trajectories": g.trajectories, "designs": g.evaluations, "seed": g.seed,
            "effects": [{"parameter": e.parameter, "low": e.low, "high": e.high, "mu_star": e.mu_star,
                         "sigma": e.sigma, "mu_star_conf": e.mu_star_conf} for e in g.effects]}


def _check_sensitivity_plot(args) -> None:
    """Refuse ``--sensitivity-plot`` without ``--sensitivity``, or to a path that cannot be written, before any work."""
    if args.sensitivity_parameters is not None and not args.sensitivity:
        raise ConfigError("command line", "--sensitivity-parameters", ",".join(args.sensitivity_parameters),
                          "used with --sensitivity")
    if args.sensitivity_plot is None:
        return
    if not args.sensitivity:
        raise ConfigError("command line", "--sensitivity-plot", args.sensitivity_plot, "used with --sensitivity")
    _check_plot_option(args.sensitivity_plot, "--sensitivity-plot")


def _sensitivity_plot(args, sens, title: str) -> None:
    """Write ``--sensitivity-plot``'s tornado chart of ``sens`` when asked."""
    if args.sensitivity_plot is not None:
        from ssdco.report.plots import plot_tornado

        plot_tornado(sens, args.sensitivity_plot, title=f"sensitivity: {title}")
        print(f"wrote the tornado chart to {args.sensitivity_plot}", file=sys.stderr)


def _sensitivity_dict(s) -> dict:
    """The JSON form of ``whatif --sensitivity`` (elasticities are dimensionless; NaN where a figure is 0)."""
    def num(x: float):
        return x if math.isfinite(x) else None

    return {"step": s.step, "base": {k: num(v) for k, v in s.base.items()},
            "varied": [{"parameter": e.parameter, "value": e.value,
                        "elasticity": {k: num(v) for k, v in e.by_figure.items()}} for e in s.varied],
            "not_varied": [{"parameter": p, "why": why} for p, why in s.not_varied]}


def _trace_workload(path: str, fmt: str, tally=None):
    """The workload of the trace at ``path`` (``ssdco.trace.workload``), from ``tally`` when it has counted the
    trace already; ConfigError for a trace with no records."""
    from ssdco.errors import ConfigError
    from ssdco.trace.reader import read_trace_chunks
    from ssdco.trace.workload import chunks_workload

    try:
        return tally.workload() if tally is not None else chunks_workload(read_trace_chunks(path, fmt))
    except ValueError as e:
        raise ConfigError(path, "records", 0, f"expected at least one read or write request ({e})") from None


def _trace_nand_work(args, config, tally):
    """``--buffer``'s replay of the trace (``ssdco.trace.nand_work``) with the geometry of ``config``, its chunks
    counted by ``tally`` on the way, or None without ``--buffer``; ConfigError for ``--buffer`` without ``--trace``
    or without an ``[ftl]`` table."""
    if args.buffer is None:
        return None
    if not args.trace:
        raise ConfigError("command line", "--buffer", args.buffer, "used with --trace TRACE")
    if config.ftl is None:
        raise ConfigError(args.config, "ftl", "(missing)", "--buffer sets ftl.read_hit_fraction, ftl.flush_fraction "
                                                          "and ftl.waf: add an [ftl] table to the device file")
    from ssdco.spec import KIB
    from ssdco.trace.nand_work import trace_nand_work
    from ssdco.trace.reader import read_trace_chunks

    _note_trace_kernels()
    unit_bytes = int(config.workload.mapping_unit_kib * KIB)
    units_per_page = max(1, int(config.nand.page_size_kib // config.workload.mapping_unit_kib))
    return trace_nand_work(tally.passing(read_trace_chunks(args.trace, args.trace_format)), args.trace, args.buffer,
                           int(args.buffer_mib * 2**20), args.ftl, page_bytes=unit_bytes,
                           pages_per_block=config.nand.pages_per_block * units_per_page,
                           over_provisioning=config.nand.over_provisioning, log_blocks=args.log_blocks,
                           flush_at_end=args.flush_at_end)


def _trace_nand_work_line(work) -> str:
    """One line saying what the buffer and mapping left for the NAND and which fields it set."""
    waf = "no write reached it" if work.waf is None else f"WAF {work.waf:.3g}"
    return (f"NAND work through {work.policy} {work.buffer_bytes / 2**20:g} MiB + {work.mapping} mapping: "
            f"{work.read_hit_fraction:.1%} of page reads found in the buffer, {work.flush_fraction:.1%} of page "
            f"writes reach the flash, {waf}, {work.erases:,} erases (sets {', '.join(work.overrides())})")


def _trace_workload_line(path: str, traced) -> str:
    """One line saying what the trace set: records, read share, sizes, sequential share."""
    sizes = ", ".join(f"{s:g} KiB {p:.1%}" for s, p in zip(traced.sizes_kib, traced.probabilities))
    return (f"workload from {path}: {traced.records:,} requests, {traced.read_fraction:.1%} reads, sizes {sizes} "
            f"(mean {traced.mean_size_kib:.3g} KiB), {traced.sequential_fraction:.1%} sequential (the address "
            f"pattern stays as configured)")


def format_validation(v) -> str:
    """Human-readable side-by-side table of a :class:`~ssdco.validation.compare.Validation`."""
    from ssdco.validation.compare import IOPS_TOLERANCE, LATENCY_TOLERANCE, UTILIZATION_TOLERANCE, timing_spread_note

    a, d = v.analytic, v.des
    rel = v.relative_error
    seed_text = f"seed {v.seed}" if v.seed is not None else f"numba seed {d.numba_seed}"

    def pct(key: str) -> str:
        return f"{rel[key]:+.2%}" if key in rel and math.isfinite(rel[key]) else "n/a"

    def row(label: str, analytic: str, des: str, error: str, tolerance: str, note: str = "") -> str:
        return (f"  {label:<20}{analytic:>12}{des:>26}{error:>12}{tolerance:>11}" + (f"   {note}" if note else ""))

    p99_note = (f"(estimate; DES p50 {d.p50_us:,.2f} us, p99.9 {d.p999_us:,.2f} us)")
    lines = [f"ssdco validate: {a.config_name}  controller {a.controller}  "
             f"({d.measured_requests:,} requests measured after {d.warmup_requests:,} warm-up, {seed_text})",
             "",
             row("metric", "analytic", "DES (95% CI)", "rel. error", "tolerance"),
             row("IOPS", f"{a.iops:,.0f}", f"{d.iops.value:,.0f} +- {d.iops.half_width:,.0f}", pct("iops"),
                 f"{IOPS_TOLERANCE:.0%}"),
             row("latency mean (us)", f"{a.latency_mean_us:,.2f}",
                 f"{d.mean_latency_us.value:,.2f} +- {d.mean_latency_us.half_width:,.3f}", pct("latency_mean_us"),
                 f"{LATENCY_TOLERANCE:.0%}"),
             row("latency p99 (us)", _fmt(a.latency_p99_us, '', 2), f"{d.p99_us:,.2f}", pct("latency_p99_us"), "-",
                 p99_note),
             row("power total (mW)", f"{a.power.total_mw:,.1f}", f"{v.des_power_mw['total']:,.1f}",
                 pct("power_total_mw"), "-", "DES: from its measured busy time"),
             "",
             f"  {'station':<24}{'util. analytic':>16}{'util. DES':>12}{'abs. error':>12}   "
             f"(utilisation: busy fraction per server; tolerance {UTILIZATION_TOLERANCE})"]
    for name, err in v.utilization_error.items():
        lines.append(f"  {name:<24}{a.utilization[name]:>16.3f}{d.utilization[name]:>12.3f}{err:>+12.3f}")
    lines += ["",
              f"  DES speed: {d.events:,} events in {d.wall_seconds:.2f} s = "
              f"{d.events_per_second / 1e6:.1f} M events/s",
              "",
              *_replication_lines(v), *_timing_spread_lines(v)]
    lines += textwrap.wrap("  verdict: " + _verdict_text(v), width=118, subsequent_indent="    ",
                           break_on_hyphens=False)
    spread_note = timing_spread_note(v)
    if spread_note:
        lines += textwrap.wrap("  " + spread_note, width=118, subsequent_indent="    ", break_on_hyphens=False)
    for caveat in a.caveats:  # a known disagreement: what the user sees above is expected there
        lines += textwrap.wrap(f"  known: {caveat}.", width=118, subsequent_indent="    ", break_on_hyphens=False)
    return "\n".join(lines)


def _replication_lines(v) -> list[str]:
    """The extra DES runs' line of the validate table (none where no extra runs were made)."""
    r = v.replications
    if r is None:
        return []
    spawned = f" spawned from seed {v.seed}" if v.seed is not None else ""
    text = (f"  DES from {len(r.seeds)} more seeds{spawned} ({r.requests:,} requests each): IOPS "
            + ", ".join(f"{x.value:,.0f}" for x in r.iops)
            + f"; all {len(r.iops) + 1} runs span {r.iops_spread:.2%}, heterogeneity p = {r.heterogeneity_p:.2g}")
    return textwrap.wrap(text, width=118, subsequent_indent="    ", break_on_hyphens=False) + [""]


def _timing_spread_lines(v) -> list[str]:
    """The ``--timing-spread`` run's line of the validate table (none where it was not asked for)."""
    if v.timing_spread is None:
        return []
    return textwrap.wrap("  " + v.timing_spread.summary(), width=118, subsequent_indent="    ",
                         break_on_hyphens=False) + [""]


def _verdict_text(v) -> str:
    """The verdict line after ``verdict:``."""
    if v.verdict == "UNSETTLED":
        return f"UNSETTLED - {v.unsettled_reason()}; rerun with more --requests"
    if v.verdict == "AGREE":
        return "AGREE - analytic model and DES within tolerance"
    return "DISAGREE - " + ", ".join(v.failed_checks) + " outside tolerance"


def _cmd_validate(args) -> int:
    from ssdco.validation.compare import validate

    _check_plot_option(args.plot)
    config, traced, nand_work = _traced_config(args)
    progress = sys.stderr.isatty() if args.progress == "auto" else args.progress == "on"
    v = validate(config, requests=args.requests, seed=args.seed, progress=progress, replications=args.replications,
                 markov_chain=not args.fast, timing_spread_scv=args.timing_spread)
    if args.plot is not None:
        from ssdco.report.plots import plot_validation

        plot_validation(v, args.plot)
    if args.json:
        print(json.dumps({**v.to_dict(), **_trace_doc(args, traced, nand_work)}, indent=2))
    else:
        _print_trace_lines(args, traced, nand_work)
        print(format_validation(v))
        if args.plot is not None:
            print(f"wrote the latency plot to {args.plot}")
    return EXIT_OK if v.agrees else EXIT_NOT_MET


def _progress(choice: str) -> bool:
    return sys.stderr.isatty() if choice == "auto" else choice == "on"


def _cmd_study(args) -> int:
    from ssdco.report.study import check_study_dir, default_command, require_matplotlib, run_study, write_study

    require_matplotlib()  # before the long run, not after it
    check_output_path(args.out, "--out", directory=True)  # likewise
    recover_dir(args.out)  # what a killed study left: the previous report back in place, unfinished ones removed
    check_study_dir(args.out)
    command = default_command(args.config, out=args.out, requests=args.requests, seed=args.seed,
                              min_iops=args.min_iops)
    study = run_study(args.config, requests=args.requests, seed=args.seed, progress=_progress(args.progress),
                      min_iops=args.min_iops, command=command)
    paths = write_study(study, args.out)
    print(f"ssdco study: wrote {len(paths)} files to {args.out}/")
    for t in study.trends:
        print(f"  {t.verdict:<38} {t.title}")
    return 0


def _cmd_sweep(args) -> int:
    from ssdco.sweep_runner import check_outputs, plan_sweep, run_sweep

    check_outputs(args.out, args.parquet)  # before validating every grid point, too
    _check_plot_option(args.plot)
    plan = plan_sweep(args.config, args.grid, controller=args.controller, overrides=args.overrides,
                      des_requests=args.des_requests, seed=args.seed, replications=args.replications,
                      fast=args.fast)
    def started(points: int, done: int) -> None:
        print(f"ssdco sweep: {points - done:,} of {points:,} points to run, each row written to {args.out} as it "
              "is done (a stopped sweep resumes where it stopped)", file=sys.stderr)

    s = run_sweep(plan, args.out, workers=args.workers, scheduler=args.scheduler,
                  connect_timeout_s=args.connect_timeout_s, parquet=args.parquet,
                  progress=_progress(args.progress), on_start=started)
    where = f"{s.path}" + (f" and {s.parquet}" if s.parquet else "")
    if args.plot is not None:
        _plot_sweep_csv(plan, s.path, args.plot)
        where += f"; plot {args.plot}"
    print(f"ssdco sweep: {s.points} points ({s.resumed} already done, {s.computed} computed"
          + (f", {s.errors} with errors" if s.errors else "") + f") -> {where}")
    return EXIT_NOT_MET if s.errors else EXIT_OK


def _check_plot_option(path: str | None, option: str = "--plot") -> None:
    """Before a long run: refuse a plot path (``option``'s) that cannot be written or a missing matplotlib."""
    if path is None:
        return
    from ssdco.report.plots import require_matplotlib

    require_matplotlib()
    check_output_path(path, option)


def _plot_sweep_csv(plan, csv_path, png_path: str) -> None:
    """``sweep --plot``: the finished CSV's rows against the grid's axes."""
    from ssdco.api import _parse_cell
    from ssdco.report.plots import plot_sweep
    from ssdco.sweep_runner import read_sweep_csv

    rows = [{k: _parse_cell(v) for k, v in r.items()} for r in read_sweep_csv(csv_path)]
    name = Path(plan.config_path).stem
    plot_sweep(rows, [a.field for a in plan.axes], png_path,
               title=f"ssdco sweep of {name}" + (f", controller {plan.controller}" if plan.controller else "")
               + (" (DES: open squares)" if plan.des_requests else ""))


def _optimize_outputs(args, result) -> tuple[dict[str, str | None], list[str]]:
    """Write ``optimize``'s requested files (Pareto CSV, plot, the pick's controller file); return what was
    written (by kind) and a note per file."""
    from ssdco.report.optimize import design_toml, pareto_csv

    files: dict[str, str | None] = {}
    notes = []
    if args.pareto is not None and result.pareto is not None:
        write_atomic(args.pareto, pareto_csv(result.pareto))
        files["pareto"] = str(args.pareto)
        notes.append(f"wrote the Pareto front ({len(result.pareto)} designs) to {args.pareto}")
    if args.plot is not None and result.pareto is not None:
        from ssdco.report.plots import plot_optimize

        plot_optimize(result, args.plot)
        files["plot"] = str(args.plot)
        notes.append(f"wrote the Pareto plot to {args.plot}")
    if args.write_design is not None:
        if result.pick is None:
            files["design"] = None
            notes.append(f"nothing qualifies: {args.write_design} not written")
        else:
            name = Path(args.write_design).stem
            t = result.targets
            desc = (f"ssdco optimize pick for {result.config.name}: >= {t.target_iops:,.0f} IOPS at QD{t.queue_depth}, "
                    f"core-side <= {t.core_power_mw:g} mW, DRAM <= {t.dram_power_mw:g} mW; cost {result.cost:.4g}")
            write_atomic(args.write_design, design_toml(result.pick, name, desc))
            files["design"] = str(args.write_design)
            notes.append(f"wrote the pick to {args.write_design} (use: ssdco whatif {args.config} --controller "
                         f"{args.write_design})")
    return files, notes


def _break_evens(config, result, sens, count: int, search: dict) -> list:
    """``optimize --break-even``: for the ``count`` parameters the pick's IOPS is most elastic to (``sens``), where
    the pick changes (``ssdco.sensitivity.break_even``), each trial value searched with the same targets."""
    from ssdco.optimizer import optimize
    from ssdco.sensitivity import break_even

    def pick_label(trial) -> str | None:
        found = optimize(trial, **search)
        return found.pick.label() if found.pick is not None else None

    ranked = [e for e in sens.varied if math.isfinite(e.by_figure["iops"]) and e.by_figure["iops"] != 0.0]
    return [break_even(config, e.parameter, pick_label) for e in ranked[:count]]


def _optimize_search(args) -> dict:
    """The targets and search options of ``ssdco optimize`` from its command line (``optimize``'s keywords)."""
    options = {**({"verify_des": False} if args.no_des else {}),
               **({"markov_chain": False} if args.fast else {}),
               **({"min_life_years": args.min_life_years} if args.min_life_years is not None else {}),
               **({"timing_spread_scv": args.timing_spread} if args.timing_spread is not None else {})}
    return dict(min_iops=args.min_iops, core_power_mw=args.core_mw, dram_power_mw=args.dram_mw,
                max_latency_us=args.max_latency_us, max_p99_us=args.max_p99_us, max_p999_us=args.max_p999_us,
                options=options or None)


def _print_optimize(args, result, files: dict, notes: list[str], sens, breaks, traced=None, nand_work=None) -> None:
    """``ssdco optimize``'s output: JSON, or the text report with the pick's sensitivity and break-even values
    (after what ``--trace`` and ``--buffer`` set, when given)."""
    from ssdco.report.optimize import format_text, to_json

    if args.json:
        doc = {**to_json(result), **_trace_doc(args, traced, nand_work)}
        doc["files"] = files
        if args.sensitivity:
            doc["sensitivity"] = _sensitivity_dict(sens) if sens is not None else None
        if args.break_even:
            doc["break_even"] = [vars(b) for b in breaks] if breaks is not None else None
        print(json.dumps(doc, indent=2))
    else:
        _print_trace_lines(args, traced, nand_work)
        print(format_text(result))
        if sens is not None:
            from ssdco.sensitivity import sensitivity_table

            print()
            print(sensitivity_table(sens).replace("SENSITIVITY", "SENSITIVITY OF THE PICK", 1))
            if breaks:
                from ssdco.sensitivity import break_even_lines

                print()
                print("\n".join(break_even_lines(breaks, result.pick.label())))
        for n in notes:
            print(n)


def _cmd_optimize(args) -> int:
    """``ssdco optimize``: exit 0 with a pick, 1 when nothing qualifies (then ``feasible`` is false and the report
    says which constraint binds and which designs come closest; no design file is written)."""
    from ssdco.optimizer import optimize

    for option, path in (("--pareto", args.pareto), ("--write-design", args.write_design)):
        if path is not None:  # before the search (and its DES runs), not after it
            check_output_path(path, option)
    _check_plot_option(args.plot)
    if args.break_even and not args.sensitivity:
        raise ConfigError("command line", "--break-even", args.break_even, "used with --sensitivity")
    _check_sensitivity_plot(args)
    drive = [f"budgets.drive_power_mw={args.drive_mw!r}"] if args.drive_mw is not None else []
    config, traced, nand_work = _traced_config(args, drive)
    search = _optimize_search(args)
    result = optimize(config, explain=args.explain, pareto_front=args.pareto is not None or args.plot is not None,
                      **search)
    files, notes = _optimize_outputs(args, result)
    sens = breaks = None
    if args.sensitivity and result.pick is not None:
        from ssdco.sensitivity import elasticities

        sens = elasticities(result.pick_config(), effort="fast" if args.fast else "full",
                            parameters=args.sensitivity_parameters)
        _sensitivity_plot(args, sens, f"{config.name}: the pick {result.pick.label()}")
        breaks = _break_evens(config, result, sens, args.break_even, search)
    _print_optimize(args, result, files, notes, sens, breaks, traced, nand_work)
    return EXIT_OK if result.feasible else EXIT_NOT_MET


def _cmd_import_mqsim(args) -> int:
    from ssdco.errors import ConfigError
    from ssdco.spec.mqsim import import_mqsim

    if Path(args.out).exists() and not args.force:
        raise ConfigError("--out", "out", args.out, "a file that does not exist yet (or give --force to replace it)")
    check_output_path(args.out, "--out")
    imported = import_mqsim(args.ssd_xml, args.workload_xml, flow=args.flow)
    write_text_atomic(args.out, imported.toml())
    print(f"ssdco import-mqsim: wrote {args.out}; try: ssdco whatif {args.out}")
    print("values adapted to ssdco's model:")
    for field, what in imported.notes:
        print(f"  {field}: {what}")
    print(f"MQSim parameters ssdco leaves out ({len(imported.ignored)}):")
    for item in imported.ignored:
        print(f"  {item.name} = {item.value}: {item.why}")
    return EXIT_OK


def _trace_chunks(args, stats):
    """The records ``ssdco trace`` replays, as chunks: the file's or the synthetic pattern's."""
    from ssdco.errors import ConfigError
    from ssdco.trace.reader import read_trace_chunks
    from ssdco.trace.synthetic import SyntheticSpec, synthetic_chunks
    if (args.trace is None) == (args.synthetic is None):
        raise ConfigError("command line", "trace", args.trace, "expected a TRACE file or --synthetic PATTERN, "
                                                               "exactly one of them")
    if args.synthetic is not None:
        spec = SyntheticSpec(args.synthetic, args.records, footprint_bytes=int(args.footprint_mib * (1 << 20)),
                             page_bytes=args.page_kib * 1024)
        title = f"synthetic {args.synthetic}, {args.records:,} records, seed {args.seed}"
        return synthetic_chunks(spec, args.seed), title
    return read_trace_chunks(args.trace, args.format, args.skip_bad, stats), args.trace


def _cmd_trace(args) -> int:
    from ssdco.trace.cost import CostWeights
    from ssdco.trace.record import ParseStats
    from ssdco.trace.simulate import MIB, TraceSetup, simulate_chunks
    from ssdco.trace.table import results_csv, results_table
    if args.out:
        check_output_path(args.out, "--out")
    _check_plot_option(args.plot)
    setup = TraceSetup(args.buffer, tuple(int(m * MIB) for m in args.buffer_mib), args.ftl, args.page_kib * 1024,
                       args.pages_per_block, args.log_blocks, args.op, flush_at_end=args.flush_at_end)
    weights = CostWeights.from_timings(*args.nand_us) if args.nand_us else CostWeights()
    stats = ParseStats()
    chunks, title = _trace_chunks(args, stats)
    _note_trace_kernels()
    total = args.records if args.synthetic is not None else None
    results = simulate_chunks(_with_progress(chunks, total, _progress(args.progress)), setup, weights)
    print(f"trace: {title}")
    if args.synthetic is None:
        print(f"  {stats.records:,} records, {stats.bad_lines:,} bad lines skipped, "
              f"{stats.ignored_lines:,} lines ignored (headers, actions other than reads and writes)")
        for message in stats.first_errors:
            print(f"  skipped: {message}")
    print(results_table(results))
    if args.out:
        write_text_atomic(args.out, results_csv(results))
        print(f"wrote {args.out}")
    if args.plot:
        from ssdco.report.trace_plot import plot_trace

        plot_trace(results, args.plot, title)
        print(f"wrote the plot to {args.plot}")
    return EXIT_OK


def _note_trace_kernels() -> None:
    """Say on stderr that the trace kernels compile, the first time they do."""
    from ssdco.first_run import TRACE_KERNELS, TRACE_NOTE

    note_if_compiling(folder=TRACE_KERNELS, note=TRACE_NOTE)


def _with_progress(chunks, total: int | None, shown: bool):
    """``chunks`` passed through, a tqdm bar on stderr counting their records (of ``total`` when known)."""
    from tqdm.auto import tqdm

    with tqdm(total=total, unit=" records", unit_scale=True, desc="trace", file=sys.stderr,
              disable=not shown) as bar:
        for chunk in chunks:
            yield chunk
            bar.update(len(chunk))


def _calibrated_file(args, c, source_text: str, ok: bool) -> tuple[list[str], dict]:
    """Write ``calibrate --out`` when every parameter is determined: the notes to print and the outputs written."""
    from ssdco.calibration.outfile import calibrated_toml

    if args.out is None:
        return [], {}
    if not ok:
        return [f"{args.out} not written: some parameters are not determined by the data"], {"out": None}
    write_text_atomic(args.out, calibrated_toml(source_text, args.config, c.parameters))
    return [f"wrote the calibrated device file to {args.out} (the input with the fitted values substituted; try: "
            f"ssdco whatif {args.out}" + (f" --controller {args.controller}" if args.controller else "") + ")"
            + ("; the --set overrides are not written into it" if args.overrides else "")], {"out": str(args.out)}


def _cmd_calibrate(args) -> int:
    """``ssdco calibrate``: exit 0 with every parameter determined, 1 when some are unidentifiable or the
    minimiser failed (then --out is not written)."""
    from ssdco import load_config
    from ssdco.calibration.check import des_check, des_target_check
    from ssdco.calibration.fit import fit
    from ssdco.calibration.measurements import read_measurements
    from ssdco.calibration.outfile import check_substitutable
    from ssdco.calibration.params import resolve_parameters
    from ssdco.calibration.report import calibration_dict, format_calibration
    from ssdco.calibration.targets import read_targets

    if not args.measured and not args.targets:
        raise ConfigError("calibrate", "--measured", MISSING, "expected --measured FILE and/or --targets FILE.toml")
    if args.out is not None:
        check_output_path(args.out, "--out")
    _check_plot_option(args.plot)
    config = load_config(args.config, controller=args.controller, overrides=args.overrides)
    parameters = resolve_parameters(config, args.fit)
    source_text = Path(args.config).read_text(encoding="utf-8")
    if args.out is not None:
        check_substitutable(source_text, args.config, [p.path for p in parameters])
    points = read_measurements(args.measured)
    targets = tuple(t for path in args.targets for t in read_targets(path))
    c = fit(config, parameters, points, fit_p99=args.fit_p99, effort="fast" if args.fast else "full", targets=targets)
    checks = des_check(config, c, requests=args.des_requests, seed=args.seed) if args.des_check else None
    target_checks = des_target_check(config, c, requests=args.des_requests, seed=args.seed) \
        if args.des_check and targets else None
    ok = not c.unidentifiable and c.status > 0
    notes, files = _calibrated_file(args, c, source_text, ok)
    if args.plot is not None:
        from ssdco.report.calibration import plot_calibration

        plot_calibration(c, args.plot, checks, target_checks)
        files["plot"] = str(args.plot)
        notes.append(f"wrote the fit plot to {args.plot}")
    if args.json:
        doc = calibration_dict(c, files=args.measured, checks=checks, target_checks=target_checks)
        doc["outputs"] = files
        print(json.dumps(doc, indent=2))
    else:
        print(format_calibration(c, files=args.measured, checks=checks, des_requests=args.des_requests,
                                 des_seed=args.seed, target_checks=target_checks))
        for n in notes:
            print(n)
    return EXIT_OK if ok else EXIT_NOT_MET


def _cmd_serve(args) -> int:
    """``ssdco serve``: serve the page until interrupted (Ctrl-C: exit 0)."""
    from ssdco import load_config
    from ssdco.serve.app import require_dash, serve

    require_dash()  # before loading anything: the one thing a base install lacks
    config = load_config(args.config, controller=args.controller, overrides=args.overrides)

    def ready(url: str) -> None:
        print(f"ssdco serve: {config.name} on {url} (Ctrl-C stops)", flush=True)

    serve(config, host=args.host, port=args.port, des_requests=args.des_requests, ready=ready)  # until Ctrl-C
    print("ssdco serve: stopped", file=sys.stderr)
    return EXIT_OK


COMMANDS = {"whatif": _cmd_whatif, "validate": _cmd_validate, "study": _cmd_study, "sweep": _cmd_sweep,
            "optimize": _cmd_optimize, "import-mqsim": _cmd_import_mqsim,
            "trace": _cmd_trace, "calibrate": _cmd_calibrate, "serve": _cmd_serve}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ssdco`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command != "trace":  # trace compiles its own kernels only, and says so itself
        note_if_compiling()
    try:
        return COMMANDS[args.command](args)
    except SsdcoError as e:
        print(f"ssdco: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("ssdco: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader (e.g. `| head`) went away: stop quietly, as Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except OSError as e:  # an output path that cannot be written (a parent that is a file, no permission, ...)
        where = f"{e.filename}: " if e.filename else ""
        print(f"ssdco: error: {where}{e.strerror or e}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
