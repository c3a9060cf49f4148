"""Built-in stop-word lists, and reading a user's own list (the rule that
reads a list is the core's, core/src/text/stopwords.rs).

Dropping stop words: 0.273 / 0.017 (spamassassin / ccert_zh, 1-ROCA %, see
tokens.py); keeping them: 0.264 / 0.025.  Level for English, better for
Chinese, whose function words (的, 了, 我们) fill every message of both classes.
"""

from __future__ import annotations

from .._core import builtin_stopwords, parse_stopwords
from ..errors import InputError


def builtin() -> frozenset[str]:
    """The English and Chinese lists shipped with spamnb (compiled into the
    core from spamnb/data/stopwords_*.txt)."""
    return builtin_stopwords()


def read_file(path: str) -> frozenset[str]:
    """One word per line, UTF-8; `#` starts a comment."""
    from ..files import open_regular

    try:
        with open_regular(path, "r", encoding="utf-8") as handle:  # a FIFO is refused, not waited on
            return parse_stopwords(handle.read())
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read stop-word file {path}: {error}") from None
