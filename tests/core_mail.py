"""The Rust core's mail stage (spamnb._core) in the shapes of the Python
modules spamnb.mail.mime, .addresses, .message and .digest, so that one test
can run against either: `IMPLEMENTATIONS` holds both, and the tests of
those modules are parametrized over it.

The Rust decoder calls the charset and HTML stages; where this core build
has them as stubs, `needs_decoding` skips a Rust case instead of failing it.
"""

from __future__ import annotations

import types

import pytest

from spamnb import _core
from spamnb.mail import addresses as py_addresses
from spamnb.mail import digest as py_digest
from spamnb.mail import message as py_message
from spamnb.mail import mime as py_mime


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


def _decode_message(raw: bytes, wanted_header=None):
    headers, addresses, texts, urls, attachments, parse_failed, cut = _core.decode_message(raw, wanted_header)
    return py_message.DecodedMessage(headers, addresses, texts, urls, attachments, parse_failed, cut)


mime = types.SimpleNamespace(
    read_headers=_core.read_headers, field=_core.field, content_type=_core.content_type, charset=_core.charset,
    filename=_core.filename, params=_core.params, params_cut=_core.params_cut, transfer_decode=_core.transfer_decode,
    parse=_parse, Part=Part, AttachedHeaders=AttachedHeaders, MAX_FIELDS=py_mime.MAX_FIELDS,
    MAX_PARAMS=py_mime.MAX_PARAMS, CUT_FIELD=py_mime.CUT_FIELD)
message = types.SimpleNamespace(
    decode_message=_decode_message, decode_header_value=_core.decode_header_value,
    decode_addresses=_core.decode_addresses, visible=_core.visible, DecodedMessage=py_message.DecodedMessage,
    MAX_PARTS=py_message.MAX_PARTS, MAX_DEPTH=py_message.MAX_DEPTH, MAX_TEXT_CHARS=py_message.MAX_TEXT_CHARS,
    MAX_HEADER_BYTES=py_message.MAX_HEADER_BYTES, MAX_ADDRESSES=py_message.MAX_ADDRESSES,
    ADDRESS_FIELDS=py_message.ADDRESS_FIELDS)
addresses = types.SimpleNamespace(parse_addresses=_core.parse_addresses)
digest = types.SimpleNamespace(message_digest=_core.message_digest)

IMPLEMENTATIONS = {"python": (py_mime, py_message, py_addresses, py_digest), "rust": (mime, message, addresses, digest)}


def _decoding_in_core() -> bool:
    try:
        _core.decode_message(b"Content-Type: text/html\n\n<p>x</p>")
        return True
    except BaseException as error:  # pyo3's PanicException derives from BaseException
        if type(error).__name__ == "PanicException":
            return False
        raise


DECODING_IN_CORE = _decoding_in_core()


def needs_decoding(implementation) -> None:
    """Skip a Rust case that decodes charsets or HTML when the core has them as stubs."""
    if implementation in IMPLEMENTATIONS["rust"] and not DECODING_IN_CORE:
        pytest.skip("charsets and htmltext are not in this core build yet")
