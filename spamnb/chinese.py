"""Chinese text: variant folding (OpenCC) and word segmentation (jieba),
loaded only when Chinese text appears.

jieba's dictionary takes about half a second to build, so English-only mail
never imports it, and Chinese mail reads only the part it needs from a
compact file in the user's own cache directory (see jiebaload and
prefixdict), never from jieba's marshal cache in the shared /tmp, which a
file another local user planted there would turn into our process's data.
"""

from __future__ import annotations

import os
from pathlib import Path

_tokenizer = None
_converter = None

# Characters spam writes in place of common ones to slip past word filters:
# the common character with a radical added (涐 for 我, 岢 for 可) or a rare
# look-alike.  Traditional forms are OpenCC's business; these are not
# Traditional forms of anything, so no converter knows them.
HOMOGLYPHS = str.maketrans({
    "涐": "我", "硪": "我", "莪": "我", "岢": "可", "伱": "你", "沵": "你", "妳": "你",
    "菂": "的", "嘚": "得", "芣": "不", "嶶": "微", "薇": "微", "徴": "征", "沩": "为",
})


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "spamnb"


def _load():
    from .jiebaload import load_tokenizer

    return load_tokenizer(cache_dir())


def fold_variants(run: str) -> str:
    """Traditional characters to Simplified (OpenCC's t2s) and spam homoglyphs
    to the characters they imitate: 涐司岢办理正規髮票 → 我司可办理正规发票."""
    global _converter
    if _converter is None:
        import opencc

        _converter = opencc.OpenCC("t2s")
    return _converter.convert(run.translate(HOMOGLYPHS))


def segment(run: str) -> list[str]:
    """Split a run of Han characters into words (jieba's precise mode with HMM)."""
    global _tokenizer
    if _tokenizer is None:
        _tokenizer = _load()
    return _tokenizer.lcut(run)
