"""Turning bytes of declared or undeclared charset into text.

Real mail lies about its charset often enough that a strict decode with the
declared name is only the first try.  Counts below are from the shared corpora
(`bench/charset_census.py`).
"""

from __future__ import annotations

import codecs
import collections
import functools
import itertools
import operator
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

# Encodings whose bytes are all ASCII, with escape sequences for the text:
# ISO-2022-JP mail read as ASCII gave tokens like "$bfma3", and the three
# spamassassin spam written so were scored below every ham (1-ROCA 0.41 %
# on spamassassin came mostly from them).  HZ is the Chinese one.
_SEVEN_BIT_PREFIXES = ("iso2022", "hz", "utf-7", "utf_7")
# ESC $ B and ESC $ @: ISO-2022-JP's switch to JIS X 0208, its two-byte set.
_JIS_ESCAPE = b"\x1b$"


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
    as ISO-2022-JP or HZ, or undeclared but holding ISO-2022-JP's escapes);
    a strong declared charset that decodes strictly wins; otherwise UTF-8,
    then the reading of the CJK codecs that reads best (`_sniff`), then
    the declared codec with replacement, then Windows-1252.  `cut`: the
    data was cut by a size cap, so its last character may be incomplete,
    which no reading holds against it.
    """
    codec = codec_for(declared)
    seven_bit = codec.startswith(_SEVEN_BIT_PREFIXES)
    if data.isascii() and not seven_bit:
        if codec in _WEAK and _JIS_ESCAPE in data:
            # Japanese mail sent without a charset is mostly ISO-2022-JP:
            # all ASCII, so read as ASCII its escape codes became words
            # ("$b", "$B$3$s$K$A$O"), in 421 trec06p spam.  Taken only when
            # it reads strictly.
            try:
                return _decode(data, "iso2022_jp_ext", cut=cut)
            except UnicodeDecodeError:
                pass
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
        return sniffed[1]
    if codec and codec not in _WEAK:
        try:
            return _decode(data, codec, "replace", cut)
        except (UnicodeError, LookupError, ValueError):
            pass
    return data.decode("cp1252", errors="replace")


# The codecs tried on 8-bit text of unknown charset, besides UTF-8, in the
# order that breaks a tie (that of their share of the undeclared 8-bit text
# of the shared corpora): GB18030 (which reads GB2312 and GBK), EUC-KR (as
# CP949), Big5 (as Big5-HKSCS), Shift_JIS (as Windows' CP932) and EUC-JP.
SNIFFED_CODECS = ("gb18030", "cp949", "big5hkscs", "cp932", "euc_jp")

# The bytes each reading is judged on: from the first 8-bit byte, this many
# (some 2,000 CJK characters).  A reading is judged on a bounded sample so
# that the cost of judging stays the same for any size (the whole text must
# still decode); 8 KB chose the same reading for every text of the corpora.
_JUDGED_BYTES = 4096
_HIGH_BYTE = re.compile(rb"[\x80-\xff]")
_HIGH_BYTES = bytes(range(0x80, 0x100))
# A reading with bad sequences replaced competes only when they are one,
# or at most one in this many of its 8-bit bytes.
_MOSTLY_VALID = 10


def _sniff(data: bytes, cut: bool = False) -> tuple[str, str] | None:
    """(codec, text) of the reading of `data` that reads best, or None.

    Most 8-bit bytes decode strictly in several CJK codecs (Shift_JIS
    Japanese reads as GB18030, EUC-KR Korean as GB2312, GB2312 as Big5), as
    text of another language made of rare characters: 丂仭剑 for the
    full-width spaces and box drawing of a Japanese spam.  So each strict
    reading is scored as a person would read it (`_reading_score`) and the
    best wins, if it reads better than the Windows-1252 reading of western
    text (`_western_score`).  When no strict reading does, the readings
    that decode with a few bad sequences replaced compete the same way,
    each replacement counted against them: a stray bad byte in a long
    Chinese body does not make it Latin-1.

    Against the rule before it (GB18030 whenever the 8-bit bytes came in
    pairs, unless 30 % kana or 90 % Hangul said otherwise), measured on the
    shared corpora with decode_text's ISO-2022-JP rule: trec06p's 1,204
    spam and 37 ham messages decode otherwise (Shift_JIS, EUC-KR and Big5
    spam that was GB18030 mojibake; western ham that was too),
    spamassassin's 17 spam and 4 ham, ccert_zh's 4 spam (Korean) and none
    of its ham.
    """
    try:
        return "utf-8", _decode(data, "utf-8", cut=cut)
    except UnicodeDecodeError:
        pass
    first = _HIGH_BYTE.search(data)
    # From the ASCII byte before the first 8-bit one: a letter there touches
    # the first character read.
    start = max(0, first.start() - 1) if first else 0
    judged = data[start:start + _JUDGED_BYTES]
    partial = cut or start + _JUDGED_BYTES < len(data)  # the judged bytes may end inside a character
    threshold = max(0, _western_score(judged))
    high_bytes = len(judged) - len(judged.translate(None, _HIGH_BYTES))
    undecoded = set()  # the codecs whose strict reading fails: only theirs change with replacement
    for errors in ("strict", "replace"):
        ranked = []
        for codec in SNIFFED_CODECS if errors == "strict" else [c for c in SNIFFED_CODECS if c in undecoded]:
            try:
                sample = _decode(judged, codec, errors, partial)
            except UnicodeDecodeError:
                undecoded.add(codec)
                continue
            if errors == "replace" and sample.count("\ufffd") > 1 + high_bytes // _MOSTLY_VALID:
                continue  # not a stray bad byte (a header cut inside a character) but another encoding
            score = _reading_score(sample, codec)
            if score > threshold:
                ranked.append((score, codec, sample))
        # Best first (ties in SNIFFED_CODECS order); the whole text must
        # decode too, which only the readings that may win are asked.
        for _score, codec, sample in sorted(ranked, key=lambda reading: -reading[0]):
            if start == 0 and not partial:
                return codec, sample
            try:
                return codec, _decode(data, codec, errors, cut)
            except UnicodeDecodeError:
                undecoded.add(codec)
    return None


# Points of one character in a reading.  A common character of the
# reading's language earns most, an ideograph of the standard's first
# (frequent) level or a symbol of its symbol rows (punctuation, full-width
# forms, box drawing) less, one of its second level less still.  Rare
# ideographs (the GBK and HKSCS extensions, which are what the bytes of
# another CJK encoding read as), half-width katakana (GB2312 read as
# Shift_JIS), private-use characters and C1 controls count against a
# reading.  The scale follows chardetng (Firefox's detector), in small
# integers.
_COMMON_POINTS = 4
_LEVEL_1_POINTS = 2
_SYMBOL_POINTS = 2
_LEVEL_2_POINTS = 1
_RARE_POINTS = -2
_HALF_WIDTH_KANA_POINTS = -3
_IMPOSSIBLE_POINTS = -8
_JAPANESE = frozenset({"cp932", "euc_jp"})


def _reading_score(text: str, codec: str) -> int:
    """How well `text`, decoded with `codec`, reads: the points of its
    characters outside ASCII, less the CJK characters that touch an ASCII
    letter.  Each distinct character is judged once."""
    # A run of one character is decoration (a line of box drawing, of
    # full-width spaces): it counts as two, so that a line of ─ read as
    # 岸岸岸 by Big5 does not outweigh the text around it.
    if _REPEATS.search(text):
        text = _REPEATS.sub(r"\1\1", text)
    counts = collections.Counter("".join(_NON_ASCII_RUN.findall(text)))
    # A character before a letter, and (in the reversed text) after one: a
    # pattern that starts with the CJK class skips ASCII fast, where one
    # that starts with a letter costs 4 times as much on western text.
    adjacent = len(_CJK_BEFORE_LATIN.findall(text)) + len(_CJK_BEFORE_LATIN.findall(text[::-1]))
    return (_LATIN_ADJACENT_POINTS * adjacent
            + sum(map(operator.mul, counts.values(), map(_char_points, counts, itertools.repeat(codec)))))


_REPEATS = re.compile(r"([^\x00-\x7f])\1{2,}")
_NON_ASCII_RUN = re.compile("[^\x00-\x7f]+")
# Western text read as a CJK codec pairs each 8-bit byte with the letter
# after it ("won’t" in Shift_JIS is "won稚"); CJK text seldom writes a
# character against a Latin letter.
_CJK_BEFORE_LATIN = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3][A-Za-z]")
_LATIN_ADJACENT_POINTS = -2


@functools.lru_cache(maxsize=1 << 16)  # the common characters recur from message to message
def _char_points(char: str, codec: str) -> int:
    code = ord(char)
    if 0xFF61 <= code <= 0xFF9F:
        return _HALF_WIDTH_KANA_POINTS
    if code < 0xA0 or 0xE000 <= code <= 0xF8FF or code == 0xFFFD:
        return _IMPOSSIBLE_POINTS
    if 0x3041 <= code <= 0x30FF and codec in _JAPANESE:
        return _COMMON_POINTS  # kana
    try:
        row = _row(char.encode(codec), codec)
    except UnicodeEncodeError:  # a character the codec reads but does not write
        return 0
    if 0x4E00 <= code <= 0x9FFF:
        if codec == "cp949":
            return 0  # Hanja: Korean mail is written in Hangul
        if row == _EXTENSION:
            return _RARE_POINTS
        if codec in _JAPANESE:
            # Japanese is written in kana and kanji together: its kana earn
            # a common character's points, its kanji a level less, which
            # keeps Chinese read as EUC-JP (邵筱昕 as 布黹蠖) from winning.
            return _LEVEL_2_POINTS if row == _LEVEL_1 else 0
        if char in _COMMON_HAN:
            return _COMMON_POINTS
        return _LEVEL_1_POINTS if row == _LEVEL_1 else _LEVEL_2_POINTS
    if 0xAC00 <= code <= 0xD7A3:  # Hangul syllables
        if codec != "cp949" or row != _LEVEL_1:
            return _RARE_POINTS
        return _COMMON_POINTS if char in _COMMON_HANGUL else _LEVEL_1_POINTS
    if row == _SYMBOLS:
        # Greek, Cyrillic and kana rows of a Chinese or Korean standard are
        # letters seldom used in its language.
        return _LEVEL_2_POINTS if char.isalpha() else _SYMBOL_POINTS
    if 0x3400 <= code <= 0x4DBF or 0xF900 <= code <= 0xFAFF:  # CJK extension A, compatibility ideographs
        return _RARE_POINTS
    return 0


_LEVEL_1, _LEVEL_2, _SYMBOLS, _EXTENSION = range(4)


def _row(encoded: bytes, codec: str) -> int:
    """Where a character lies in its standard: _SYMBOLS (the rows of
    punctuation, forms and foreign letters), _LEVEL_1 (the ideographs sorted
    apart as the frequent ones: GB2312's 3,755, Big5's 5,401, JIS X 0208's
    2,965; for KS X 1001, its 2,350 Hangul syllables), _LEVEL_2 (the other
    ideographs of the standard; KS X 1001's Hanja), or _EXTENSION (what a
    vendor added after: GBK, HKSCS, CP932's and CP949's extensions, JIS X
    0212)."""
    if len(encoded) != 2:
        return _EXTENSION
    lead, trail = encoded
    if trail < 0xA1 and codec in _EUC:
        # GBK's own symbol rows (╭╮╰╯, ═║╔╗, ↖↗) draw the art of Chinese mail.
        return _SYMBOLS if codec == "gb18030" and 0xA8 <= lead <= 0xA9 else _EXTENSION
    (first_symbol, last_symbol), (first_level_1, last_level_1), (first_level_2, last_level_2) = _ROWS[codec]
    if first_symbol <= lead <= last_symbol:
        return _SYMBOLS
    if first_level_1 <= lead and (lead, trail) <= last_level_1:
        return _LEVEL_1
    return _LEVEL_2 if first_level_2 <= lead <= last_level_2 else _EXTENSION


# Per codec: the lead bytes of the symbol rows, the first lead byte and the
# last character of the first level, and the lead bytes of the second level.
_ROWS = {
    "gb18030": ((0xA1, 0xA9), (0xB0, (0xD7, 0xFE)), (0xD8, 0xF7)),
    "euc_jp": ((0xA1, 0xA8), (0xB0, (0xCF, 0xFE)), (0xD0, 0xF4)),
    "cp949": ((0xA1, 0xAC), (0xB0, (0xC8, 0xFE)), (0xCA, 0xFD)),
    "big5hkscs": ((0xA1, 0xA3), (0xA4, (0xC6, 0x7E)), (0xC9, 0xF9)),
    "cp932": ((0x81, 0x84), (0x88, (0x98, 0x72)), (0x98, 0xEA)),
}
# The EUC layouts, whose standard characters are two bytes from A1.
_EUC = frozenset({"gb18030", "euc_jp", "cp949"})


def _western_score(data: bytes) -> int:
    """How well `data` reads as Windows-1252.  A letter or common symbol
    (curly quotes, dashes, «») alone between ASCII earns a level-1
    character's points, and so does a pair holding a letter (öß) or a
    doubled dash or quote; three or more in a row, or a pair of other
    symbols (¡¯, which is ’ in GB2312), are CJK bytes read as Latin
    (ÎÒË¾¿É) and count against it, and so do the bytes Windows-1252 leaves
    undefined.  The rarer symbols (‰ † ˆ ¤ ¬) earn nothing."""
    score = 0
    text = _REPEATS.sub(r"\1\1", data.decode("cp1252", "replace").replace("\xa0", " "))
    for run in _NON_ASCII_RUN.findall(text):
        if len(run) >= 3 or (len(run) == 2 and not (run[0].isalpha() or run[1].isalpha() or
                                                    run[0] == run[1] in _WESTERN_DOUBLED)):
            score += _RARE_POINTS * len(run)
            continue
        for char in run:
            if char == "\ufffd":
                score += _IMPOSSIBLE_POINTS
            elif char.isalpha() and char not in "ªºƒ" or char in _WESTERN_SYMBOLS:
                score += _LEVEL_1_POINTS
    return score


_WESTERN_SYMBOLS = frozenset("‘’“”–—•…€™©®°«»§£¥¢·´¡¿µ")
# Doubled in western text ("——", "’’"); "¡¡" is GB2312's full-width space.
_WESTERN_DOUBLED = frozenset("‘’“”–—•…*°«»")


# Frequent characters of Chinese, Simplified and Traditional: the 500 most
# frequent in jieba's dictionary (counted over its words by their
# frequencies), the words of Chinese mail that list lacks (联系, 优惠,
# 欢迎...), and each in its Traditional forms (OpenCC s2t, s2tw, s2hk).
_COMMON_HAN = frozenset(
    "一是人了不在有大中国和为这上他个地年来我会以到时要出的生学说道民家子也成行下们于后就发自之对得主长可"
    "过天作分方用多你着部能市等业全里工公经本都而高政法面门动日进区事代那去心小同北定开产前其军还然起种所"
    "如现理机体表力好外与文当两实重新三么只山水关明从化平建又制南内西没此将员名手最东头者月间无安看见各城"
    "十相但已些正口通想度加第她合院物性战由位常点海意场武使次二向治因立数样身情入原问把路被并利石老教万知"
    "级量任江及应省资委务元美特期世湖回系比气汉总展电科金先声提品设或义王社很统处四首共马形己儿司太目基领"
    "队直计别女权话少流命至报米给打变果书清活几州华解议更称程今决张导术府才保交放管结师便走达族反再题色五"
    "京河接条规式县白它改风光运信受什组听布百济党指论强做取技黄神选记斯真却职号界件花类何眼兵传带空干农边"
    "据集联古广完质阳难增历史专官每住商即步认车台林必死游举线言皇土团收考求德叫近备研争非具李众连调感转笑"
    "革该持始英克士尔让拉思根格造较际亲单朝红型价校约器字段周亚深候则功属积快图火千准究往极育装许参半令吃"
    "观鱼精办像帝八复影告远群包整构料随划算象容示投势热值夫网望源息语股铁断派速怎需片爱律纪支早况病境证编"
    "谢免惠服迎优站费欢请址您國爲這個來會時學說們於後發對長過業裏經門動進區開產軍還種現機體與當兩實麼關從"
    "內沒將員東頭間無見戰點場數樣問並萬級應資務氣漢總電聲設義統處馬兒領隊計別權話報給變書幾華議稱決張導術"
    "結師達題條規縣風運組聽濟黨論強黃選記卻職號類傳帶幹農邊據聯廣質陽難歷專認車臺遊舉線團備爭衆連調轉該爾"
    "讓較際親單紅價約亞則屬積圖準極裝許參喫觀魚辦復遠羣構隨勢熱網語鐵斷愛紀況證編謝優費歡請為著裡眾説"
)

# Frequent Hangul syllables: particles, endings, the words of Korean mail
# (광고, 무료, 회원, 수신거부) and of the names in its From lines (surnames
# and common given names).  Chinese read as CP949 gives Hangul too, but
# rare syllables (广告 reads as 밤멩).
_COMMON_HANGUL = frozenset(
    "이다는의에을를하고가지서로기한리사대니자도있수정시아나인보전어해으주것스일상우들적부국게만제과와여요면안합"
    "성원비신장공경동소마라내중연무실문세구선현계방되습드트관위화개생회물행재결업용모분까알받거때또않했할된및그저"
    "더번님께립오본발처초품격판매광료입메확객감금액출벤쿠폰인특담청등록클릭험카은행최법림참당첨혜택"
    "김박강조윤임권황송류홍양손배백허남심노곽차진엄채천함변염추석설길표명반왕옥육맹탁편"
    "영준호희미숙철훈혜승태종순유민혁빈규욱환범웅래슬별솔"
)
