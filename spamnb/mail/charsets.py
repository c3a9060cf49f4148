"""Turning bytes of declared or undeclared charset into text.

Real mail lies about its charset often enough that a strict decode with the
declared name is only the first try.  Counts below are from the shared corpora
(`bench/charset_census.py`).
"""

from __future__ import annotations

import codecs
import re

# GB2312 and GBK are subsets of GB18030, and senders label GBK text as GB2312
# all the time (characters such as 镕 or 喆 are outside GB2312), so every
# member of the family is read as GB18030.  Big5 likewise reads as Big5-HKSCS.
_ALIASES = {
    "gb2312": "gb18030", "gbk": "gb18030", "gb_2312-80": "gb18030", "euc-cn": "gb18030",
    "x-gbk": "gb18030", "cp936": "gb18030", "ms936": "gb18030", "chinese": "gb18030",
    "csgb2312": "gb18030", "x-euc-cn": "gb18030", "gb2312_charset": "gb18030",
    "big5": "big5hkscs", "x-big5": "big5hkscs", "cn-big5": "big5hkscs",
    "ks_c_5601-1987": "cp949", "euc-kr": "cp949",
    "iso-8859-1": "cp1252", "latin-1": "cp1252", "latin1": "cp1252",
    "us-ascii": "cp1252", "ascii": "cp1252", "ansi_x3.4-1968": "cp1252",
    "windows-1252": "cp1252", "default": "", "default_charset": "", "charset": "",
    "unknown-8bit": "", "x-unknown": "", "unknown": "",
    # ISO-2022-JP as mail clients read it (the WHATWG decoder): with the
    # half-width katakana set (ESC ( I), which Python's iso2022_jp refuses.
    # 71 trec06p spam use it; read strictly they failed, and their escape
    # codes were scored as words ("$b"), where the email package and a
    # client show Japanese.
    "iso-2022-jp": "iso2022_jp_ext", "csiso2022jp": "iso2022_jp_ext", "iso2022jp": "iso2022_jp_ext",
}

# Labels that in practice mean "somebody's default", not a statement about
# the bytes: text so labelled is sniffed when it is not plain ASCII.
_WEAK = frozenset({"cp1252", ""})

# GB2312/GBK characters are two high bytes (GBK box drawing and rare
# characters have a second byte below A1); Latin-1 accents are single high
# bytes between ASCII letters.  Text whose high bytes mostly come in such
# pairs is taken as GB18030 (when it decodes strictly as that).
_GB_PAIR = re.compile(rb"[\x81-\x9f\xa1-\xfe][\x80-\xfe]")  # A0 (Latin-1 NBSP) never leads
_HIGH_BYTE = re.compile(rb"[\x80-\xff]")
_GB_PAIRED_SHARE = 0.6


# Encodings whose bytes are all ASCII, with escape sequences for the text:
# ISO-2022-JP mail read as ASCII gave tokens like "$bfma3", and the three
# spamassassin spam written so were scored below every ham (1-ROCA 0.41 %
# on spamassassin came mostly from them).  HZ is the Chinese one.
_SEVEN_BIT_PREFIXES = ("iso2022", "hz", "utf-7", "utf_7")


def codec_for(label: str | None) -> str:
    """The Python codec to try for a charset label ("" when unknown or absent)."""
    if not label:
        return ""
    name = label.strip().strip("\"'").lower()
    if name in _ALIASES:
        return _ALIASES[name]
    try:
        info = codecs.lookup(name)
    except (LookupError, ValueError):
        return ""
    # idna, punycode, rot13, base64... are codecs but not charsets: a header
    # naming one would make decoding raise instead of fall back.
    return info.name if getattr(info, "_is_text_encoding", True) and info.name not in _NOT_CHARSETS else ""


_NOT_CHARSETS = frozenset({"idna", "punycode", "raw_unicode_escape", "unicode_escape", "undefined"})


def _decode(data: bytes, codec: str, errors: str = "strict", cut: bool = False) -> str:
    # A text cut short by a size cap may end inside a character: read as an
    # incremental decoder reads a stream not yet ended (final=False), the
    # incomplete last character is left out instead of failing the strict
    # reading.  Without this a UTF-8 body past the 2,000,000-byte cap, cut
    # in a character, failed UTF-8 and was re-read as GB18030 (+5.29 became
    # +0.02): the cap must never change the charset decided.
    if not cut:
        return data.decode(codec, errors)
    try:
        return codecs.getincrementaldecoder(codec)(errors).decode(data, final=False)
    except UnicodeDecodeError:
        raise
    except (UnicodeError, LookupError):  # utf-16's stream decoder wants a BOM: read it whole
        return data.decode(codec, errors)


def decode_text(data: bytes, declared: str | None = None, cut: bool = False) -> str:
    """Decode `data`, trusting `declared` only as far as the bytes agree.

    Order: ASCII needs no guess (unless declared as a 7-bit encoding such
    as ISO-2022-JP or HZ); a strong declared charset that decodes
    strictly wins; otherwise UTF-8, then GB18030 when the high bytes come in
    GB-style pairs, then the declared codec with replacement, then
    Windows-1252.  `cut`: the data was cut by a size cap, so its last
    character may be incomplete, which no reading holds against it.
    """
    codec = codec_for(declared)
    seven_bit = codec.startswith(_SEVEN_BIT_PREFIXES)
    if data.isascii() and not seven_bit:
        return data.decode("ascii")
    if codec and codec not in _WEAK:
        try:
            return _decode(data, codec, cut=cut)
        except (UnicodeError, LookupError, ValueError):
            pass
        if seven_bit and data.isascii():
            # Sniffing would read the escape codes as ASCII words; a stray
            # bad sequence costs a replacement character, not the text.
            try:
                return _decode(data, codec, "replace", cut)
            except (UnicodeError, LookupError, ValueError):
                pass
    sniffed = _sniff(data, cut)
    if sniffed is not None:
        return sniffed
    if codec and codec not in _WEAK:
        try:
            return _decode(data, codec, "replace", cut)
        except (UnicodeError, LookupError, ValueError):
            pass
    return data.decode("cp1252", errors="replace")


def _sniff(data: bytes, cut: bool = False) -> str | None:
    try:
        return _decode(data, "utf-8", cut=cut)
    except UnicodeDecodeError:
        pass
    readings = {}
    for codec in ("gb18030", "big5hkscs"):
        try:
            readings[codec] = _decode(data, codec, cut=cut)
        except UnicodeDecodeError:
            pass
    # Of the strict CJK readings, the right one is made of common characters,
    # the wrong one of rare ones (坝穨快そ for Big5 read as GB).
    best = max(readings, key=lambda codec: _common_share(readings[codec]), default=None)
    high = len(_HIGH_BYTE.findall(data))
    paired = 2 * len(_GB_PAIR.findall(data)) >= _GB_PAIRED_SHARE * high
    if paired and (best is None or _common_share(readings[best]) < _COMMON_ENOUGH):
        # Japanese and Korean are two-byte too, so they pass the pair test and
        # read strictly as GB18030, as strings of rare characters (傕傕偑偼偠 for
        # ももがはじけて).  Taken instead when their own reading is plainly that
        # language.  Of the 8,424 non-ASCII header values and parts of the
        # shared corpora, decoded before and after this rule, it changes 4
        # undeclared Shift-JIS bodies and 7 raw EUC-KR header values, all of
        # spamassassin spam, and nothing else.
        other = _japanese_or_korean(data, cut)
        if other is not None:
            return other
    if best and (paired or _common_share(readings[best]) >= _COMMON_ENOUGH):
        return readings[best]
    if paired:
        # Paired high bytes with a stray invalid byte are still Chinese: 17
        # ccert_zh ham bodies that fail a strict decode read fine this way
        # (bench/charset_census.py), where cp1252 would give mojibake.
        return _decode(data, "gb18030", "replace", cut)
    return None


_KANA = ("\u3040", "\u30ff")  # hiragana and katakana
_HANGUL = ("\uac00", "\ud7a3")  # Hangul syllables


# Frequent Hangul syllables (particles and endings): Chinese read as CP949
# gives Hangul too, but rare syllables (广告 reads as 밤멩).
_COMMON_HANGUL = frozenset("이다고는의에를을하합니가지로서정보한기사리대수도있스전자요시아")


def _japanese_or_korean(data: bytes, cut: bool = False) -> str | None:
    """A strict Shift-JIS or EUC-JP reading at least 30 % kana, or an EUC-KR
    (CP949) reading at least 90 % Hangul syllables of which a fifth are
    common ones, counted over the characters outside ASCII.  (Chinese read
    as CP949 mixes Hangul with Hanja, and Chinese has no kana outside
    GB2312's rarely used kana rows.)"""
    for codec, letters, share in (("cp932", _KANA, 0.3), ("euc_jp", _KANA, 0.3), ("cp949", _HANGUL, 0.9)):
        try:
            text = _decode(data, codec, cut=cut)
        except UnicodeDecodeError:
            continue
        wide = sum(1 for c in text if c > "\x7f")
        found = [c for c in text if letters[0] <= c <= letters[1]]
        if len(found) < 2 or len(found) < share * wide:
            continue
        if letters is _HANGUL and sum(c in _COMMON_HANGUL for c in found) < 0.2 * len(found):
            continue
        return text
    return None


# Big5 and GBK second bytes can be ASCII letters (0x40-0x7E), so such text
# fails the pair test; a reading whose Han characters are this often common
# ones is Chinese all the same (Latin-1 read as Big5 scores near 0).
_COMMON_ENOUGH = 0.2


# Frequent characters written the same in Simplified and Traditional Chinese.
_COMMON = frozenset(
    "的一是不了在人有我他大中上以可要和也出就之而生年自好子所作然方心明成天家日小下得同公本主"
    "其多事用此又着法度行已都分起高去面等性定理外美工力如女最你月电名品目相信活间全前由提好"
    "司市场价格服务品质产品联系电话地址手机网站合作免费优惠欢迎谢谢请您"
)


def _common_share(text: str) -> float:
    han = [c for c in text if "\u4e00" <= c <= "\u9fff"]
    return sum(c in _COMMON for c in han) / len(han) if han else 0.0

