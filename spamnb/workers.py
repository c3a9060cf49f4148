"""Where training's batches run: this process, a pool of local worker
processes, or a Dask cluster.  Each is used through the one method of
concurrent.futures' Executor that training needs, `submit`."""

from __future__ import annotations

import os

from .errors import InputError, OptionError


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
        import ctypes
        import signal

        if ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL)) != 0:  # PR_SET_PDEATHSIG
            raise OSError(ctypes.get_errno(), "prctl")
    except (OSError, AttributeError, ImportError):
        import threading
        import time

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(0.5)
            os._exit(1)

        threading.Thread(target=watch, daemon=True, name="spamnb-parent-watch").start()
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


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
