"""The forked pool `classify -j N` runs its batches on: answers in the order
asked, batches of bytes carried whole (empty ones, every byte value), a
worker's exception raised by `result()` (a spamnb error as itself), replies
larger than a pipe holds while requests larger than a pipe holds are written,
workers gone after shutdown, and a worker killed reported, not waited for."""

from __future__ import annotations

import os
import signal

import pytest

from spamnb.errors import ModelError, SpamnbError
from spamnb.forkpool import ForkPool, WorkerFailed, WorkerLost


def joined(items: list[bytes]) -> bytes:
    return b"|".join(items)


def lengths(items: list[bytes]) -> bytes:
    return ",".join(str(len(item)) for item in items).encode()


def repeated(items: list[bytes]) -> bytes:
    return items[0] * int(items[1])


def failing(items: list[bytes]) -> bytes:
    if items[0] == b"model":
        raise ModelError("model m is corrupt (checksum mismatch in block 3)")
    raise ValueError(items[0].decode())


def whose(items: list[bytes]) -> bytes:
    return str(os.getpid()).encode()


def gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except OSError:
        return True


def test_answers_come_back_in_the_order_asked():
    pool = ForkPool(2, joined)
    try:
        batches = [[str(n).encode(), bytes([n]) * n, b""] for n in range(40)]
        futures = [pool.submit(joined, batch) for batch in batches]
        assert [future.result() for future in futures] == [joined(batch) for batch in batches]
    finally:
        pool.shutdown()
    pool = ForkPool(2, whose)
    try:
        assert {int(pool.submit(whose, []).result()) for _ in range(4)} <= {worker.pid for worker in pool.workers}
    finally:
        pool.shutdown()


def test_a_batch_arrives_whole_whatever_it_holds():
    pool = ForkPool(1, lengths)
    try:
        for batch in ([], [b""], [b"", b""], [bytes(range(256)) * 3, b"\x00", b""]):
            assert pool.submit(lengths, batch).result() == lengths(batch)
        with pytest.raises(ValueError, match="only the work"):
            pool.submit(joined, [b"x"])
    finally:
        pool.shutdown()


def test_a_workers_exception_is_raised_by_result_and_the_worker_goes_on():
    pool = ForkPool(1, failing)
    try:
        with pytest.raises(WorkerFailed, match="ValueError: hostile"):
            pool.submit(failing, [b"hostile"]).result()
        with pytest.raises(ModelError, match="checksum mismatch in block 3"):
            pool.submit(failing, [b"model"]).result()
        with pytest.raises(WorkerFailed, match="ValueError: still here"):
            pool.submit(failing, [b"still here"]).result()
    finally:
        pool.shutdown()


def test_large_requests_and_replies_in_flight_together_do_not_deadlock():
    # Requests as large as the widened pipe (1 MiB), several sent to one
    # worker before any is collected, each answered with three times as
    # much: the worker blocks writing a reply while the parent is still
    # writing requests, unless the parent reads replies while it writes.
    def deadlocked(*_):
        raise TimeoutError("requests and replies waited on each other")

    previous = signal.signal(signal.SIGALRM, deadlocked)
    signal.alarm(20)
    pool = ForkPool(1, repeated)
    try:
        block = bytes(range(256)) * 4096
        futures = [pool.submit(repeated, [block, b"3"]) for _ in range(4)]
        assert all(future.result() == block * 3 for future in futures)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        pool.shutdown(cancel_futures=True)


def test_shutdown_ends_every_worker():
    pool = ForkPool(2, joined)
    pids = [worker.pid for worker in pool.workers]
    pool.submit(joined, [b"1"]).result()
    pool.shutdown()
    assert all(gone(pid) for pid in pids)


def test_a_killed_worker_is_reported():
    pool = ForkPool(1, joined)
    try:
        os.kill(pool.workers[0].pid, signal.SIGKILL)
        os.waitpid(pool.workers[0].pid, 0)
        previous = signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # as the fast path has it: no SIGPIPE here
        try:
            with pytest.raises(WorkerLost) as lost:
                pool.submit(joined, [b"1"]).result()
            # One line, as a spamnb error (no traceback, no report asked for), status 70.
            assert "killed" in str(lost.value) and isinstance(lost.value, SpamnbError)
            assert lost.value.exit_status == 70
        finally:
            signal.signal(signal.SIGPIPE, previous)
    finally:
        pool.shutdown(cancel_futures=True)


def test_a_fork_refused_part_way_leaves_no_worker_or_descriptor(monkeypatch):
    real_fork, forks = os.fork, []

    def fork_once() -> int:
        if forks:
            raise BlockingIOError(11, "Resource temporarily unavailable")
        forks.append(real_fork())
        return forks[-1]

    before = set(os.listdir("/proc/self/fd"))
    monkeypatch.setattr(os, "fork", fork_once)
    with pytest.raises(BlockingIOError):
        ForkPool(2, joined)
    monkeypatch.undo()
    assert forks and forks[0] > 0  # the first worker was made, then the second refused
    assert gone(forks[0])
    assert set(os.listdir("/proc/self/fd")) == before
