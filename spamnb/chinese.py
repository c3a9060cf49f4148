"""Chinese word segmentation with jieba, loaded only when Chinese text appears.

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


def segment(run: str) -> list[str]:
    """Split a run of Han characters into words (jieba's precise mode with HMM)."""
    global _tokenizer
    if _tokenizer is None:
        _tokenizer = _load()
    return _tokenizer.lcut(run)
