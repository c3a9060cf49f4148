"""Evasion pairs (issue 17): one malformed header or line must not change
what spamnb reads of a message, when a mail client still shows it the same.

Each case of evasion_cases.py builds a control message and the same message
attacked; with a model trained on sample_data (the `sample_model` fixture)
the attacked message's log-odds must stay within TOLERANCE of the
control's.  Before this work (main at 02385c9) the attacked messages lost
up to 8.9 log-odds (RELIABILITY.md, "Hostile mail: evasion"); now they
lose none, so the tolerance only allows for a token or two that an attack
adds (a parameter's name, an attachment's type).
"""

import pytest

from evasion_cases import CASES, HAM_TEXT, HEAD, SPAM_TEXT, message
from spamnb.message import decode_message
from spamnb.scorer import Scorer
from spamnb.tokens import TokenizerOptions, message_tokens

# Log-odds an attack may move a message: 4 % of the controls' +6.2, a
# twentieth of the smallest effect measured before the fixes (-0.31 for
# base64 padded line by line; the flaws cost 1 to 9).
TOLERANCE = 0.25
# Every control must be spam with this margin, so that a lost body (which
# takes the message to about -2.7 on this model) would fail the test.
CONTROL_AT_LEAST = 3.0


@pytest.fixture(scope="module")
def scorer(sample_model):
    return Scorer.open(sample_model)


@pytest.mark.parametrize("name", list(CASES))
def test_evasion_pair(scorer, name):
    control, attacked = CASES[name]()
    assert control != attacked
    before = scorer.score_message(control)
    after = scorer.score_message(attacked)
    assert before.log_odds >= CONTROL_AT_LEAST, (name, before.log_odds)
    assert abs(after.log_odds - before.log_odds) <= TOLERANCE, (name, before.log_odds, after.log_odds)
    assert after.label == before.label


def words(raw: bytes) -> list[str]:
    return message_tokens(decode_message(raw), TokenizerOptions(bigrams=False))


def test_hidden_text_is_not_read():
    # Epilogues and the preamble of a multipart without parts: no client shows them.
    for name in ("epilogue-after-an-empty-part", "preamble-of-a-nested-multipart-without-parts"):
        control, attacked = CASES[name]()
        assert "february" in words(HAM_TEXT.encode()) and "february" not in words(attacked), name
        assert words(attacked) == words(control), name


def test_attached_message_subject_and_from_are_read():
    inner = ("Subject: claim your refund\nFrom: Refund Desk <desk@offers.example>\n"
             "Content-Type: text/plain\n\n").encode() + SPAM_TEXT.encode()
    raw = message(HEAD + ['Content-Type: multipart/mixed; boundary="m"'],
                  b"--m\nContent-Type: text/plain\n\nsee below\n--m\nContent-Type: message/rfc822\n\n"
                  + inner + b"\n--m--\n")
    decoded = decode_message(raw)
    assert decoded.texts[:2] == ["see below", "claim your refund\nRefund Desk <desk@offers.example>"]
    tokens = words(raw)
    assert {"refund", "desk", "email:addr:desk@offers.example"} <= set(tokens)
    assert "subject:refund" not in tokens  # not this message's own Subject


def test_text_attachment_is_read_and_still_counted_as_an_attachment():
    _, attacked = CASES["text-attachment-shown-inline"]()
    decoded = decode_message(attacked)
    assert decoded.attachments == [("text/plain", "offer.txt")]
    assert "relief" in words(attacked) and "attach:ext:txt" in words(attacked)
    # Other attached types stay attachments, unread.
    html = attacked.replace(b"text/plain; charset", b"text/html; charset")
    assert "relief" not in words(html)


def test_the_size_cap_cuts_on_a_character_and_keeps_the_charset():
    control, attacked = CASES["utf8-cut-inside-a-character"]()
    a, b = decode_message(control).texts[0], decode_message(attacked).texts[0]
    assert a == b and "尊敬的客户" in b and "\ufffd" not in b


def test_every_rfc2231_oddity_leaves_the_part_readable():
    # Section numbers too long for int(), non-charset codecs, unknown names, empty values.
    for extra in ("x*" + "9" * 5000 + "*=a", "x*99999*=a", "charset*=idna''utf-8", "charset*=punycode''utf-8",
                  "x*=klingon''%FF", "x*0*=''", "name*=rot13''abc", "boundary*=undefined''q"):
        raw = message(HEAD + [f'Content-Type: text/plain; charset="utf-8"; {extra}'], SPAM_TEXT.encode())
        decoded = decode_message(raw)
        assert not decoded.parse_failed and decoded.texts == [SPAM_TEXT], extra


def test_nul_and_invisible_characters_do_not_split_words():
    raw = message(["Subject: fr\x00ee mo\u200bney"], "cl\x00aim mo\u00adney re\ufefffund".encode("utf-8"))
    tokens = words(raw)
    assert {"subject:free", "subject:money", "claim", "money", "refund"} <= set(tokens)


def test_garbage_content_type_alone_is_text_plain():
    # RFC 2045 5.2: with no usable Content-Type a part is text/plain.
    raw = message(["Content-Type: garbage", "Content-Transfer-Encoding: base64"], b"aGVsbG8gd29ybGQ=\n")
    assert decode_message(raw).texts == ["hello world"]


def test_first_usable_content_type_wins():
    raw = message(["Content-Type: text/html", "Content-Type: text/plain"], b"<p>a &amp; b</p>\n")
    assert decode_message(raw).texts[0].strip() == "a & b"

