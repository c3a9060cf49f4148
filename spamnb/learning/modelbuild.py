"""Counts too big to hold → the model file, a chunk of tokens at a time.

Training's merged counts (countruns.py) come in key order, which is the
model file's order.  Two passes over them make the file Model.from_counts
and Model.save would make from the same counts, with memory bounded by the
chunk, not the vocabulary (ModelBuild):

0. the token text is merged to one sorted run on disk first, whose lengths
   and bytes are the model's token_lengths and token_bytes sections, and
   threads start compressing them (ModelBuild.take_text);
1. the counts are merged to one sorted run on disk,
   adding up what every weight depends on besides its own counts: the
   per-class totals Σ_w N_cw, the vocabulary size V and the largest count
   (16- or 32-bit occurrences), and picking out the columns of the tokens
   of the calibration sample, which the near-error pass scores
   (training.near_errors_by_key); the occurrences it counts again go into
   those columns and totals, and into each chunk of pass 2
   (ModelBuild.count_again), so the counts are merged once;
2. each chunk of BUILD_CHUNK keys (whole blocks of BLOCK_KEYS) gets its
   weights (weights.token_weights: the same formula as the whole vocabulary
   at once, element by element), selection, block index and checksums, and
   each section's piece is appended to its own file; modelfile's streamed
   writer puts the file together.

Calibration scores the sample from its tokens' columns alone
(heldout.blocked_raw_scores_by_key).  The Bernoulli bias's absent-token sum
is added a chunk at a time, so it may differ from a sum over the whole
array in its last bits (floating point addition is not associative); every
other number is the same.
"""

from __future__ import annotations

import os
import tempfile
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from collections.abc import Callable
from typing import Any

import numpy as np

from .countruns import U4_MAX, Run, RunReader, SpilledRun, write_array
from ..model.labels import HAM, SPAM
from ..model.heldout import blocked_raw_scores_by_key
from ..model.keyscores import KeyColumns, key_positions, unique_keys
from ..model.learned import LearnedDigests
from ..model.model import COMPRESSED, Model, file_meta
from ..model.modelfile import BLOCK_KEYS, deflate_to_file, occurrence_crcs, write_model_streamed
from ..model.modelstore import check_writable, locked
from ..model.options import TrainOptions
from ..progress import Phases
from .._core import block_crcs
from ..model.scoring import Cutoffs
from ..model.formula import knows_both_classes
from ..model.weights import keyword_keys_of, model_bias, selected_tokens, token_weights

BUILD_CHUNK = 256 * BLOCK_KEYS
# Threads compressing the model's sections (ModelBuild): two, for the two
# sections of token text that start first and take longest, and no more
# (each holds a piece of its section).
DEFLATING_THREADS = 2
SECTION_ORDER = ("keys", "weights", "block_first", "block_crcs", "token_lengths", "token_bytes",
                 "occurrences", "occurrence_crcs", "documents", "last_seen")


class SampleColumns:
    """The counts of the calibration sample's keys, with the model's per-class
    totals Σ_w N_cw and vocabulary size V, gathered from the merged counts a
    chunk at a time (key order): what scoring the sample needs of a model
    whose vocabulary is not held."""

    def __init__(self, sample: list) -> None:
        self.wanted = (unique_keys([keys for keys, _ in sample]) if sample
                       else np.zeros(0, dtype=np.uint64))
        self.picked = np.zeros((4, len(self.wanted)), dtype=np.uint32)
        self.totals = np.zeros(2, dtype=np.int64)
        self.vocabulary = 0

    def take(self, chunk) -> None:
        self.totals += chunk.counts[0:2].sum(axis=1, dtype=np.int64)
        self.vocabulary += len(chunk)
        at = key_positions(self.wanted, chunk.keys)  # np.searchsorted's places, found in the core
        inside = at < len(self.wanted)
        inside[inside] = self.wanted[at[inside]] == chunk.keys[inside]
        self.picked[:, at[inside]] = chunk.counts[:, inside]

    def columns(self, messages: np.ndarray, options: TrainOptions) -> KeyColumns:
        return KeyColumns(self.wanted, self.picked[0:2], self.picked[2:4],
                          selected_tokens(self.picked[2:4], messages, self.wanted, options, keyword_keys_of(options),
                                          whole_vocabulary=False))


def calibration_due(labels: list[int], messages) -> bool:
    """Whether the sample allows a calibration: two of each class in it and in the model."""
    return labels.count(SPAM) >= 2 and labels.count(HAM) >= 2 and min(messages) >= 2


class ModelBuild:
    """The writing of one model file from a Tally's counts (training.train_file):
    a scratch folder beside the model, and threads that compress its
    sections (zlib lets go of the GIL) while this one goes on.

    `take_text` merges the token text first, before the near-error pass
    (which adds counts, never text): the merged text's lengths and bytes are
    the token_lengths and token_bytes sections as they are, so their
    compression (three quarters of the model's zlib time, 0.4 s of
    spamassassin's training part on a quiet machine) runs beside the near
    errors, the weighing and the calibration, on the core the counting
    workers left idle.
    `write` makes the rest and writes the file.  A piece of a section at a
    time per thread: memory grows by the threads' pieces.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        real = check_writable(path)
        self._scratch = tempfile.TemporaryDirectory(prefix=f".{os.path.basename(real)}.build-", suffix=".tmp",
                                                    dir=os.path.dirname(real))
        self.scratch = self._scratch.name
        self._threads = ThreadPoolExecutor(DEFLATING_THREADS)
        self._stop = threading.Event()  # set when the build ends: a compression still running gives up
        self._deflated: dict[str, Future] = {}
        self._text_run: SpilledRun | None = None
        self._counts_run: SpilledRun | None = None
        self._gathered: SampleColumns | None = None
        self._largest = 0  # the largest occurrence count: 16- or 32-bit sections
        self._extra: Run | None = None  # counted again (count_again)

    def __enter__(self) -> "ModelBuild":
        return self

    def __exit__(self, *exception) -> None:
        self._stop.set()
        self._threads.shutdown(wait=True, cancel_futures=True)  # before their files go
        self._scratch.cleanup()

    def _deflate(self, name: str, dtype: str, parts: list) -> None:
        self._deflated[name] = self._threads.submit(deflate_to_file, parts, dtype,
                                                    os.path.join(self.scratch, name + ".deflated"), self._stop)

    def take_text(self, tally, phases=None) -> None:
        """Merge the token text of `tally` to one run on disk, start compressing
        it, and let the store's copies of it go: the first of the counts'
        merging (`phases` is told)."""
        (phases or Phases()).phase("merging counts")
        text_run = SpilledRun(os.path.join(self.scratch, "text"), False)
        for chunk in tally.store.merged_text():
            text_run.append(chunk)
        tally.store.drop_text()  # merged: its runs' memory and disk are free again
        self._text_run = text_run
        self._deflate("token_lengths", "<u4", [text_run.prefix + ".lengths"])
        self._deflate("token_bytes", "|u1", [text_run.prefix + ".text"])

    def merge_counts(self, tally, sample: list) -> SampleColumns:
        """Pass 1: merge `tally`'s counts to one run on disk, and gather the
        sample's columns with the totals and V (SampleColumns), which the
        near-error pass scores the sample by and calibration (with the near
        errors counted again: count_again) later.  One merge for both: the
        near errors' occurrences go into the chunks as pass 2 reads them."""
        counts_run = SpilledRun(os.path.join(self.scratch, "counts"), True)
        largest = 0
        gathered = SampleColumns(sample)
        for chunk in tally.store.merged_counts():
            counts_run.append(chunk)
            gathered.take(chunk)
            largest = max(largest, int(chunk.counts[0:2].max(initial=0)))
        tally.store.close()  # the spilled runs are merged: their disk space is free again
        self._counts_run, self._gathered, self._largest = counts_run, gathered, largest
        return gathered

    def count_again(self, extra: Run | None) -> None:
        """Add a run of counts of sample keys (the near errors' occurrences
        counted again, training.near_errors_by_key) to the merged counts: to
        the sample's columns and totals now, to each chunk as pass 2 reads it."""
        if extra is None or not len(extra):
            return
        assert extra.counts is not None and self._gathered is not None  # a counts run; merge_counts first
        gathered = self._gathered
        at = np.minimum(np.searchsorted(gathered.wanted, extra.keys), len(gathered.wanted) - 1)
        if not np.array_equal(gathered.wanted[at], extra.keys):
            raise ValueError("counted again: a key the sample does not hold")
        summed = gathered.picked[:, at].astype(np.int64) + extra.counts
        if int(summed.max()) > U4_MAX:
            raise ValueError(f"a count past {U4_MAX:,}: out of range for the model format")
        gathered.picked[:, at] = summed
        gathered.totals += extra.counts[0:2].sum(axis=1, dtype=np.int64)
        self._largest = max(self._largest, int(summed[0:2].max()))
        self._extra = extra

    def write(self, tally, options: TrainOptions, cutoffs: Cutoffs | None, sample: list, day: int,
              phases=None, before_write: Callable[[LearnedDigests], None] | None = None,
              copies: list[int] | None = None) -> int:
        """Write the model of `tally`'s counts to the path; returns the vocabulary size.

        The final write holds the model's lock, and `before_write(learned)`
        runs under it first (see training.train_file); `phases` is told when
        the counts are merged, weighed, calibrated and written.  `copies`: how
        many times each sample message is counted (training.near_errors_by_key)."""
        # take_text and merge_counts first (training.train_file calls them in that order).
        assert self._text_run is not None and self._counts_run is not None and self._gathered is not None
        text_run, counts_run, gathered, extra = self._text_run, self._counts_run, self._gathered, self._extra
        scratch, path = self.scratch, self.path
        phases = phases or Phases()
        messages = tally.messages.copy()
        keyword_keys = keyword_keys_of(options)
        totals = gathered.totals
        vocabulary = counts_run.length
        if text_run.length != vocabulary:
            raise ValueError("token text and counts disagree")
        occurrence_type = "<u2" if self._largest <= 0xFFFF else "<u4"
        text_bytes = os.path.getsize(text_run.prefix + ".text")

        # Pass 2.
        phases.phase("weighing tokens")
        weighing = knows_both_classes(messages)  # else every λ and b are 0
        files: dict[str, Any] = {name: os.path.join(scratch, name) for name in SECTION_ORDER}  # a path, or two
        files["token_lengths"], files["token_bytes"] = text_run.prefix + ".lengths", text_run.prefix + ".text"
        for half in ("occurrences", "documents"):
            files[half] = [files[half] + ".ham", files[half] + ".spam"]
        handles = {}
        for name, target in files.items():
            if name in ("token_lengths", "token_bytes"):
                continue  # the text run's own files
            for one in (target if isinstance(target, list) else [target]):
                handles[one] = open(one, "wb")
        absent_sum = 0.0
        try:
            counts_reader, text_keys = RunReader(counts_run), RunReader(text_run)
            while not counts_reader.exhausted:
                chunk = counts_reader.read(BUILD_CHUNK)
                if not np.array_equal(chunk.keys, text_keys.read_keys(len(chunk))):
                    raise ValueError("token text and counts disagree")
                assert chunk.counts is not None  # a counts run
                counts = chunk.counts.astype(np.int64)
                if extra is not None:  # the near errors' counts in this chunk's span of keys
                    assert extra.counts is not None  # a counts run
                    first = int(np.searchsorted(extra.keys, chunk.keys[0]))
                    last = int(np.searchsorted(extra.keys, chunk.keys[-1], side="right"))
                    at = np.searchsorted(chunk.keys, extra.keys[first:last])
                    if not np.array_equal(chunk.keys[at], extra.keys[first:last]):
                        # A key counted again that the vocabulary lacks would add to its neighbour's counts.
                        raise ValueError("near errors counted again hold a token the counts do not")
                    counts[:, at] += extra.counts[:, first:last]
                occurrences, documents = counts[0:2], counts[2:4]
                if weighing:
                    weights, absent = token_weights(occurrences, documents, messages, totals, vocabulary,
                                                    options.event_model, options.alpha, options.robinson,
                                                    options.min_strength)
                    if absent is not None:
                        absent_sum += float(absent.sum())
                else:
                    weights = np.zeros(len(chunk))
                selected = selected_tokens(documents, messages, chunk.keys, options, keyword_keys,
                                           whole_vocabulary=False)
                weights = np.where(selected, weights, 0.0).astype("<f4")
                keys = chunk.keys.astype("<u8")
                stored = occurrences.astype(occurrence_type)  # a chunk is whole blocks: its checksums are the file's
                pieces = {
                    files["keys"]: keys, files["weights"]: weights,
                    files["block_first"]: keys[::BLOCK_KEYS],
                    files["block_crcs"]: np.array(block_crcs(keys.tobytes(), weights.tobytes(), BLOCK_KEYS),
                                                  dtype="<u4"),
                    files["occurrences"][HAM]: stored[HAM],
                    files["occurrences"][SPAM]: stored[SPAM],
                    files["occurrence_crcs"]: np.array(occurrence_crcs(stored), dtype="<u4"),
                    files["documents"][HAM]: documents[HAM].astype("<u4"),
                    files["documents"][SPAM]: documents[SPAM].astype("<u4"),
                    files["last_seen"]: np.full(len(chunk), day, dtype="<u4"),
                }
                for target, array in pieces.items():
                    write_array(handles[target], array)
        finally:
            for handle in handles.values():
                handle.close()
        counts_run.remove()
        self._extra = extra = None  # in the chunks now: not held through the calibration

        bias = 0.0
        if weighing:
            bias = model_bias(messages, absent_sum)
        digests, classes = tally.learned.arrays()
        blocks = -(-vocabulary // BLOCK_KEYS)
        shapes = {"keys": ("<u8", [vocabulary]), "weights": ("<f4", [vocabulary]),
                  "block_first": ("<u8", [blocks]), "block_crcs": ("<u4", [blocks]),
                  "token_lengths": ("<u4", [vocabulary]), "token_bytes": ("|u1", [text_bytes]),
                  "occurrences": (occurrence_type, [2, vocabulary]), "occurrence_crcs": ("<u4", [blocks]),
                  "documents": ("<u4", [2, vocabulary]),
                  "last_seen": ("<u4", [vocabulary])}
        sections: list[tuple] = [(name, *shapes[name], files[name] if isinstance(files[name], list) else [files[name]])
                    for name in SECTION_ORDER]
        # The record's own array (u8, a file's order), not a copy of it: 8 MB a
        # million messages, held through the calibration and the write.
        sections += [("digests", "<u8", [len(digests)], [digests.astype("<u8", copy=False)]),
                     ("digest_classes", "|u1", [len(digests)], [classes]),
                     ("recent_raw", "<f8", [0], [np.zeros(0, dtype="<f8")]),
                     ("recent_labels", "|u1", [0], [np.zeros(0, dtype=np.uint8)])]
        for name, dtype, _shape, parts in sections:
            if name in COMPRESSED and name not in self._deflated:
                self._deflate(name, dtype, parts)  # beside the calibration

        phases.phase("fitting calibration and cutoffs")
        # A Model with no counts, to fit calibration and cutoffs as Model.calibrate does.
        fitted = Model(None, options, cutoffs, {"block_size": BLOCK_KEYS})  # type: ignore[arg-type]
        labels = [label for _, label in sample]
        if calibration_due(labels, messages):
            fitted.fit_calibration(blocked_raw_scores_by_key(gathered.columns(messages, options),
                                                             [keys for keys, _ in sample], labels, totals,
                                                             vocabulary, messages, options, copies=copies), labels)
            if cutoffs is None:
                fitted.fit_cutoffs(labels)
        meta = file_meta(fitted.meta, options, messages, bias, fitted.cutoffs, vocabulary, totals)
        phases.phase("writing the model")
        with locked(path):
            if before_write is not None:
                before_write(tally.learned)
            write_model_streamed(path, meta, sections, COMPRESSED, scratch, self._deflated)
        return vocabulary
