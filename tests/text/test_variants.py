"""Variant folding: the forms spam writes score as the words they imitate,
from a table derived from Unicode's and OpenCC's data (tools/variants_table.py),
compiled into the core (spamnb._core) with OpenCC's t2s dictionaries; OpenCC
itself (the [test] extra) is the oracle."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, run_spamnb
from spamnb import _core
from spamnb.text.tokens import TokenizerOptions, text_tokens

DEFAULT = TokenizerOptions()
TABLE_PATH = ROOT / "spamnb" / "data" / "variants.txt"

# Spam forms that no source covers, folded by a hand list compiled into the
# core (core/src/text/variants.rs) on top of the table file.
HAND = {"涐": "我", "硪": "我", "莪": "我", "岢": "可", "沵": "你", "妳": "你", "菂": "的", "嘚": "得", "芣": "不",
        "嶶": "微", "沩": "为", "嚸": "点", "蕙": "惠"}


def table_of_file(text: str) -> dict[int, str]:
    """{code point: plain character} of the table file's entry lines (a
    plain character, a tab, its variants) and the hand list."""
    table = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            plain, variants = line.split("\t")
            table.update((ord(variant), plain) for variant in variants)
    table.update((ord(variant), plain) for variant, plain in HAND.items())
    return table


@pytest.mark.parametrize("disguised, plain", [
    ("增値税", "增值税"),    # 値: Unihan kZVariant of 值
    ("嚸数", "点数"),        # 嚸: hand list (Unihan points it at an Extension G character)
    ("优蕙", "优惠"),        # 蕙: hand list
    ("涐司", "我司"),        # 涐: hand list
    ("岢靠", "可靠"),        # 岢: hand list
    ("㊣规", "正规"),        # ㊣: NFKC
    ("髮票", "发票"),        # 髮: OpenCC t2s
    ("伱好", "你好"),        # 伱: Unihan kSemanticVariant of 你
    ("優恵", "优惠"),        # 恵: OpenCC's Japanese forms
    ("專⻔", "专门"),        # ⻔: a CJK radical, Unicode's EquivalentUnifiedIdeograph
    ("弌次", "一次"),        # 弌: semantic variant of 一 and 壹; 一 by frequency
    ("發票優惠", "发票优惠"),  # Traditional generally
])
def test_each_form_spam_uses_folds_to_the_plain_word(disguised, plain):
    assert text_tokens(disguised, DEFAULT) == text_tokens(plain, DEFAULT) != []


def test_a_rewritten_sentence_tokenizes_as_its_plain_form():
    # Traditional, variants, radicals-added look-alikes, an enclosed
    # ideograph, a CJK radical and full-width letters and digits together.
    disguised = ("本公司長期代開各地區増値稅專用髮票，普通發票，嚸數優蕙，歡迎來電諮詢ＱＱ：１２３４５，"
                 "涐司岢以㊣規開具，專⻔為伱服務")
    plain = ("本公司长期代开各地区增值税专用发票，普通发票，点数优惠，欢迎来电咨询QQ：12345，"
             "我司可以正规开具，专门为你服务")
    assert text_tokens(disguised, DEFAULT) == text_tokens(plain, DEFAULT)
    unfolded = TokenizerOptions(fold_variants=False)
    assert text_tokens(disguised, unfolded) != text_tokens(plain, unfolded)


def in_gb2312(char):
    try:
        char.encode("gb2312")
    except UnicodeEncodeError:
        return False
    return True


def test_table_loads_and_keeps_to_its_rules():
    table = _core.load_variant_table(TABLE_PATH.read_text(encoding="utf-8"))
    assert table == table_of_file(TABLE_PATH.read_text(encoding="utf-8"))
    derived = {chr(key): plain for key, plain in table.items() if chr(key) not in HAND}
    assert len(derived) > 1000
    # Plain Simplified mail never writes a folded character (no fold of one
    # common character into another), and every fold lands on what it writes.
    assert not [char for char in derived if in_gb2312(char)]
    assert all(in_gb2312(plain) for plain in table.values())
    # One pass is final: no plain character is itself folded.
    assert not set(map(ord, table.values())) & set(table)
    assert all(table[ord(variant)] == plain for variant, plain in HAND.items())
    assert len(HAND) < 20  # a short list of what no source covers


def test_table_file_is_text_naming_its_sources_and_licences():
    text = TABLE_PATH.read_text(encoding="utf-8")
    header = [line for line in text.splitlines() if line.startswith("#")]
    assert "Unihan" in text and "OpenCC" in text and "Apache" in text and "Unicode License" in text
    assert any(line.startswith("# crc32: ") for line in header)
    licences = TABLE_PATH.with_name("variants-licences.txt").read_text(encoding="utf-8")
    assert "Apache License" in licences and "Unicode" in licences


def flip_one_entry(data: bytes) -> bytes:
    text = data.decode("utf-8")
    index = text.index("\n值\t") + 1
    return (text[:index] + "直" + text[index + 1:]).encode("utf-8")


def fold_twice_with_a_good_checksum(data: bytes) -> bytes:
    import zlib

    text = data.decode("utf-8")
    head, _, body = text.rpartition("# crc32: ")
    body = body.split("\n", 1)[1] + "一\t値\n"
    return (head + f"# crc32: {zlib.crc32(body.encode()):08x}\n" + body).encode("utf-8")


def test_english_mail_never_imports_opencc():
    code = ("import sys; from spamnb.text.tokens import text_tokens, TokenizerOptions; "
            "text_tokens('Free money, call now: 555-1234 www.example.com 發票', TokenizerOptions()); "
            "print('opencc' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.stdout.split() == ["False"]


def test_inspect_finds_a_word_written_in_variants(sample_model):
    looked = json.loads(run_spamnb("inspect", "--model", sample_model, "--word", "發票", "--word", "优蕙",
                                   "--format", "json").stdout)["words"]
    assert looked[0]["token"] == "发票" and looked[0]["spam_count"] > 0
    assert looked[1]["token"] == "优惠"


@pytest.mark.skipif(not Path("/usr/share/unicode/Unihan_Variants.txt.bz2").exists(),
                    reason="the table's sources need the Debian package unicode-data")
def test_committed_table_is_what_the_generator_builds():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "variants_table.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


# The core folds with the table compiled in from spamnb/data/variants.txt
# (checked alike) and OpenCC's t2s from OpenCC's own dictionaries
# (core/data/opencc_t2s.txt): the oracle is the table, then OpenCC's t2s.

def core_opencc_keys():
    text = (ROOT / "core" / "data" / "opencc_t2s.txt").read_text(encoding="utf-8")
    return [line.split("\t")[0] for line in text.splitlines() if "\t" in line and not line.startswith("#")]


@pytest.fixture(scope="module")
def fold():
    """The fold as it was defined: the table (variants and look-alikes to
    their plain characters), then OpenCC's t2s, phrases and all."""
    import opencc

    table = table_of_file(TABLE_PATH.read_text(encoding="utf-8"))
    converter = opencc.OpenCC("t2s")
    return lambda run: converter.convert(run.translate(table))


def test_core_folds_each_character_and_phrase_as_the_table_and_opencc(fold):
    texts = [chr(code) for code in [*range(0x2E80, 0x2F00), *range(0x3400, 0x4DC0), *range(0x4E00, 0xA000),
                                    *range(0xF900, 0xFB00), *range(0x20000, 0x2FA20)]]
    keys = core_opencc_keys()
    texts += keys + ["".join(keys[i:i + 5]) for i in range(0, len(keys), 3)]
    texts += [plain + "".join(chars) for plain, chars in
              (line.split("\t") for line in TABLE_PATH.read_text(encoding="utf-8").splitlines()
               if not line.startswith("#"))]
    texts += ["頭髮乾燥皇后著名於菟乾隆臺灣涐司岢办理規髮票", "", "發票\n優惠"]
    assert [t for t in texts if _core.fold_variants(t) != fold(t)] == []
    assert _core.fold_variants("乾隆乾燥") == "乾隆干燥"  # a phrase of OpenCC's, not a table of characters


@pytest.mark.parametrize("word, folded", [("發票", "发票"), ("subject:優蕙", "subject:优惠"), ("free", "free"),
                                          ("", ""), ("a發b票c", "a发b票c"), ("㊣規", "㊣规")])
def test_core_fold_word_folds_the_han_runs_of_a_token(word, folded):
    # Only the Han runs fold (no NFKC: ㊣ is not Han), as the tokenizer would.
    assert _core.fold_word(word) == folded


@pytest.mark.parametrize("change, why", [
    (flip_one_entry, "checksum"),
    (lambda data: data[: len(data) // 2], "checksum"),
    (lambda data: b"", "no entries or crc32"),
    (lambda data: data.replace(b"# entries:", b"# entrees:"), "no entries or crc32"),
    (fold_twice_with_a_good_checksum, "twice"),
], ids=["entry", "truncated", "empty", "header", "double"])
def test_core_refuses_a_damaged_table(change, why):
    with pytest.raises(ValueError, match=why):
        _core.load_variant_table(change(TABLE_PATH.read_bytes()).decode("utf-8", "replace"))
