"""Tokens: segmentation, normalisation, stop words, header fields, URLs."""

import os
import sys

import pytest

from spamnb import _core
from spamnb.text import stopwords, tokens as python_tokens
from spamnb.mail.message import decode_message
from spamnb.text.tokens import TokenizerOptions

DEFAULT = TokenizerOptions()
NO_STOP = TokenizerOptions(stopwords=frozenset())


def _core_han_ready() -> bool:
    """Whether the Rust core segments and folds Han runs itself (chinese.rs, variants.rs ported)."""
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:  # a stub's panic message
            os.dup2(null.fileno(), 2)
            _core.text_tokens("中文", DEFAULT)
        return True
    except BaseException:  # pyo3's PanicException
        return False
    finally:
        os.dup2(saved, 2)
        os.close(saved)


class RustTokens:
    """The Rust tokenizer (spamnb._core) under the Python module's names.
    Until the Rust Han segmentation and variant folding land, Han runs are
    handed to the Python ones through a test-only callback."""

    han_ready = _core_han_ready()

    @classmethod
    def text_tokens(cls, text, options, budget=None):
        if cls.han_ready:
            return _core.text_tokens(text, options, budget)
        from spamnb.text.chinese import segment
        from spamnb.text.variants import fold_variants

        return _core._text_tokens_python_han(text, options, fold_variants, segment, budget)

    @classmethod
    def message_tokens(cls, message, options):
        if cls.han_ready:
            return _core.message_tokens(message, options)
        from spamnb.text.chinese import segment
        from spamnb.text.variants import fold_variants

        return _core._message_tokens_python_han(message, options, fold_variants, segment)

    url_tokens = staticmethod(_core.url_tokens)
    url_host = staticmethod(_core.url_host)
    token_part = staticmethod(_core.token_part)
    registered_domain = staticmethod(_core.registered_domain)
    normalise = staticmethod(_core.normalise)
    Budget = python_tokens.Budget


IMPLEMENTATIONS = {"python": python_tokens, "rust": RustTokens}


@pytest.fixture(params=list(IMPLEMENTATIONS))
def tk(request):
    """The tokenizer under test: the Python module or the Rust core."""
    return IMPLEMENTATIONS[request.param]


def test_seed_sentence_segments_into_words(tk):
    tokens = tk.text_tokens("我司可办理正规发票（保真）17%增值税发票点数优惠！", DEFAULT)
    for word in ("办理", "正规", "发票", "保真", "增值税", "优惠", "点数", "17%"):
        assert word in tokens
    assert tokens.count("发票") == 2
    assert not any(t in tokens for t in ("（", "）", "！", "(", ")", "!"))


def test_nfkc_and_case_folding(tk):
    assert tk.text_tokens("ＦＲＥＥ Free FREE free", NO_STOP) == ["free"] * 4
    assert "正" in tk.text_tokens("㊣", NO_STOP)  # circled ideograph folds to its plain form


def test_builtin_stopwords_custom_list_and_none(tk, tmp_path):
    text = "the meeting is at noon 我们的会议"
    assert tk.text_tokens(text, DEFAULT) == ["meeting", "noon", "会议"]
    custom = tmp_path / "stop.txt"
    custom.write_text("# mine\nmeeting\n会议\n", encoding="utf-8")
    mine = TokenizerOptions(stopwords=stopwords.read_file(custom))
    assert tk.text_tokens(text, mine) == ["the", "is", "at", "noon", "我们", "的"]
    assert tk.text_tokens(text, NO_STOP) == ["the", "meeting", "is", "at", "noon", "我们", "的", "会议"]
    assert {"the", "的", "我们", "you"} <= stopwords.builtin()


def test_urls_emails_numbers_and_long_words(tk):
    tokens = tk.text_tokens("Visit http://www.Cheap-Pills.example/buy?id=1 or mail sales@deals.example "
                         "now $100 " + "x" * 55, NO_STOP)
    assert "url:www.cheap-pills.example" in tokens and "url:cheap-pills.example" in tokens
    assert "email:addr:sales@deals.example" in tokens and "email:domain:deals.example" in tokens
    assert "$100" in tokens
    assert not any(len(t) > 40 for t in tokens)  # over-long words are dropped


def test_single_letters_are_dropped_but_single_han_characters_kept(tk):
    assert tk.text_tokens("a b c 好", NO_STOP) == ["好"]


RAW = ("From: =?gb2312?B?1cXI/Q==?= <zhang@example.cn>\n"
       "To: li@example.org\n"
       "Subject: =?gb2312?B?w+K30beixrE=?=\n"
       "Received: from relay.example.net by mx.example.org\n"
       "X-Mailer: FoxMail 4.0\n"
       "Content-Type: text/plain; charset=gb2312\n\n").encode() + "正规发票".encode("gb2312")


def test_header_fields_are_prefixed_and_selectable(tk):
    decoded = decode_message(RAW)
    tokens = tk.message_tokens(decoded, NO_STOP)
    assert "subject:免费" in tokens and "subject:发票" in tokens
    assert "from:张三" in tokens and "from:domain:example.cn" in tokens and "to:addr:li@example.org" in tokens
    assert "content-type:gb2312" in tokens
    assert "正规" in tokens and "发票" in tokens
    assert "received:domain:example.net" in tokens  # every field by default

    content = TokenizerOptions(headers=TokenizerOptions.parse_headers("content"), stopwords=frozenset())
    assert not any(t.startswith(("received:", "x-mailer:")) for t in tk.message_tokens(decoded, content))
    just_subject = TokenizerOptions(headers=TokenizerOptions.parse_headers("subject"), stopwords=frozenset())
    assert {t.split(":")[0] for t in tk.message_tokens(decoded, just_subject) if ":" in t} == {"subject"}
    nothing = TokenizerOptions(headers=TokenizerOptions.parse_headers("none"), stopwords=frozenset())
    assert tk.message_tokens(decoded, nothing) == ["正规", "发票", "正规 发票"]  # words, then their bigram


def test_token_part_tells_header_fields_from_subject_and_body(tk):
    raw = (b"Received: from mx.example.net (mx.example.net [192.0.2.7]) by mail.example.org with ESMTP\n"
           b"Date: Mon, 1 Jan 2024 10:00:00 +0000\nX-MSMail-Priority: Normal\n"
           b"From: Shop <deals@shop.example>\nSubject: free money: today\nMIME-Version: 1.0\n"
           b"Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: text/plain\n\n"
           b"cheap pills at http://pills.example/buy or write to sales@pills.example, 10:30 today\n"
           b"--B\nContent-Type: application/zip; name=a.zip\nContent-Transfer-Encoding: base64\n\nUEsDBA==\n--B--\n")
    decoded = decode_message(raw)
    every = tk.message_tokens(decoded, NO_STOP)
    # What each part gives, by the tokenizer's own selection of header fields.
    body = set(tk.message_tokens(decoded, TokenizerOptions(headers=(), stopwords=frozenset())))
    subject = set(tk.message_tokens(decoded, TokenizerOptions(headers=("subject",), stopwords=frozenset()))) - body
    assert {"url:pills.example", "email:addr:sales@pills.example", "attach:ext:zip", "cheap pills"} <= body
    assert "x-msmail-priority:normal" in every and any(t.startswith("date:shape:") for t in every)
    assert subject and len(body) > 5
    for token in every:
        expected = "body" if token in body else "subject" if token in subject else "header"
        assert tk.token_part(token) == expected, token


@pytest.mark.parametrize("spec,expected", [
    ("content", ("subject", "from", "to", "cc", "reply-to", "mime-version", "content-*")),
    ("Subject, From ,x-mailer", ("subject", "from", "x-mailer")),
    ("content,x-mailer", ("subject", "from", "to", "cc", "reply-to", "mime-version", "content-*", "x-mailer")),
    ("none", ()),
])
def test_header_specs(spec, expected):
    assert TokenizerOptions.parse_headers(spec) == expected


def test_attachments_give_type_and_extension_only(tk):
    raw = (b"Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: text/plain\n\nsee attached\n"
           b"--B\nContent-Type: application/zip; name=\"Invoice 2024.ZIP\"\n"
           b"Content-Transfer-Encoding: base64\n\nUEsDBBQAAAAIAA==\n--B--\n")
    tokens = tk.message_tokens(decode_message(raw), NO_STOP)
    assert "attach:type:application/zip" in tokens and "attach:ext:zip" in tokens
    assert "see" in tokens and "attached" in tokens
    assert not any("uesd" in t for t in tokens)


def test_variant_characters_fold_to_the_words_they_imitate(tk):
    # The example: homoglyphs (涐, 岢), a circled ideograph (㊣) and
    # Traditional forms (規, 髮) map back to 我司可办理正规发票.
    assert tk.text_tokens("涐司岢办理㊣規髮票", DEFAULT) == tk.text_tokens("我司可办理正规发票", DEFAULT)
    assert "发票" in tk.text_tokens("發票優惠", DEFAULT)
    unfolded = TokenizerOptions(fold_variants=False)
    assert "发票" not in tk.text_tokens("發票優惠", unfolded)


def test_url_host_is_urlsplits_hostname(tk):
    from urllib.parse import urlsplit

    for url in ["http://[::1]:80/x", "http://[bad/x", "http://a.com", "//scheme.rel/x", "http:x.com",
                "a:b://h", "http://u:p@h.com:8080/", "http://h.com%zone", "http://\x01h.com", "javascript:void(0)",
                "cid:abc@x", "ftp://ftp.x.org/", "http://a b.com/", "http://.x.com.", "http://h?x", "http://h#f",
                "http://[::1", "/relative/path", "", "http://", "https://例子.测试/", "foo//bar:x",
                "http://a＃b.com/", "http://a／b.com/", "http://a℀b.com/", "http://ｅｘａｍｐｌｅ.com/"]:
        try:
            expected = urlsplit(url).hostname or ""
        except ValueError:
            expected = None
        assert tk.url_host(url) == expected, url


def test_received_lines_give_networks_domains_and_words_never_ids_or_times(tk):
    tokens = tk.message_tokens(decode_message(
        b"Received: from unknown (HELO mx3.mail.example.com.cn) ([222.135.252.194])\n"
        b"\tby relay.example.org with ESMTP id 4F2A19C3B1; Sat, 3 Apr 2004 14:35:34 -0400\n"
        b"Subject: hi\n\nbody\n"), TokenizerOptions(headers=("*",), stopwords=frozenset()))
    received = sorted(t for t in tokens if t.startswith("received:"))
    assert received == sorted([
        "received:ip:222.135.252", "received:ip:222.135",
        "received:domain:example.com.cn", "received:domain:example.org",
        "received:from", "received:unknown", "received:helo", "received:by", "received:with",
        "received:esmtp", "received:id"])


def test_message_id_keeps_its_domain_and_date_its_zone_and_shape(tk):
    raw = (b"Message-ID: <20040403.4F2A19C3B1.joe@mail.example.co.uk>\n"
           b"In-Reply-To: <garbage-without-at>\n"
           b"Date: Sat, 3 Apr 2004 10:34:36 -0500 (EST)\n\nbody\n")
    tokens = tk.message_tokens(decode_message(raw), TokenizerOptions(headers=("*",), stopwords=frozenset()))
    assert [t for t in tokens if t.startswith(("message-id:", "in-reply-to:", "date:"))] == [
        "message-id:domain:example.co.uk", "in-reply-to:domain:none",
        "date:zone:-0500", "date:shape:a, 9 a 9999 99:99:99 -9999 (a)"]


def test_our_own_status_header_is_never_read(tk):
    from spamnb.mail.digest import STATUS_HEADER
    from spamnb.text.tokens import OWN_STATUS_FIELD

    assert OWN_STATUS_FIELD == STATUS_HEADER.lower()
    raw = b"X-Spamnb-Status: spam, P(spam) 0.9990\nSubject: offer\n\nbody\n"
    tokens = tk.message_tokens(decode_message(raw), TokenizerOptions(headers=("*",), stopwords=frozenset()))
    assert not any(t.startswith("x-spamnb-status") for t in tokens) and "subject:offer" in tokens


def test_url_tokens_of_links_in_text_hosts_addresses_and_mailto(tk):
    options = TokenizerOptions(stopwords=frozenset())
    assert "url:a.example.com" in tk.text_tokens("访问http://a.example.com，联系", options)
    assert tk.url_tokens("http://www.shop.example.com.cn/x") == ["url:www.shop.example.com.cn", "url:example.com.cn"]
    assert tk.url_tokens("http://1.2.3.4/x") == ["url:1.2.3.4"]
    assert tk.url_tokens("mailto:Sales@Deals.example?subject=x") == ["email:addr:sales@deals.example",
                                                                  "email:domain:deals.example"]


def piece_by_piece(text: str, options: TokenizerOptions, han: int) -> tuple[list[str], list[str]]:
    """What text_tokens gives with a Han budget of `han`, worked out a piece
    at a time (the reading the step past the budget must keep): each Han run
    folded, segmented while the budget lasts and spilled a character at a
    time past it; each other piece tokenized alone."""
    from spamnb.text.chinese import segment
    from spamnb.text.tokens import Budget, _han_run, normalise
    from spamnb.text.variants import fold_variants

    out: list[str] = []
    spilled: list[str] = []
    stop = options.stopwords
    for index, piece in enumerate(_han_run().split(normalise(text, Budget()))):
        if index % 2:
            piece = fold_variants(piece)
            taken, han = piece[:han], han - min(han, len(piece))
            out += [word for word in segment(taken) if word not in stop]
            spilled += [char for char in piece[len(taken):] if char not in stop]
        elif piece:
            out += python_tokens.text_tokens(piece, options)
    return out, spilled


def test_text_past_the_han_budget_gives_the_tokens_of_a_piece_at_a_time(tk):
    import random

    from spamnb.text.tokens import Budget

    rng = random.Random(6)
    pool = ["a", "b1", " ", "发", "發票", "乾隆", "x@y.com", "http://a.example/x", "www.b.org", "-", ".", "it's",
            "$5", "的", "优惠", "\n", "@", "a.b@", "mm", "⻔", "a.", "@c.org"]
    for _ in range(500):
        text = "".join(rng.choice(pool) for _ in range(rng.randint(0, 40)))
        for han in (0, 1, 3, 10, 1000):
            budget = Budget(han=han)
            for options in (DEFAULT, NO_STOP):
                assert (tk.text_tokens(text, options, budget), budget.spilled) == piece_by_piece(text, options, han), \
                    (text, han)
                budget = Budget(han=han)


# The Rust tokenizer reads text as the Python one: Python's \w, \d, \s,
# casefold and NFKC (Unicode 14) from tables, and each `re` rule with a
# look-around or backtracking written as a scan.  These compare the two on
# inputs built from the characters each rule turns on.

def test_rust_and_python_normalise_every_character_alike():
    import unicodedata

    assert _core.PYTHON_UNICODE_VERSION == unicodedata.unidata_version
    differ = []
    for code in range(sys.maxunicode + 1):
        if 0xD800 <= code < 0xE000:
            continue
        char = chr(code)
        if _core.normalise(char) != python_tokens.normalise(char):
            differ.append(hex(code))
    assert not differ, differ[:20]


def test_rust_and_python_normalise_mark_runs_and_expansions_alike():
    from spamnb.text.tokens import Budget

    texts = ["a" + "\u0301\u0316" * 40, ("e" + "\u0301" * 35 + "\u0316" * 35 + " ") * 3, "\u0f73" * 60,
             "x" + "\uff9e" * 40, "\u1e09" + "\u0301" * 31 + "ß", "\ufdfa" * 5 + "Ａ", "\u1e030x"]
    for text in texts:
        assert _core.normalise(text) == python_tokens.normalise(text), text
        for left in (0, 3, 5, 100):
            python_budget, rust_budget = Budget(expansions=left), Budget(expansions=left)
            assert _core.normalise(text, rust_budget) == python_tokens.normalise(text, python_budget), text
            assert rust_budget.expansions == python_budget.expansions


def test_rust_finds_words_links_and_addresses_as_python():
    import random

    rng = random.Random(7)
    pool = list("ab1.-+@'%$€_ :/é²Ⅸ\u0301") + ["http://", "https://", "www.", "x.com", "@y.org", "it's", "\u00a0"]
    for _ in range(20000):
        text = "".join(rng.choice(pool) for _ in range(rng.randint(0, 30)))
        assert _core._latin_findall(text) == python_tokens._latin_findall(text), text


def test_rust_reads_header_rules_as_python():
    import random

    from spamnb.mail.message import DecodedMessage

    rng = random.Random(8)
    pool = (list("09.-_ ()+:@<>az,é٣\t") + ["gmt", "est", "pdt", "ut", "z", "+0000", "-0500", "(est)", "mx.", ".com",
            ".cn", "example", "192.", "168.", "1.2.3.4", "from", "by", "with", "unknown", "mon", "apr", "com.", "co.",
            "a" * 25, "()", " (", ") "])
    options = TokenizerOptions(headers=("*",), stopwords=frozenset())
    for _ in range(5000):
        value = "".join(rng.choice(pool) for _ in range(rng.randint(0, 25)))
        headers = [(name, value) for name in ("received", "date", "message-id", "in-reply-to", "subject", "x-spam-x")]
        message = DecodedMessage(headers=headers, urls=[value, "http://" + value, "www." + value],
                                 attachments=[("application/x", value)])
        assert RustTokens.message_tokens(message, options) == python_tokens.message_tokens(message, options), value


def test_rust_reads_urls_as_python():
    import random

    rng = random.Random(9)
    pool = list("ab1.-:/?#@[]% \t\x01") + ["http://", "www.", "::1", "v1.x", "％", "ｅ", "℀", "1.2.3.4", "mailto:",
                                            "例", "Σ", "İ", "fe80", ":80", "%25"]
    for _ in range(20000):
        url = "".join(rng.choice(pool) for _ in range(rng.randint(0, 16)))
        assert _core.url_host(url.casefold()) == python_tokens.url_host(url.casefold()), url
        assert _core.url_tokens(url) == python_tokens.url_tokens(url), url


def test_status_values_and_own_fields_are_skipped_alike():
    from spamnb.mail.message import DecodedMessage

    options = TokenizerOptions(headers=("*",), stopwords=frozenset())
    for value in ["Yes, score=0.99, log-odds=6.6, model=x", " No, score=1, log-odds=-inf, model=", "Unsure, score=.,"
                  " log-odds=+1.0, model=m", "Yes, score=, log-odds=1, model=x", "yes, score=1, log-odds=1, model=x",
                  "Yes, score=1, log-odds=inf, model", "\x1cNo, score=1, log-odds=1, model=a"]:
        message = DecodedMessage(headers=[("x-custom", value), ("x-spam-status", "hello"), ("subject", "hi there")])
        assert RustTokens.message_tokens(message, options) == python_tokens.message_tokens(message, options), value


def test_builtin_stopwords_are_the_python_lists():
    # The Rust default options compile in spamnb/data/stopwords_*.txt: the same words.
    assert "the" in python_tokens.TokenizerOptions().stopwords
    options = TokenizerOptions()
    assert RustTokens.text_tokens(" ".join(sorted(options.stopwords)) + " kept", options) == ["kept"]


def test_surrogate_escapes_of_raw_header_bytes_come_back_as_they_went():
    # An address in a legacy charset reaches the tokenizer with its 8-bit
    # bytes as surrogate escapes (spamassassin has 20 such messages); the
    # Rust core carries them as stand-ins and gives the same tokens back.
    from spamnb.mail.message import DecodedMessage

    options = TokenizerOptions(headers=("*",), stopwords=frozenset())
    address = "\udca6n\udcae@dogma.example.org"
    message = DecodedMessage(headers=[("from", "x"), ("subject", "caf\udce9 bar")],
                             addresses={"from": [("\udcb1\udcb6 name", address)]},
                             texts=["see \udce9t\udce9 and mailto " + address], urls=["mailto:" + address])
    assert RustTokens.message_tokens(message, options) == python_tokens.message_tokens(message, options)
    assert _core.normalise("\U0010f800x") == "\U0010f800x"  # a real plane-16 character stays itself


def test_rust_builtin_stopwords_are_the_python_lists():
    assert _core.builtin_stopwords() == stopwords.builtin()
