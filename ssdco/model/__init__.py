"""The analytic model: solver registry and queueing methods, bounds, power, p99, caveats, the what-if answer."""
