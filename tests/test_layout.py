"""The package's layout by concern: every import points down the layers (or within one), and no two modules
import each other, directly or around a loop. Function-level (lazy) imports count the same as top-level ones.

Layers, lowest first (a module may import its own layer and the ones below it):

0. utilities: errors, atomic output, seeds, defaults, number formatting, the first-run note
1. ``ssdco.ftl``: pure FTL formulas (WAF, mapping caches, address patterns)
2. ``ssdco.spec``: the configuration's schema and its TOML loading
3. ``ssdco.network``: spec -> frozen queueing network, FTL effects computed once
4. ``ssdco.sim``: the discrete-event simulators and their statistics
5. ``ssdco.model``: the analytic model (queueing methods, solver registry, bounds, power, p99, what-if)
6. ``ssdco.validation``: model against DES, random designs; ``ssdco.calibration``: fitting parameters to measurements
7. ``ssdco.optimizer``: the placement and device search
8. ``ssdco.report``: text, markdown, plots of study and optimizer results
9. the application: sweep runner, the web page (``ssdco.serve``), Python API, command line
"""

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "ssdco"
LAYERS = (
    ("ssdco.errors", "ssdco.atomic", "ssdco.rng", "ssdco.defaults", "ssdco.display", "ssdco.first_run",
     "ssdco.metrics"),
    ("ssdco.ftl",),
    ("ssdco.spec",),
    ("ssdco.network",),
    ("ssdco.sim", "ssdco.trace"),
    ("ssdco.model",),
    ("ssdco.validation", "ssdco.calibration"),
    ("ssdco.optimizer",),
    ("ssdco.report",),
    ("ssdco.sweep_runner", "ssdco.sensitivity", "ssdco.serve", "ssdco.api", "ssdco.cli", "ssdco.__main__", "ssdco"),
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> int:
    """The layer of ``module``: the longest layer prefix that names it or a package holding it."""
    best, best_len = None, -1
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = index, len(prefix)
    assert best is not None, f"{module} is in no layer: add it to LAYERS"
    return best


def imports_of(module: str) -> set[str]:
    """The package modules ``module`` imports anywhere in its file (``from x import submodule`` names the
    submodule)."""
    path = MODULES[module]
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "ssdco")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = package[:len(package) - node.level + 1]
                target = ".".join(anchor + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "ssdco":
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                out.add(sub if sub in MODULES else target)
    out.discard(module)
    return out


GRAPH = nx.DiGraph([(m, target) for m in MODULES for target in imports_of(m)])


def test_every_module_is_in_a_layer():
    for module in MODULES:
        layer_of(module)


def test_the_graph_sees_the_imports():
    assert ("ssdco.model.whatif", "ssdco.network.build") in GRAPH.edges
    assert ("ssdco.cli", "ssdco.api") in GRAPH.edges


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down_the_layers(module):
    upward = sorted(t for t in imports_of(module) if layer_of(t) > layer_of(module))
    assert not upward, f"{module} (layer {layer_of(module)}) imports from higher layers: {upward}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_import_names_a_module_of_the_package(module):
    missing = sorted(t for t in imports_of(module) if t not in MODULES)
    assert not missing, f"{module} imports modules that do not exist: {missing}"


def test_no_import_cycles():
    cycles = list(nx.simple_cycles(GRAPH))
    assert not cycles, f"import cycles: {cycles[:5]}"


def test_production_code_does_not_import_the_tests():
    hits = [m for m in MODULES if any(t.split(".")[0] == "tests" for t in _all_targets(m))]
    assert not hits, f"modules importing the tests' oracles: {hits}"


def _all_targets(module: str) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(MODULES[module].read_text())):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_the_architecture_page_is_generated_from_the_sources():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, str(ROOT / "tools" / "architecture.py"), "--check"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
