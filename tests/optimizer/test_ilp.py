"""The ILP: same optimum as brute-force enumeration of the same linear model, named rows, cuts, elastic mode."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdco.optimizer import ilp
from ssdco.optimizer.enumerate import enumerate_space, linear_optimum
from ssdco.optimizer.problem import LinearModel, make_targets
from ssdco.optimizer.space import DesignSpace
from ssdco.spec import MODULES, config_from_dict, load_config
from tests.conftest import PM9A3
from tests.strategies import config_dicts


def costs(hi: float):
    """0 or a cost the config accepts (spec.MIN_MAGNITUDE: no subnormal or 1e-200 costs)."""
    return st.one_of(st.just(0.0), st.floats(1e-6, hi))


@st.composite
def models(draw):
    raw = draw(config_dicts(closed=True))
    raw["optimizer"] = {"max_cores_per_group": draw(st.integers(1, 2)), "max_units": draw(st.integers(1, 2)),
                        "hardware_modules": sorted(draw(st.sets(st.sampled_from(MODULES)))),
                        "core_specs": draw(st.sampled_from([["fast"], ["slow"], ["fast", "slow"]]))}
    raw["core_specs"] = {k: dict(v, cost=draw(st.floats(0.05, 2.0))) for k, v in raw["core_specs"].items()}
    raw["accelerator_specs"] = {m: dict(v, unit_cost=draw(costs(1.0)), development_cost=draw(costs(2.0)))
                                for m, v in raw["accelerator_specs"].items()}
    raw["budgets"] = {"core_power_mw": draw(st.floats(5.0, 400.0)), "dram_power_mw": draw(st.floats(200.0, 1500.0))}
    space = DesignSpace.from_config(config_from_dict(raw, source="<generated>"))
    targets = make_targets(space, min_iops=draw(st.floats(0.0, 6e5)), utilization_cap=draw(st.floats(0.3, 1.0)))
    return LinearModel(space, targets)


@given(models())
@settings(max_examples=30, deadline=None)
def test_ilp_optimum_equals_enumeration_optimum(model):
    sol = ilp.solve(model, solver="cbc")
    tab = enumerate_space(model.space, model.coef)
    b, cost = linear_optimum(tab, model)
    assert sol.feasible == (b is not None)
    if sol.feasible:
        ev = model.evaluate(sol.design)
        assert ev.feasible, ev.violated()  # the pick re-evaluates feasible under the linear model
        assert model.space.contains(sol.design)
        assert ev.cost == pytest.approx(cost, rel=1e-6, abs=1e-6)


def test_rows_are_named(tmp_path):
    cfg = load_config(PM9A3)
    space = DesignSpace.from_config(cfg)
    model = LinearModel(space, make_targets(space, min_iops=5e5))
    ilp.write_lp(model, tmp_path / "m.lp", cuts=[next(iter(space.designs()))])
    text = (tmp_path / "m.lp").read_text()
    names = {line.split(":")[0].strip() for line in text.splitlines() if ":" in line}
    assert {f"assign_{m}" for m in MODULES} <= names
    assert {f"util_{m}" for m in MODULES} <= names
    assert {"util_pcie", "util_die", "util_channel", "population_bound", "core_power", "dram_power",
            "nogood_0"} <= names
    prob, *_ = ilp.build(model)
    assert len(prob.variables()) == 31 * 8 + 5 * 2 + 1


def test_nogood_cut_excludes_exactly_the_design_and_floor_moves_up():
    cfg = load_config(PM9A3)
    space = DesignSpace.from_config(cfg)
    model = LinearModel(space, make_targets(space, min_iops=5e5))
    first = ilp.solve(model)
    second = ilp.solve(model, cuts=[first.design])
    assert second.feasible and second.design != first.design
    assert model.cost(second.design) >= model.cost(first.design) - 1e-9
    c1 = model.cost(first.design)
    above = ilp.solve(model, cost_floor=c1 + 1e-3)
    assert model.cost(above.design) > c1 + 1e-3 - 1e-9
    capped = ilp.solve(model, cost_cap=c1 - 1e-3)
    assert not capped.feasible


def test_elastic_mode_names_the_violated_rows():
    cfg = load_config(PM9A3)
    space = DesignSpace.from_config(cfg)
    model = LinearModel(space, make_targets(space, min_iops=5.6e5, core_power_mw=5.0))
    assert not ilp.solve(model).feasible
    el = ilp.solve(model, elastic=True)
    assert el.feasible and set(el.violations) == {"core_power"}
    assert model.evaluate(el.design).violated() == ["core_power"]
    model2 = LinearModel(space, make_targets(space, min_iops=6.5e5))
    el2 = ilp.solve(model2, elastic=True)
    assert "population_bound" in el2.violations


def test_dropping_a_family_relaxes_it():
    cfg = load_config(PM9A3)
    space = DesignSpace.from_config(cfg)
    model = LinearModel(space, make_targets(space, min_iops=5.6e5, core_power_mw=5.0))
    sol = ilp.solve(model, drop=("core_power",))
    assert sol.feasible and model.evaluate(sol.design).violated() == ["core_power"]


def test_highs_requested_without_highspy_is_a_config_error(monkeypatch):
    from ssdco.errors import ConfigError

    monkeypatch.setattr(ilp, "_highs_available", lambda: False)  # as on a machine without highspy

    with pytest.raises(ConfigError, match="highspy"):
        ilp.solver_name("highs")
    assert ilp.solver_name("auto") == "cbc"


def test_highs_gives_the_same_optimum_as_cbc():
    # highspy comes with `make test` (the "highs" extra), so CI runs this; skip only elsewhere
    if not ilp._highs_available():
        pytest.skip("highspy not installed (optional: pip install -e '.[highs]')")
    cfg = load_config(PM9A3)
    space = DesignSpace.from_config(cfg)
    model = LinearModel(space, make_targets(space, min_iops=5e5))
    a, b = ilp.solve(model, solver="cbc"), ilp.solve(model, solver="highs")
    assert math.isclose(model.cost(a.design), model.cost(b.design), rel_tol=1e-6)
