"""The write buffer's throughput bound (``route_mva.write_buffer_capacity``): the product-form network of the
buffer's background runs, solved by the log-space convolution (O(N^2 log m)) and by the tilted FFT convolution
(O(N log N log m), used above ``route_mva.FFT_MIN_POPULATION`` jobs), side by side on the PM9A3 write-only
network (32 four-plane dies, 8 channels) for write buffers of 2-64 MiB, and ``whatif``'s time end to end.
Run: ``.venv/bin/python benchmarks/write_buffer_speed.py``. Prints measured times and ratios; asserts nothing.
"""

import time
from pathlib import Path

from ssdco import evaluate, load_config
from ssdco.model.queueing.convolution import closed_throughput, closed_throughput_fft
from ssdco.network.build import build_network

PM9A3 = Path(__file__).resolve().parent.parent / "configs" / "pm9a3-960.toml"


def timed(fn):
    t0 = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - t0


def main():
    print(f"{'buffer':>8} {'jobs':>7} {'log-space':>11} {'FFT':>9} {'ratio':>7} {'rel. diff':>10} {'whatif':>9}")
    # warm up outside the timing: numba's compiled kernels, SciPy's FFT, the what-if path
    closed_throughput([1.0], [1], [1], 0.0, 2)
    closed_throughput_fft([1.0], [1], [1], 0.0, 2)
    evaluate(load_config(PM9A3, controller="c01"))
    for kib in (2048, 4096, 8192, 16384, 65536):
        cfg = load_config(PM9A3, controller="c01",
                          overrides=["workload.read_fraction=0.0", f"ftl.write_buffer_kib={kib}"])
        network = build_network(cfg)
        loads = [b for b in network.background_loads() if b.demand_us > 0]
        args = ([b.demand_us for b in loads], [b.servers for b in loads], [b.copies for b in loads], 0.0,
                network.background_slots + network.queue_depth)
        fast, t_fast = timed(lambda: closed_throughput_fft(*args))
        if kib <= 16384:
            exact, t_exact = timed(lambda: closed_throughput(*args))
            ratio, diff = f"{t_exact / t_fast:6.0f}x", f"{fast / exact - 1:+.1e}"
            log_time = f"{t_exact * 1e3:8.0f} ms"
        else:
            ratio = diff = "-"
            log_time = "(~15 s)"
        _, t_whatif = timed(lambda: evaluate(cfg))
        print(f"{kib // 1024:>5} MiB {args[-1]:>7,} {log_time:>11} {t_fast * 1e3:6.0f} ms {ratio:>7} {diff:>10} "
              f"{t_whatif * 1e3:6.0f} ms")


if __name__ == "__main__":
    main()
