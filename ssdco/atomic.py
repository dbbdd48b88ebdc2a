"""Atomic output: write to a temporary file in the target's directory, then rename over the target.

A reader (or a crash) never sees a half-written report, CSV, plot or design file. The file gets the
permissions a plainly created file would (0o666 less the umask), not mkstemp's 0o600.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from ssdco.errors import ConfigError


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _default_mode() -> int:
    return 0o666 & ~_umask()


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically, creating parent directories; the data reach the disk (fsync)
    before the rename, so a crash leaves the old file or the new one (a resumed sweep relies on it)."""
    path = Path(path)
    if path.exists() and not path.is_file():
        # renaming over a directory fails, over a device or a FIFO would replace it with a plain file
        raise IsADirectoryError(21, "exists and is not a regular file, refusing to replace it", str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as e:  # name the file asked for, not the temporary one
        raise type(e)(e.errno, f"cannot write there ({e.strerror})", str(path)) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, _default_mode())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    write_bytes_atomic(path, text.encode("utf-8"))


def check_output_path(path: str | Path, option: str, directory: bool = False) -> None:
    """Refuse, before a long run, an output that :func:`write_bytes_atomic` could not write.

    ``path`` is a file (or, with ``directory``, a directory whose files are written); missing parent
    directories are fine (they are created), but the nearest existing one must be a directory in which a
    file can be created: that is tried with a temporary file, removed at once.

    Raises
    ------
    ConfigError
        Naming ``option`` (e.g. ``--out``), the path and what is wrong with it.
    """
    text = str(path)

    def refuse(why: str) -> ConfigError:
        return ConfigError(option, option.lstrip("-"), text, why)

    if not text.strip():
        raise refuse("expected a path, got an empty one")
    p = Path(path)
    if directory:
        if p.exists() and not p.is_dir():
            raise refuse("exists and is not a directory; expected a directory (created if missing)")
        probe = p
    else:
        if p.is_dir():
            raise refuse("is a directory, not a regular file; expected a file path")
        if p.exists() and not p.is_file():
            raise refuse("exists and is not a regular file (a device, FIFO or socket); refusing to replace it")
        probe = p.parent
    while not os.path.lexists(probe) and probe != probe.parent:  # the nearest existing ancestor
        probe = probe.parent
    if not probe.is_dir():  # a file, or a symlink that leads nowhere
        raise refuse(f"{probe} is not a directory; expected a path in a directory")
    try:
        fd, tmp = tempfile.mkstemp(dir=probe, prefix=".ssdco-probe.", suffix=".tmp")
    except OSError as e:
        raise refuse(f"cannot create files in {probe} ({e.strerror or e}); expected a path in a writable "
                     "directory") from None
    os.close(fd)
    os.unlink(tmp)


def _stale(out: Path, kind: str) -> list[Path]:
    """The hidden siblings ``.NAME.KIND-*`` of directory ``out`` that :func:`write_dir_atomic` leaves when killed."""
    if not out.parent.is_dir():
        return []
    return sorted(out.parent.glob(f".{out.name}.{kind}-*"))


def recover_dir(out: str | Path) -> None:
    """Undo what a killed :func:`write_dir_atomic` left beside ``out``: a previous directory moved aside but not
    replaced is put back, and unfinished new ones are removed."""
    out = Path(out)
    for old in _stale(out, "old"):
        if not os.path.lexists(out):
            os.replace(old, out)
        else:
            shutil.rmtree(old, ignore_errors=True)
    for tmp in _stale(out, "tmp"):
        shutil.rmtree(tmp, ignore_errors=True)


def foreign_entries(out: str | Path, own: Iterable[str]) -> list[str]:
    """The names in directory ``out`` other than ``own`` (none where ``out`` does not exist)."""
    out = Path(out)
    if not out.is_dir():
        return []
    return sorted(set(os.listdir(out)) - set(own))


def write_dir_atomic(out: str | Path, fill: Callable[[Path], object]) -> None:
    """Write directory ``out`` as a whole: ``fill`` writes the files into a hidden sibling directory, which then
    replaces ``out``. A crash leaves the previous directory or the new one, never a mix (a kill between the two
    renames leaves the previous one beside, and :func:`recover_dir`, which this calls first, puts it back)."""
    out = Path(out)
    recover_dir(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.tmp-"))
    try:
        fill(tmp)
        os.chmod(tmp, _default_mode() | (0o111 & ~_umask()))  # as a plainly created directory (mkdtemp: 0o700)
        if out.exists():
            old = out.parent / f".{out.name}.old-{os.getpid()}"
            os.replace(out, old)
            os.replace(tmp, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
