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

import json
import os
import socket
import struct
import sys

from ..errors import OptionError, ServerError

HEADER = struct.Struct(">I")
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
                stored = reply["cutoffs"]
                cutoffs = _cutoffs(float(stored["spam"]) if self.spam_cutoff is None else self.spam_cutoff,
                                   float(stored["ham"]) if self.ham_cutoff is None else self.ham_cutoff)
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


def _cutoffs(spam: float, ham: float):
    from ..model.scoring import Cutoffs

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


# -- shared with the daemon (spamnb.app.daemon) ------------------------------------


def log(line: str) -> None:
    """One line on stderr; a closed stderr (a detached daemon) is not an error."""
    try:
        sys.stderr.write(f"spamnb serve: {line}\n")
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
    return (json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


def _error(text: str) -> bytes:
    return (json.dumps({"error": text}) + "\n").encode("utf-8")

