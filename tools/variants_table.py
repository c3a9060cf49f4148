"""Build spamnb/data/variants.txt: which characters fold to which, from data.

The tokenizer reads Chinese as NFKC, then this table, then OpenCC's t2s
(Traditional to Simplified, with its phrase tables).  NFKC already folds
full-width letters, enclosed and compatibility ideographs and Kangxi
radicals; t2s folds Traditional characters.  What is left are variant and
look-alike characters that neither knows (値 for 值), and this table holds
them, derived from two well-kept sources:

- Unicode's Unihan database, Unihan_Variants.txt (kZVariant: the same
  character drawn differently; kSpoofingVariant: look-alikes used to spoof;
  kSemanticVariant: interchangeable in meaning; kSimplifiedVariant), and
  EquivalentUnifiedIdeograph.txt (CJK radicals that look like a unified
  ideograph), as the Debian package unicode-data ships them under
  /usr/share/unicode (Unicode License v3 / Unicode Terms of Use);
- OpenCC's own variant dictionaries as the opencc wheel ships them
  (TWVariantsRev, HKVariantsRev: Taiwan and Hong Kong forms to OpenCC's
  standard; JPShinjitaiCharacters: Japanese new forms to the old), dumped
  to text with the wheel's own opencc_dict tool (Apache License 2.0).

A character X folds to Y only when
- X is not in GB2312: plain Simplified Chinese does not write it, so the
  fold cannot change a word of ordinary Chinese mail (a table that mapped
  one common character to another would change meaning);
- Y, after t2s, is in GB2312: the fold lands on what plain mail writes;
- t2s does not already fold X (to Y, or to another GB2312 character, where
  OpenCC's choice stands);
- X is a character the tokenizer reads as Han (BMP ideographs, the
  compatibility block, CJK radicals); and
- the first source in the order above that gives X a target gives one;
  where it gives several (弌 is a semantic variant of both 一 and 壹), the
  one plain Chinese writes at least twice as often as any other, by the
  character frequencies of jieba's dictionary (jieba ships it: MIT), and
  none when no target is that much commoner (X is ambiguous, left out).

    apt-get install unicode-data     # once
    .venv/bin/python tools/variants_table.py [--check]

--check rebuilds the table and exits 1 if it differs from the file (the
file is committed; the build needs the Debian package).
"""

from __future__ import annotations

import argparse
import bz2
import os
import re
import subprocess
import sys
import tempfile
import unicodedata
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "spamnb" / "data" / "variants.txt"
LICENCES = OUTPUT.with_name("variants-licences.txt")
UNICODE = Path("/usr/share/unicode")
UNIHAN_FIELDS = ("kZVariant", "kSpoofingVariant", "kSemanticVariant", "kSimplifiedVariant")
# (dictionary, which side is the variant): each line of an OpenCC text
# dictionary is "KEY<TAB>VALUE [VALUE...]", the first value preferred.
OPENCC_DICTS = ("TWVariantsRev", "HKVariantsRev", "JPShinjitaiCharacters")


def in_gb2312(char: str) -> bool:
    try:
        char.encode("gb2312")
    except UnicodeEncodeError:
        return False
    return True


def tokenizer_han(char: str) -> bool:
    """A character spamnb's tokenizer puts in a Han run (tokens._HAN_RUN)."""
    return ("\u3400" <= char <= "\u4dbf" or "\u4e00" <= char <= "\u9fff"
            or "\uf900" <= char <= "\ufaff" or "\u2e80" <= char <= "\u2eff")


def unihan_pairs() -> dict[str, list[tuple[str, str]]]:
    """{field: [(character, variant)]}, both directions of each line."""
    out: dict[str, list[tuple[str, str]]] = {field: [] for field in UNIHAN_FIELDS}
    with bz2.open(UNICODE / "Unihan_Variants.txt.bz2", "rt", encoding="utf-8") as lines:
        for line in lines:
            if line.startswith("#") or not line.strip():
                continue
            code, field, values = line.rstrip("\n").split("\t")
            if field not in out:
                continue
            char = chr(int(code[2:], 16))
            for value in values.split():
                variant = chr(int(value.split("<")[0][2:], 16))
                out[field].append((char, variant))
                if field != "kSimplifiedVariant":  # the others hold both ways
                    out[field].append((variant, char))
    return out


def radical_pairs() -> list[tuple[str, str]]:
    out = []
    for line in (UNICODE / "EquivalentUnifiedIdeograph.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if not line:
            continue
        codes, target = (part.strip() for part in line.split(";"))
        first, _, last = codes.partition("..")
        for code in range(int(first, 16), int(last or first, 16) + 1):
            out.append((chr(code), chr(int(target, 16))))
    return out


def opencc_pairs(name: str) -> list[tuple[str, str]]:
    """(variant, standard) pairs of one OpenCC dictionary, single characters only."""
    import opencc

    clib = Path(opencc.__file__).parent / "clib"
    tool, share = clib / "bin" / "opencc_dict", clib / "share" / "opencc"
    environment = dict(os.environ, LD_LIBRARY_PATH=str(clib / "lib64"))
    with tempfile.TemporaryDirectory() as folder:
        text = Path(folder) / f"{name}.txt"
        subprocess.run([str(tool), "-i", str(share / f"{name}.ocd2"), "-o", str(text), "-f", "ocd2", "-t", "text"],
                       check=True, env=environment, capture_output=True)
        lines = text.read_text(encoding="utf-8").splitlines()
    out = []
    for line in lines:
        key, _, values = line.partition("\t")
        first = values.split(" ")[0]
        if len(key) == 1 and len(first) == 1:
            out.append((key, first))
    return out


def dictionary_path() -> Path:
    """jieba's dictionary: the installed wheel's dict.txt, or the core's copy."""
    try:
        import jieba
    except ImportError:
        return ROOT / "core" / "data" / "jieba_dict.txt"
    return Path(jieba.__file__).with_name("dict.txt")


def character_frequency() -> dict[str, int]:
    """{character: how often jieba's dictionary counts it as a word of its own}:
    the jieba wheel's dict.txt when jieba is installed, else the core's copy
    of it (core/data/jieba_dict.txt, tools/zh_core_tables.py: the same words
    and counts, tags dropped)."""
    out = {}
    with open(dictionary_path(), encoding="utf-8") as lines:
        for line in lines:
            if line.startswith("#") or not line.strip():
                continue
            word, count = line.split()[:2]
            if len(word) == 1:
                out[word] = int(count)
    return out


def build() -> tuple[dict[str, str], dict[str, int], list[str]]:
    """({variant: plain}, {source: folds it gave}, [notes])."""
    import opencc

    converter = opencc.OpenCC("t2s")

    def plain(char: str) -> str:
        """Where NFKC then t2s take a character, to a fixed point."""
        for _ in range(4):
            nxt = converter.convert(unicodedata.normalize("NFKC", char))
            if nxt == char:
                break
            char = nxt
        return char

    frequency = character_frequency()
    unihan = unihan_pairs()
    sources = [("Unihan kZVariant", unihan["kZVariant"]),
               ("Unicode EquivalentUnifiedIdeograph", radical_pairs()),
               ("Unihan kSpoofingVariant", unihan["kSpoofingVariant"])]
    sources += [(f"OpenCC {name}", opencc_pairs(name)) for name in OPENCC_DICTS]
    sources += [("Unihan kSemanticVariant", unihan["kSemanticVariant"]),
                ("Unihan kSimplifiedVariant", unihan["kSimplifiedVariant"])]

    table: dict[str, str] = {}
    given: dict[str, int] = {}
    ambiguous = 0
    decided: set[str] = set()
    for title, pairs in sources:
        targets: dict[str, set[str]] = {}
        for variant, standard in pairs:
            # The table sees text after NFKC, so its keys are NFKC forms.
            key = unicodedata.normalize("NFKC", variant)
            if len(key) != 1 or key in decided or not tokenizer_han(key) or in_gb2312(key):
                continue
            already = plain(key)
            if already != key and in_gb2312(already):
                continue  # NFKC and t2s fold it already: their choice stands
            target = plain(standard)
            if len(target) == 1 and in_gb2312(target) and target != already:
                targets.setdefault(key, set()).add(target)
        count = 0
        for key, found in sorted(targets.items()):
            decided.add(key)
            ranked = sorted(found, key=lambda char: (-frequency.get(char, 0), char))
            if len(ranked) > 1 and frequency.get(ranked[0], 0) < 2 * frequency.get(ranked[1], 0):
                ambiguous += 1
                continue
            table[key] = ranked[0]
            count += 1
        given[title] = count
    notes = [f"{ambiguous} characters whose source gives two targets of like frequency left out"]
    return table, given, notes


def render(table: dict[str, str], given: dict[str, int], notes: list[str]) -> str:
    by_target: dict[str, list[str]] = {}
    for variant, target in table.items():
        by_target.setdefault(target, []).append(variant)
    body = "".join(f"{target}\t{''.join(sorted(variants))}\n" for target, variants in sorted(by_target.items()))
    found = re.search(r"Version (\d+\.\d+\.\d+)", (UNICODE / "ReadMe.txt").read_text(encoding="utf-8", errors="replace"))
    unihan_version = found.group(1) if found else "?"
    import opencc

    try:
        from importlib.metadata import version
        opencc_version = version("opencc")
    except Exception:
        opencc_version = getattr(opencc, "__version__", "?")
    header = [
        "# spamnb variant folding table: each line is a plain character, a tab, and the",
        "# characters that fold to it.  Generated by tools/variants_table.py: do not edit.",
        f"# Sources: Unicode Character Database {unihan_version} (Debian package unicode-data):",
        "#   Unihan_Variants.txt and EquivalentUnifiedIdeograph.txt, copyright Unicode, Inc.,",
        "#   Unicode License (https://www.unicode.org/license.txt);",
        f"#   OpenCC {opencc_version} dictionaries TWVariantsRev, HKVariantsRev, JPShinjitaiCharacters,",
        "#   Apache License 2.0 (copyright Carbo Kuo and contributors).",
        "# This file is derived from and modifies those data files (a selection, re-keyed);",
        f"# their licence texts: {LICENCES.name}.",
        "# Folds per source: " + ", ".join(f"{title} {count}" for title, count in given.items()) + ".",
        "# " + "; ".join(notes) + ".",
        f"# entries: {len(table)}",
        f"# crc32: {zlib.crc32(body.encode('utf-8')):08x}",
    ]
    return "\n".join(header) + "\n" + body


def licences() -> str:
    """The licence texts of both sources, as their packages ship them."""
    from importlib.metadata import distribution

    opencc_licence = distribution("opencc").read_text("licenses/LICENSE") or ""
    unicode_notice = Path("/usr/share/doc/unicode-data/copyright").read_text(encoding="utf-8")
    return ("Licences of the data spamnb/data/variants.txt is derived from.\n\n"
            "== Unicode Character Database (Unihan_Variants.txt, EquivalentUnifiedIdeograph.txt),\n"
            "== as the Debian package unicode-data ships it; its copyright file:\n\n"
            + unicode_notice.rstrip() + "\n\n"
            "== OpenCC (TWVariantsRev, HKVariantsRev, JPShinjitaiCharacters), as the opencc wheel ships it:\n\n"
            + opencc_licence.rstrip() + "\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is not what a build gives")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    if not (UNICODE / "Unihan_Variants.txt.bz2").exists():
        print(f"{UNICODE}/Unihan_Variants.txt.bz2 is missing: apt-get install unicode-data", file=sys.stderr)
        return 2
    text = render(*build())
    if args.check:
        same = args.output.exists() and args.output.read_text(encoding="utf-8") == text
        print(f"{args.output}: {'up to date' if same else 'differs from a fresh build'}")
        return 0 if same else 1
    args.output.write_text(text, encoding="utf-8")
    args.output.with_name(LICENCES.name).write_text(licences(), encoding="utf-8")
    print(f"wrote {args.output}: {text.count(chr(10))} lines, {args.output.stat().st_size} bytes")
    print("\n".join(line for line in text.splitlines() if line.startswith("# Folds") or line.startswith("# entries")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
