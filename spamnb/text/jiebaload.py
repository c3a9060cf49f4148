"""jieba, started cheaply: imported without pkg_resources, its prefix
dictionary read lazily from the compact file of `prefixdict`.

jieba still does all the cutting (get_DAG, calc, __cut_DAG, the finalseg
HMM); only where FREQ's entries come from changes.
"""

from __future__ import annotations

import logging
import os
import sys
import zlib
from pathlib import Path

from . import prefixdict


def _import_jieba():
    # jieba._compat tries `import pkg_resources` only to open its own data
    # files, and falls back to open() when that fails.  Importing
    # pkg_resources costs 66 ms (python -X importtime), more than all the
    # rest of jieba (29 ms on its own, 10 ms after spamnb.app.cli), so it is
    # blocked for the duration of this import when nobody has loaded it yet.
    blocked = "pkg_resources" not in sys.modules
    if blocked:
        sys.modules["pkg_resources"] = None  # type: ignore[assignment]  # makes `import pkg_resources` raise ImportError
    try:
        import jieba
    finally:
        if blocked and sys.modules.get("pkg_resources", 0) is None:
            del sys.modules["pkg_resources"]
    # The HMM for unknown words (jieba.finalseg, 8 ms of import, 7 of them its
    # emission table) is left as jieba imports it: 7454 of ccert_zh's 7615
    # messages have an unknown-word fragment, so deferring it saves nothing
    # for Chinese mail, and English mail never gets here.
    jieba.setLogLevel(logging.WARNING)
    return jieba


jieba = _import_jieba()



def dictionary_path() -> str:
    return os.path.join(os.path.dirname(jieba.__file__), jieba.DEFAULT_DICT_NAME)


# One prefix file per jieba installation: the file's tag names the dictionary
# it was built from (source_tag), and two installations of spamnb for one user
# (two virtual environments) sharing one file rebuilt it in turn, each process
# paying the whole dictionary, 0.5 s of CPU and seconds on a busy machine.
CACHE_NAME = f"jieba-prefix-{zlib.crc32(os.fsencode(dictionary_path())):08x}.bin"


def source_tag(path: str) -> str:
    """What the prefix file was built from; any change means a rebuild."""
    info = os.stat(path)
    return (f"{prefixdict.MAGIC.decode()} jieba {jieba.__version__} {path} "
            f"{info.st_size} {info.st_mtime_ns} {sys.byteorder}")


def full_dictionary(path: str) -> tuple[dict[str, int], int]:
    """jieba's own FREQ and total, built by jieba's own code (~0.5 s)."""
    return jieba.Tokenizer.gen_pfdict(open(path, "rb"))  # gen_pfdict closes the file


def _save(directory: Path, tag: str, freq: dict[str, int], total: int) -> None:
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        prefixdict.write(directory / CACHE_NAME, tag, freq, total)
    except (OSError, OverflowError, prefixdict.Damaged):
        pass  # unwritable cache: the next process builds the dictionary again


def _plain(freq: dict[str, int], total: int):
    # initialize() is never called: it would write jieba's own
    # cache file (to /tmp by default) and log a traceback when it cannot.
    tokenizer = jieba.Tokenizer()
    tokenizer.FREQ, tokenizer.total, tokenizer.initialized = freq, total, True
    return tokenizer


# Entries loaded lazily before a process switches to the whole dictionary.
# Lazy loading costs ~3 us an entry (a few reads and checks per pair, and the
# pair set of every run cut), the whole file 0.17 s at once (0.34 us an
# entry, against 0.5 s for jieba's gen_pfdict).  One message loads a median
# 1,400 entries (99th percentile 5,000), ten about 16,000, all of ccert_zh
# 172,000 for 1.9 s.  So a single message stays lazy and a bulk run pays the
# 0.17 s after a dozen messages, then looks up plain dict entries with no
# per-run check: 3.4 s of CPU for all of ccert_zh against 4.0 s staying lazy.
FULL_AFTER = 20_000


class LazyTokenizer(jieba.Tokenizer):  # type: ignore[name-defined]  # jieba is imported by a function
    """jieba's Tokenizer whose FREQ, a plain dict, gets the entries a run can
    look up (its characters, and the words under each adjacent pair) just
    before the run is cut.  Lookups stay dict lookups.

    Covers cut()/lcut() in every mode (they look words up only through
    get_DAG, calc and __cut_DAG); not cut_for_search or add_word, which
    spamnb does not use.  Not for several threads at once (nor is spamnb)."""

    def __init__(self, table: prefixdict.PrefixFile, directory: Path, tag: str):
        super().__init__()
        self.table, self.directory, self.tag = table, directory, tag
        self.total = table.total
        self.initialized = True
        self.chars: set[str] = set()
        self.pairs: set[str] = set()

    def get_DAG(self, sentence):
        if self.table is not None:
            try:
                self._add(sentence)
                if len(self.FREQ) >= FULL_AFTER:
                    self._switch(self.table.all_entries())
            except (OSError, prefixdict.Damaged):
                # What was added passed its checks and is right; the simplest
                # correct continuation is the whole dictionary, rewritten.
                freq, self.total = full_dictionary(dictionary_path())
                self._switch(freq)
                _save(self.directory, self.tag, freq, self.total)
        return super().get_DAG(sentence)

    def _add(self, sentence: str) -> None:
        freq, table = self.FREQ, self.table
        # issuperset first: 80 ms against 150 ms for `set(sentence) - seen`
        # over all of ccert_zh's runs, most of which bring nothing new.
        if not self.chars.issuperset(sentence):
            for char in set(sentence) - self.chars:
                freq.update(table.char_entry(char))
            self.chars.update(sentence)
        pairs = {sentence[k:k + 2] for k in range(len(sentence) - 1)}
        if not self.pairs.issuperset(pairs):
            for pair in pairs - self.pairs:
                freq.update(table.pair_entries(pair))
            self.pairs |= pairs

    def _switch(self, freq: dict[str, int]) -> None:
        self.FREQ = freq
        self.table.close()
        self.table = None  # type: ignore[assignment]  # closed: FREQ holds the whole dictionary now
        self.chars = self.pairs = set()


def load_tokenizer(directory: Path):
    """A Tokenizer reading the prefix file in `directory`; when that file is
    missing, stale or damaged, one with the full dictionary, which is then
    written to `directory` for the next process (if it can be)."""
    path = dictionary_path()
    tag = source_tag(path)
    try:
        return LazyTokenizer(prefixdict.PrefixFile(directory / CACHE_NAME, tag), directory, tag)
    except (OSError, prefixdict.Damaged):
        pass
    freq, total = full_dictionary(path)
    _save(directory, tag, freq, total)
    return _plain(freq, total)


# jieba cuts only runs of U+4E00..U+9FD5 with its dictionary and HMM; any other
# character of a Han run (Extension A, U+9FD6.., compatibility ideographs,
# radicals) comes out alone.  jieba-rs counts more characters as Han, so they
# are split off here first, as jieba does.
_NOT_JIEBA_HAN = r"([^\u4e00-\u9fd5])"


def bulk_cutter():
    """A cut(run) -> list of words equal to jieba's (precise mode, HMM, its
    default dictionary) from rjieba, the binding of jieba-rs, or None when
    rjieba cannot be imported.  rjieba builds its dictionary in ~0.15 s of
    CPU at its first cut, about what loading jieba's whole dictionary costs,
    then cuts ~11 times faster (bench/zh_segment.py --speed --rjieba); so
    it serves bulk runs, where LazyTokenizer would switch to the whole
    dictionary.  Same words as jieba on every Han run of the three shared
    corpora (bench/zh_segment.py --rjieba; tests/text/test_chinese.py)."""
    try:
        import rjieba
    except ImportError:
        return None
    import re

    split, cut = re.compile(_NOT_JIEBA_HAN).split, rjieba.cut

    def cut_run(run: str) -> list[str]:
        pieces = split(run)
        if len(pieces) == 1:
            return cut(run, True)
        out: list[str] = []
        for index, piece in enumerate(pieces):
            if index % 2:
                out.append(piece)
            elif piece:
                out.extend(cut(piece, True))
        return out

    return cut_run
