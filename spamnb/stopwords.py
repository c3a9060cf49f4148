"""Built-in stop-word lists, and reading a user's own list.

Dropping stop words: 0.273 / 0.017 (spamassassin / ccert_zh, 1-ROCA %, see
tokens.py); keeping them: 0.264 / 0.025.  Level for English, better for
Chinese, whose function words (的, 了, 我们) fill every message of both classes.
"""

from __future__ import annotations

from .errors import InputError


def _parse(text: str) -> frozenset[str]:
    words = set()
    for line in text.splitlines():
        word = line.split("#", 1)[0].strip().casefold()
        if word:
            words.add(word)
    return frozenset(words)


def builtin() -> frozenset[str]:
    """The English and Chinese lists shipped with spamnb."""
    from importlib import resources  # 6 ms of imports: only when the lists are read

    data = resources.files("spamnb") / "data"
    return _parse((data / "stopwords_en.txt").read_text("utf-8")) | _parse(
        (data / "stopwords_zh.txt").read_text("utf-8")
    )


def read_file(path: str) -> frozenset[str]:
    """One word per line, UTF-8; `#` starts a comment."""
    from .files import open_regular

    try:
        with open_regular(path, "r", encoding="utf-8") as handle:  # a FIFO is refused, not waited on
            return _parse(handle.read())
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read stop-word file {path}: {error}") from None
