"""JSON through the standard library's C codec, without the `json` package's imports.

`import json` pulls in `re` and, through it, `enum` and `functools`, and
compiles json's patterns: 7.5 ms of a fresh scoring process, 11 ms of a
bare one (BENCHMARKS.md, "Private CPython modules on the cold path").  The parsing and the writing themselves are C
(`_json`, the module `json` wraps), and so are the two calls here; what
they skip is only the Python around them.  The results are json's own:
`loads` runs the very scanner `json.loads` runs, and `dumps` the encoder
`json.dumps` runs for one-line output (tests/test_jsoncodec.py compares
them).  `_json` is part of every CPython build.
"""

from __future__ import annotations

import _json

_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}
_WHITESPACE = " \t\n\r"


class _Context:
    """What the C scanner reads off a json.JSONDecoder: its defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__
    memo: dict = {}


# typeshed types the context as a JSONDecoder; the scanner reads only these attributes.
_scan = _json.make_scanner(_Context())  # type: ignore[arg-type]


def loads(text: str | bytes | bytearray | memoryview):
    """json.loads: the value in `text` (bytes are read as UTF-8).  Raises
    ValueError (json.JSONDecodeError, a ValueError, from the scanner itself)
    for anything that is not one JSON value with nothing after it."""
    if isinstance(text, (bytes, bytearray, memoryview)):
        text = bytes(text).decode("utf-8")  # UnicodeDecodeError is a ValueError too
    elif not isinstance(text, str):
        raise TypeError(f"JSON is read from str or bytes, not {type(text).__name__}")
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _scan(text, start)
    except StopIteration as stopped:  # its value: where the scanner found no value
        raise ValueError(f"not JSON at character {stopped.value}") from None
    if text[end:].strip(_WHITESPACE):
        raise ValueError(f"extra data after the JSON value at character {end}")
    return value


def dumps(value, ensure_ascii: bool = True, allow_nan: bool = True, sort_keys: bool = False) -> str:
    """json.dumps(value, ensure_ascii=..., allow_nan=..., sort_keys=...) on
    one line, with json's default separators: json.dumps hands such a call to
    this same C encoder, so the text is the same to the byte.  Raises ValueError for a float that is not
    finite when `allow_nan` is false, TypeError for what JSON cannot hold."""
    escape = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
    if isinstance(value, str):  # as json.dumps does
        return escape(value)
    # A new encoder each call, as json.dumps makes one: its circular-reference
    # markers must start empty even after a call that raised.
    encoder = _json.make_encoder({}, _not_serialisable, escape, None, ": ", ", ", sort_keys, False, allow_nan)
    return "".join(encoder(value, 0))


def _not_serialisable(value):
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
