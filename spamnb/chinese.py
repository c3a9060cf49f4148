"""Chinese text: variant folding (OpenCC) and word segmentation (jieba),
loaded only when Chinese text appears.

jieba's dictionary takes about half a second to build, so English-only mail
never imports it.  Its prefix-dictionary cache is kept in the user's own cache
directory rather than the shared /tmp that jieba uses by default: jieba reads
that cache with `marshal`, and a file another local user planted there would
be loaded into our process.
"""

from __future__ import annotations

import logging
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
    import jieba

    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    directory = cache_dir()
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        tokenizer.tmp_dir = str(directory)
    except OSError:
        tokenizer.cache_file = os.devnull  # unwritable home: build the dictionary each time
    tokenizer.initialize()
    return tokenizer


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
