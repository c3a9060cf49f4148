"""`spamnb serve`: the daemon side of spamnb.app.server's protocol.

One process reads and writes every socket; worker processes score.

    main process     accepts, checks the peer's uid, reads requests into
                     buffers, hands each whole request to an idle worker,
                     sends the replies back, enforces every limit below.
                     It never scores, so it never waits on a message.
    workers          `--workers` processes forked from the main process once
                     the model is loaded and warmed up (the model's pages
                     are shared, copy-on-write).  Each scores one message at
                     a time under the per-message deadline (SIGALRM,
                     spamnb.app.deadline).  When every worker is busy, more are
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

Learning (`spamnb learn --server`, spamnb.server's protocol): a worker
learns the message into the model file with incremental.learn_file, as
`spamnb learn --model M` does, under the model's lock.  No deadline kills a
learning worker (a learn may wait for the lock or fold the journal into a
new base), only LEARN_SECONDS.

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

import collections
import os
import signal
import socket
import struct
import time

from ..errors import OptionError
from .answering import failure_reply, refused_reply, worker_main
from .modelholder import ModelHolder
from .server import HEADER, LEARN_BIT, MAX_CONNECTIONS, MAX_LEARN_LINE, _SEND_FLAGS, _error, _reason, log
from .sockets import Listener, check_not_serving, listen_at, own_directory, remove_if_ours, spamd_listener

IDLE_SECONDS = 60.0          # a connection with nothing in progress this long is closed
READ_SECONDS = 30.0          # a request must arrive whole this soon after its first byte
WATCHDOG_GRACE = 1.0         # past the deadline, the time a worker gets before it is killed
SPARE_IDLE_SECONDS = 30.0    # an extra worker with no work this long leaves
BUFFER_BUDGET = 32 << 20     # request bytes held in all, before big senders are paused
CONNECTION_FLOOR = 128 << 10  # what a connection may always hold: an ordinary message
OUTBOX_LIMIT = 1 << 16       # replies a client has not read; past this, its requests wait
LEARN_SECONDS = 600.0       # a learning worker silent this long is killed (a learn is safe to kill)
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
    import fcntl

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
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OptionError(f"another spamnb serve is already running on {socket_path}") from None
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


class _Connection:
    __slots__ = ("sock", "inbox", "outbox", "closing", "events", "last_active", "request_started",
                 "busy", "closed", "protocol", "eof", "head", "write_progress")

    def __init__(self, sock, now: float, protocol: str = "spamnb") -> None:
        self.sock = sock
        self.protocol = protocol
        self.eof = False              # the client shut its side: answer what is whole, then close
        # spamd: (method, headers, body length, head length) once parsed
        self.head: tuple[str, dict[str, str], int, int] | None = None
        self.write_progress = now     # when the client last took reply bytes (or replies began to wait)
        self.inbox = bytearray()
        self.outbox = bytearray()
        self.closing = False          # answer what is queued, then hang up
        self.events = 0
        self.last_active = now
        self.request_started: float | None = None  # when the first byte of a request not yet whole arrived
        self.busy = False             # a request of this connection is queued or being scored
        self.closed = False


class _Worker:
    __slots__ = ("pid", "sock", "outbox", "inbox", "connection", "handed", "generation", "idle_since",
                 "events", "killed", "learning")

    def __init__(self, pid: int, sock, generation: int, now: float) -> None:
        self.pid = pid
        self.sock = sock
        self.outbox = bytearray()     # the request being sent to it
        self.inbox = bytearray()      # its reply, as it arrives
        self.connection: _Connection | None = None  # whose message it is scoring
        self.handed = 0.0             # when it got that message
        self.generation = generation  # which load of the model it holds
        self.idle_since = now
        self.events = 0
        self.killed = False
        self.learning = False         # the message in hand is to be learned, not scored


class Daemon:
    """The event loop of the main process (see the module docstring)."""

    def __init__(self, listeners: list[Listener], holder, max_bytes: int, *, timeout: float | None, workers: int,
                 max_connections: int, idle_seconds: float, read_seconds: float, extra_close=(),
                 learn_path: str | None = None) -> None:
        import selectors

        self._selectors = selectors
        self._clock = time.monotonic
        self.listeners = listeners
        self.learn_path = learn_path  # spamd TELL learns into this model; None: TELL is refused
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
        for listener in listeners:
            self.selector.register(listener.sock, selectors.EVENT_READ, listener)
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
        self._stop_listening()
        for listener in self.listeners:
            listener.sock.close()
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
            if isinstance(kind, Listener):
                self._accept(kind)
            elif kind == "wake":
                self._drain_wakeups()
            elif isinstance(kind, _Worker):
                try:
                    self._on_worker(kind, mask)
                except Exception as error:  # noqa: BLE001 -- one worker's trouble must not stop the daemon
                    log(f"worker (pid {kind.pid}): {type(error).__name__}: {error}; replaced")
                    self._worker_gone(kind)
            else:
                try:
                    self._on_connection(kind, mask)
                except Exception as error:  # noqa: BLE001 -- one client's request must not stop the daemon
                    log(f"a connection failed: {type(error).__name__}: {error}; closed")
                    self._close(kind)

    def _select_timeout(self) -> float | None:
        if self.queue and any(w.connection is None for w in self.workers):
            return 0
        if self.connections or any(w.connection is not None for w in self.workers) \
                or len(self.workers) > self.base_workers:
            return TICK
        return None

    # -- clients ---------------------------------------------------------------

    def _stop_listening(self) -> None:
        if self.listening:
            for listener in self.listeners:
                self.selector.unregister(listener.sock)
            self.listening = False

    def _accept(self, listener: Listener) -> None:
        while True:
            try:
                sock, address = listener.sock.accept()
            except BlockingIOError:
                return
            except OSError as error:
                log(f"accept failed: {_reason(error)}")
                return
            # Full: the connection idle longest makes room for one that is here
            # (never for nobody, and never the newcomer itself).
            if len(self.connections) >= self.max_connections and not self._evict_idlest():
                log(f"{len(self.connections)} connections, each with work in progress: turned one away")
                sock.close()
                self._stop_listening()  # until one of them closes
                return
            refusal = self._refusal(sock, listener, address)
            if refusal:
                log(refusal)
                try:
                    sock.setblocking(False)
                    sock.send(refused_reply(listener.protocol), _SEND_FLAGS)
                except OSError:
                    pass
                sock.close()
                continue
            sock.setblocking(False)
            connection = _Connection(sock, self._clock(), listener.protocol)
            self.connections.add(connection)
            self._update(connection)

    def _refusal(self, sock, listener: Listener, address) -> str | None:
        """Why this peer may not be served (a line for the log), or None."""
        if listener.allowed is None:
            pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                                 struct.calcsize("3i")))
            if uid != self.uid:
                return f"refused a connection from uid {uid} (pid {pid}): this server serves uid {self.uid} only"
            return None
        import ipaddress

        host = address[0] if isinstance(address, tuple) else ""
        try:
            peer = ipaddress.ip_address(host.split("%")[0])
        except ValueError:
            return f"refused a spamd connection from {host!r}: not an IP address"
        if getattr(peer, "ipv4_mapped", None):
            peer = peer.ipv4_mapped  # type: ignore[union-attr, assignment]  # an IPv6 address mapping an IPv4 one
        if not any(peer in network for network in listener.allowed):
            return f"refused a spamd connection from {peer}: not in --spamd-allow"
        return None

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
                connection.eof = True
                self._take_request(connection)  # spamd answers a cut-off request with an error
                if connection.closed:
                    return
                if not (connection.busy or connection.outbox or self._whole(connection)):
                    self._close(connection)
                    return
                self._update(connection)
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
        if connection.busy or connection.closing:
            return
        if connection.protocol == "spamd":
            self._take_spamd_request(connection)
            return
        if len(inbox) < HEADER.size:
            return
        (size,) = HEADER.unpack_from(inbox)
        # A learn request holds its first line (label and flags) before the message.
        limit = self.max_bytes + (MAX_LEARN_LINE + 1 if size & LEARN_BIT else 0)
        size &= ~LEARN_BIT
        if size > limit:
            self._queue_reply(connection, _error(f"a request of {size:,} bytes is over the limit of "
                                                 f"{self.max_bytes:,} (is this a spamnb client?)"))
            connection.closing = True
            self.buffered -= len(inbox)
            inbox.clear()
            return
        if len(inbox) >= HEADER.size + size and len(connection.outbox) < OUTBOX_LIMIT:
            connection.busy = True
            self.queue.append(connection)

    def _take_spamd_request(self, connection: _Connection) -> None:
        """spamd: parse the head once it is whole, answer PING/SKIP here, queue the rest when whole."""
        from . import spamd

        inbox = connection.inbox
        if connection.head is None:
            end = inbox.find(b"\r\n\r\n", 0, spamd.MAX_HEAD + 4)
            if end < 0:
                if len(inbox) > spamd.MAX_HEAD or connection.eof:
                    self._refuse_request(connection, spamd.error("no end of the request head"))
                return
            try:
                method, headers, length = spamd.parse_head(bytes(inbox[:end]), self.max_bytes)
            except spamd.ProtocolError as problem:
                self._refuse_request(connection, spamd.error(problem))
                return
            if method in ("PING", "SKIP"):
                self._refuse_request(connection, spamd.response(spamd.EX_OK, message="PONG")
                                     if method == "PING" else b"")
                return
            connection.head = (method, headers, length, end + 4)
        assert connection.head is not None  # parsed above, now or on an earlier read
        method, headers, length, head_size = connection.head
        if len(inbox) >= head_size + length:
            connection.busy = True
            self.queue.append(connection)
        elif connection.eof:
            self._refuse_request(connection, spamd.error(
                f"the message ended after {len(inbox) - head_size:,} of {length:,} bytes"))

    def _refuse_request(self, connection: _Connection, reply: bytes) -> None:
        """Answer without a worker (an error, PONG), then hang up."""
        self._queue_reply(connection, reply)
        connection.closing = True
        self.buffered -= len(connection.inbox)
        connection.inbox = bytearray()
        connection.request_started = None
        self._flush(connection)

    def _whole(self, connection: _Connection) -> bool:
        """Whether the inbox holds a whole request not yet queued."""
        inbox = connection.inbox
        if connection.protocol == "spamd":
            head = connection.head
            return head is not None and len(inbox) >= head[3] + head[2]
        if len(inbox) < HEADER.size:
            return False
        (size,) = HEADER.unpack_from(inbox)
        return len(inbox) >= HEADER.size + (size & ~LEARN_BIT)

    def _request_bytes(self, connection: _Connection) -> bytes:
        """Take the queued request out of the inbox, framed for a worker."""
        inbox = connection.inbox
        if connection.protocol == "spamd":
            import json

            assert connection.head is not None  # queued only once its head was parsed
            method, headers, length, head_size = connection.head
            connection.head = None
            header = json.dumps({"method": method, "headers": headers}).encode("ascii")
            payload = b"D" + HEADER.pack(len(header)) + header + bytes(inbox[head_size:head_size + length])
            taken = head_size + length
        else:
            (size,) = HEADER.unpack_from(inbox)
            kind = b"L" if size & LEARN_BIT else b"N"
            size &= ~LEARN_BIT
            payload = kind + bytes(inbox[HEADER.size:HEADER.size + size])
            taken = HEADER.size + size
        del inbox[:taken]
        self.buffered -= taken
        self.buffered += len(payload) + HEADER.size
        return HEADER.pack(len(payload)) + payload

    def _queue_reply(self, connection: _Connection, reply: bytes) -> None:
        """Replies wait in the outbox, counted in the buffer budget like requests."""
        if not connection.outbox:
            connection.write_progress = self._clock()
        connection.outbox += reply
        self.buffered += len(reply)

    def _flush(self, connection: _Connection) -> None:
        held = len(connection.outbox)
        while connection.outbox:
            try:
                sent = connection.sock.send(connection.outbox, _SEND_FLAGS)
            except BlockingIOError:
                break
            except OSError:
                self._close(connection)
                return
            del connection.outbox[:sent]
            self.buffered -= sent
        if len(connection.outbox) < held:
            connection.write_progress = self._clock()
        if connection.outbox:
            return
        if connection.closing and not connection.busy:
            self._close(connection)
        elif not connection.busy and not connection.closed:
            self._take_request(connection)  # one may have waited for the outbox to drain

    def _readable(self, connection: _Connection) -> bool:
        if connection.closing or connection.busy or connection.eof or len(connection.outbox) >= OUTBOX_LIMIT:
            return False
        if self._whole(connection):
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
        self.buffered -= len(connection.inbox) + len(connection.outbox)
        connection.inbox = bytearray()
        connection.outbox = bytearray()
        self.connections.discard(connection)
        if not self.listening and not self.stopping:
            for listener in self.listeners:
                self.selector.register(listener.sock, self._selectors.EVENT_READ, listener)
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
            # The bytes move from the connection's inbox to the worker's outbox: still held.
            request = self._request_bytes(connection)
            worker.outbox += request
            connection.request_started = self._clock() if connection.inbox else None
            worker.connection = connection
            worker.learning = request[HEADER.size:HEADER.size + 1] == b"L"
            # A learn is watched against LEARN_SECONDS, not the scoring deadline.
            worker.handed = self._clock() + (LEARN_SECONDS - (self.timeout or 0) if worker.learning else 0)
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
                worker_main(child_end, self.holder, self.timeout, self.max_bytes, self.learn_path)
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
        socks = [listener.sock for listener in self.listeners] + [self._wake_read, self._wake_write]
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
        self._queue_reply(connection, reply)
        if connection.protocol == "spamd" or (connection.eof and not self._whole(connection)):
            connection.closing = True  # spamd: one request a connection
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
            if not worker.killed:
                log(f"the worker (pid {worker.pid}) scoring a message died; answered with an error")
            reply = _error("the worker learning the message died; it was not learned") if worker.learning \
                else failure_reply(connection.protocol, worker.killed, self.timeout, self.holder.model.cutoffs)
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
                    try:
                        os.kill(worker.pid, signal.SIGKILL)  # its end of file answers the client
                    except ProcessLookupError:
                        pass  # already gone: its end of file is on the way
        for connection in list(self.connections):
            if connection.outbox and now - connection.write_progress > self.read_seconds:
                # A client that does not take its replies holds memory and a slot: not for ever.
                log(f"a client took no reply bytes for {self.read_seconds:g} s; closed")
                self._close(connection)
                continue
            if connection.busy or connection.closed:
                continue
            if connection.request_started is not None and now - connection.request_started > self.read_seconds:
                self._queue_reply(connection,
                                  _error(f"the request did not arrive whole within {self.read_seconds:g} s"))
                connection.closing = True
                self.buffered -= len(connection.inbox)
                connection.inbox = bytearray()
                connection.request_started = None
                self._flush(connection)
            elif not connection.inbox and not connection.outbox and \
                    now - connection.last_active > self.idle_seconds:
                self._close(connection)
        self._reap()  # workers that left since (a retired one exits after its socket closes)
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


def check_workers(workers: int | None) -> int:
    if workers is None:
        return default_workers()
    if workers < 1:
        raise OptionError("--workers must be at least 1")
    return workers


