"""The reading rules that keep evasion pairs alike (tests/mail/test_evasion.py)
stay linear in their input: the scaling check of test_scaling.py on the
shapes those rules read."""

import pytest

from spamnb import _core
from test_scaling import assert_linear, decode_and_tokenize

# Sizes keep each shape under the per-message bounds (2,000 fields, 500
# parts, 500,000 characters of text), so that the rule itself is timed; the
# two cheapest per byte are sized up for the core.
EVASION_SHAPES = {
    "junk lines before a field": (lambda n: b"Subject: a\n" + b"junk line\n" * n + b"X-A: b\n\nbody\n", 400000),
    "a junk line, then no field and no blank line": (
        lambda n: b"Subject: a\njunk line\n" + b"more words here\n" * n, 12000),
    "attached messages nested, each with a junk line": (
        lambda n: b"Content-Type: message/rfc822\njunk\n" * 50 + b"words here\n" * n, 15000),
    "blanks before the colon": (lambda n: b"X-A" + b" " * n + b": b\nX" + b" " * n + b"y\n\nbody\n", 200000),
    "boundary lines with trailing text": (
        lambda n: b"Content-Type: multipart/mixed; boundary=b\n\n" + (b"--b " + b"t" * n + b"\n\nword\n") * 20,
        200000),
    "boundary lines that close in a run": (
        lambda n: b"Content-Type: multipart/mixed; boundary=b\n\n" + b"--b\n" * n + b"--b--\nepilogue\n", 1000000),
    "base64 padded in every group": (
        lambda n: b"Content-Transfer-Encoding: base64\n\n" + b"d29yZA==" * n, 50000),
    "soft hyphens inside words": (lambda n: "Subject: x\n\n".encode() + "fr\u00adee mo\u00adney ".encode() * n, 20000),
}


@pytest.mark.timing
@pytest.mark.parametrize("shape", list(EVASION_SHAPES))
def test_evasion_rules_are_linear(shape):
    make, n = EVASION_SHAPES[shape]
    assert_linear(decode_and_tokenize, make, n)


@pytest.mark.timing
def test_unfolding_parameters_is_linear():
    # The header bytes bound keeps a whole message's field short: the parameter reader alone.
    assert_linear(_core.params, lambda n: b"text/plain; a=\r\n " + b"b\r\n " * n + b"; c=d", 1000000)
