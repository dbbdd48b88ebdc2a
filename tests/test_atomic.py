"""Atomic output (ssdco/atomic.py): files and whole directories are replaced at once, never left half-written."""

import os

import pytest

from ssdco.atomic import foreign_entries, recover_dir, write_bytes_atomic, write_dir_atomic


def _fill(files: dict[str, bytes]):
    def fill(d):
        for name, data in files.items():
            write_bytes_atomic(d / name, data)
    return fill


def test_a_file_is_replaced_whole_and_no_temporary_file_stays(tmp_path):
    p = tmp_path / "a" / "out.csv"
    write_bytes_atomic(p, b"one")
    write_bytes_atomic(p, b"two")
    assert p.read_bytes() == b"two" and os.listdir(p.parent) == ["out.csv"]


def test_a_directory_is_replaced_whole(tmp_path):
    out = tmp_path / "study"
    write_dir_atomic(out, _fill({"report.md": b"old", "old.png": b"x"}))
    write_dir_atomic(out, _fill({"report.md": b"new"}))
    assert sorted(os.listdir(out)) == ["report.md"] and (out / "report.md").read_bytes() == b"new"
    assert sorted(os.listdir(tmp_path)) == ["study"]  # nothing hidden left beside it
    assert oct(out.stat().st_mode & 0o777) != oct(0o700)  # as a plainly created directory, not mkdtemp's


def test_a_failure_while_writing_leaves_the_previous_directory(tmp_path):
    out = tmp_path / "study"
    write_dir_atomic(out, _fill({"report.md": b"old"}))

    def half(d):
        write_bytes_atomic(d / "report.md", b"half")
        raise KeyboardInterrupt  # as a Ctrl-C in the middle

    with pytest.raises(KeyboardInterrupt):
        write_dir_atomic(out, half)
    assert (out / "report.md").read_bytes() == b"old"
    assert sorted(os.listdir(tmp_path)) == ["study"]


def test_what_a_killed_write_left_is_undone(tmp_path):
    # killed between its two renames: the previous directory moved aside, the new one still hidden
    out = tmp_path / "study"
    old, new = tmp_path / ".study.old-123", tmp_path / ".study.tmp-abc"
    old.mkdir()
    (old / "report.md").write_bytes(b"previous")
    new.mkdir()
    (new / "report.md").write_bytes(b"unfinished")
    recover_dir(out)
    assert (out / "report.md").read_bytes() == b"previous"
    assert sorted(os.listdir(tmp_path)) == ["study"]
    # with the directory in place, a stale copy beside it is only removed
    stale = tmp_path / ".study.old-456"
    stale.mkdir()
    recover_dir(out)
    assert sorted(os.listdir(tmp_path)) == ["study"] and (out / "report.md").read_bytes() == b"previous"


def test_foreign_entries(tmp_path):
    assert foreign_entries(tmp_path / "missing", ["report.md"]) == []
    (tmp_path / "report.md").write_text("")
    (tmp_path / "notes.txt").write_text("")
    assert foreign_entries(tmp_path, ["report.md", "results.csv"]) == ["notes.txt"]
