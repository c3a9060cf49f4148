"""A deadline per message: `classify`, `filter` and `serve --timeout SECONDS`.

Every stage of decoding and tokenizing is linear in its input and bounded
(RELIABILITY.md), so no message should come near the deadline; it is the
last line of defence for the mail path, and it does not rest on the slow
code's help.  A real-time interval timer (setitimer) delivers SIGALRM, whose
handler raises MessageTimeout in the main thread wherever the scoring code
is, between two Python instructions.  (A single C call, such as one regular
expression search, finishes first: each is linear in the message's size.)

A message that runs out of time gets an unsure Score whose `reason` says
why; callers print the reason (classify), put it in the status header
(filter) or in the reply (serve).  Interrupted scoring leaves nothing half
done that matters: the caches it fills are filled again, whole, next time.

Off the main thread (a thread pool, say), where SIGALRM cannot be caught,
scoring runs without a deadline.
"""

from __future__ import annotations

# The C module: see app/fastpath.py (signal.py's enums cost a cold classify about 7 ms).
import _signal as signal  # type: ignore[import-not-found]  # CPython's private C module, no stubs


class MessageTimeout(BaseException):
    """Scoring one message took longer than its deadline.

    A BaseException, as KeyboardInterrupt is: the decoder's safety nets
    (`except Exception`, which read a message they cannot parse as plain
    text) must not catch it and go on scoring."""


def _expired(signum, frame):
    raise MessageTimeout


_TIMEOUT_REASON_START = "not scored within "


def timeout_reason(seconds: float) -> str:
    return f"{_TIMEOUT_REASON_START}{seconds:g} s (--timeout); marked unsure"


def timed_out(score) -> bool:
    """Whether `score` is the unsure Score of a message that ran out of time."""
    return (score.reason or "").startswith(_TIMEOUT_REASON_START)


def unsure(seconds: float):
    """The Score of a message that ran out of time."""
    from ..model.scoring import LABEL_UNSURE, Score

    return Score(log_odds=0.0, probability=0.5, label=LABEL_UNSURE, reason=timeout_reason(seconds))


def score_within(score, seconds: float | None):
    """`score()`, or the unsure Score when it takes more than `seconds`
    (None or 0: no deadline)."""
    if not seconds or not hasattr(signal, "setitimer"):
        return score()
    try:
        previous = signal.signal(signal.SIGALRM, _expired)
    except ValueError:  # not the main thread
        return score()
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            return score()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except MessageTimeout:
        return unsure(seconds)
    finally:
        signal.signal(signal.SIGALRM, previous)
