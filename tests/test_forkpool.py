"""The forked pool `classify -j N` runs its batches on: answers in the order
asked, a worker's exception raised by `result()`, replies larger than a pipe
holds while requests larger than a pipe holds are written, workers gone after
shutdown, and a worker killed reported, not waited for."""

from __future__ import annotations

import os
import signal

import pytest

from spamnb.forkpool import ForkPool, WorkerLost
from spamnb.model.scoring import Score


def doubled(values: list[int]) -> list[int]:
    return [2 * value for value in values]


def echoed(data: bytes, times: int) -> bytes:
    return data * times


def failing(message: str) -> None:
    raise ValueError(message)


def recorded(label: str) -> list:
    return [Score(log_odds=-1.5, probability=0.18, label=label, tokens_known=3, raw=-1.5), b"raw", {"a": (1, None)}]


def whose() -> int:
    return os.getpid()


def gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except OSError:
        return True


def test_answers_come_back_in_the_order_asked():
    pool = ForkPool(2)
    try:
        futures = [pool.submit(doubled, list(range(n, n + 5))) for n in range(20)]
        assert [future.result() for future in futures] == [doubled(list(range(n, n + 5))) for n in range(20)]
        assert {pool.submit(whose).result() for _ in range(4)} <= {worker.pid for worker in pool.workers}
    finally:
        pool.shutdown()


def test_what_marshal_cannot_carry_travels_all_the_same():
    # Records go by pickle, numbers and bytes by marshal: the caller sees no difference.
    pool = ForkPool(1)
    try:
        assert pool.submit(recorded, "ham").result() == recorded("ham")
        assert pool.submit(doubled, [1, 2]).result() == [2, 4]
    finally:
        pool.shutdown()


def test_a_workers_exception_is_raised_by_result_and_the_worker_goes_on():
    pool = ForkPool(1)
    try:
        with pytest.raises(ValueError, match="hostile"):
            pool.submit(failing, "hostile").result()
        assert pool.submit(doubled, [3]).result() == [6]
    finally:
        pool.shutdown()


def test_large_requests_and_replies_in_flight_together_do_not_deadlock():
    # Each request and reply is many times what a pipe holds (64 KiB), and
    # several are sent before any is collected.
    pool = ForkPool(2)
    try:
        block = bytes(range(256)) * 1024
        futures = [pool.submit(echoed, block, 4) for _ in range(6)]
        assert all(future.result() == block * 4 for future in futures)
    finally:
        pool.shutdown()


def test_shutdown_ends_every_worker():
    pool = ForkPool(2)
    pids = [worker.pid for worker in pool.workers]
    pool.submit(doubled, [1]).result()
    pool.shutdown()
    assert all(gone(pid) for pid in pids)


def test_a_killed_worker_is_reported():
    pool = ForkPool(1)
    try:
        os.kill(pool.workers[0].pid, signal.SIGKILL)
        os.waitpid(pool.workers[0].pid, 0)
        previous = signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # as the fast path has it: no SIGPIPE here
        try:
            with pytest.raises(WorkerLost):
                pool.submit(doubled, [1]).result()
        finally:
            signal.signal(signal.SIGPIPE, previous)
    finally:
        pool.shutdown(cancel_futures=True)
