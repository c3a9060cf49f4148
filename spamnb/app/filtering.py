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

Where the status field goes, and which stale copies are taken out, is
spamnb/mail/headerfield.py's.
"""

from __future__ import annotations

import math
import os
import sys

from ..errors import EXIT_TEMPFAIL, say_on_stderr
from ..files import write_all
from ..mail.digest import STATUS_HEADER
from ..mail.headerfield import HeaderBlockUnfinished, field_name_problem, with_status_header
from ..model.scoring import LABEL_HAM, LABEL_SPAM, Cutoffs, Score, has_no_evidence
from ..mail.sources import MAX_MESSAGE_BYTES

TYPE_CHECKING = False  # mypy reads this name as true; typing stays unimported in the mail path
if TYPE_CHECKING:
    from collections.abc import Callable

VERDICT_WORDS = {LABEL_SPAM: "Yes", LABEL_HAM: "No"}
BLOCK = 1 << 16



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
        write_all(1, first)
        while not self.eof:
            block = _read(0, BLOCK)
            if not block:
                self.eof = True
                break
            write_all(1, block)


def _read(descriptor: int, size: int) -> bytes:
    while True:
        try:
            return os.read(descriptor, size)
        except BlockingIOError:  # an inherited non-blocking pipe
            import select

            select.select([descriptor], [], [])


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
        from ..model.opening import open_scorer
        from .verdict import core_failed, judge

        problem = field_name_problem(header_name)
        if problem:
            raise ValueError(f"--header: {problem}")
        scorer = open_scorer(model_path)
        try:
            cutoffs = scorer.cutoffs.with_given(spam_cutoff, ham_cutoff)
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
        from .verdict import bogofilter_status

        return bogofilter_status([score.label])
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


def main(args: list[str], run_cli: Callable[[list[str]], object]) -> int:
    """`spamnb [--config FILE] filter ...`: the exit status (0, 1, 2 or 75).

    The command line, the settings and the model are read by `run_cli` (the
    click CLI's main, which comes back here through `deliver`) as for any
    command; whatever fails there (a mistyped option, a bad setting, a bug,
    the CLI failing to import), the message is handed back untouched with
    status 75.
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
        run_cli(args)
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
