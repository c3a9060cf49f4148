"""Built-in stop-word lists, and reading a user's own list.

Dropping stop words: 0.273 / 0.017 (spamassassin / ccert_zh, 1-ROCA %, see
tokens.py); keeping them: 0.264 / 0.025.  Level for English, better for
Chinese, whose function words (的, 了, 我们) fill every message of both classes.
"""

from __future__ import annotations

import os

from ..errors import InputError


def _parse(text: str) -> frozenset[str]:
    words = set()
    for line in text.splitlines():
        word = line.split("#", 1)[0].strip().casefold()
        if word:
            words.add(word)
    return frozenset(words)


def builtin() -> frozenset[str]:
    """The English and Chinese lists shipped with spamnb."""
    # In the package's data directory, found from this file, not through importlib.resources:
    # that imports zipfile, tempfile and pathlib, 12 ms of a fresh `learn` that creates a model.
    data = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
    words: frozenset[str] = frozenset()
    for name in ("stopwords_en.txt", "stopwords_zh.txt"):
        with open(os.path.join(data, name), encoding="utf-8") as handle:
            words |= _parse(handle.read())
    return words


def read_file(path: str) -> frozenset[str]:
    """One word per line, UTF-8; `#` starts a comment."""
    from ..files import open_regular

    try:
        with open_regular(path, "r", encoding="utf-8") as handle:  # a FIFO is refused, not waited on
            return _parse(handle.read())
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read stop-word file {path}: {error}") from None
