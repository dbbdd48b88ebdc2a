"""Trace-driven simulation of a host write-back buffer policy over an FTL mapping.

A block trace (MSR Cambridge / SNIA CSV, ``blkparse`` text, fio iolog v2/v3, or a seeded synthetic pattern)
streams as :class:`~ssdco.trace.record.TraceRecord` s; each record splits into page accesses that a buffer policy
(LRU, FAB, LIRS, ARC) serves, and the buffer's flash traffic (read misses, dirty evictions) drives an FTL mapping
(page-level with greedy GC, BAST, FAST) that counts programs, copies, merges and erases.
"""
