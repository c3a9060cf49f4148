"""Variant folding: Chinese written in forms that look or read like the plain
ones (Traditional characters, variants, look-alikes: 涐司岢办理正規髮票,
增値税) back to plain Simplified text (我司可办理正规发票, 增值税), so that a
disguised word scores like the word it imitates.

Three steps, after the tokenizer's NFKC (which already folds full-width
letters, enclosed and compatibility ideographs and Kangxi radicals: ㊣ → 正):

1. a table of variant and look-alike characters, data/variants.txt, derived
   from Unicode's Unihan variant data and OpenCC's variant dictionaries by
   tools/variants_table.py (sources, licences and selection rules there and
   in the file's header), plus the short hand list below;
2. OpenCC's t2s, Traditional to Simplified with its phrase tables.

Only Han text loads any of it: English mail never reads the table or imports
OpenCC.  Reading and checking the table takes about 1 ms, OpenCC's t2s about
4.5 ms (measured in a spamnb process).
"""

from __future__ import annotations

from functools import lru_cache

import zlib
from pathlib import Path

from ..errors import SpamnbError

TABLE_PATH = Path(__file__).parent.with_name("data") / "variants.txt"

# Spam forms that no source covers: real characters of their own (mostly a
# radical added to a common character) that Unicode does not call variants
# of the character they imitate.  Each is rare in plain Simplified mail;
# folding changes a real word only where the rare character was meant.
HAND = {
    "涐": "我",  # 氵+我; a river name (涐水), never in ordinary mail
    "硪": "我",  # 石+我; a builder's rammer (石硪)
    "莪": "我",  # 艹+我; a herb (莪术), a poem title (蓼莪)
    "岢": "可",  # 山+可; only the county 岢岚
    "沵": "你",  # 氵+尔, read as 你
    "妳": "你",  # the feminine "you" of Taiwanese writing: 你 in Simplified
    "菂": "的",  # 艹+的; lotus seed, archaic
    "嘚": "得",  # 口+得; an onomatopoeia (嘚嘚)
    "芣": "不",  # 艹+不; a plant (芣苢)
    "嶶": "微",  # 山+微, no meaning of its own in mail
    "沩": "为",  # 氵+为; a river and mountain in Hunan (沩山)
    "嚸": "点",  # 口+點: Unihan makes it a variant of a rare Extension G character, not of 点
    "蕙": "惠",  # 艹+惠; an orchid (蕙兰) and a given name: spam writes 优蕙 for 优惠
}
# Left out on purpose: 薇 for 微 (the old hand list had it): a common
# character of names and flowers (蔷薇), which plain mail writes for itself.

_table: dict[int, str] | None = None
_converter = None


class VariantTableError(SpamnbError):
    """The installed variant table is damaged: a broken installation."""


def load_table(path: Path | None = None) -> dict[int, str]:
    """{code point: plain character} from the table file and the hand list,
    for str.translate.  The file is checked: its entry count and SHA-256 must
    match its header, every fold is one character to one other, and no plain
    character is itself folded (one pass gives the final form)."""
    path = TABLE_PATH if path is None else path

    def damaged(why: str) -> VariantTableError:
        return VariantTableError(f"the variant table {path} is damaged ({why}); reinstall spamnb")

    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as error:
        raise VariantTableError(f"cannot read the variant table {path}: {error.strerror or error}; "
                                "reinstall spamnb") from None
    except UnicodeDecodeError:
        raise damaged("not UTF-8") from None
    header: dict[str, str] = {}
    position = 0
    while text.startswith("#", position):
        end = text.find("\n", position) + 1 or len(text)
        key, colon, value = text[position + 1:end].strip().partition(":")
        if colon:
            header[key.strip()] = value.strip()
        position = end
    body = text[position:]
    if "crc32" not in header or "entries" not in header:
        raise damaged("no entries or crc32 line in its header")
    # CRC-32 (zlib, which scoring has loaded already) finds damage; hashlib
    # would cost 2.5 ms of import for no more than that.
    if f"{zlib.crc32(body.encode('utf-8')):08x}" != header["crc32"]:
        raise damaged("its checksum does not match")
    table: dict[int, str] = {}
    for number, line in enumerate(body.splitlines(), start=1):
        plain, tab, variants = line.partition("\t")
        if len(plain) != 1 or not tab or not variants:
            raise damaged(f"entry line {number} is not a character, a tab and its variants")
        for variant in variants:
            if ord(variant) in table or variant == plain:
                raise damaged(f"entry line {number} folds {variant!r} twice")
            table[ord(variant)] = plain
    if str(len(table)) != header["entries"]:
        raise damaged(f"{len(table)} entries, its header says {header['entries']}")
    for variant, plain in HAND.items():
        table[ord(variant)] = plain
    if any(ord(plain) in table for plain in table.values()):
        raise damaged("a plain character is itself folded")
    return table


def fold_variants(run: str) -> str:
    """Variants and look-alikes to their plain characters, then Traditional to
    Simplified (OpenCC's t2s): 涐司岢办理正規髮票 → 我司可办理正规发票.
    Short runs are remembered, as their segmentation is (a call into OpenCC
    costs more than the look-up: text of one Han character after another
    paid it for each)."""
    global _cached_run_length
    if not _cached_run_length:  # chinese.py imports this module: its constant is read at the first call
        from .chinese import CACHED_RUN_LENGTH

        _cached_run_length = CACHED_RUN_LENGTH
    if len(run) <= _cached_run_length:
        return _fold_cached(run)
    return _fold(run)


# chinese.CACHED_RUN_LENGTH, once read: an import statement at every call
# cost text of one Han character after another 1-2 us a run.
_cached_run_length = 0


@lru_cache(maxsize=16384)
def _fold_cached(run: str) -> str:
    return _fold(run)


def _fold(run: str) -> str:
    global _table, _converter
    if _table is None:
        _table = load_table()
    # OpenCC stays as it is: importing it and loading t2s costs ~4.5 ms in a
    # spamnb process (14 ms alone), ~3 % of a cold classify, and an exact
    # stand-in would need its phrase tables, which the binding does not
    # expose: a table of characters is not enough (乾 → 干, but 乾隆 stays).
    if _converter is None:
        import opencc

        _converter = opencc.OpenCC("t2s")
    return _converter.convert(run.translate(_table))


def fold_word(word: str) -> str:
    """A word (or a `field:word` token) as the tokenizer would fold it,
    without segmenting it: 發票 → 发票, subject:優蕙 → subject:优惠."""
    if not word or max(word) < "\u2e80":
        return word
    from .tokens import _han_run

    pieces = _han_run().split(word)
    return "".join(fold_variants(piece) if index % 2 else piece for index, piece in enumerate(pieces))
