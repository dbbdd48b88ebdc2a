"""Throughput of ``ssdco trace``'s pipeline: records per second through reader, buffer and mapping, and the peak
memory. Run on demand; asserts nothing.

    python benchmarks/trace.py [--records 200000] [--pattern database]

It measures, on one core, three stages on the same synthetic trace: (1) the generator alone, (2) the MSR reader
on that trace written as a CSV file (parse only), (3) reader + one buffer (LRU, 16 MiB) + one mapping (BAST),
end to end, and (4) the full grid (4 policies x 3 mappings behind each) from the generator. Records per second
is records / wall time of the stage; the peak memory is the process's maximum resident set size
(``resource.getrusage``, which only grows: it is the peak over all stages so far).
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ssdco.trace.reader import read_trace  # noqa: E402
from ssdco.trace.simulate import MIB, TraceSetup, simulate_trace  # noqa: E402
from ssdco.trace.synthetic import SyntheticSpec, synthetic_trace  # noqa: E402


def peak_mib() -> float:
    """Peak resident set size of this process in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(label: str, records: int, work) -> None:
    """Run ``work`` and print records/s and the peak memory."""
    start = time.perf_counter()
    work()
    seconds = time.perf_counter() - start
    print(f"{label:<48} {records / seconds:>12,.0f} records/s  {seconds:7.2f} s  peak RSS {peak_mib():7.1f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--pattern", default="database")
    args = parser.parse_args()
    spec = SyntheticSpec(args.pattern, args.records)
    timed("generator", args.records, lambda: sum(1 for _ in synthetic_trace(spec, 1)))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "trace.csv"
        path.write_text("".join(f"{int(r.time_us * 10)},bench,0,{'Write' if r.is_write else 'Read'},"
                                f"{r.offset_bytes},{r.size_bytes},0\n" for r in synthetic_trace(spec, 1)))
        timed("MSR reader (parse only)", args.records, lambda: sum(1 for _ in read_trace(path)))
        one = TraceSetup(("lru",), (16 * MIB,), ("bast",))
        timed("MSR reader + LRU 16 MiB + BAST", args.records, lambda: simulate_trace(read_trace(path), one))
    grid = TraceSetup(("lru", "fab", "lirs", "arc"), (16 * MIB,), ("page", "bast", "fast"))
    timed("generator + 4 buffers x 3 mappings (12 results)", args.records,
          lambda: simulate_trace(synthetic_trace(spec, 1), grid))


if __name__ == "__main__":
    main()
