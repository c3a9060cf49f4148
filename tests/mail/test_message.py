"""Decoding raw messages: transfer encodings, charsets, RFC 2047, HTML, attachments."""

import base64
import quopri

import pytest

from spamnb._core import decode_text

import core_mail


@pytest.fixture(scope="module")
def decoder():
    """The core's decoder in the shape of the deleted spamnb.mail.message (tests/core_mail.py)."""
    return core_mail.message


ZH = "我司可办理正规发票（保真）17%增值税发票点数优惠！"


def body_message(body: bytes, ctype="text/plain", charset=None, cte=None, extra=b"") -> bytes:
    header = b"From: a@example.com\nSubject: test\nMIME-Version: 1.0\n"
    header += b"Content-Type: " + ctype.encode() + (b"; charset=" + charset.encode() if charset else b"") + b"\n"
    if cte:
        header += b"Content-Transfer-Encoding: " + cte.encode() + b"\n"
    return header + extra + b"\n" + body


@pytest.mark.parametrize("charset,codec", [("gb2312", "gb2312"), ("GBK", "gbk"), ("utf-8", "utf-8"),
                                           ("euc-cn", "gb2312"), ("gb18030", "gb18030")])
@pytest.mark.parametrize("cte", ["8bit", "base64", "quoted-printable"])
def test_chinese_bodies_in_every_encoding(decoder, charset, codec, cte):
    raw = ZH.encode(codec)
    body = {"8bit": raw, "base64": base64.encodebytes(raw), "quoted-printable": quopri.encodestring(raw)}[cte]
    decoded = decoder.decode_message(body_message(body, charset=charset, cte=cte))
    assert ZH in decoded.texts[0]


def test_gbk_text_labelled_gb2312_is_read_as_gbk(decoder):
    text = "朱镕基和张喆来了"  # 镕 and 喆 are outside GB2312
    decoded = decoder.decode_message(body_message(text.encode("gbk"), charset="gb2312", cte="8bit"))
    assert decoded.texts[0] == text


def test_big5_and_latin1(decoder):
    assert "發票優惠" in decoder.decode_message(body_message("發票優惠".encode("big5"), charset="big5")).texts[0]
    assert "Crème brûlée à Noël" in decoder.decode_message(
        body_message("Crème brûlée à Noël".encode("latin-1"), charset="iso-8859-1", cte="quoted-printable")
        if False else body_message(quopri.encodestring("Crème brûlée à Noël".encode("latin-1")),
                                   charset="iso-8859-1", cte="quoted-printable")).texts[0]


def test_lying_and_missing_charsets_are_sniffed(decoder):
    # Declared Latin-1 but really GB2312: byte-dense text decodes as GB18030.
    assert ZH in decoder.decode_message(body_message(ZH.encode("gb2312"), charset="iso-8859-1")).texts[0]
    # No charset at all, UTF-8 bytes.
    assert ZH in decoder.decode_message(body_message(ZH.encode("utf-8"))).texts[0]
    # An unknown charset name.
    assert ZH in decoder.decode_message(body_message(ZH.encode("gb2312"), charset="x-no-such")).texts[0]
    # Declared UTF-8 but Latin-1 bytes: falls back, keeps the words.
    assert "caf" in decoder.decode_message(body_message("café ouvert".encode("latin-1"), charset="utf-8")).texts[0]


@pytest.mark.parametrize("text,codec", [
    ("ももがはじけてぶどうがゆれる コラボレーション専門", "shift_jis"),
    ("ももがはじけてぶどうがゆれる コラボレーション専門", "euc_jp"),
    ("(광고) 신선한 촛불파티에 초대합니다", "euc_kr"),
    ("[광고]부동산정보 받아보세요", "euc_kr"),
])
def test_undeclared_japanese_and_korean_are_not_read_as_chinese(decoder, text, codec):
    # Their two-byte codes pass for GB18030, as rare characters (傕傕偑偼偠).
    assert decode_text(text.encode(codec)) == text
    assert text in decoder.decode_message(body_message(text.encode(codec))).texts[0]


@pytest.mark.parametrize("text", [ZH, "Google广告", "娜娜", "周期性郁闷，不用管她，等过段时间她看没人理她了就自然好了"])
def test_chinese_that_also_reads_as_korean_stays_chinese(text):
    # GB2312 bytes read strictly as CP949 too, as rare Hangul (广告 as 밤멩).
    text.encode("gb2312").decode("cp949")
    assert decode_text(text.encode("gb2312")) == text


@pytest.mark.parametrize("text,declared", [("正规发票 invoice " * 50, "utf-8"), ("正规发票 invoice " * 50, None),
                                           ("正规发票 invoice " * 50, "gb2312"), ("發票優惠 " * 50, "big5")])
def test_a_cut_inside_a_character_keeps_the_charset(text, declared):
    # A size cap may end the bytes inside a character: the reading must be the
    # uncut one's, less that character, never another charset's.
    codec = {"gb2312": "gb18030", "big5": "big5hkscs"}.get(declared, "utf-8")
    data = text.encode(codec)
    for cut in range(len(data) - 8, len(data)):
        got = decode_text(data[:cut], declared, cut=True)
        assert text.startswith(got) and len(got.encode(codec)) >= cut - 3, (cut, got[-10:])
    assert decode_text(data[:-1], declared, cut=True) == text[:-1]  # the last is a space


def test_decode_text_never_raises_on_garbage():
    for data in (bytes(range(256)), b"\xff\xfe\x00\x00" * 100, b"\x80" * 3):
        assert isinstance(decode_text(data, "gb2312"), str)
        assert isinstance(decode_text(data), str)


@pytest.mark.parametrize("header,expected", [
    ("=?gb2312?B?xOO6ww==?=", "你好"),
    ("=?utf-8?Q?caf=C3=A9_au_lait?=", "café au lait"),
    ("=?gbk?B?xOO6ww==?= =?gbk?B?xOO6ww==?=", "你好你好"),      # space between words dropped
    ("Re: =?iso-8859-1?q?r=E9union?= demain", "Re: réunion demain"),
    ("=?GB2312?B?xOO6ww?=", "你好"),                                # missing base64 padding
    ("plain \udcc4\udce3\udcba\udcc3 raw gb bytes", "plain 你好 raw gb bytes"),
    ("=?utf-8?B?!!!notbase64?=", "=?utf-8?B?!!!notbase64?="),
])
def test_rfc2047_headers(decoder, header, expected):
    assert decoder.decode_header_value(header) == expected


def test_encoded_from_display_name_and_subject_in_a_message(decoder):
    raw = (b"From: =?gb2312?B?1cXI/Q==?= <zhang@example.cn>\nSubject: =?gb2312?B?t6LGsQ==?=\n\nbody\n")
    headers = dict(decoder.decode_message(raw).headers)
    assert headers["from"] == "张三 <zhang@example.cn>"
    assert headers["subject"] == "发票"


def test_html_reduced_to_visible_text_with_links_kept(decoder):
    html = (b"<html><head><style>p {color: red}</style><script>var hidden = 1;</script></head>"
            b"<body><p>Get fr<!-- x -->ee pi<b></b>lls</p><p>now&nbsp;&amp; here &#20813;&#36153;</p>"
            b"<a href='http://cheap.pills.example/buy'>click</a><img src='http://img.example/x.gif' alt='SALE'>"
            b"</body></html>")
    decoded = decoder.decode_message(body_message(html, ctype="text/html", charset="utf-8"))
    text = decoded.texts[0]
    assert "free pills" in text and "now\xa0& here 免费" in text and "SALE" in text
    assert "color" not in text and "hidden" not in text
    assert decoded.urls == ["http://cheap.pills.example/buy", "http://img.example/x.gif"]


def test_multipart_alternative_and_attachment_bytes_not_read(decoder):
    raw = (b"From: a@example.com\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=XX\n\n"
           b"--XX\nContent-Type: multipart/alternative; boundary=YY\n\n"
           b"--YY\nContent-Type: text/plain; charset=utf-8\n\nplain words\n"
           b"--YY\nContent-Type: text/html; charset=utf-8\n\n<p>html words</p>\n--YY--\n"
           b"--XX\nContent-Type: application/pdf; name=\"invoice.pdf\"\n"
           b"Content-Disposition: attachment; filename=\"invoice.pdf\"\nContent-Transfer-Encoding: base64\n\n"
           + base64.encodebytes(b"%PDF-1.4 secretattachmentword") + b"--XX--\n")
    decoded = decoder.decode_message(raw)
    assert [t.strip() for t in decoded.texts] == ["plain words", "html words"]
    assert decoded.attachments == [("application/pdf", "invoice.pdf")]
    assert not any("secretattachmentword" in t for t in decoded.texts)


def test_multipart_without_boundary_is_read_as_its_body(decoder):
    raw = (b"From: a@example.com\nContent-Type: multipart/alternative; boundary=\"nowhere\"\n\n"
           + "<html><body>全国最低价 域名</body></html>".encode("gb2312"))
    decoded = decoder.decode_message(raw)
    assert "全国最低价 域名" in decoded.texts[0] and decoded.attachments == []


def test_garbage_never_raises(decoder):
    for raw in (b"", b"\x00\x01\x02" * 1000, bytes(range(256)) * 10,
                b"Content-Type: multipart/mixed; boundary=a\n\n--a\n--a\n--a--\n",
                b"Subject: =?x?Q?=ZZ=?=\n\n\xff"):
        result = decoder.decode_message(raw)
        assert isinstance(result.texts, list)


@pytest.mark.parametrize("text,charset,codec", [("未承諾広告 出会いの広場", "ISO-2022-JP", "iso2022_jp"),
                                                ("正规发票优惠", "HZ-GB-2312", "hz"),
                                                ("café", "UTF-7", "utf-7")])
def test_seven_bit_encodings_are_decoded_not_taken_as_ascii(decoder, text, charset, codec):
    raw = text.encode(codec)
    assert raw.isascii()
    assert decoder.decode_message(body_message(raw, charset=charset)).texts[0] == text


def test_iso_2022_jp_is_read_as_clients_read_it(decoder):
    # Half-width katakana (ESC ( I), which Python's iso2022_jp refuses and
    # the WHATWG decoder of mail clients reads; and a bad sequence costs a
    # replacement character, never the text (its escapes read as words).
    text = "出会いの広場 ｶﾀｶﾅ 無料"
    raw = text.encode("iso2022_jp_ext")
    assert b"\x1b(I" in raw
    assert decoder.decode_message(body_message(raw, charset="iso-2022-jp")).texts[0] == text
    broken = "出会い".encode("iso2022_jp") + b"\x1b$B\x7f\x7f\x1b(B" + "広場".encode("iso2022_jp")
    decoded = decoder.decode_message(body_message(broken, charset="ISO-2022-JP")).texts[0]
    assert decoded.startswith("出会い") and decoded.endswith("広場") and "$B" not in decoded


def test_adjacent_encoded_words_join_split_characters(decoder):
    raw = "发票".encode()
    first, second = base64.b64encode(raw[:2]).decode(), base64.b64encode(raw[2:]).decode()
    assert decoder.decode_header_value(f"=?utf-8?B?{first}?= =?utf-8?B?{second}?=") == "发票"


@pytest.mark.parametrize("charset", ["idna", "punycode", "undefined", "base64"])
def test_non_text_codecs_named_as_charsets_fall_back(decoder, charset):
    raw = (b"Subject: s\nContent-Type: text/plain; charset=" + charset.encode() + b"\n\n" +
           "正规发票".encode("gb2312"))
    decoded = decoder.decode_message(raw)
    assert not decoded.parse_failed and "正规发票" in decoded.texts[0]


def test_big5_with_ascii_second_bytes_is_sniffed():
    text = "發票優惠，歡迎來電洽詢。我們的服務品質一流"
    assert decode_text(text.encode("big5")) == text


def test_attributes_past_the_budget_are_stepped_over_and_the_text_kept():
    from spamnb._core import HtmlBudget as Budget
    from spamnb._core import html_to_text

    markup = "<p class=a id=b><a href='http://one.example/'>one</a> <a title=t href='http://two.example/'>two</a>"
    assert html_to_text(markup, Budget()) == (" one two", ["http://one.example/", "http://two.example/"])
    # Three attributes read: the second link's href is the fourth.
    assert html_to_text(markup, Budget(attributes=3)) == (" one two", ["http://one.example/"])
    # A tag of many attributes: its link is read while the budget lasts, not past it.
    many = "<a" + " b" * 100_000 + " href='http://far.example/'>far</a>"
    assert html_to_text(many, Budget()) == ("far", [])
    assert html_to_text(many, Budget(attributes=200_000)) == ("far", ["http://far.example/"])
