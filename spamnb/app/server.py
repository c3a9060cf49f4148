"""`spamnb serve`: the model kept loaded behind a Unix socket, and its client.

A fresh `spamnb classify` spends most of its time starting Python and loading
the model.  `spamnb serve` pays that once; `classify --server` (or
`Client` and `RemoteScorer` here) only sends messages and reads the verdicts.

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

    learn      the same 4-byte length with its top bit set (LEARN_BIT), then
               one line of ASCII words, at most MAX_LEARN_LINE bytes: the
               label ("spam" or "ham") and any of "forget", "relabel",
               "force", "on-error" (the `learn` options of those names),
               ending in "\n"; then the raw message.  The server learns it
               into its model file as `spamnb learn --model M` would (the
               same journal append under the same lock) and answers one
               JSON line: the message's LearnReport counts, whether the
               model changed or was created, and the model's path:
                 {"learned": {"spam": 1, "ham": 0}, "forgotten": {...},
                  "relabelled": 0, "duplicates": 0, "conflicts": 0,
                  "not_learned": 0, "already_right": 0, "changed": true,
                  "created": false, "model": "/home/me/.local/..."}
               Or an error, as above.  The next request on any connection
               is scored by the model with this message in it.

A length over the limit (garbage, or not a spamnb client) gets an error and
the connection is closed, since the stream cannot be resynchronised.  A
message that fails to score gets an error and the connection goes on.

Security: only the user who started the server is served.  The socket is a
Unix socket (never TCP, whose peers cannot be identified), mode 0600, in a
directory of that user's own that others cannot write to; and every
connection's peer uid (SO_PEERCRED) must equal the server's, which holds even
if the file modes are loosened.  Others are told "refused" and disconnected.

The server side (worker processes, deadlines, limits on idle and slow
clients and on buffered bytes, reload, stop) is spamnb.app.daemon.

This module's top level imports only cheap standard modules, so a program
that uses just the client starts fast; the server side imports the model
code inside its functions.
"""

from __future__ import annotations

import os
import struct
import sys

# The C module: socket.py wraps it in enums and selectors, 8.4 ms of a fresh
# client (BENCHMARKS.md, "Private CPython modules on the cold path") that
# neither the client nor this module uses.
import _socket as socket

from .. import jsoncodec
from ..errors import OptionError, ServerError, say_on_stderr
from .optiontable import LEARN_FLAGS, check_learn_flags

HEADER = struct.Struct(">I")
LEARN_BIT = 1 << 31       # in a request's length: a message to learn, not to score
MAX_LEARN_LINE = 64       # a learn request's first line: the label and flags
# A learn reply's counts, beside its "learned" and "forgotten" per class: the
# daemon writes them, learn_remote reads them.
LEARN_COUNTS = ("relabelled", "duplicates", "conflicts", "not_learned", "already_right")
SOCKET_NAME = "serve.sock"
MAX_CONNECTIONS = 256     # past this the connection idle longest is closed to make room
MAX_REPLY_BYTES = 1 << 20
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
        self._unread = b""  # what came after the last reply's newline

    def score(self, raw: bytes) -> dict:
        """The server's reply for one raw message.  Raises ServerError on an error reply."""
        if len(raw) >= LEARN_BIT:
            raise ServerError(f"a message of {len(raw):,} bytes cannot be sent to a server")
        return self._request(HEADER.pack(len(raw)) + raw)

    def learn(self, raw: bytes, label: str, flags: tuple[str, ...] = ()) -> dict:
        """Have the server learn one raw message as `label` ("spam"/"ham") with
        `flags` (of LEARN_FLAGS); its reply (the counts).  Raises ServerError."""
        payload = " ".join((label, *flags)).encode("ascii") + b"\n" + raw
        if len(payload) >= LEARN_BIT:
            raise ServerError(f"a message of {len(raw):,} bytes cannot be sent to a server")
        return self._request(HEADER.pack(LEARN_BIT | len(payload)) + payload)

    def _request(self, request: bytes) -> dict:
        try:
            self._sock.sendall(request, _SEND_FLAGS)
        except OSError:
            pass  # the server may have answered and hung up (a refusal): read what it said
        try:
            line = self._read_line()
        except OSError as error:
            raise ServerError(f"the server at {self.path} did not answer: {_reason(error)}") from None
        if not line.endswith(b"\n"):
            raise ServerError(f"the server at {self.path} closed the connection without answering")
        try:
            reply = jsoncodec.loads(line)
        except (ValueError, RecursionError):  # nested past Python's stack: not a reply either
            reply = None
        if not isinstance(reply, dict):
            raise ServerError(f"the server at {self.path} sent something that is not a spamnb reply")
        if "error" in reply:
            raise ServerError(f"server at {self.path}: {reply['error']}")
        return reply

    def _read_line(self) -> bytes:
        """Up to and with the next newline, or what came before the server
        hung up, or MAX_REPLY_BYTES without a newline: at most that is held."""
        pending = bytearray(self._unread)
        searched = 0
        while True:
            end = pending.find(b"\n", searched)
            if end >= 0:
                self._unread = bytes(pending[end + 1:])
                return bytes(pending[:end + 1])
            if len(pending) >= MAX_REPLY_BYTES:
                return bytes(pending[:MAX_REPLY_BYTES])
            searched = len(pending)
            chunk = self._sock.recv(min(1 << 16, MAX_REPLY_BYTES - len(pending)))
            if not chunk:
                return bytes(pending)
            pending += chunk

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


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
        from ..model.scoring import Score

        if explain:
            raise OptionError("the server does not explain its scores; classify locally with --explain")
        reply = self.client.score(raw)
        try:
            exact = reply["exact"]
            log_odds = float(exact["log_odds"])
            label = str(reply["label"])
            if cutoffs is None and (self.spam_cutoff is not None or self.ham_cutoff is not None):
                cutoffs = _cutoffs_given(reply["cutoffs"], self.spam_cutoff, self.ham_cutoff)
            reason = reply.get("reason")
            if reason is not None:  # not scored in time: unsure, whatever the cutoffs
                from ..model.scoring import LABEL_UNSURE

                cutoffs, label = None, LABEL_UNSURE
            return Score(log_odds=log_odds, probability=float(exact["probability"]),
                         label=cutoffs.label(log_odds) if cutoffs else label,
                         tokens_known=int(reply["tokens_known"]), tokens_distinct=int(reply["tokens_distinct"]),
                         reason=None if reason is None else str(reason))
        except (KeyError, TypeError, ValueError):
            raise ServerError("the server's reply lacks fields this spamnb needs (another version?)") from None


def learn_remote(socket_path: str, spam: list[str], ham: list[str], flags: tuple[str, ...] = ()):
    """`spamnb learn --server`: read the messages here, have the server learn
    each in turn.  Returns (report, model path, created, skipped): the report
    has the attributes render.learn_summary reads, summed over the messages."""
    from types import SimpleNamespace

    from ..mail.sources import read_messages

    report = SimpleNamespace(learned={"spam": 0, "ham": 0}, forgotten={"spam": 0, "ham": 0},
                             **dict.fromkeys(LEARN_COUNTS, 0), changed=False)
    model, created, skipped = socket_path, False, []  # type: ignore[var-annotated]
    with Client(socket_path) as client:
        for label, paths in (("spam", spam), ("ham", ham)):
            for path in paths:
                for message in read_messages(path, skipped):
                    reply = client.learn(message.data, label, flags)
                    try:
                        for kind in ("learned", "forgotten"):
                            for each in ("spam", "ham"):
                                getattr(report, kind)[each] += int(reply[kind][each])
                        for name in LEARN_COUNTS:
                            setattr(report, name, getattr(report, name) + int(reply[name]))
                        report.changed = report.changed or bool(reply["changed"])
                        created = created or bool(reply["created"])
                        model = str(reply["model"])
                    except (KeyError, TypeError, ValueError):
                        raise ServerError("the server's reply lacks fields this spamnb needs "
                                          "(another version?)") from None
    return report, model, created, skipped


def parse_learn_line(line: bytes) -> tuple[str, tuple[str, ...]]:
    """(label, flags) of a learn request's first line; ValueError for anything else."""
    words = line.decode("ascii").split()
    if not words or words[0] not in ("spam", "ham") or len(set(words[1:])) != len(words) - 1 \
            or not set(words[1:]) <= set(LEARN_FLAGS):
        raise ValueError("a learn request starts with spam or ham and the flags " + ", ".join(LEARN_FLAGS))
    flags = tuple(words[1:])
    try:
        check_learn_flags("forget" in flags, "relabel" in flags, "on-error" in flags)
    except OptionError as error:
        raise ValueError(str(error)) from None
    return words[0], flags


def _cutoffs_given(stored, spam: float | None, ham: float | None):
    """The server model's cutoffs (`stored`, from its reply: ValueError if
    they are not cutoffs) with those given here in their place."""
    from ..model.scoring import Cutoffs

    server = Cutoffs(spam=float(stored["spam"]), ham=float(stored["ham"]))
    try:
        return server.with_given(spam, ham)
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


# -- shared with the daemon (spamnb.app.daemon) ------------------------------------


def log(line: str) -> None:
    """One line on stderr; a closed stderr (a detached daemon) is not an error."""
    try:
        say_on_stderr(line, "spamnb serve")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _reply(score, cutoffs) -> bytes:
    from .render import _finite, score_record

    record = score_record("-", score)
    del record["path"]
    record["exact"] = {"probability": score.probability, "log_odds": _finite(score.log_odds)}
    record["cutoffs"] = {"spam": cutoffs.spam, "ham": cutoffs.ham}
    if score.reason:
        record["reason"] = score.reason
    return (jsoncodec.dumps(record, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


def _error(text: str) -> bytes:
    return (jsoncodec.dumps({"error": text}) + "\n").encode("utf-8")

