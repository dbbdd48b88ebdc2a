"""The queueing methods the solvers run: MVA, convolution, open networks, route MVA, stage runs, schedules."""
