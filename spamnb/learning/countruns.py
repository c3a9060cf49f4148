"""Counting in bounded memory: sorted runs of keyed counts, spilled to disk
and merged k ways.

Training adds up, per token, four counts (N_ham,w, N_spam,w, D_ham,w,
D_spam,w; see counts.py).  Here a token is its 64-bit key
(_core.token_key, the key the model file sorts by) and a batch's counts
are a *run*: the keys sorted and unique, a (4, n) array of counts beside
them.  Runs add up by sorting: concatenate, order by key, sum equal keys
(np.add.reduceat).  The token text travels apart, as runs of (key, UTF-8
bytes) merged the same way, keeping one text per key; `inspect` and
`export` read it from the model file.

CountStore holds runs up to a memory budget.  Past a quarter of it, the
pending runs are summed into one; past the whole budget, the summed runs
are written to disk, sorted, as a spill file (a directory beside the model,
or $TMPDIR).  At the end all runs are merged k ways a chunk at a time: from
each run a chunk is read, everything up to the smallest of the chunks' last
keys is summed and handed on, and the consumed runs read on.  Memory is the
budget plus k chunks, whatever the vocabulary.

Counts are sums, so the result is the same however the messages were split
into batches and runs, spilled or not: tests/learning/test_scale.py checks a tiny
budget (dozens of spills) against the in-memory sum, count for count.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator

import numpy as np

from .._core import key_positions, merge_counts, merge_text

ROWS = 4  # occurrences ham, spam; documents ham, spam
COUNT_BYTES = 8 + 4 * ROWS  # a key and its four 32-bit counts, as spilled
DEFAULT_BUDGET = 16 << 20
"""Bytes of counts and token text held in memory before a spill.  Summing
and spilling them costs about 2.5 times as much again in temporaries; at
16 MiB the reading process stays well below each worker's own heap (165 MB
on trec06p, BENCHMARKS.md).  The budget only moves the spill point, never
the result."""
MERGE_CHUNK = 1 << 18
"""At most this many entries are read from each run per step of the k-way merge."""
FAN_IN = 16
GATHER_STRINGS = 1 << 16
U4_MAX = 2**32 - 1


class Run:
    """Keys (u8, sorted, unique) with counts (u4[4, n]) or with token text
    (lengths u4[n] and the bytes, concatenated in key order)."""

    __slots__ = ("keys", "counts", "lengths", "text")

    def __init__(self, keys: np.ndarray, counts: np.ndarray | None = None,
                 lengths: np.ndarray | None = None, text: np.ndarray | None = None) -> None:
        self.keys, self.counts, self.lengths, self.text = keys, counts, lengths, text

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.keys, self.counts, self.lengths, self.text) if a is not None)


def gather_text(text: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The byte strings text[starts[i]:starts[i] + lengths[i]], concatenated."""
    lengths = lengths.astype(np.int64)
    if len(lengths) > GATHER_STRINGS:  # the index below is 8 bytes a byte gathered: a piece at a time
        return np.concatenate([gather_text(text, starts[i:i + GATHER_STRINGS], lengths[i:i + GATHER_STRINGS])
                               for i in range(0, len(lengths), GATHER_STRINGS)])
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.uint8)
    ends = np.cumsum(lengths)
    # Each output byte's source: its string's start, plus its place in the string.
    index = np.repeat(starts.astype(np.int64) - (ends - lengths), lengths) + np.arange(total, dtype=np.int64)
    return text[index]


def sum_counts(keys: np.ndarray, counts: np.ndarray) -> Run:
    """One run from keys in any order, repeated or not, and their counts: sum equal keys.

    By sorting the keys alone (np.sort is about ten times faster than the
    argsort that would carry the counts along), finding each
    entry's place among the distinct ones (_core.key_positions) and adding
    the counts there (np.bincount, exact: float64 holds every sum below 2^53)."""
    keys = np.asarray(keys, dtype=np.uint64)
    if len(keys) == 0:
        return Run(keys, np.zeros((ROWS, 0), dtype=np.uint32))
    ordered = np.sort(keys)
    distinct = ordered[np.concatenate([[True], ordered[1:] != ordered[:-1]])]
    del ordered
    if len(distinct) == len(keys) and np.array_equal(distinct, keys):  # sorted, nothing to add up
        return Run(distinct, np.asarray(counts).astype(np.uint32, copy=False))
    at = np.empty(len(keys), dtype=np.uint64)
    key_positions(distinct, np.ascontiguousarray(keys), at)
    summed = np.zeros((ROWS, len(distinct)), dtype=np.uint64)
    for row in range(ROWS):
        values = counts[row]
        if int(values.sum(dtype=np.uint64)) < 2**53:
            summed[row] = np.bincount(at.astype(np.intp), weights=values, minlength=len(distinct)).astype(np.uint64)
        else:
            np.add.at(summed[row], at.astype(np.intp), values.astype(np.uint64))
    if int(summed.max()) > U4_MAX:
        raise ValueError(f"a count past {U4_MAX:,}: out of range for the model format")
    return Run(distinct, summed.astype(np.uint32))


def first_text(keys: np.ndarray, lengths: np.ndarray, text: np.ndarray) -> Run:
    """One text run from (key, text) entries in any order: one text per key.

    Two different texts under one key would make a model that could be
    written but never loaded (its keys must be unique): refused here, as
    Model.refresh refuses it.
    """
    starts = np.concatenate([[0], np.cumsum(lengths.astype(np.int64))[:-1]]) if len(lengths) else \
        np.zeros(0, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    keys, starts, lengths = keys[order], starts[order], lengths[order]
    if len(keys) == 0:
        return Run(keys, lengths=lengths.astype(np.uint32), text=np.zeros(0, dtype=np.uint8))
    first = np.concatenate([[True], keys[1:] != keys[:-1]])
    repeat = np.flatnonzero(~first)
    if len(repeat):
        kept = np.flatnonzero(first)[np.searchsorted(np.flatnonzero(first), repeat, side="right") - 1]
        if (lengths[repeat] != lengths[kept]).any() or \
                not np.array_equal(gather_text(text, starts[repeat], lengths[repeat]),
                                   gather_text(text, starts[kept], lengths[kept])):
            raise ValueError("two tokens share a 64-bit key")
    return Run(keys[first], lengths=lengths[first].astype(np.uint32),
               text=gather_text(text, starts[first], lengths[first]))


def concatenate(runs: list[Run]) -> Run:
    """The entries of several runs, one after another (not yet summed)."""
    keys = np.concatenate([r.keys for r in runs]) if runs else np.zeros(0, dtype=np.uint64)
    if runs and runs[0].counts is not None:
        return Run(keys, np.concatenate([r.counts for r in runs], axis=1))
    return Run(keys, lengths=np.concatenate([r.lengths for r in runs]) if runs else np.zeros(0, np.uint32),
               text=np.concatenate([r.text for r in runs]) if runs else np.zeros(0, np.uint8))


def merged_in_core(runs: list[Run]) -> Run | None:
    """combine's result, from runs that are each sorted (every run a batch
    or a merge makes), merged k ways in the core: each entry read once,
    where sorting them end to end costs a second or two of a spamassassin
    training.  None when a run is not sorted."""
    if not runs:
        return None
    keys = [np.ascontiguousarray(r.keys, dtype=np.uint64) for r in runs]
    total = sum(len(k) for k in keys)
    out_keys = np.empty(total, dtype=np.uint64)
    if runs[0].counts is not None:
        out_counts = np.empty((total, ROWS), dtype=np.uint32)
        written = merge_counts(keys, [np.ascontiguousarray(r.counts, dtype=np.uint32) for r in runs],
                               out_keys, out_counts)
        if written is None:
            return None
        return Run(_cut(out_keys, written), np.ascontiguousarray(_cut(out_counts, written).T))
    lengths = [np.ascontiguousarray(r.lengths, dtype=np.uint32) for r in runs]
    texts = [np.ascontiguousarray(r.text, dtype=np.uint8) for r in runs]
    out_lengths = np.empty(total, dtype=np.uint32)
    out_text = np.empty(sum(len(t) for t in texts), dtype=np.uint8)
    done = merge_text(keys, lengths, texts, out_keys, out_lengths, out_text)
    if done is None:
        return None
    entries, size = done
    return Run(_cut(out_keys, entries), lengths=_cut(out_lengths, entries), text=_cut(out_text, size))


def _cut(array: np.ndarray, length: int) -> np.ndarray:
    """A merge's output array cut to its first `length` entries (rows), in
    place (realloc): a copy of the part would hold both at once, a run's
    size more at each summing and spill of the reading process.  Only for
    arrays no view refers to (refcheck is off: a realloc may move the data):
    merged_in_core's own, made there and lent to the core for its call only."""
    array.resize((length, *array.shape[1:]), refcheck=False)
    return array


def combine(runs: list[Run]) -> Run:
    """The runs added up: counts summed per key, or one text per key."""
    merged = merged_in_core(runs)
    if merged is not None:
        return merged
    whole = concatenate(runs)
    if whole.counts is not None:
        return sum_counts(whole.keys, whole.counts)
    assert whole.lengths is not None and whole.text is not None  # without counts, a run has text
    return first_text(whole.keys, whole.lengths, whole.text)


def write_array(handle, array: np.ndarray) -> None:
    """Append an array's bytes to a file.  Not ndarray.tofile: on a full disk
    that raises an OSError without errno ("N requested and 0 written"), so
    the user would not be told why; a file's write says "No space left"."""
    handle.write(np.ascontiguousarray(array).data)


class SpilledRun:
    """A run on disk: `PREFIX.keys`, and `.counts` or `.lengths` and `.text`,
    written a chunk at a time (`append`), in key order."""

    def __init__(self, prefix: str, has_counts: bool, level: int = 0) -> None:
        self.prefix = prefix
        self.length = 0
        self.has_counts = has_counts
        self.level = level  # how many merges of spills it took: see CountStore.spill
        for suffix in self._suffixes():
            open(prefix + suffix, "wb").close()

    def _suffixes(self) -> tuple[str, ...]:
        return (".keys", ".counts") if self.has_counts else (".keys", ".lengths", ".text")

    def append(self, run: Run) -> None:
        arrays = [run.keys.astype("<u8", copy=False)]  # no copy of keys already little-endian
        if self.has_counts:
            assert run.counts is not None  # a run of this spill's kind
            arrays.append(np.ascontiguousarray(run.counts.T, dtype="<u4"))  # entry-major: a chunk is one read
        else:
            assert run.lengths is not None and run.text is not None  # without counts, a run has text
            arrays += [run.lengths.astype("<u4", copy=False), run.text]
        for suffix, array in zip(self._suffixes(), arrays):
            with open(self.prefix + suffix, "ab") as handle:
                write_array(handle, array)
        self.length += len(run)

    def remove(self) -> None:
        for suffix in self._suffixes():
            try:
                os.unlink(self.prefix + suffix)
            except FileNotFoundError:
                pass


class RunReader:
    """Reads a run a chunk at a time (from memory or from its spill file)."""

    def __init__(self, source: "Run | SpilledRun") -> None:
        self.source = source
        self.at = 0  # entries read
        self.text_at = 0  # text bytes read
        self.length = len(source) if isinstance(source, Run) else source.length

    @property
    def exhausted(self) -> bool:
        return self.at >= self.length

    def read_keys(self, count: int) -> np.ndarray:
        """The next `count` entries' keys alone, their counts or text not read
        (a reader used for keys only: the text's place is not kept)."""
        start, stop = self.at, min(self.at + count, self.length)
        self.at = stop
        if isinstance(self.source, Run):
            return self.source.keys[start:stop]
        return _spilled_keys(self.source, start, stop)

    def read(self, count: int) -> Run:
        start, stop = self.at, min(self.at + count, self.length)
        self.at = stop
        source = self.source
        if isinstance(source, Run):
            if source.counts is not None:
                return Run(source.keys[start:stop], source.counts[:, start:stop])
            assert source.lengths is not None and source.text is not None  # without counts, a run has text
            lengths = source.lengths[start:stop]
            size = int(lengths.sum(dtype=np.int64))
            text = source.text[self.text_at:self.text_at + size]
            self.text_at += size
            return Run(source.keys[start:stop], lengths=lengths, text=text)
        keys = _spilled_keys(source, start, stop)
        if source.has_counts:
            counts = np.fromfile(source.prefix + ".counts", dtype="<u4", count=ROWS * (stop - start),
                                 offset=4 * ROWS * start).reshape(stop - start, ROWS).T
            return Run(keys, counts)
        lengths = np.fromfile(source.prefix + ".lengths", dtype="<u4", count=stop - start, offset=4 * start)
        size = int(lengths.sum(dtype=np.int64))
        text = np.fromfile(source.prefix + ".text", dtype=np.uint8, count=size, offset=self.text_at)
        self.text_at += size
        return Run(keys, lengths=lengths, text=text)


def _spilled_keys(run: "SpilledRun", start: int, stop: int) -> np.ndarray:
    return np.fromfile(run.prefix + ".keys", dtype="<u8", count=stop - start, offset=8 * start)


def _split(run: Run, at: int) -> tuple[Run, Run]:
    """The first `at` entries of a run, and the rest."""
    if run.counts is not None:
        return Run(run.keys[:at], run.counts[:, :at]), Run(run.keys[at:], run.counts[:, at:])
    assert run.lengths is not None and run.text is not None  # without counts, a run has text
    size = int(run.lengths[:at].sum(dtype=np.int64))
    return (Run(run.keys[:at], lengths=run.lengths[:at], text=run.text[:size]),
            Run(run.keys[at:], lengths=run.lengths[at:], text=run.text[size:]))


def merge_runs(sources: list, chunk: int = MERGE_CHUNK) -> Iterator[Run]:
    """Runs (in memory or spilled) added up, in key order, a chunk at a time.

    Each step takes, from every run's buffered chunk, the keys up to the
    smallest last key among runs with more to read: no later entry can have
    a smaller key, so what is taken is final.  The run that set the bound is
    used up in that step and reads on.
    """
    readers = [RunReader(source) for source in sources]
    buffers = [reader.read(chunk) for reader in readers]
    while any(len(b) for b in buffers):
        open_ends = [b.keys[-1] for b, r in zip(buffers, readers) if not r.exhausted and len(b)]
        bound = min(open_ends) if open_ends else None
        taken = []
        for i, buffer in enumerate(buffers):
            at = len(buffer) if bound is None else int(np.searchsorted(buffer.keys, bound, side="right"))
            head, buffers[i] = _split(buffer, at)
            if len(head):
                taken.append(head)
            if len(buffers[i]) == 0 and not readers[i].exhausted:
                buffers[i] = readers[i].read(chunk)
        if taken:
            yield combine(taken)


class CountStore:
    """Keyed counts and token text, added up within a memory budget (bytes).

    `add` takes a batch's runs; `merged_counts` and `merged_text` give the
    totals in key order, a chunk at a time.  Spill files go in a folder
    `prefix`*.tmp in `directory` (created on the first spill, removed by `close`).
    """

    def __init__(self, budget: int = DEFAULT_BUDGET, directory: str | None = None,
                 prefix: str = ".spamnb-spill-") -> None:
        self.budget = max(int(budget), 1 << 16)
        self.directory = directory
        self.prefix = prefix
        self._spill_dir: str | None = None
        self.pending: dict[bool, list[Run]] = {True: [], False: []}  # counts, text
        self.summed: dict[bool, list[Run]] = {True: [], False: []}
        self.spilled: dict[bool, list[SpilledRun]] = {True: [], False: []}
        self.spills = 0

    def _held(self, lists) -> int:
        return sum(run.nbytes for kind in (True, False) for run in lists[kind])

    def add(self, counts: Run, text: Run | None = None) -> None:
        self.pending[True].append(counts)
        if text is not None and len(text):
            self.pending[False].append(text)
        if self._held(self.pending) > self.budget // 4:
            self._sum_pending()
        if self._held(self.summed) > self.budget:
            self.spill()

    def _sum_pending(self) -> None:
        for kind in (True, False):
            if self.pending[kind]:
                self.summed[kind].append(combine(self.pending[kind]))
                self.pending[kind] = []
        # Summed runs that are many small ones cost a sort each at the merge: fold them.
        for kind in (True, False):
            if len(self.summed[kind]) > 8:
                self.summed[kind] = [combine(self.summed[kind])]

    def _new_spill(self, kind: bool, level: int) -> SpilledRun:
        if self._spill_dir is None:
            # Ends in .tmp: a run killed outright leaves it, and the next write of the
            # model sweeps it once stale (modelstore._sweep_stale_temporaries).
            self._spill_dir = tempfile.mkdtemp(prefix=self.prefix, suffix=".tmp", dir=self.directory)
        self.spills += 1
        name = f"run-{self.spills:05d}-{'counts' if kind else 'text'}"
        return SpilledRun(os.path.join(self._spill_dir, name), kind, level)

    def spill(self) -> None:
        """Write what is held to disk as sorted runs (one for counts, one for text).

        Spilled runs merge in tiers, as a log-structured merge tree does:
        FAN_IN runs of one level become one run of the next, so every entry
        is rewritten about log_FAN_IN(spills) times and the final merge reads
        a few dozen runs at most.
        """
        self._sum_pending()
        for kind in (True, False):
            if not self.summed[kind]:
                continue
            run = combine(self.summed[kind]) if len(self.summed[kind]) > 1 else self.summed[kind][0]
            self.summed[kind] = []
            spilled = self._new_spill(kind, 0)
            spilled.append(run)
            del run
            self.spilled[kind].append(spilled)
            level = 0
            while True:
                same = [r for r in self.spilled[kind] if r.level == level]
                if len(same) < FAN_IN:
                    break
                merged = self._new_spill(kind, level + 1)
                for part in merge_runs(same, self._chunk(len(same))):
                    merged.append(part)
                for r in same:
                    r.remove()
                self.spilled[kind] = [r for r in self.spilled[kind] if r.level != level] + [merged]
                level += 1

    def _chunk(self, runs: int) -> int:
        """Entries per run per merge step: k buffers fit in the budget."""
        return int(min(MERGE_CHUNK, max(4096, self.budget // (2 * max(runs, 1) * COUNT_BYTES))))

    def _sources(self, kind: bool) -> list:
        self._sum_pending()
        return [*self.spilled[kind], *self.summed[kind]]

    def merged_counts(self) -> Iterator[Run]:
        sources = self._sources(True)
        return merge_runs(sources, self._chunk(len(sources)))

    def merged_text(self) -> Iterator[Run]:
        sources = self._sources(False)
        return merge_runs(sources, self._chunk(len(sources)))

    def drop_text(self) -> None:
        """Let the token text go (its runs in memory and on disk), once
        merged_text has been read to its end: counts may still be added."""
        self.pending[False], self.summed[False] = [], []
        for run in self.spilled[False]:
            run.remove()
        self.spilled[False] = []

    def close(self) -> None:
        for kind in (True, False):
            for run in self.spilled[kind]:
                run.remove()
            self.spilled[kind] = []
        if self._spill_dir is not None:
            try:
                os.rmdir(self._spill_dir)
            except OSError:
                pass
            self._spill_dir = None

    def __enter__(self) -> "CountStore":
        return self

    def __exit__(self, *exception) -> None:
        self.close()
