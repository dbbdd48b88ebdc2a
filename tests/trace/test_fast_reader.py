"""The MSR reader's pyarrow path gives exactly the records, counts and errors of the line parser, which is the
specification: on random mixes of good and malformed lines, across block boundaries."""

import gzip

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdco.errors import ConfigError
from ssdco.trace import reader
from ssdco.trace.msr import parse_msr_block, parse_msr_line
from ssdco.trace.reader import read_trace, read_trace_chunks
from ssdco.trace.record import MAX_BYTES, BadField, ParseStats

GOOD = "128166372003061629,hm,1,Read,7014609920,24576,41286"
TIMES = ["128166372003061629", "0", "1.5", "1e3", "nan", "inf", "-1", " 12", "", "+5", "1_000", "soon"]
HOSTS = ["hm", "", "a b", "h\u00e9"]
TYPES = ["Read", "Write", "read", "WRITE", " Read", "r", "W", "Flush", ""]
OFFSETS = ["0", "4096", "-1", "1.5", "", " 7", str(2**63), str(MAX_BYTES), str(MAX_BYTES + 1), "+3", "1_0"]
SIZES = ["4096", "0", "1", "-5", "", str(MAX_BYTES), "x"]


@st.composite
def msr_line(draw) -> str:
    """One line: mostly well formed, otherwise any mix of the field variants above, a wrong field count, a
    blank or header line, or stray carriage returns."""
    kind = draw(st.sampled_from(["good"] * 6 + ["fields", "columns", "blank", "header", "cr"]))
    if kind == "good":
        return GOOD.replace("Read", draw(st.sampled_from(["Read", "Write"])))
    if kind == "blank":
        return draw(st.sampled_from(["", "  ", "\r", "\u00a0"]))
    if kind == "header":
        return "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"
    if kind == "cr":
        return GOOD + draw(st.sampled_from(["\r", "\r" + GOOD, " \r"]))
    fields = [draw(st.sampled_from(TIMES)), draw(st.sampled_from(HOSTS)), "1", draw(st.sampled_from(TYPES)),
              draw(st.sampled_from(OFFSETS)), draw(st.sampled_from(SIZES)), "0"]
    if kind == "columns":
        fields = fields[:-1] if draw(st.booleans()) else fields + ["9"]
    return ",".join(fields)


def expected(lines: list[str], skip_bad: bool, parse=parse_msr_line):
    """What the line parser alone gives: (records, bad lines, ignored lines) or the first bad line's error."""
    records, bad, ignored = [], 0, 0
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        try:
            record = parse(text) if text else None
        except BadField as e:
            if not skip_bad:
                return (f"line {number}: {e.field_name}", e.value)
            bad += 1
            continue
        if record is None:
            ignored += bool(text)
        else:
            records.append(record)
    return records, bad, ignored


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(msr_line(), min_size=1, max_size=40), block=st.sampled_from([40, 100, 1000, 1 << 20]),
       skip_bad=st.booleans(), newline=st.sampled_from(["\n", "\r\n"]), tail=st.booleans())
def test_the_fast_path_reads_exactly_what_the_line_parser_reads(tmp_path_factory, lines, block, skip_bad, newline,
                                                               tail):
    lines = [GOOD] + lines  # detection sees an MSR line first
    path = tmp_path_factory.mktemp("msr") / "trace.csv"
    path.write_bytes((newline.join(lines) + (newline if tail else "")).encode())
    want = expected(lines, skip_bad)
    stats = ParseStats()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reader, "BLOCK_BYTES", block)
        if len(want) == 2:
            with pytest.raises(ConfigError) as info:
                list(read_trace(path, "msr", skip_bad, stats))
            assert (info.value.field, info.value.value) == want
            return
        records = list(read_trace(path, "msr", skip_bad, stats))
    assert (records, stats.bad_lines, stats.ignored_lines, stats.records) == (*want, len(want[0]))


def test_clean_blocks_take_the_pyarrow_path_and_match_the_line_parser():
    lines = [f"{128166372003061629 + 37 * i},hm,1,{'Write' if i % 3 else 'read'},{4096 * i},{512 * (i % 9 + 1)},1"
             for i in range(1000)]
    chunk = parse_msr_block(("\n".join(lines) + "\n").encode())
    assert chunk is not None
    assert list(chunk.records()) == [parse_msr_line(line) for line in lines]


def test_blocks_the_line_parser_must_judge_are_declined():
    for text in (GOOD + ",9\n", GOOD.replace("Read", "Flush"), GOOD.replace("hm", "h\u00e9"), GOOD + "\r" + GOOD,
                 GOOD.replace("24576", "0"), "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"):
        assert parse_msr_block(text.encode()) is None, text


def test_chunks_stream_in_blocks_and_gzip_reads_the_same(tmp_path, monkeypatch):
    text = "".join(f"{i},hm,1,Write,{i * 4096},4096,1\n" for i in range(5000))
    (tmp_path / "t.csv").write_text(text)
    (tmp_path / "t.csv.gz").write_bytes(gzip.compress(text.encode()))
    monkeypatch.setattr(reader, "BLOCK_BYTES", 10_000)
    chunks = list(read_trace_chunks(tmp_path / "t.csv"))
    assert len(chunks) > 10 and sum(len(c) for c in chunks) == 5000
    assert list(read_trace(tmp_path / "t.csv.gz")) == list(read_trace(tmp_path / "t.csv"))


def test_a_line_too_long_for_a_trace_is_refused(tmp_path):
    path = tmp_path / "blob.csv"
    path.write_bytes(GOOD.encode() + b"\n" + b"x" * (reader.MAX_LINE_BYTES * 5))
    with pytest.raises(ConfigError) as info:
        list(read_trace(path, "msr"))
    assert info.value.field == "line 2: length" and "trace file" in info.value.allowed


def test_offsets_beyond_4_eib_are_refused():
    with pytest.raises(BadField, match="<= "):
        parse_msr_line(GOOD.replace("7014609920", str(MAX_BYTES + 1)))


@pytest.mark.parametrize("column,variants", [(0, TIMES), (1, HOSTS), (3, TYPES), (4, OFFSETS), (5, SIZES)])
def test_each_field_variant_alone_is_read_as_the_line_parser_reads_it(column, variants):
    for variant in variants:
        fields = GOOD.split(",")
        fields[column] = variant
        line = ",".join(fields)
        try:
            want = [parse_msr_line(line.strip())]
        except BadField:
            want = None
        chunk = parse_msr_block(line.encode())
        got = None if chunk is None else list(chunk.records())
        assert got == want or (got is None and want is not None), (variant, got, want)


FIO_FIELDS = {"time": ["878", "0", "1.5", "-5", "x", "nan", ""], "file": ["/dev/nvme0n1", "a", ""],
              "action": ["read", "write", "trim", "sync", "open", "Read", "erase"],
              "offset": ["0", "16384", "-1", "1.5", str(MAX_BYTES + 1), "+3"], "length": ["4096", "0", "x", "1"]}


@st.composite
def fio_line(draw, version: int) -> str:
    """One iolog line: mostly a read or write, otherwise ignored actions, odd spacing or any field variant."""
    kind = draw(st.sampled_from(["good"] * 6 + ["ignored", "fields", "spacing", "blank", "header"]))
    head = ["878"] if version == 3 else []
    if kind == "good":
        return " ".join([*head, "/dev/nvme0n1", draw(st.sampled_from(["read", "write"])), "16384", "4096"])
    if kind == "ignored":
        return " ".join([*head, "/dev/nvme0n1", draw(st.sampled_from(["add", "open", "close", "sync"]))])
    if kind == "blank":
        return draw(st.sampled_from(["", "  ", "\u00a0"]))
    if kind == "header":
        return f"fio version {version} iolog"
    fields = ([draw(st.sampled_from(FIO_FIELDS["time"]))] if version == 3 else []) + [
        draw(st.sampled_from(FIO_FIELDS[name])) for name in ("file", "action", "offset", "length")]
    if kind == "spacing":
        return draw(st.sampled_from([" ", "  ", "\t", "\x1f"])).join(fields) + draw(st.sampled_from(["", " "]))
    return " ".join(fields)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), version=st.sampled_from([2, 3]), block=st.sampled_from([30, 100, 1000, 1 << 20]),
       skip_bad=st.booleans(), tail=st.booleans())
def test_the_fio_fast_path_reads_exactly_what_the_line_parser_reads(tmp_path_factory, data, version, block,
                                                                   skip_bad, tail):
    from ssdco.trace.fio import fio_line_parser

    lines = [f"fio version {version} iolog", *data.draw(st.lists(fio_line(version), min_size=1, max_size=40))]
    path = tmp_path_factory.mktemp("fio") / "trace.log"
    path.write_bytes(("\n".join(lines) + ("\n" if tail else "")).encode())
    want = expected(lines, skip_bad, fio_line_parser(version))
    stats = ParseStats()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reader, "BLOCK_BYTES", block)
        if len(want) == 2:
            with pytest.raises(ConfigError) as info:
                list(read_trace(path, "fio", skip_bad, stats))
            assert (info.value.field, info.value.value) == want
            return
        got = list(read_trace(path, "fio", skip_bad, stats))
    assert (got, stats.bad_lines, stats.ignored_lines, stats.records) == (*want, len(want[0]))


def test_a_clean_fio_log_takes_the_fast_path_past_its_header_and_open_lines(tmp_path):
    from ssdco.trace.fio import fio_block_parser

    body = "".join(f"{10 * i} /dev/sdb {'write' if i % 2 else 'read'} {4096 * i} 4096\n" for i in range(500))
    assert fio_block_parser(3)(body.encode()) is not None
    path = tmp_path / "t.log"
    path.write_text("fio version 3 iolog\n0 /dev/sdb add\n1 /dev/sdb open\n" + body + "9999 /dev/sdb close\n")
    start, end, ignored = reader._ignorable_ends(path.read_bytes(), reader._line_parser(path, "fio"))
    assert path.read_bytes()[start:end] == body.encode() and ignored == 4
    stats = ParseStats()
    assert len(list(read_trace(path, stats=stats))) == 500 and stats.ignored_lines == 4


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("name", list(FIO_FIELDS))
def test_each_fio_field_variant_alone_is_read_as_the_line_parser_reads_it(version, name):
    from ssdco.trace.fio import fio_block_parser, fio_line_parser

    if name == "time" and version == 2:
        return
    good = {"time": "878", "file": "/dev/nvme0n1", "action": "write", "offset": "16384", "length": "4096"}
    order = (["time"] if version == 3 else []) + ["file", "action", "offset", "length"]
    for variant in FIO_FIELDS[name]:
        line = " ".join(variant if field == name else good[field] for field in order)
        try:
            want = [fio_line_parser(version)(line.strip())]
        except BadField:
            want = None
        chunk = fio_block_parser(version)(line.encode())
        got = None if chunk is None else list(chunk.records())
        assert got == want or (got is None and want is not None), (variant, got, want)
