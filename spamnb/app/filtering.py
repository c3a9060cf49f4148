"""Filter mode: the message back unchanged but for one added status header.

`spamnb filter` sits in the mail path, and an MTA keeps what it writes, so it
has two outcomes and no third:

- exit 0 (or --exit-code's 0/1/2): the message with one status header added
  at the end of its header block, everything else byte for byte;
- exit 75 (EX_TEMPFAIL): the message byte for byte unchanged, one line on
  stderr saying why, on every failure: options, settings, environment, the
  model, scoring, reading.  (When standard output itself cannot be written
  the message cannot be handed back at all; the status is 75 all the same,
  so the MTA keeps it and retries.)

Nothing but the message ever reaches standard output: until it is written,
sys.stdout points at stderr (help text, click's usage errors).  The message is
never held whole: the first --max-size bytes (10 MiB) are read, scored and
tagged, the rest is copied through in 64 KiB blocks, so memory stays bounded
whatever comes in (`cat /dev/zero | spamnb filter`).

Where the header goes: line ends are the message's own (CRLF, LF, or bare CR
when the first line ends so), per line.  The header block is read as the
strictest parser reads it, a run of `name:` fields (with their folded
continuation lines) from the top, and the new field goes at the end of that
run, with the line ending of the field before it: so every reader that sees
any header sees it, whether the block ends with an empty line, a line
holding only blanks, a line that is not a field, or the end of the message.
(When a line holding only blanks ends the run, the new field goes before
the run's last field instead: some readers take that line for a fold of
the field above it, which must not be the new one.)
Stale copies of the field (a sender's forgery) are removed from the header
section, up to the first empty line; the body, after it, is never touched.
"""

from __future__ import annotations

import math
import os
import re
import sys

from ..errors import say_on_stderr
from ..mail.digest import STATUS_HEADER
from ..model.scoring import LABEL_HAM, LABEL_SPAM, Cutoffs, Score, has_no_evidence
from ..mail.sources import MAX_MESSAGE_BYTES

VERDICT_WORDS = {LABEL_SPAM: "Yes", LABEL_HAM: "No"}
EXIT_TEMPFAIL = 75
BLOCK = 1 << 16

_FIELD_NAME = re.compile(r"[\x21-\x39\x3b-\x7e]{1,200}")
_FIELD = rb"[\x21-\x39\x3b-\x7e]+[ \t]*:"


HEADER_STYLES = ("spamnb", "spamassassin")


def status_fields(score: Score, cutoffs: Cutoffs, model_name: str, header_name: str = STATUS_HEADER,
                  style: str = "spamnb") -> list[tuple[str, str]]:
    """The header fields `filter` adds: spamnb's one status field, or
    SpamAssassin's X-Spam-Flag, X-Spam-Level and X-Spam-Status (spamd.py says
    how the score maps onto SpamAssassin's 5.0 threshold), for Sieve and
    procmail rules written for SpamAssassin."""
    if style == "spamassassin":
        from .. import __version__
        from .spamd import spam_status

        return spam_status(score, cutoffs, __version__)
    return [(header_name, status_value(score, model_name))]


def field_name_problem(name: str) -> str | None:
    """Why `name` cannot be a header field name (RFC 5322: printable ASCII
    but the colon, no blanks), or None."""
    if not _FIELD_NAME.fullmatch(name or ""):
        return (f"{name!r} is not a header field name: printable ASCII only, no blank, colon or "
                "line break, at most 200 characters")
    return None


def _printable(text: str) -> str:
    """`text` as a header value may carry it: printable ASCII, anything else `?`
    (a model file named with a line break cannot add a header line)."""
    return "".join(char if " " <= char <= "~" else "?" for char in text)


def status_value(score: Score, model_name: str) -> str:
    """`Yes, score=0.9987, log-odds=6.64, model=NAME` (Unsure for the band);
    a message not scored (not mail, out of time): `Unsure, score=0.5000,
    log-odds=0.00, model=NAME, reason="not scored within 10 s (--timeout);
    marked unsure"`."""
    log_odds = score.log_odds if math.isfinite(score.log_odds) else math.copysign(999.0, score.log_odds)
    value = (f"{VERDICT_WORDS.get(score.label, 'Unsure')}, score={score.probability:.4f}, "
             f"log-odds={log_odds:.2f}, model={_printable(model_name)}")
    if score.reason:
        value += f', reason="{_printable(score.reason)}"'
    return value


class HeaderBlockUnfinished(ValueError):
    """The header block does not end within the bytes read."""


def _layout(end: bytes):
    """Regular expressions for a message whose lines end with `end` (b"\\n",
    CRLF included, or b"\\r"): the leading run of fields, and a field line
    with its continuations."""
    other = rb"[^\r]" if end == b"\r" else rb"[^\n]"
    # A continuation line starts with a blank and holds something else: a
    # line of blanks alone ends the run (some readers take it for the
    # empty line).  Every line is whole, its end included.
    continuation = rb"[ \t]+[^ \t\r\n]" + other + rb"*" + end
    run = re.compile(rb"(?:From " + other + rb"*" + end + rb")?(?:" + _FIELD + other + rb"*" + end
                     + rb"(?:" + continuation + rb")*)*")
    return run, continuation, other


def with_status_header(raw: bytes, value: str, name: str = STATUS_HEADER, complete: bool = True) -> bytes:
    """`raw` with `name: value` as the last field of its header block and
    older copies of the field taken out of the header section.

    `complete`: `raw` is the whole message; otherwise it is the first part
    of one, and HeaderBlockUnfinished is raised when the header block does
    not end within it (the caller then passes the message through).
    """
    first_end = re.search(rb"[\r\n]", raw)
    if first_end is None or raw[first_end.start():first_end.start() + 1] == b"\n" or \
            raw[first_end.start():first_end.start() + 2] == b"\r\n":
        end = b"\n"
    else:
        end = b"\r"  # bare CR line ends (old Mac mail)
    run, continuation, other = _layout(end)
    run_end = run.match(raw).end()
    rest = raw[run_end:]
    next_end = rest.find(end)
    field_line = re.compile(_FIELD + rb"|[ \t]+[^ \t\r\n]")
    unfinished_field = False
    if next_end < 0:
        # The message (or what was read of it) ends inside this line.
        if not complete:
            raise HeaderBlockUnfinished("the header block does not end within the bytes read")
        unfinished_field = bool(rest) and field_line.match(rest) is not None
        if unfinished_field or not rest:
            run_end = len(raw)
    head = raw[:run_end]
    # The line end of the field before the new one, else the message's first, else LF.
    if head.endswith(b"\r\n"):
        newline = b"\r\n"
    elif head.endswith(end):
        newline = end
    elif first_end is not None:
        newline = b"\r\n" if end == b"\n" and raw[first_end.start():first_end.start() + 2] == b"\r\n" else end
    else:
        newline = b"\n"
    # The header section, as RFC 5322 and procmail read it: up to the first
    # empty line.  Stale copies are removed there and nowhere else.
    empty = re.compile(rb"(?:(?<=\n)|\A)\r?\n" if end == b"\n" else rb"(?:(?<=\r)|\A)\r").search(raw, run_end)
    section_end = empty.start() if empty is not None else run_end
    line_start = rb"(?m:^)" if end == b"\n" else rb"(?:(?<=\r)|\A)"
    stale = re.compile(line_start + re.escape(name.encode("ascii")) + rb"[ \t]*:" + other + rb"*(?:" + end
                       + rb"|\Z)(?:" + continuation + rb")*", re.IGNORECASE)
    before = stale.sub(b"", head)
    if before and not before.endswith(end):
        before += newline  # the last field ended the message without a line end
    between = stale.sub(b"", raw[run_end:section_end])
    line = f"{name}: {value}".encode("ascii", "replace") + newline
    if raw.startswith((b" ", b"\t"), run_end):
        # The run ends at a line of blanks only, which a reader that does
        # not take it for the empty line (Python's email, mime.read_headers)
        # reads as a fold of the field above it: after the run, the new
        # field would take it into its value.  Before the run's last field,
        # that fold stays that field's, as it was, for every reader.
        from collections import deque

        last = deque(re.finditer(line_start + _FIELD, before), maxlen=1)  # one match held, however many fields
        if last:
            start = last[0].start()
            return before[:start] + line + before[start:] + between + raw[section_end:]
    return before + line + between + raw[section_end:]


# -- the filter command --------------------------------------------------------


class Delivery:
    """The message on standard input, on its way to standard output.

    It leaves once, tagged or untouched; whatever fails first, `main` sees to
    it that it leaves.  Read from and written to the descriptors themselves
    (0 and 1), never through sys.stdin or sys.stdout.
    """

    def __init__(self) -> None:
        from ..files import stdin_problem

        self.problem = stdin_problem(0)
        self.head = b""
        self.eof = False
        self.sent = False
        self.reported = False

    def read_head(self, limit: int) -> bytes:
        """The first `limit` bytes of the message (all of it when shorter)."""
        pieces = [self.head]
        size = len(self.head)
        while size < limit and not self.eof:
            block = _read(0, min(BLOCK * 16, limit - size))
            if not block:
                self.eof = True
            pieces.append(block)
            size += len(block)
        self.head = b"".join(pieces)
        return self.head

    def send(self, first: bytes) -> None:
        """Write `first` (the head, tagged or not), then copy the rest of
        standard input through in blocks.  Raises OSError when standard
        output cannot be written."""
        import signal

        self.sent = True
        # A reader that goes away is an error to report (exit 75), not a
        # silent death by SIGPIPE.
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        _write_all(1, first)
        while not self.eof:
            block = _read(0, BLOCK)
            if not block:
                self.eof = True
                break
            _write_all(1, block)


def _read(descriptor: int, size: int) -> bytes:
    while True:
        try:
            return os.read(descriptor, size)
        except BlockingIOError:  # an inherited non-blocking pipe
            import select

            select.select([descriptor], [], [])


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            written = os.write(descriptor, view)
        except BlockingIOError:
            import select

            select.select([], [descriptor], [])
            continue
        view = view[written:]


_current: Delivery | None = None


def deliver(model_path: str, header_name: str, exit_code: bool, spam_cutoff, ham_cutoff,
            max_size: int | None, timeout: float | None, header_style: str = "spamnb") -> int:
    """The filter command itself, once its options are read: the exit status."""
    global _current
    delivery = _current or Delivery()
    _current = delivery
    if delivery.problem:
        say_on_stderr(f"{delivery.problem}; nothing to filter")
        delivery.reported = True
        return EXIT_TEMPFAIL
    try:
        head = delivery.read_head(max_size or MAX_MESSAGE_BYTES)
    except OSError as error:
        say_on_stderr(f"cannot read standard input ({error.strerror or error})")
        return _pass_through(delivery)
    try:
        from ..model.scorer import Scorer
        from .verdict import core_failed, judge

        problem = field_name_problem(header_name)
        if problem:
            raise ValueError(f"--header: {problem}")
        scorer = Scorer.open(model_path)
        try:
            cutoffs = Cutoffs(spam=scorer.cutoffs.spam if spam_cutoff is None else spam_cutoff,
                              ham=scorer.cutoffs.ham if ham_cutoff is None else ham_cutoff)
        except ValueError as error:
            raise ValueError(f"cutoffs: {error}") from None
        score = judge(scorer, head, timeout, cutoffs=cutoffs)
        if core_failed(score):  # a bug, not a verdict: the mail goes through untagged, 75
            raise RuntimeError(score.reason)
        try:
            tagged = head
            for name, value in status_fields(score, cutoffs, os.path.basename(model_path), header_name,
                                             header_style):
                tagged = with_status_header(tagged, value, name, complete=delivery.eof)
        except HeaderBlockUnfinished:
            raise ValueError(f"no end of the header block in the first {len(head):,} bytes "
                             "(--max-size)") from None
    except Exception as error:  # noqa: BLE001 -- whatever went wrong, the mail goes through
        say_on_stderr(error)
        return _pass_through(delivery)
    try:
        delivery.send(tagged)
    except OSError as error:
        say_on_stderr(f"cannot write the message to standard output ({error.strerror or error}); "
                      "exit 75 so that the mail system keeps it and retries")
        return EXIT_TEMPFAIL
    if score.reason and not has_no_evidence(score):  # that one is a verdict: the status field says it
        say_on_stderr(score.reason)
    if exit_code:
        return {LABEL_SPAM: 0, LABEL_HAM: 1}.get(score.label, 2)
    return 0


def _pass_through(delivery: Delivery) -> int:
    """Hand the message back untouched (what was read of it, then the rest)."""
    if delivery.sent:
        return EXIT_TEMPFAIL
    try:
        delivery.send(delivery.head)
    except OSError as error:
        say_on_stderr(f"cannot write the message to standard output ({error.strerror or error}); "
                      "exit 75 so that the mail system keeps it and retries")
        return EXIT_TEMPFAIL
    say_on_stderr("message passed through unchanged")
    return EXIT_TEMPFAIL


def main(args: list[str]) -> int:
    """`spamnb [--config FILE] filter ...`: the exit status (0, 1, 2 or 75).

    The command line, the settings and the model are read by the click CLI
    as for any command; whatever fails there (a mistyped option, a bad
    setting, a bug), the message is handed back untouched with status 75.
    """
    import stat

    global _current
    delivery = _current = Delivery()
    try:  # a terminal or /dev/null: no message to protect, so help may go to stdout
        no_message = stat.S_ISCHR(os.fstat(0).st_mode)
    except OSError:
        no_message = True
    if not no_message:
        sys.stdout = sys.stderr  # help or usage text must not become the message
    try:
        from .cli import main as cli_main

        cli_main(args)
        status = 0
    except SystemExit as done:
        status = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    except BaseException as error:  # noqa: BLE001 -- the message still goes through
        say_on_stderr(f"{type(error).__name__}: {error}")
        status = EXIT_TEMPFAIL
    if delivery.sent:
        return status
    if no_message and status == 0:
        return status  # --help at a terminal: nothing to deliver
    if delivery.problem:
        if not delivery.reported:
            say_on_stderr(f"{delivery.problem}; nothing to filter")
        return EXIT_TEMPFAIL
    try:
        return _pass_through(delivery)
    except BaseException as error:  # noqa: BLE001
        say_on_stderr(error)
        return EXIT_TEMPFAIL


def filter_message(model, raw: bytes, model_name: str, header_name: str = STATUS_HEADER,
                   cutoffs: Cutoffs | None = None, max_size: int | None = None,
                   timeout: float | None = None) -> tuple[bytes, Score]:
    """What `spamnb filter` writes for one message held whole, and the score behind it.

    Only the first `max_size` bytes (default MAX_MESSAGE_BYTES) are scored;
    all of the message is written.  Input that is not mail, or a message not
    scored within `timeout` seconds, is written with an Unsure status that
    says so.
    """
    from .verdict import judge

    head = raw[:max_size or MAX_MESSAGE_BYTES]
    score = judge(model, head, timeout, cutoffs=cutoffs)
    return with_status_header(raw, status_value(score, model_name), header_name), score
