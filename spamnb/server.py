"""`spamnb serve`: the model kept loaded behind a Unix socket, and its client.

A fresh `spamnb classify` spends most of its time starting Python and loading
the model.  `spamnb serve` pays that once; `classify --server` (or
`classify_remote` here) only sends messages and reads the verdicts.

Protocol: one Unix stream connection carries any number of requests, each
answered in turn, in order.

    request    a 4-byte big-endian unsigned length N, then N bytes: one raw
               message as it would be read from a file.  N is at most 10 MiB
               (sources.MAX_MESSAGE_BYTES, the cap `classify` reads).
    reply      one line of UTF-8 JSON ending in "\\n".  Either the fields
               `classify --format jsonl` prints, less `path` (the server never
               sees one), plus the unrounded numbers and the model's cutoffs,
               so that a client prints exactly what a local classify prints
               and can apply cutoffs of its own:
                 {"label": "spam", "score": 0.998004, "log_odds": 6.2126,
                  "tokens_known": 41, "tokens_distinct": 57,
                  "exact": {"probability": 0.99800412..., "log_odds": 6.21263...},
                  "cutoffs": {"spam": 0.99, "ham": 0.01}}
               A message not scored within the server's --timeout is
               answered unsure (score 0.5, log-odds 0) with a "reason"
               field saying so; the server then goes on with the others.
               Or an error: {"error": "..."}.

A length over the limit (garbage, or not a spamnb client) gets an error and
the connection is closed, since the stream cannot be resynchronised.  A
message that fails to score gets an error and the connection goes on.

Security: only the user who started the server is served.  The socket is a
Unix socket (never TCP, whose peers cannot be identified), mode 0600, in a
directory of that user's own that others cannot write to; and every
connection's peer uid (SO_PEERCRED) must equal the server's, which holds even
if the file modes are loosened.  Others are told "refused" and disconnected.

Reload: before each request the model file is stat'ed; a new inode, mtime or
size (`spamnb learn` and `train` replace the file) loads it again.  SIGHUP
reloads at once.  A model that fails to load is logged and the old one stays.

Deadline: each message is scored under `--timeout` (default 10 s): SIGALRM
stops it wherever it is (spamnb.deadline), so one slow message holds the
others up for at most that long.  Messages are scored one at a time.

Stop: SIGTERM or SIGINT.  The request being scored is finished and answered,
the socket file removed, and `serve` returns.  A lock file beside the socket
(SOCKET.lock, left in place) keeps a second server off the same path.

This module's top level imports only cheap standard modules, so a program
that uses just the client starts fast; the server side imports the model
code inside its functions.
"""

from __future__ import annotations

import json
import os
import socket
import struct
import sys

from .errors import OptionError, ServerError

HEADER = struct.Struct(">I")
SOCKET_NAME = "serve.sock"
MAX_CONNECTIONS = 64      # more wait in the listen backlog until one closes
IDLE_SECONDS = 120.0      # a connection silent this long is closed
MAX_REPLY_BYTES = 1 << 20
_OUTBOX_LIMIT = 1 << 16   # replies a client has not read; past this, its requests wait
_SEND_FLAGS = getattr(socket, "MSG_NOSIGNAL", 0)  # a vanished peer is an error, not SIGPIPE


def default_socket_path() -> str:
    """$XDG_RUNTIME_DIR/spamnb/serve.sock, else /tmp/spamnb-UID/serve.sock."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        return os.path.join(runtime, "spamnb", SOCKET_NAME)
    return os.path.join("/tmp", f"spamnb-{os.geteuid()}", SOCKET_NAME)


# -- client --------------------------------------------------------------------


class Client:
    """One connection to a `spamnb serve`.  Raises ServerError when it cannot connect."""

    def __init__(self, socket_path: str, timeout: float = 120.0) -> None:
        self.path = socket_path
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        # Generous: a 10 MiB message takes seconds to score, and others may be queued.
        sock.settimeout(timeout)
        try:
            sock.connect(socket_path)
        except OSError as error:
            sock.close()
            raise ServerError(_unreachable(socket_path, error)) from None
        # The server checks who connects; the client checks who answers.
        # Another user who got to the socket path first (say /tmp/spamnb-UID
        # after a reboot) must not read our mail or choose its verdicts.
        owner = _peer_uid(sock)
        if owner is not None and owner != os.geteuid():
            sock.close()
            raise ServerError(f"the server at {socket_path} runs as uid {owner}, not as you "
                              f"(uid {os.geteuid()}); refusing to send it mail")
        self._sock = sock
        self._replies = sock.makefile("rb")

    def score(self, raw: bytes) -> dict:
        """The server's reply for one raw message.  Raises ServerError on an error reply."""
        if len(raw) > 0xFFFFFFFF:
            raise ServerError(f"a message of {len(raw):,} bytes cannot be sent to a server")
        try:
            self._sock.sendall(HEADER.pack(len(raw)) + raw, _SEND_FLAGS)
        except OSError:
            pass  # the server may have answered and hung up (a refusal): read what it said
        try:
            line = self._replies.readline(MAX_REPLY_BYTES)
        except OSError as error:
            raise ServerError(f"the server at {self.path} did not answer: {_reason(error)}") from None
        if not line.endswith(b"\n"):
            raise ServerError(f"the server at {self.path} closed the connection without answering")
        try:
            reply = json.loads(line)
        except ValueError:
            reply = None
        if not isinstance(reply, dict):
            raise ServerError(f"the server at {self.path} sent something that is not a spamnb reply")
        if "error" in reply:
            raise ServerError(f"server at {self.path}: {reply['error']}")
        return reply

    def close(self) -> None:
        self._replies.close()
        self._sock.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def classify_remote(socket_path: str, raw_messages):
    """Yield the server's reply (a dict, see the module docstring) for each raw message, in order.

    One connection serves them all.  Raises ServerError if the server cannot be
    reached, refuses, or answers a message with an error.
    """
    with Client(socket_path) as client:
        for raw in raw_messages:
            yield client.score(raw)


class RemoteScorer:
    """A Scorer look-alike for classify_paths: each message is scored by the server.

    `spam_cutoff` / `ham_cutoff` replace the server model's, as `classify
    --spam-cutoff` does locally; the verdict is recomputed from the exact
    log-odds in the reply.
    """

    def __init__(self, socket_path: str, spam_cutoff: float | None = None,
                 ham_cutoff: float | None = None) -> None:
        self.client = Client(socket_path)
        self.spam_cutoff, self.ham_cutoff = spam_cutoff, ham_cutoff

    def score_message(self, raw: bytes, explain: bool = False, cutoffs=None):
        """The Score a local classify would have computed for `raw`."""
        from .scoring import Score

        if explain:
            raise OptionError("the server does not explain its scores; classify locally with --explain")
        reply = self.client.score(raw)
        try:
            exact = reply["exact"]
            log_odds = float(exact["log_odds"])
            label = str(reply["label"])
            if cutoffs is None and (self.spam_cutoff is not None or self.ham_cutoff is not None):
                stored = reply["cutoffs"]
                cutoffs = _cutoffs(float(stored["spam"]) if self.spam_cutoff is None else self.spam_cutoff,
                                   float(stored["ham"]) if self.ham_cutoff is None else self.ham_cutoff)
            reason = reply.get("reason")
            if reason is not None:  # not scored in time: unsure, whatever the cutoffs
                from .scoring import LABEL_UNSURE

                cutoffs, label = None, LABEL_UNSURE
            return Score(log_odds=log_odds, probability=float(exact["probability"]),
                         label=cutoffs.label(log_odds) if cutoffs else label,
                         tokens_known=int(reply["tokens_known"]), tokens_distinct=int(reply["tokens_distinct"]),
                         reason=None if reason is None else str(reason))
        except (KeyError, TypeError, ValueError):
            raise ServerError("the server's reply lacks fields this spamnb needs (another version?)") from None

    def close(self) -> None:
        self.client.close()


def _cutoffs(spam: float, ham: float):
    from .scoring import Cutoffs

    try:
        return Cutoffs(spam=spam, ham=ham)
    except ValueError as error:
        raise OptionError(str(error)) from None


def _peer_uid(sock) -> int | None:
    """The uid of the process at the other end of a Unix socket (None where
    the system cannot say)."""
    if not hasattr(socket, "SO_PEERCRED"):
        return None
    credentials = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", credentials)[1]


def _unreachable(path: str, error: OSError) -> str:
    if isinstance(error, (FileNotFoundError, ConnectionRefusedError)):
        return f"no spamnb server at {path} (start one with `spamnb serve`)"
    return f"cannot connect to the spamnb server at {path}: {_reason(error)}"


def _reason(error: OSError) -> str:
    if isinstance(error, TimeoutError):
        return "no answer in time"
    return error.strerror or str(error) or type(error).__name__


# -- server --------------------------------------------------------------------


def serve(model_path: str, socket_path: str, *, max_connections: int = MAX_CONNECTIONS,
          idle_seconds: float = IDLE_SECONDS, timeout: float | None = None) -> None:
    """Serve `model_path` on `socket_path` until SIGTERM or SIGINT, then return.

    Raises OptionError when the socket cannot be set up (a directory of
    someone else's, a server already listening there...) and ModelError when
    the model cannot be loaded.  Everything after start-up is logged on
    stderr, one line per event, and never stops the server.
    """
    import fcntl
    import signal

    from .sources import MAX_MESSAGE_BYTES

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
        holder = _ModelHolder(model_path)
        _warm_up(holder.model)
        listener, identity = _listen(socket_path, directory)
        server = _Server(listener, holder, MAX_MESSAGE_BYTES, max_connections, idle_seconds, timeout)
        # A departed client must not kill the server: every send is checked instead.
        previous = {signum: signal.getsignal(signum)
                    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGPIPE)}
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        try:
            server.install_signals()
            log(f"serving {model_path} on {socket_path} (pid {os.getpid()}); SIGHUP reloads, SIGTERM stops")
            server.run()
        finally:
            _remove_if_ours(socket_path, identity)
            server.close()
            signal.set_wakeup_fd(-1)
            for signum, handler in previous.items():
                signal.signal(signum, handler)
        log(f"stopped ({server.stop_reason}); {server.answered:,} messages scored")
    finally:
        os.close(lock)


def log(line: str) -> None:
    """One line on stderr; a closed stderr (a detached daemon) is not an error."""
    try:
        sys.stderr.write(f"spamnb serve: {line}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


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


class _ModelHolder:
    """The model and the identity of the file it came from; reloads when the file changes."""

    def __init__(self, path: str) -> None:
        from .model import Model

        # Model.load, not the lighter Scorer.open: it checks every byte, so a
        # damaged file is turned away at reload, while the old model still
        # serves, rather than failing messages one by one; a long-running
        # process pays its numpy import once.
        self._load = Model.load
        self.path = path
        self.signature = self._signature()
        self.model = self._load(path)  # at start-up a bad model is the caller's error
        self._rejected = None

    def _signature(self):
        try:
            info = os.stat(self.path)
        except OSError as error:
            return ("missing", _reason(error))
        return (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_size)

    def refresh(self, force: bool = False) -> None:
        """Reload if the file changed since the last attempt (or if `force`)."""
        signature = self._signature()
        if not force and (signature == self.signature or signature == self._rejected):
            return
        self._rejected = signature  # one log line per change, not one per request
        if signature[0] == "missing":
            log(f"cannot read the model {self.path} ({signature[1]}); still serving the one loaded")
            return
        try:
            model = self._load(self.path)
        except Exception as error:  # noqa: BLE001 -- whatever it is, the loaded model keeps serving
            log(f"reload of {self.path} failed ({error}); still serving the one loaded before")
            return
        self.model, self.signature = model, signature
        log(f"reloaded {self.path}")


class _Connection:
    __slots__ = ("sock", "inbox", "outbox", "closing", "events", "last_active", "closed")

    def __init__(self, sock, now: float) -> None:
        self.sock = sock
        self.inbox = bytearray()
        self.outbox = bytearray()
        self.closing = False   # answer what is queued, then hang up
        self.events = 0
        self.last_active = now
        self.closed = False


class _Server:
    """The event loop.

    One thread, one selectors loop: scoring is pure Python that holds the GIL,
    so threads would not score two messages at once, and a single loop that
    takes one request at a time from each ready connection is as fast, has no
    locks, and still lets a procmail delivery through while a big `classify
    --server ~/Maildir` run is going on.
    """

    def __init__(self, listener, holder: _ModelHolder, max_bytes: int, max_connections: int,
                 idle_seconds: float, timeout: float | None = None) -> None:
        import selectors
        import time

        self._clock = time.monotonic
        self._selectors = selectors
        self.listener = listener
        self.holder = holder
        self.max_bytes = max_bytes
        self.max_connections = max_connections
        self.idle_seconds = idle_seconds
        self.timeout = timeout
        self.uid = os.geteuid()
        self.selector = selectors.DefaultSelector()
        self.selector.register(listener, selectors.EVENT_READ, "listener")
        self.listening = True
        self.connections: set[_Connection] = set()
        self.ready: set[_Connection] = set()   # a whole request buffered, waiting its turn
        self.stop_reason: str | None = None
        self.shutting_down = False
        self.reload_asked = False
        self.answered = 0
        self._wake_read, self._wake_write = socket.socketpair()

    def install_signals(self) -> None:
        import signal

        def stop(signum, frame):
            self.stop_reason = signal.Signals(signum).name

        def reload(signum, frame):
            self.reload_asked = True

        # The handlers only set flags; the wake-up byte makes select return to look at them.
        for sock in (self._wake_read, self._wake_write):
            sock.setblocking(False)
        self.selector.register(self._wake_read, self._selectors.EVENT_READ, "wake")
        signal.set_wakeup_fd(self._wake_write.fileno(), warn_on_full_buffer=False)
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGHUP, reload)

    def run(self) -> None:
        while self.stop_reason is None:
            for key, mask in self.selector.select(self._timeout()):
                if key.data == "listener":
                    self._accept()
                elif key.data == "wake":
                    self._drain_wakeups()
                else:
                    self._on_event(key.data, mask)
            if self.stop_reason is not None:
                break
            if self.reload_asked:
                self.reload_asked = False
                self.holder.refresh(force=True)
            # One request from each connection that has one waiting, in turn.
            for connection in list(self.ready):
                self._advance(connection)
            self._close_idle()

    def close(self) -> None:
        """Stop listening, deliver replies already made (briefly), hang up on everyone."""
        self.shutting_down = True
        if self.listening:
            self.selector.unregister(self.listener)
            self.listening = False
        self.listener.close()
        for connection in list(self.connections):
            if connection.outbox:
                try:
                    connection.sock.settimeout(1.0)
                    connection.sock.sendall(connection.outbox, _SEND_FLAGS)
                except OSError:
                    pass
            self._close(connection)
        self.selector.close()
        self._wake_read.close()
        self._wake_write.close()

    # -- connections ----------------------------------------------------------

    def _accept(self) -> None:
        while len(self.connections) < self.max_connections:
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
        # Full: leave the rest in the listen backlog until a connection closes.
        if self.listening:
            self.selector.unregister(self.listener)
            self.listening = False

    def _on_event(self, connection: _Connection, mask: int) -> None:
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
            connection.inbox += data
            connection.last_active = self._clock()
        if not connection.closed:
            self._advance(connection)

    def _advance(self, connection: _Connection) -> None:
        """Answer at most one buffered request, send what can be sent, choose what to wait for."""
        if not connection.closing and len(connection.outbox) < _OUTBOX_LIMIT:
            request = self._take_request(connection)
            if request is not None:
                connection.outbox += self._answer(request)
                connection.last_active = self._clock()
        self._flush(connection)
        if not connection.closed:
            self._update(connection)

    def _take_request(self, connection: _Connection) -> bytes | None:
        inbox = connection.inbox
        if len(inbox) < HEADER.size:
            return None
        (size,) = HEADER.unpack_from(inbox)
        if size > self.max_bytes:
            connection.outbox += _error(f"a request of {size:,} bytes is over the limit of "
                                        f"{self.max_bytes:,} (is this a spamnb client?)")
            connection.closing = True
            inbox.clear()
            return None
        if len(inbox) < HEADER.size + size:
            return None
        request = bytes(inbox[HEADER.size:HEADER.size + size])
        del inbox[:HEADER.size + size]
        return request

    def _has_request(self, connection: _Connection) -> bool:
        inbox = connection.inbox
        return len(inbox) >= HEADER.size and len(inbox) >= HEADER.size + HEADER.unpack_from(inbox)[0]

    def _answer(self, raw: bytes) -> bytes:
        self.holder.refresh(force=self.reload_asked)
        self.reload_asked = False
        model = self.holder.model
        from .deadline import score_within

        try:
            # The deadline (SIGALRM) bounds how long the other connections wait.
            score = score_within(lambda: model.score_message(raw), self.timeout)
            if score.reason:
                log(f"a message of {len(raw):,} bytes {score.reason}")
        except Exception as error:  # noqa: BLE001 -- a bug in scoring one message must not stop the server
            log(f"scoring a message of {len(raw):,} bytes failed: {type(error).__name__}: {error}")
            return _error(f"the message could not be scored: {type(error).__name__}")
        self.answered += 1
        return _reply(score, model.cutoffs)

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
        if connection.closing:
            self._close(connection)

    def _update(self, connection: _Connection) -> None:
        """Wait to read only when no request is buffered and replies are being read:
        a client cannot make the server hold more than one request and 64 KiB of replies."""
        selectors = self._selectors
        pending = self._has_request(connection) and not connection.closing
        room = len(connection.outbox) < _OUTBOX_LIMIT
        events = (selectors.EVENT_READ if not pending and room and not connection.closing else 0) | \
                 (selectors.EVENT_WRITE if connection.outbox else 0)
        if pending and room:
            self.ready.add(connection)
        else:
            self.ready.discard(connection)
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
        self.connections.discard(connection)
        self.ready.discard(connection)
        if not self.listening and not self.shutting_down:
            self.selector.register(self.listener, self._selectors.EVENT_READ, "listener")
            self.listening = True

    def _timeout(self) -> float | None:
        if self.ready:
            return 0
        if not self.connections:
            return None
        oldest = min(connection.last_active for connection in self.connections)
        return max(0.0, oldest + self.idle_seconds - self._clock())

    def _close_idle(self) -> None:
        deadline = self._clock() - self.idle_seconds
        for connection in list(self.connections):
            if connection.last_active <= deadline and connection not in self.ready:
                self._close(connection)

    def _drain_wakeups(self) -> None:
        try:
            while self._wake_read.recv(512):
                pass
        except BlockingIOError:
            pass


def _reply(score, cutoffs) -> bytes:
    from .render import _finite, score_record

    record = score_record("-", score)
    del record["path"]
    record["exact"] = {"probability": score.probability, "log_odds": _finite(score.log_odds)}
    record["cutoffs"] = {"spam": cutoffs.spam, "ham": cutoffs.ham}
    if score.reason:
        record["reason"] = score.reason
    return (json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


def _error(text: str) -> bytes:
    return (json.dumps({"error": text}) + "\n").encode("utf-8")

