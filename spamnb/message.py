"""Decoding one raw message into the text, links and attachment names it carries.

Everything the tokenizer needs comes out of `decode_message`: header values
with RFC 2047 words and raw 8-bit bytes turned into text, every text part
transfer-decoded and charset-decoded, HTML reduced to visible text, and the
type and file name of each attachment (never its bytes).
"""

from __future__ import annotations

import binascii
import email.parser
import email.utils
import re
from collections.abc import Callable
from dataclasses import dataclass, field

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


@dataclass
class DecodedMessage:
    headers: list[tuple[str, str]] = field(default_factory=list)
    """(lower-case field name, decoded value) for each top-level header, in order."""
    addresses: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    """For address fields (From, To, Cc...): (decoded display name, address) pairs."""
    texts: list[str] = field(default_factory=list)
    """Decoded text of each text part; HTML parts reduced to their visible text."""
    urls: list[str] = field(default_factory=list)
    """Link and image targets found in HTML parts."""
    attachments: list[tuple[str, str]] = field(default_factory=list)
    """(content type, file name or "") of each non-text part."""
    parse_failed: bool = False
    """The MIME structure could not be parsed; the raw bytes were read as text."""


# The compat32 policy (the parser's default): the raw header values, which
# decode_header_value reads better than the email package does.  Not
# importing email.policy saves 7 ms of start-up.
_PARSER = email.parser.BytesParser()


ADDRESS_FIELDS = frozenset({"from", "to", "cc", "bcc", "reply-to", "sender", "return-path"})


def decode_message(raw: bytes, wanted_header: Callable[[str], bool] | None = None) -> DecodedMessage:
    """Decode a raw RFC 5322 message.  Never raises on bad input.

    `wanted_header(name)` limits header decoding to the fields a caller
    uses (the tokenizer reads 7 of a typical message's 20-odd fields).
    """
    try:
        message = _PARSER.parsebytes(raw)
        result = DecodedMessage()
        for name, value in message._headers:
            name = name.lower()
            if wanted_header is not None and not wanted_header(name):
                continue
            result.headers.append((name, decode_header_value(value)))
            if name in ADDRESS_FIELDS:
                result.addresses.setdefault(name, []).extend(decode_addresses(value))
        _read_parts(message, result)
        return result
    except Exception:  # the email package raises a wide variety on broken input
        pass
    return DecodedMessage(texts=[decode_text(raw[: 4 * MAX_TEXT_CHARS])[:MAX_TEXT_CHARS]], parse_failed=True)


def _read_parts(message, result: DecodedMessage) -> None:
    # Iterative walk with explicit bounds instead of Message.walk(), which
    # recurses and has no limit on depth or breadth.
    stack = [(message, 0)]
    seen = 0
    while stack and seen < MAX_PARTS:
        part, depth = stack.pop()
        seen += 1
        if part.is_multipart():  # (get_payload() would decode a leaf with its charset)
            if depth < MAX_DEPTH:
                stack.extend((child, depth + 1) for child in reversed(part.get_payload()))
            continue
        ctype = part.get_content_type()
        disposition = (part.get("Content-Disposition") or "").lower()
        filename = _filename(part)
        # A multipart whose boundary never appears is one body in practice
        # (spam tools emit these); reading it as text rather than as an
        # attachment recovers the body of 79 % of ccert_zh ham and 5 % of its
        # spam, which were otherwise scored on headers alone.
        broken_multipart = ctype.startswith("multipart/")
        if (ctype.startswith("text/") or broken_multipart) and not disposition.startswith("attachment"):
            room = MAX_TEXT_CHARS - sum(len(t) for t in result.texts)
            if room <= 0:
                continue
            body = _payload_bytes(part)[: 4 * room]  # at most 4 bytes a character
            text = decode_text(body, part.get_content_charset())
            if ctype == "text/html" or (broken_multipart and _looks_like_html(text)):
                from .htmltext import html_to_text  # html.parser: only for mail that has HTML

                text, urls = html_to_text(text)
                result.urls.extend(urls)
            result.texts.append(text[:room])
        elif ctype.startswith("message/"):
            result.texts.append(decode_text(_as_bytes(part._payload)))
        else:
            result.attachments.append((ctype, filename))


def _payload_bytes(part) -> bytes:
    """The part's body with its transfer encoding undone.

    The email package's own decoder decodes 8-bit bodies with the declared
    charset on the way, and raises for a codec such as "idna"; the transfer
    encoding is then undone here from the raw bytes.
    """
    try:
        return part.get_payload(decode=True) or b""
    except (UnicodeError, LookupError, ValueError):
        pass
    # get_payload() without decode=True decodes with the charset too; the
    # stored payload is the raw body (8-bit bytes as surrogate escapes).
    raw = _as_bytes(part._payload)
    encoding = str(part.get("Content-Transfer-Encoding", "")).strip().lower()
    try:
        if encoding == "base64":
            return binascii.a2b_base64(raw)
        if encoding == "quoted-printable":
            return binascii.a2b_qp(raw)
    except (binascii.Error, ValueError):
        pass
    return raw


_HTML_MARKERS = ("<html", "<body", "<p>", "<br", "<div", "<table", "<font")


def _looks_like_html(text: str) -> bool:
    head = text[:4096].lower()
    return any(marker in head for marker in _HTML_MARKERS)


def _filename(part) -> str:
    try:
        name = part.get_filename() or ""
    except Exception:
        return ""
    if isinstance(name, tuple):  # RFC 2231 value the email package could not decode
        name = name[2]
    return decode_header_value(str(name))


def _as_bytes(value) -> bytes:
    if isinstance(value, bytes):
        return value
    return str(value).encode("ascii", "surrogateescape")


_ENCODED_WORD = re.compile(rb"=\?([^?\s]+)\?([bBqQ])\?([^?\s]*)\?=")
_BETWEEN_WORDS = re.compile(rb"[ \t\r\n]*")


def decode_header_value(value) -> str:
    """Decode a header value: RFC 2047 encoded words and raw 8-bit bytes.

    The email package gives up on a whole header (charset "unknown-8bit") as
    soon as it holds one raw 8-bit byte, which Chinese mail does constantly, so
    encoded words are decoded here from the raw bytes.
    """
    if isinstance(value, str):
        # Raw 8-bit bytes arrive as surrogate escapes (the parser's doing) and
        # go back to bytes; real characters, as in an RFC 2231 file name the
        # email package already decoded, go to UTF-8, which decode_text reads.
        data = value.encode("utf-8", "surrogateescape")
    elif isinstance(value, bytes):
        data = value
    else:  # email.header.Header, seen when a header was set programmatically
        data = str(value).encode("utf-8", "surrogateescape")
    data = data.replace(b"\r\n", b"\n").replace(b"\n\t", b" ").replace(b"\n ", b" ")
    if b"=?" not in data:
        return decode_text(data)
    # Adjacent encoded words of one charset are joined as bytes before
    # decoding: senders split a multi-byte character across two words.
    pieces: list[tuple[str | None, bytes]] = []
    position = 0
    for match in _ENCODED_WORD.finditer(data):
        gap = data[position:match.start()]
        adjacent = pieces and pieces[-1][0] is not None and _BETWEEN_WORDS.fullmatch(gap)
        if gap and not adjacent:  # RFC 2047 6.2: white space between encoded words is dropped
            pieces.append((None, gap))
        charset, encoding, encoded = match.groups()
        charset = charset.split(b"*", 1)[0].decode("ascii", "replace").lower()  # RFC 2231 language tag
        try:
            if encoding in b"bB":
                decoded = binascii.a2b_base64(encoded + b"=" * (-len(encoded) % 4))
            else:
                decoded = binascii.a2b_qp(encoded, header=True)
        except (binascii.Error, ValueError):
            pieces.append((None, match.group(0)))
        else:
            if pieces and pieces[-1][0] == charset and adjacent:
                pieces[-1] = (charset, pieces[-1][1] + decoded)
            else:
                pieces.append((charset, decoded))
        position = match.end()
    pieces.append((None, data[position:]))
    return "".join(decode_text(chunk, charset) for charset, chunk in pieces).strip()


def decode_addresses(value) -> list[tuple[str, str]]:
    """(decoded display name, address) pairs of an address header.

    The header is split into addresses while still encoded, and only the
    display names are decoded: decoding first would let an encoded name such
    as =?utf-8?Q?service=40paypal.com?= pose as an address, and an encoded
    comma split one name in two.
    """
    raw = value if isinstance(value, str) else str(value)
    return [(decode_header_value(name), address)
            for name, address in email.utils.getaddresses([raw])]
