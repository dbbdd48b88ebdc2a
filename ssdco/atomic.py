"""Atomic output: write to a temporary file in the target's directory, then rename over the target.

A reader (or a crash) never sees a half-written report, CSV, plot or design file. The file gets the
permissions a plainly created file would (0o666 less the umask), not mkstemp's 0o600.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def _default_mode() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically, creating parent directories."""
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
        os.chmod(tmp, _default_mode())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    write_bytes_atomic(path, text.encode("utf-8"))
