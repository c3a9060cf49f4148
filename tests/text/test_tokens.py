"""Tokens: segmentation, normalisation, stop words, header fields, URLs."""

import re
import sys

import pytest

from spamnb import _core
from spamnb.text import stopwords, tokens as tk
from spamnb.text.tokens import Budget, TokenizerOptions, message_tokens

DEFAULT = TokenizerOptions()
NO_STOP = TokenizerOptions(stopwords=frozenset())


class Message:
    """A decoded message as the core's message_tokens reads it (the shape
    of _core.decode_message's tuple), built by hand for the header rules."""

    __slots__ = ("headers", "addresses", "texts", "urls", "attachments", "parse_failed", "cut")

    def __init__(self, headers=None, addresses=None, texts=None, urls=None, attachments=None,
                 parse_failed=False, cut=None) -> None:
        self.headers, self.addresses, self.texts = headers or [], addresses or {}, texts or []
        self.urls, self.attachments, self.parse_failed, self.cut = urls or [], attachments or [], parse_failed, cut or []


def test_seed_sentence_segments_into_words():
    tokens = tk.text_tokens("我司可办理正规发票（保真）17%增值税发票点数优惠！", DEFAULT)
    for word in ("办理", "正规", "发票", "保真", "增值税", "优惠", "点数", "17%"):
        assert word in tokens
    assert tokens.count("发票") == 2
    assert not any(t in tokens for t in ("（", "）", "！", "(", ")", "!"))


def test_nfkc_and_case_folding():
    assert tk.text_tokens("ＦＲＥＥ Free FREE free", NO_STOP) == ["free"] * 4
    assert "正" in tk.text_tokens("㊣", NO_STOP)  # circled ideograph folds to its plain form


def test_builtin_stopwords_custom_list_and_none(tmp_path):
    text = "the meeting is at noon 我们的会议"
    assert tk.text_tokens(text, DEFAULT) == ["meeting", "noon", "会议"]
    custom = tmp_path / "stop.txt"
    custom.write_text("# mine\nmeeting\n会议\n", encoding="utf-8")
    mine = TokenizerOptions(stopwords=stopwords.read_file(custom))
    assert tk.text_tokens(text, mine) == ["the", "is", "at", "noon", "我们", "的"]
    assert tk.text_tokens(text, NO_STOP) == ["the", "meeting", "is", "at", "noon", "我们", "的", "会议"]
    assert {"the", "的", "我们", "you"} <= stopwords.builtin()


def test_urls_emails_numbers_and_long_words():
    tokens = tk.text_tokens("Visit http://www.Cheap-Pills.example/buy?id=1 or mail sales@deals.example "
                         "now $100 " + "x" * 55, NO_STOP)
    assert "url:www.cheap-pills.example" in tokens and "url:cheap-pills.example" in tokens
    assert "email:addr:sales@deals.example" in tokens and "email:domain:deals.example" in tokens
    assert "$100" in tokens
    assert not any(len(t) > 40 for t in tokens)  # over-long words are dropped


def test_single_letters_are_dropped_but_single_han_characters_kept():
    assert tk.text_tokens("a b c 好", NO_STOP) == ["好"]


RAW = ("From: =?gb2312?B?1cXI/Q==?= <zhang@example.cn>\n"
       "To: li@example.org\n"
       "Subject: =?gb2312?B?w+K30beixrE=?=\n"
       "Received: from relay.example.net by mx.example.org\n"
       "X-Mailer: FoxMail 4.0\n"
       "Content-Type: text/plain; charset=gb2312\n\n").encode() + "正规发票".encode("gb2312")


def test_header_fields_are_prefixed_and_selectable():
    decoded = RAW
    tokens = message_tokens(decoded, NO_STOP)
    assert "subject:免费" in tokens and "subject:发票" in tokens
    assert "from:张三" in tokens and "from:domain:example.cn" in tokens and "to:addr:li@example.org" in tokens
    assert "content-type:gb2312" in tokens
    assert "正规" in tokens and "发票" in tokens
    assert "received:domain:example.net" in tokens  # every field by default

    content = TokenizerOptions(headers=TokenizerOptions.parse_headers("content"), stopwords=frozenset())
    by_content = message_tokens(decoded, content)
    assert "subject:免费" in by_content and "from:domain:example.cn" in by_content
    assert not any(t.startswith(("received:", "x-mailer:")) for t in by_content)
    just_subject = TokenizerOptions(headers=TokenizerOptions.parse_headers("subject"), stopwords=frozenset())
    assert {t.split(":")[0] for t in message_tokens(decoded, just_subject) if ":" in t} == {"subject"}
    nothing = TokenizerOptions(headers=TokenizerOptions.parse_headers("none"), stopwords=frozenset())
    assert message_tokens(decoded, nothing) == ["正规", "发票", "正规 发票"]  # words, then their bigram


def test_token_part_tells_header_fields_from_subject_and_body():
    raw = (b"Received: from mx.example.net (mx.example.net [192.0.2.7]) by mail.example.org with ESMTP\n"
           b"Date: Mon, 1 Jan 2024 10:00:00 +0000\nX-MSMail-Priority: Normal\n"
           b"From: Shop <deals@shop.example>\nSubject: free money: today\nMIME-Version: 1.0\n"
           b"Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: text/plain\n\n"
           b"cheap pills at http://pills.example/buy or write to sales@pills.example, 10:30 today\n"
           b"--B\nContent-Type: application/zip; name=a.zip\nContent-Transfer-Encoding: base64\n\nUEsDBA==\n--B--\n")
    decoded = raw
    every = message_tokens(decoded, NO_STOP)
    # What each part gives, by the tokenizer's own selection of header fields.
    body = set(message_tokens(decoded, TokenizerOptions(headers=(), stopwords=frozenset())))
    subject = set(message_tokens(decoded, TokenizerOptions(headers=("subject",), stopwords=frozenset()))) - body
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


def test_attachments_give_type_and_extension_only():
    raw = (b"Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: text/plain\n\nsee attached\n"
           b"--B\nContent-Type: application/zip; name=\"Invoice 2024.ZIP\"\n"
           b"Content-Transfer-Encoding: base64\n\nUEsDBBQAAAAIAA==\n--B--\n")
    tokens = message_tokens(raw, NO_STOP)
    assert "attach:type:application/zip" in tokens and "attach:ext:zip" in tokens
    assert "see" in tokens and "attached" in tokens
    assert not any("uesd" in t for t in tokens)


def test_variant_characters_fold_to_the_words_they_imitate():
    # The example: homoglyphs (涐, 岢), a circled ideograph (㊣) and
    # Traditional forms (規, 髮) map back to 我司可办理正规发票.
    assert tk.text_tokens("涐司岢办理㊣規髮票", DEFAULT) == tk.text_tokens("我司可办理正规发票", DEFAULT)
    assert "发票" in tk.text_tokens("發票優惠", DEFAULT)
    unfolded = TokenizerOptions(fold_variants=False)
    assert "发票" not in tk.text_tokens("發票優惠", unfolded)


def test_url_host_is_urlsplits_hostname():
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


def test_received_lines_give_networks_domains_and_words_never_ids_or_times():
    tokens = message_tokens(
        b"Received: from unknown (HELO mx3.mail.example.com.cn) ([222.135.252.194])\n"
        b"\tby relay.example.org with ESMTP id 4F2A19C3B1; Sat, 3 Apr 2004 14:35:34 -0400\n"
        b"Subject: hi\n\nbody\n", TokenizerOptions(headers=("*",), stopwords=frozenset()))
    received = sorted(t for t in tokens if t.startswith("received:"))
    assert received == sorted([
        "received:ip:222.135.252", "received:ip:222.135",
        "received:domain:example.com.cn", "received:domain:example.org",
        "received:from", "received:unknown", "received:helo", "received:by", "received:with",
        "received:esmtp", "received:id"])


def test_message_id_keeps_its_domain_and_date_its_zone_and_shape():
    raw = (b"Message-ID: <20040403.4F2A19C3B1.joe@mail.example.co.uk>\n"
           b"In-Reply-To: <garbage-without-at>\n"
           b"Date: Sat, 3 Apr 2004 10:34:36 -0500 (EST)\n\nbody\n")
    tokens = message_tokens(raw, TokenizerOptions(headers=("*",), stopwords=frozenset()))
    assert [t for t in tokens if t.startswith(("message-id:", "in-reply-to:", "date:"))] == [
        "message-id:domain:example.co.uk", "in-reply-to:domain:none",
        "date:zone:-0500", "date:shape:a, 9 a 9999 99:99:99 -9999 (a)"]


def test_the_status_fields_spamnb_adds_are_neither_tokenized_nor_digested():
    """Learning a filtered message must neither teach the model its own
    verdict nor count as a new message: spamnb's own field, and those of
    `filter --header-style spamassassin` and spamd, in any case."""
    from spamnb.mail.digest import message_digest

    every_field = TokenizerOptions(headers=("*",), stopwords=frozenset())
    plain = b"Subject: offer\n\nbody\n"
    assert "subject:offer" in message_tokens(plain, every_field)
    for field in (b"X-Spamnb-Status: spam, P(spam) 0.9990", b"x-spamnb-status: ham", b"X-Spam-Flag: YES",
                  b"X-SPAM-FLAG: NO", b"X-Spam-Level: ***", b"X-Spam-Status: Yes, score=9.9 required=5.0"):
        filtered = field + b"\n" + plain
        assert message_tokens(filtered, every_field) == message_tokens(plain, every_field), field
        assert message_digest(filtered) == message_digest(plain), field
    other = b"X-Spam-Score: 9.9\n" + plain  # not a field spamnb adds: read, and part of the message
    assert "x-spam-score:9.9" in message_tokens(other, every_field)
    assert message_digest(other) != message_digest(plain)


def test_url_tokens_of_links_in_text_hosts_addresses_and_mailto():
    options = TokenizerOptions(stopwords=frozenset())
    assert "url:a.example.com" in tk.text_tokens("访问http://a.example.com，联系", options)
    assert tk.url_tokens("http://www.shop.example.com.cn/x") == ["url:www.shop.example.com.cn", "url:example.com.cn"]
    assert tk.url_tokens("http://1.2.3.4/x") == ["url:1.2.3.4"]
    assert tk.url_tokens("mailto:Sales@Deals.example?subject=x") == ["email:addr:sales@deals.example",
                                                                  "email:domain:deals.example"]


# Han characters as the tokenizer reads them: CJK Unified Ideographs,
# Extension A, Compatibility, and the CJK radicals (⻔ for 门).
HAN_RUN = re.compile(r"([\u2e80-\u2eff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+)")


def test_han_runs_are_the_han_ranges():
    assert _core._han_runs("ab发票c⻔x乾隆 \u3400\u4dbf\uf900\u2e80") == ["发票", "⻔", "乾隆", "\u3400\u4dbf\uf900\u2e80"]
    assert _core._han_runs("abc ㊣ \u3000\u2f00x") == []  # ㊣ and Kangxi radicals are not Han until NFKC
    for text in ["", "a", "发", "a发b票", "\u2dff\u2e80\u2eff\u2f00", "\u33ff\u3400\u4dbf\u4dc0\u4dff\u4e00\u9fff\ua000",
                 "\uf8ff\uf900\ufaff\ufb00"]:
        assert _core._han_runs(text) == HAN_RUN.findall(text), text


def piece_by_piece(text: str, options: TokenizerOptions, han: int) -> tuple[list[str], list[str]]:
    """What text_tokens gives with a Han budget of `han`, worked out a piece
    at a time (the reading the step past the budget must keep): each Han run
    folded, segmented while the budget lasts and spilled a character at a
    time past it; each other piece tokenized alone."""
    out: list[str] = []
    spilled: list[str] = []
    stop = options.stopwords
    for index, piece in enumerate(HAN_RUN.split(_core.normalise(text, Budget()))):
        if index % 2:
            piece = _core.fold_variants(piece)
            taken, han = piece[:han], han - min(han, len(piece))
            out += [word for word in _core.segment(taken) if word not in stop]
            spilled += [char for char in piece[len(taken):] if char not in stop]
        elif piece:
            out += _core.text_tokens(piece, options)
    return out, spilled


def test_text_past_the_han_budget_gives_the_tokens_of_a_piece_at_a_time():
    import random

    rng = random.Random(6)
    pool = ["a", "b1", " ", "发", "發票", "乾隆", "x@y.com", "http://a.example/x", "www.b.org", "-", ".", "it's",
            "$5", "的", "优惠", "\n", "@", "a.b@", "mm", "⻔", "a.", "@c.org"]
    spilled_some = 0
    for _ in range(500):
        text = "".join(rng.choice(pool) for _ in range(rng.randint(0, 40)))
        for han in (0, 1, 3, 10, 1000):
            budget = Budget(han=han)
            for options in (DEFAULT, NO_STOP):
                assert (tk.text_tokens(text, options, budget), budget.spilled) == piece_by_piece(text, options, han), \
                    (text, han)
                spilled_some += bool(budget.spilled)
                budget = Budget(han=han)
    assert spilled_some > 100  # the budget did run out


# The tokenizer reads text as Python does: Python's \w, \d, \s, casefold
# and NFKC (Unicode 14) from tables, and each `re` rule with a look-around
# or backtracking written as a scan.  These check it against Python's
# unicodedata and re on inputs built from the characters each rule turns on.

def test_normalise_is_nfkc_then_casefold_for_every_character():
    import unicodedata

    assert _core.PYTHON_UNICODE_VERSION == unicodedata.unidata_version
    differ = []
    for code in range(sys.maxunicode + 1):
        if 0xD800 <= code < 0xE000:
            continue
        char = chr(code)
        if _core.normalise(char) != unicodedata.normalize("NFKC", char).casefold():
            differ.append(hex(code))
    assert not differ, differ[:20]


MAX_MARKS = 30  # combining marks in a row before U+034F cuts the run (UAX #15 stream-safe format)


def stream_safe(text: str) -> str:
    """UAX #15's stream-safe text: U+034F after every MAX_MARKS combining
    marks in a row (counted in each character's NFKD form)."""
    import unicodedata

    out, count = [], 0
    for char in text:
        marks = [unicodedata.combining(c) != 0 for c in unicodedata.normalize("NFKD", char)]
        leading = next((k for k, mark in enumerate(marks) if not mark), len(marks))
        trailing = next((k for k, mark in enumerate(reversed(marks)) if not mark), len(marks))
        if count + leading > MAX_MARKS:
            out.append("\u034f")
            count = 0
        count = count + leading if leading == len(marks) else trailing
        out.append(char)
    return "".join(out)


def test_normalise_cuts_mark_runs_and_bounds_expansions():
    import unicodedata

    def expected(text: str, budget: Budget | None) -> str:
        if budget is not None:
            expanders = sum(len(unicodedata.normalize("NFKC", c)) >= 4 for c in text)
            if expanders > budget.expansions:
                budget.expansions = 0
                return stream_safe(text).casefold()
            budget.expansions -= expanders
        return unicodedata.normalize("NFKC", stream_safe(text)).casefold()

    assert "\u034f" in _core.normalise("a" + "\u0301\u0316" * 40)
    assert _core.normalise("\ufdfa" * 5 + "Ａ", Budget(expansions=4)) == "\ufdfa" * 5 + "ａ"  # casefolded only
    texts = ["a" + "\u0301\u0316" * 40, ("e" + "\u0301" * 35 + "\u0316" * 35 + " ") * 3, "\u0f73" * 60,
             "x" + "\uff9e" * 40, "\u1e09" + "\u0301" * 31 + "ß", "\ufdfa" * 5 + "Ａ", "\u1e030x"]
    for text in texts:
        assert _core.normalise(text) == expected(text, None), text
        for left in (0, 3, 5, 100):
            ours, theirs = Budget(expansions=left), Budget(expansions=left)
            assert _core.normalise(text, ours) == expected(text, theirs), text
            assert ours.expansions == theirs.expansions


# Words, links and addresses: the rule as one regular expression (URL, then
# address, then word at each position).  The core scans it in linear time;
# this is its meaning, quadratic on hostile input but not on these.
LATIN_TOKEN = re.compile(
    r"(?:https?://|www\.)[A-Za-z0-9\-._~:/?#@!$&*+,;=%]++"
    r"|[\w.+\-]++@[\w\-]++(?:\.[\w\-]++)++"
    r"|[$€£¥]?\w++(?:['.\-]\w++)*+%?"
)


def test_words_links_and_addresses_are_found_as_the_regular_expression_finds_them():
    import random

    assert _core._latin_findall("it's $5 a.b@c.org http://x.com/y 50% x-y.z") == [
        "it's", "$5", "a.b@c.org", "http://x.com/y", "50%", "x-y.z"]
    rng = random.Random(7)
    pool = list("ab1.-+@'%$€_ :/é²Ⅸ\u0301") + ["http://", "https://", "www.", "x.com", "@y.org", "it's", "\u00a0"]
    for _ in range(20000):
        text = "".join(rng.choice(pool) for _ in range(rng.randint(0, 30)))
        assert _core._latin_findall(text) == LATIN_TOKEN.findall(text), text


def test_header_rules_give_the_tokens_they_gave_in_python():
    # 5,000 random values of the fields with rules of their own (Received,
    # Date, Message-ID, In-Reply-To), a plain one, URLs and attachments.
    # The digest is of the tokens the Python tokenizer gave them (it and the
    # core agreed on all of them when the Python one was deleted): any change
    # of a rule changes it.  The rules themselves: the tests above.
    import hashlib
    import random

    rng = random.Random(8)
    pool = (list("09.-_ ()+:@<>az,é٣\t") + ["gmt", "est", "pdt", "ut", "z", "+0000", "-0500", "(est)", "mx.", ".com",
            ".cn", "example", "192.", "168.", "1.2.3.4", "from", "by", "with", "unknown", "mon", "apr", "com.", "co.",
            "a" * 25, "()", " (", ") "])
    options = TokenizerOptions(headers=("*",), stopwords=frozenset())
    digest = hashlib.sha256()
    prefixes = ("received:", "date:", "message-id:", "in-reply-to:", "subject:", "x-spam-x:", "url:", "email:",
                "attach:")
    for _ in range(5000):
        value = "".join(rng.choice(pool) for _ in range(rng.randint(0, 25)))
        headers = [(name, value) for name in ("received", "date", "message-id", "in-reply-to", "subject", "x-spam-x")]
        message = Message(headers=headers, urls=[value, "http://" + value, "www." + value],
                          attachments=[("application/x", value)])
        tokens = _core.message_tokens(message, options)
        assert all(token.startswith(prefixes) for token in tokens), (value, tokens)
        digest.update(repr(tokens).encode())
    assert digest.hexdigest() == "8bee1f87f1201242f1af6e88f7f4c0878bb18252f3a4a398c2ff2b963b216520"


def test_urls_are_read_as_urlsplit_reads_them():
    import hashlib
    import random
    from urllib.parse import urlsplit

    rng = random.Random(9)
    pool = list("ab1.-:/?#@[]% \t\x01") + ["http://", "www.", "::1", "v1.x", "％", "ｅ", "℀", "1.2.3.4", "mailto:",
                                            "例", "Σ", "İ", "fe80", ":80", "%25"]
    digest = hashlib.sha256()
    for _ in range(20000):
        url = "".join(rng.choice(pool) for _ in range(rng.randint(0, 16)))
        try:
            host = urlsplit(url.casefold()).hostname or ""
        except ValueError:
            host = None
        assert _core.url_host(url.casefold()) == host, url
        tokens = _core.url_tokens(url)
        assert all(token.startswith(("url:", "email:addr:", "email:domain:")) for token in tokens), url
        digest.update(repr(tokens).encode())
    # The url_tokens the Python tokenizer gave these (the core agreed on all
    # of them when it was deleted); its rules: test_url_tokens_of_links_... above.
    assert digest.hexdigest() == "0ba0786c2fe416dc5bcdbf0d33b20d57cac5334be9c9987a2012dbb436c9f2e6"


def test_status_values_and_own_fields_are_skipped():
    # `filter`'s status field under another name (--header X-Custom) is known
    # by its value and never read; nor are the SpamAssassin-style fields.
    options = TokenizerOptions(headers=("*",), stopwords=frozenset())
    rest = ["subject:hi", "subject:there"]
    read = ["x-custom:yes", "x-custom:score", "x-custom:log-odds", "x-custom:model"]
    for value, expected in [
            ("Yes, score=0.99, log-odds=6.6, model=x", rest),
            (" No, score=1, log-odds=-inf, model=", rest),
            ("Unsure, score=., log-odds=+1.0, model=m", rest),
            ("\x1cNo, score=1, log-odds=1, model=a", rest),
            ("Yes, score=, log-odds=1, model=x", read + rest),
            ("yes, score=1, log-odds=1, model=x", read + rest),
            ("Yes, score=1, log-odds=inf, model", read[:3] + ["x-custom:inf", "x-custom:model"] + rest)]:
        message = Message(headers=[("x-custom", value), ("x-spam-status", "hello"), ("subject", "hi there")])
        assert _core.message_tokens(message, options) == expected, value


def test_builtin_stopwords_are_the_shipped_lists():
    # The core compiles in spamnb/data/stopwords_*.txt: the same words.
    from pathlib import Path

    data = Path(stopwords.__file__).parent.parent / "data"
    shipped = set()
    for name in ("stopwords_en.txt", "stopwords_zh.txt"):
        for line in (data / name).read_text(encoding="utf-8").splitlines():
            word = line.split("#", 1)[0].strip()
            if word:
                shipped.add(word.casefold())
    assert _core.builtin_stopwords() == stopwords.builtin() == frozenset(shipped)
    assert "the" in TokenizerOptions().stopwords
    options = TokenizerOptions()
    assert tk.text_tokens(" ".join(sorted(options.stopwords)) + " kept", options) == ["kept"]


def test_surrogate_escapes_of_raw_header_bytes_come_back_as_they_went():
    # An address in a legacy charset reaches the tokenizer with its 8-bit
    # bytes as surrogate escapes (spamassassin has 20 such messages); the
    # core carries them as stand-ins and gives the same tokens back.
    options = TokenizerOptions(headers=("*",), stopwords=frozenset())
    address = "\udca6n\udcae@dogma.example.org"
    message = Message(headers=[("from", "x"), ("subject", "caf\udce9 bar")],
                      addresses={"from": [("\udcb1\udcb6 name", address)]},
                      texts=["see \udce9t\udce9 and mailto " + address], urls=["mailto:" + address])
    assert _core.message_tokens(message, options) == [
        "from:name", "from:addr:" + address, "from:domain:dogma.example.org", "subject:caf", "subject:bar",
        "see", "and", "mailto", "dogma.example.org", "see and", "and mailto", "mailto dogma.example.org",
        "email:addr:" + address, "email:domain:dogma.example.org"]
    assert _core.normalise("\U0010f800x") == "\U0010f800x"  # a real plane-16 character stays itself
