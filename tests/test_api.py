"""The Python API (ssdco/api.py): explicit signatures, the CLI's defaults, short reprs, DataFrames, IOPS bounds."""

import inspect
import subprocess
import sys

import pytest

import ssdco
from ssdco import ConfigError, defaults
from ssdco.cli import build_parser
from tests.conftest import PM9A3, ROOT

API = (ssdco.evaluate, ssdco.validate, ssdco.optimize, ssdco.sweep)
SMALL_DES = 5_000


@pytest.mark.parametrize("fn", API, ids=lambda f: f.__name__)
def test_api_functions_have_explicit_signatures_and_numpy_docstrings(fn):
    params = inspect.signature(fn).parameters
    assert not any(p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL) for p in params.values())
    assert list(params)[0] == "config"
    doc = inspect.getdoc(fn)
    for section in ("Parameters\n----------", "Returns\n-------"):
        assert section in doc
    for name in params:  # every parameter is documented
        assert name in doc, name


def test_whatif_is_evaluate():
    assert ssdco.whatif is ssdco.evaluate


def test_the_api_module_imports_nothing_heavy():
    code = ("import sys, ssdco.api; bad = [m for m in ('numba', 'ssdco.model.whatif', 'ssdco.sim.des', "
            "'ssdco.optimizer.search', 'pandas', 'matplotlib') if m in sys.modules]; print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == ""


def test_validate_and_sweep_share_the_command_lines_defaults():
    parser = build_parser()
    v = parser.parse_args(["validate", str(PM9A3)])
    sig = inspect.signature(ssdco.validate).parameters
    assert (v.requests, v.seed, v.replications) == (sig["requests"].default, sig["seed"].default,
                                                   sig["replications"].default)
    assert (v.requests, v.seed, v.replications) == (defaults.DES_REQUESTS, defaults.SEED, defaults.REPLICATIONS)
    s = parser.parse_args(["sweep", str(PM9A3), "--grid", "workload.queue_depth=1,2"])
    sig = inspect.signature(ssdco.sweep).parameters
    assert (s.des_requests, s.seed, s.replications, s.workers) == (
        sig["des_requests"].default, sig["seed"].default, sig["replications"].default, sig["workers"].default)


@pytest.fixture(scope="module")
def c07():
    return ssdco.evaluate(PM9A3, controller="c07")


def test_evaluate_takes_a_path_or_a_config_with_overrides(c07):
    cfg = ssdco.load_config(PM9A3, controller="c07")
    assert ssdco.evaluate(cfg).iops == c07.iops
    at8 = ssdco.evaluate(PM9A3, controller="c07", overrides=["workload.queue_depth=8"])
    assert at8.queue_depth == 8 and at8.iops < c07.iops
    assert ssdco.evaluate(cfg, overrides=["workload.queue_depth=8"]).iops == at8.iops
    assert ssdco.evaluate(cfg, controller="c01").controller == "c01"
    with pytest.raises(ConfigError, match="queue_depth"):
        ssdco.evaluate(PM9A3, overrides=["workload.queue_depth=0"])
    with pytest.raises(TypeError, match="Config"):
        ssdco.evaluate(42)


def test_result_repr_is_short_with_units(c07):
    text = repr(c07)
    assert len(text.splitlines()) <= 6 and len(text) < 600
    assert "np.float64" not in text
    assert f"IOPS {c07.iops:,.0f}" in text and f"{c07.latency_mean_us:,.2f} us" in text
    assert f"{c07.power.total_mw:,.1f} mW" in text
    html = c07._repr_html_()
    assert html.count("<tr>") == len(c07.headline()) + 1 and "IOPS" in html


def test_result_fields_are_all_documented_with_units():
    from dataclasses import fields

    doc = inspect.getdoc(ssdco.Result)
    assert "Attributes\n----------" in doc
    for f in fields(ssdco.Result):
        assert f"\n{f.name} :" in doc, f.name


def test_bounds_read_in_iops(c07):
    b = c07.bounds
    assert b.capacity_iops == b.capacity_per_us * 1e6
    assert b.population_iops == b.population_per_us * 1e6
    assert b.upper_iops == b.upper_per_us * 1e6
    doc = c07.to_dict()["bounds"]
    assert doc["capacity_iops"] == b.capacity_iops and doc["population_iops"] == b.population_iops


def test_result_to_frame_is_one_row_of_its_figures(c07):
    pytest.importorskip("pandas")
    df = c07.to_frame()
    assert len(df) == 1
    row = df.iloc[0]
    assert row["iops"] == c07.iops and row["latency_us.mean"] == c07.latency_mean_us
    assert row["power_mw.total"] == c07.power.total_mw and row["controller"] == "c07"


def test_to_frame_without_pandas_names_the_extra(c07, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"ssdco\[frame\]"):
        c07.to_frame()


def test_validate_result_is_short_and_frames(c07):
    v = ssdco.validate(PM9A3, controller="c07", requests=SMALL_DES, replications=0)
    text = repr(v)
    assert len(text.splitlines()) <= 6 and len(text) < 700 and "np.float64" not in text
    assert v.verdict in text and f"{v.des.iops.value:,.0f}" in text and f"{v.analytic.iops:,.0f}" in text
    assert "<table>" in v._repr_html_()
    assert v.analytic.iops == c07.iops
    pytest.importorskip("pandas")
    row = v.to_frame().iloc[0]
    assert row["des.iops"] == v.des.iops.value and row["iops"] == v.analytic.iops


@pytest.mark.parametrize("kwargs, field", [({"requests": 3}, "requests"), ({"requests": 1.5e4}, "requests"),
                                           ({"seed": -1}, "seed"), ({"replications": "some"}, "replications")])
def test_validate_refuses_bad_arguments_naming_them(kwargs, field):
    with pytest.raises(ConfigError, match=f"field '{field}'"):
        ssdco.validate(PM9A3, controller="c07", **kwargs)


@pytest.fixture(scope="module")
def optimized(c07):
    c01 = ssdco.evaluate(PM9A3, controller="c01")
    return ssdco.optimize(PM9A3, min_iops=c01.iops, verify_des=False, pareto_front=True)


def test_optimize_result_is_short_and_frames(optimized):
    text = repr(optimized)
    assert len(text.splitlines()) <= 8 and len(text) < 1000 and "np.float64" not in text
    assert optimized.pick.label() in text and f"cost {optimized.cost:,.2f}" in text
    assert f"{optimized.verdict.analytic.iops:,.0f} IOPS" in text
    assert "<table>" in optimized._repr_html_()
    pytest.importorskip("pandas")
    df = optimized.to_frame()
    assert df.iloc[0]["kind"] == "pick" and df.iloc[0]["cost"] == optimized.cost
    assert len(df) == 1 + len(optimized.runners_up)
    front = optimized.pareto_frame()
    assert len(front) == len(optimized.pareto) and list(front["cost"]) == [p.cost for p in optimized.pareto]


def test_optimize_options_reach_the_search(optimized):
    assert optimized.verdict.validation is None  # verify_des=False: no DES run


def test_sweep_rows_are_the_models_answers(c07):
    table = ssdco.sweep(PM9A3, {"workload.queue_depth": [8, 32]}, controller="c07")
    assert len(table) == 2 and table.axes == ("workload.queue_depth",)
    assert table.column("workload.queue_depth") == [8, 32]
    assert table[1]["iops"] == c07.iops
    at8 = ssdco.evaluate(PM9A3, controller="c07", overrides=["workload.queue_depth=8"])
    assert table[0]["iops"] == at8.iops
    again = ssdco.sweep(ssdco.load_config(PM9A3, controller="c07"), ["workload.queue_depth=8,32"])
    assert again.rows == table.rows
    text = repr(table)
    assert len(text.splitlines()) <= 14 and f"{c07.iops:,.0f}" in text
    pytest.importorskip("pandas")
    assert table.to_frame().shape == (2, len(table.columns))


def test_sweep_of_strings_stays_the_api_function_once_the_runner_is_imported():
    import ssdco.sweep_runner  # noqa: F401  (the module behind it has its own name: nothing rebinds ssdco.sweep)

    assert ssdco.sweep is ssdco.api.sweep
    table = ssdco.sweep(PM9A3, {"controller": ["c01", "c07"]}, fast=True)
    assert table.column("controller") == ["c01", "c07"]


def test_sweep_refuses_a_config_that_differs_from_its_file():
    cfg = ssdco.load_config(PM9A3, controller="c07", overrides=["workload.queue_depth=8"])
    with pytest.raises(ConfigError, match="differs from its file"):
        ssdco.sweep(cfg, {"workload.read_fraction": [1.0]})


def test_an_infeasible_optimize_says_so_in_its_repr_and_frames_the_closest_designs():
    result = ssdco.optimize(PM9A3, min_iops=5e6, verify_des=False)
    assert result.status == "infeasible"
    text = repr(result)
    assert "infeasible" in text and "qualifies" in text and len(text.splitlines()) <= 4
    pytest.importorskip("pandas")
    df = result.to_frame()
    assert len(df) == len(result.infeasibility.closest) >= 1
    assert all(kind.startswith("closest:") for kind in df["kind"])
