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

Numbers are "spamassassin / ccert_zh", each against the defaults of its
time: most rules below were measured when the defaults scored 0.273 / 0.017
(fold-to-fold standard deviation about 0.36 / 0.03, so a mean's standard
error about 0.11 / 0.01: smaller differences are noise).  Today's defaults
(bigrams, α 0.1, min strength 2) score 0.046 / 0.003, sd 0.052 / 0.004
(`bench/ablate.py --folds 10 --variant baseline`).
"""

from __future__ import annotations

import re
import unicodedata

from . import stopwords as _stopwords
from ..mail.message import DecodedMessage
from ..mail.digest import STATUS_VALUE
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
# Nor is `filter`'s field under another name (`--header X-Custom`), known by its value.
_STATUS_VALUE = re.compile(r"\s*" + STATUS_VALUE)

# One-letter Latin "words" are noise (with them: 0.274 / 0.017, level, and a
# larger vocabulary).  A minimum of three letters would lose ccert_zh's "mm",
# "gg", "qq" slang (0.279 / 0.021).
MIN_WORD_LENGTH = 2
# Bumped whenever a change here would give an existing model's tokens a new
# meaning; a model trained by another version is refused, not mis-scored.
TOKENIZER_VERSION = 3
# Longer words are dropped: a bound on token size for hostile input.  Turning
# them into SpamBayes-style "skip:C:N" tokens measured level (Bernoulli model:
# 0.306 / 0.016 against 0.307 / 0.016), so that rule is gone.
MAX_WORD_LENGTH = 40

# Han characters (CJK Unified Ideographs, Extension A, Compatibility), and
# the CJK radicals that look like ideographs (⻔ for 门), which NFKC leaves
# alone and variant folding turns into the ideograph (variants.py).
_HAN_RUN = r"([\u2e80-\u2eff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+)"
_han_pattern = None


def _han_run():
    global _han_pattern
    if _han_pattern is None:
        _han_pattern = re.compile(_HAN_RUN)
    return _han_pattern
# URLs are ASCII (an IRI's non-ASCII host arrives IDNA-encoded in mail), so
# the match stops at the first full-width or Chinese character:
# 访问http://a.example.com，联系 gives a.example.com, not "a.example.com,联系".
# The alternatives, tried in this order at each position: URL, address, word.
# An address does not start right after a character it could hold (the
# look-behind): without that test each position of a line of 500,000 "-",
# or of ".-a" repeated, scanned the rest of the line for an "@" (quadratic:
# 20,000 "-" took 0.4 s).  Where findall moved on after such a character
# because every alternative failed there, an address starting one character
# later would have matched there already, so nothing is lost; where a match
# ended there, _latin_findall tries the address itself.
# The quantifiers are possessive (++, *+): no alternative ever needs to give
# characters back (a local part ends only at its "@", a word at a character
# it cannot hold), and the regular expression engine then keeps no stack of
# places to go back to (a word of 1,000,000 characters: 27 ms, not 94).
_LATIN_TOKEN = re.compile(
    r"(?:https?://|www\.)[A-Za-z0-9\-._~:/?#@!$&*+,;=%]++"
    r"|(?<![\w.+\-])[\w.+\-]++@[\w\-]++(?:\.[\w\-]++)++"
    r"|[$€£¥]?\w++(?:['.\-]\w++)*+%?"
)


_LATIN_AT = re.compile(_LATIN_TOKEN.pattern.replace(r"(?<![\w.+\-])", "", 1))
_ADDRESS_CHARS = re.compile(r"[\w.+\-]*")


def _latin_findall(piece: str) -> list[str]:
    """_LATIN_TOKEN.findall(piece) as it was without the look-behind that
    keeps it linear: right after a match that is not a word made of address
    characters only ("$a", "it's", a link, an address), an address may start
    even though the character before it could be part of one, so there the
    pattern without the look-behind is tried.  (After a match made of address
    characters only, an address starting where it ended would have been
    matched from its start instead, as findall tries addresses first.)  Each
    such try reads at most one run of address characters that no other try
    reads, so this stays linear."""
    out: list[str] = []
    position, end = 0, len(piece)
    search, anchored, pure = _LATIN_TOKEN.search, _LATIN_AT.match, _ADDRESS_CHARS.fullmatch
    after_impure = False
    while position < end:
        found = None
        if after_impure and position and pure(piece, position - 1, position):
            found = anchored(piece, position)
        if found is None:
            found = search(piece, position)
            if found is None:
                break
        value = found.group()
        out.append(value)
        after_impure = pure(value) is None or value.startswith(("http://", "https://", "www."))
        position = found.end() if found.end() > found.start() else found.end() + 1
    return out


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


def normalise(text: str, budget: "Budget | None" = None) -> str:
    # Case folding makes FREE, Free and free one token: without it 0.330 / 0.017.
    # NFKC folds full-width letters (Ｆｒｅｅ), circled and compatibility
    # ideographs (㊣) and ligatures, which spam uses to dodge word filters; it
    # measured level on these 2002-05 corpora (0.273 / 0.017 without), which
    # barely use such tricks, and stays for the mail that does.
    #
    # Two bounds keep NFKC linear (neither is ever reached by the shared corpora):
    # - it puts each run of combining marks in canonical order by insertion
    #   sort, quadratic in the run's length ("a" and 200,000 marks of two
    #   classes: minutes).  Runs of over 30 marks are cut by U+034F, as
    #   Unicode's stream-safe format (UAX #15) does; the marks never were
    #   part of a word token, and the letter before them is still read;
    # - its cost and output grow with what a character expands to, up to 18
    #   characters (U+FDFA): 500,000 of them took 1.2 s and gave 9 million
    #   characters.  Past a message's budget of such characters (those that
    #   expand to 4 or more) a text is case-folded only, so its characters
    #   are still read, as they are.
    if text.isascii():
        return text.casefold()
    if budget is not None:
        expanders = len(text) - len(_EXPANDER.sub("", text))  # counted without a list of them
        if expanders:
            if expanders > budget.expansions:
                budget.expansions = 0
                return _stream_safe(text).casefold()
            budget.expansions -= expanders
    return unicodedata.normalize("NFKC", _stream_safe(text)).casefold()


# Characters whose NFKC form is 4 or more characters long (Unicode 14,
# checked against unicodedata by tests/system/test_scaling.py).
_EXPANDER = re.compile(
    r"[\u2057\u2152\u2167\u2177\u247d-\u2487\u2a0c\u321d-\u321e\u3300-\u3302\u3304"
    r"\u3307-\u3308\u330c-\u330d\u3312-\u3313\u3315-\u3317\u3319-\u331b\u331f-\u3321"
    r"\u332b\u332d-\u332e\u3332-\u3334\u3336\u333d\u3343\u3347-\u3348\u334a\u334c-\u334d"
    r"\u3351\u3354\u3356\u337f\u3389\u33a8\u33ae-\u33af\u33c2\u33c6\u33d8\ufdf2-\ufdf8"
    r"\ufdfa-\ufdfc]")
# A character whose decomposition can start with a combining mark is at or
# above U+0300 and neither a word character nor a space, but for the two
# half-width kana voicing marks (checked by tests/system/test_scaling.py).  Runs of
# at least MAX_MARKS - 4 such characters are looked at one by one.
MAX_MARKS = 30
_MARK_CANDIDATES = re.compile(r"(?:[^\x00-\u02ff\w\s]|[\uff9e\uff9f]){%d,}" % (MAX_MARKS - 4))
_GRAPHEME_JOINER = "\u034f"  # COMBINING GRAPHEME JOINER
_marks_of: dict[str, tuple[int, int, bool]] = {}


def _marks(char: str) -> tuple[int, int, bool]:
    """(combining marks its NFKD form starts with, ends with, whether it is only marks)."""
    found = _marks_of.get(char)
    if found is None:
        decomposed = unicodedata.normalize("NFKD", char)
        classes = [unicodedata.combining(c) != 0 for c in decomposed]
        leading = next((k for k, mark in enumerate(classes) if not mark), len(classes))
        trailing = next((k for k, mark in enumerate(reversed(classes)) if not mark), len(classes))
        found = _marks_of[char] = (leading, trailing, leading == len(classes))
        if len(_marks_of) > 4096:
            _marks_of.clear()
    return found


def _stream_safe(text: str) -> str:
    """`text` with U+034F after every MAX_MARKS combining marks in a row (UAX #15)."""
    if text.isascii() or not _MARK_CANDIDATES.search(text):
        return text
    out: list[str] = []
    position = 0
    for run in _MARK_CANDIDATES.finditer(text):
        start = max(run.start() - 1, position)  # the character before may end in marks
        out.append(text[position:start])
        count = 0
        for char in text[start:run.end()]:
            leading, trailing, only_marks = _marks(char)
            if count + leading > MAX_MARKS:
                out.append(_GRAPHEME_JOINER)
                count = 0
            count = count + leading if only_marks else trailing
            out.append(char)
        position = run.end()
    out.append(text[position:])
    return "".join(out)


# Han characters segmented by jieba per message, for the header fields and
# for the body each: jieba costs 10-20 us a character when its HMM reads
# them (rare characters, unknown words) and its dictionary is read in for
# them, so this bounds a message's segmentation to a few tenths of a second.
# The most in one message of the shared corpora is 8,085.  Han characters
# past the bound are not dropped: each is a token of its own, at the cost
# of a list copy.  They come after the message's other tokens and form no
# bigrams: pairs of random characters would be as many distinct tokens as
# characters, each a look-up in the model.
MAX_SEGMENTED_CHARS = 20_000


# Characters that NFKC expands to 4 or more, per message for the header
# fields and for the body each (see normalise); 20,000 expand to at most
# 360,000 characters.
MAX_EXPANDERS = 20_000


class Budget:
    """Work one message's header fields, or its body, may still cost:
    Han characters to segment, long NFKC expansions."""

    __slots__ = ("han", "expansions", "spilled")

    def __init__(self, han: int = MAX_SEGMENTED_CHARS, expansions: int = MAX_EXPANDERS) -> None:
        self.han = han
        self.expansions = expansions
        self.spilled: list[str] = []  # Han characters past `han`, one token each


def text_tokens(text: str, options: TokenizerOptions, budget: Budget | None = None) -> list[str]:
    """Tokens of free text: words, numbers, Chinese words, URL and address tokens.

    `budget` bounds the Han characters segmented and the long NFKC
    expansions (a fresh Budget when not given): see MAX_SEGMENTED_CHARS and
    normalise.  The Han characters past its bound are left in
    `budget.spilled`, which the caller reads (when no budget is given, they
    end the list returned)."""
    if budget is None:
        budget = Budget()
        out = _text_tokens(text, options, budget)
        return out + budget.spilled
    return _text_tokens(text, options, budget)


def _text_tokens(text: str, options: TokenizerOptions, budget: Budget) -> list[str]:
    out: list[str] = []
    stop = options.stopwords
    text = normalise(text, budget)
    # Han characters start at U+2E80 (CJK radicals): text below that (most
    # mail that is not Chinese) needs no split, and an English message in a
    # fresh process skips compiling the Han pattern (1.4 ms).
    pieces = _han_run().split(text) if text and max(text) >= "\u2e80" else [text]
    if len(pieces) > 1:  # imported once per text, not once per run (a run per character: "<发<发")
        from .chinese import segment
        from .variants import fold_variants
    for index, piece in enumerate(pieces):
        if not piece:
            continue
        if index % 2:  # a Han run (split() puts captured groups at odd indices)
            if budget.han <= 0:
                # Every Han run from here on is spilled: the rest of the text
                # at once (below), not a Python step per run.
                _spill_the_rest(pieces, index, out, options, budget)
                break
            if options.fold_variants:
                piece = fold_variants(piece)
            if len(piece) > budget.han:
                rest = piece[budget.han:]
                piece = piece[:budget.han]
                out.extend([word for word in segment(piece) if word not in stop])
                budget.spilled.extend([char for char in rest if char not in stop])
                budget.han = 0
                continue
            budget.han -= len(piece)
            out.extend([word for word in segment(piece) if word not in stop])
            continue
        if len(piece) >= MIN_WORD_LENGTH:  # a shorter piece holds no token
            _latin_tokens(piece, stop, out)
    return out


def _spill_the_rest(pieces: list[str], first: int, out: list[str], options: TokenizerOptions,
                    budget: Budget) -> None:
    """The tokens of pieces[first:] (a Han run first, as _han_run().split
    gives them), the Han budget spent: what the step per piece gives, found
    at once.  Spilled runs are not segmented and stand alone, and no Latin
    token spans a Han run, so the Latin pieces are read joined by a blank
    (no token holds one, and every pattern reads it as it reads the end of
    a piece) and the runs joined by a line end (no variant or OpenCC phrase
    holds one).  Text of a Latin letter and a Han character after another,
    1 MB, took 2-4 s a piece at a time."""
    stop = options.stopwords
    runs = "\n".join(pieces[first::2])
    if options.fold_variants:
        from .variants import fold_variants

        runs = fold_variants(runs)
    budget.spilled.extend([char for char in runs if char != "\n" and char not in stop])
    _latin_tokens(" ".join(pieces[first + 1::2]), stop, out)


def _latin_tokens(piece: str, stop, out: list[str]) -> None:
    """Words, numbers, URL and address tokens of text with no Han character, added to `out`."""
    # findall builds the list of matches in C; most text has no link or
    # address, and its words need no per-match look at which alternative
    # matched (tokenizing the spamassassin test part: 0.72 s → 0.31 s).
    if "@" not in piece:  # no address can match: findall gives what it always gave
        found = _LATIN_TOKEN.findall(piece)
        if "://" not in piece and "www." not in piece:
            out.extend([v for v in found if MIN_WORD_LENGTH <= len(v) <= MAX_WORD_LENGTH and v not in stop])
            return
    else:
        found = _latin_findall(piece)
    for value in found:
        # Which alternative matched, from the text: only a URL holds "://"
        # or starts with "www." (an address or word starting so would have
        # matched as a URL first), and of the rest only an address has "@".
        if "://" in value or value.startswith("www."):
            out.extend(url_tokens(value))
        elif "@" in value:
            out.extend(address_tokens("email", value))
        elif MIN_WORD_LENGTH <= len(value) <= MAX_WORD_LENGTH and value not in stop:
            out.append(value)


# Second-level labels under which names are registered (example.com.cn), so
# the registered domain is three labels there, not "com.cn".
_SECOND_LEVEL = frozenset({"com", "net", "org", "edu", "gov", "ac", "co", "or", "ne", "go"})


# urlsplit's netloc: after an optional scheme, "//" and up to the first of "/?#".
_NETLOC = re.compile(r"(?:[a-z][a-z0-9+.\-]*:)?//([^/?#]*)")
_NOT_PLAIN = re.compile(r"[\x00-\x20\[\]]")


def url_host(url: str) -> str | None:
    """urllib.parse.urlsplit(url).hostname for a case-folded URL ("" when it
    has none, None when urlsplit calls it invalid), without importing
    urllib.parse (3 ms of a scoring process's start) for plain URLs: the
    same answer for all 20,200 distinct links in the shared corpora."""
    if not url.isascii() or _NOT_PLAIN.search(url):  # NFKC folding, controls, spaces, IPv6: urlsplit's rules
        from urllib.parse import urlsplit

        try:
            return urlsplit(url).hostname or ""
        except ValueError:
            return None
    match = _NETLOC.match(url)
    if not match:
        return ""
    return match.group(1).rpartition("@")[2].partition(":")[0]


def url_tokens(url: str) -> list[str]:
    """`url:HOST` plus `url:DOMAIN` (the registered domain) for a link target;
    `mailto:` links give the address tokens of an e-mail address.

    Without URL tokens: 0.344 / 0.018.
    """
    url = url.strip().casefold().rstrip(".,;:!?'\"")
    if url.startswith("mailto:"):
        return address_tokens("email", url[7:].split("?", 1)[0])
    if url.startswith("www."):
        url = "http://" + url
    host = url_host(url)
    if host is None:
        return []
    host = host.strip(".")
    if not host or len(host) > 253:
        return []
    tokens = [f"url:{host}"]
    labels = host.split(".")
    if labels[-1].isdigit():  # an IP address has no registered domain
        return tokens
    keep = 3 if len(labels) > 2 and labels[-2] in _SECOND_LEVEL and len(labels[-1]) == 2 else 2
    if len(labels) > keep:
        tokens.append("url:" + ".".join(labels[-keep:]))
    return tokens


def address_tokens(field: str, address: str) -> list[str]:
    address = address.strip().strip("<>").casefold()
    if "@" not in address or len(address) > 254:
        return []
    domain = address.rsplit("@", 1)[1]
    return [f"{field}:addr:{address}", f"{field}:domain:{domain}"]


_IPV4 = re.compile(r"(?<![\d.])(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.\d{1,3}(?![\d.])")
_HOST = re.compile(r"(?<![\w.\-])[a-z0-9\-]+(?:\.[a-z0-9\-]+)*\.[a-z]{2,24}(?![\w\-])")
_RECEIVED_WORD = re.compile(r"(?<![\w.\-])[a-z]{2,12}(?![\w.\-])")
# Weekday and month names of the timestamp every Received line ends with.
_CALENDAR = frozenset("mon tue wed thu fri sat sun jan feb mar apr may jun jul aug sep oct nov dec".split())
_DATE_ZONE = re.compile(r"([+\-]\d{4}|\b(?:ut|gmt|[ecmp][sd]t|z)\b)\s*(?:\([^)]*\))?\s*$")


def registered_domain(host: str) -> str:
    """The name a host is registered under: mail.example.com → example.com,
    a.b.example.com.cn → example.com.cn."""
    labels = host.split(".")
    keep = 3 if len(labels) > 2 and labels[-2] in _SECOND_LEVEL and len(labels[-1]) == 2 else 2
    return ".".join(labels[-keep:])


def received_tokens(value: str) -> list[str]:
    """What a Received line says about where mail came from, not when or
    which queue: the /24 and /16 of each IPv4 address, the registered
    domain of each host name, and the plain words (from, by, with, helo,
    unknown, esmtp, ...).  Its queue ids, times and dates are left out:
    they are unique per message, or name a day that never comes back."""
    value = value.casefold()
    out = []
    for a, b, c in _IPV4.findall(value):
        out += [f"received:ip:{a}.{b}.{c}", f"received:ip:{a}.{b}"]
    for host in _HOST.findall(value):
        out.append("received:domain:" + registered_domain(host))
    out += [f"received:{word}" for word in _RECEIVED_WORD.findall(value) if word not in _CALENDAR]
    return out


def message_id_tokens(name: str, value: str) -> list[str]:
    """The registered domain after the `@` of a Message-ID (the sending
    site's, or a forger's), or that it has none; its unique left part is
    left out."""
    value = value.strip().strip("<>").casefold()
    domain = value.rpartition("@")[2] if "@" in value else ""
    domain = domain.strip(".>")
    if not domain or not _HOST.fullmatch(domain):
        return [f"{name}:domain:none"]
    return [f"{name}:domain:{registered_domain(domain)}"]


def date_tokens(name: str, value: str) -> list[str]:
    """A Date field's zone and the shape of the line (digits as 9, letters
    as a), which name the mailer that wrote it; never the day itself."""
    value = value.strip().casefold()
    zone = _DATE_ZONE.search(value)
    shape = re.sub(r"[a-z]+", "a", re.sub(r"\d", "9", value))[:40]
    return [f"{name}:zone:{zone.group(1) if zone else 'none'}", f"{name}:shape:{shape}"]


# Fields read by a rule of their own instead of as words.  Measured with
# every header read, by bench/choose_defaults.py (1-ROCA %, inside the
# training parts: trec06p later mail / online / spamassassin CV / sa->trec /
# trec->sa), each rule against the same run without it
# (`--variant headers=all --variant headers=all+no-rule=received`):
# - received: 0.003 / 0.125 / 0.034 / 12.2 / 8.9 with, 0.005 / 0.179 /
#   0.033 / 12.8 / 10.7 without: plain words memorise queue ids and times;
# - date: 12.2 / 8.9 / 0.125 (sa->trec / trec->sa / online) with, 11.7 /
#   10.0 / 0.134 without; its worst ratio over the protocols is the lower;
# - message-id: level on accuracy (12.2 / 8.9 either way); as plain words
#   every message adds its unique id to the vocabulary, never seen again.
FIELD_RULES = {
    "received": lambda name, value: received_tokens(value),
    "message-id": message_id_tokens,
    "resent-message-id": message_id_tokens,
    "in-reply-to": message_id_tokens,
    "date": date_tokens,
    "resent-date": date_tokens,
}


def header_tokens(name: str, value: str, options: TokenizerOptions,
                  addresses: list[tuple[str, str]] | None = None,
                  budget: Budget | None = None) -> list[str]:
    rule = FIELD_RULES.get(name)
    if rule is not None:
        return rule(name, value)
    if budget is None:
        budget = Budget()
    out: list[str] = []
    if addresses is not None:
        for display, address in addresses:
            if display:
                out.extend(f"{name}:{word}" for word in text_tokens(display, options, budget))
            if address:
                out.extend(address_tokens(name, address))
    else:
        out.extend(f"{name}:{token}" for token in text_tokens(value, options, budget))
    out.extend(f"{name}:{char}" for char in budget.spilled)
    budget.spilled.clear()
    return out


# The prefixes of tokens that come from the body (links, addresses in the
# text, attachments, a decoder's bound); every other token holding ":" is a
# header field's (`FIELD:...`), since body words never hold one.
BODY_PREFIXES = ("url:", "email:", "attach:", "cut:")


def token_part(token: str) -> str:
    """Which part of a message a token comes from: "subject" (a word of the
    Subject), "header" (any other header field: how the mail travelled and
    was written), or "body" (words, pairs, links, attachments)."""
    if ":" not in token or token.startswith(BODY_PREFIXES):
        return "body"
    return "subject" if token.startswith("subject:") else "header"


def message_tokens(message: DecodedMessage, options: TokenizerOptions) -> list[str]:
    """All tokens of a decoded message, in reading order, repeats kept."""
    out: list[str] = []
    seen_addresses: set[str] = set()
    header_budget, body_budget = Budget(), Budget()
    for name, value in message.headers:
        if options.wants_header(name) and not _STATUS_VALUE.match(value):
            addresses = None
            if name in message.addresses and name not in seen_addresses:
                seen_addresses.add(name)  # all of a field's addresses, once
                addresses = message.addresses[name]
            elif name in message.addresses:
                continue
            out.extend(header_tokens(name, value, options, addresses, header_budget))
    for text in message.texts:
        words = text_tokens(text, options, body_budget)
        out.extend(words)
        if options.bigrams:
            words = [w for w in words if ":" not in w]  # pairs of words, not of url:/email: tokens
            out.extend(f"{a} {b}" for a, b in zip(words, words[1:]))
    out.extend(body_budget.spilled)
    for url in message.urls:
        out.extend(url_tokens(url))
    # Attachment type and extension: level on these corpora (0.272 / 0.017
    # without), where attachments are rare; they are the only trace an
    # image-only or malware message leaves.
    for content_type, filename in message.attachments:
        out.append(f"attach:type:{content_type}")
        if "." in filename:
            out.append("attach:ext:" + filename.rsplit(".", 1)[1].casefold()[:16])
    # A bound the decoder stopped at ("header bytes"): the model learns what
    # such mail is, as of any other token.  Real mail never has one.
    out.extend("cut:" + what.replace(" ", "-") for what in getattr(message, "cut", ()))
    return out
