"""The process's worker threads: one pool per process and per thread count, created on first use
and kept until the process ends. The SP 800-22 battery runs its sequences on it, and any compiled
kernel that releases the GIL (``@njit(nogil=True)``) may run its chunks on it instead of numba's
``parallel=True``, whose parfor passes cost far more compile time than the loop they run.

A pool made per battery call paid, on every call, for new threads and for what a new thread
touches first (its malloc arena's pages; with sequences on threads the kernels run nogil, so the
threads are the battery's, not numba's -- no kernel here uses numba's parallel threads). Kept for
the process, the threads and their warm arenas serve every later call (the pytest plugin, the
benchmarks, ``certify run``'s profiles). A call made from one of the pool's own threads runs on
that thread (a nested call waiting on the same pool could wait forever). After ``os.fork`` the
child starts without pools (the parent's threads do not exist there) and makes its own on first
use; at exit the pools are shut down, not-started work cancelled.
"""

from __future__ import annotations

import atexit
import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Any, Callable, Iterable, Sequence

_lock = threading.Lock()
_pools: dict[int, ThreadPoolExecutor] = {}
_inside = threading.local()  # set on the pools' own threads


def _mark_pool_thread() -> None:
    _inside.pool = True


def in_pool_thread() -> bool:
    """Whether the calling thread is one of this process's pool threads."""
    return getattr(_inside, "pool", False)


def cpus() -> int:
    """The CPUs this process may run on (its affinity; all of them where that is not known): the
    thread count for a kernel's chunks, as numba's ``parallel=True`` would use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def sequence_pool(workers: int) -> ThreadPoolExecutor:
    """This process's pool of ``workers`` threads (made on the first call that asks for it)."""
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    with _lock:
        pool = _pools.get(workers)
        if pool is None:
            pool = _pools[workers] = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=f"certify-{workers}",
                                                        initializer=_mark_pool_thread)
        return pool


def map_in_order(fn: Callable[..., Any], calls: Iterable[Sequence[Any]], workers: int,
                 each: Callable[[int], None] | None = None) -> list[Any]:
    """``[fn(*args) for args in calls]``, in order, on the process's pool of ``workers`` threads
    (one worker: on this thread); ``each(i)`` after result i arrives. On an error (or Ctrl-C) the
    calls not started are cancelled and the running ones finish before it propagates: no work of
    this call outlives it."""
    if workers == 1 or in_pool_thread():
        out = []
        for i, args in enumerate(calls):
            out.append(fn(*args))
            if each is not None:
                each(i)
        return out
    pool = sequence_pool(workers)
    futures = [pool.submit(fn, *args) for args in calls]
    out = []
    try:
        for i, future in enumerate(futures):
            out.append(future.result())
            if each is not None:
                each(i)
    finally:
        for future in futures:
            future.cancel()
        wait(futures)
    return out


def row_ranges(n: int, parts: int) -> list[tuple[int, int]]:
    """``range(n)`` cut into at most ``parts`` contiguous ``(lo, hi)`` ranges of near-equal size (none
    for n = 0): the chunks a kernel's rows are split into for ``map_in_order``."""
    parts = max(1, min(parts, n))
    return [(n * i // parts, n * (i + 1) // parts) for i in range(parts)] if n > 0 else []


def shutdown() -> None:
    """Shut every pool down (at exit; tests): queued work is cancelled, running work finishes."""
    with _lock:
        pools = list(_pools.values())
        _pools.clear()
    for pool in pools:
        pool.shutdown(wait=True, cancel_futures=True)


def _forget_after_fork() -> None:
    """In a forked child: the parent's threads are gone, so its pools (and a lock a parent thread
    may have held at the fork) are dropped, not shut down."""
    global _lock
    _lock = threading.Lock()
    _pools.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)
atexit.register(shutdown)
