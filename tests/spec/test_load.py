"""Configuration loading: every malformed input gives one clear error naming file, field, value and what is
allowed; every shipped config loads and evaluates."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ssdco import ConfigError, evaluate, load_config
from ssdco.cli import main
from ssdco.spec import list_controller_presets
from tests.conftest import CONFIGS, PM9A3

DATA = Path(__file__).parents[1] / "data"
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
    # found by fuzzing the CLI: each was a traceback or a silent nonsense answer
    ("workload.request_size_kib={ sizes = [4], probabilities = [nan] }", "workload.request_size_kib.probabilities"),
    ("workload.hot_space_fraction=1.0", "workload.hot_space_fraction"),  # hot_cold needs a cold zone
    ("host.command_bytes=4611686018427387904", "host.command_bytes"),  # integers get the magnitude check
    ("schema_version=true", "schema_version"),  # true == 1 in Python
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


@pytest.mark.parametrize("overrides,field", [
    (["workload.mapping_unit_kib=0.5", "workload.request_size_kib=1024"], "workload.request_size_kib"),  # 2,048 units
    (["ftl.capacity_gb=1e-12"], "ftl.capacity_gb"),  # divided the drive-writes-per-day by zero
    (["ftl.write_buffer_kib=1e12"], "ftl.write_buffer_kib"),  # ran out of memory
    (["workload.arrival_iops=1e-12"], "workload.arrival_iops"),  # the DES clock: ZeroDivisionError
])
def test_bad_values_found_by_fuzzing_the_pm9a3_preset(overrides, field):
    from tests.conftest import PM9A3

    with pytest.raises(ConfigError) as info:
        load_config(PM9A3, overrides=overrides)
    assert info.value.field == field


@pytest.mark.parametrize("overrides,field,allowed", [
    (["nand.page_size_kib=0.5"], "nand.page_size_kib", ">= workload.mapping_unit_kib (4 KiB)"),
    (["nand.page_size_kib=4.1"], "nand.page_size_kib", "a multiple of the 512 B sector"),
    (["nand.page_size_kib=16", "workload.mapping_unit_kib=32"], "nand.page_size_kib", ">= workload.mapping_unit_kib"),
    (["ftl.capacity_gb=5000"], "ftl.capacity_gb",
     "<= the raw NAND capacity (dies x planes x blocks_per_plane x pages_per_block x page_size_kib of [nand]), here "
     "2430.41 GB"),
    (["nand.page_size_kib=4"], "ftl.capacity_gb", "here 607.604 GB"),  # 960 GB on a quarter
    (["workload.request_size_kib=1e-9"], "workload.request_size_kib", "a multiple of the 512 B sector"),
    (["workload.request_size_kib=4.2"], "workload.request_size_kib", "a multiple of the 512 B sector"),
    (["workload.request_size_kib={sizes = [4, 6.25], probabilities = [0.5, 0.5]}"], "workload.request_size_kib.sizes",
     "every size must be a multiple of the 512 B sector"),
    (["workload.mapping_unit_kib=3.3"], "workload.mapping_unit_kib", "a multiple of the 512 B sector"),
])
def test_physically_impossible_devices_are_refused(overrides, field, allowed):
    with pytest.raises(ConfigError) as info:
        load_config(PM9A3, controller="c01", overrides=overrides)
    assert info.value.field == field and allowed in str(info.value)


@pytest.mark.parametrize("overrides", [
    ["nand.page_size_kib=4", "ftl.capacity_gb=600"],  # page = mapping unit, the capacity below the raw
    ["workload.request_size_kib=0.5", "workload.mapping_unit_kib=0.5", "dram.size_gib=8"],  # one sector
    ["workload.request_size_kib={sizes = [4, 6.5], probabilities = [0.5, 0.5]}"],  # whole sectors
])
def test_the_physical_limits_themselves_are_accepted(overrides):
    assert evaluate(load_config(PM9A3, controller="c01", overrides=overrides)).iops > 0


@pytest.mark.parametrize("argv,message", [
    (["validate", "{cfg}", "--seed", "-1"], "argument --seed: expected an integer >= 0"),
    (["validate", "{cfg}", "--requests", "1"], "argument --requests: expected an integer in [22, "),
    (["validate", "{cfg}", "--requests", "100000000000000000000"], "argument --requests"),
    (["validate", "{cfg}", "--replications", "-1"],
     "argument --replications: expected auto or an integer in [0, 1,000]"),
    (["validate", "{cfg}", "--replications", "some"], "argument --replications: expected auto or an integer"),
    *[(["validate", "{cfg}", "--timing-spread", bad], "argument --timing-spread: expected a number > 0 and <= 100, got")
      for bad in ("0", "-0.01", "abc", "101", "nan", "inf")],
    *[(["optimize", "{cfg}", "--timing-spread", bad], "argument --timing-spread: expected a number > 0 and <= 100, got")
      for bad in ("0", "-1", "nan")],
    (["optimize", "{cfg}", "--no-des", "--min-iops", "inf"], "argument --min-iops: expected a number >= 0"),
    (["optimize", "{cfg}", "--no-des", "--core-mw", "nan"], "argument --core-mw"),
    (["sweep", "{cfg}", "--grid", "workload.queue_depth=1", "--des-requests", "1"], "argument --des-requests"),
])
def test_bad_command_line_values_exit_2_naming_the_option(argv, message, capsys):
    from tests.conftest import PM9A3

    with pytest.raises(SystemExit) as info:
        main([a.format(cfg=PM9A3) for a in argv])
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def test_huge_targets_are_rejected_before_the_solver(capsys):
    # 1e20 IOPS put coefficients past HiGHS's infinity (IndexError inside PuLP); inf crashed the process
    from tests.conftest import PM9A3

    assert main(["optimize", str(PM9A3), "--no-des", "--min-iops", "1e20"]) == 2
    assert "field '--min-iops' = 1e+20: expected a number <= 1e+12" in capsys.readouterr().err
    assert main(["optimize", str(PM9A3), "--no-des", "--max-latency-us", "1e-12"]) == 2
    assert "--max-latency-us" in capsys.readouterr().err


def test_unwritable_outputs_exit_2_naming_the_path(tmp_path, capsys):
    from tests.conftest import PM9A3

    afile = tmp_path / "afile"
    afile.write_text("x")
    assert main(["optimize", str(PM9A3), "--no-des", "--pareto", str(afile / "x.csv")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ssdco: error: ") and "Traceback" not in err and str(afile) in err
    # an existing directory (or device) is never replaced by the output file
    assert main(["optimize", str(PM9A3), "--no-des", "--write-design", str(tmp_path)]) == 2
    assert "not a regular file" in capsys.readouterr().err
    assert tmp_path.is_dir()


def test_unreadable_config_paths(tmp_path):
    loop = tmp_path / "loop.toml"
    loop.symlink_to(loop)
    with pytest.raises(ConfigError, match="cannot read it"):
        load_config(loop)
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(ConfigError, match="cannot read it"):
        load_config(afile / "x.toml")


def test_empty_controller_reference_names_the_field(capsys):
    from tests.conftest import PM9A3

    with pytest.raises(ConfigError) as info:
        load_config(PM9A3, controller="")
    assert info.value.field == "controller" and "c01" in str(info.value)
    assert main(["whatif", str(PM9A3), "-c", ""]) == 2
    assert "field 'controller' = ''" in capsys.readouterr().err


@pytest.mark.parametrize("text", ["", "  \n\t\n", "# a controller, some day\n\n", "schema_version = 1\n",
                                  'name = "nothing"\n'])
def test_a_controller_file_that_defines_no_controller_says_so(text, tmp_path, capsys):
    # it used to fail the placement check ("field 'core_groups' = []: modules not placed ..."), which
    # did not say that the file itself is empty
    from tests.conftest import PM9A3

    ctl = tmp_path / "empty.toml"
    ctl.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(PM9A3, controller=str(ctl))
    err = info.value
    assert err.source == str(ctl) and err.field == "<file>"
    assert "empty" in err.allowed or "defines no controller" in err.allowed
    assert f"--controller '{ctl}'" in err.allowed and "[[core_groups]]" in err.allowed
    assert main(["whatif", str(PM9A3), "--controller", str(ctl)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    assert captured.err.startswith(f"ssdco: error: {ctl}: ")


def test_an_empty_controller_file_named_in_the_config(tmp_path, capsys):
    from tests.conftest import PM9A3

    (tmp_path / "blank.toml").write_text("# nothing yet\n")
    cfg = tmp_path / "device.toml"
    cfg.write_text(PM9A3.read_text().replace('controller = "c01"', 'controller = "blank.toml"', 1))
    assert main(["whatif", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'blank.toml'}: field '<file>'" in err
    assert "is empty" in err and f"controller = 'blank.toml' in {cfg}" in err


UNSTABLE = ["--controller", "c01", "--set", "workload.arrival_iops=5e7"]  # cores:cache serves 769,231 IOPS


def test_validate_of_an_unstable_open_workload_names_field_bottleneck_and_the_largest_stable_rate(capsys):
    # it was "open workload is unstable: station 'pcie' would be 29.5 utilised at 5e+07 IOPS (needs < 1)":
    # no file, no field, the first station past 1 rather than the bottleneck, and no rate that would work
    from tests.conftest import PM9A3

    assert main(["validate", str(PM9A3), *UNSTABLE, "--requests", "2000"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    assert captured.err.startswith(f"ssdco: error: {PM9A3}: field 'workload.arrival_iops' = 50000000.0: ")
    assert "bottleneck station 'cores:cache' would be 6,500.0 % utilised (utilisation 65, needs < 1)" in captured.err
    assert "expected an arrival rate below 769,231 IOPS, the maximum stable arrival rate" in captured.err


def test_unstable_open_workload_at_the_capacity_itself_shows_enough_digits():
    from ssdco.validation.compare import validate
    from tests.conftest import PM9A3

    cfg = load_config(PM9A3, controller="c01", overrides=["workload.arrival_iops=769231"])
    with pytest.raises(ConfigError) as info:
        validate(cfg, requests=2000)
    assert info.value.field == "workload.arrival_iops" and info.value.value == 769231
    assert "(utilisation 1.0000003, needs < 1)" in str(info.value)
    assert "below 769,230.77 IOPS" in str(info.value)  # not "below 769,231", the rate given


def test_whatif_of_an_unstable_open_workload_is_an_answer_with_the_same_explanation(capsys):
    # documented: an unstable open system is a result ("stable": false, latency null), exit 0, as in sweep rows
    from tests.conftest import PM9A3

    assert main(["whatif", str(PM9A3), *UNSTABLE]) == 0
    out = " ".join(capsys.readouterr().out.split())  # the explanation is wrapped over lines
    assert (f"UNSTABLE: {PM9A3}: field 'workload.arrival_iops' = 50000000.0: the open workload is unstable: "
            "its bottleneck station 'cores:cache' would be 6,500.0 % utilised") in out
    assert "below 769,231 IOPS, the maximum stable arrival rate (the capacity of 'cores:cache')" in out
    assert main(["whatif", str(PM9A3), *UNSTABLE, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["stable"] is False and doc["latency_us"]["mean"] is None


def test_the_des_names_the_bottleneck_of_an_unstable_open_workload():
    from ssdco.network.build import build_network
    from ssdco.sim.des import DesError, simulate
    from tests.conftest import PM9A3

    cfg = load_config(PM9A3, controller="c01", overrides=["workload.arrival_iops=5e7"])
    with pytest.raises(DesError) as info:
        simulate(build_network(cfg), requests=2000)
    msg = str(info.value)
    assert msg.startswith("workload.arrival_iops = 50,000,000 IOPS: the open workload is unstable")
    assert "'cores:cache' would be 6,500.0 % utilised" in msg and "below 769,231 IOPS" in msg


def test_study_and_optimize_check_their_outputs_before_running(tmp_path, capsys, monkeypatch):
    # both used to run to the end (minutes for the study) and then fail to write
    import ssdco.optimizer
    import ssdco.report.study
    from tests.conftest import PM9A3

    pytest.importorskip("matplotlib")
    monkeypatch.setattr(ssdco.report.study, "run_study", lambda *a, **k: pytest.fail("the study ran"))
    monkeypatch.setattr(ssdco.optimizer, "optimize", lambda *a, **k: pytest.fail("the search ran"))
    afile = tmp_path / "afile"
    afile.write_text("x")
    for argv, message in [
        (["study", str(PM9A3), "--out", str(afile)], f"--out: field 'out' = '{afile}': exists and is not a directory"),
        (["study", str(PM9A3), "--out", str(afile / "x")], f"{afile} is not a directory"),
        (["optimize", str(PM9A3), "--pareto", str(afile / "p.csv")], "--pareto: field 'pareto'"),
        (["optimize", str(PM9A3), "--write-design", str(tmp_path)], "is a directory, not a regular file"),
    ]:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("ssdco: error: ") and message in err and "Traceback" not in err


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_device_as_the_config_is_refused_not_read_forever(capsys):
    # /dev/zero used to be read until memory ran out; a pipe (``<(cat x.toml)``) is still read normally
    assert main(["whatif", "/dev/zero"]) == 2
    err = capsys.readouterr().err
    assert "/dev/zero" in err and "device" in err


def test_a_pipe_as_the_config_is_read(tmp_path, capsys):
    import os

    from tests.conftest import PM9A3

    read_end, write_end = os.pipe()
    os.write(write_end, PM9A3.read_bytes())
    os.close(write_end)
    try:
        assert main(["whatif", f"/dev/fd/{read_end}", "-c", "c01", "--json"]) == 0
    finally:
        os.close(read_end)
    assert json.loads(capsys.readouterr().out)["controller"] == "c01"


# 960 GB in 4 KiB units at 4 B per entry: 234,375,000 entries, 0.8731 GiB
PM9A3_TABLE_GIB = 234_375_000 * 4 / 2**30


@pytest.mark.parametrize("mapping", [[], ["ftl.mapping=\"dftl\""], ["ftl.mapping=\"partitioned\""]])
def test_dram_smaller_than_the_full_mapping_table_is_refused(mapping):
    # was accepted: a 0 GiB DRAM reported "full mapping, DRAM 0.000 GiB", a DFTL drive's derived DRAM size was
    # clamped to 0 silently
    from tests.conftest import PM9A3

    with pytest.raises(ConfigError) as info:
        load_config(PM9A3, overrides=[*mapping, "dram.size_gib=0.8"])
    assert info.value.field == "dram.size_gib"
    assert ">= 0.8731" in str(info.value) and "960 GB in 4 KiB units" in str(info.value)
    cfg = load_config(PM9A3, overrides=[*mapping, f"dram.size_gib={PM9A3_TABLE_GIB}"])  # just enough
    assert cfg.dram.size_gib == PM9A3_TABLE_GIB


def test_the_mapping_table_scales_with_capacity_and_mapping_unit():
    from tests.conftest import PM9A3

    with pytest.raises(ConfigError, match=">= 6.985"):  # 512 B units: 8 times the table
        load_config(PM9A3, overrides=["workload.mapping_unit_kib=0.5"])
    load_config(PM9A3, overrides=["workload.mapping_unit_kib=0.5", "ftl.capacity_gb=120"])  # 0.873 GiB again


def test_dram_size_is_free_without_an_ftl_table():
    # without [ftl] the device is the ideal one of the earlier issues; the DRAM size only sets its power
    assert load_config(DATA / "minimal.toml", overrides=["dram.size_gib=0"]).dram.size_gib == 0


def test_cli_refuses_a_dram_too_small_for_the_table_with_exit_2(capsys):
    from tests.conftest import PM9A3

    assert main(["whatif", str(PM9A3), "-c", "c01", "--set", "dram.size_gib=0"]) == 2
    err = capsys.readouterr().err
    assert "field 'dram.size_gib' = 0" in err and "Traceback" not in err


def test_a_controller_file_given_as_the_config_says_to_pass_it_with_controller(tmp_path, capsys):
    # optimize --write-design writes a controller file; given where the device configuration goes, the error
    # says what the file is and where it belongs
    pick = tmp_path / "pick.toml"
    pick.write_text((Path(__file__).parents[2] / "configs" / "controllers" / "c01.toml").read_text())
    assert main(["whatif", str(pick)]) == 2
    err = capsys.readouterr().err
    assert str(pick) in err and "'nand'" in err and "controller file" in err and "--controller" in err
    assert "Traceback" not in err
    # and used as a controller it works
    assert main(["whatif", str(Path(__file__).parents[2] / "configs" / "pm9a3-960.toml"),
                 "--controller", str(pick)]) == 0


# ---- the whole file, whatever the command ------------------------------------------------------------
PM9A3_FILE = PM9A3


@pytest.mark.parametrize("override, field", [
    ("optimizer.max_units=-1", "optimizer.max_units"),
    ("optimizer.utilization_cap=nan", "optimizer.utilization_cap"),
    ('optimizer.max_units="2"', "optimizer.max_units"),
    ("optimizer.des_seed=-5", "optimizer.des_seed"),
    ("optimizer.runners_up=99", "optimizer.runners_up"),
    ("optimizer=5", "optimizer"),
])
@pytest.mark.parametrize("command", ["whatif", "validate", "optimize"])
def test_a_bad_optimizer_table_is_refused_by_every_command(override, field, command, capsys):
    argv = [command, str(PM9A3_FILE), "-c", "c07", "--set", override]
    if command == "validate":
        argv += ["--requests", "2000"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"'{field}'" in err and "Traceback" not in err


def test_a_bad_optimizer_table_is_refused_by_the_python_api():
    with pytest.raises(ConfigError) as info:
        load_config(PM9A3_FILE, controller="c07", overrides=["optimizer.max_cores_per_group=0"])
    assert info.value.field == "optimizer.max_cores_per_group"


def test_the_files_own_controller_is_checked_when_another_is_given(tmp_path):
    text = PM9A3_FILE.read_text()
    bad = tmp_path / "own.toml"
    bad.write_text(text.replace('controller = "c01"', 'controller = "no-such-preset"', 1))
    assert 'controller = "no-such-preset"' in bad.read_text()
    (tmp_path / "controllers").symlink_to(PM9A3_FILE.parent / "controllers")
    with pytest.raises(ConfigError, match="no-such-preset"):
        load_config(bad, controller="c07")


def test_set_controller_together_with_controller_is_refused(capsys):
    argv = ["whatif", str(PM9A3_FILE), "-c", "c07", "--set", 'controller="c01"']
    assert main(argv) == 2
    assert "give one of them" in capsys.readouterr().err
# --------------------------------------------------------------------------------------------------
# Every shipped config loads and evaluates.
# --------------------------------------------------------------------------------------------------
PRESETS = list_controller_presets(CONFIGS)


def test_ten_presets_exist():
    assert PRESETS == [f"c{i:02d}" for i in range(1, 11)]


# the gallery's designs (configs/gallery/) have their own test, tests/test_gallery.py
SHIPPED = sorted(p for p in CONFIGS.glob("**/*.toml") if p.parent.name != "gallery")


@pytest.mark.parametrize("toml", SHIPPED, ids=lambda p: str(p.relative_to(CONFIGS)))
def test_every_config_file_loads(toml: Path):
    if toml.parent.name == "targets":  # calibration targets (ssdco calibrate --targets), against the PM9A3 file
        from ssdco.calibration.targets import check_targets, read_targets

        check_targets(load_config(PM9A3), read_targets(toml))
        return
    if toml.parent.name == "controllers":
        cfg = load_config(PM9A3, controller=str(toml))
    else:
        cfg = load_config(toml)
    r = evaluate(cfg)
    assert r.iops > 0 and r.latency_mean_us > 0


def test_the_shipped_config_does_not_call_a_working_table_reserved():
    text = (Path(__file__).resolve().parents[2] / "configs" / "pm9a3-960.toml").read_text()
    for line in text.splitlines():
        if "[optimizer.dram]" in line:
            assert "reserved" not in line.split("[optimizer.dram]", 1)[1].split(";")[0], line
