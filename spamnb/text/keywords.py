"""Hand-made keyword lists (关键词): `--keywords FILE`.

Rules chosen by hand, as the seeds describe ("提前靠人工经验指定"): when a model
has a keyword list, only the listed tokens carry weight; every other token is
still counted (so the list can change at the next `train` without losing
anything) but weighs 0.  One entry a line, UTF-8, `#` starts a comment:

    发票            a word, read as the tokenizer reads text (case folded,
    Free            NFKC, variants folded): 發票 and 发票 are one keyword
    代开 发票        two words: the pair, as the bigram token "代开 发票"
    subject:free    a token as `inspect` shows it (a header field's word)
"""

from __future__ import annotations

from ..errors import InputError
from .tokens import TokenizerOptions, normalise, text_tokens


def parse(text: str, tokenizer: TokenizerOptions) -> frozenset[str]:
    """The keyword tokens a list's text names."""
    plain = TokenizerOptions(headers=(), stopwords=frozenset(), bigrams=False,
                             fold_variants=tokenizer.fold_variants)
    keywords: set[str] = set()
    for line in text.splitlines():
        entry = line.split("#", 1)[0].strip()
        if not entry:
            continue
        name, colon, rest = entry.partition(":")
        if colon and " " not in entry and name and "/" not in rest:
            # A prefixed token: its value read as text, the prefix kept.
            words = text_tokens(rest, plain)
            keywords.update(f"{normalise(name)}:{word}" for word in words[:1])
            continue
        words = text_tokens(entry, plain)
        if len(words) == 2 and tokenizer.bigrams:
            keywords.add(f"{words[0]} {words[1]}")
        else:
            keywords.update(words)
    return frozenset(keywords)


def read_file(path: str, tokenizer: TokenizerOptions) -> frozenset[str]:
    from ..files import open_regular

    try:
        with open_regular(path, "r", encoding="utf-8") as handle:  # a FIFO is refused, not waited on
            text = handle.read(1 << 24)
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read keyword file {path}: {error}") from None
    keywords = parse(text, tokenizer)
    if not keywords:
        raise InputError(f"keyword file {path} names no token")
    return keywords
