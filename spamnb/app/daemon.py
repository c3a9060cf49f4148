"""`spamnb serve`: the daemon side of spamnb.app.server's protocol.

One process reads and writes every socket; worker processes score.

    main process     accepts, checks the peer's uid, reads requests into
                     buffers, hands each whole request to an idle worker,
                     sends the replies back, enforces every limit below.
                     It never scores, so it never waits on a message.
    workers          `--workers` processes forked from the main process once
                     the model is loaded and warmed up; each scores one
                     message at a time under the per-message deadline.

This module is the main process's loop (Daemon): it waits on every socket
at once, passes each event to the job it belongs to, hands each whole
request to a worker, and stops on a signal.  The jobs:

    spamnb.app.sockets       the listening sockets, and who may connect
    spamnb.app.connections   the clients: requests read and buffered, replies
                             sent, idle, slow and greedy clients held in bounds
    spamnb.app.workerpool    the workers: forked, fed, watched, replaced
    spamnb.app.answering     what a worker does with a request
    spamnb.app.modelholder   the served model, kept in step with its file

A client is never held up by another one:

- a slow message occupies one worker; the others go on, and a worker deaf
  to the deadline is killed and replaced (spamnb.app.workerpool);
- an idle, slow or greedy client holds only its own connection: idle ones
  are closed after IDLE_SECONDS and make room past MAX_CONNECTIONS, a
  request must arrive whole within READ_SECONDS, and buffered bytes are
  bounded in total (spamnb.app.connections);
- SIGTERM ends the daemon within a second: replies to messages already in
  hand get half a second, then every worker is killed.

Reload: before each message the model file is stat'ed, by the main process
and by each worker; a new inode, mtime or size loads it again (SIGHUP at
once).  A file that only grew, its base unchanged (a learn appended to its
journal: ours, or a local `spamnb learn`), is caught up by reading the new
journal records alone, so the next message is scored with the learned one
in it for well under a millisecond, and no worker is replaced.  Only a regular file is opened, and
without blocking (a FIFO put at the model path is logged and ignored); a model
that fails to load is logged once and the old one keeps serving.  Workers on
the old model finish the message in hand and are replaced.
"""

from __future__ import annotations

import os
import selectors
import signal
import socket
import time

from ..errors import OptionError
from .connections import Budget, Connection, Connections
from .modelholder import ModelHolder
from .server import MAX_CONNECTIONS, log
from .sockets import Listener, check_not_serving, listen_at, own_directory, remove_if_ours, spamd_listener
from .workerpool import Worker, WorkerPool

# serve's defaults, read at each call (so a caller, or a test, may set them first); the other
# limits live with the job that enforces them: spamnb.app.connections
# (BUFFER_BUDGET, CONNECTION_FLOOR, OUTBOX_LIMIT) and spamnb.app.workerpool
# (WATCHDOG_GRACE, SPARE_IDLE_SECONDS, LEARN_SECONDS).
IDLE_SECONDS = 60.0          # a connection with nothing in progress this long is closed
READ_SECONDS = 30.0          # a request must arrive whole this soon after its first byte
STOP_GRACE = 0.5             # on SIGTERM, how long messages in hand may take
TICK = 0.25                  # how often limits are checked while anything is open


def serve(model_path: str, socket_path: str, *, timeout: float | None = None, workers: int | None = None,
          max_connections: int | None = None, idle_seconds: float | None = None,
          read_seconds: float | None = None, spamd: str | None = None, spamd_allow=(),
          spamd_learn: bool = False) -> None:
    """Serve `model_path` on `socket_path` until SIGTERM or SIGINT, then return.

    The limits default to this module's constants (read at the call).
    `spamd`: also listen for SPAMC clients there (spamd_listener); with
    `spamd_learn`, their TELL requests learn into the model.

    Raises OptionError when the socket cannot be set up (a directory of
    someone else's, a server already listening there...) and ModelError when
    the model cannot be loaded.  Everything after start-up is logged on
    stderr, one line per event, and never stops the server.
    """
    from .._core import lock_file
    from ..mail.sources import MAX_MESSAGE_BYTES

    workers = check_workers(workers)
    if not hasattr(socket, "SO_PEERCRED"):
        raise OptionError("spamnb serve needs SO_PEERCRED (Linux) to check who connects")
    if len(os.fsencode(socket_path)) > 100:
        raise OptionError(f"socket path {socket_path} is too long for a Unix socket (100 bytes at most)")
    directory = os.path.dirname(os.path.abspath(socket_path))
    own_directory(directory)
    # The lock, held while serving, keeps two servers from both taking a stale
    # socket for theirs; the connect probe then catches any other listener.
    lock = os.open(socket_path + ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        if not lock_file(lock, wait=False):
            raise OptionError(f"another spamnb serve is already running on {socket_path}")
        check_not_serving(socket_path)
        holder = ModelHolder(model_path)
        _warm_up(holder.model)
        listener, identity = listen_at(socket_path, directory)
        listeners, owned = [Listener(listener)], [(socket_path, identity)]
        try:
            if spamd:
                extra, identity_spamd = spamd_listener(spamd, spamd_allow)
                listeners.append(extra)
                if identity_spamd:
                    owned.append((spamd, identity_spamd))
        except OptionError:
            remove_if_ours(socket_path, identity)
            listener.close()
            raise
        daemon = Daemon(listeners, holder, MAX_MESSAGE_BYTES, timeout=timeout, workers=workers,
                        max_connections=max_connections or MAX_CONNECTIONS,
                        idle_seconds=idle_seconds or IDLE_SECONDS, read_seconds=read_seconds or READ_SECONDS,
                        extra_close=(lock,), learn_path=model_path if spamd_learn else None)
        # A departed client must not kill the server: every send is checked instead.
        previous = {signum: signal.getsignal(signum)
                    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGPIPE)}
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        try:
            daemon.install_signals()
            where = socket_path + (f" and spamd on {spamd}" if spamd else "")
            empty = " (not there yet: an empty model until a learn creates it)" \
                if holder.signature[0] == "missing" else ""
            log(f"serving {model_path}{empty} on {where} (pid {os.getpid()}, {workers} workers); "
                "SIGHUP reloads, SIGTERM stops")
            daemon.run()
        finally:
            for path, own in owned:
                remove_if_ours(path, own)
            daemon.stop()
            signal.set_wakeup_fd(-1)
            for signum, handler in previous.items():
                signal.signal(signum, handler)
        log(f"stopped ({daemon.stop_reason}); {daemon.answered:,} messages scored")
    finally:
        os.close(lock)


def _warm_up(model) -> None:
    """Score one Chinese message now, so the first real one does not wait
    half a second for jieba's dictionary (and OpenCC's tables)."""
    model.score_message("Subject: 你好\n\n中文邮件，測試。\n".encode())


def default_workers() -> int:
    """One worker per core, and at least two, so one slow message never stops the rest."""
    return max(2, os.cpu_count() or 1)


class Daemon:
    """The event loop of the main process (see the module docstring)."""

    def __init__(self, listeners: list[Listener], holder, max_bytes: int, *, timeout: float | None, workers: int,
                 max_connections: int, idle_seconds: float, read_seconds: float, extra_close=(),
                 learn_path: str | None = None) -> None:
        self._clock = time.monotonic
        self.holder = holder
        self.extra_close = tuple(extra_close)   # descriptors a worker must not keep (the lock)
        self.selector = selectors.DefaultSelector()
        budget = Budget()
        self.connections = Connections(self.selector, listeners, budget, self._clock, max_bytes=max_bytes,
                                       max_connections=max_connections, idle_seconds=idle_seconds,
                                       read_seconds=read_seconds, uid=os.geteuid())
        self.pool = WorkerPool(self.selector, holder, budget, self._answer, self._close_in_worker,
                               timeout=timeout or None, workers=workers, max_bytes=max_bytes,
                               learn_path=learn_path)
        self.stop_reason: str | None = None
        self.reload_asked = False
        self.answered = 0
        self._wake_read, self._wake_write = socket.socketpair()

    # -- life ------------------------------------------------------------------

    def install_signals(self) -> None:
        def stop(signum, frame):
            self.stop_reason = signal.Signals(signum).name

        def reload(signum, frame):
            self.reload_asked = True

        for sock in (self._wake_read, self._wake_write):
            sock.setblocking(False)
        self.selector.register(self._wake_read, selectors.EVENT_READ, "wake")
        signal.set_wakeup_fd(self._wake_write.fileno(), warn_on_full_buffer=False)
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGHUP, reload)

    def run(self) -> None:
        self.pool.start()
        while self.stop_reason is None:
            self._poll(self._select_timeout())
            if self.stop_reason is not None:
                break
            if self.reload_asked:
                self.reload_asked = False
                self._refresh(force=True)
            self._dispatch()
            self._enforce_limits()

    def stop(self) -> None:
        """Stop listening; give messages in hand STOP_GRACE to be answered; end every worker."""
        connections, pool = self.connections, self.pool
        connections.close_listeners()
        for connection in list(connections.waiting):  # not started: nothing to wait for
            connections.close(connection)
        connections.waiting.clear()
        pool.stop_idle()
        ends = self._clock() + STOP_GRACE
        while pool.any_busy() and self._clock() < ends:
            self._poll(max(0.0, ends - self._clock()))
        pool.kill_all()
        for connection in list(connections.open):
            connections.flush(connection)
            connections.close(connection)
        pool.reap(wait_until=self._clock() + 0.2)
        self.selector.close()
        self._wake_read.close()
        self._wake_write.close()

    def _poll(self, timeout: float | None) -> None:
        for key, mask in self.selector.select(timeout):
            kind = key.data
            if isinstance(kind, Listener):
                self.connections.accept(kind)
            elif kind == "wake":
                self._drain_wakeups()
            elif isinstance(kind, Worker):
                try:
                    self.pool.on_event(kind, mask)
                except Exception as error:  # noqa: BLE001 -- one worker's trouble must not stop the daemon
                    log(f"worker (pid {kind.pid}): {type(error).__name__}: {error}; replaced")
                    self.pool.gone(kind)
            else:
                try:
                    self.connections.on_event(kind, mask)
                except Exception as error:  # noqa: BLE001 -- one client's request must not stop the daemon
                    log(f"a connection failed: {type(error).__name__}: {error}; closed")
                    self.connections.close(kind)

    def _select_timeout(self) -> float | None:
        if self.connections.waiting and self.pool.any_idle():
            return 0
        if self.connections.open or self.pool.any_busy() or self.pool.over_base():
            return TICK
        return None

    def _close_in_worker(self) -> None:
        """In a new worker: let go of everything that is the main process's (the pool lets go of its own)."""
        signal.set_wakeup_fd(-1)
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group; the main process stops us
        for sock in self.connections.sockets() + [self._wake_read, self._wake_write]:
            try:
                sock.close()
            except OSError:
                pass
        for descriptor in self.extra_close:
            try:
                os.close(descriptor)
            except OSError:
                pass
        try:
            self.selector.close()
        except OSError:
            pass

    def _drain_wakeups(self) -> None:
        try:
            while self._wake_read.recv(512):
                pass
        except BlockingIOError:
            pass

    # -- requests to workers -----------------------------------------------------

    def _dispatch(self) -> None:
        """Hand queued requests to idle workers, forking more while every one is busy."""
        waiting = self.connections.waiting
        if not waiting:
            return
        self._refresh()
        while waiting:
            connection = waiting[0]
            if connection.closed:
                waiting.popleft()
                continue
            worker = self.pool.idle_or_new()
            if worker is None:
                return
            waiting.popleft()
            # The bytes move from the connection's inbox to the worker's outbox: still held.
            self.pool.hand(worker, connection, self.connections.pop_request(connection))

    def _answer(self, connection: Connection, reply: bytes) -> None:
        if not reply.startswith(b'{"error"'):
            self.answered += 1
        self.connections.answer(connection, reply)

    def _enforce_limits(self) -> None:
        now = self._clock()
        self.pool.watchdog(now)
        self.connections.enforce_limits(now)
        self.pool.retire_spares(now)
        self.connections.update_all()

    def _refresh(self, force: bool = False) -> None:
        if self.holder.refresh(force=force):
            self.pool.renew()


def check_workers(workers: int | None) -> int:
    if workers is None:
        return default_workers()
    if workers < 1:
        raise OptionError("--workers must be at least 1")
    return workers


