"""Chinese text: variant folding (OpenCC) and word segmentation (jieba),
loaded only when Chinese text appears.

jieba's dictionary takes about half a second to build, so English-only mail
never imports it, and Chinese mail reads only the part it needs from a
compact file in the user's own cache directory (see jiebaload and
prefixdict), never from jieba's own cache file in the shared /tmp, which a
file another local user planted there would turn into our process's data.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

_tokenizer = None

# Variant folding (Traditional, variants, look-alikes) lives in variants.py;
# the name stays here for callers that fold before they segment.
from .variants import fold_variants  # noqa: E402,F401


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "spamnb"


def _load():
    from .jiebaload import load_tokenizer

    return load_tokenizer(cache_dir())


def segment(run: str) -> list[str]:
    """Split a run of Han characters into words (jieba's precise mode with HMM)."""
    if len(run) > CACHED_RUN_LENGTH:
        return _cut(run)
    return list(_cut_cached(run))


def _cut(run: str) -> list[str]:
    global _tokenizer
    if _tokenizer is None:
        _tokenizer = _load()
    return _tokenizer.lcut(run)


# Spam repeats itself: 61 % of ccert_zh's Han text is in runs seen before.
# Remembering the last 16,384 runs catches 55 % (4,096: 45 %, 65,536: 61 %)
# and took bulk segmentation from ~1,150 to ~2,200 msg/s of CPU (65,536:
# ~2,600) for 6.8 MB of memory (65,536: 34 MB); bench/zh_segment.py --speed.
# Runs over 64 characters (0.4 % of the text) are not kept, so hostile mail
# cannot fill the cache with megabyte strings.
CACHED_RUN_LENGTH = 64
RUN_CACHE_SIZE = 16384


@lru_cache(maxsize=RUN_CACHE_SIZE)
def _cut_cached(run: str) -> tuple[str, ...]:
    return tuple(_cut(run))
