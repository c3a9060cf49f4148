"""Address lists (the core's parse_addresses and decode_addresses, core/src/mail):
the pairs the email package gives, split before display names are decoded,
and never an exception."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spamnb.text.tokens import TokenizerOptions, message_tokens

import core_mail


@pytest.fixture(scope="module")
def decoder():
    """The core's decoder in the shape of the deleted spamnb.mail.message (tests/core_mail.py)."""
    return core_mail.message


@pytest.fixture(scope="module")
def address_parser():
    return core_mail.addresses


@pytest.mark.parametrize("value,expected", [
    ('"Smith, John" <j@x.example>, b@y.example', [("Smith, John", "j@x.example"), ("", "b@y.example")]),
    ("j@x.example (John Smith)", [("John Smith", "j@x.example")]),
    ("John (the boss) <j@x.example>", [("John (the boss)", "j@x.example")]),
    ("((nested) comment) j@x.example", [("nested comment", "j@x.example")]),
    ("undisclosed-recipients:;", [("", "")]),  # as email.utils.getaddresses gives
    ("team: a@x.example, b@y.example;, c@z.example",
     [("", "a@x.example"), ("", "b@y.example"), ("", "c@z.example")]),
    ("<@relay.example:j@x.example>", [("", "j@x.example")]),
    ("<>", [("", "")]),
    ("", []),
    ('"unterminated <a@b.example>', [("", "unterminated <a@b.example>")]),
    ("a@b.example,,", [("", "a@b.example"), ("", "")]),
])
def test_address_lists(address_parser, value, expected):
    assert address_parser.parse_addresses(value) == expected


def test_addresses_split_while_encoded_and_never_raise(decoder):
    assert decoder.decode_addresses(b"=?utf-8?Q?Smith=2C_John?= <j@x.example>") == [("Smith, John", "j@x.example")]
    assert decoder.decode_addresses("\u5f20\u4e09 <z@x.cn>".encode("gb2312")) == [("张三", "z@x.cn")]
    for garbage in ("<<<>>>", "(((", '"', "@@@", ":" * 5000 + "a@b", "(" * 100_000, "\\" * 10):
        assert isinstance(decoder.decode_addresses(garbage), list)


def test_addresses_are_split_before_display_names_are_decoded(decoder):
    assert decoder.decode_addresses("=?utf-8?Q?service=40paypal.com_=3Cservice=40paypal.com=3E?= <bot@spam.example>") == [
        ("service@paypal.com <service@paypal.com>", "bot@spam.example")]
    assert decoder.decode_addresses("=?utf-8?Q?Smith=2C_John?= <j@x.example>") == [("Smith, John", "j@x.example")]
    tokens = message_tokens(b"From: =?utf-8?Q?service=40paypal.com?= <bot@spam.example>\n\nhi\n",
                            TokenizerOptions(stopwords=frozenset()))
    assert "from:domain:spam.example" in tokens and "from:domain:paypal.com" not in tokens


ADDRESS_ALPHABET = ' \t\r\n()<>@,:;."[]\\ab.xyz\u5f20\udcc4'


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(alphabet=ADDRESS_ALPHABET, max_size=40))
def test_address_parsing_matches_the_email_package(address_parser, value):
    # The parser is a port of email._parseaddr; the email package is the
    # oracle here (only tests import it).
    assert address_parser.parse_addresses(value) == lenient_getaddresses(value)


def lenient_getaddresses(value):
    """email.utils.getaddresses as ported: the lenient reading.

    Releases since the CVE-2023-27043 fix (3.11.10, 3.12.6, 3.13) take a
    `strict` argument, True by default, that turns malformed lists into
    [('', '')]; a mail client reads them leniently, as the port does.  The
    argument is passed explicitly wherever it exists.
    """
    import inspect
    from email.utils import getaddresses

    if "strict" in inspect.signature(getaddresses).parameters:
        return getaddresses([value], strict=False)
    return getaddresses([value])
