"""The forked pool `classify -j N` runs its batches on: answers in the order
asked, batches of bytes carried whole (empty ones, every byte value), a
worker's exception raised by `result()` (a spamnb error as itself), replies
larger than a pipe holds while requests larger than a pipe holds are written,
workers gone after shutdown, and a worker killed reported, not waited for."""

from __future__ import annotations

import os
import signal

import pytest

from spamnb.errors import ModelError
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
    # Each request and reply is many times what a pipe holds (64 KiB), and
    # several are sent before any is collected.
    pool = ForkPool(2, repeated)
    try:
        block = bytes(range(256)) * 1024
        futures = [pool.submit(repeated, [block, b"4"]) for _ in range(6)]
        assert all(future.result() == block * 4 for future in futures)
    finally:
        pool.shutdown()


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
            with pytest.raises(WorkerLost):
                pool.submit(joined, [b"1"]).result()
        finally:
            signal.signal(signal.SIGPIPE, previous)
    finally:
        pool.shutdown(cancel_futures=True)
