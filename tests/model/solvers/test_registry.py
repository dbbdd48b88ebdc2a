"""The solver registry (ssdco/model/solvers/registry.py): precedence, declared domains, the trace of declines."""

import copy

import pytest

from ssdco.model.queueing.route_mva import ALL_FEATURES
from ssdco.model.solvers import PRIMARY, REFINERS, SOLVER_NAMES, all_but, answer, context
from ssdco.network.build import build_network
from ssdco.spec import config_from_dict
from tests.gallery import gallery


def _network(design: str, **workload):
    d = copy.deepcopy(gallery(design))
    d["workload"].update(workload)
    if "arrival_iops" in workload:
        d["workload"].pop("queue_depth", None)
    return build_network(config_from_dict(d))


def test_the_registered_solvers_in_precedence():
    assert SOLVER_NAMES == ("exact-convolution", "open-mgc-allen-cunneen", "markov-chain", "route-mva",
                            "platoon-stage")
    assert [s.name for s in PRIMARY][-1] == "route-mva"  # the fallback of every closed workload comes last
    assert all(s.refines for s in REFINERS)


def test_all_but_and_context_refuse_unknown_names_and_leaving_out_the_fallback():
    assert all_but("platoon-stage") == tuple(n for n in SOLVER_NAMES if n != "platoon-stage")
    with pytest.raises(ValueError, match="unknown solver"):
        all_but("periodic-schedule")
    network = _network("two-reads-two-dies")
    with pytest.raises(ValueError, match="cannot be left out"):
        context(network, solvers=all_but("route-mva"))
    with pytest.raises(ValueError, match="effort 'quick'"):
        context(network, effort="quick")


@pytest.mark.parametrize("effort,expected", [("full", "markov-chain"), ("exact", "exact-convolution")])
def test_the_first_primary_solver_that_fits_answers(effort, expected):
    ctx = context(_network("two-reads-two-dies"), effort=effort)
    assert answer(ctx).solver == expected
    # the solvers asked before the one that answered say why they declined; none after it is asked
    expected_declines = ({"exact-convolution": "only at the exact effort", "open-mgc-allen-cunneen": "closed workload"}
                         if effort == "full" else {})
    assert ctx.trace.declined == expected_declines


def test_an_open_workload_goes_to_the_open_solver_and_the_closed_ones_say_why_not():
    ctx = context(_network("two-reads-two-dies", arrival_iops=20_000.0))
    assert answer(ctx).solver == "open-mgc-allen-cunneen"
    assert ctx.trace.primary == "open-mgc-allen-cunneen"
    assert ctx.trace.declined == {"exact-convolution": "open workload"}


def test_a_refiner_replaces_the_route_mvas_answer_where_it_fits():
    network = _network("reads-over-two-one-die-channels")  # QD 7, a channel the bottleneck
    ctx = context(network)
    found = answer(ctx)
    assert ctx.trace.primary == "route-mva" and found.solver == "platoon-stage"
    without = context(network, solvers=all_but("platoon-stage"))
    assert answer(without).solver == "route-mva"
    assert context(network, route_features=ALL_FEATURES).route_features == ALL_FEATURES
