"""Decoding one raw message into the text, links and attachment names it carries.

Everything the tokenizer needs comes out of `decode_message`: header values
with RFC 2047 words and raw 8-bit bytes turned into text, every text part
transfer-decoded and charset-decoded, HTML reduced to visible text, and the
type and file name of each attachment (never its bytes).
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Callable

from . import mime
from .addresses import parse_addresses
from .charsets import decode_text

# Bounds that keep a hostile message from costing unbounded time: parts past
# these are not read.  Real mail in the shared corpora stays far below them
# (deepest nesting 5, most parts 41).
MAX_PARTS = 500
MAX_DEPTH = 50
# Decoded text read per message, all parts together.  The cost of a message
# is then bounded whatever it holds: a 4.4 MB Chinese body took 8.4 s and
# 1 GB before this cap, 2.8 s and 350 MB after.  Real mail is far below it:
# the largest decoded text in both shared corpora is 195,000 characters.
MAX_TEXT_CHARS = 500_000
# Raw bytes of the top-level header fields the tokenizer reads, all together.
# Decoding them costs Python time per byte (an address list of 2 million
# addresses took 15 s); the most in one message of the shared corpora is
# 14,922 bytes.  A field past the bound is cut there and the fields after it
# are not read, and the message says so (`cut`), which the tokenizer turns
# into a token: never a silent drop.
MAX_HEADER_BYTES = 128 * 1024


class DecodedMessage:
    """What the tokenizer reads of one message.

    headers: (lower-case field name, decoded value) for each top-level header, in order.
    addresses: for address fields (From, To, Cc...), (decoded display name, address) pairs.
    texts: decoded text of each text part; HTML parts reduced to their visible text.
    urls: link and image targets found in HTML parts.
    attachments: (content type, file name or "") of each non-text part.
    parse_failed: the MIME structure could not be parsed; the raw bytes were read as text.
    cut: which bounds on work the message ran into ("header fields": over
    mime.MAX_FIELDS in its header block; "header bytes": over MAX_HEADER_BYTES;
    "addresses": over MAX_ADDRESSES; "parameters": a part's field with more
    than mime.MAX_PARAMS, not all empty).
    """

    # A plain class, not a dataclass: `dataclasses` imports `inspect`, which
    # costs a cold `spamnb classify` 46 M instructions (11 ms).
    __slots__ = ("headers", "addresses", "texts", "urls", "attachments", "parse_failed", "cut")

    def __init__(self, headers: list[tuple[str, str]] | None = None,
                 addresses: dict[str, list[tuple[str, str]]] | None = None,
                 texts: list[str] | None = None, urls: list[str] | None = None,
                 attachments: list[tuple[str, str]] | None = None, parse_failed: bool = False,
                 cut: list[str] | None = None) -> None:
        self.headers = [] if headers is None else headers
        self.addresses = {} if addresses is None else addresses
        self.texts = [] if texts is None else texts
        self.urls = [] if urls is None else urls
        self.attachments = [] if attachments is None else attachments
        self.parse_failed = parse_failed
        self.cut = [] if cut is None else cut

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"DecodedMessage({fields})"

    def __eq__(self, other) -> bool:
        if not isinstance(other, DecodedMessage):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__slots__)

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dataclass it replaces


ADDRESS_FIELDS = frozenset({"from", "to", "cc", "bcc", "reply-to", "sender", "return-path"})
# Addresses read per message, all address fields together: each costs a few
# microseconds of Python (parsing, decoding its name, its tokens), however
# short ("<0" repeated: one per two bytes).  The most in one field of the
# shared corpora is 311.  Past the bound the message says so (`cut`).
MAX_ADDRESSES = 1000


def decode_message(raw: bytes, wanted_header: Callable[[str], bool] | None = None) -> DecodedMessage:
    """Decode a raw RFC 5322 message.  Never raises on bad input.

    `wanted_header(name)` limits header decoding to the fields a caller
    uses (the tokenizer reads 7 of a typical message's 20-odd fields).
    """
    try:
        fields, parts = mime.parse(raw, MAX_PARTS, MAX_DEPTH)
        result = DecodedMessage()
        room = MAX_HEADER_BYTES
        addresses_left = MAX_ADDRESSES
        for name, value in fields:
            if name == mime.CUT_FIELD:
                result.cut.append("header fields")
                continue
            if wanted_header is not None and not wanted_header(name):
                continue
            if room <= 0:
                if "header bytes" not in result.cut:
                    result.cut.append("header bytes")
                continue
            if len(value) > room:
                value = value[:room]
                result.cut.append("header bytes")
            room -= len(value)
            result.headers.append((name, decode_header_value(value)))
            if name in ADDRESS_FIELDS:
                found = decode_addresses(value, addresses_left + 1)
                if len(found) > addresses_left:
                    del found[addresses_left:]
                    if "addresses" not in result.cut:
                        result.cut.append("addresses")
                addresses_left -= len(found)
                result.addresses.setdefault(name, []).extend(found)
        _read_parts(parts, result)
        return result
    except Exception:  # a safety net: mime reads any bytes without raising
        pass
    cut = len(raw) > 4 * MAX_TEXT_CHARS
    return DecodedMessage(texts=[visible(decode_text(raw[: 4 * MAX_TEXT_CHARS], cut=cut))[:MAX_TEXT_CHARS]],
                          parse_failed=True)


# Characters no client draws, which split a word for the tokenizer but not
# for the reader: NUL (HTML ignores it in text, and a text/plain viewer
# shows nothing), the soft hyphen (shown only where a line breaks), zero
# width space, word joiner and the zero width no-break space (BOM).
# "fr\0ee" is "free" on screen.  Zero width (non-)joiners are left: they
# change how Persian or Indic text is written.
_INVISIBLE = re.compile("[\x00\u00ad\u200b\u2060\ufeff]+")


def visible(text: str) -> str:
    """`text` without the characters no client draws (linear: one pass)."""
    if text.isascii() and "\x00" not in text:
        return text
    return _INVISIBLE.sub("", text)


def _read_parts(parts, result: DecodedMessage) -> None:
    room = MAX_TEXT_CHARS
    html_budget: list = []  # the message's htmltext.Budget, once an HTML part needs one
    for part in parts:
        if isinstance(part, mime.AttachedHeaders):
            # An attached message's Subject and From, which a mail client
            # shows above its text, are read as body text (they are not
            # this message's headers): a spammer who forwards his spam as
            # an attachment keeps its Subject in view.  Measured together
            # with the text attachment rule below (`spamnb evaluate`, with
            # and without both): 26 messages of the shared corpora gain
            # words (25 ham, 1 spam), 41 with both rules, and accuracy is
            # level: 1-ROCA % online, spamassassin 0.1049 without both,
            # 0.1054 with (spam missed at 0.1 % ham lost 8.65 -> 8.28 %),
            # 5 folds 0.0279 -> 0.0278, trec06p online 0.0280 either way.
            # So the choice rests on what a client shows.
            shown = [decode_header_value(value) for name in ("subject", "from")
                     if (value := mime.field(part.fields, name)) is not None]
            text = visible("\n".join(shown))[:room]
            if text:
                room -= len(text)
                result.texts.append(text)
            continue
        ctype = part.content_type
        disposition = mime.field(part.fields, "content-disposition") or b""
        if "parameters" not in result.cut and (mime.params_cut(disposition)
                                               or mime.params_cut(mime.field(part.fields, "content-type"))):
            result.cut.append("parameters")
        # A multipart whose boundary never appears is one body in practice
        # (spam tools emit these); reading it as text rather than as an
        # attachment recovers the body of 79 % of ccert_zh ham and 5 % of its
        # spam, which were otherwise scored on headers alone.
        broken_multipart = ctype.startswith("multipart/")
        attachment = disposition.lstrip(b" \t\r\n").lower().startswith(b"attachment")
        # A text/plain part marked as an attachment is still text a client
        # shows (Thunderbird and Apple Mail inline it by default): read as
        # text, and its type and name counted as an attachment's as well.
        # Marking the spam's text so hid it from us (-2.16 on the sample
        # model).  15 messages of the shared corpora gain words (13 ham:
        # patches and logs, 2 spam); accuracy level (see above).
        if attachment and ctype == "text/plain":
            result.attachments.append((ctype, decode_header_value(mime.filename(part.fields))))
            attachment = False
        if (ctype.startswith("text/") or broken_multipart) and not attachment:
            if room <= 0:
                continue
            try:
                text = _part_text(part, ctype, broken_multipart, room, result, html_budget)
            except Exception:  # a safety net: one part's failure never costs the others
                text = visible(decode_text(part.body[: 4 * room], cut=len(part.body) > 4 * room))
            text = text[:room]
            room -= len(text)
            result.texts.append(text)
        else:
            result.attachments.append((ctype, decode_header_value(mime.filename(part.fields))))


def _part_text(part, ctype: str, broken_multipart: bool, room: int, result: DecodedMessage,
               html_budget: list) -> str:
    """A text part's visible text; `html_budget` holds the message's one
    htmltext.Budget once an HTML part needs it (what reading HTML may
    still cost, all parts together)."""
    decoded = mime.transfer_decode(part.body, part.fields)
    body = decoded[: 4 * room]  # at most 4 bytes a character
    text = visible(decode_text(body, mime.charset(part.fields), cut=len(decoded) > len(body)))
    if ctype == "text/html" or (broken_multipart and _looks_like_html(text)):
        from .htmltext import Budget, html_to_text  # only for mail that has HTML

        if not html_budget:
            html_budget.append(Budget())
        text, urls = html_to_text(text, html_budget[0])
        result.urls.extend(urls)
        text = visible(text)  # again: character references (&#8203;) become such characters too
    return text


_HTML_MARKERS = ("<html", "<body", "<p>", "<br", "<div", "<table", "<font")


def _looks_like_html(text: str) -> bool:
    head = text[:4096].lower()
    return any(marker in head for marker in _HTML_MARKERS)


_ENCODED_WORD = re.compile(rb"=\?([^?\s]+)\?([bBqQ])\?([^?\s]*)\?=")
_BETWEEN_WORDS = re.compile(rb"[ \t\r\n]*")


def decode_header_value(value) -> str:
    """Decode a header value: RFC 2047 encoded words and raw 8-bit bytes.

    Values are decoded from the raw bytes (as mime.read_headers gives
    them): the email package's decoder gives up on a whole header (charset
    "unknown-8bit") as soon as it holds one raw 8-bit byte, which Chinese
    mail does constantly.
    """
    if isinstance(value, bytes):
        data = value
    elif value.isascii() and "=?" not in value and "\n" not in value and "\x00" not in value:
        return value  # what the steps below give such a value (display names: one call per address)
    else:
        # In a str, raw 8-bit bytes are surrogate escapes (a display name from
        # decode_addresses) and go back to bytes; real characters, as in an
        # RFC 2231 file name already decoded, go to UTF-8, which decode_text reads.
        data = str(value).encode("utf-8", "surrogateescape")
    data = data.replace(b"\r\n", b"\n").replace(b"\n\t", b" ").replace(b"\n ", b" ")
    if b"=?" not in data:
        return visible(decode_text(data))
    # Adjacent encoded words of one charset are joined as bytes before
    # decoding: senders split a multi-byte character across two words.
    # Each piece gathers its bytes in a list, joined once: adding bytes to
    # bytes made a Subject of 200,000 encoded words take 11 s.
    pieces: list[tuple[str | None, list[bytes]]] = []
    position = 0
    for match in _ENCODED_WORD.finditer(data):
        gap = data[position:match.start()]
        adjacent = pieces and pieces[-1][0] is not None and _BETWEEN_WORDS.fullmatch(gap)
        if gap and not adjacent:  # RFC 2047 6.2: white space between encoded words is dropped
            pieces.append((None, [gap]))
        charset, encoding, encoded = match.groups()
        charset = charset.split(b"*", 1)[0].decode("ascii", "replace").lower()  # RFC 2231 language tag
        try:
            if encoding in b"bB":
                decoded = binascii.a2b_base64(encoded + b"=" * (-len(encoded) % 4))
            else:
                decoded = binascii.a2b_qp(encoded, header=True)
        except (binascii.Error, ValueError):
            pieces.append((None, [match.group(0)]))
        else:
            if pieces and pieces[-1][0] == charset and adjacent:
                pieces[-1][1].append(decoded)
            else:
                pieces.append((charset, [decoded]))
        position = match.end()
    pieces.append((None, [data[position:]]))
    return visible("".join(decode_text(b"".join(chunks), charset) for charset, chunks in pieces)).strip()


def decode_addresses(value, limit: int | None = None) -> list[tuple[str, str]]:
    """(decoded display name, address) pairs of an address header.

    The header is split into addresses while still encoded, and only the
    display names are decoded: decoding first would let an encoded name such
    as =?utf-8?Q?service=40paypal.com?= pose as an address, and an encoded
    comma split one name in two.
    """
    if isinstance(value, bytes):
        # 8-bit bytes travel as surrogate escapes, as the email package gave
        # them: a display name goes back to its bytes in decode_header_value.
        value = value.decode("ascii", "surrogateescape")
    return [(decode_header_value(name) if name else "", address)
            for name, address in parse_addresses(str(value), limit)]
