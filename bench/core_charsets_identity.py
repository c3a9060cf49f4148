"""The Rust charsets (spamnb._core) against spamnb.mail.charsets, on the corpora.

Every call the Python pipeline makes to `decode_text` while decoding the
messages of the shared corpora (each text part body and header value, with
its declared charset and cut flag, gathered by wrapping
spamnb.mail.message.decode_text during decode_message) is made again with
both implementations; so is `codec_for` on every label seen.  Printed: the
count compared, the count identical, and the differences grouped by kind
(the label's codec, the reading each side took, the first characters that
differ) with one example each.  `--tables` also compares the decoders
themselves on every two-byte sequence of the CJK codecs and every byte of
the single-byte ones, and the points each reading gives every character.
`--fuzz N` also compares N generated inputs of each of two kinds: short
bytes of escapes, shifts and 8-bit bytes under every label (the 7-bit
codecs, cut texts), and CJK and western texts of mixed charsets cut and
joined (the sniffing).  The corpora hold no cut text: the fuzz is what
compares those paths.

    python bench/core_charsets_identity.py [--tables] [--fuzz N] [--cache FILE] [CORPORA...]
"""

import argparse
import collections
import os
import pickle
import random
import re
import sys
import time
from pathlib import Path

from spamnb import _core
from spamnb.mail import charsets as py
from spamnb.mail import message

ROOT = Path(__file__).resolve().parents[2] / "shared" / "corpora"


def gather(corpora):
    """The unique (data, declared, cut) of decode_text's calls over `corpora`."""
    from spamnb.mail.sources import read_messages

    seen = {}
    original = message.decode_text

    def recording(data, declared=None, cut=False):
        seen.setdefault((bytes(data), declared, cut), None)
        return original(data, declared, cut)

    message.decode_text = recording
    try:
        for corpus in corpora:
            count = 0
            for label in ("spam", "ham"):
                for raw in read_messages(str(corpus / label), []):
                    message.decode_message(raw.data)
                    count += 1
            print(f"# {corpus.name}: {count} messages, {len(seen)} distinct decode_text calls so far", file=sys.stderr)
    finally:
        message.decode_text = original
    return list(seen)


def route_py(data, declared, cut):
    """Which reading Python's decode_text takes: 'ascii', 'declared', 'sniff:<codec>', 'replace', 'cp1252'."""
    codec = py.codec_for(declared)
    seven_bit = codec.startswith(py._SEVEN_BIT_PREFIXES)
    if data.isascii() and not seven_bit:
        return "ascii"
    if codec and codec not in py._WEAK:
        try:
            py._decode(data, codec, cut=cut)
            return f"declared {codec}"
        except (UnicodeError, LookupError, ValueError):
            pass
    sniffed = py._sniff(data, cut)
    if sniffed is not None:
        return f"sniffed {sniffed[0]}"
    return "fallback"


def route_rust(data, declared, cut):
    codec = _core.codec_for(declared)
    seven_bit = codec.startswith(py._SEVEN_BIT_PREFIXES)
    if data.isascii() and not seven_bit:
        return "ascii"
    if codec and codec not in py._WEAK and _core._charsets_decode_with(data, codec, False, cut) is not None:
        return f"declared {codec}"
    sniffed = _core._charsets_sniff(data, cut)
    if sniffed is not None:
        return f"sniffed {sniffed[0]}"
    return "fallback"


def first_difference(a, b):
    i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return a[i:i + 1], b[i:i + 1]


def compare_calls(calls):
    kinds = collections.Counter()
    examples = {}
    same = 0
    started = time.perf_counter()
    py_seconds = rust_seconds = 0.0
    for data, declared, cut in calls:
        t0 = time.perf_counter()
        want = py.decode_text(data, declared, cut)
        t1 = time.perf_counter()
        got = _core.decode_text(data, declared, cut)
        t2 = time.perf_counter()
        py_seconds += t1 - t0
        rust_seconds += t2 - t1
        if want == got:
            same += 1
            continue
        where_py, where_rust = route_py(data, declared, cut), route_rust(data, declared, cut)
        if where_py == where_rust:
            a, b = first_difference(want, got)
            kind = f"{where_py}: same reading, text differs ({_show(a)} vs {_show(b)})"
        else:
            kind = f"label {py.codec_for(declared) or '-'}: python {where_py}, rust {where_rust}"
        kinds[kind] += 1
        examples.setdefault(kind, (data[:60], declared, cut))
    print(f"decode_text: {len(calls)} compared, {same} identical "
          f"(python {py_seconds:.1f} s, rust {rust_seconds:.1f} s, wall {time.perf_counter() - started:.0f} s)")
    for kind, n in kinds.most_common():
        data, declared, cut = examples[kind]
        print(f"{n:8d}  {kind}\n          e.g. declared={declared!r} cut={cut} data={data!r}")
    labels = sorted({declared for _, declared, _ in calls if declared is not None})
    diff = [(label, py.codec_for(label), _core.codec_for(label)) for label in labels
            if py.codec_for(label) != _core.codec_for(label)]
    print(f"codec_for: {len(labels)} labels compared, {len(labels) - len(diff)} identical")
    for row in diff:
        print("   ", row)


def _show(text):
    return "end" if not text else f"U+{ord(text):04X} {text!r}"


def py_decode(data, codec, replace):
    try:
        return data.decode(codec, "replace" if replace else "strict")
    except (UnicodeError, LookupError):
        return None


def compare_tables():
    """The decoders and the points of characters, codec by codec."""
    print("decoders, strict, each two-byte sequence (lead 81-FE, trail 40-FE) and single byte:")
    for codec in ("gb18030", "big5hkscs", "cp949", "cp932", "euc_jp", "shift_jis", "utf-8"):
        kinds = collections.Counter()
        example = {}
        sequences = [bytes([b]) for b in range(0x80, 0x100)]
        sequences += [bytes([lead, trail]) for lead in range(0x81, 0xFF) for trail in range(0x40, 0xFF)]
        for seq in sequences:
            want = py_decode(seq, codec, False)
            got = _core._charsets_decode_with(seq, codec, False, False)
            if want == got:
                continue
            kind = ("python error, rust reads" if want is None else "python reads, rust error" if got is None
                    else "both read, differently")
            kinds[kind] += 1
            example.setdefault(kind, (seq.hex(" "), want, got))
        print(f"  {codec}: {len(sequences)} sequences, " + (", ".join(
            f"{n} {kind} (e.g. {example[kind]})" for kind, n in kinds.most_common()) or "all identical"))
    single = sorted({name for name in (py.codec_for(label) for label in (
        "cp1250", "cp1251", "cp1252", "cp1253", "cp1254", "cp1255", "cp1256", "cp1257", "cp1258", "koi8-r",
        "koi8-u", "iso8859-2", "iso8859-5", "iso8859-7", "iso8859-15", "tis-620", "cp874", "cp437", "cp850",
        "mac_roman", "cp037", "latin_1", "ascii_")) if name})
    bad = [name for name in single if any(
        py_decode(bytes([b]), name, False) != _core._charsets_decode_with(bytes([b]), name, False, False)
        for b in range(256))]
    print(f"  single-byte {', '.join(single)}: {'identical' if not bad else 'differ: ' + ', '.join(bad)}")
    print("points of each character (BMP, non-ASCII) in each sniffed reading:")
    for codec in py.SNIFFED_CODECS:
        kinds = collections.Counter()
        example = {}
        for code in range(0x80, 0x10000):
            if 0xD800 <= code <= 0xDFFF:
                continue
            char = chr(code)
            want = py._char_points(char, codec)
            got = _core._charsets_reading_score(char, codec)
            if want != got:
                kinds[(want, got)] += 1
                example.setdefault((want, got), char)
        print(f"  {codec}: " + (", ".join(f"{n} python {w} rust {g} (e.g. U+{ord(example[(w, g)]):04X} "
                                           f"{example[(w, g)]})" for (w, g), n in kinds.most_common())
                                 or "all identical"))


FUZZ_LABELS = [None, "utf-8", "gb2312", "big5", "euc-kr", "euc_kr", "shift_jis", "cp932", "euc-jp", "iso-2022-jp",
               "iso-2022-kr", "iso2022_jp_2", "hz", "utf-7", "us-ascii", "koi8-r", "utf-16", "utf-32", "utf-8-sig",
               "latin_1", "gbk", "big5hkscs"]
FUZZ_ALPHABETS = [bytes(range(256)), b"\x1b$()BJID@&.C\x0e\x0f\n!~{}+-AZaz09/\x80\xa1\xfe",
                  bytes(range(0x80, 0x100)) + b"ab\n", b"+-ABCDabcd/+09\xec\n", b"~{}\n!\"#0Ab\x80"]
FUZZ_TEXTS = ["　　【完全無料】素敵な出会いサイトのご案内┏━━┓", "本公司长期代开各类正规发票，税点优惠，欢迎来电咨询。联系人：王先生",
              "本公司長期代開各類正規發票，稅點優惠，歡迎來電洽詢。", "[광고] 회원님께 특별한 혜택을 드립니다.",
              "Café crème à Noël : l’été — voilà. Größe ©®™", "朱镕基和张喆来了 ╭╮╰╯ ═║ ①②③ ⅰⅱ ㈱ №", "Привет мир"]
FUZZ_CODECS = ["shift_jis", "cp932", "euc_jp", "gb2312", "gbk", "gb18030", "big5", "big5hkscs", "euc_kr", "cp949",
               "cp1252", "utf-8", "koi8-r", "cp1251"]


def fuzz_inputs(n, rng):
    for _ in range(n):
        alphabet = rng.choice(FUZZ_ALPHABETS)
        yield (bytes(rng.choice(alphabet) for _ in range(rng.randrange(0, 30))), rng.choice(FUZZ_LABELS),
               rng.random() < 0.3)
    for _ in range(n):
        parts = []
        for _ in range(rng.randrange(1, 6)):
            data = rng.choice(FUZZ_TEXTS).encode(rng.choice(FUZZ_CODECS), "ignore")
            if rng.random() < 0.5:
                start = rng.randrange(len(data) + 1)
                data = data[start:start + rng.randrange(1, 60)]
            parts.append(data)
            if rng.random() < 0.3:
                parts.append(bytes([rng.randrange(256)]))
            if rng.random() < 0.3:
                parts.append(b" abc ")
        data = b"".join(parts)
        if rng.random() < 0.1:
            data *= rng.randrange(50, 200)  # past the judged sample
        yield data, rng.choice([None, None, "us-ascii", "utf-8", "gb2312", "big5", "euc-kr", "shift_jis",
                                "iso-8859-1", "koi8-r"]), rng.random() < 0.3


def compare_fuzz(n):
    kinds = collections.Counter()
    examples = {}
    count = 0
    for data, declared, cut in fuzz_inputs(n, random.Random(1)):
        count += 1
        # A lone surrogate of UTF-7, which Python keeps, is U+FFFD in a Rust string.
        want = re.sub("[\ud800-\udfff]", "\ufffd", py.decode_text(data, declared, cut))
        got = _core.decode_text(data, declared, cut)
        if want != got:
            kind = f"label {declared}, cut {cut}"
            kinds[kind] += 1
            examples.setdefault(kind, (data[:60], want[:30], got[:30]))
    print(f"fuzz: {count} compared, {count - sum(kinds.values())} identical")
    for kind, n_kind in kinds.most_common():
        print(f"{n_kind:8d}  {kind}\n          e.g. {examples[kind]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", nargs="*", type=Path)
    parser.add_argument("--cache", type=Path, help="keep the gathered calls in this file (outside the repo)")
    parser.add_argument("--tables", action="store_true")
    parser.add_argument("--fuzz", type=int, default=0, metavar="N")
    args = parser.parse_args()
    if args.tables:
        compare_tables()
    if args.fuzz:
        compare_fuzz(args.fuzz)
    corpora = args.corpora or [ROOT / name for name in ("spamassassin", "trec06p", "ccert_zh")]
    if args.cache and args.cache.exists():
        calls = pickle.loads(args.cache.read_bytes())
    else:
        calls = gather(corpora)
        if args.cache:
            args.cache.write_bytes(pickle.dumps(calls))
            os.chmod(args.cache, 0o600)
    compare_calls(calls)


if __name__ == "__main__":
    main()
