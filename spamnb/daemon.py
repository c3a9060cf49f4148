"""`spamnb serve`: the daemon side of spamnb.server's protocol.

One process reads and writes every socket; worker processes score.

    main process     accepts, checks the peer's uid, reads requests into
                     buffers, hands each whole request to an idle worker,
                     sends the replies back, enforces every limit below.
                     It never scores, so it never waits on a message.
    workers          `--workers` processes forked from the main process once
                     the model is loaded and warmed up (the model's pages
                     are shared, copy-on-write).  Each scores one message at
                     a time under the per-message deadline (SIGALRM,
                     spamnb.deadline).  When every worker is busy, more are
                     forked, up to twice as many; the extra ones leave after
                     SPARE_IDLE_SECONDS without work.

A client is never held up by another one:

- a slow message occupies one worker; the others go on.  A worker that has
  not answered TIMEOUT + WATCHDOG_GRACE seconds after it was handed a
  message (a C call that ignores the alarm, a bug) is killed, the client is
  answered unsure with the reason, and a new worker takes its place;
- a connection is closed after IDLE_SECONDS with nothing in progress, and
  when MAX_CONNECTIONS are open the one idle longest makes room, so idle
  connections cannot lock anyone out;
- a request must arrive whole within READ_SECONDS of its first byte
  (slow senders);
- buffered request bytes are bounded in total: past BUFFER_BUDGET, a
  connection is read only while it holds less than CONNECTION_FLOOR bytes,
  so ordinary messages still get through while half-sent big ones wait
  for their read deadline;
- SIGTERM ends the daemon within a second: replies to messages already in
  hand get half a second, then every worker is killed.

Reload: before each message the model file is stat'ed; a new inode, mtime or
size loads it again (SIGHUP at once).  Only a regular file is opened, and
without blocking (a FIFO put at the model path is logged and ignored); a model
that fails to load is logged once and the old one keeps serving.  Workers on
the old model finish the message in hand and are replaced.
"""

from __future__ import annotations

import collections
import os
import signal
import socket
import struct
import time

from .errors import OptionError
from .server import HEADER, MAX_CONNECTIONS, log, _error, _reason, _reply, _SEND_FLAGS

IDLE_SECONDS = 60.0          # a connection with nothing in progress this long is closed
READ_SECONDS = 30.0          # a request must arrive whole this soon after its first byte
WATCHDOG_GRACE = 1.0         # past the deadline, the time a worker gets before it is killed
SPARE_IDLE_SECONDS = 30.0    # an extra worker with no work this long leaves
BUFFER_BUDGET = 32 << 20     # request bytes held in all, before big senders are paused
CONNECTION_FLOOR = 128 << 10  # what a connection may always hold: an ordinary message
OUTBOX_LIMIT = 1 << 16       # replies a client has not read; past this, its requests wait
STOP_GRACE = 0.5             # on SIGTERM, how long messages in hand may take
TICK = 0.25                  # how often limits are checked while anything is open


def serve(model_path: str, socket_path: str, *, timeout: float | None = None, workers: int | None = None,
          max_connections: int | None = None, idle_seconds: float | None = None,
          read_seconds: float | None = None) -> None:
    """Serve `model_path` on `socket_path` until SIGTERM or SIGINT, then return.

    The limits default to this module's constants (read at the call).

    Raises OptionError when the socket cannot be set up (a directory of
    someone else's, a server already listening there...) and ModelError when
    the model cannot be loaded.  Everything after start-up is logged on
    stderr, one line per event, and never stops the server.
    """
    import fcntl

    from .sources import MAX_MESSAGE_BYTES

    workers = check_workers(workers)
    if not hasattr(socket, "SO_PEERCRED"):
        raise OptionError("spamnb serve needs SO_PEERCRED (Linux) to check who connects")
    if len(os.fsencode(socket_path)) > 100:
        raise OptionError(f"socket path {socket_path} is too long for a Unix socket (100 bytes at most)")
    directory = os.path.dirname(os.path.abspath(socket_path))
    _own_directory(directory)
    # The lock, held while serving, keeps two servers from both taking a stale
    # socket for theirs; the connect probe then catches any other listener.
    lock = os.open(socket_path + ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OptionError(f"another spamnb serve is already running on {socket_path}") from None
        _check_not_serving(socket_path)
        holder = ModelHolder(model_path)
        _warm_up(holder.model)
        listener, identity = _listen(socket_path, directory)
        daemon = Daemon(listener, holder, MAX_MESSAGE_BYTES, timeout=timeout, workers=workers,
                        max_connections=max_connections or MAX_CONNECTIONS,
                        idle_seconds=idle_seconds or IDLE_SECONDS, read_seconds=read_seconds or READ_SECONDS,
                        extra_close=(lock,))
        # A departed client must not kill the server: every send is checked instead.
        previous = {signum: signal.getsignal(signum)
                    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGPIPE)}
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        try:
            daemon.install_signals()
            log(f"serving {model_path} on {socket_path} (pid {os.getpid()}, {workers} workers); "
                "SIGHUP reloads, SIGTERM stops")
            daemon.run()
        finally:
            _remove_if_ours(socket_path, identity)
            daemon.stop()
            signal.set_wakeup_fd(-1)
            for signum, handler in previous.items():
                signal.signal(signum, handler)
        log(f"stopped ({daemon.stop_reason}); {daemon.answered:,} messages scored")
    finally:
        os.close(lock)


def _own_directory(directory: str) -> None:
    """Create `directory` with mode 0700, or check an existing one is ours and closed to writers."""
    import stat

    try:
        os.mkdir(directory, 0o700)
    except FileExistsError:
        pass
    except OSError as error:
        raise OptionError(f"cannot create the socket directory {directory}: {_reason(error)}") from None
    info = os.stat(directory)
    if not stat.S_ISDIR(info.st_mode):
        raise OptionError(f"{directory} is not a directory")
    # Whoever can write to the directory can put their own socket in our place.
    if info.st_uid != os.geteuid():
        raise OptionError(f"refusing the socket directory {directory}: it belongs to uid {info.st_uid}, "
                          "not to you; choose another --socket")
    if info.st_mode & 0o022:
        raise OptionError(f"refusing the socket directory {directory}: others can write to it "
                          f"(mode {stat.S_IMODE(info.st_mode):o}); choose another --socket")


def _check_not_serving(path: str) -> None:
    """Raise OptionError if something listens on `path`; a stale socket file is left to be replaced."""
    import stat

    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(info.st_mode):
        raise OptionError(f"{path} exists and is not a socket; remove it or choose another --socket")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(2.0)
    try:
        probe.connect(path)
    except (ConnectionRefusedError, FileNotFoundError):
        return  # a server that died without cleaning up
    except OSError:
        pass  # a full backlog or a slow listener: still a live one
    finally:
        probe.close()
    raise OptionError(f"a server is already listening on {path}; stop it first or choose another --socket")


def _listen(path: str, directory: str):
    """A listening socket that appears at `path` with mode 0600, atomically; and its (dev, inode)."""
    temporary = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        if os.path.lexists(temporary):
            os.unlink(temporary)
        # Bound under a private name and renamed into place, so a client never
        # finds the path with a socket that is not yet listening or not yet 0600.
        mask = os.umask(0o177)
        try:
            listener.bind(temporary)
        finally:
            os.umask(mask)
        os.chmod(temporary, 0o600)
        listener.listen(MAX_CONNECTIONS)
        os.rename(temporary, path)
        info = os.lstat(path)
    except OSError as error:
        listener.close()
        if os.path.lexists(temporary):
            os.unlink(temporary)
        raise OptionError(f"cannot listen on {path}: {_reason(error)}") from None
    listener.setblocking(False)
    return listener, (info.st_dev, info.st_ino)


def _remove_if_ours(path: str, identity) -> None:
    try:
        info = os.lstat(path)
        if (info.st_dev, info.st_ino) == identity:
            os.unlink(path)
    except OSError:
        pass


def _warm_up(model) -> None:
    """Score one Chinese message now, so the first real one does not wait
    half a second for jieba's dictionary (and OpenCC's tables)."""
    model.score_message("Subject: 你好\n\n中文邮件，測試。\n".encode("utf-8"))


def default_workers() -> int:
    """One worker per core, and at least two, so one slow message never stops the rest."""
    return max(2, os.cpu_count() or 1)


class _Connection:
    __slots__ = ("sock", "inbox", "outbox", "closing", "events", "last_active", "request_started",
                 "busy", "closed")

    def __init__(self, sock, now: float) -> None:
        self.sock = sock
        self.inbox = bytearray()
        self.outbox = bytearray()
        self.closing = False          # answer what is queued, then hang up
        self.events = 0
        self.last_active = now
        self.request_started = None   # when the first byte of a request not yet whole arrived
        self.busy = False             # a request of this connection is queued or being scored
        self.closed = False


class _Worker:
    __slots__ = ("pid", "sock", "outbox", "inbox", "connection", "handed", "generation", "idle_since",
                 "events", "killed")

    def __init__(self, pid: int, sock, generation: int, now: float) -> None:
        self.pid = pid
        self.sock = sock
        self.outbox = bytearray()     # the request being sent to it
        self.inbox = bytearray()      # its reply, as it arrives
        self.connection = None        # whose message it is scoring
        self.handed = 0.0             # when it got that message
        self.generation = generation  # which load of the model it holds
        self.idle_since = now
        self.events = 0
        self.killed = False


class Daemon:
    """The event loop of the main process (see the module docstring)."""

    def __init__(self, listener, holder, max_bytes: int, *, timeout: float | None, workers: int,
                 max_connections: int, idle_seconds: float, read_seconds: float, extra_close=()) -> None:
        import selectors

        self._selectors = selectors
        self._clock = time.monotonic
        self.listener = listener
        self.holder = holder
        self.max_bytes = max_bytes
        self.timeout = timeout or None
        self.base_workers = workers
        self.max_workers = 2 * workers
        self.max_connections = max_connections
        self.idle_seconds = idle_seconds
        self.read_seconds = read_seconds
        self.extra_close = tuple(extra_close)   # descriptors a worker must not keep (the lock)
        self.uid = os.geteuid()
        self.selector = selectors.DefaultSelector()
        self.selector.register(listener, selectors.EVENT_READ, "listener")
        self.listening = True
        self.connections: set[_Connection] = set()
        self.workers: set[_Worker] = set()
        self.queue: collections.deque[_Connection] = collections.deque()
        self.buffered = 0             # request bytes held: inboxes and requests on their way to workers
        self.generation = 0
        self.stop_reason: str | None = None
        self.stopping = False
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
        self.selector.register(self._wake_read, self._selectors.EVENT_READ, "wake")
        signal.set_wakeup_fd(self._wake_write.fileno(), warn_on_full_buffer=False)
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGHUP, reload)

    def run(self) -> None:
        for _ in range(self.base_workers):
            self._spawn()
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
        self.stopping = True
        if self.listening:
            self.selector.unregister(self.listener)
            self.listening = False
        self.listener.close()
        for connection in list(self.queue):  # not started: nothing to wait for
            self._close(connection)
        self.queue.clear()
        for worker in list(self.workers):
            if worker.connection is None:
                self._retire(worker)
        ends = self._clock() + STOP_GRACE
        while any(worker.connection is not None for worker in self.workers) and self._clock() < ends:
            self._poll(max(0.0, ends - self._clock()))
        for worker in list(self.workers):
            self._retire(worker, kill=True)
        for connection in list(self.connections):
            self._flush(connection)
            self._close(connection)
        self._reap(wait_until=self._clock() + 0.2)
        self.selector.close()
        self._wake_read.close()
        self._wake_write.close()

    def _poll(self, timeout: float | None) -> None:
        for key, mask in self.selector.select(timeout):
            kind = key.data
            if kind == "listener":
                self._accept()
            elif kind == "wake":
                self._drain_wakeups()
            elif isinstance(kind, _Worker):
                self._on_worker(kind, mask)
            else:
                self._on_connection(kind, mask)

    def _select_timeout(self) -> float | None:
        if self.queue and any(w.connection is None for w in self.workers):
            return 0
        if self.connections or any(w.connection is not None for w in self.workers) \
                or len(self.workers) > self.base_workers:
            return TICK
        return None

    # -- clients ---------------------------------------------------------------

    def _accept(self) -> None:
        while True:
            if len(self.connections) >= self.max_connections and not self._evict_idlest():
                # Every connection has work in progress: the rest wait in the backlog.
                self.selector.unregister(self.listener)
                self.listening = False
                return
            try:
                sock, _ = self.listener.accept()
            except BlockingIOError:
                return
            except OSError as error:
                log(f"accept failed: {_reason(error)}")
                return
            pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                                 struct.calcsize("3i")))
            if uid != self.uid:
                log(f"refused a connection from uid {uid} (pid {pid}): this server serves uid {self.uid} only")
                try:
                    sock.setblocking(False)
                    sock.send(b'{"error": "refused: this server serves only the user who started it"}\n',
                              _SEND_FLAGS)
                except OSError:
                    pass
                sock.close()
                continue
            sock.setblocking(False)
            connection = _Connection(sock, self._clock())
            self.connections.add(connection)
            self._update(connection)

    def _evict_idlest(self) -> bool:
        """Close the connection idle longest with nothing in progress; False if there is none."""
        idle = [c for c in self.connections
                if not c.inbox and not c.busy and not c.outbox and not c.closing]
        if not idle:
            return False
        self._close(min(idle, key=lambda c: c.last_active))
        return True

    def _on_connection(self, connection: _Connection, mask: int) -> None:
        if mask & self._selectors.EVENT_WRITE:
            self._flush(connection)
        if mask & self._selectors.EVENT_READ and not connection.closed:
            try:
                data = connection.sock.recv(1 << 16)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:
                self._close(connection)
                return
            now = self._clock()
            if not connection.inbox:
                connection.request_started = now
            connection.inbox += data
            self.buffered += len(data)
            connection.last_active = now
            self._take_request(connection)
        if not connection.closed:
            self._update(connection)

    def _take_request(self, connection: _Connection) -> None:
        """Queue the connection if its inbox holds a whole request (one at a time per connection)."""
        inbox = connection.inbox
        if connection.busy or connection.closing or len(inbox) < HEADER.size:
            return
        (size,) = HEADER.unpack_from(inbox)
        if size > self.max_bytes:
            connection.outbox += _error(f"a request of {size:,} bytes is over the limit of "
                                        f"{self.max_bytes:,} (is this a spamnb client?)")
            connection.closing = True
            self.buffered -= len(inbox)
            inbox.clear()
            return
        if len(inbox) >= HEADER.size + size and len(connection.outbox) < OUTBOX_LIMIT:
            connection.busy = True
            self.queue.append(connection)

    def _flush(self, connection: _Connection) -> None:
        while connection.outbox:
            try:
                sent = connection.sock.send(connection.outbox, _SEND_FLAGS)
            except BlockingIOError:
                return
            except OSError:
                self._close(connection)
                return
            del connection.outbox[:sent]
        if connection.closing and not connection.busy:
            self._close(connection)

    def _readable(self, connection: _Connection) -> bool:
        if connection.closing or connection.busy or len(connection.outbox) >= OUTBOX_LIMIT:
            return False
        if len(connection.inbox) >= HEADER.size:
            (size,) = HEADER.unpack_from(connection.inbox)
            if len(connection.inbox) >= HEADER.size + size:
                return False  # a whole request waits for its turn
        return len(connection.inbox) < CONNECTION_FLOOR or self.buffered < BUFFER_BUDGET

    def _update(self, connection: _Connection) -> None:
        selectors = self._selectors
        events = (selectors.EVENT_READ if self._readable(connection) else 0) | \
                 (selectors.EVENT_WRITE if connection.outbox else 0)
        if events != connection.events:
            if connection.events and events:
                self.selector.modify(connection.sock, events, connection)
            elif events:
                self.selector.register(connection.sock, events, connection)
            else:
                self.selector.unregister(connection.sock)
            connection.events = events

    def _close(self, connection: _Connection) -> None:
        if connection.closed:
            return
        connection.closed = True
        if connection.events:
            self.selector.unregister(connection.sock)
            connection.events = 0
        connection.sock.close()
        self.buffered -= len(connection.inbox)
        connection.inbox = bytearray()
        self.connections.discard(connection)
        if not self.listening and not self.stopping:
            self.selector.register(self.listener, self._selectors.EVENT_READ, "listener")
            self.listening = True

    # -- workers ---------------------------------------------------------------

    def _dispatch(self) -> None:
        """Hand queued requests to idle workers, forking more while every one is busy."""
        if not self.queue:
            return
        self._refresh()
        while self.queue:
            connection = self.queue[0]
            if connection.closed:
                self.queue.popleft()
                continue
            worker = next((w for w in self.workers if w.connection is None and not w.killed), None)
            if worker is None:
                if len(self.workers) >= self.max_workers:
                    return
                worker = self._spawn()
                if worker is None:
                    return
            self.queue.popleft()
            (size,) = HEADER.unpack_from(connection.inbox)
            request = connection.inbox[:HEADER.size + size]
            del connection.inbox[:HEADER.size + size]
            connection.request_started = self._clock() if connection.inbox else None
            # The bytes move from the connection's inbox to the worker's outbox: still held.
            worker.outbox += request
            worker.connection = connection
            worker.handed = self._clock()
            self._pump(worker)
            self._update_worker(worker)

    def _spawn(self) -> _Worker | None:
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
                _worker_main(child_end, self.holder.model, self.timeout)
                status = 0
            except BaseException:  # noqa: BLE001 -- a worker ends quietly; the daemon logs and replaces it
                pass
            finally:
                os._exit(status)
        child_end.close()
        parent_end.setblocking(False)
        worker = _Worker(pid, parent_end, self.generation, self._clock())
        self.workers.add(worker)
        self._update_worker(worker)
        return worker

    def _close_in_worker(self) -> None:
        """In a new worker: let go of everything that is the main process's."""
        signal.set_wakeup_fd(-1)
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group; the main process stops us
        socks = [self.listener, self._wake_read, self._wake_write]
        socks += [c.sock for c in self.connections] + [w.sock for w in self.workers]
        for sock in socks:
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

    def _on_worker(self, worker: _Worker, mask: int) -> None:
        if mask & self._selectors.EVENT_WRITE:
            self._pump(worker)
        if mask & self._selectors.EVENT_READ and worker in self.workers:
            try:
                data = worker.sock.recv(1 << 16)
            except BlockingIOError:
                data = None
            except OSError:
                data = b""
            if data == b"":
                self._worker_gone(worker)
                return
            if data:
                worker.inbox += data
                self._collect(worker)
        if worker in self.workers:
            self._update_worker(worker)

    def _pump(self, worker: _Worker) -> None:
        while worker.outbox:
            try:
                sent = worker.sock.send(worker.outbox, _SEND_FLAGS)
            except BlockingIOError:
                return
            except OSError:
                return  # it died: its end of file is read next
            del worker.outbox[:sent]
            self.buffered -= sent

    def _collect(self, worker: _Worker) -> None:
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
            self._answer(connection, reply)
        if worker.generation != self.generation:
            self._retire(worker)

    def _answer(self, connection: _Connection, reply: bytes) -> None:
        if not reply.startswith(b'{"error"'):
            self.answered += 1
        connection.busy = False
        if connection.closed:
            return
        connection.outbox += reply
        connection.last_active = self._clock()
        self._flush(connection)
        if not connection.closed:
            self._take_request(connection)  # the next one may be waiting already
            self._update(connection)

    def _worker_gone(self, worker: _Worker) -> None:
        """A worker's end of file: it died or was killed.  Its client is answered; it is replaced."""
        self._forget(worker)
        connection = worker.connection
        if connection is not None:
            if worker.killed:
                from .deadline import unsure

                seconds = self.timeout or 0
                reply = _reply(unsure(seconds), self.holder.model.cutoffs)
            else:
                log(f"the worker (pid {worker.pid}) scoring a message died; answered with an error")
                reply = _error("the message could not be scored: the worker scoring it died")
            self._answer(connection, reply)
        if len(self.workers) < self.base_workers and not self.stopping:
            self._spawn()

    def _forget(self, worker: _Worker) -> None:
        if worker not in self.workers:
            return
        self.workers.discard(worker)
        if worker.events:
            self.selector.unregister(worker.sock)
            worker.events = 0
        self.buffered -= len(worker.outbox)
        worker.outbox = bytearray()
        worker.sock.close()
        self._reap()

    def _retire(self, worker: _Worker, kill: bool = False) -> None:
        """End a worker: closing its socket tells an idle one to leave; `kill` ends a busy one."""
        if kill:
            try:
                os.kill(worker.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self._forget(worker)

    def _update_worker(self, worker: _Worker) -> None:
        selectors = self._selectors
        events = selectors.EVENT_READ | (selectors.EVENT_WRITE if worker.outbox else 0)
        if events != worker.events:
            if worker.events:
                self.selector.modify(worker.sock, events, worker)
            else:
                self.selector.register(worker.sock, events, worker)
            worker.events = events

    def _reap(self, wait_until: float | None = None) -> None:
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

    # -- limits ----------------------------------------------------------------

    def _enforce_limits(self) -> None:
        now = self._clock()
        if self.timeout:
            overdue = now - self.timeout - WATCHDOG_GRACE
            for worker in list(self.workers):
                if worker.connection is not None and not worker.killed and worker.handed <= overdue:
                    log(f"the worker (pid {worker.pid}) did not stop at the deadline; killed it")
                    worker.killed = True
                    os.kill(worker.pid, signal.SIGKILL)  # its end of file answers the client
        for connection in list(self.connections):
            if connection.busy or connection.closed:
                continue
            if connection.request_started is not None and now - connection.request_started > self.read_seconds:
                connection.outbox += _error(f"the request did not arrive whole within {self.read_seconds:g} s")
                connection.closing = True
                self.buffered -= len(connection.inbox)
                connection.inbox = bytearray()
                connection.request_started = None
                self._flush(connection)
            elif not connection.inbox and not connection.outbox and \
                    now - connection.last_active > self.idle_seconds:
                self._close(connection)
        spare = [w for w in self.workers if w.connection is None]
        for worker in spare[:max(0, len(self.workers) - self.base_workers)]:
            if now - worker.idle_since > SPARE_IDLE_SECONDS:
                self._retire(worker)
        # The budget may have freed room for connections that were paused.
        for connection in list(self.connections):
            if not connection.closed:
                self._update(connection)

    # -- the model ---------------------------------------------------------------

    def _refresh(self, force: bool = False) -> None:
        if self.holder.refresh(force=force):
            self.generation += 1
            for worker in list(self.workers):
                if worker.connection is None:
                    self._retire(worker)
            while len(self.workers) < self.base_workers:
                if self._spawn() is None:
                    break

    def _drain_wakeups(self) -> None:
        try:
            while self._wake_read.recv(512):
                pass
        except BlockingIOError:
            pass


def _worker_main(sock, model, timeout: float | None) -> None:
    """A worker's life: read a request, score it under the deadline, write the reply; until end of file."""
    from .deadline import score_within

    _die_with_parent()
    sock.setblocking(True)
    stream = sock.makefile("rb")
    while True:
        head = stream.read(HEADER.size)
        if len(head) < HEADER.size:
            return
        (size,) = HEADER.unpack(head)
        raw = stream.read(size)
        if len(raw) < size:
            return
        try:
            score = score_within(lambda: model.score_message(raw), timeout)
            if score.reason:
                log(f"a message of {len(raw):,} bytes {score.reason}")
            reply = _reply(score, model.cutoffs)
        except Exception as error:  # noqa: BLE001 -- a bug on one message must not end the worker
            log(f"scoring a message of {len(raw):,} bytes failed: {type(error).__name__}: {error}")
            reply = _error(f"the message could not be scored: {type(error).__name__}")
        sock.sendall(HEADER.pack(len(reply)) + reply)


def _die_with_parent() -> None:
    """Linux: SIGKILL this worker when the main process dies, even in the middle of a message."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # elsewhere the end of file on its socket ends an idle worker


def check_workers(workers: int | None) -> int:
    if workers is None:
        return default_workers()
    if workers < 1:
        raise OptionError("--workers must be at least 1")
    return workers


class ModelHolder:
    """The model and the identity of the file it came from; reloads when the file changes."""

    def __init__(self, path: str) -> None:
        from .model import Model

        # Model.load, not the lighter Scorer.open: it checks every byte, so a
        # damaged file is turned away at reload, while the old model still
        # serves, rather than failing messages one by one.
        self._load = Model.load
        self.path = path
        self.signature = self._signature()
        if self.signature[0] == "unusable":
            raise OptionError(f"the model {path} {self.signature[1]}")
        self.model = self._load(path)  # at start-up a bad model is the caller's error
        self._rejected = None

    def _signature(self):
        import stat

        try:
            info = os.stat(self.path)
        except OSError as error:
            return ("unusable", f"cannot be read ({_reason(error)})")
        if not stat.S_ISREG(info.st_mode):
            # A FIFO would block the open, a device would be read for ever.
            return ("unusable", "is not a regular file")
        return (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_size)

    def refresh(self, force: bool = False) -> bool:
        """Reload if the file changed since the last attempt (or if `force`); True if it did."""
        signature = self._signature()
        if not force and (signature == self.signature or signature == self._rejected):
            return False
        self._rejected = signature  # one log line per change, not one per request
        if signature[0] == "unusable":
            log(f"the model {self.path} {signature[1]}; still serving the one loaded")
            return False
        try:
            model = self._load(self.path)
        except Exception as error:  # noqa: BLE001 -- whatever it is, the loaded model keeps serving
            log(f"reload of {self.path} failed ({error}); still serving the one loaded before")
            return False
        self.model, self.signature = model, signature
        log(f"reloaded {self.path}")
        return True
