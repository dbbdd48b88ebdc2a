"""Throughput of ``ssdco trace``'s pipeline: records per second through reader, buffer and mapping, and the peak
memory. Run on demand; asserts nothing.

    python benchmarks/trace.py [--records 1000000] [--pattern database]

It measures, on one core, on the same synthetic trace: (0) the start-up, a 1,000-record trace through every
stage (numba loads or compiles the kernels, pyarrow starts its CSV reader), then (1) the generator alone, (2) the
MSR reader on that trace written as a CSV file (parse only), (3) reader + one buffer (LRU, 16 MiB) + one mapping
(BAST), end to end, (4) the full grid (4 policies x 3 mappings behind each) from the generator, (5) the grid on
at most 300,000 records through the compiled engines and through the Python classes they are checked against,
with the speed-up and whether the results are equal, and (6) each policy alone and each mapping alone behind LRU.
Records per second is records / wall time of the stage; the peak memory is the process's maximum resident set
size (``resource.getrusage``, which only grows: it is the peak over all stages so far; the CSV file is written
chunk by chunk so that it adds nothing).
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ssdco.trace.reader import read_trace_chunks  # noqa: E402
from ssdco.trace.simulate import MIB, TraceSetup, simulate_chunks  # noqa: E402
from ssdco.trace.synthetic import SyntheticSpec, synthetic_chunks  # noqa: E402


def peak_mib() -> float:
    """Peak resident set size of this process in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(label: str, records: int, work) -> tuple[float, object]:
    """Run ``work``, print records/s and the peak memory; return the wall time (s) and what ``work`` returned."""
    start = time.perf_counter()
    result = work()
    seconds = time.perf_counter() - start
    print(f"{label:<48} {records / seconds:>12,.0f} records/s  {seconds:7.2f} s  peak RSS {peak_mib():7.1f} MiB")
    return seconds, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--pattern", default="database")
    args = parser.parse_args()
    spec = SyntheticSpec(args.pattern, args.records)
    with tempfile.TemporaryDirectory() as folder:
        warm = Path(folder) / "warm.csv"
        write_msr(warm, SyntheticSpec(args.pattern, 1000))
        timed("start-up (1,000 records through every stage)", 1000, lambda: simulate_chunks(
            read_trace_chunks(warm), TraceSetup(("lru", "fab", "lirs", "arc"), (16 * MIB,), ("page", "bast", "fast"))))
        timed("generator", args.records, lambda: sum(len(c) for c in synthetic_chunks(spec, 1)))
        path = Path(folder) / "trace.csv"
        write_msr(path, spec)
        timed("MSR reader (parse only)", args.records, lambda: sum(len(c) for c in read_trace_chunks(path)))
        one = TraceSetup(("lru",), (16 * MIB,), ("bast",))
        timed("MSR reader + LRU 16 MiB + BAST", args.records, lambda: simulate_chunks(read_trace_chunks(path), one))
    grid = TraceSetup(("lru", "fab", "lirs", "arc"), (16 * MIB,), ("page", "bast", "fast"))
    timed("generator + 4 buffers x 3 mappings (12 results)", args.records,
          lambda: simulate_chunks(synthetic_chunks(spec, 1), grid))
    short = SyntheticSpec(args.pattern, min(args.records, 300_000))
    results = {}
    for compiled in (True, False):
        label = f"{short.records:,} records, 12 results, {'compiled' if compiled else 'Python classes'}"
        results[compiled] = timed(label, short.records, lambda: simulate_chunks(
            synthetic_chunks(short, 1), replace(grid, compiled=compiled)))
    (fast, compiled_results), (slow, python_results) = results[True], results[False]
    print(f"{'compiled engines vs Python classes':<48} {slow / fast:>12.1f} x faster, "
          f"results equal: {compiled_results == python_results}")
    for policy in grid.policies:
        timed(f"generator + {policy} 16 MiB + page", args.records,
              lambda: simulate_chunks(synthetic_chunks(spec, 1), TraceSetup((policy,), (16 * MIB,), ("page",))))
    for mapping in ("bast", "fast"):
        timed(f"generator + lru 16 MiB + {mapping}", args.records,
              lambda: simulate_chunks(synthetic_chunks(spec, 1), TraceSetup(("lru",), (16 * MIB,), (mapping,))))


def write_msr(path: Path, spec: SyntheticSpec) -> None:
    """The synthetic trace of ``spec`` (seed 1) as an MSR CSV file, written a chunk at a time."""
    with open(path, "w") as out:
        for chunk in synthetic_chunks(spec, 1):
            out.write("".join(f"{int(r.time_us * 10)},bench,0,{'Write' if r.is_write else 'Read'},"
                              f"{r.offset_bytes},{r.size_bytes},0\n" for r in chunk.records()))

if __name__ == "__main__":
    main()
