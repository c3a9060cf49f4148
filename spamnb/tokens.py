"""From a decoded message to the list of tokens the model counts.

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

Numbers are "spamassassin / ccert_zh"; the defaults score 0.273 / 0.017.
The fold-to-fold standard deviation is about 0.36 / 0.03, so the standard
error of a mean is about 0.11 / 0.01: smaller differences are noise.
"""

from __future__ import annotations

import email.utils
import re
import unicodedata
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from . import stopwords as _stopwords
from .message import DecodedMessage

# Header presets for --headers.  "content" leaves out the routing and
# bookkeeping fields (Received, Date, Message-ID, X-*) that describe how a
# message travelled rather than what it says; those leak labels in corpora
# where spam and ham came through different relays or months.
# Without header tokens: 0.519 / 0.108; Subject and From only: 0.369 / 0.030.
# All headers: 0.266 / (not run: ccert_zh's routing headers leak its labels).
HEADER_PRESETS = {
    "content": ("subject", "from", "to", "cc", "reply-to", "mime-version", "content-*"),
    "all": ("*",),
    "none": (),
}
_ADDRESS_FIELDS = frozenset({"from", "to", "cc", "bcc", "reply-to", "sender", "return-path"})

# One-letter Latin "words" are noise (with them: 0.274 / 0.017, level, and a
# larger vocabulary).  A minimum of three letters would lose ccert_zh's "mm",
# "gg", "qq" slang (0.279 / 0.021).
MIN_WORD_LENGTH = 2
# Longer words are dropped: a bound on token size for hostile input.  Turning
# them into SpamBayes-style "skip:C:N" tokens measured level (Bernoulli model:
# 0.306 / 0.016 against 0.307 / 0.016), so that rule is gone.
MAX_WORD_LENGTH = 40

# Han characters (CJK Unified Ideographs, Extension A, Compatibility).
_HAN_RUN = re.compile(r"([\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+)")
_LATIN_TOKEN = re.compile(
    r"(?P<url>(?:https?://|www\.)[^\s<>\"'(){}\[\]]+)"
    r"|(?P<email>[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+)"
    r"|(?P<word>[$€£¥]?\w+(?:['.\-]\w+)*%?)"
)


@dataclass(frozen=True)
class TokenizerOptions:
    """Everything about tokenizing that a model must remember to score alike."""

    headers: tuple[str, ...] = HEADER_PRESETS["content"]
    """Header field names to tokenize; a trailing `*` matches a prefix."""
    stopwords: frozenset[str] = field(default_factory=_stopwords.builtin)
    """Words dropped from body and header text (after case folding); the
    built-in English and Chinese lists unless given."""

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
        for pattern in self.headers:
            if pattern.endswith("*"):
                if name.startswith(pattern[:-1]):
                    return True
            elif name == pattern:
                return True
        return False

    def to_dict(self) -> dict:
        return {"headers": list(self.headers), "stopwords": sorted(self.stopwords)}

    @classmethod
    def from_dict(cls, data: dict) -> "TokenizerOptions":
        return cls(headers=tuple(data["headers"]), stopwords=frozenset(data["stopwords"]))


def normalise(text: str) -> str:
    # Case folding makes FREE, Free and free one token: without it 0.330 / 0.017.
    # NFKC folds full-width letters (Ｆｒｅｅ), circled and compatibility
    # ideographs (㊣) and ligatures, which spam uses to dodge word filters; it
    # measured level on these 2002-05 corpora (0.273 / 0.017 without), which
    # barely use such tricks, and stays for the mail that does.
    return unicodedata.normalize("NFKC", text).casefold()


def text_tokens(text: str, options: TokenizerOptions) -> list[str]:
    """Tokens of free text: words, numbers, Chinese words, URL and address tokens."""
    out: list[str] = []
    stop = options.stopwords
    pieces = _HAN_RUN.split(normalise(text))
    for index, piece in enumerate(pieces):
        if not piece:
            continue
        if index % 2:  # a Han run (split() puts captured groups at odd indices)
            from .chinese import segment

            out.extend(word for word in segment(piece) if word not in stop)
            continue
        for match in _LATIN_TOKEN.finditer(piece):
            kind = match.lastgroup
            value = match.group()
            if kind == "word":
                if MIN_WORD_LENGTH <= len(value) <= MAX_WORD_LENGTH and value not in stop:
                    out.append(value)
            elif kind == "url":
                out.extend(url_tokens(value))
            else:
                out.extend(address_tokens("email", value))
    return out


def url_tokens(url: str) -> list[str]:
    """`url:HOST` plus `url:DOMAIN` (the last two labels) for a link target.

    Without URL tokens: 0.344 / 0.018.
    """
    url = url.strip().casefold()
    if url.startswith("www."):
        url = "http://" + url
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return []
    host = host.strip(".")
    if not host or len(host) > 253:
        return []
    tokens = [f"url:{host}"]
    labels = host.split(".")
    if len(labels) > 2:
        tokens.append("url:" + ".".join(labels[-2:]))
    return tokens


def address_tokens(field: str, address: str) -> list[str]:
    address = address.strip().strip("<>").casefold()
    if "@" not in address or len(address) > 254:
        return []
    domain = address.rsplit("@", 1)[1]
    return [f"{field}:addr:{address}", f"{field}:domain:{domain}"]


def header_tokens(name: str, value: str, options: TokenizerOptions) -> list[str]:
    if name in _ADDRESS_FIELDS:
        out: list[str] = []
        for display, address in email.utils.getaddresses([value]):
            out.extend(f"{name}:{word}" for word in text_tokens(display, options))
            out.extend(address_tokens(name, address))
        return out
    return [f"{name}:{token}" for token in text_tokens(value, options)]


def message_tokens(message: DecodedMessage, options: TokenizerOptions) -> list[str]:
    """All tokens of a decoded message, in reading order, repeats kept."""
    out: list[str] = []
    for name, value in message.headers:
        if options.wants_header(name):
            out.extend(header_tokens(name, value, options))
    for text in message.texts:
        out.extend(text_tokens(text, options))
    for url in message.urls:
        out.extend(url_tokens(url))
    # Attachment type and extension: level on these corpora (0.272 / 0.017
    # without), where attachments are rare; they are the only trace an
    # image-only or malware message leaves.
    for content_type, filename in message.attachments:
        out.append(f"attach:type:{content_type}")
        if "." in filename:
            out.append("attach:ext:" + filename.rsplit(".", 1)[1].casefold()[:16])
    return out
