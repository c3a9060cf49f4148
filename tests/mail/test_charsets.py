"""Text of undeclared or wrongly declared charset: bytes in, text out.

Each test states what `decode_text` (the one entry point for text of any
charset) gives for bytes a mail client would show as the text written here,
whatever decides it inside.  The texts are our own, written the way the
spam and mail of each language write.
"""

import json

import pytest

from conftest import run_spamnb
from spamnb.mail.charsets import decode_text
from spamnb.mail.message import decode_message

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
def test_undeclared_text_reads_as_written(text, codec):
    data = text.encode(codec)
    assert decode_text(data) == text
    # A label that only says "somebody's default" is no declaration either.
    assert decode_text(data, "us-ascii") == text
    assert text.strip() in decode_message(b"Subject: s\n\n" + data).texts[0]


@pytest.mark.parametrize("text,codec", [(JAPANESE, "shift_jis"), (KOREAN, "euc_kr"), (CHINESE_TRADITIONAL, "big5")])
def test_a_declared_charset_the_bytes_do_not_decode_as_is_sniffed(text, codec):
    assert decode_text(text.encode(codec), "utf-8") == text


@pytest.mark.parametrize("text,codec", [("박선미", "euc_kr"), ("김지훈", "euc_kr"), ("양민수", "euc_kr"),
                                        ("優質情趣", "big5"), ("李旭倩", "big5"), ("今週のおすすめ", "shift_jis"),
                                        ("王先生", "gb2312"), ("娜娜", "gb2312")])
def test_short_header_words_read_as_written(text, codec):
    # A From name is a few characters; spam from each country sends them raw.
    assert decode_text(text.encode(codec)) == text


@pytest.mark.parametrize("text", ["won’t", "Java’s “skills”", "price: 5 €, really", "naïve café",
                                  "¡This is quoted-printable!", "a 0.1 µF capacitor", "Université de Montréal"])
def test_western_text_with_a_few_8_bit_bytes_stays_western(text):
    # Each also reads as one CJK codec or another: "won’t" is 77 6F 6E 92 74,
    # and 92 74 is a Shift_JIS kanji (稚); "¡T" is a Big5 symbol, "µF" a Big5
    # ideograph.
    assert decode_text(text.encode("cp1252")) == text


def test_english_written_with_gb2312_punctuation_stays_chinese():
    # The curly quotes of a Chinese editor are two bytes (’ is A1 AF), which
    # Windows-1252 would show as ¡¯.
    text = "Experience in Java’s “J2EE” is a plus．Send your resume to us．"
    assert decode_text(text.encode("gb2312")) == text


def test_a_stray_bad_byte_does_not_lose_the_language():
    # A lead byte cut from its character (a broken line): the rest is read
    # in the text's own charset, the lone byte is a replacement character.
    for text, codec in ((JAPANESE * 3, "shift_jis"), (CHINESE_SIMPLIFIED * 3, "gb2312"), (KOREAN * 3, "euc_kr")):
        cut = text.index("\n", len(text) // 2)
        got = decode_text(text[:cut].encode(codec) + b"\x81" + text[cut:].encode(codec))
        assert got == text[:cut] + "\ufffd" + text[cut:]


def test_a_declared_charset_that_decodes_is_kept():
    # Korean bytes that GB2312 also decodes (as rare characters): the
    # sender's declaration is believed, as it is for Chinese mail.
    korean = KOREAN.encode("euc_kr")
    assert decode_text(korean, "gb2312") == korean.decode("gb18030") != KOREAN
    assert decode_text(CHINESE_SIMPLIFIED.encode("gb2312"), "gb2312") == CHINESE_SIMPLIFIED
    japanese = JAPANESE.encode("shift_jis")
    assert decode_text(japanese, "gbk") == japanese.decode("gb18030")


@pytest.mark.parametrize("text,codec", [(JAPANESE * 20, "shift_jis"), (KOREAN * 20, "euc_kr"),
                                        (CHINESE_TRADITIONAL * 20, "big5")])
def test_a_cut_inside_a_character_keeps_the_sniffed_charset(text, codec):
    data = text.encode(codec)
    for cut in range(len(data) - 6, len(data)):
        got = decode_text(data[:cut], cut=True)
        assert text.startswith(got) and len(got.encode(codec)) >= cut - 2, (cut, got[-10:])


def test_sniffing_never_raises_on_garbage():
    for data in (bytes(range(256)) * 3, b"\x81\x40" * 5000 + b"\xff", b"\xa1" * 9999, bytes(range(128, 256)) * 50):
        assert isinstance(decode_text(data), str)
        assert isinstance(decode_text(data, cut=True), str)


def test_a_model_of_undeclared_shift_jis_spam_holds_japanese_words(tmp_path):
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
