"""The named designs of ``configs/gallery/`` (one TOML file each) as the dicts the tests build configs from.

``gallery("two-reads-two-dies")`` is the file's contents; a keyword sets the one field of that name in the file's
tables, e.g. ``gallery("reads-saturating-one-slow-core", queue_depth=16)`` sets ``workload.queue_depth``.
"""

import tomllib
from pathlib import Path

GALLERY = Path(__file__).resolve().parent.parent / "configs" / "gallery"


def gallery_paths() -> list[Path]:
    """Every design file of the gallery, sorted by name."""
    return sorted(GALLERY.glob("*.toml"))


def gallery(name: str, **overrides) -> dict:
    """The design ``configs/gallery/<name>.toml`` as a TOML-shaped dict, with ``overrides`` applied: each keyword
    names a field that exactly one of the file's top-level tables holds."""
    design = tomllib.loads((GALLERY / f"{name}.toml").read_text())
    for field, value in overrides.items():
        tables = [t for t in design.values() if isinstance(t, dict) and field in t]
        if len(tables) != 1:
            raise KeyError(f"{field!r} is in {len(tables)} tables of {name}, not exactly one")
        tables[0][field] = value
    return design
