"""The first run's note: ssdco's numba kernels compile once (about 40 s) and are cached next to the sources."""

from __future__ import annotations

import os
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
NOTE = ("ssdco: first run: compiling the numba kernels (about 40 s on one core; cached, later runs start at "
        "once)")


TRACE_KERNELS = PACKAGE / "trace" / "kernels"
TRACE_NOTE = ("ssdco: first trace replay: compiling the buffer and mapping kernels (about 20 s on one core; cached, "
              "later runs start at once)")


def kernels_cached(cache_dir: str | os.PathLike[str] | None = None, folder: Path | None = None) -> bool:
    """Whether numba's cache holds compiled ssdco kernels: an index file (``*.nbi``) in the ``__pycache__`` of any
    package folder, or anywhere under ``NUMBA_CACHE_DIR`` (``cache_dir``) when that is set. With ``folder`` (a
    package folder), that folder's kernels only (numba names their cache folder ``<folder name>_<hash>`` under
    ``NUMBA_CACHE_DIR``)."""
    cache_dir = cache_dir if cache_dir is not None else os.environ.get("NUMBA_CACHE_DIR")
    if cache_dir:
        return any(Path(cache_dir).rglob(f"{folder.name}_*/*.nbi" if folder else "*.nbi"))
    return any((folder or PACKAGE).rglob("__pycache__/*.nbi"))


def note_if_compiling(stream=None, folder: Path | None = None, note: str = NOTE) -> bool:
    """Print ``note`` on ``stream`` (stderr) when no kernel (of ``folder``, when given) is cached yet and
    ``SSDCO_COMPILE_NOTE`` is not ``0``; returns whether it printed."""
    if os.environ.get("SSDCO_COMPILE_NOTE", "1") == "0" or kernels_cached(folder=folder):
        return False
    print(note, file=stream or sys.stderr, flush=True)
    return True
