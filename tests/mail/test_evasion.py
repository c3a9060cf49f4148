"""Evasion pairs: one malformed header or line must not change
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
from spamnb.model.scorer import Scorer
from spamnb.text.tokens import TokenizerOptions, message_tokens

# Log-odds an attack may move a message: 8 % of the controls' +3.1, a
# twentieth of the smallest effect measured before the fixes (-0.31 for
# base64 padded line by line; the flaws cost 1 to 9).
TOLERANCE = 0.25
# Every control must lean to spam by this much, so that a lost body (which
# takes the message to 0 or below on this model: its header fields alone
# are ham-ish or too few for a verdict) would fail the test.
CONTROL_AT_LEAST = 2.5


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
    return message_tokens(raw, TokenizerOptions(bigrams=False))


def test_hidden_text_is_not_read():
    # Epilogues and the preamble of a nested multipart without parts: no client shows them.
    for name in ("epilogue-after-an-empty-part", "preamble-of-a-nested-multipart-without-parts",
                 "preamble-of-a-nested-multipart-whose-boundary-never-occurs"):
        control, attacked = CASES[name]()
        assert "february" in words(HAM_TEXT.encode()) and "february" not in words(attacked), name
        assert words(attacked) == words(control), name


def test_attached_message_subject_and_from_are_read(decoder):
    inner = ("Subject: claim your refund\nFrom: Refund Desk <desk@offers.example>\n"
             "Content-Type: text/plain\n\n").encode() + SPAM_TEXT.encode()
    raw = message(HEAD + ['Content-Type: multipart/mixed; boundary="m"'],
                  b"--m\nContent-Type: text/plain\n\nsee below\n--m\nContent-Type: message/rfc822\n\n"
                  + inner + b"\n--m--\n")
    decoded = decoder.decode_message(raw)
    assert decoded.texts[:2] == ["see below", "claim your refund\nRefund Desk <desk@offers.example>"]
    tokens = words(raw)
    assert {"refund", "desk", "email:addr:desk@offers.example"} <= set(tokens)
    assert "subject:refund" not in tokens  # not this message's own Subject


def test_text_attachment_is_read_and_still_counted_as_an_attachment(decoder):
    _, attacked = CASES["text-attachment-shown-inline"]()
    decoded = decoder.decode_message(attacked)
    assert decoded.attachments == [("text/plain", "offer.txt")]
    assert "relief" in words(attacked) and "attach:ext:txt" in words(attacked)
    # Other attached types stay attachments, unread.
    html = attacked.replace(b"text/plain; charset", b"text/html; charset")
    assert "relief" not in words(html)


def test_the_size_cap_cuts_on_a_character_and_keeps_the_charset(decoder):
    control, attacked = CASES["utf8-cut-inside-a-character"]()
    a, b = decoder.decode_message(control).texts[0], decoder.decode_message(attacked).texts[0]
    assert a == b and "尊敬的客户" in b and "\ufffd" not in b


def test_every_rfc2231_oddity_leaves_the_part_readable(decoder):
    # Section numbers too long for int(), non-charset codecs, unknown names, empty values.
    for extra in ("x*" + "9" * 5000 + "*=a", "x*99999*=a", "charset*=idna''utf-8", "charset*=punycode''utf-8",
                  "x*=klingon''%FF", "x*0*=''", "name*=rot13''abc", "boundary*=undefined''q"):
        raw = message(HEAD + [f'Content-Type: text/plain; charset="utf-8"; {extra}'], SPAM_TEXT.encode())
        decoded = decoder.decode_message(raw)
        assert not decoded.parse_failed and decoded.texts == [SPAM_TEXT], extra


def test_nul_and_invisible_characters_do_not_split_words():
    raw = message(["Subject: fr\x00ee mo\u200bney"], "cl\x00aim mo\u00adney re\ufefffund".encode("utf-8"))
    tokens = words(raw)
    assert {"subject:free", "subject:money", "claim", "money", "refund"} <= set(tokens)


def test_garbage_content_type_alone_is_text_plain(decoder):
    # RFC 2045 5.2: with no usable Content-Type a part is text/plain.
    raw = message(["Content-Type: garbage", "Content-Transfer-Encoding: base64"], b"aGVsbG8gd29ybGQ=\n")
    assert decoder.decode_message(raw).texts == ["hello world"]


def test_first_usable_content_type_wins(decoder):
    raw = message(["Content-Type: text/html", "Content-Type: text/plain"], b"<p>a &amp; b</p>\n")
    assert decoder.decode_message(raw).texts[0].strip() == "a & b"


# -- property: header mutations of real spam never keep its body from the scorer --
#
# A mail client reads past each of these mutations of a header block (see the
# pairs above); so must spamnb.  Real spam from ../shared/corpora, an evenly
# spaced sample of each corpus's spam; skipped when the corpora are absent.

import os
import re
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import core_mail
from core_mail import mime


@pytest.fixture(scope="module")
def decoder():
    """The core's decoder in the shape of the deleted spamnb.mail.message (tests/core_mail.py)."""
    return core_mail.message


EXAMPLES = int(os.environ.get("SPAMNB_FUZZ_EXAMPLES", "200"))
PER_CORPUS = 40
_FIELD_LINE = re.compile(rb"([\x21-\x39\x3b-\x7e]+):")
_pool: list[tuple[list[bytes], bytes, bytes]] | None = None


def _split_header(raw: bytes):
    """(field units, line end, rest of the message from the blank line), or
    None when the header block holds anything but fields and their folds."""
    fields, body_start, pushback = mime.read_headers(raw, 0, len(raw))
    eol = b"\r\n" if b"\r\n" in raw[:body_start] else b"\n"
    head = raw[:body_start]
    if pushback or not head.endswith(eol + eol):
        return None
    units: list[bytes] = []
    for line in head[: -2 * len(eol)].split(eol):
        if line[:1] in (b" ", b"\t") and units:
            units[-1] += eol + line
        elif _FIELD_LINE.match(line):
            units.append(line)
        else:
            return None
    return units, eol, raw[body_start - len(eol):]


def _spam_pool():
    global _pool
    if _pool is None:
        from conftest import CORPORA

        _pool = []
        for name in ("spamassassin", "trec06p", "ccert_zh"):
            index = CORPORA / name / "index"
            if not index.exists():
                continue
            spam = [line.split("\t")[1] for line in index.read_text().splitlines() if line.startswith("spam\t")]
            for relative in spam[:: max(1, len(spam) // PER_CORPUS)][:PER_CORPUS]:
                split = _split_header((CORPORA / name / relative).read_bytes())
                if split is not None and _body_tokens(b"\n".join(split[0]).replace(b"\n", split[1])
                                                      + split[1] + split[2]):
                    _pool.append(split)
    if not _pool:
        pytest.skip("no shared corpora")
    return _pool


BODY_ONLY = TokenizerOptions(headers=())


def _body_tokens(raw: bytes) -> list[str]:
    return message_tokens(raw, BODY_ONLY)


def _mutate(units: list[bytes], eol: bytes, kind: str, at: int, flip: int) -> list[bytes]:
    units = list(units)
    fields = [j for j, unit in enumerate(units) if _FIELD_LINE.match(unit)]  # not a junk line added before
    i = fields[at % len(fields)]
    name, _, value = units[i].partition(b":")
    if kind == "blank before the colon":
        units[i] = name + b" :" + value
    elif kind == "junk line before a field":
        units.insert(i, b"this line is no header field")
    elif kind == "field name case":
        units[i] = (name.upper() if flip % 2 else name.lower()) + b":" + value
    elif kind == "duplicate a field at the end":
        units.append(units[i])
    elif kind == "garbage Content-Type and encoding first":
        units.insert(0, b"Content-Transfer-Encoding: x-junk")
        units.insert(0, b"Content-Type: garbage")
    elif kind in ("hostile parameter", "fold before the parameters", "encoding with a comment"):
        for j, unit in enumerate(units):
            lower = unit.lower()
            if kind == "hostile parameter" and lower.startswith(b"content-type:"):
                junk = [b"x*" + b"9" * 5000 + b"*=a", b"y*=idna''q", b"z*=klingon''%FF", b"w*0*=''"][flip % 4]
                units[j] = unit + b"; " + junk
            elif kind == "fold before the parameters" and lower.startswith(b"content-type:") and b";" in unit:
                head, _, rest = unit.partition(b";")
                if b'"' not in head:
                    units[j] = head + b";" + eol + b"\t" + rest.lstrip(b" \t")
            elif kind == "encoding with a comment" and lower.startswith(b"content-transfer-encoding:"):
                units[j] = unit.rstrip() + b" (as sent)"
    return units


MUTATIONS = ["blank before the colon", "junk line before a field", "field name case",
             "duplicate a field at the end", "garbage Content-Type and encoding first", "hostile parameter",
             "fold before the parameters", "encoding with a comment"]


@settings(max_examples=EXAMPLES, deadline=None, derandomize="SPAMNB_FUZZ_EXAMPLES" not in os.environ,
          suppress_health_check=list(HealthCheck))
@given(st.integers(0, 10_000), st.lists(st.tuples(st.sampled_from(MUTATIONS), st.integers(0, 200),
                                                  st.integers(0, 3)), min_size=1, max_size=4))
def test_header_mutations_of_real_spam_keep_its_body_tokens(decoder, pick, mutations):
    pool = _spam_pool()
    units, eol, rest = pool[pick % len(pool)]
    original = eol.join(units) + eol + rest
    mutated_units = units
    for kind, at, flip in mutations:
        mutated_units = _mutate(mutated_units, eol, kind, at, flip)
    mutated = eol.join(mutated_units) + eol + rest
    expected = _body_tokens(original)
    assert _body_tokens(mutated) == expected, mutations
    # ... and they reach the scorer, whatever header fields it reads.
    scorer_tokens = Counter(message_tokens(mutated, TokenizerOptions()))
    assert not Counter(expected) - scorer_tokens, mutations


def test_reader_agrees_with_the_email_package_on_its_test_messages():
    # A third-party oracle: the email package (policy.default) on its own
    # test messages (Lib/test/test_email/data), when this Python ships them.
    # The one known difference: an attached message's From comment, which
    # spamnb shows ("barry@python.org (Barry A. Warsaw)") and str() drops.
    import sys

    from conftest import ROOT

    sys.path.insert(0, str(ROOT / "bench"))
    from oracle_email import compare, cpython_messages

    messages = cpython_messages()
    if not messages:
        pytest.skip("this Python has no test.test_email data")
    kinds = {origin: compare(raw)[0] for origin, raw in messages}
    assert len(kinds) >= 40
    assert {origin for origin, kind in kinds.items() if kind != "same"} <= {"cpython/msg_02.txt", "cpython/msg_06.txt"}
    assert all(kinds[origin] in ("same", "attached message's From") for origin in kinds)
