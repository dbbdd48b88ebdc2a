# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # The ssdco tour through the Python API
#
# The README's five-minute tour (whatif -> optimize -> validate -> sweep) as Python calls. Run it as a script
# (`python examples/tour.py` from the repository) or as a notebook (`jupytext --to notebook examples/tour.py`).
# Every function takes a configuration file (or a `ssdco.load_config` result) and uses the command line's
# defaults. Environment variables make it smaller or larger:
#
# - `SSDCO_TOUR_REQUESTS`: requests of the DES run that checks the pick (default 200000, as `ssdco validate`);
# - `SSDCO_TOUR_QUEUE_DEPTHS`: the sweep's queue depths (default `1,2,4,8,16,32,64`);
# - `SSDCO_TOUR_PLOTS`: a directory to write the tour's PNG plots to (needs matplotlib; default: no plots).
#
# Lines starting with `tour:` repeat the headline figures in a form a program can read.

# %%
import os
from pathlib import Path

import ssdco
from ssdco import defaults


def find_config(name: str = "configs/pm9a3-960.toml") -> Path:
    """The shipped device configuration, from the repository root or from examples/."""
    here = Path(__file__).resolve().parent if "__file__" in globals() else Path.cwd()
    for root in (Path.cwd(), here, here.parent):
        if (root / name).is_file():
            return root / name
    raise FileNotFoundError(f"{name}: run the tour from the ssdco repository")


CONFIG = find_config()
REQUESTS = int(os.environ.get("SSDCO_TOUR_REQUESTS", defaults.DES_REQUESTS))
QUEUE_DEPTHS = [int(q) for q in os.environ.get("SSDCO_TOUR_QUEUE_DEPTHS", "1,2,4,8,16,32,64").split(",")]
PLOTS = os.environ.get("SSDCO_TOUR_PLOTS")

# %% [markdown]
# ## 1. What if? One design, analytically
#
# Controller preset c07 on the PM9A3-like drive at the file's workload (4 KiB random reads, queue depth 32).
# IOPS are requests per second, latencies in microseconds, power in milliwatts.

# %%
c07 = ssdco.evaluate(CONFIG, controller="c07")
print(c07)
print(f"tour: whatif c07 iops={c07.iops!r} latency_mean_us={c07.latency_mean_us!r} "
      f"power_total_mw={c07.power.total_mw!r} capacity_iops={c07.bounds.capacity_iops!r}")

# %% [markdown]
# ## 2. Optimize: the cheapest controller that meets the study's targets
#
# The study's targets: the IOPS of c01 (its baseline design) within the file's power budgets (core side
# 192 mW, DRAM 800 mW). The optimizer checks its pick with the analytic model and a short DES run.

# %%
c01 = ssdco.evaluate(CONFIG, controller="c01")
best = ssdco.optimize(CONFIG, min_iops=c01.iops, pareto_front=PLOTS is not None)
print(best)
print(f"tour: optimize target_iops={best.targets.target_iops!r} status={best.status} cost={best.cost!r} "
      f"pick_iops={best.verdict.analytic.iops!r}")

# %% [markdown]
# ## 3. Validate the pick with the discrete-event simulator
#
# The same design in the embedded DES: the verdict says whether the model's IOPS (within 3 %), mean latency
# (within 10 %) and utilisations agree with what the simulator measures.

# %%
pick = best.pick_config("pick")
check = ssdco.validate(pick, requests=REQUESTS, seed=defaults.SEED)
print(check)
print(f"tour: validate model_iops={check.analytic.iops!r} des_iops={check.des.iops.value!r} "
      f"verdict={check.verdict}")

# %% [markdown]
# ## 4. Sweep the queue depth
#
# The analytic model at every queue depth (the fast answers: milliseconds a point). `to_frame()` gives a pandas
# DataFrame when pandas is installed.

# %%
rows = ssdco.sweep(CONFIG, {"workload.queue_depth": QUEUE_DEPTHS}, controller="c07", fast=True)
print(rows)
for r in rows:
    print(f"tour: sweep queue_depth={r['workload.queue_depth']} iops={r['iops']!r} "
          f"latency_mean_us={r['latency_us.mean']!r}")

# %% [markdown]
# ## Plots
#
# With `SSDCO_TOUR_PLOTS=dir`: the Pareto front with the pick, the pick's latency distribution against the
# model's marks, and the sweep.

# %%
if PLOTS is not None:
    from ssdco.report import plots

    out = Path(PLOTS)
    written = [plots.plot_optimize(best, out / "optimize.png"), plots.plot_validation(check, out / "validate.png"),
               plots.plot_sweep(rows.rows, rows.axes, out / "sweep.png", title="c07 against queue depth")]
    for p in written:
        print(f"tour: plot {p}")
