"""Set-up that always works: the README's commands, a deterministic ``make test``, a cheap start-up, the first
run's compile note, and no test that depends on the machine's speed."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

import ssdco
from ssdco import defaults, first_run

ROOT = Path(__file__).resolve().parent.parent


def _make_rule(target: str) -> str:
    text = (ROOT / "Makefile").read_text()
    match = re.search(rf"^{re.escape(target)}:.*?(?=^\S|\Z)", text, re.M | re.S)
    assert match, f"Makefile has no {target!r} rule"
    return match.group(0)


def test_make_test_pins_the_hypothesis_examples_and_make_fuzz_draws_fresh_ones():
    text = (ROOT / "Makefile").read_text()
    assert re.search(r"^HYPOTHESIS_PROFILE \?= ci$", text, re.M)
    assert "HYPOTHESIS_PROFILE=$(HYPOTHESIS_PROFILE)" in _make_rule("test")
    assert "HYPOTHESIS_PROFILE=dev" in _make_rule("fuzz")


def test_make_demo_installs_only_the_base_dependencies():
    assert _make_rule("demo").split("\n")[0].split(":")[1].split() == ["$(BIN)/.base"]
    assert "pip install --quiet -e .\n" in _make_rule("$(BIN)/.base")


def test_ci_runs_the_readmes_test_command():
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    head = (ROOT / "README.md").read_text().split("```")[1]
    assert "make demo" in head and "make test" in head


def test_no_test_asserts_on_wall_clock_time():
    timed = re.compile(r"assert[^\n]*(elapsed|perf_counter\(\)|time\.time\(\)|monotonic\(\))[^\n]*<")
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("*.py")
                 if p.name != "test_setup.py" and timed.search(p.read_text())]
    assert not offenders


def _fresh_python(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          check=True).stdout.strip()


def test_import_ssdco_and_the_cli_parser_do_not_load_the_model():
    loaded = _fresh_python("import sys, ssdco, ssdco.cli; ssdco.cli.build_parser();"
                           "print(sorted(m for m in ('numpy', 'scipy', 'numba', 'ssdco.model.whatif')"
                           " if m in sys.modules))")
    assert loaded == "[]"


def test_the_public_names_load_on_first_use():
    assert sorted(ssdco.__all__) == sorted(ssdco._LAZY) and set(ssdco.__all__) <= set(dir(ssdco))
    assert ssdco.evaluate is __import__("ssdco.api", fromlist=["evaluate"]).evaluate
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        ssdco.nope  # noqa: B018


def test_version_answers_from_the_console_script_and_python_dash_m():
    for argv in ([sys.executable, "-m", "ssdco", "--version"], [sys.executable, "-m", "ssdco.cli", "--version"]):
        out = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, check=True).stdout.strip()
        assert out == f"ssdco {defaults.VERSION}" == f"ssdco {ssdco.__version__}"


def test_the_compile_note_is_printed_only_before_the_kernels_are_cached(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SSDCO_COMPILE_NOTE", "1")
    assert not first_run.kernels_cached(tmp_path)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert first_run.note_if_compiling() is True
    assert capsys.readouterr().err == first_run.NOTE + "\n"
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "kernel-1.py311.nbi").write_bytes(b"")
    assert first_run.kernels_cached(tmp_path) and first_run.note_if_compiling() is False
    monkeypatch.setenv("SSDCO_COMPILE_NOTE", "0")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "empty"))
    assert first_run.note_if_compiling() is False
    assert capsys.readouterr().err == ""


def test_the_trace_kernels_have_their_own_note(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SSDCO_COMPILE_NOTE", "1")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    (tmp_path / "queueing_0a1b").mkdir()
    (tmp_path / "queueing_0a1b" / "erlang.erlang_c-1.py311.nbi").write_bytes(b"")
    assert first_run.kernels_cached() and not first_run.kernels_cached(folder=first_run.TRACE_KERNELS)
    assert first_run.note_if_compiling(folder=first_run.TRACE_KERNELS, note=first_run.TRACE_NOTE) is True
    assert capsys.readouterr().err == first_run.TRACE_NOTE + "\n"
    (tmp_path / "kernels_2c3d").mkdir()
    (tmp_path / "kernels_2c3d" / "lru._feed-1.py311.nbi").write_bytes(b"")
    assert first_run.note_if_compiling(folder=first_run.TRACE_KERNELS, note=first_run.TRACE_NOTE) is False


def test_the_kernels_of_this_checkout_count_as_cached_once_any_module_compiled_one(monkeypatch):
    # the kernels sit in the __pycache__ of the module folders that hold them (model/queueing, sim, ...), not of
    # a fixed list of folders: the check finds them wherever the layout puts them
    from ssdco.model.queueing.erlang import erlang_c

    erlang_c(2, 1.0)  # compiled (or loaded) and cached beside erlang.py
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    assert any((first_run.PACKAGE / "model" / "queueing" / "__pycache__").glob("erlang.erlang_c-*.nbi"))
    assert first_run.kernels_cached()
