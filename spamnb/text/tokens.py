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

from . import stopwords as _stopwords
from .._core import (MAX_EXPANDERS, MAX_SEGMENTED_CHARS, TOKENIZER_VERSION, normalise,  # noqa: F401
                     registered_domain, text_tokens, token_part, tokenize, url_host, url_tokens)
from ..record import Record

# Header presets for --headers.  Every field by default: how a message
# travelled (Received, Message-ID, X-Mailer, list fields) is what makes real
# mail easy.  bench/choose_defaults.py, 1-ROCA % inside the training parts,
# trec06p later mail / online / spamassassin CV / sa->trec / trec->sa:
# all 0.003 / 0.125 / 0.034 / 12.2 / 8.9, content 0.056 / 0.098 / 0.048 /
# 8.4 / 6.2: content loses 11x on later mail of the same server, all loses
# at most 1.9x anywhere, so all.  "content" leaves out the routing and
# bookkeeping fields; it is for collections whose routing leaks the label
# (ccert_zh: its spam and ham came through different relays in different
# months), not for a user's own mail.
HEADER_PRESETS = {
    "content": ("subject", "from", "to", "cc", "reply-to", "mime-version", "content-*"),
    "all": ("*",),
    "none": (),
}

# The field `spamnb filter` adds (digest.STATUS_HEADER, lower case) is never
# read: learning a filtered message would otherwise teach the model its own
# verdict.  Nor are the SpamAssassin-style fields `filter --header-style
# spamassassin` and spamd PROCESS write, for the same reason; no message of the
# three corpora carries them (grep: 0 of 33,661), so no measured token changes.
OWN_STATUS_FIELD = "x-spamnb-status"
OWN_FIELDS = frozenset({OWN_STATUS_FIELD, "x-spam-flag", "x-spam-level", "x-spam-status"})

class TokenizerOptions(Record):
    """Everything about tokenizing that a model must remember to score alike.

    headers: header field names to tokenize; a trailing `*` matches a prefix.
    stopwords: words dropped from body and header text (after case folding);
    the built-in English and Chinese lists unless given.
    bigrams: also count each pair of adjacent body words ("free money", "代开 发票").
    fold_variants: fold Traditional characters and spam homoglyphs to Simplified.
    """

    __slots__ = ("headers", "stopwords", "bigrams", "fold_variants")
    _defaults = {"headers": HEADER_PRESETS["all"], "bigrams": True, "fold_variants": True}
    _factories = {"stopwords": _stopwords.builtin}
    _frozen = True
    headers: tuple[str, ...]
    stopwords: frozenset[str]
    # Bigrams on by default: 5-fold cross-validation inside the training part
    # gave 1-ROCA % 0.080 / 0.006 (spamassassin / ccert_zh) against 0.096 /
    # 0.007 without.  The price: about 3 times the vocabulary and twice the
    # training time.  Pairs skip stop words, so "the free the money" pairs
    # "free money".
    bigrams: bool
    # Folding variants: level on these corpora (1-ROCA % 0.115 / 0.011 with
    # and without), whose Chinese is almost all Simplified GB2312; it is for
    # mail that mixes scripts or disguises words (涐司岢办理㊣規髮票 = 我司可办理正规发票).
    # On ccert_zh's test part disguised so (bench/rewrite_zh.py), the table
    # of variants.py took 1-ROCA 0.0330 → 0.0316 % (plain: 0.0297 either way).
    fold_variants: bool

    @staticmethod
    def parse_headers(spec: str) -> tuple[str, ...]:
        """`content`, `all`, `none` or a comma list such as `subject,from,x-mailer,content-*`."""
        spec = spec.strip().lower()
        if spec in HEADER_PRESETS:
            return HEADER_PRESETS[spec]
        names: list[str] = []
        for item in spec.split(","):
            item = item.strip().rstrip(":")
            if item in HEADER_PRESETS:
                names.extend(HEADER_PRESETS[item])
            elif item:
                names.append(item)
        return tuple(dict.fromkeys(names))

    def wants_header(self, name: str) -> bool:
        if name in OWN_FIELDS:
            return False
        for pattern in self.headers:
            if pattern.endswith("*"):
                if name.startswith(pattern[:-1]):
                    return True
            elif name == pattern:
                return True
        return False

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
