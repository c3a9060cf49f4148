"""Text of undeclared or wrongly declared charset: bytes in, text out.

Each test states what `decode_text` (the one entry point for text of any
charset) gives for bytes a mail client would show as the text written here,
whatever decides it inside.  The texts are our own, written the way the
spam and mail of each language write.

Each test runs on the Rust core's decode_text (spamnb._core); the expected
values of the last ones were written out from the deleted Python
implementation (spamnb/mail/charsets.py), which the core matched.
"""

import json
import random
import re
import time

import pytest

from conftest import run_spamnb
from spamnb import _core
from core_mail import decode_message


@pytest.fixture
def decode_text():
    return _core.decode_text

# Full-width spaces, brackets and box drawing around the words: what the
# undeclared Shift_JIS spam of trec06p is made of, and what GB18030 read as
# 丂 (81 40, the full-width space), 仭 and 剑.
JAPANESE = ("　　　　【完全無料】素敵な出会いサイトのご案内　　　　\n"
            "┏━━━━━━━━━━━━━━━━━━┓\n┃　　　今すぐ無料登録　　　　　　　┃\n┗━━━━━━━━━━━━━━━━━━┛\n"
            "　　　　会員様限定のお知らせをお届けします。\n")
CHINESE_SIMPLIFIED = "本公司长期代开各类正规发票，税点优惠，欢迎来电咨询。联系人：王先生\n"
CHINESE_TRADITIONAL = "本公司長期代開各類正規發票，稅點優惠，歡迎來電洽詢。聯絡人：王先生\n"
KOREAN = "[광고] 회원님께 특별한 혜택을 드립니다. 지금 바로 무료로 가입하세요!\n수신을 원하지 않으시면 거부를 눌러주세요.\n"
FRENCH = "Café crème à Noël : l’été dernier, « très cher » — voilà.\n"
GERMAN = "Größe über alles, schöne Grüße aus Köln.\n"


@pytest.mark.parametrize("text,codec", [
    (JAPANESE, "shift_jis"),
    (JAPANESE, "cp932"),
    (JAPANESE, "euc_jp"),
    (JAPANESE, "iso2022_jp"),
    (CHINESE_SIMPLIFIED, "gb2312"),
    ("朱镕基和张喆来了，欢迎光临" + CHINESE_SIMPLIFIED, "gbk"),  # 镕 and 喆 are outside GB2312
    (CHINESE_TRADITIONAL, "big5"),
    (KOREAN, "euc_kr"),
    (FRENCH, "cp1252"),
    (GERMAN, "latin-1"),
    (JAPANESE + CHINESE_SIMPLIFIED + KOREAN + FRENCH, "utf-8"),
])
def test_undeclared_text_reads_as_written(text, codec, decode_text):
    data = text.encode(codec)
    assert decode_text(data) == text
    # A label that only says "somebody's default" is no declaration either.
    assert decode_text(data, "us-ascii") == text
    assert text.strip() in decode_message(b"Subject: s\n\n" + data).texts[0]


@pytest.mark.parametrize("text,codec", [(JAPANESE, "shift_jis"), (KOREAN, "euc_kr"), (CHINESE_TRADITIONAL, "big5")])
def test_a_declared_charset_the_bytes_do_not_decode_as_is_sniffed(text, codec, decode_text):
    assert decode_text(text.encode(codec), "utf-8") == text


@pytest.mark.parametrize("text,codec", [("박선미", "euc_kr"), ("김지훈", "euc_kr"), ("양민수", "euc_kr"),
                                        ("優質情趣", "big5"), ("李旭倩", "big5"), ("今週のおすすめ", "shift_jis"),
                                        ("王先生", "gb2312"), ("娜娜", "gb2312")])
def test_short_header_words_read_as_written(text, codec, decode_text):
    # A From name is a few characters; spam from each country sends them raw.
    assert decode_text(text.encode(codec)) == text


@pytest.mark.parametrize("text", ["won’t", "Java’s “skills”", "price: 5 €, really", "naïve café",
                                  "¡This is quoted-printable!", "a 0.1 µF capacitor", "Université de Montréal"])
def test_western_text_with_a_few_8_bit_bytes_stays_western(text, decode_text):
    # Each also reads as one CJK codec or another: "won’t" is 77 6F 6E 92 74,
    # and 92 74 is a Shift_JIS kanji (稚); "¡T" is a Big5 symbol, "µF" a Big5
    # ideograph.
    assert decode_text(text.encode("cp1252")) == text


def test_english_written_with_gb2312_punctuation_stays_chinese(decode_text):
    # The curly quotes of a Chinese editor are two bytes (’ is A1 AF), which
    # Windows-1252 would show as ¡¯.
    text = "Experience in Java’s “J2EE” is a plus．Send your resume to us．"
    assert decode_text(text.encode("gb2312")) == text


def test_a_stray_bad_byte_does_not_lose_the_language(decode_text):
    # A lead byte cut from its character (a broken line): the rest is read
    # in the text's own charset, the lone byte is a replacement character.
    for text, codec in ((JAPANESE * 3, "shift_jis"), (CHINESE_SIMPLIFIED * 3, "gb2312"), (KOREAN * 3, "euc_kr")):
        cut = text.index("\n", len(text) // 2)
        got = decode_text(text[:cut].encode(codec) + b"\x81" + text[cut:].encode(codec))
        assert got == text[:cut] + "\ufffd" + text[cut:]


def test_a_declared_charset_that_decodes_is_kept(decode_text):
    # Korean bytes that GB2312 also decodes (as rare characters): the
    # sender's declaration is believed, as it is for Chinese mail.
    korean = KOREAN.encode("euc_kr")
    assert decode_text(korean, "gb2312") == korean.decode("gb18030") != KOREAN
    assert decode_text(CHINESE_SIMPLIFIED.encode("gb2312"), "gb2312") == CHINESE_SIMPLIFIED
    japanese = JAPANESE.encode("shift_jis")
    assert decode_text(japanese, "gbk") == japanese.decode("gb18030")


@pytest.mark.parametrize("text,codec", [(JAPANESE * 20, "shift_jis"), (KOREAN * 20, "euc_kr"),
                                        (CHINESE_TRADITIONAL * 20, "big5")])
def test_a_cut_inside_a_character_keeps_the_sniffed_charset(text, codec, decode_text):
    data = text.encode(codec)
    for cut in range(len(data) - 6, len(data)):
        got = decode_text(data[:cut], cut=True)
        assert text.startswith(got) and len(got.encode(codec)) >= cut - 2, (cut, got[-10:])


def test_sniffing_never_raises_on_garbage(decode_text):
    for data in (bytes(range(256)) * 3, b"\x81\x40" * 5000 + b"\xff", b"\xa1" * 9999, bytes(range(128, 256)) * 50):
        assert isinstance(decode_text(data), str)
        assert isinstance(decode_text(data, cut=True), str)


def test_a_model_of_undeclared_shift_jis_spam_holds_japanese_words(tmp_path):  # the pipeline's own decode_text
    (tmp_path / "spam").mkdir()
    (tmp_path / "ham").mkdir()
    for i, subject in enumerate(["Hello", "Info", "News"]):
        body = JAPANESE.replace("お知らせ", ("お知らせ", "ご案内", "特典")[i]).encode("shift_jis")
        (tmp_path / "spam" / f"{i}.eml").write_bytes(b"From: info@example.jp\nSubject: " + subject.encode()
                                                     + b"\n\n" + body)
        (tmp_path / "ham" / f"{i}.eml").write_bytes(b"From: bob@example.org\nSubject: lunch\n\n"
                                                    b"See you at noon for the meeting notes.\n")
    model = tmp_path / "m.spamnb"
    trained = run_spamnb("train", tmp_path, "--model", model, "-q")
    assert trained.returncode == 0, trained.stderr.decode()
    top = json.loads(run_spamnb("inspect", "--model", model, "--top", "40", "--format", "json").stdout)["spam"]
    tokens = " ".join(row["token"] for row in top)
    assert "丂" not in tokens and "仭" not in tokens
    looked = json.loads(run_spamnb("inspect", "--model", model, "--word", "出会", "--word", "登録",
                                   "--word", "無料", "--format", "json").stdout)["words"]
    assert all(row.get("weight") and row["ham_count"] == 0 for row in looked), looked


# --- labels, 7-bit escapes, and any bytes ---

LABELS = [None, "", "utf-8", "UTF8", " 'utf-8' ", "utf 8", "u8", "gb2312", "GBK", "gb18030", "936", "x-gbk",
          "big5", "big5-hkscs", "cp950", "euc-kr", "euc_kr", "ks_c_5601-1987", "cp949", "shift_jis", "Shift-JIS",
          "sjis", "cp932", "euc-jp", "iso-2022-jp", "ISO-2022-JP-2", "iso-2022-kr", "hz-gb-2312", "utf-7",
          "utf-16", "utf-16le", "utf-32", "iso-8859-1", "latin1", "l1", "iso_8859-15", "iso8859_2", "koi8-r",
          "windows-1251", "cp1252", "us-ascii", "ascii", "default", "unknown-8bit", "x-unknown", "idna",
          "punycode", "base64", "rot13", "undefined", "unicode_escape", "utf\x008", "utf..8", "utf.8",
          "\u3000gbk\u3000", "\x1cgbk", "mac-roman", "cp037", "tis-620", "johab", "nonsense", "=?utf-8?"]


# What the deleted Python gave each label ("": none, so sniff).
CODECS = {
    None: '',
    '': '',
    'utf-8': 'utf-8',
    'UTF8': 'utf-8',
    " 'utf-8' ": 'utf-8',
    'utf 8': 'utf-8',
    'u8': 'utf-8',
    'gb2312': 'gb18030',
    'GBK': 'gb18030',
    'gb18030': 'gb18030',
    '936': 'gbk',
    'x-gbk': 'gb18030',
    'big5': 'big5hkscs',
    'big5-hkscs': 'big5hkscs',
    'cp950': 'cp950',
    'euc-kr': 'cp949',
    'euc_kr': 'euc_kr',
    'ks_c_5601-1987': 'cp949',
    'cp949': 'cp949',
    'shift_jis': 'shift_jis',
    'Shift-JIS': 'shift_jis',
    'sjis': 'shift_jis',
    'cp932': 'cp932',
    'euc-jp': 'euc_jp',
    'iso-2022-jp': 'iso2022_jp_ext',
    'ISO-2022-JP-2': 'iso2022_jp_2',
    'iso-2022-kr': 'iso2022_kr',
    'hz-gb-2312': 'hz',
    'utf-7': 'utf-7',
    'utf-16': 'utf-16',
    'utf-16le': 'utf-16-le',
    'utf-32': 'utf-32',
    'iso-8859-1': 'cp1252',
    'latin1': 'cp1252',
    'l1': 'iso8859-1',
    'iso_8859-15': 'iso8859-15',
    'iso8859_2': 'iso8859-2',
    'koi8-r': 'koi8-r',
    'windows-1251': 'cp1251',
    'cp1252': 'cp1252',
    'us-ascii': 'cp1252',
    'ascii': 'cp1252',
    'default': '',
    'unknown-8bit': '',
    'x-unknown': '',
    'idna': '',
    'punycode': '',
    'base64': '',
    'rot13': '',
    'undefined': '',
    'unicode_escape': 'unicode-escape',
    'utf\x008': '',
    'utf..8': '',
    'utf.8': '',
    '\u3000gbk\u3000': 'gb18030',
    '\x1cgbk': 'gb18030',
    'mac-roman': 'mac-roman',
    'cp037': 'cp037',
    'tis-620': 'tis-620',
    'johab': 'johab',
    'nonsense': '',
    '=?utf-8?': 'utf-8',
}


def test_codec_for_each_label():
    assert list(CODECS) == LABELS
    for label in LABELS:
        assert _core.codec_for(label) == CODECS[label], label


def _inputs():
    """Bytes of every kind decode_text meets: text of each codec, cut at
    each place, with stray and garbage bytes, and 7-bit escapes."""
    rng = random.Random(7)
    texts = [JAPANESE, CHINESE_SIMPLIFIED, CHINESE_TRADITIONAL, KOREAN, FRENCH, GERMAN]
    codecs = ["shift_jis", "cp932", "euc_jp", "iso2022_jp", "gb2312", "gbk", "gb18030", "big5", "big5hkscs",
              "euc_kr", "cp949", "cp1252", "latin-1", "utf-8", "utf-16", "utf-7", "hz", "koi8-r"]
    for text in texts:
        for codec in codecs:
            try:
                data = text.encode(codec)
            except UnicodeError:
                continue
            yield data
            for cut in (1, 2, 3, len(data) // 2, len(data) // 2 + 1, len(data) - 1):
                yield data[:cut]
            position = rng.randrange(len(data))
            yield data[:position] + bytes([rng.randrange(0x80, 0x100)]) + data[position:]
    yield bytes(range(256))
    yield b"\x1b$B$3$s$K$A$O\x1b(B"
    yield b"\x1b$B$3$s\x1b(B\x1b$B\x1b(B \x1b(J\\~\x1b(I12\x1b(B \x1b$(D+!\x1b(B\x1bx\x80ab"
    yield b"~{<:Ky~}~~~\n"
    yield b"+AGEAYgBj- +ZeVnLIqe-"
    for _ in range(300):
        yield bytes(rng.choice([rng.randrange(0x80, 0x100), rng.randrange(0x20, 0x7f), 0x1b, 0x0e, 0x0f, 0x7e, 0x2b])
                    for _ in range(rng.randrange(1, 40)))


# 7-bit escapes (ISO-2022-JP with JIS X 0201 and a bad set, HZ, UTF-7) under
# each label, cut or not: the deleted Python's readings.
SEVEN_BIT = [
    (b'\x1b$B$3$s$K$A$O\x1b(B', None, 'こんにちは'),
    (b'\x1b$B$3$s$K$A$O\x1b(B', 'iso-2022-jp', 'こんにちは'),
    (b'\x1b$B$3$s$K$A$O\x1b(B', 'hz', '\x1b$B$3$s$K$A$O\x1b(B'),
    (b'\x1b$B$3$s$K$A$O\x1b(B', 'utf-7', '\x1b$B$3$s$K$A$O\x1b(B'),
    (b'\x1b$B$3$s$K$A$O\x1b(B', 'us-ascii', 'こんにちは'),
    (b'\x1b$B$3$s\x1b(B\x1b$B\x1b(B \x1b(J\\~\x1b(I12\x1b(B \x1b$(D+!\x1b(B\x1bx\x80ab', None, '\x1b$B$3$s\x1b(B\x1b$B\x1b(B \x1b(J\\~\x1b(I12\x1b(B \x1b$(D+!\x1b(B\x1bx€ab'),
    (b'\x1b$B$3$s\x1b(B\x1b$B\x1b(B \x1b(J\\~\x1b(I12\x1b(B \x1b$(D+!\x1b(B\x1bx\x80ab', 'iso-2022-jp', 'こん ¥‾ｱｲ á\x1bx\x80ab'),
    (b'\x1b$B$3$s\x1b(B\x1b$B\x1b(B \x1b(J\\~\x1b(I12\x1b(B \x1b$(D+!\x1b(B\x1bx\x80ab', 'hz', '\x1b$B$3$s\x1b(B\x1b$B\x1b(B \x1b(J\\�\x1b(I12\x1b(B \x1b$(D+!\x1b(B\x1bx�ab'),
    (b'\x1b$B$3$s\x1b(B\x1b$B\x1b(B \x1b(J\\~\x1b(I12\x1b(B \x1b$(D+!\x1b(B\x1bx\x80ab', 'utf-7', '\x1b$B$3$s\x1b(B\x1b$B\x1b(B \x1b(J\\~\x1b(I12\x1b(B \x1b$(D�\x1b(B\x1bx�ab'),
    (b'\x1b$B$3$s\x1b(B\x1b$B\x1b(B \x1b(J\\~\x1b(I12\x1b(B \x1b$(D+!\x1b(B\x1bx\x80ab', 'us-ascii', '\x1b$B$3$s\x1b(B\x1b$B\x1b(B \x1b(J\\~\x1b(I12\x1b(B \x1b$(D+!\x1b(B\x1bx€ab'),
    (b'~{<:Ky~}~~~\n', None, '~{<:Ky~}~~~\n'),
    (b'~{<:Ky~}~~~\n', 'iso-2022-jp', '~{<:Ky~}~~~\n'),
    (b'~{<:Ky~}~~~\n', 'hz', '己所~'),
    (b'~{<:Ky~}~~~\n', 'utf-7', '~{<:Ky~}~~~\n'),
    (b'~{<:Ky~}~~~\n', 'us-ascii', '~{<:Ky~}~~~\n'),
    (b'+AGEAYgBj- +ZeVnLIqe-', None, '+AGEAYgBj- +ZeVnLIqe-'),
    (b'+AGEAYgBj- +ZeVnLIqe-', 'iso-2022-jp', '+AGEAYgBj- +ZeVnLIqe-'),
    (b'+AGEAYgBj- +ZeVnLIqe-', 'hz', '+AGEAYgBj- +ZeVnLIqe-'),
    (b'+AGEAYgBj- +ZeVnLIqe-', 'utf-7', 'abc 日本語'),
    (b'+AGEAYgBj- +ZeVnLIqe-', 'us-ascii', '+AGEAYgBj- +ZeVnLIqe-'),
]


@pytest.mark.parametrize("data,label,expected", SEVEN_BIT)
def test_seven_bit_escapes_read_as_the_label_says(data, label, expected):
    assert _core.decode_text(data, label) == expected
    assert _core.decode_text(data, label, True) == expected


def test_any_bytes_under_any_label_give_text():
    # A lone surrogate of UTF-7, which Python kept, is U+FFFD: a Rust string
    # cannot hold it, and neither can the text passed on.
    assert _core.decode_text(b"+2D3-", "utf-7") == "\ufffd"
    for data in _inputs():
        for label in (None, "utf-8", "gb2312", "big5", "euc-kr", "shift_jis", "euc-jp", "iso-2022-jp",
                      "iso-2022-kr", "hz", "utf-7", "us-ascii", "koi8-r"):
            for cut in (False, True):
                text = _core.decode_text(data, label, cut)
                assert isinstance(text, str) and not re.search("[\ud800-\udfff]", text), (data, label, cut)


@pytest.mark.parametrize("unit", [
    "正規發票".encode("big5"),
    "　【完全無料】出会い┃".encode("shift_jis"),
    "caf\xe9 cr\xe8me ".encode("latin-1"),
    b"\x81\x0a",
    b"\x1b$B",
])
def test_the_core_is_linear(unit):
    def seconds(data):
        start = time.process_time()
        _core.decode_text(data)
        _core.decode_text(data, "iso-2022-jp")
        return time.process_time() - start

    seconds(unit * 10)
    small = min(seconds(unit * 20000) for _ in range(3))
    large = min(seconds(unit * 80000) for _ in range(3))
    assert large <= 4 * max(small, 1e-4) * 2.5, (small, large)
