"""The process's thread pool (certify.pool): one per process, reused by
every call, usable again after an error, rebuilt in a forked child, shut down at exit."""

from __future__ import annotations

import os
import signal
import threading
import time

import numpy as np
import pytest

from certify import pool
from certify.stats.sp800_22 import spectral


def _thread_name(_: int) -> str:
    return threading.current_thread().name


def test_every_call_reuses_the_same_threads():
    first = pool.map_in_order(_thread_name, [(i,) for i in range(8)], 2)
    threads = {t.ident for t in threading.enumerate() if t.name.startswith("certify-2")}
    second = pool.map_in_order(_thread_name, [(i,) for i in range(8)], 2)
    assert pool.sequence_pool(2) is pool.sequence_pool(2)
    assert set(first) | set(second) <= {t.name for t in threading.enumerate() if t.name.startswith("certify-2")}
    assert {t.ident for t in threading.enumerate() if t.name.startswith("certify-2")} == threads  # none started
    assert len(threads) <= 2
    assert pool.map_in_order(_thread_name, [(0,)], 1) == [threading.current_thread().name]  # one: this thread


def test_results_come_in_order_and_each_is_reported():
    seen = []
    out = pool.map_in_order(lambda i: (time.sleep(0.002 * (i % 3)), i * i)[1], [(i,) for i in range(12)], 2,
                            seen.append)
    assert out == [i * i for i in range(12)] and seen == list(range(12))


def test_an_error_cancels_the_rest_and_the_pool_still_serves():
    started = []

    def fail_first(i):
        started.append(i)
        time.sleep(0.02)
        if i == 0:
            raise ArithmeticError("p-value is NaN")
        return i

    with pytest.raises(ArithmeticError, match="NaN"):
        pool.map_in_order(fail_first, [(i,) for i in range(40)], 2)
    count = len(started)
    assert count < 40
    time.sleep(0.05)
    assert len(started) == count  # nothing of that call runs after it raised
    assert pool.map_in_order(lambda i: -i, [(i,) for i in range(4)], 2) == [0, -1, -2, -3]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX")
def test_a_forked_child_builds_its_own_pool():
    pool.map_in_order(_thread_name, [(i,) for i in range(4)], 2)  # the parent's threads exist
    pid = os.fork()
    if pid == 0:  # the child: the parent's threads are not here; a pool of its own must serve
        signal.alarm(20)  # a hang (waiting on the parent's dead threads) ends the child, non-zero
        ok = False
        try:
            ok = pool.map_in_order(lambda i: i + 1, [(i,) for i in range(6)], 2) == [1, 2, 3, 4, 5, 6]
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_shutdown_then_a_new_pool_on_demand():
    before = pool.sequence_pool(2)
    pool.shutdown()
    after = pool.sequence_pool(2)
    assert after is not before
    assert pool.map_in_order(lambda i: i, [(1,), (2,)], 2) == [1, 2]
    with pytest.raises(ValueError, match="at least 1"):
        pool.sequence_pool(0)


def test_fft_buffers_are_shared_between_threads_and_bounded():
    x = np.random.default_rng(4).integers(0, 2, 40_000, dtype=np.uint8)
    want = spectral.peaks_below(x, spectral.fft_threshold(x.size))
    got = pool.map_in_order(lambda _: spectral.peaks_below(x, spectral.fft_threshold(x.size)),
                            [(i,) for i in range(6)], 2)
    assert got == [want] * 6
    sizes = [b.size for b in spectral._spare_buffers]
    assert sizes.count(x.size // 2) <= 2 and len(sizes) <= spectral.SPARE_BUFFERS  # one per thread at most


def test_a_call_from_a_pool_thread_runs_on_that_thread():
    # a kernel's chunks mapped from inside a battery sequence: no nested wait on a full pool
    def outer(i):
        inner = pool.map_in_order(_thread_name, [(j,) for j in range(3)], 2)
        return threading.current_thread().name, inner

    for name, inner in pool.map_in_order(outer, [(i,) for i in range(4)], 2):
        assert pool.in_pool_thread() is False
        assert inner == [name, name, name]
