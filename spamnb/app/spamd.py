"""The SPAMC/SPAMD protocol (SpamAssassin's spamd, version 1.5), for `serve --spamd`.

What Exim's `spam =` condition, spamass-milter, Postfix content filters and
the `spamc` client speak.  A request is one connection:

    METHOD SPAMC/1.5\\r\\n
    Content-length: N\\r\\n          (the methods that carry a message)
    [User: name, Compress: zlib, Message-class: spam|ham, Set: local, Remove: local]
    \\r\\n
    N bytes of message

and spamd answers `SPAMD/1.5 0 EX_OK`, headers, a blank line and a body,
then closes.  Methods: CHECK, SYMBOLS, REPORT, REPORT_IFSPAM, PROCESS,
HEADERS, PING, SKIP and TELL (learning).  An error is `SPAMD/1.5 CODE
NAME` with a sysexits code (76 EX_PROTOCOL for a malformed request).

**Scores.**  SpamAssassin clients expect a points score against a threshold
of 5.0, spam at or above it.  spamnb's score is its log-odds moved so that
its spam cutoff falls on 5.0:

    score = 5.0 + log-odds − logit(spam cutoff)

so `Spam: True` exactly when spamnb's verdict is spam, one point is one
unit of log-odds (a factor e in the odds), and the ham cutoff sits
logit(spam) − logit(ham) points below 5 (with the default cutoffs 0.99 and
0.01: at −4.2).  A message spamnb calls unsure scores between the two.
Input that is not mail, or a message not scored in time, is unsure at
log-odds 0 (verdict.py); its points stay under 5.0 whatever the cutoffs,
and its symbols say why (SPAMNB_NOT_MAIL, SPAMNB_TIMEOUT).

Parsing (this module's `parse_head`) runs in the daemon's main process and
is bounded: the head must end within MAX_HEAD bytes.  Answering
(`answer`) runs in a worker.
"""

from __future__ import annotations

import math
import zlib

from ..mail.headerfield import with_status_header

MAX_HEAD = 8192
THRESHOLD = 5.0
BODY_METHODS = frozenset({"CHECK", "SYMBOLS", "REPORT", "REPORT_IFSPAM", "PROCESS", "HEADERS", "TELL"})
METHODS = BODY_METHODS | {"PING", "SKIP"}

EX_OK, EX_USAGE, EX_DATAERR, EX_SOFTWARE, EX_TEMPFAIL, EX_PROTOCOL = 0, 64, 65, 70, 75, 76
_NAMES = {EX_OK: "EX_OK", EX_USAGE: "EX_USAGE", EX_DATAERR: "EX_DATAERR", EX_SOFTWARE: "EX_SOFTWARE",
          EX_TEMPFAIL: "EX_TEMPFAIL", EX_PROTOCOL: "EX_PROTOCOL"}


class ProtocolError(ValueError):
    """A request that is not SPAMC: answered with `code` and the connection closed."""

    def __init__(self, message: str, code: int = EX_PROTOCOL) -> None:
        super().__init__(message)
        self.code = code


def parse_head(head: bytes, max_body: int) -> tuple[str, dict[str, str], int]:
    """(method, headers with lower-case names, body length) of a request head
    (the bytes before the blank line).  Raises ProtocolError."""
    lines = head.split(b"\r\n")
    try:
        method, version = lines[0].decode("ascii").split(" ")
    except (UnicodeDecodeError, ValueError):
        raise ProtocolError("not a SPAMC request line") from None
    if method not in METHODS or not version.startswith("SPAMC/"):
        raise ProtocolError(f"unknown method or protocol {lines[0][:40]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(b":")
        if not colon:
            raise ProtocolError("a request header line without a colon")
        headers[name.strip().decode("ascii", "replace").lower()] = value.strip().decode("ascii", "replace")
    length = 0
    if method in BODY_METHODS:
        text = headers.get("content-length")
        if text is None or not text.isascii() or not text.isdigit():
            raise ProtocolError("Content-length is required, a number of bytes")
        if len(text) > 12:  # int() of thousands of digits is slow, and refused past 4,300
            raise ProtocolError(f"a message of {len(text)} digits of bytes is over the limit of {max_body:,}",
                                EX_DATAERR)
        length = int(text)
        if length > max_body:
            raise ProtocolError(f"a message of {length:,} bytes is over the limit of {max_body:,}", EX_DATAERR)
    if headers.get("compress", "zlib") != "zlib":
        raise ProtocolError(f"unknown Compress: {headers['compress'][:20]!a}")
    return method, headers, length


def response(code: int, headers: list[tuple[str, str]] | tuple[()] = (), body: bytes | None = None,
             message: str | None = None) -> bytes:
    """A whole spamd response."""
    lines = [f"SPAMD/1.5 {code} {message or _NAMES.get(code, 'EX_SOFTWARE')}"]
    lines += [f"{name}: {value}" for name, value in headers]
    if body is not None:
        lines.append(f"Content-length: {len(body)}")
    # ASCII whatever a message text holds (a client's bytes echoed in an error).
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii", "replace") + (body or b"")


def error(exception: ProtocolError | str, code: int = EX_PROTOCOL) -> bytes:
    if isinstance(exception, ProtocolError):
        code = exception.code
    return response(code, message=f"{_NAMES.get(code, 'EX_SOFTWARE')} {exception}"[:200])


def points(score, cutoffs) -> float:
    """The score's log-odds on SpamAssassin's scale (module docstring), rounded
    to 0.1, and on the side of THRESHOLD its verdict is: a message not scored
    (not mail, out of time) is unsure at log-odds 0 whatever the cutoffs, and
    a log-odds just under the spam cutoff must not round up to 5.0, since a
    client may compare the points with the threshold instead of reading Spam."""
    from ..model.scoring import LABEL_SPAM, logit

    spam = logit(cutoffs.spam)
    if not math.isfinite(spam):  # a cutoff of 1 (never spam) or 0 (always)
        spam = math.copysign(50.0, spam)
    value = round(THRESHOLD + max(-999.0, min(999.0, score.log_odds)) - spam, 1)
    return max(value, THRESHOLD) if score.label == LABEL_SPAM else min(value, THRESHOLD - 0.1)


def spam_status(score, cutoffs, version: str) -> list[tuple[str, str]]:
    """The X-Spam-* header fields SpamAssassin writes, for `filter --header-style
    spamassassin` and PROCESS/HEADERS."""
    from ..model.scoring import LABEL_SPAM

    value = points(score, cutoffs)
    spam = score.label == LABEL_SPAM
    status = (f"{'Yes' if spam else 'No'}, score={value:.1f} required={THRESHOLD:.1f} tests={_symbols(score)} "
              f"autolearn=no version=spamnb-{version}")
    return [("X-Spam-Flag", "YES" if spam else "NO"), ("X-Spam-Level", "*" * max(0, min(50, int(value)))),
            ("X-Spam-Status", status)]


def with_spam_headers(raw: bytes, fields: list[tuple[str, str]]) -> bytes:
    """`raw` with each field at the end of its header block, older copies (forged or stale) removed."""
    for name, value in fields:
        raw = with_status_header(raw, value, name)
    return raw


def decompress(body: bytes, headers: dict[str, str], limit: int) -> bytes:
    """The message itself: inflated when `Compress: zlib`, at most `limit` bytes."""
    if headers.get("compress") != "zlib":
        return body
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(body, limit)
    except zlib.error:
        raise ProtocolError("the zlib body does not inflate", EX_DATAERR) from None
    if inflater.unconsumed_tail:
        raise ProtocolError(f"the message inflates past {limit:,} bytes", EX_DATAERR)
    if not inflater.eof:
        raise ProtocolError("the zlib body ends before its stream does", EX_DATAERR)
    return raw


def answer(model, method: str, headers: dict[str, str], body: bytes, timeout: float | None,
           limit: int, learn=None) -> bytes:
    """The response to one request (in a worker).  `learn(raw, label, remove)`
    does TELL, and says whether the model changed."""
    from .. import __version__
    from .verdict import judge

    try:
        raw = decompress(body, headers, limit)
        if method == "TELL":
            return _tell(raw, headers, learn)
        explain = method in ("REPORT", "REPORT_IFSPAM", "SYMBOLS")
        score = judge(model, raw, timeout, explain)
    except ProtocolError as problem:
        return error(problem)
    cutoffs = model.cutoffs
    value = points(score, cutoffs)
    spam = score.label == "spam"
    fields = [("Spam", f"{'True' if spam else 'False'} ; {value:.1f} / {THRESHOLD:.1f}")]
    if method == "CHECK":
        return response(EX_OK, fields)
    if method == "SYMBOLS":
        return response(EX_OK, fields, _symbols(score).encode("ascii"))
    if method in ("REPORT", "REPORT_IFSPAM"):
        report = _report(score, value) if spam or method == "REPORT" else ""
        return response(EX_OK, fields, report.encode("utf-8"))
    processed = with_spam_headers(raw, spam_status(score, cutoffs, __version__))
    if method == "HEADERS":
        newline = b"\r\n" if b"\r\n\r\n" in processed else b"\n"
        end = processed.find(newline + newline)
        processed = processed if end < 0 else processed[:end + 2 * len(newline)]
    return response(EX_OK, fields, processed)


def _symbols(score) -> str:
    """The verdict's symbol (SPAMNB_SPAM, SPAMNB_HAM, SPAMNB_UNSURE), then why
    a message was not scored (SPAMNB_NOT_MAIL, SPAMNB_TIMEOUT) or has no
    verdict (SPAMNB_NO_EVIDENCE: too few known tokens).  spamd's answer
    has only Spam: True or False, so an unsure message says False, and these
    are where a client sees which it was."""
    from .deadline import timed_out
    from ..model.scoring import has_no_evidence
    from .verdict import is_not_mail

    names = [f"SPAMNB_{score.label.upper()}"]
    if is_not_mail(score):
        names.append("SPAMNB_NOT_MAIL")
    elif timed_out(score):
        names.append("SPAMNB_TIMEOUT")
    elif has_no_evidence(score):
        names.append("SPAMNB_NO_EVIDENCE")
    return ",".join(names)


def _report(score, value: float) -> str:
    lines = [f"spamnb: {score.label}, {value:.1f} points (log-odds {score.log_odds:+.2f}, "
             f"P(spam) {score.probability:.4f}); {score.tokens_known} of {score.tokens_distinct} tokens known",
             ""]
    if score.reason:
        lines.insert(1, f"  {score.reason}")
    lines.append(" pts  token")
    lines.append("----- ----------------------------------------")
    for effect in (score.effects or [])[:12]:
        token = effect.token.replace("\n", " ").replace("\r", " ")[:60]
        lines.append(f"{effect.contribution:+5.1f} {token}")
    return "\n".join(lines) + "\n"


def _tell(raw: bytes, headers: dict[str, str], learn) -> bytes:
    label = headers.get("message-class", "").lower()
    sets = {part.strip().lower() for part in headers.get("set", "").split(",") if part.strip()}
    removes = {part.strip().lower() for part in headers.get("remove", "").split(",") if part.strip()}
    if learn is None:
        return error("this server does not learn (start it with --spamd-learn)", EX_USAGE)
    # spamd answers DidSet / DidRemove only when the model changed; without
    # them spamc says "Message was already un/learned" (a message learned
    # twice, or forgotten when it was not on record).
    if "local" in sets:
        if label not in ("spam", "ham"):
            raise ProtocolError("TELL with Set: local needs Message-class: spam or ham")
        changed = learn(raw, label, False)
        return response(EX_OK, [("DidSet", "local")] if changed else [], b"")
    if "local" in removes:
        changed = learn(raw, label or None, True)
        return response(EX_OK, [("DidRemove", "local")] if changed else [], b"")
    return response(EX_OK, [], b"")  # only "remote" asked: nothing to do here
