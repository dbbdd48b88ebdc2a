"""Host write-back buffer policies over pages: LRU, FAB, LIRS, ARC (:data:`POLICIES` by name)."""

from __future__ import annotations

from ssdco.trace.buffers.arc import ArcBuffer
from ssdco.trace.buffers.base import BufferPolicy, FlashSink
from ssdco.trace.buffers.fab import FabBuffer
from ssdco.trace.buffers.lirs import LirsBuffer
from ssdco.trace.buffers.lru import LruBuffer

POLICIES: dict[str, type[BufferPolicy]] = {"lru": LruBuffer, "fab": FabBuffer, "lirs": LirsBuffer, "arc": ArcBuffer}

__all__ = ["POLICIES", "BufferPolicy", "FlashSink", "LruBuffer", "FabBuffer", "LirsBuffer", "ArcBuffer"]
