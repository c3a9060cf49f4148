"""Where batches of messages run: this process, a pool of local worker
processes, or a Dask cluster, each used through the one method of
concurrent.futures' Executor needed, `submit`; and the one pipeline that
batches messages, maps them over workers and hands the results back in
order (Batches), for `classify` and `train` alike."""

from __future__ import annotations

import os

from .errors import InputError, OptionError

# Batches away at once per worker: enough that no worker waits for the next,
# few enough that results and raw mail waiting in pipes stay a few batches.
IN_FLIGHT_PER_WORKER = 2


class Batches:
    """Items gathered into batches, each batch mapped by `work(batch, *args)`
    on a worker, and each result handed to `collect(tags, result)` in the
    order the batches were sent (`tags`: what `add` was given with each item
    of the batch), whatever order the workers finish in.

    A batch is sent when it holds `batch_items` items or `batch_bytes` bytes
    (the sizes `add` is given).  At most `in_flight_per_worker` (by default
    IN_FLIGHT_PER_WORKER) × `workers` batches are away at once; past that,
    the oldest is waited for.  Where the work runs: on `executor` (anything
    with concurrent.futures' submit: a process pool, a Dask executor); else
    on the executor `start()` returns, made when the first full batch is
    sent, so that a run of fewer items never starts workers; else in this
    process, each batch collected at once.
    `here`, when given, replaces `work` in this process (work that reads what
    a forked worker inherited).  A pool `start` made is shut down by finish
    and abandon; an executor given is the caller's.  An error in `work` is
    raised by the `finish` or `add` that collects its batch.
    """

    def __init__(self, work, collect, *, args: tuple = (), workers: int = 1, executor=None, start=None,
                 batch_items: int, batch_bytes: int | None = None, here=None,
                 in_flight_per_worker: int = IN_FLIGHT_PER_WORKER) -> None:
        self.work, self.collect, self.args, self.workers = work, collect, args, workers
        self.in_flight_limit = in_flight_per_worker * workers
        self.executor, self.start, self.here = executor, start, here or work
        self.batch_items, self.batch_bytes = batch_items, batch_bytes
        self.started = None  # the pool start() made
        self.items: list = []
        self.tags: list = []
        self.size = 0
        self.in_flight: list = []  # oldest first; a few per worker, so pop(0) is cheap

    def add(self, item, tag=None, size: int = 0) -> None:
        self.items.append(item)
        self.tags.append(tag)
        self.size += size
        if len(self.items) >= self.batch_items or (self.batch_bytes is not None and self.size >= self.batch_bytes):
            self._send()

    def _send(self) -> None:
        items, tags = self.items, self.tags
        self.items, self.tags, self.size = [], [], 0
        if self.executor is None and self.start is not None:
            self.executor = self.started = self.start()
        if self.executor is None:
            self.collect(tags, self.here(items, *self.args))
            return
        self.in_flight.append((tags, self.executor.submit(self.work, items, *self.args)))
        while len(self.in_flight) > self.in_flight_limit:
            self._collect_oldest()

    def _collect_oldest(self) -> None:
        tags, future = self.in_flight.pop(0)
        self.collect(tags, future.result())

    def finish(self) -> None:
        """Send what is gathered (in this process when no pool was started
        for fewer than a batch), collect every result, shut a started pool down."""
        if self.items and self.executor is None and self.start is not None:
            # Fewer than a batch: not worth starting workers.  Run here item by
            # item, as with one worker, each result collected as it comes.
            for item, tag in zip(self.items, self.tags):
                self.collect([tag], self.here([item], *self.args))
            self.items, self.tags, self.size = [], [], 0
        if self.items:
            self._send()
        while self.in_flight:
            self._collect_oldest()
        if self.started is not None:
            self.started.shutdown()

    def abandon(self) -> None:
        """After an error: a started pool is shut down, its queued batches cancelled."""
        if self.started is not None:
            self.started.shutdown(cancel_futures=True)


def default_jobs() -> int:
    """Every core this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def die_with_parent(parent: int) -> None:
    """Run in each worker process as it starts: the worker ends when its
    parent does, however the parent ends (SIGPIPE under `| head`, SIGTERM,
    SIGKILL, a crash).  A concurrent.futures worker would otherwise wait on
    its task queue for ever: its siblings hold the queue's other end open.

    Linux: the kernel sends SIGKILL on the parent's death (PR_SET_PDEATHSIG).
    Elsewhere a thread looks at the parent's pid every half second.
    """
    try:
        # The C module: signal.py's enums cost each worker about 5 ms of its start.
        import _signal  # type: ignore[import-not-found]  # CPython's private C module, no stubs

        prctl, errno = _libc_prctl()
        if prctl(1, int(_signal.SIGKILL)) != 0:  # PR_SET_PDEATHSIG
            raise OSError(errno(), "prctl")
    except (OSError, AttributeError, ImportError, TypeError):
        import threading
        import time

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(0.5)
            os._exit(1)

        threading.Thread(target=watch, daemon=True, name="spamnb-parent-watch").start()
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def _libc_prctl():
    """(the C library's prctl, a function giving the errno it left), called
    through _ctypes, the C module under ctypes: ctypes' own import (its
    classes, struct) was 4-5 ms of each worker's start, before its first
    message, where this is under 2 ms.  ctypes is the fallback."""
    try:
        import _ctypes

        class Int(_ctypes._SimpleCData):
            _type_ = "i"

        class Function(_ctypes.CFuncPtr):
            _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
            _restype_ = Int

        class Library:  # what a function is looked up in: a handle, as ctypes.CDLL holds it
            _handle = _ctypes.dlopen(None, os.RTLD_NOW)  # type: ignore[arg-type]  # None: the program itself, as CDLL(None)

        return Function(("prctl", Library())), _ctypes.get_errno  # type: ignore[arg-type]  # any holder of _handle
    except (ImportError, AttributeError, TypeError, OSError):
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl, ctypes.get_errno


def process_pool(jobs: int):
    """A pool of `jobs` forked worker processes that end with this process."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork"),
                               initializer=die_with_parent, initargs=(os.getpid(),))


def _local_pool(jobs: int):
    """(executor, workers): a pool of `jobs` worker processes, or (None, 1)
    to work in this process.

    The workers are forked at once, before the caller starts any thread (a
    progress bar): a fork taken while another thread holds a lock copies the
    lock held, and the worker would wait on it for ever.
    """
    if jobs <= 1:
        yield None, 1
        return
    with process_pool(jobs) as pool:
        pool.submit(int).result()  # with "fork", the first submit starts every worker
        yield pool, jobs


def _dask_cluster(address: str):
    """(executor, workers) on the Dask cluster whose scheduler is at `address`.

    The batches travel as raw bytes and come back as per-class counts; the
    workers need spamnb installed, the same version as here.
    """
    try:
        from dask.distributed import Client
    except ImportError:
        raise OptionError("--scheduler needs Dask: pip install 'spamnb[dask]'") from None
    try:
        client = Client(address, timeout="10s")
    except (OSError, TimeoutError) as error:
        raise InputError(f"cannot reach the Dask scheduler at {address}: {error}") from None
    with client:
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        yield client.get_executor(), workers


def local_pool(jobs: int):
    """See _local_pool."""
    import contextlib  # here, not at the top: the scoring path imports default_jobs

    return contextlib.contextmanager(_local_pool)(jobs)


def dask_cluster(address: str):
    """See _dask_cluster."""
    import contextlib

    return contextlib.contextmanager(_dask_cluster)(address)


def executor_for(jobs: int | None, scheduler: str | None):
    """The context manager for the command line's -j/--jobs and --scheduler."""
    if scheduler:
        return dask_cluster(scheduler)
    return local_pool(default_jobs() if jobs is None else jobs)
