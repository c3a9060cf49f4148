"""jieba's prefix dictionary in a compact file, read a few entries at a time.

jieba segments with a dict of 498,113 words and word prefixes (FREQ).
Building it from dict.txt, or loading jieba's own cache file of it, costs
about half a second per process (measured: 500 ms gen_pfdict, 550 ms
loading the cache).  A message needs a sliver of it.  jieba's lookups (get_DAG,
calc, __cut_DAG) are all for substrings of the run being cut, so each is
either one of the run's characters or starts with one of its adjacent pairs:
loading the single characters and the entries under each pair before cutting
a run gives exactly the lookups the full dict would.  On ccert_zh that is a
median 1,379 entries per message (90th percentile 2,901).  Loading by first
character only would be 64,000 entries and cost 35-50 ms; by pair, ~1 ms.

File layout (uint32 in the byte order named in the source tag):
    header    MAGIC, sha256 of the source tag, total, counts, crc32s
    chars     four arrays over the single-character keys, sorted: code,
              frequency, first pair record (one more, for the end),
              crc32 of the char's pair records
    records   per pair: second character, first entry, entries, word
              bytes offset, word bytes length, crc32 of its freqs and words
    freqs     frequency of every entry of two or more characters, sorted
    words     those entries in UTF-8, joined by "\\n" (no jieba word has one)

Our own format of plain numbers and text, checked on every read (magic,
source, sizes, CRCs), never a Python object serialisation that can run code
when loaded: a damaged or stale file is rebuilt, and even a file someone
else wrote could only change how words split.
"""

from __future__ import annotations

import os
import struct
import tempfile
import zlib
from array import array
from bisect import bisect_left
from hashlib import sha256
from itertools import accumulate
from pathlib import Path

MAGIC = b"SNBPFX02"
_HEADER = struct.Struct("<8s32sQIIIIIII")
_RECORD = 6  # uint32 fields per pair record


class Damaged(Exception):
    """The file is not one this source would have written."""


if array("I").itemsize != 4:  # 4 bytes on every platform CPython supports today
    raise ImportError("prefixdict needs a 32-bit array('I')")


def _uint32s(data=b"") -> array:
    return array("I", data)  # OverflowError for a frequency of 2**32 or more


def write(path: Path, source_tag: str, freq: dict[str, int], total: int) -> None:
    """Write `freq` (jieba's FREQ) atomically: a temporary file in the same
    directory, fsync, rename.  Readers see the old file or the new, never half."""
    singles = sorted(word for word in freq if len(word) == 1)
    longer = sorted(word for word in freq if len(word) > 1)  # grouped by first pair
    freqs = _uint32s(map(freq.__getitem__, longer)).tobytes()
    encoded = [word.encode("utf-8") for word in longer]
    words = b"\n".join(encoded)
    ends = list(accumulate(len(word) + 1 for word in encoded))  # past each word's "\n"
    pairs = [word[:2] for word in longer]
    starts = [i for i in range(len(pairs)) if i == 0 or pairs[i] != pairs[i - 1]] + [len(pairs)]
    records: dict[str, list[int]] = {}  # first character: its pair records
    for start, end in zip(starts, starts[1:]):
        offset = ends[start - 1] if start else 0
        length = ends[end - 1] - 1 - offset
        crc = zlib.crc32(words[offset:offset + length], zlib.crc32(freqs[4 * start:4 * end]))
        records.setdefault(pairs[start][0], []).extend(
            (ord(pairs[start][1]), start, end - start, offset, length, crc))
    all_records, first_record, char_crcs = _uint32s(), _uint32s(), _uint32s()
    for char in singles:
        mine = _uint32s(records.get(char, ()))
        first_record.append(len(all_records) // _RECORD)
        char_crcs.append(zlib.crc32(mine.tobytes()))
        all_records.extend(mine)
    first_record.append(len(all_records) // _RECORD)
    chars = (_uint32s(map(ord, singles)).tobytes() + _uint32s(map(freq.__getitem__, singles)).tobytes()
             + first_record.tobytes() + char_crcs.tobytes())
    header = _HEADER.pack(MAGIC, sha256(source_tag.encode()).digest(), total, len(singles),
                          len(all_records) // _RECORD, len(longer), len(words), zlib.crc32(chars),
                          zlib.crc32(freqs), zlib.crc32(words))

    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".jieba-prefix-")  # mode 0600
    try:
        with os.fdopen(fd, "wb") as out:
            for part in (header, chars, all_records.tobytes(), freqs, words):
                out.write(part)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


class PrefixFile:
    """An open prefix file: `total`, and the entries of jieba's FREQ for a
    character (`char_entry`), a pair (`pair_entries`) or all (`all_entries`).

    Read with pread, not mmap: a message needs a few hundred small reads
    (well under a millisecond), and a file truncated under a mapping would
    kill the process with SIGBUS where a short read is just `Damaged`.
    pread keeps no file position either, so worker processes forked after
    the first message can share the descriptor."""

    def __init__(self, path: Path, source_tag: str):
        self._fd = -1
        self._fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        try:
            info = os.fstat(self._fd)
            # Our cache directory is 0700; a file we did not write, or that
            # others could rewrite, is not trusted.
            if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & 0o022):
                raise Damaged("not our own private file")
            (magic, source, self.total, chars, records, self._entries, self._word_bytes,
             chars_crc, self._freqs_crc, self._words_crc) = _HEADER.unpack(self._read(0, _HEADER.size))
            if magic != MAGIC or source != sha256(source_tag.encode()).digest():
                raise Damaged("other format or other dictionary")
            size = 4 * (4 * chars + 1)
            table = self._read(_HEADER.size, size)
            if zlib.crc32(table) != chars_crc:
                raise Damaged("character table")
            self._codes = _uint32s(table[: 4 * chars])
            self._singles = _uint32s(table[4 * chars: 8 * chars])
            self._first = _uint32s(table[8 * chars: 12 * chars + 4])
            self._crcs = _uint32s(table[12 * chars + 4:])
            self._records_at = _HEADER.size + size
            self._freqs_at = self._records_at + 4 * _RECORD * records
            self._words_at = self._freqs_at + 4 * self._entries
            if self._words_at + self._word_bytes != info.st_size or self._first[-1] != records:
                raise Damaged("size")
            self._pairs: dict[str, tuple[array, array]] = {}
        except BaseException:
            self.close()
            raise

    def _read(self, offset: int, size: int) -> bytes:
        data = os.pread(self._fd, size, offset)
        if len(data) != size:
            raise Damaged("short read")
        return data

    def char_entry(self, char: str) -> list[tuple[str, int]]:
        """[(char, frequency)] when `char` is a key, else []; reads the
        char's pair records for `pair_entries`."""
        code = ord(char)
        i = bisect_left(self._codes, code)
        if i == len(self._codes) or self._codes[i] != code:
            return []
        first, end = self._first[i], self._first[i + 1]
        if end < first:
            raise Damaged(f"records of {char!r}")
        data = self._read(self._records_at + 4 * _RECORD * first, 4 * _RECORD * (end - first))
        if zlib.crc32(data) != self._crcs[i]:
            raise Damaged(f"records of {char!r}")
        records = _uint32s(data)
        self._pairs[char] = (records[0::_RECORD], records)
        return [(char, self._singles[i])]

    def pair_entries(self, pair: str):
        """(word, frequency) of every entry starting with the two characters
        `pair`; char_entry(pair[0]) must have been called."""
        seconds, records = self._pairs.get(pair[0], ((), ()))
        code = ord(pair[1])
        i = bisect_left(seconds, code)
        if i == len(seconds) or seconds[i] != code:
            return ()
        _, start, count, offset, length, crc = records[_RECORD * i: _RECORD * (i + 1)]
        if start + count > self._entries or offset + length > self._word_bytes:
            raise Damaged(f"record of {pair!r}")
        freqs = self._read(self._freqs_at + 4 * start, 4 * count)
        words = self._read(self._words_at + offset, length)
        if zlib.crc32(words, zlib.crc32(freqs)) != crc:
            raise Damaged(f"entries of {pair!r}")
        return self._pairs_of(words, freqs, count, pair)

    def all_entries(self) -> dict[str, int]:
        """The whole FREQ, read in one go."""
        freqs = self._read(self._freqs_at, 4 * self._entries)
        words = self._read(self._words_at, self._word_bytes)
        if zlib.crc32(freqs) != self._freqs_crc or zlib.crc32(words) != self._words_crc:
            raise Damaged("entries")
        out = dict(self._pairs_of(words, freqs, self._entries, "all"))
        out.update(zip(map(chr, self._codes), self._singles))
        return out

    @staticmethod
    def _pairs_of(words: bytes, freqs: bytes, count: int, what: str):
        try:
            split = words.decode("utf-8").split("\n") if count else []
        except UnicodeDecodeError as error:
            raise Damaged(f"entries of {what!r}") from error
        if len(split) != count:
            raise Damaged(f"entries of {what!r}")
        return zip(split, _uint32s(freqs))

    def close(self, _close=os.close) -> None:  # bound now: at interpreter exit `os` may be gone
        if self._fd >= 0:
            _close(self._fd)
            self._fd = -1

    __del__ = close
