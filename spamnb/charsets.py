"""Turning bytes of declared or undeclared charset into text.

Real mail lies about its charset often enough that a strict decode with the
declared name is only the first try.  Counts below are from the shared corpora
(`bench/charset_census.py`).
"""

from __future__ import annotations

import codecs

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
}

# Labels that in practice mean "somebody's default", not a statement about
# the bytes: text so labelled is sniffed when it is not plain ASCII.
_WEAK = frozenset({"cp1252", ""})

# Share of bytes >= 0x80 above which undeclared or Latin-labelled text is taken
# to be a double-byte CJK encoding: Chinese text runs at 60-100 % high bytes,
# French or German Latin-1 prose well under 15 %.
_CJK_HIGH_BYTE_SHARE = 0.3


def codec_for(label: str | None) -> str:
    """The Python codec to try for a charset label ("" when unknown or absent)."""
    if not label:
        return ""
    name = label.strip().strip("\"'").lower()
    if name in _ALIASES:
        return _ALIASES[name]
    try:
        return codecs.lookup(name).name
    except (LookupError, ValueError):
        return ""


def decode_text(data: bytes, declared: str | None = None) -> str:
    """Decode `data`, trusting `declared` only as far as the bytes agree.

    Order: ASCII needs no guess; a strong declared charset that decodes
    strictly wins; otherwise UTF-8, then GB18030 for byte-dense text, then the
    declared codec with replacement, then Windows-1252.
    """
    if data.isascii():
        return data.decode("ascii")
    codec = codec_for(declared)
    if codec and codec not in _WEAK:
        try:
            return data.decode(codec)
        except (UnicodeDecodeError, LookupError):
            pass
    sniffed = _sniff(data)
    if sniffed is not None:
        return sniffed
    if codec and codec not in _WEAK:
        try:
            return data.decode(codec, errors="replace")
        except LookupError:
            pass
    return data.decode("cp1252", errors="replace")


def _sniff(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    high = len(data) - len(data.translate(None, _HIGH_BYTES))
    if high >= _CJK_HIGH_BYTE_SHARE * len(data):
        try:
            return data.decode("gb18030")
        except UnicodeDecodeError:
            pass
    return None


_HIGH_BYTES = bytes(range(0x80, 0x100))
