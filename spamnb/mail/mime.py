"""A small MIME reader over raw bytes: header blocks, parameters, multipart
splitting and transfer decoding (address lists: addresses.py).

It started as a reading of mail the way the email package's default
(compat32) parser reads it, which the decoder used before
(`bench/mime_check.py`), and now departs from it where a tolerant mail client
shows a message the package misreads (issue 17: junk header lines, blanks
before the colon, garbage or duplicate Content-Type and encodings, RFC 2231
oddities, boundary lines, epilogues); `bench/oracle_email.py` lists every
remaining difference on the shared corpora.  It exists because `import
email.parser` alone costs 15 ms of a 30 ms per-message budget, and because the
email package's parser is a Python loop over lines: here boundaries are found
with regular-expression searches over whole buffers.

Lines end with CRLF, LF or a lone CR, as in the email package.  Every part is
a range [start, end) of the one buffer; a part ends at the first line that is
a boundary of any multipart enclosing it.  Nothing here raises on bad input.
"""

from __future__ import annotations

import binascii
import re

# A field with its continuation lines, in one match: real header blocks are
# read a field, not a line, per regex call (read_headers took 2.4 of 19 s of
# profiled decoding over the corpora before).
# Blanks between the name and the colon are RFC 5322's obsolete syntax
# (4.5.3, obs-optional), which a reader must accept: "Subject :" and
# "Content-Type :" are what a mail client reads as those fields, and
# reading them as the start of the body let one blank hide a message's
# Content-Type (its base64 HTML was scored as letters, -4.46 log-odds).
_FIELD = re.compile(rb"([\x21-\x39\x3b-\x7e]+)[ \t]*+:([^\r\n]*(?:(?:\r\n|\r|\n)[ \t][^\r\n]*)*)(?:\r\n|\r|\n)?")
# From a line that is neither a field nor a blank line: the start of the
# next line that is a field, blank (or blanks only), or starts "<" or "--"
# (one search, no Python step per line).  See read_headers.
_NEXT_FIELD_OR_BLANK = re.compile(
    rb"(?:\r\n|\r(?!\n)|\n)(?:[\x21-\x39\x3b-\x7e]++[ \t]*+:|[ \t]*+(?:\r\n|\r|\n|\Z)|<|--)")
# Any other line a header block may hold: an mbox "From " line, a field with
# no name, a continuation with no field before it.
_OTHER_LINE = re.compile(rb"(?:From |:|[ \t])[^\r\n]*(?:\r\n|\r|\n)?")
_EOL = re.compile(rb"\r\n|\r|\n")
# Fields read one by one per header block: the most in one message of the
# shared corpora is 125, and each costs about a microsecond of Python (3
# million empty fields took 3.6 s to read, 7.5 s to decode).  The rest of a
# longer block is skipped up to its first blank line, and a last field
# named "" (CUT_FIELD) says so: the message's decoder reports it as a token.
MAX_FIELDS = 2000
CUT_FIELD = ""
_BLANK_LINE = re.compile(rb"(?:\r\n|\r(?!\n)|\n)(?:\r\n|\r|\n)")


def read_headers(data: bytes, start: int, end: int) -> tuple[list[tuple[str, bytes]], int, bytes]:
    """Read the header block at data[start:end].

    Returns ([(lower-case name, raw value)], body start, pushed-back line).
    The value is the raw bytes after the colon, leading blanks and the last
    line end removed, folds kept.  The block ends at a blank line (dropped) or
    at the first line that is neither a field nor a continuation (which
    starts the body).  As in the email package: a first line "From " is the
    mbox envelope and dropped, a "From " line as the block's last line is the
    first line of the body (the pushed-back line), one elsewhere is dropped,
    and so are a field with no name and a continuation with no field before it.
    """
    fields: list[tuple[str, bytes]] = []
    envelope = None  # a "From " line that may turn out to be the block's last
    pos = start
    while pos < end:
        if len(fields) >= MAX_FIELDS:
            blank = _BLANK_LINE.search(data, pos - 1, end)
            pos = end if blank is None else _EOL.match(data, _EOL.match(data, blank.start()).end()).end()  # type: ignore[union-attr]  # at a line break _EOL always matches
            fields.append((CUT_FIELD, b""))
            envelope = None
            break
        found = _FIELD.match(data, pos, end)
        if found is not None:
            fields.append((found.group(1).decode("ascii").lower(), found.group(2).lstrip(b" \t")))
            pos = found.end()
            envelope = None
            continue
        found = _OTHER_LINE.match(data, pos, end)
        if found is None:
            if data[pos] in b"\r\n":  # the blank separator line
                pos = _EOL.match(data, pos, end).end()  # type: ignore[union-attr]  # at a line break _EOL always matches
                break
            # A line that is no field.  The email package ends the block
            # here, but mime4j (by default) and, as far as we can tell,
            # Thunderbird skip such a line and read on to the blank line: a
            # spammer's one junk line hid the Content-Type after it from us
            # (its base64 HTML scored as letters, -6.42), not from the
            # reader.  So when a field follows before any blank line, the
            # junk lines are skipped (not scored: no client shows them);
            # otherwise the line starts the body, as a mailer that forgot
            # the blank line meant.  A line of blanks only, or one starting
            # "<" or "--", also ends the search: HTML and boundary lines
            # are a body whose blank line was lost (trec06p has mail turned
            # into web pages, "<p>" for each blank line, and HTML bodies
            # right after the header whose CSS "margin-left: 0px" would
            # read as fields); a spammer gains nothing by starting a junk
            # line so, since then the fields after it are read as the body.
            following = None if data[pos] == 60 or data.startswith(b"--", pos) else \
                _NEXT_FIELD_OR_BLANK.search(data, pos, end)  # 60 is "<"
            if following is None or data[following.end() - 1] != 58:
                break  # ":" is 58: the match ends at a field's colon, else the body starts here
            pos = _EOL.match(data, following.start(), end).end()  # type: ignore[union-attr]  # at a line break _EOL always matches
            envelope = None
            continue
        envelope = (pos, found.end()) if pos > start and data.startswith(b"From ", pos) else None
        pos = found.end()
    pushback = data[envelope[0]:envelope[1]] if envelope else b""
    return fields, pos, pushback


def field(fields: list[tuple[str, bytes]], name: str) -> bytes | None:
    """The raw value of the first field called `name` (lower case), or None.

    Content-Type is the first such field whose type is of the form
    type/subtype: one that is not is unusable (RFC 2045 5.2 would read the
    part as text/plain), and a spammer who puts a garbage Content-Type
    before the real one should not turn a base64 HTML part into letters for
    us only.  With two usable ones the first wins, as in every reader."""
    first = None
    for key, value in fields:
        if key == name:
            if name != "content-type" or _media_type(value) is not None:
                return value
            if first is None:
                first = value
    return first


def _text(value: bytes) -> str:
    # The email package hands out a value holding 8-bit bytes as a Header
    # whose str() turns each such byte into U+FFFD; parameters are read so.
    return value.decode("ascii", "replace")


# type "/" subtype, blanks allowed around the slash; what follows the
# subtype before the first ";" (a comment, garbage) is ignored, as the email
# package's policy.default and Thunderbird's first-token reading do:
# "text/html garbage" is text/html to a client.
_MEDIA_TYPE = re.compile(rb"[ \t\r\n]*+([!#-'*+.0-9A-Z^-~-]++)[ \t\r\n]*+/[ \t\r\n]*+([!#-'*+.0-9A-Z^-~-]++)")


def _media_type(value: bytes) -> str | None:
    found = _MEDIA_TYPE.match(value)
    if found is None:
        return None
    return (found.group(1) + b"/" + found.group(2)).decode("ascii").lower()


def content_type(fields: list[tuple[str, bytes]], default: str = "text/plain") -> str:
    """Lower-case "type/subtype"; `default` without a Content-Type field,
    text/plain when no Content-Type field is of that form (RFC 2045 5.2)."""
    value = field(fields, "content-type")
    if value is None:
        return default
    ctype = _media_type(value)
    return "text/plain" if ctype is None else ctype


# --- parameters (Content-Type, Content-Disposition), RFC 2231 included ---

# An RFC 2231 section number has at most 4 digits here: int() refuses a
# string of over 4,300 digits (ValueError), and one spam parameter
# x*<5,000 nines>*=a made the whole message unreadable (its base64 body was
# scored undecoded, +4.99 became -0.85).  A longer "number" is no section:
# the parameter is kept under its literal name, which nothing reads.
_CONTINUATION = re.compile(r"^(?P<name>\w+)\*((?P<num>[0-9]{1,4})\*?)?$", re.ASCII)


def _unquote(value: str) -> str:
    if len(value) > 1:
        if value.startswith('"') and value.endswith('"'):
            return value[1:-1].replace("\\\\", "\\").replace('\\"', '"')
        if value.startswith("<") and value.endswith(">"):
            return value[1:-1]
    return value


def quote(value: str) -> str:
    """`value` escaped for the inside of a quoted string (parameters here, display names in addresses.py)."""
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _split_params(value: str) -> list[str]:
    # A ";" inside an odd number of (unescaped) quotes does not end a parameter.
    out = []
    position = 0
    length = len(value)
    while position <= length:
        end = value.find(";", position)
        if end > position:
            quotes = value.count('"', position, end) - value.count('\\"', position, end)
            while end >= 0 and quotes % 2:
                following = value.find(";", end + 1)
                stop = following if following >= 0 else length
                quotes += value.count('"', end, stop) - value.count('\\"', end, stop)
                end = following
        if end < 0:
            end = length
        item = value[position:end]
        if "=" in item:
            key, _, rest = item.partition("=")
            item = key.strip().lower() + "=" + rest.strip()
        out.append(item.strip())
        position = end + 1
    return out


# Parameters read per field: each costs a couple of microseconds of Python,
# and a message can have 500 parts.  Real mail has a few; the most in the
# shared corpora is one spam's Content-Type of 7,138 empty ones ("; ; ;"),
# none after the first.  Those past the bound are not read; params_cut()
# tells whether any of them held something (the decoder reports it).
MAX_PARAMS = 256


def params_cut(value: bytes | None) -> bool:
    """Whether params() leaves out parameters of `value` that are not empty."""
    if value is None or value.count(b";") <= MAX_PARAMS:
        return False
    return bool(value.split(b";", MAX_PARAMS)[-1].strip(b"; \t\r\n"))


def params(value: bytes | None) -> list[tuple[str, object]]:
    """[(name, value)] of a structured field, its first item ("text/plain")
    included.  A value is a str, or (charset, language, text) when the
    parameter was RFC 2231 encoded; continuations (`name*0*=`) are joined."""
    if value is None:
        return []
    if value.count(b";") > MAX_PARAMS:
        value = b";".join(value.split(b";", MAX_PARAMS)[:MAX_PARAMS])
    # Unfolded first (RFC 5322 2.2.3: a fold is the line end alone, the
    # blank after it stays): a quoted boundary="simple folded onto the next
    # line as ' boundary"' is "simple boundary" to a mail client, and kept
    # with its line end it matched no line, so no part was found (-4.19).
    if b"\n" in value or b"\r" in value:
        value = value.replace(b"\r", b"").replace(b"\n", b"")
    items = []
    for item in _split_params(_text(value)):
        key, sep, val = item.partition("=")
        items.append((key.strip(), val.strip()) if sep else (item.strip(), ""))
    out: list[tuple[str, object]] = [items[0]]
    extended_params: dict[str, list] = {}
    for key, val in items[1:]:
        encoded = key.endswith("*")
        val = _unquote(val)
        found = _CONTINUATION.match(key)
        if found:
            key, number = found.group("name", "num")
            extended_params.setdefault(key, []).append((-1 if number is None else int(number), val, encoded))
        else:
            out.append((key, '"%s"' % quote(val)))
    for key, pieces in extended_params.items():
        pieces.sort()
        joined = []
        extended = False
        for _, piece, encoded in pieces:
            if encoded:
                from urllib.parse import unquote  # only for RFC 2231 values

                piece = unquote(piece, encoding="latin-1")  # %XX → one character per octet
                extended = True
            joined.append(piece)
        text = quote("".join(joined))
        if extended:
            split = text.split("'", 2)
            charset, language, text = split if len(split) == 3 else (None, None, text)
            out.append((key, (charset, language, '"%s"' % text)))
        else:
            out.append((key, '"%s"' % text))
    return out


def param(fields: list[tuple[str, bytes]], name: str, header: str = "content-type"):
    """The first parameter `name` of field `header`, unquoted (a str or an
    RFC 2231 triple), or None."""
    for key, value in params(field(fields, header)):
        if key.lower() == name:
            if isinstance(value, tuple):
                return value[0], value[1], _unquote(value[2])
            return _unquote(value)  # type: ignore[arg-type]  # params' values are str or a triple
    return None


def collapse(value) -> str:
    """A parameter value as text: an RFC 2231 triple decoded with its charset.

    A charset that is no text charset (idna, punycode, rot13, an unknown
    name) is not used: the octets are read as Latin-1, one character each,
    as a client that does not know the label shows them.  `boundary*=idna''...`
    raised UnicodeError here, the message was read as raw text and its
    parts never decoded (+5.39 became +0.02)."""
    if not isinstance(value, tuple):
        return _unquote(value)
    charset, _, text = value
    raw = text.encode("raw-unicode-escape")
    from .charsets import codec_for

    codec = "us-ascii" if charset is None else codec_for(charset)
    try:
        return str(raw, codec or "latin-1", "replace")
    except (LookupError, UnicodeError, ValueError):
        return raw.decode("latin-1")


def charset(fields: list[tuple[str, bytes]]) -> str | None:
    """The lower-case charset parameter of Content-Type, or None."""
    value = param(fields, "charset")
    if value is None:
        return None
    if isinstance(value, tuple):
        value = collapse(value)
    return value.strip().lower() if value.isascii() else None


def filename(fields: list[tuple[str, bytes]]) -> str:
    """Content-Disposition's filename, else Content-Type's name, else ""."""
    try:
        value = param(fields, "filename", "content-disposition")
        if value is None:
            value = param(fields, "name")
        return "" if value is None else collapse(value).strip()
    except Exception:  # a charset name that is no text codec, for one
        return ""


# --- transfer encodings ---

_ENCODINGS = frozenset({"7bit", "8bit", "binary", "quoted-printable", "base64",
                        "x-uuencode", "uuencode", "uue", "x-uue"})
# The encoding's token: blanks, a quote, then up to a blank, ";", "(" or quote.
_ENCODING_TOKEN = re.compile(rb'[ \t\r\n"]*+([^ \t\r\n;("]*+)')


def transfer_encoding(fields: list[tuple[str, bytes]]) -> str:
    """The lower-case Content-Transfer-Encoding, "" when none is known.

    The first field whose first token (case aside) is a known encoding wins:
    "BASE64 ", "base64 (comment)" and '"base64"' are base64 to a client (the
    trailing blank alone left a body undecoded here), and a garbage field
    before the real one is ignored, as an unusable Content-Type is."""
    for key, value in fields:
        if key == "content-transfer-encoding":
            token = _ENCODING_TOKEN.match(value).group(1).decode("latin-1").lower()  # type: ignore[union-attr]  # matches empty
            if token in _ENCODINGS:
                return token
    return ""


def transfer_decode(body: bytes, fields: list[tuple[str, bytes]]) -> bytes:
    """The body with its Content-Transfer-Encoding undone; the body as it is
    for an unknown encoding.  Junk in base64 is skipped, as binascii does."""
    encoding = transfer_encoding(fields)
    if encoding == "quoted-printable":
        return binascii.a2b_qp(body)
    if encoding == "base64":
        return _base64(body.replace(b"\r", b"").replace(b"\n", b""))
    if encoding in ("x-uuencode", "uuencode", "uue", "x-uue"):
        try:
            return _uudecode(body)
        except ValueError:
            return body
    return body


_PADDING = re.compile(rb"=+")
_ALL_BASE64 = re.compile(rb"[A-Za-z0-9+/=]*+")


def _base64(encoded: bytes) -> bytes:
    # Padding inside the data: each line (or chunk) was encoded on its own,
    # and a client decodes on after the padding, as Thunderbird's decoder
    # does group by group.  binascii (and so the email package) stops at the
    # first padding, which hid all but the first line of such a body.
    # Each padded piece is decoded alone (pieces are disjoint: linear).
    # Only for data that is all base64: text appended after the padding (a
    # mailing list's footer under a base64 body, 8-bit text mislabelled
    # base64) is left to the lenient reading, which stops at the padding.
    end = len(encoded.rstrip(b"="))
    if encoded.find(b"=", 0, end) >= 0 and _ALL_BASE64.fullmatch(encoded):
        return b"".join(_base64_piece(piece) for piece in _PADDING.split(encoded) if piece)
    return _base64_piece(encoded)


def _base64_piece(encoded: bytes) -> bytes:
    # Strictly with the padding fixed, else leniently (junk characters
    # skipped), else with padding added; undecodable data is left as it is.
    # The email package's order, so a body decodes to the same bytes.
    missing = b"==="[: -len(encoded) % 4] if len(encoded) % 4 else b""
    try:
        return binascii.a2b_base64(encoded + missing, strict_mode=True)
    except binascii.Error:
        pass
    for attempt in (encoded, encoded + b"=="):
        try:
            return binascii.a2b_base64(attempt)
        except binascii.Error:
            pass
    return encoded


# uuencoded data as the email package reads it (its _decode_uu, over
# bytes.splitlines' lines): from the first line "begin MODE ..." whose MODE
# is octal, up to a line "end" (blanks around it), an empty line before that
# making the whole body unreadable.  Read a block of lines at a time, each
# step of which runs in C (no Python step per line): 5 M short lines took
# 2.3 s and 500 MB when all lines and their decodings were held at once.
_UU_BEGIN_LINE = rb"begin ([^\r\n]*+)"
_UU_FIRST_BEGIN = re.compile(_UU_BEGIN_LINE)
_UU_BEGIN = re.compile(rb"[\r\n]" + _UU_BEGIN_LINE)  # a begin line after the first line
_LINE_BREAK = re.compile(rb"\r\n|\r|\n")
_UU_BLOCK = 1 << 16
# The characters a line needs for what its length byte announces, that byte
# included, by the byte's value.
_UU_LINE_LENGTH = bytes((((first - 32) & 63) * 4 + 5) // 3 for first in range(256))


def _begin_lines(encoded: bytes):
    first = _UU_FIRST_BEGIN.match(encoded)
    if first is not None:
        yield first
    yield from _UU_BEGIN.finditer(encoded)


def _uudecode(encoded: bytes) -> bytes:
    from operator import methodcaller

    for begin in _begin_lines(encoded):
        try:
            int(begin.group(1).partition(b" ")[0], 8)
        except ValueError:
            continue
        break
    else:
        raise ValueError("no begin line")
    line_break = _LINE_BREAK.match(encoded, begin.end())
    if line_break is None:
        return b""  # the begin line is the last line
    start, end = line_break.end(), len(encoded)
    out = []
    while start < end:  # whole lines: a block ends after a line break (CRLF is one)
        following = _LINE_BREAK.search(encoded, start + _UU_BLOCK) if start + _UU_BLOCK < end else None
        cut = end if following is None else following.end()
        lines = encoded[start:cut].splitlines()
        count = len(lines)
        if encoded.find(b"end", start, cut) >= 0:
            stripped = list(map(methodcaller("strip", b" \t\r\n\f"), lines))
            if b"end" in stripped:
                count = stripped.index(b"end")
        if b"" in lines and lines.index(b"") < count:
            raise ValueError("truncated")
        ended = count < len(lines)
        if ended:
            del lines[count:]
        try:
            out.append(b"".join(map(binascii.a2b_uu, lines)))
        except binascii.Error:
            # Broken encoders: each line cut to what its length byte
            # announces (the email package does so for a line that fails
            # whole; a line that decodes whole decodes the same cut so).
            a2b_uu, length = binascii.a2b_uu, _UU_LINE_LENGTH
            out.append(b"".join([a2b_uu(line[:length[line[0]]]) for line in lines]))
        if ended:
            break
        start = cut
    return b"".join(out)


# --- the part tree ---

class Part:
    """A leaf of the MIME tree: its header fields, content type and raw body
    (transfer encoding not undone)."""

    __slots__ = ("fields", "content_type", "body")

    def __init__(self, fields: list[tuple[str, bytes]], ctype: str, body: bytes) -> None:
        self.fields = fields
        self.content_type = ctype
        self.body = body


# A boundary line: "--" boundary, "--" for the closing one, then the line
# end, or a blank and anything up to the line end.  RFC 2046 5.1.1 asks
# implementors to match the boundary at the start of the line, not the
# whole line; mime4j does, and a client that does shows the parts of
# "--b1 x" lines, which we read as one undecoded body (-6.65).  The rest
# must start with a blank: "--b1x" or "--b1--x" may be the line of
# another boundary that starts with this one (a nested multipart's
# "b1x"), which a reader that matched prefixes alone would cut apart.
# The search includes the line end before it, so a match is always at
# a line start and a bytes search skips everything else; the rest of
# the line is read once (possessive), so the search stays linear.
_BOUNDARY_TAIL = rb"(--)?(?:[ \t][^\r\n]*+)?(?:\r\n|\r|\n|\Z)"
_BOUNDARY_REST = re.compile(_BOUNDARY_TAIL)
# Boundaries up to this long go into a regular expression; re's compiler
# takes a Python step per character (a boundary of 1 MB took 3 s), so a
# longer one is found by bytes.find instead, at a Python step per line,
# which its length bounds (RFC 2046 allows 70 characters).
_COMPILED_BOUNDARY = 100


def _boundary_search(boundary: bytes):
    """(search, skip_run).  search(data, position, end): the first boundary
    line whose line end before it is at or after `position`, as a match
    (start() is that line end, end() the line's end, group(1) "--" on the
    closing line), or None.  skip_run(data, position, end), for a compiled
    boundary (else None): a match over the boundary lines that are not the
    closing one and end with a line end, one after another from `position`
    (a run of 2 M such lines took 1.4 s a line at a time)."""
    if len(boundary) <= _COMPILED_BOUNDARY:
        marker = b"--" + re.escape(boundary)
        return (re.compile(b"[\r\n]" + marker + _BOUNDARY_TAIL).search,
                re.compile(b"(?:" + marker + rb"(?:[ \t][^\r\n]*+)?(?:\r\n|\r|\n))*+").match)
    return _LongBoundary(boundary).search, None


class _LongBoundary:
    """The boundary line search of a long boundary: a bytes.find of the line
    end before the line and "--" boundary (a CR or an LF: the boundary holds
    neither, so the finds of one never overlap), each find remembered until a
    search starts past what it found (_split's searches only go forward), then
    the rest of the line as the pattern reads it."""

    __slots__ = ("marks", "found")

    def __init__(self, boundary: bytes) -> None:
        self.marks = (b"\n--" + boundary, b"\r--" + boundary)
        self.found = [-2, -2]  # per mark: where it was found, -1 nowhere further, -2 not looked for

    def search(self, data: bytes, position: int, end: int):
        while True:
            for which in (0, 1):
                if self.found[which] == -2 or 0 <= self.found[which] < position:
                    self.found[which] = data.find(self.marks[which], position, end)
            at_lf, at_cr = self.found
            if at_lf < 0 and at_cr < 0:
                return None
            at = at_cr if at_lf < 0 or 0 <= at_cr < at_lf else at_lf
            rest = _BOUNDARY_REST.match(data, at + len(self.marks[0]), end)
            if rest is not None:
                return _BoundaryLine(at, rest)
            position = at + 1


class _BoundaryLine:
    """A boundary line found by _LongBoundary, read as a match of the pattern."""

    __slots__ = ("at", "rest")

    def __init__(self, at: int, rest) -> None:
        self.at, self.rest = at, rest

    def start(self) -> int:
        return self.at

    def end(self) -> int:
        return self.rest.end()

    def group(self, number: int):
        return self.rest.group(number)


def _split(data: bytes, start: int, end: int, boundary: str, limit: int):
    """The part ranges of a multipart body in data[start:end] (at most `limit`),
    or None when no boundary line appears at all.  A run of boundary lines
    opens one part (the email package's reading); a missing closing line
    ends the last part at `end`.

    No client shows a preamble or an epilogue, so neither is read: when the
    closing line comes first the multipart has no part ([]), and a closing
    line inside a run of boundary lines ends the multipart.  (The email
    package reads "--b", "--b--" as a run and the epilogue after it as a
    part, which let hidden ham text pull a spam down by 1.08; the preamble
    of a nested multipart with no parts was read as its body, -1.17.)"""
    if not boundary.isascii() or "\r" in boundary or "\n" in boundary:
        return None  # 8-bit: no line can match it
    search, skip_run = _boundary_search(boundary.encode("ascii"))
    # A body starts after a line end (the search needs it): never at offset 0.
    found = search(data, max(start - 1, 0), end)
    if found is None:
        return None
    ranges: list[tuple[int, int]] = []
    if found.group(1):
        return ranges
    while True:
        line_end = found.end()
        if skip_run is not None:
            line_end = skip_run(data, line_end, end).end()  # matches empty
        following = search(data, line_end - 1, end)
        while following is not None and following.start() + 1 == line_end:
            if following.group(1):
                return ranges
            line_end = following.end()
            following = search(data, line_end - 1, end)
        if following is None:
            ranges.append((line_end, end))
            return ranges
        ranges.append((line_end, following.start() + 1))
        if following.group(1) or len(ranges) >= limit:
            return ranges
        found = following


def _blocks(data: bytes, start: int, end: int, limit: int) -> list[tuple[int, int]]:
    # message/delivery-status: header blocks separated by blank lines.
    out: list[tuple[int, int]] = []
    position = start
    while len(out) < limit:
        if position < end and data[position] in b"\r\n":
            blank = position
        else:
            found = _BLANK_LINE.search(data, position, end)
            blank = end if found is None else _EOL.match(data, found.start()).end()  # type: ignore[union-attr]  # at a line break _EOL always matches
        out.append((position, blank))
        if blank >= end:
            break
        position = _EOL.match(data, blank, end).end()  # type: ignore[union-attr]  # at a line break _EOL always matches
        if position >= end:
            break
    return out


def _strip_line_end(body: bytes) -> bytes:
    # The line end before a boundary line belongs to the boundary (RFC 2046).
    if body.endswith(b"\r\n"):
        return body[:-2]
    if body.endswith((b"\n", b"\r")):
        return body[:-1]
    return body


class AttachedHeaders:
    """The header block of an attached message (message/rfc822, a digest's
    entries), handed out before its parts: a mail client shows its Subject
    and From above the attached message's text."""

    __slots__ = ("fields",)

    def __init__(self, fields: list[tuple[str, bytes]]) -> None:
        self.fields = fields


# message/* types whose body is a whole message a client shows inline, with
# its header summary (message/partial and external-body are not).
_ATTACHED_MESSAGES = frozenset({"message/rfc822", "message/global", "message/news"})


def parse(data: bytes, max_parts: int, max_depth: int):
    """(top-level header fields, iterator of the leaf Parts in reading order).

    At most `max_parts` entities (containers included) are visited, and the
    children of an entity at depth `max_depth` are not.  A multipart whose
    boundary never appears is a leaf holding its whole body, unless it is
    itself a part of a multipart: then it has nothing to show; a message/*
    part holds a nested message, message/delivery-status one per header
    block.  An attached message's header block comes first as AttachedHeaders.
    """
    fields, body_start, pushback = read_headers(data, 0, len(data))
    return fields, _walk(data, fields, body_start, pushback, max_parts, max_depth)


def _walk(data, top_fields, top_body, top_pushback, max_parts, max_depth):
    # Each entry: (fields or None, start, end, default type, strip, depth,
    # pushed-back line, whether it is an attached message, whether it is a
    # part of a multipart).  An entity's header block is read when it is
    # visited, so the bounds also bound the work.
    stack = [(top_fields, top_body, len(data), "text/plain", False, 0, top_pushback, False, False)]
    seen = 0
    while stack and seen < max_parts:
        fields, start, end, default, strip, depth, pushback, attached, in_multipart = stack.pop()
        seen += 1
        if fields is None:
            fields, start, pushback = read_headers(data, start, end)
        if attached:
            yield AttachedHeaders(fields)
        ctype = content_type(fields, default)
        children = None
        limit = max_parts - seen if depth < max_depth else 1
        if ctype == "message/delivery-status":
            children = [(None, s, e, "text/plain", False, depth + 1, b"", False, False)
                        for s, e in _blocks(data, start, end, limit)]
            if children:  # the email package strips the last block's line end, as a part's
                children[-1] = children[-1][:4] + (strip,) + children[-1][5:]
        elif ctype.startswith("message/"):
            children = [(None, start, end, "text/plain", strip, depth + 1, b"", ctype in _ATTACHED_MESSAGES, False)]
        elif ctype.startswith("multipart/"):
            boundary = param(fields, "boundary")
            if boundary is not None:
                boundary = collapse(boundary).rstrip()
                ranges = _split(data, start, end, boundary, max(limit, 1))
                if ranges is not None:
                    kind = "message/rfc822" if ctype == "multipart/digest" else "text/plain"
                    children = [(None, s, e, kind, True, depth + 1, b"", False, True) for s, e in ranges]
            if children is None:
                # No boundary line at all.  A message so (top level, or an
                # attached one) is one body to a client, and read as one
                # (no line end stripped).  A part of a multipart so shows
                # nothing: all it holds is a preamble, which no client
                # shows (ham words there took an evasion pair's spam from
                # +6.06 to +2.49 log-odds on the sample model).
                # No message of the shared corpora has such a part.
                if not in_multipart:
                    yield Part(fields, ctype, pushback + data[start:end])
                continue
        else:
            body = pushback + data[start:end]
            yield Part(fields, ctype, _strip_line_end(body) if strip else body)
            continue
        if depth < max_depth:
            stack.extend(reversed(children))
