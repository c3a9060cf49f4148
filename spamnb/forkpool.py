"""A pool of forked worker processes with concurrent.futures' `submit`,
made of os.fork and two pipes a worker: what `classify -j N` maps its
batches over (workers.Batches).

Why not ProcessPoolExecutor: importing multiprocessing and
concurrent.futures, the pool's own threads and its start took about 60 ms
of a 600 ms bulk classify of spamassassin's test part, before the first
message was scored; this pool's workers start scoring at once.  A batch
goes to the worker with the fewest bytes of requests unfinished (a batch's
work grows with its bytes: a slow batch does not hold the next one back
behind it, and both workers run out of work at about the same time), and results come back per worker in
the order sent, each a future `result()` waits for.

What travels is bytes: a request is a batch of mail (a list of byte
strings), an answer the bytes the work made of it (classify's: its scores
as JSON), and a failure the exception's class and message, raised again
here as the same spamnb error (a damaged model is still that) or as
WorkerFailed.  Nothing is deserialised into arbitrary objects: the work
runs by reference, since a worker is a fork of the caller.

A worker is forked from the caller (it shares the mapped model and what the
caller set up), ends with it (workers.die_with_parent) and on end of input,
and leaves only by os._exit: it never runs the caller's exit code or
flushes the caller's buffers a second time.
"""

from __future__ import annotations

import os
import select
import struct

# The C module: see app/fastpath.py (signal.py's enums cost about 7 ms).
from _signal import SIGKILL  # type: ignore[import-not-found]  # CPython's private C module, no stubs

from . import errors
from .files import write_all

# Bytes of a frame's length (a request or a reply).
_HEADER = 8
_READ = 1 << 16

# What each pipe is asked to hold (Linux's default limit for a process
# without privileges, /proc/sys/fs/pipe-max-size): the batches a caller keeps
# in flight to a worker fit, as a rule, so sending one seldom waits for a
# busy worker to read the one before while the other worker runs dry (at the
# default 64 KB a worker sat idle for much of a bulk classify).  Where the
# system allows less, or a batch is larger, the pipes stay as they are:
# slower, never wrong (ForkPool._send reads replies while it waits).
PIPE_BYTES = 1 << 20


def _widen(fd: int) -> None:
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (ImportError, AttributeError, OSError):
        pass


class WorkerLost(errors.SpamnbError):
    """A worker process ended without answering: killed (the kernel's
    out-of-memory killer, a signal), not a message's fault or spamnb's bug as
    such, so said in one line without a report asked for; the messages from
    its batch on were not scored (status 70, as for an internal error)."""


def _lost(pid: int) -> str:
    return (f"worker process {pid} ended without answering (killed: out of memory, or by a signal); "
            "the messages from its batch on were not scored")


def _ready(fd: int) -> bool:
    """Whether reading `fd` would not wait."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(0))


def _read_exactly(fd: int, size: int) -> bytes | None:
    """`size` bytes from `fd`, or None at end of input before the first."""
    pieces = []
    left = size
    while left:
        piece = os.read(fd, min(left, 1 << 20))
        if not piece:
            if left == size:
                return None
            raise EOFError("a frame was cut short")
        pieces.append(piece)
        left -= len(piece)
    return b"".join(pieces)


class WorkerFailed(RuntimeError):
    """What a worker raised that is not a spamnb error, as its class and message."""


_LENGTH = struct.Struct("<I")


def _request(items: list[bytes]) -> bytes:
    """A batch as one frame: how many, each one's length, then each one."""
    return b"".join([_LENGTH.pack(len(items)), *(_LENGTH.pack(len(item)) for item in items), *items])


def _items(frame: bytes) -> list[bytes]:
    (count,) = _LENGTH.unpack_from(frame)
    lengths = struct.unpack_from(f"<{count}I", frame, _LENGTH.size)
    items, at = [], _LENGTH.size * (count + 1)
    for length in lengths:
        items.append(frame[at:at + length])
        at += length
    return items


def _failure(error: BaseException) -> bytes:
    return b"!" + f"{type(error).__name__}\n{error}".encode("utf-8", "surrogatepass")


def _raised(reply: bytes) -> BaseException:
    """The exception a failure reply stands for: a spamnb error as itself
    (the CLI reports a damaged model as one, whichever process met it)."""
    name, _, message = reply[1:].decode("utf-8", "surrogatepass").partition("\n")
    kind = getattr(errors, name, None)
    if isinstance(kind, type) and issubclass(kind, errors.SpamnbError):
        return kind(message)
    return WorkerFailed(f"{name}: {message}")


def _serve(requests: int, replies: int, work) -> None:
    """A worker's loop: each request a batch for `work`; each reply b"=" and
    what it returned, or a failure (_failure)."""
    while True:
        header = _read_exactly(requests, _HEADER)
        if header is None:
            return  # the pool shut down (or the parent is gone)
        items = _items(_read_exactly(requests, int.from_bytes(header, "little")) or b"")
        try:
            answer = b"=" + work(items)
        except Exception as error:  # the caller's `result()` raises it, as concurrent.futures does
            answer = _failure(error)
        write_all(replies, len(answer).to_bytes(_HEADER, "little") + answer)


class _Worker:
    __slots__ = ("pid", "requests", "replies", "held", "inbox", "answers", "sent", "answered", "sizes")

    def __init__(self, pid: int, requests: int, replies: int, held: int) -> None:
        self.pid, self.requests, self.replies = pid, requests, replies
        # The worker's end of its requests, held open here: a request to a
        # worker that died (killed, out of memory) then waits in the pipe,
        # and its missing answer is WorkerLost, instead of a SIGPIPE that
        # ends this process without a word (the fast path lets SIGPIPE kill,
        # for `| head`).
        self.held = held
        self.inbox = bytearray()  # reply bytes read, not yet a whole frame
        self.answers: dict[int, bytes] = {}  # by the number of the request, until collected
        self.sent = 0
        self.answered = 0
        self.sizes: list[int] = []  # of the requests not answered, oldest first

    def unfinished(self) -> int:
        """Bytes of the requests sent and not answered."""
        return sum(self.sizes)

    def take(self, block: bool) -> bool:
        """Read what the worker has sent (waiting for some when `block`);
        False when it can send nothing more (it ended)."""
        if not block and not _ready(self.replies):
            return True
        data = os.read(self.replies, _READ)
        if not data:
            return False
        self.inbox += data
        while len(self.inbox) >= _HEADER:
            size = int.from_bytes(self.inbox[:_HEADER], "little")
            if len(self.inbox) < _HEADER + size:
                break
            self.answers[self.answered] = bytes(self.inbox[_HEADER:_HEADER + size])
            del self.inbox[:_HEADER + size]
            self.answered += 1
            del self.sizes[0]
        return True


class _Future:
    __slots__ = ("worker", "number")

    def __init__(self, worker: _Worker, number: int) -> None:
        self.worker, self.number = worker, number

    def result(self) -> bytes:
        worker = self.worker
        while self.number not in worker.answers:
            if not worker.take(block=True):
                raise WorkerLost(_lost(worker.pid))
        reply = worker.answers.pop(self.number)
        if reply[:1] != b"=":
            raise _raised(reply)
        return reply[1:]


class ForkPool:
    """`jobs` worker processes forked now, each running `work` (a list of
    byte strings in, bytes out) on the batches `submit` sends."""

    def __init__(self, jobs: int, work) -> None:
        from .workers import die_with_parent

        parent = os.getpid()
        self.workers: list[_Worker] = []
        self.work = work
        opened: list[int] = []  # this worker's pipe ends, until it is one of self.workers
        try:
            for _ in range(jobs):
                opened = []
                for _end in range(2):
                    opened.extend(os.pipe())
                request_read, request_write, reply_read, reply_write = opened
                _widen(request_write)
                _widen(reply_write)
                pid = os.fork()
                if pid == 0:  # the worker
                    status = 1
                    try:
                        os.close(request_write)
                        os.close(reply_read)
                        for sibling in self.workers:  # so that each sees its end of input when the parent goes
                            os.close(sibling.requests)
                            os.close(sibling.replies)
                            os.close(sibling.held)
                        die_with_parent(parent)
                        _serve(request_read, reply_write, work)
                        status = 0
                    finally:
                        os._exit(status)
                os.close(reply_write)
                os.set_blocking(request_write, False)
                self.workers.append(_Worker(pid, request_write, reply_read, request_read))
                opened = []
        except BaseException:
            # A fork or a pipe refused (EAGAIN, EMFILE) part way: no worker
            # or descriptor made so far outlives the error (a library caller
            # goes on running).
            for fd in opened:
                try:
                    os.close(fd)
                except OSError:
                    pass
            self.shutdown(cancel_futures=True)
            raise

    def submit(self, function, items: list[bytes]) -> _Future:
        """Send work(items) to the worker with the least work unfinished
        (concurrent.futures' submit, for the one function this pool runs)."""
        if function is not self.work:
            raise ValueError("a fork pool runs only the work it was made with")
        for worker in self.workers:
            if worker.sizes:
                worker.take(block=False)
        worker = min(self.workers, key=_Worker.unfinished)
        data = _request(items)
        worker.sizes.append(len(data))
        self._send(worker, len(data).to_bytes(_HEADER, "little") + data)
        future = _Future(worker, worker.sent)
        worker.sent += 1
        return future

    def _send(self, worker: _Worker, data: bytes) -> None:
        """Write a request; while the pipe is full, read the worker's replies,
        which it may be waiting to write (a reply larger than a pipe holds,
        with --explain): neither side then waits on the other for ever."""
        view = memoryview(data)
        poller = None
        while view:
            try:
                view = view[os.write(worker.requests, view):]
            except BlockingIOError:
                if poller is None:
                    poller = select.poll()
                    poller.register(worker.requests, select.POLLOUT)
                    poller.register(worker.replies, select.POLLIN)
                ready = dict(poller.poll())
                if ready.get(worker.replies) and not worker.take(block=False):
                    raise WorkerLost(_lost(worker.pid)) from None

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        """End the workers: at end of input once idle, or at once (cancel_futures)."""
        for worker in self.workers:
            os.close(worker.requests)
            os.close(worker.replies)
            os.close(worker.held)
            if cancel_futures:
                try:
                    os.kill(worker.pid, SIGKILL)
                except ProcessLookupError:
                    pass
        if wait or cancel_futures:
            for worker in self.workers:
                try:
                    os.waitpid(worker.pid, 0)
                except ChildProcessError:
                    pass
        self.workers = []
