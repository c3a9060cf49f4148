"""A message's identity for "have I learned this before?".

The digest is SHA-256 (first 8 bytes) of the message with what delivery
changes taken out: the mbox From_ envelope line, CRLF line ends, and our own
status header, so a message learned straight from a folder and the same
message after `spamnb filter` added its header are one message.
"""

from __future__ import annotations

import re

STATUS_HEADER = "X-Spamnb-Status"
# The value `spamnb filter` writes (filtering.status_value), whatever the
# field's name (`--header X-Custom`): `Yes, score=0.9987, log-odds=6.64,
# model=NAME` and maybe `, reason="…"`.  A field holding it is taken out of
# the digest and never tokenized, as the fields of the known names are.
STATUS_VALUE = r"(?:Yes|No|Unsure), score=[0-9.]+, log-odds=[-+]?(?:[0-9.]+|inf), model="


def status_header_pattern(name: str = STATUS_HEADER) -> re.Pattern:
    """Lines of the named header field, folded continuation lines included."""
    return re.compile(rb"^" + re.escape(name.encode("ascii")) + rb":[^\n]*\n(?:[ \t][^\n]*\n)*",
                      re.IGNORECASE | re.MULTILINE)


_STATUS = status_header_pattern()
# What spamnb's filter and spamd add, in either style, and a status field of
# any other name (`filter --header X-Custom`), known by its value: taken out
# before hashing, so a filtered message is the same message to `learn`.
_ANY_STATUS = re.compile(rb"^[\x21-\x39\x3b-\x7e]+:[ \t]*" + STATUS_VALUE.encode("ascii")
                         + rb"[^\n]*\n(?:[ \t][^\n]*\n)*", re.MULTILINE)
_ADDED = [_STATUS, _ANY_STATUS] + [status_header_pattern(name)
                                   for name in ("X-Spam-Flag", "X-Spam-Level", "X-Spam-Status")]


def _sha256():
    """SHA-256 from its C module: hashlib loads OpenSSL's libcrypto first, 3 ms
    of a fresh `learn`.  Imported here, not above: the tokenizer imports
    STATUS_VALUE on the scoring path."""
    try:
        from _sha256 import sha256  # type: ignore[import-not-found]  # CPython's private C module, no stubs
    except ImportError:  # Python 3.12 calls it _sha2; builds without it have hashlib's
        try:
            from _sha2 import sha256  # type: ignore[import-not-found]  # as _sha256, from Python 3.12
        except ImportError:
            from hashlib import sha256
    return sha256


def message_digest(raw: bytes) -> int:
    sha256 = _sha256()

    data = raw.replace(b"\r\n", b"\n")
    if data.startswith(b"From "):
        data = data.split(b"\n", 1)[1] if b"\n" in data else b""
    head, separator, body = data.partition(b"\n\n")
    head += b"\n"
    for pattern in _ADDED:
        head = pattern.sub(b"", head)
    head = head[:-1]
    return int.from_bytes(sha256(head + separator + body).digest()[:8], "little")
