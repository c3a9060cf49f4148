"""The daemon's worker processes (WorkerPool): forked, handed requests,
their replies collected, watched, retired, reaped and replaced.

Workers are `--workers` processes forked from the main process once the
model is loaded and warmed up (the model's pages are shared,
copy-on-write).  Each scores one message at a time under the per-message
deadline (SIGALRM, spamnb.app.deadline; what a worker does is
spamnb.app.answering).  When every worker is busy, more are forked, up to
twice as many; the extra ones leave after SPARE_IDLE_SECONDS without work.

A slow message occupies one worker; the others go on.  A worker that has
not answered TIMEOUT + WATCHDOG_GRACE seconds after it was handed a
message (a C call that ignores the alarm, a bug) is killed, the client is
answered unsure with the reason, and a new worker takes its place.

Learning (`spamnb learn --server`, spamnb.server's protocol): a worker
learns the message into the model file with incremental.learn_file, as
`spamnb learn --model M` does, under the model's lock.  No deadline kills a
learning worker (a learn may wait for the lock or fold the journal into a
new base), only LEARN_SECONDS.

When the model file changes, workers on the old model finish the message
in hand and are replaced.
"""

from __future__ import annotations

import os
import signal
import socket
import time
from selectors import EVENT_READ, EVENT_WRITE

from .answering import failure_reply, worker_main
from .server import HEADER, _SEND_FLAGS, _error, _reason, log

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from .connections import Budget, Connection
    from .modelholder import ModelHolder

WATCHDOG_GRACE = 1.0         # past the deadline, the time a worker gets before it is killed
SPARE_IDLE_SECONDS = 30.0    # an extra worker with no work this long leaves
LEARN_SECONDS = 600.0       # a learning worker silent this long is killed (a learn is safe to kill)


class Worker:
    __slots__ = ("pid", "sock", "outbox", "inbox", "connection", "handed", "generation", "idle_since",
                 "events", "killed", "learning")

    def __init__(self, pid: int, sock, generation: int, now: float) -> None:
        self.pid = pid
        self.sock = sock
        self.outbox = bytearray()     # the request being sent to it
        self.inbox = bytearray()      # its reply, as it arrives
        self.connection: Connection | None = None  # whose message it is scoring
        self.handed = 0.0             # when it got that message
        self.generation = generation  # which load of the model it holds
        self.idle_since = now
        self.events = 0
        self.killed = False
        self.learning = False         # the message in hand is to be learned, not scored


class WorkerPool:
    """The workers, registered on the daemon's selector.

    `answer(connection, reply)` passes a reply on to its client; `in_worker()`
    runs in each new worker, to let go of what is the main process's.
    """

    def __init__(self, selector, holder: ModelHolder, budget: Budget, answer: Callable, in_worker: Callable, *,
                 timeout: float | None, workers: int, max_bytes: int, learn_path: str | None) -> None:
        self.selector = selector
        self.holder = holder
        self.budget = budget
        self.answer = answer
        self.in_worker = in_worker
        self._clock = time.monotonic
        self.timeout = timeout
        self.base_workers = workers
        self.max_workers = 2 * workers
        self.max_bytes = max_bytes
        self.learn_path = learn_path  # spamd TELL learns into this model; None: TELL is refused
        self.workers: set[Worker] = set()
        self.generation = 0           # which load of the model new workers hold
        self.stopping = False

    # -- starting and feeding ----------------------------------------------------

    def start(self) -> None:
        for _ in range(self.base_workers):
            self.spawn()

    def spawn(self) -> Worker | None:
        parent_end, child_end = socket.socketpair()
        try:
            pid = os.fork()
        except OSError as error:
            log(f"cannot start a worker: {_reason(error)}")
            parent_end.close()
            child_end.close()
            return None
        if pid == 0:  # the worker: it never returns from here
            status = 1
            try:
                parent_end.close()
                self._close_in_worker()
                worker_main(child_end, self.holder, self.timeout, self.max_bytes, self.learn_path)
                status = 0
            except BaseException:  # noqa: BLE001 -- a worker ends quietly; the daemon logs and replaces it
                pass
            finally:
                os._exit(status)
        child_end.close()
        parent_end.setblocking(False)
        worker = Worker(pid, parent_end, self.generation, self._clock())
        self.workers.add(worker)
        self._update(worker)
        return worker

    def _close_in_worker(self) -> None:
        """In a new worker: let go of everything that is the main process's."""
        self.in_worker()
        for worker in self.workers:
            try:
                worker.sock.close()
            except OSError:
                pass

    def idle_or_new(self) -> Worker | None:
        """An idle worker, else a new one while there are fewer than twice `workers`; else None."""
        worker = next((w for w in self.workers if w.connection is None and not w.killed), None)
        if worker is None:
            if len(self.workers) >= self.max_workers:
                return None
            worker = self.spawn()
        return worker

    def hand(self, worker: Worker, connection: Connection, request: bytes) -> None:
        """Give `worker` the framed `request` of `connection` (the bytes stay counted until sent)."""
        worker.outbox += request
        worker.connection = connection
        worker.learning = request[HEADER.size:HEADER.size + 1] == b"L"
        # A learn is watched against LEARN_SECONDS, not the scoring deadline.
        worker.handed = self._clock() + (LEARN_SECONDS - (self.timeout or 0) if worker.learning else 0)
        self._pump(worker)
        self._update(worker)

    def on_event(self, worker: Worker, mask: int) -> None:
        if mask & EVENT_WRITE:
            self._pump(worker)
        if mask & EVENT_READ and worker in self.workers:
            try:
                data = worker.sock.recv(1 << 16)
            except BlockingIOError:
                data = None
            except OSError:
                data = b""
            if data == b"":
                self.gone(worker)
                return
            if data:
                worker.inbox += data
                self._collect(worker)
        if worker in self.workers:
            self._update(worker)

    def _pump(self, worker: Worker) -> None:
        while worker.outbox:
            try:
                sent = worker.sock.send(worker.outbox, _SEND_FLAGS)
            except BlockingIOError:
                return
            except OSError:
                return  # it died: its end of file is read next
            del worker.outbox[:sent]
            self.budget.held -= sent

    def _collect(self, worker: Worker) -> None:
        """Pass a whole reply on to the connection it belongs to."""
        inbox = worker.inbox
        if len(inbox) < HEADER.size:
            return
        (size,) = HEADER.unpack_from(inbox)
        if len(inbox) < HEADER.size + size:
            return
        reply = bytes(inbox[HEADER.size:HEADER.size + size])
        del inbox[:HEADER.size + size]
        connection, worker.connection = worker.connection, None
        worker.idle_since = self._clock()
        if connection is not None:
            self.answer(connection, reply)
        if worker.generation != self.generation:
            self._retire(worker)

    def _update(self, worker: Worker) -> None:
        events = EVENT_READ | (EVENT_WRITE if worker.outbox else 0)
        if events != worker.events:
            if worker.events:
                self.selector.modify(worker.sock, events, worker)
            else:
                self.selector.register(worker.sock, events, worker)
            worker.events = events

    # -- ending ------------------------------------------------------------------

    def gone(self, worker: Worker) -> None:
        """A worker's end of file: it died or was killed.  Its client is answered; it is replaced."""
        self._forget(worker)
        connection = worker.connection
        if connection is not None:
            if not worker.killed:
                log(f"the worker (pid {worker.pid}) scoring a message died; answered with an error")
            reply = _error("the worker learning the message died; it was not learned") if worker.learning \
                else failure_reply(connection.protocol, worker.killed, self.timeout, self.holder.model.cutoffs)
            self.answer(connection, reply)
        if len(self.workers) < self.base_workers and not self.stopping:
            self.spawn()

    def _forget(self, worker: Worker) -> None:
        if worker not in self.workers:
            return
        self.workers.discard(worker)
        if worker.events:
            self.selector.unregister(worker.sock)
            worker.events = 0
        self.budget.held -= len(worker.outbox)
        worker.outbox = bytearray()
        worker.sock.close()
        self.reap()

    def _retire(self, worker: Worker, kill: bool = False) -> None:
        """End a worker: closing its socket tells an idle one to leave; `kill` ends a busy one."""
        if kill:
            try:
                os.kill(worker.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self._forget(worker)

    def reap(self, wait_until: float | None = None) -> None:
        """Collect ended workers (no zombies); with `wait_until`, wait for them that long."""
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                if wait_until is None or self._clock() >= wait_until:
                    return
                time.sleep(0.01)

    def renew(self) -> None:
        """The model file changed: idle workers are replaced now, busy ones once they answer."""
        self.generation += 1
        for worker in list(self.workers):
            if worker.connection is None:
                self._retire(worker)
        while len(self.workers) < self.base_workers:
            if self.spawn() is None:
                break

    def stop_idle(self) -> None:
        """Start no worker from now on; the idle ones leave."""
        self.stopping = True
        for worker in list(self.workers):
            if worker.connection is None:
                self._retire(worker)

    def kill_all(self) -> None:
        for worker in list(self.workers):
            self._retire(worker, kill=True)

    # -- limits ------------------------------------------------------------------

    def watchdog(self, now: float) -> None:
        """Kill each worker past its deadline by WATCHDOG_GRACE (a learn's is LEARN_SECONDS); none without a timeout."""
        if self.timeout:
            overdue = now - self.timeout - WATCHDOG_GRACE
            for worker in list(self.workers):
                if worker.connection is not None and not worker.killed and worker.handed <= overdue:
                    log(f"the worker (pid {worker.pid}) did not stop at the deadline; killed it")
                    worker.killed = True
                    try:
                        os.kill(worker.pid, signal.SIGKILL)  # its end of file answers the client
                    except ProcessLookupError:
                        pass  # already gone: its end of file is on the way

    def retire_spares(self, now: float) -> None:
        """Collect the workers that left; extra ones idle SPARE_IDLE_SECONDS leave."""
        self.reap()  # workers that left since (a retired one exits after its socket closes)
        spare = [w for w in self.workers if w.connection is None]
        for worker in spare[:max(0, len(self.workers) - self.base_workers)]:
            if now - worker.idle_since > SPARE_IDLE_SECONDS:
                self._retire(worker)

    # -- what the daemon's loop asks -----------------------------------------------

    def any_idle(self) -> bool:
        return any(w.connection is None for w in self.workers)

    def any_busy(self) -> bool:
        return any(w.connection is not None for w in self.workers)

    def over_base(self) -> bool:
        return len(self.workers) > self.base_workers
