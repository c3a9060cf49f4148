"""One message from outside → its Score, the same for every front end:
`classify` (here or with --server), `filter`, `serve` and `serve --spamd`.

Input that is not mail (no header line at its start: a binary file, plain
text) is decided here, before any scoring: a verdict would say nothing true
about it (a model trained on mail scores such bytes on tokens that mean
nothing there, spam or ham by chance).  It is unsure at P(spam) 0.5,
log-odds 0, with the reason, which each front end reports its own way (a
line on stderr, the status header's `reason`, a spamd symbol).  Everything else is scored by the model under
the per-message deadline (deadline.py).
"""

from __future__ import annotations

from .._core import PanicException
from ..mail.sources import looks_like_mail
from ..model.scoring import LABEL_SPAM, LABEL_UNSURE, Score
from .deadline import score_within

NOT_MAIL = "not mail (no header line at its start: binary data or plain text?); not scored, marked unsure"


CORE_FAILED = "the core failed on this message"


def judge(scorer, raw: bytes, timeout: float | None = None, explain: bool = False, cutoffs=None) -> Score:
    """The Score of `raw` by `scorer` (anything with Scorer's score_message),
    within `timeout` seconds; for input that is not mail, the unsure Score
    with NOT_MAIL as its reason, the scorer never asked.  A panic of the
    Rust core (a bug, never a message's fault) is the unsure Score with
    the reason, so that one message cannot take a batch or a daemon down."""
    if not looks_like_mail(raw):
        return Score(log_odds=0.0, probability=0.5, label=LABEL_UNSURE, reason=NOT_MAIL)
    try:
        return score_within(lambda: scorer.score_message(raw, explain=explain, cutoffs=cutoffs), timeout)
    except PanicException as error:
        detail = " ".join(str(error).split())[:200]
        return Score(log_odds=0.0, probability=0.5, label=LABEL_UNSURE,
                     reason=f"{CORE_FAILED} ({detail}); not scored, marked unsure")


def core_failed(score: Score) -> bool:
    """Whether `score` is judge's answer for a panic of the core."""
    return (score.reason or "").startswith(CORE_FAILED)


def is_not_mail(score: Score) -> bool:
    """Whether `score` is judge's answer for input that is not mail."""
    return score.reason == NOT_MAIL


def bogofilter_status(labels) -> int:
    """The exit status of `--exit-code`, bogofilter's convention: 0 spam,
    1 ham, 2 unsure; over several messages, 0 if any is spam, else 2 if any
    is unsure, else 1."""
    return 0 if LABEL_SPAM in labels else 2 if LABEL_UNSURE in labels else 1
