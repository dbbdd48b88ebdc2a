"""Reads served ahead of a write-through drive's writes at a die: the mean wait per visit from the FCFS one.

The route MVA (``route_mva.py``, 4.) and the open solver (``open.py``) both call :func:`reads_first_wait`;
``route_mva._foreground_reads_first`` gives its shares."""

from __future__ import annotations

import numba as nb

FG_COLUMNS = 9  # the shares and sums reads_first_wait takes per station (f_r, g_r, h, m2, d_s, a, b, c, e)


@nb.njit(cache=True)
def reads_first_wait(wait, rho, x, visits, shares):
    """The mean wait (us) per visit at a reads-first station whose own visits are reads and write requests'
    operations (the one-server forms below, taken as they are at a die of several plane servers), from its
    first-come-first-served wait ``wait`` at utilisation ``rho``, throughput ``x`` (requests/us) and ``visits`` per
    request; ``shares`` (``route_mva._foreground_reads_first``, per request at one copy): f_r the reads' share of
    the visits, g_r of the demand, h of the residual sum m2 = sum v E[S^2] that a read waits for, m2 (us^2), and
    over the operations a read suspends, d_s = sum v S (us), a = sum v S tau
    (us^2), b = sum v E[S^2] tau (us^3), c = sum v S tau^2 (us^3) and e = sum v E[S^2] tau^2 (us^4).

    Non-preemptive priority at one server (Cobham, Oper. Res. 2(1), 1954) has W_r = R / (1 - rho_r) and
    W_w = R / ((1 - rho_r)(1 - rho)) where first come first served has W = R / (1 - rho); R is taken as
    W (1 - rho), so the solver's corrections to W carry over. Where a read suspends the operation in service
    (preemptive resume, Conway, Maxwell and Miller, *Theory of Scheduling*, 1967, ch. 8, at the suspension's price
    tau), it waits for the share h of R, for the rest of a suspension under way, and pays tau where it finds such an
    operation in service (PASTA: x a per visit). An operation that reads suspend does its own work and its
    suspensions, S' = S + N tau with N Poisson(lambda_r S): its completion takes E[S'] / (1 - rho_r), and the
    writes wait R' / ((1 - rho_r)(1 - rho')) with R' and rho' = rho + lambda_r x a those of S'."""
    f_r, g_r, h, m2, d_s, a, b, c, e = shares[0], shares[1], shares[2], shares[3], shares[4], shares[5], \
        shares[6], shares[7], shares[8]
    rho = min(rho, 0.98)
    rho_r = rho * g_r
    reads_per_us = x * f_r * visits  # lambda_r at one copy
    u_s = min(reads_per_us * x * a, 0.98 - rho)  # the suspensions' share of the server
    residual = wait * (1.0 - rho)  # R
    w_read = (residual * h + x * reads_per_us * c / 2.0) / (1.0 - rho_r) + x * a
    grown = 1.0
    if m2 > 0.0 and a > 0.0:  # R' / R: the suspended operations' second moment grows by 2 tau S N + tau^2 N^2
        grown += reads_per_us * (2.0 * b + c + reads_per_us * e) / m2
    w_write = residual * grown / ((1.0 - rho_r) * (1.0 - rho - u_s))
    stretch = (d_s * rho_r + reads_per_us * a) / (1.0 - rho_r) / visits  # per visit
    return f_r * w_read + (1.0 - f_r) * w_write + stretch
