"""The daemon's client connections (Connections): accepted, read into
buffers until a request is whole, queued for a worker, answered, closed.

Every connection is non-blocking and served by the main process's one
loop (spamnb.app.daemon), so an idle, slow or greedy client holds only its
own connection:

- a connection is closed after IDLE_SECONDS with nothing in progress, and
  when MAX_CONNECTIONS are open the one idle longest makes room, so idle
  connections cannot lock anyone out;
- a request must arrive whole within READ_SECONDS of its first byte
  (slow senders);
- buffered request bytes are bounded in total: past BUFFER_BUDGET, a
  connection is read only while it holds less than CONNECTION_FLOOR bytes,
  so ordinary messages still get through while half-sent big ones wait
  for their read deadline;
- a client that does not take its replies gets no new request taken past
  OUTBOX_LIMIT reply bytes, and is closed after READ_SECONDS without taking
  a byte.

A connection has one request at a time queued or being scored; the next
one waits in its inbox.  spamd's connections carry one request each.
"""

from __future__ import annotations

import collections
from selectors import EVENT_READ, EVENT_WRITE

from .answering import refused_reply
from .server import HEADER, LEARN_BIT, MAX_LEARN_LINE, _SEND_FLAGS, _error, _reason, log
from .sockets import Listener

BUFFER_BUDGET = 32 << 20     # request bytes held in all, before big senders are paused
CONNECTION_FLOOR = 128 << 10  # what a connection may always hold: an ordinary message
OUTBOX_LIMIT = 1 << 16       # replies a client has not read; past this, its requests wait


class Budget:
    """Request bytes held by the main process (inboxes, outboxes, and requests
    on their way to workers), counted against BUFFER_BUDGET; shared with the
    worker pool, which holds requests until a worker takes them."""

    __slots__ = ("held",)

    def __init__(self) -> None:
        self.held = 0


class Connection:
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


class Connections:
    """The listeners and every open connection, registered on the daemon's selector."""

    def __init__(self, selector, listeners: list[Listener], budget: Budget, clock, *, max_bytes: int,
                 max_connections: int, idle_seconds: float, read_seconds: float, uid: int) -> None:
        self.selector = selector
        self.listeners = listeners
        self.budget = budget
        self._clock = clock
        self.max_bytes = max_bytes
        self.max_connections = max_connections
        self.idle_seconds = idle_seconds
        self.read_seconds = read_seconds
        self.uid = uid
        for listener in listeners:
            self.selector.register(listener.sock, EVENT_READ, listener)
        self.listening = True
        self.stopping = False         # the listeners are closed for good
        self.open: set[Connection] = set()
        self.waiting: collections.deque[Connection] = collections.deque()  # whole requests, for a worker

    # -- listening ---------------------------------------------------------------

    def stop_listening(self) -> None:
        if self.listening:
            for listener in self.listeners:
                self.selector.unregister(listener.sock)
            self.listening = False

    def close_listeners(self) -> None:
        """Accept no connection from now on."""
        self.stopping = True
        self.stop_listening()
        for listener in self.listeners:
            listener.sock.close()

    def accept(self, listener: Listener) -> None:
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
            if len(self.open) >= self.max_connections and not self._evict_idlest():
                log(f"{len(self.open)} connections, each with work in progress: turned one away")
                sock.close()
                self.stop_listening()  # until one of them closes
                return
            refusal = listener.refusal(sock, address, self.uid)
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
            connection = Connection(sock, self._clock(), listener.protocol)
            self.open.add(connection)
            self.update(connection)

    def _evict_idlest(self) -> bool:
        """Close the connection idle longest with nothing in progress; False if there is none."""
        idle = [c for c in self.open
                if not c.inbox and not c.busy and not c.outbox and not c.closing]
        if not idle:
            return False
        self.close(min(idle, key=lambda c: c.last_active))
        return True

    def sockets(self) -> list:
        """Every socket of theirs: the listeners' and the connections'."""
        return [listener.sock for listener in self.listeners] + [c.sock for c in self.open]

    # -- requests ----------------------------------------------------------------

    def on_event(self, connection: Connection, mask: int) -> None:
        if mask & EVENT_WRITE:
            self.flush(connection)
        if mask & EVENT_READ and not connection.closed:
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
                    self.close(connection)
                    return
                self.update(connection)
                return
            now = self._clock()
            if not connection.inbox:
                connection.request_started = now
            connection.inbox += data
            self.budget.held += len(data)
            connection.last_active = now
            self._take_request(connection)
        if not connection.closed:
            self.update(connection)

    def _take_request(self, connection: Connection) -> None:
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
            self.budget.held -= len(inbox)
            inbox.clear()
            return
        if len(inbox) >= HEADER.size + size and len(connection.outbox) < OUTBOX_LIMIT:
            connection.busy = True
            self.waiting.append(connection)

    def _take_spamd_request(self, connection: Connection) -> None:
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
            self.waiting.append(connection)
        elif connection.eof:
            self._refuse_request(connection, spamd.error(
                f"the message ended after {len(inbox) - head_size:,} of {length:,} bytes"))

    def _refuse_request(self, connection: Connection, reply: bytes) -> None:
        """Answer without a worker (an error, PONG), then hang up."""
        self._queue_reply(connection, reply)
        connection.closing = True
        self.budget.held -= len(connection.inbox)
        connection.inbox = bytearray()
        connection.request_started = None
        self.flush(connection)

    def _whole(self, connection: Connection) -> bool:
        """Whether the inbox holds a whole request not yet queued."""
        inbox = connection.inbox
        if connection.protocol == "spamd":
            head = connection.head
            return head is not None and len(inbox) >= head[3] + head[2]
        if len(inbox) < HEADER.size:
            return False
        (size,) = HEADER.unpack_from(inbox)
        return len(inbox) >= HEADER.size + (size & ~LEARN_BIT)

    def pop_request(self, connection: Connection) -> bytes:
        """Take the queued request out of the inbox, framed for a worker.  The
        bytes stay counted in the budget until the worker has them."""
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
        self.budget.held -= taken
        self.budget.held += len(payload) + HEADER.size
        connection.request_started = self._clock() if connection.inbox else None
        return HEADER.pack(len(payload)) + payload

    # -- replies -----------------------------------------------------------------

    def answer(self, connection: Connection, reply: bytes) -> None:
        """A worker's reply (or the error standing for it): send it, then take the next request."""
        connection.busy = False
        if connection.closed:
            return
        self._queue_reply(connection, reply)
        if connection.protocol == "spamd" or (connection.eof and not self._whole(connection)):
            connection.closing = True  # spamd: one request a connection
        connection.last_active = self._clock()
        self.flush(connection)
        if not connection.closed:
            self._take_request(connection)  # the next one may be waiting already
            self.update(connection)

    def _queue_reply(self, connection: Connection, reply: bytes) -> None:
        """Replies wait in the outbox, counted in the buffer budget like requests."""
        if not connection.outbox:
            connection.write_progress = self._clock()
        connection.outbox += reply
        self.budget.held += len(reply)

    def flush(self, connection: Connection) -> None:
        held = len(connection.outbox)
        while connection.outbox:
            try:
                sent = connection.sock.send(connection.outbox, _SEND_FLAGS)
            except BlockingIOError:
                break
            except OSError:
                self.close(connection)
                return
            del connection.outbox[:sent]
            self.budget.held -= sent
        if len(connection.outbox) < held:
            connection.write_progress = self._clock()
        if connection.outbox:
            return
        if connection.closing and not connection.busy:
            self.close(connection)
        elif not connection.busy and not connection.closed:
            self._take_request(connection)  # one may have waited for the outbox to drain

    # -- limits ------------------------------------------------------------------

    def enforce_limits(self, now: float) -> None:
        for connection in list(self.open):
            if connection.outbox and now - connection.write_progress > self.read_seconds:
                # A client that does not take its replies holds memory and a slot: not for ever.
                log(f"a client took no reply bytes for {self.read_seconds:g} s; closed")
                self.close(connection)
                continue
            if connection.busy or connection.closed:
                continue
            if connection.request_started is not None and now - connection.request_started > self.read_seconds:
                self._refuse_request(connection,
                                     _error(f"the request did not arrive whole within {self.read_seconds:g} s"))
            elif not connection.inbox and not connection.outbox and \
                    now - connection.last_active > self.idle_seconds:
                self.close(connection)

    def update_all(self) -> None:
        """The budget may have freed room for connections that were paused."""
        for connection in list(self.open):
            if not connection.closed:
                self.update(connection)

    def _readable(self, connection: Connection) -> bool:
        if connection.closing or connection.busy or connection.eof or len(connection.outbox) >= OUTBOX_LIMIT:
            return False
        if self._whole(connection):
            return False  # a whole request waits for its turn
        return len(connection.inbox) < CONNECTION_FLOOR or self.budget.held < BUFFER_BUDGET

    def update(self, connection: Connection) -> None:
        events = (EVENT_READ if self._readable(connection) else 0) | \
                 (EVENT_WRITE if connection.outbox else 0)
        if events != connection.events:
            if connection.events and events:
                self.selector.modify(connection.sock, events, connection)
            elif events:
                self.selector.register(connection.sock, events, connection)
            else:
                self.selector.unregister(connection.sock)
            connection.events = events

    def close(self, connection: Connection) -> None:
        if connection.closed:
            return
        connection.closed = True
        if connection.events:
            self.selector.unregister(connection.sock)
            connection.events = 0
        connection.sock.close()
        self.budget.held -= len(connection.inbox) + len(connection.outbox)
        connection.inbox = bytearray()
        connection.outbox = bytearray()
        self.open.discard(connection)
        if not self.listening and not self.stopping:
            for listener in self.listeners:
                self.selector.register(listener.sock, EVENT_READ, listener)
            self.listening = True
