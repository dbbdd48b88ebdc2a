"""The NAND work a trace leaves after a buffer policy and an FTL mapping, as the analytic model and the DES take it.

``ssdco whatif CONFIG --trace TRACE --buffer POLICY`` replays the trace through one buffer (of ``--buffer-mib``)
in front of one mapping (``--ftl``) with the device's geometry (a trace page is the mapping unit, a block
``nand.pages_per_block`` pages of units) and sets three ``[ftl]`` fields from what reached the flash
(:mod:`ssdco.network.ftl_effects` says how the model uses them):

* ``ftl.read_hit_fraction`` = 1 - flash page reads for the host / host page reads: the reads found in the buffer;
* ``ftl.flush_fraction`` = pages the buffer flushed / host page writes: the writes that reach NAND (the rest were
  overwritten while buffered; pages still dirty when the trace ends count only with ``flush_at_end``);
* ``ftl.waf`` = the mapping's programs / the pages it was given: GC copies or merges per page written.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ssdco.errors import ConfigError
from ssdco.trace.chunk import TraceChunk
from ssdco.trace.simulate import TraceSetup, simulate_chunks


@dataclass(frozen=True)
class TraceNandWork:
    """What a trace sent to the flash through one buffer and mapping (counts in pages of ``page_bytes``)."""

    policy: str
    buffer_bytes: int
    mapping: str
    page_bytes: int
    read_pages: int  # host page reads
    write_pages: int  # host page writes
    flash_reads_for_host: int  # pages the buffer read from flash (its read misses)
    flushed_pages: int  # pages the buffer wrote to flash
    programs: int  # pages the mapping programmed (flushed pages + copies)
    erases: int

    @property
    def read_hit_fraction(self) -> float:
        """Host page reads found in the buffer, 0-1 (0 without reads)."""
        return 1.0 - self.flash_reads_for_host / self.read_pages if self.read_pages else 0.0

    @property
    def flush_fraction(self) -> float:
        """Host page writes that reached the flash, 0-1 (1 without writes)."""
        return self.flushed_pages / self.write_pages if self.write_pages else 1.0

    @property
    def waf(self) -> float | None:
        """The mapping's programs per page it was given (None when nothing reached it)."""
        return self.programs / self.flushed_pages if self.flushed_pages else None

    def overrides(self) -> list[str]:
        """The ``--set`` overrides that give a device file this NAND work."""
        out = [f"ftl.read_hit_fraction={self.read_hit_fraction!r}", f"ftl.flush_fraction={self.flush_fraction!r}"]
        if self.waf is not None:
            out.append(f"ftl.waf={self.waf!r}")
        return out

    def to_dict(self) -> dict:
        """The JSON form (counts in pages, the buffer in bytes)."""
        return {"policy": self.policy, "buffer_bytes": self.buffer_bytes, "mapping": self.mapping,
                "page_bytes": self.page_bytes, "read_pages": self.read_pages, "write_pages": self.write_pages,
                "flash_reads_for_host": self.flash_reads_for_host, "flushed_pages": self.flushed_pages,
                "programs": self.programs, "erases": self.erases, "read_hit_fraction": self.read_hit_fraction,
                "flush_fraction": self.flush_fraction, "waf": self.waf}


class _PageCounter:
    """Passes chunks through, counting the pages each direction touches."""

    def __init__(self, chunks: Iterable[TraceChunk], page_bytes: int):
        self.chunks, self.page_bytes = chunks, page_bytes
        self.read_pages = self.write_pages = 0

    def __iter__(self) -> Iterator[TraceChunk]:
        pb = self.page_bytes
        for chunk in self.chunks:
            pages = (chunk.offset_bytes + chunk.size_bytes - 1) // pb - chunk.offset_bytes // pb + 1
            written = int(pages[chunk.is_write].sum())
            self.write_pages += written
            self.read_pages += int(pages.sum()) - written
            yield chunk


def trace_nand_work(chunks: Iterable[TraceChunk], source: str, policy: str, buffer_bytes: int, mapping: str,
                    page_bytes: int, pages_per_block: int, over_provisioning: float,
                    log_blocks: int = 16, flush_at_end: bool = False) -> TraceNandWork:
    """Replay the trace ``chunks`` (from ``source``, for messages) through one buffer ``policy`` of
    ``buffer_bytes`` in front of one ``mapping`` and count what reached the flash (with ``flush_at_end``, the pages
    still dirty at the end too). Raises ConfigError where the counts cannot describe a drive: no requests, every
    read found in the buffer, or writes of which none reached the flash."""
    setup = TraceSetup(policies=(policy,), buffer_bytes=(buffer_bytes,), mappings=(mapping,), page_bytes=page_bytes,
                       pages_per_block=pages_per_block, log_blocks=log_blocks, over_provisioning=over_provisioning,
                       flush_at_end=flush_at_end)
    counted = _PageCounter(chunks, page_bytes)
    (result,) = simulate_chunks(counted, setup)
    f = result.flash
    work = TraceNandWork(policy=policy, buffer_bytes=buffer_bytes, mapping=mapping, page_bytes=page_bytes,
                         read_pages=counted.read_pages, write_pages=counted.write_pages,
                         flash_reads_for_host=f.host_reads, flushed_pages=f.host_writes, programs=f.programs,
                         erases=f.erases)
    if work.read_pages + work.write_pages == 0:
        raise ConfigError(source, "records", 0, "expected at least one read or write request")
    smaller = f"a smaller --buffer-mib than {buffer_bytes / 2**20:g} or a longer trace"
    if work.read_pages and work.flash_reads_for_host == 0:
        raise ConfigError(source, "--buffer", policy, f"every read was found in the buffer, so the NAND would see "
                                                      f"no reads; expected {smaller}")
    if work.write_pages and work.flushed_pages == 0:
        raise ConfigError(source, "--buffer", policy, f"no written page left the buffer before the trace ended; "
                                                      f"expected {smaller}")
    return work
