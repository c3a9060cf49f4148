"""The Rust core's mail stage (spamnb._core) in the shapes of the Python
modules it replaced (spamnb.mail.mime, .addresses, .message, .digest, all
deleted), so that the tests written against those modules read on: the
`mime`, `message`, `addresses` and `digest` namespaces below, and a
`DecodedMessage` built from the tuple `_core.decode_message` returns.

`IMPLEMENTATIONS` once held the Python modules beside these; only the core
is left, and tests parametrized over it now run once.
"""

from __future__ import annotations

import types

from spamnb import _core


class DecodedMessage:
    """What the tokenizer reads of one message (the shape of the deleted
    spamnb.mail.message.DecodedMessage; `_core.message_tokens` reads these
    attributes).

    headers: (lower-case field name, decoded value) for each top-level header, in order.
    addresses: for address fields (From, To, Cc...), (decoded display name, address) pairs.
    texts: decoded text of each text part; HTML parts reduced to their visible text.
    urls: link and image targets found in HTML parts.
    attachments: (content type, file name or "") of each non-text part.
    parse_failed: the MIME structure could not be parsed; the raw bytes were read as text.
    cut: which bounds on work the message ran into.
    """

    __slots__ = ("headers", "addresses", "texts", "urls", "attachments", "parse_failed", "cut")

    def __init__(self, headers=None, addresses=None, texts=None, urls=None, attachments=None,
                 parse_failed: bool = False, cut=None) -> None:
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

    __hash__ = None  # type: ignore[assignment]


class Part:
    __slots__ = ("fields", "content_type", "body")

    def __init__(self, fields, ctype, body) -> None:
        self.fields, self.content_type, self.body = fields, ctype, body


class AttachedHeaders:
    __slots__ = ("fields",)

    def __init__(self, fields) -> None:
        self.fields = fields


def _parse(data: bytes, max_parts: int, max_depth: int):
    fields, entities = _core.parse(data, max_parts, max_depth)
    return fields, iter([Part(*entity[1:]) if entity[0] == "part" else AttachedHeaders(entity[1])
                         for entity in entities])


def decode_message(raw: bytes, wanted_header=None) -> DecodedMessage:
    """The core's decoder, its tuple as a DecodedMessage."""
    return DecodedMessage(*_core.decode_message(raw, wanted_header))


mime = types.SimpleNamespace(
    read_headers=_core.read_headers, field=_core.field, content_type=_core.content_type, charset=_core.charset,
    filename=_core.filename, params=_core.params, params_cut=_core.params_cut, transfer_decode=_core.transfer_decode,
    parse=_parse, Part=Part, AttachedHeaders=AttachedHeaders, MAX_FIELDS=_core.MAX_FIELDS,
    MAX_PARAMS=_core.MAX_PARAMS, CUT_FIELD=_core.CUT_FIELD)
message = types.SimpleNamespace(
    decode_message=decode_message, decode_header_value=_core.decode_header_value,
    decode_addresses=_core.decode_addresses, visible=_core.visible, DecodedMessage=DecodedMessage,
    MAX_PARTS=_core.MAX_PARTS, MAX_DEPTH=_core.MAX_DEPTH, MAX_TEXT_CHARS=_core.MAX_TEXT_CHARS,
    MAX_HEADER_BYTES=_core.MAX_HEADER_BYTES, MAX_ADDRESSES=_core.MAX_ADDRESSES,
    ADDRESS_FIELDS=frozenset(_core.ADDRESS_FIELDS))
addresses = types.SimpleNamespace(parse_addresses=_core.parse_addresses)
digest = types.SimpleNamespace(message_digest=_core.message_digest)

IMPLEMENTATIONS = {"rust": (mime, message, addresses, digest)}
