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
    """Split a run of Han characters into words (jieba's precise mode with HMM).

    jieba's time on one run grows with the square of its longest stretch of
    characters that are not dictionary words (its HMM copies the best path
    so far at every character): 发 repeated 10,000 times took 0.5 s, 80,000
    times 39 s.  So a run over MAX_RUN characters is cut into pieces of
    PIECE characters, each segmented alone (and remembered, as short runs
    are): every character is still segmented, at a bounded cost each, and a
    word that straddles a cut comes out as two.  The longest run in the
    shared corpora is 98 characters (Chinese puts punctuation, which ends a
    run, every few words), so real mail is segmented whole, as before.
    """
    if len(run) <= CACHED_RUN_LENGTH:
        return list(_cut_cached(run))
    if len(run) <= MAX_RUN:
        return _cut(run)
    out: list[str] = []
    for start in range(0, len(run), PIECE):
        out.extend(_cut_cached(run[start:start + PIECE]))
    return out


# A process that has read this many entries of jieba's dictionary lazily is
# segmenting in bulk (train, classify of a folder): it goes over to rjieba
# (jiebaload.bulk_cutter), same words ~11 times faster, before LazyTokenizer
# would read the whole dictionary (jiebaload.FULL_AFTER entries).  ccert_zh,
# bulk classify -j 2: 1,191 msg/s with jieba (38 % of it segmenting), see
# BENCHMARKS.md for the figure with rjieba.
BULK_AFTER = 15_000
_bulk_cut = None  # rjieba's cut once in bulk; False: rjieba is not there


def _cut(run: str) -> list[str]:
    global _tokenizer, _bulk_cut
    if _bulk_cut:
        return _bulk_cut(run)
    if _tokenizer is None:
        _tokenizer = _load()
    if _bulk_cut is None and getattr(_tokenizer, "table", None) is not None and len(_tokenizer.FREQ) >= BULK_AFTER:
        from .jiebaload import bulk_cutter

        _bulk_cut = bulk_cutter() or False
        if _bulk_cut:
            _tokenizer = None
            return _bulk_cut(run)  # type: ignore[operator]  # truthy: the cutter, not False
    return _tokenizer.lcut(run)


# Spam repeats itself: 61 % of ccert_zh's Han text is in runs seen before.
# Remembering the last 16,384 runs catches 55 % (4,096: 45 %, 65,536: 61 %)
# and took bulk segmentation from ~1,150 to ~2,200 msg/s of CPU (65,536:
# ~2,600) for 6.8 MB of memory (65,536: 34 MB); bench/zh_segment.py --speed.
# Runs over 64 characters (0.4 % of the text) are not kept, so hostile mail
# cannot fill the cache with megabyte strings.
CACHED_RUN_LENGTH = 64
RUN_CACHE_SIZE = 16384
# Runs longer than this are segmented in pieces (see segment()).
MAX_RUN = 256
PIECE = CACHED_RUN_LENGTH


@lru_cache(maxsize=RUN_CACHE_SIZE)
def _cut_cached(run: str) -> tuple[str, ...]:
    return tuple(_cut(run))
