"""MQSim's XML inputs as ssdco device files (ssdco/spec/mqsim.py) and ``ssdco import-mqsim``."""

import csv
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import ssdco
from ssdco.cli import main
from ssdco.errors import ConfigError
from ssdco.spec import config_from_dict, load_config
from ssdco.spec.mqsim import GROUPS, READ_SSD, READ_WORKLOAD, import_mqsim

DATA = Path(__file__).resolve().parents[2] / "data" / "mqsim"
RUNS = sorted(p.name for p in (DATA / "inputs").iterdir())


def _inputs(run: str) -> tuple[Path, Path]:
    return DATA / "inputs" / run / "ssdconfig.xml", DATA / "inputs" / run / "workload.xml"


def _edited(tmp_path: Path, run: str, which: str, changes: dict[str, str]) -> tuple[Path, Path]:
    """Copies of ``run``'s inputs with the leaf elements of ``changes`` set (a value of None removes one)."""
    ssd, work = _inputs(run)
    source = ssd if which == "ssd" else work
    tree = ET.parse(source)
    for name, value in changes.items():
        for parent in tree.getroot().iter():
            for element in list(parent):
                if element.tag == name:
                    if value is None:
                        parent.remove(element)
                    else:
                        element.text = value
    out = tmp_path / source.name
    tree.write(out)
    return (out, work) if which == "ssd" else (ssd, out)


def _leaves(path: Path) -> int:
    return sum(1 for e in ET.parse(path).getroot().iter() if len(e) == 0 and e.tag not in GROUPS)


@pytest.mark.parametrize("run", RUNS)
def test_every_shipped_input_imports_and_its_file_is_its_design(run):
    imported = import_mqsim(*_inputs(run))
    assert tomllib.loads(imported.toml()) == imported.design
    config = config_from_dict(imported.design)
    assert ssdco.evaluate(config).iops > 0


@pytest.mark.parametrize("run", RUNS)
def test_every_parameter_is_read_or_listed_as_left_out(run):
    ssd, work = _inputs(run)
    imported = import_mqsim(ssd, work)
    names = [item.name for item in imported.ignored]
    assert all(item.why for item in imported.ignored)
    sequential = imported.design["workload"]["address_pattern"] == "sequential"
    assert "CMD_Suspension_Support" in names and ("Plane_Allocation_Scheme" in names) != sequential
    assert "t_read_us" not in names and "Page_Read_Latency_LSB" not in names
    # each element of the two files is one ssdco reads (READ_SSD, READ_WORKLOAD; a sequential stream's allocation
    # too) or one listed as left out
    read_ssd = READ_SSD + (("Plane_Allocation_Scheme",) if sequential else ())
    for path, read in ((ssd, read_ssd), (work, READ_WORKLOAD)):
        leaves = [e.tag for e in ET.parse(path).getroot().iter() if len(e) == 0 and e.tag not in GROUPS]
        assert all(tag in read or tag in names for tag in leaves)
    assert not set(names) & set(READ_SSD) - {"Percentage_of_Hot_Region"}
    assert len(names) == _leaves(ssd) + _leaves(work) - sum(
        tag in read_ssd + READ_WORKLOAD for path in (ssd, work)
        for tag in (e.tag for e in ET.parse(path).getroot().iter() if len(e) == 0 and e.tag not in GROUPS))


def test_the_pm9a3_like_drive_maps_one_to_one():
    d = import_mqsim(*_inputs("S_rr4k_qd32")).design
    nand, host, w, ftl = d["nand"], d["host"], d["workload"], d["ftl"]
    assert (nand["channels"], nand["ways_per_channel"], nand["dies_per_chip"], nand["planes_per_die"]) == (8, 4, 1, 2)
    assert (nand["t_read_us"], nand["t_prog_us"], nand["t_erase_us"]) == (60.0, 700.0, 3500.0)
    assert nand["page_size_kib"] == 16 and nand["channel_rate_mts"] == 1000 and nand["channel_width_bits"] == 8
    assert nand["over_provisioning"] == pytest.approx(0.127 / 0.873, rel=1e-12)  # spare over user capacity
    assert not nand["independent_plane_reads"] and nand["ecc_overhead_fraction"] == 0.0
    assert (host["pcie_gen"], host["pcie_lanes"]) == (4, 4)
    assert host["link_efficiency"] == pytest.approx(128 / 156, rel=1e-12)
    assert w == {"read_fraction": 1.0, "request_size_kib": 4.0, "mapping_unit_kib": 4.0, "address_pattern": "uniform",
                 "queue_depth": 32}
    assert ftl["mapping"] == "full" and ftl["gc_policy"] == "greedy" and ftl["write_buffer_kib"] == 65536
    assert ftl["drive_state"] == "fresh" and nand["multi_plane_program_fraction"] == 0.0
    assert nand["die_held_through_transfer"] is True  # MQSim's chip is busy until its data-out ends
    assert nand["command_us"] == pytest.approx(0.29) and "sequential_allocation" not in nand
    assert nand["die_scheduling"] == "reads_first"  # MQSim's OUT_OF_ORDER scheduler serves reads first
    assert nand["channel_scheduling"] == "data_out_first"  # its channel carries waiting data-outs before commands
    assert all(m["cycles"] == 0.0 for m in d["modules"].values())


def test_a_sequential_read_of_several_pages_maps_a_page_per_unit():
    d = import_mqsim(*_inputs("S_sr128k_qd32")).design
    w = d["workload"]
    assert (w["address_pattern"], w["request_size_kib"], w["mapping_unit_kib"]) == ("sequential", 128.0, 16.0)
    assert d["nand"]["multi_plane_program_fraction"] == 1.0  # a stream's pages line their planes up
    # CWDP stripes the stream channel first; MQSim joins a die's queued reads of different planes
    assert d["nand"]["sequential_allocation"] == "channel_first" and d["nand"]["independent_plane_reads"] is True
    assert d["nand"]["command_us"] == pytest.approx(0.29)  # MQSim's default NVDDR2 read command and address cycles


def test_an_allocation_that_does_not_begin_with_the_channel_leaves_the_stream_on_random_dies(tmp_path):
    imported = import_mqsim(*_edited(tmp_path, "S_sr128k_qd32", "ssd", {"Plane_Allocation_Scheme": "WCDP"}))
    assert "sequential_allocation" not in imported.design["nand"]
    assert any(field == "nand.sequential_allocation" and "WCDP" in what for field, what in imported.notes)
    with pytest.raises(ConfigError, match="Plane_Allocation_Scheme"):
        import_mqsim(*_edited(tmp_path, "S_sr128k_qd32", "ssd", {"Plane_Allocation_Scheme": "XYZ"}))


def test_a_write_flow_maps_whole_pages_and_answers_mqsims_random_writes():
    # MQSim's 4 KiB random writes on a fresh drive: each reads and rewrites its 16 KiB page, one plane at a time
    imported = import_mqsim(*_inputs("S_rw4k_qd32"))
    assert imported.design["workload"]["mapping_unit_kib"] == 16.0
    assert any(field == "workload.mapping_unit_kib" and "rewrites" in what for field, what in imported.notes)
    mqsim = {r["run_id"]: float(r["iops_total"]) for r in csv.DictReader((DATA / "results.csv").open())}
    result = ssdco.evaluate(config_from_dict(imported.design))
    assert result.iops == pytest.approx(mqsim["S_rw4k_qd32"], rel=0.10)  # the target for writes


def test_the_imported_drive_answers_mqsims_queue_depth_1_read():
    # one 4 KiB read alone: the array read, its 4 KiB on the channel, the command and data over PCIe
    mqsim = {r["run_id"]: float(r["iops_total"]) for r in csv.DictReader((DATA / "results.csv").open())}
    result = ssdco.evaluate(config_from_dict(import_mqsim(*_inputs("S_rr4k_qd1")).design))
    assert result.iops == pytest.approx(mqsim["S_rr4k_qd1"], rel=0.01)


def test_page_types_take_their_mean_and_say_so(tmp_path):
    imported = import_mqsim(*_edited(tmp_path, "S_rr4k_qd1", "ssd", {"Page_Read_Latency_LSB": "50000",
                                                                      "Page_Read_Latency_MSB": "70000"}))
    assert imported.design["nand"]["t_read_us"] == pytest.approx(60.0)
    assert any(field.startswith("nand.t_read_us") for field, _ in imported.notes)


def test_hot_cold_addresses_send_the_rest_of_the_accesses_to_the_hot_region(tmp_path):
    w = import_mqsim(*_edited(tmp_path, "S_rr4k_qd1", "work", {"Address_Distribution": "RANDOM_HOTCOLD",
                                                               "Percentage_of_Hot_Region": "20"})).design["workload"]
    assert (w["address_pattern"], w["hot_space_fraction"], w["hot_access_fraction"]) == ("hot_cold", 0.2, 0.8)


def test_a_bandwidth_flow_is_poisson_arrivals(tmp_path):
    w = import_mqsim(*_edited(tmp_path, "S_rr4k_qd1", "work", {"Synthetic_Generator_Type": "BANDWIDTH",
                                                               "Bandwidth": "409600000"})).design["workload"]
    assert w["arrival_iops"] == pytest.approx(100_000.0) and "queue_depth" not in w


def test_a_real_mapping_table_is_a_demand_paged_cache(tmp_path):
    imported = import_mqsim(*_edited(tmp_path, "S_rr4k_qd1", "ssd", {"Ideal_Mapping_Table": "false",
                                                                      "CMT_Capacity": "1048576"}))
    ftl = imported.design["ftl"]
    assert ftl["mapping"] == "dftl" and 0 < ftl["cache_fraction"] < 1
    assert config_from_dict(imported.design).ftl.mapping == "dftl"


def test_a_large_drive_with_a_small_mapping_cache_loads(tmp_path):
    # 16 times the blocks: the full table (about 1.8 GiB) is what the DRAM size holds, the cache what it uses
    imported = import_mqsim(*_edited(tmp_path, "S_rr4k_qd1", "ssd", {"Block_No_Per_Plane": "4096",
                                                                      "Ideal_Mapping_Table": "false",
                                                                      "CMT_Capacity": "2097152"}))
    assert imported.design["dram"]["size_gib"] >= 1.75
    config = config_from_dict(imported.design)
    assert config.ftl.mapping == "dftl" and ssdco.evaluate(config).iops > 0


def test_writes_with_the_cache_off_have_no_write_buffer(tmp_path):
    imported = import_mqsim(*_edited(tmp_path, "S_rw4k_qd32", "work", {"Device_Level_Data_Caching_Mode": "TURNED_OFF"}))
    assert imported.design["ftl"]["write_buffer_kib"] == 0.0
    assert any(field == "ftl.write_buffer_kib" and "TURNED_OFF" in what for field, what in imported.notes)


def test_mqsims_suspend_setting_imports_as_no_suspend_and_says_why(tmp_path):
    """MQSim's out-of-order scheduler never suspends at the reference commit (a run with PROGRAM_ERASE gives the
    same output file as with NONE, byte for byte), so the imported drive does not suspend either."""
    imported = import_mqsim(*_edited(tmp_path, "M_mix70_rr4k_qd32", "ssd",
                                     {"CMD_Suspension_Support": "PROGRAM_ERASE"}))
    assert config_from_dict(imported.design).nand.suspend == "none"
    why = {item.name: item.why for item in imported.ignored}
    assert "never suspends" in why["CMD_Suspension_Support"] and "TSU_OutofOrder.cpp" in why["Suspend_Program_Time"]


@pytest.mark.parametrize("which, changes, field", [
    ("ssd", {"PCIe_Lane_Bandwidth": "1.5"}, "PCIe_Lane_Bandwidth"),
    ("ssd", {"PCIe_Lane_Count": "3"}, "PCIe_Lane_Count"),
    ("ssd", {"Flash_Channel_Count": "eight"}, "Flash_Channel_Count"),
    ("ssd", {"Page_Read_Latency_LSB": "-5"}, "Page_Read_Latency_LSB"),
    ("ssd", {"Page_Capacity": "1000"}, "Page_Capacity"),
    ("ssd", {"Address_Mapping": "HYBRID"}, "Address_Mapping"),
    ("ssd", {"Overprovisioning_Ratio": "1.2"}, "Overprovisioning_Ratio"),
    ("ssd", {"Chip_No_Per_Channel": None}, "Chip_No_Per_Channel"),
    ("ssd", {"Transaction_Scheduling_Policy": "IN_ORDER"}, "Transaction_Scheduling_Policy"),
    ("work", {"Read_Percentage": "120"}, "Read_Percentage"),
    ("work", {"Address_Distribution": "ZIPF"}, "Address_Distribution"),
    ("work", {"Percentage_of_Hot_Region": "0", "Address_Distribution": "RANDOM_HOTCOLD"}, "Percentage_of_Hot_Region"),
])
def test_a_bad_value_names_the_file_the_element_and_what_is_allowed(tmp_path, which, changes, field):
    ssd, work = _edited(tmp_path, "S_rr4k_qd1", which, changes)
    with pytest.raises(ConfigError) as caught:
        import_mqsim(ssd, work)
    assert caught.value.field == field
    assert caught.value.source == str(ssd if which == "ssd" else work)
    assert caught.value.allowed


def test_files_that_are_not_mqsim_inputs_are_refused(tmp_path):
    ssd, work = _inputs("S_rr4k_qd1")
    with pytest.raises(ConfigError, match="no such file"):
        import_mqsim(tmp_path / "missing.xml", work)
    broken = tmp_path / "broken.xml"
    broken.write_text("<Execution_Parameter_Set><Host")
    with pytest.raises(ConfigError, match="readable MQSim XML"):
        import_mqsim(broken, work)
    with pytest.raises(ConfigError, match="root element Execution_Parameter_Set"):
        import_mqsim(work, work)  # the two files swapped
    with pytest.raises(ConfigError, match="synthetic flow"):
        import_mqsim(ssd, work, flow=1)


def test_a_trace_based_flow_is_refused(tmp_path):
    traced = tmp_path / "workload.xml"
    traced.write_text("<MQSim_IO_Scenarios><IO_Scenario><IO_Flow_Parameter_Set_Trace_Based><File_Path>t.trace"
                      "</File_Path></IO_Flow_Parameter_Set_Trace_Based></IO_Scenario></MQSim_IO_Scenarios>")
    with pytest.raises(ConfigError, match="trace-based flows are not supported"):
        import_mqsim(_inputs("S_rr4k_qd1")[0], traced)


def test_the_command_writes_a_file_whatif_reads_and_keeps_an_existing_one(tmp_path, capsys):
    out = tmp_path / "drive.toml"
    assert main(["import-mqsim", *map(str, _inputs("S_rr4k_qd8")), "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "CMD_Suspension_Support = NONE" in printed and "nand.die_scheduling" in printed
    assert load_config(out).workload.queue_depth == 8
    assert main(["whatif", str(out)]) == 0
    before = out.read_text()
    assert main(["import-mqsim", *map(str, _inputs("S_rr4k_qd1")), "-o", str(out)]) == 2
    assert "--force" in capsys.readouterr().err and out.read_text() == before
    assert main(["import-mqsim", *map(str, _inputs("S_rr4k_qd1")), "-o", str(out), "--force"]) == 0
    assert load_config(out).workload.queue_depth == 1


def test_the_command_exits_2_on_a_bad_file(tmp_path, capsys):
    assert main(["import-mqsim", str(tmp_path / "nope.xml"), str(_inputs("S_rr4k_qd1")[1]),
                 "-o", str(tmp_path / "x.toml")]) == 2
    assert "nope.xml" in capsys.readouterr().err and not (tmp_path / "x.toml").exists()


def test_the_imported_link_is_full_duplex_as_mqsim_s():
    from pathlib import Path

    inputs = Path(__file__).resolve().parents[2] / "data" / "mqsim" / "inputs" / "M_mix70_rr4k_qd32"
    imported = import_mqsim(inputs / "ssdconfig.xml", inputs / "workload.xml")
    assert imported.design["host"]["full_duplex"] is True
    assert any(field == "host.full_duplex" for field, _ in imported.notes)
