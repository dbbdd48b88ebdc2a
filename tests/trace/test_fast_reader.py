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
        return draw(st.sampled_from(["", "  ", "\r"]))
    if kind == "header":
        return "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"
    if kind == "cr":
        return GOOD + draw(st.sampled_from(["\r", "\r" + GOOD, " \r"]))
    fields = [draw(st.sampled_from(TIMES)), draw(st.sampled_from(HOSTS)), "1", draw(st.sampled_from(TYPES)),
              draw(st.sampled_from(OFFSETS)), draw(st.sampled_from(SIZES)), "0"]
    if kind == "columns":
        fields = fields[:-1] if draw(st.booleans()) else fields + ["9"]
    return ",".join(fields)


def expected(lines: list[str], skip_bad: bool):
    """What the line parser alone gives: (records, bad lines, ignored lines) or the first bad line's error."""
    records, bad, ignored = [], 0, 0
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        try:
            record = parse_msr_line(text) if text else None
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
