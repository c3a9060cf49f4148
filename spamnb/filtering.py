"""Filter mode: the message back unchanged but for one added status header.

The body is never touched: the header block is located, stale copies of the
status header are taken out of it, and the new header is appended at its
end with the message's own line ending (CRLF stays CRLF).
"""

from __future__ import annotations

import math

from .digest import STATUS_HEADER, status_header_pattern
from .scoring import LABEL_HAM, LABEL_SPAM, Cutoffs, Score
from .sources import MAX_MESSAGE_BYTES

VERDICT_WORDS = {LABEL_SPAM: "Yes", LABEL_HAM: "No"}


def status_value(score: Score, model_name: str) -> str:
    """`Yes, score=0.9987, log-odds=6.64, model=NAME` (Unsure for the band);
    a message not scored in time: `Unsure, score=0.5000, log-odds=0.00,
    model=NAME, reason="not scored within 10 s (--timeout); marked unsure"`."""
    log_odds = score.log_odds if math.isfinite(score.log_odds) else math.copysign(999.0, score.log_odds)
    value = (f"{VERDICT_WORDS.get(score.label, 'Unsure')}, score={score.probability:.4f}, "
             f"log-odds={log_odds:.2f}, model={model_name}")
    if score.reason:
        value += f', reason="{score.reason}"'
    return value


def with_status_header(raw: bytes, value: str, name: str = STATUS_HEADER) -> bytes:
    """`raw` with `name: value` as the last header field and older copies removed."""
    newline = b"\r\n" if b"\r\n" in raw[: raw.find(b"\n") + 1 or len(raw)] else b"\n"
    blank = newline + newline
    end = raw.find(blank)
    if end < 0:
        head, rest = raw, b""
        if head and not head.endswith(newline):
            head += newline
    else:
        head, rest = raw[: end + len(newline)], raw[end + len(newline):]
    pattern = status_header_pattern(name)
    if newline == b"\r\n":
        head = pattern.sub(b"", head.replace(b"\r\n", b"\n")).replace(b"\n", b"\r\n")
    else:
        head = pattern.sub(b"", head)
    line = f"{name}: {value}".encode("ascii", "replace") + newline
    return head + line + rest


def filter_message(model, raw: bytes, model_name: str, header_name: str = STATUS_HEADER,
                   cutoffs: Cutoffs | None = None, max_size: int | None = None,
                   timeout: float | None = None) -> tuple[bytes, Score]:
    """What `spamnb filter` writes for one message, and the score behind it.

    Only the first `max_size` bytes (default MAX_MESSAGE_BYTES) are scored;
    all of the message is written.  A message not scored within `timeout`
    seconds is written with an Unsure status that says so.
    """
    from .deadline import score_within

    head = raw[:max_size or MAX_MESSAGE_BYTES]
    score = score_within(lambda: model.score_message(head, cutoffs=cutoffs), timeout)
    return with_status_header(raw, status_value(score, model_name), header_name), score
