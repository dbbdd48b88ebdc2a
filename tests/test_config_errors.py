"""Every malformed input gives one clear error naming file, field, value and what is allowed."""

import subprocess
import sys
from pathlib import Path

import pytest

from ssdco import ConfigError, load_config
from ssdco.cli import main

DATA = Path(__file__).parent / "data"
BAD = sorted((DATA / "bad_configs").glob("*.toml"))


def expected_field(path: Path) -> str:
    first = path.read_text().splitlines()[0]
    assert first.startswith("# field: "), f"{path.name} must start with '# field: <dotted path>'"
    return first.removeprefix("# field: ").strip()


def test_corpus_is_large_enough():
    assert len(BAD) >= 15


@pytest.mark.parametrize("path", BAD, ids=[p.stem for p in BAD])
def test_bad_config_names_file_and_field(path):
    with pytest.raises(ConfigError) as info:
        load_config(path)
    err = info.value
    assert err.field == expected_field(path)
    assert str(path) in str(err)
    assert f"'{err.field}'" in str(err)
    assert err.allowed  # says what would be accepted


@pytest.mark.parametrize("path", BAD, ids=[p.stem for p in BAD])
def test_cli_exit_code_2_without_traceback(path, capsys):
    assert main(["whatif", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "Traceback" not in captured.err
    assert captured.err.startswith("ssdco: error: ")
    assert expected_field(path) in captured.err


def test_minimal_config_is_valid():
    cfg = load_config(DATA / "minimal.toml")
    assert cfg.controller.name == "inline"


@pytest.mark.parametrize("override,field", [
    ("workload.queue_depth=0", "workload.queue_depth"),
    ("nand.channels=-1", "nand.channels"),
    ("workload.read_fraction=abc", "workload.read_fraction"),
    ("nand.t_read_us.x=1", "nand.t_read_us.x"),
    ("novalue", "novalue"),
])
def test_bad_overrides(override, field):
    with pytest.raises(ConfigError) as info:
        load_config(DATA / "minimal.toml", overrides=[override])
    assert info.value.field == field


def test_missing_file_and_unknown_controller():
    with pytest.raises(ConfigError, match="file not found"):
        load_config(DATA / "does-not-exist.toml")
    with pytest.raises(ConfigError, match="no such controller"):
        load_config(DATA / "minimal.toml", controller="c99")


def test_console_script_usage_error_exits_2():
    proc = subprocess.run([sys.executable, "-m", "ssdco.cli", "whatif"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
