"""From a raw message to the list of tokens the model counts.

The rules live in the Rust core (core/src/text/tokens.rs, with the mail
decoder before it and Chinese segmentation and folding beside it); this
module holds what a model stores about them (`TokenizerOptions`) and the
calls into the core.

Token kinds:
- body words: Latin words and numbers, case-folded, as they are;
- Chinese words: runs of Han characters segmented by jieba;
- `url:HOST` and `url:DOMAIN` for every link, in text or behind HTML;
- `FIELD:word` for words of a selected header (`subject:免费`, `from:alice`),
  with `FIELD:addr:...` and `FIELD:domain:...` for addresses;
- `attach:type:...`, `attach:ext:...` for each attachment.

Every rule carries its measured effect: 1-ROCA % (lower is better), mean of
10-fold cross-validation inside the 70 % training part of each corpus, for
the defaults (mixed model) against the defaults without the rule:

    python bench/ablate.py --folds 10 --variant baseline --variant VARIANT

Numbers are "spamassassin / ccert_zh", each against the defaults of its
time: most rules below were measured when the defaults scored 0.273 / 0.017
(fold-to-fold standard deviation about 0.36 / 0.03, so a mean's standard
error about 0.11 / 0.01: smaller differences are noise).  Defaults close
to today's (bigrams, α 0.1, min strength 2) score 0.046 / 0.003, sd 0.052 / 0.004
(`bench/ablate.py --folds 10 --variant baseline`).
"""

from __future__ import annotations

from .._core import (HEADER_PRESETS, MAX_EXPANDERS, MAX_SEGMENTED_CHARS, TOKENIZER_DEFAULTS,  # noqa: F401
                     TOKENIZER_VERSION, normalise, parse_headers, registered_domain, text_tokens, token_part,
                     tokenize, url_host, url_tokens, wants_header)
from ..record import Record

# The header presets for --headers (HEADER_PRESETS), the defaults, how a
# spec is read and which fields are read (never spamnb's own status fields)
# have their one home in the core, which applies them to every message:
# core/src/text/tokens/options.rs, with the measurements behind each choice.


def _builtin_stopwords() -> frozenset[str]:
    # Imported here: a model's options name their stop words, so opening one
    # (a fresh `learn` or `classify`) never makes the default list.
    from .stopwords import builtin

    return builtin()


class TokenizerOptions(Record):
    """Everything about tokenizing that a model must remember to score alike.

    headers: header field names to tokenize; a trailing `*` matches a prefix.
    stopwords: words dropped from body and header text (after case folding);
    the built-in English and Chinese lists unless given.
    bigrams: also count each pair of adjacent body words ("free money", "代开 发票").
    fold_variants: fold Traditional characters and spam homoglyphs to Simplified.
    """

    __slots__ = ("headers", "stopwords", "bigrams", "fold_variants")
    _defaults = TOKENIZER_DEFAULTS
    _factories = {"stopwords": _builtin_stopwords}
    _frozen = True
    headers: tuple[str, ...]
    stopwords: frozenset[str]
    bigrams: bool
    fold_variants: bool

    @staticmethod
    def parse_headers(spec: str) -> tuple[str, ...]:
        """`content`, `all`, `none` or a comma list such as `subject,from,x-mailer,content-*`."""
        return parse_headers(spec)

    def wants_header(self, name: str) -> bool:
        """Whether the field `name` (lower case) is tokenized under these options."""
        return wants_header(self.headers, name)

    def to_dict(self) -> dict:
        return {"headers": list(self.headers), "stopwords": sorted(self.stopwords),
                "bigrams": self.bigrams, "fold_variants": self.fold_variants}

    @classmethod
    def from_dict(cls, data: dict) -> "TokenizerOptions":
        return cls(headers=tuple(data["headers"]), stopwords=frozenset(data["stopwords"]),
                   bigrams=bool(data.get("bigrams", False)),
                   fold_variants=bool(data.get("fold_variants", False)))



class Budget:
    """Work one message's header fields, or its body, may still cost:
    Han characters to segment, long NFKC expansions (the core's bounds,
    MAX_SEGMENTED_CHARS and MAX_EXPANDERS).  `spilled` collects the Han
    characters past `han`, one token each."""

    __slots__ = ("han", "expansions", "spilled")

    def __init__(self, han: int = MAX_SEGMENTED_CHARS, expansions: int = MAX_EXPANDERS) -> None:
        self.han = han
        self.expansions = expansions
        self.spilled: list[str] = []


def message_tokens(raw: bytes, options: TokenizerOptions) -> list[str]:
    """All tokens of a raw message, in reading order, repeats kept: decoded
    and tokenized in the core, in one call."""
    return tokenize(raw, options)
