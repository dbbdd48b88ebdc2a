"""Trace readers: each format's records, gzip, format detection and one clear error per kind of bad line."""

import gzip

import pytest

from ssdco.errors import ConfigError
from ssdco.trace.reader import detect_format, read_trace
from ssdco.trace.record import ParseStats, TraceRecord

MSR = ("128166372003061629,hm,1,Read,7014609920,24576,41286\n"
       "128166372016382155,hm,1,Write,1317441536,8192,1963\n")
BLKPARSE = ("  8,0    3        1     0.000000000  4162  Q  WS 3417048 + 8 [kjournald]\n"
            "  8,0    3        2     0.000002234  4162  G  WS 3417048 + 8 [kjournald]\n"
            "  8,0    3        3     0.000004000  4162  D  WS 3417048 + 8 [kjournald]\n"
            "  8,0    1        4     0.001000000   100  Q   R 2048 + 16 [cat]\n"
            "  8,0    1        5     0.001500000   100  D   R 2048 + 16 [cat]\n"
            "  8,0    1        6     0.002000000   100  D   FN 0 + 0 [kworker]\n"
            "  8,0    1        7     0.002500000   100  D  FWS 0 + 0 [kworker]\n"
            "CPU1 (8,0):\n"
            " Reads Queued:           1,        8KiB\n")
FIO2 = "fio version 2 iolog\n/dev/sdb add\n/dev/sdb open\n/dev/sdb write 0 4096\n/dev/sdb read 8192 512\n" \
       "/dev/sdb trim 0 4096\n/dev/sdb sync\n/dev/sdb close\n"
FIO3 = "fio version 3 iolog\n2 /dev/nvme0n1 add\n872 /dev/nvme0n1 open\n878 /dev/nvme0n1 write 0 16384\n" \
       "891 /dev/nvme0n1 read 16384 4096\n10001677 /dev/nvme0n1 close\n"


def write(tmp_path, text: str | bytes, name="trace.txt", compress=False):
    data = text.encode() if isinstance(text, str) else text
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


def test_msr_records_convert_filetime_ticks_to_us(tmp_path):
    records = list(read_trace(write(tmp_path, MSR)))
    # 100 ns ticks: 128166372003061629 ticks = 12816637200306162.9 us
    assert records[0] == TraceRecord(pytest.approx(12816637200306162.9), False, 7014609920, 24576)
    assert records[1].is_write and records[1].offset_bytes == 1317441536 and records[1].size_bytes == 8192


def test_msr_header_line_is_skipped(tmp_path):
    path = write(tmp_path, "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n" + MSR)
    assert len(list(read_trace(path))) == 2


def test_blkparse_takes_issue_lines_when_present(tmp_path):
    stats = ParseStats()
    records = list(read_trace(write(tmp_path, BLKPARSE), stats=stats))
    # D lines: the WS write at 4 us (sector 3417048, 8 sectors) and the R read at 1.5 ms; the flushes carry no data
    assert records == [TraceRecord(pytest.approx(4.0), True, 3417048 * 512, 8 * 512),
                       TraceRecord(pytest.approx(1500.0), False, 2048 * 512, 16 * 512)]
    assert stats.records == 2 and stats.ignored_lines == 7


def test_blkparse_takes_queue_lines_without_issue_lines(tmp_path):
    text = "".join(line + "\n" for line in BLKPARSE.splitlines() if "  D  " not in line and " D   " not in line)
    records = list(read_trace(write(tmp_path, text), fmt="blkparse"))
    assert [(r.time_us, r.is_write) for r in records] == [(0.0, True), (pytest.approx(1000.0), False)]


def test_fio_v2_and_v3(tmp_path):
    v2 = list(read_trace(write(tmp_path, FIO2, "v2.log")))
    assert v2 == [TraceRecord(0.0, True, 0, 4096), TraceRecord(0.0, False, 8192, 512)]
    v3 = list(read_trace(write(tmp_path, FIO3, "v3.log")))
    assert v3 == [TraceRecord(878.0, True, 0, 16384), TraceRecord(891.0, False, 16384, 4096)]


def test_gzip_is_read_transparently_by_its_magic_bytes(tmp_path):
    plain = list(read_trace(write(tmp_path, MSR)))
    assert list(read_trace(write(tmp_path, MSR, "trace.csv.anything", compress=True))) == plain


def test_the_format_is_detected_and_can_be_forced(tmp_path):
    assert detect_format(write(tmp_path, MSR, "a")) == "msr"
    assert detect_format(write(tmp_path, BLKPARSE, "b")) == "blkparse"
    assert detect_format(write(tmp_path, FIO3, "c")) == "fio"
    with pytest.raises(ConfigError, match="line 1: iolog header version"):  # MSR read as fio: no header
        list(read_trace(write(tmp_path, MSR, "d"), fmt="fio"))


def test_records_are_streamed(tmp_path):
    reader = read_trace(write(tmp_path, MSR))
    assert iter(reader) is reader  # a generator, not a list


GOOD = "128166372003061629,hm,1,Read,4096,4096,1\n"
BAD_LINES = {
    "wrong column count": (GOOD + "128166372003061629,hm,1,Read,4096,4096\n", "line 2: columns", 6),
    "non-numeric offset": (GOOD + "128166372003061629,hm,1,Read,12x4,4096,1\n", "line 2: offset", "12x4"),
    "negative size": (GOOD + "128166372003061629,hm,1,Read,4096,-512,1\n", "line 2: size", "-512"),
    "zero size": (GOOD + "128166372003061629,hm,1,Read,4096,0,1\n", "line 2: size", "0"),
    "unknown op type": (GOOD + "128166372003061629,hm,1,Flush,4096,512,1\n", "line 2: type", "Flush"),
    "bad timestamp": (GOOD + "soon,hm,1,Read,4096,512,1\n", "line 2: timestamp", "soon"),
    "non-UTF-8 bytes": (GOOD.encode() + b"12816637200306\xff,hm,1,Read,4096,512,1\n", "line 2: encoding", b"\xff"),
    "missing iolog header version": ("fio version iolog\n/dev/sdb write 0 4096\n", "line 1: iolog header version",
                                     "fio version iolog"),
    "unknown iolog action": ("fio version 2 iolog\n/dev/sdb erase 0 4096\n", "line 2: action", "erase"),
    "iolog v3 bad timestamp": ("fio version 3 iolog\n-5 /dev/sdb write 0 4096\n", "line 2: timestamp", "-5"),
    "blkparse bad sector": ("  8,0  3  1  0.000000000  4162  D  WS 34x7 + 8 [k]\n", "line 1: sector", "34x7"),
    "blkparse missing count": ("  8,0  3  1  0.000000000  4162  D  WS 3417048 [k]\n", "line 1: sector + count",
                               "3417048 [k]"),
    "unrecognised format": ("hello world\n", "line 1: format", "hello world"),
}


@pytest.mark.parametrize("kind", BAD_LINES)
def test_each_malformed_kind_names_file_line_field_and_value(tmp_path, kind):
    text, field, value = BAD_LINES[kind]
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        list(read_trace(path))
    assert info.value.source == str(path)
    assert info.value.field == field
    assert info.value.value == value
    assert info.value.allowed.startswith("expected")


def test_the_malformed_kinds_give_distinct_messages(tmp_path):
    messages = set()
    for kind, (text, _, _) in BAD_LINES.items():
        with pytest.raises(ConfigError) as info:
            list(read_trace(write(tmp_path, text, kind.replace(" ", "_"))))
        messages.add((info.value.field, info.value.allowed))
    assert len(messages) == len(BAD_LINES) >= 10


def test_an_empty_file_is_refused(tmp_path):
    for text in ("", "\n  \n"):
        with pytest.raises(ConfigError, match="file is empty"):
            list(read_trace(write(tmp_path, text)))


def test_a_missing_file_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="readable trace file"):
        list(read_trace(tmp_path / "nope.csv"))


def test_a_truncated_gzip_stream_is_refused(tmp_path):
    body = gzip.compress("".join(f"{i},hm,1,Write,{i * 4096},4096,1\n" for i in range(5000)).encode())
    with pytest.raises(ConfigError, match="gzip stream"):
        list(read_trace(write(tmp_path, body[: len(body) // 2])))


def test_skip_bad_skips_and_counts(tmp_path):
    text = GOOD + "x,hm,1,Read,1,1,1\n" + GOOD + "1,hm,1,Read,1,0,1\n" + GOOD
    stats = ParseStats()
    records = list(read_trace(write(tmp_path, text), skip_bad=True, stats=stats))
    assert len(records) == 3 and stats.records == 3 and stats.bad_lines == 2
    assert "line 2: timestamp" in stats.first_errors[0] and "line 4: size" in stats.first_errors[1]
