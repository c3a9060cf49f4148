"""Training: mail sources → decoded messages → tokens → counts → model."""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ..model.counts import TokenCounts, still_counted
from ..model.formula import knows_both_classes
from ..model.labels import HAM, SPAM
from ..model.learned import LearnedDigests
from .countruns import DEFAULT_BUDGET, CountStore, Run, sum_counts
from .learnrule import FORGOTTEN, Learner, learn_messages
from .labelled import (BATCH_BYTES, BATCH_MESSAGES, LearnFlags, LearnReport, TrainReport, check_paths,
                       labelled_messages, tokenized_messages)
from . import modelbuild
from .._core import TokenCounter
from ..mail.digest import message_digest
from ..errors import InputError, ModelError
from ..model.keyscores import KeyBags, KeyColumns, keys_of, places, raw_scores_by_key, unique_keys
from ..model.journal import today
from ..model.model import Model
from ..model.options import TrainOptions
from ..model.scoring import Cutoffs
from ..progress import Phases
from ..record import Record
from ..mail.sources import count_messages
from ..text.tokens import TokenizerOptions
from ..workers import Batches

# Training messages kept (a uniform reservoir sample, fixed seed, so the same
# input gives the same model) for calibrating probabilities on held-out blocks.
CALIBRATION_SAMPLE = 10000


class Reservoir:
    """A uniform sample of at most `size` items from a stream (Vitter's algorithm R).

    The decisions depend only on how many items were offered, never on the
    items, so a sample drawn over message numbers in the reading process is
    the same however the messages are then spread over workers.
    """

    def __init__(self, size: int, seed: int = 0) -> None:
        self.size = size
        self.items: list = []
        self.seen = 0
        self.dropped = None  # the item the last offer put out of the sample, if any
        self._random = random.Random(seed)

    def offer(self, item) -> bool:
        """Offer one item; true if it is in the sample now."""
        self.seen += 1
        self.dropped = None
        if len(self.items) < self.size:
            self.items.append(item)
            return True
        slot = self._random.randrange(self.seen)
        if slot < self.size:
            self.dropped, self.items[slot] = self.items[slot], item
            return True
        return False


@dataclass
class BatchCounts:
    """What a worker sends back for one batch (numpy arrays and ints only):
    its counts as a run (countruns.Run: keys, and N_ham, N_spam, D_ham,
    D_spam per key), the text of the keys this worker has not sent before
    in this training run, and the keys of the messages picked for the
    calibration sample, in token order."""

    counts: Run
    text: Run
    messages: list[int]
    sample: dict[int, np.ndarray]


# The counter of the training run this worker thread counts for: it keys
# each token (BLAKE2b) and sends its text once per run, not once per batch
# (core/src/model/counting.rs; bounded, and a text sent twice is merged away
# by countruns.combine).  Per thread: a Dask worker may run batches side
# by side.
_worker = threading.local()


def _counter(run: str) -> TokenCounter:
    if getattr(_worker, "run", None) != run:
        _worker.run, _worker.counter = run, TokenCounter()
    return _worker.counter


def count_batch(batch: list[tuple[int, int, bytes, bool]], tokenizer: TokenizerOptions,
                run: str = "") -> BatchCounts:
    """Decode, tokenize and count a batch of (number, label, raw bytes, keep
    tokens) messages, in the core with the GIL released.  Runs in a worker
    process (or a Dask worker), so it takes and returns only plain,
    picklable data.  `run` names the training run (see _counter)."""
    keys, counts, text_keys, lengths, text, messages, kept = _counter(run).count(
        [data for _, _, data, _ in batch], [label for _, label, _, _ in batch],
        [keep for _, _, _, keep in batch], tokenizer)
    keyed = np.frombuffer(keys, dtype="<u8").astype(np.uint64, copy=False)
    numbers = [number for number, _, _, keep in batch if keep]
    return BatchCounts(Run(keyed, np.frombuffer(counts, dtype="<u4").reshape(4, len(keyed))),
                       Run(np.frombuffer(text_keys, dtype="<u8"), lengths=np.frombuffer(lengths, dtype="<u4"),
                           text=np.frombuffer(text, dtype=np.uint8)),
                       list(messages),
                       {number: np.frombuffer(keys, dtype="<u8") for number, keys in zip(numbers, kept)})


class Tally:
    """What counting the training mail gives: the counts and token text (a
    CountStore, spilled to disk past its budget), messages per class, and
    the digest and class of every message counted."""

    def __init__(self, budget: int = DEFAULT_BUDGET, directory: str | None = None,
                 prefix: str = ".spamnb-spill-") -> None:
        self.store = CountStore(budget, directory, prefix)
        self.messages = np.zeros(2, dtype=np.int64)
        self.learned = LearnedDigests()

    def counts(self, day: int = 0) -> TokenCounts:
        """The whole vocabulary in memory, as a TokenCounts (in key order)."""
        chunks = list(self.store.merged_counts())
        texts = list(self.store.merged_text())
        keys = np.concatenate([c.keys for c in chunks]) if chunks else np.zeros(0, dtype=np.uint64)
        counts = np.concatenate([c.counts for c in chunks], axis=1) if chunks else np.zeros((4, 0), np.uint32)
        text_keys = np.concatenate([t.keys for t in texts]) if texts else np.zeros(0, dtype=np.uint64)
        if not np.array_equal(keys, text_keys):
            raise ValueError("token text and counts disagree")
        raw = b"".join(t.text.tobytes() for t in texts)  # type: ignore[union-attr]  # text runs
        ends = np.cumsum(np.concatenate([t.lengths for t in texts]) if texts else [], dtype=np.int64).tolist()
        tokens = [raw[a:b].decode("utf-8", "surrogatepass") for a, b in zip([0, *ends], ends)]
        result = TokenCounts.from_arrays(tokens, counts[0:2], counts[2:4], self.messages,
                                         np.full(len(keys), day, dtype=np.uint32), keys)
        result.learned = self.learned.copy()
        return result

    def close(self) -> None:
        self.store.close()


def count_sources(tally: Tally, sources: Iterable[tuple[int, str]], options: TrainOptions,
                  report: TrainReport, progress: Callable[[str], None] | None = None,
                  sample: Reservoir | None = None, executor=None, workers: int = 1
                  ) -> list[tuple[np.ndarray, int]]:
    """Count every message under the labelled paths into `tally`.

    This process reads the sources, skips messages already counted with the
    same label (by digest) and draws the calibration sample; `executor` (any
    object with concurrent.futures' `submit`, such as a process pool or a
    Dask client's executor) decodes, tokenizes and counts batches into
    keyed runs, which this process adds up within its memory budget
    (countruns.CountStore).  Counts are sums, so the result does not depend
    on how the work was split.  Returns the (token keys, label) pairs of the
    sample, in reading order.
    """
    tokenizer = options.tokenizer
    run = f"{os.getpid()}-{time.time_ns()}-{id(tally)}"
    kept: dict[int, tuple[np.ndarray, int]] = {}
    labels: dict[int, int] = {}

    def collect(_tags, result: BatchCounts) -> None:
        tally.store.add(result.counts, result.text)
        tally.messages += np.asarray(result.messages, dtype=np.int64)
        sampled = set(sample.items) if sample is not None and result.sample else ()
        for number, keys in result.sample.items():
            if number in sampled:  # not replaced while the batch was away
                kept[number] = (keys, labels[number])

    batches = Batches(count_batch, collect, args=(tokenizer, run), workers=workers, executor=executor,
                      batch_items=BATCH_MESSAGES, batch_bytes=BATCH_BYTES)
    number = 0
    for label, raw in labelled_messages(sources, report, progress):
        digest = message_digest(raw.data)
        if tally.learned.get(digest) == label:
            report.duplicates += 1  # the same message twice teaches nothing new
            continue
        tally.learned[digest] = label
        number += 1
        keep = sample.offer(number) if sample is not None else False
        if keep:
            labels[number] = label
            dropped = sample.dropped if sample is not None else None
            if dropped is not None:
                # The keys of a message put out of the sample go at once: kept
                # to the end, they were 2-3 times the sample's own (every message
                # ever drawn, 10,000 × (1 + ln(messages / 10,000))).
                kept.pop(dropped, None)
                labels.pop(dropped, None)
        batches.add((number, label, raw.data, keep), size=len(raw.data))
    batches.finish()
    if sample is None:
        return []
    return compact_sample([kept.pop(number) for number in sorted(sample.items)])  # reading order


def compact_sample(sample: list[tuple[np.ndarray, int]]) -> list[tuple[np.ndarray, int]]:
    """The sample with every message's keys a view of one array.

    Each sampled message arrives as an array of its own (some KB), made by
    the thread that reads the workers' results among the other things it
    unpickles; the sample drawn replaces most of them as it goes.  Their
    holes would keep much of that thread's heap from being given back (a
    fifth of the reading process's peak on a large run); in one array, they
    leave the heap free (return_freed_memory)."""
    if not sample:
        return sample
    flat = np.concatenate([keys for keys, _ in sample]).astype(np.uint64, copy=False)
    ends = np.cumsum([len(keys) for keys, _ in sample]).tolist()
    return [(flat[end - len(keys):end], label) for (keys, label), end in zip(sample, ends)]


def calibrate(model: Model, sample: list[tuple[np.ndarray, int]], fit_cutoffs: bool = True,
              copies: list[int] | None = None) -> None:
    """Fit the model's probability calibration, and with `fit_cutoffs` its
    cutoffs, on held-out scores of the sample (token keys and labels, in
    reading order), when the sample allows it; `copies`: how many times each
    was counted (Model.calibrate)."""
    labels = [label for _, label in sample]
    if modelbuild.calibration_due(labels, model.messages):
        model.calibrate([keys for keys, _ in sample], labels, copies)
        if fit_cutoffs:
            model.fit_cutoffs(labels)


def fit_tokenized(documents: Sequence[list[str]], labels: Sequence[int], options: TrainOptions,
                  calibrated: bool = True) -> Model:
    """A model trained as `train` would (calibration and tuned cutoffs included,
    unless `calibrated` is false) on messages already tokenized: its sample
    is kept as token keys, as `train`'s workers keep it, and goes through
    the same near-error pass and calibration."""
    counts = TokenCounts()
    for start in range(0, len(documents), BATCH_MESSAGES):
        counts.add(documents[start:start + BATCH_MESSAGES], labels[start:start + BATCH_MESSAGES])
    reservoir = Reservoir(CALIBRATION_SAMPLE)
    for index in range(len(documents)):
        reservoir.offer(index)
    sample = [(keys_of(documents[i]), labels[i]) for i in sorted(reservoir.items)]  # in reading order
    copies = count_near_errors_again(counts, sample, options)
    model = Model.from_counts(counts, options)
    if calibrated:
        calibrate(model, sample, copies=copies)
    return model


def retraining_applies(options: TrainOptions, sample: list, messages) -> bool:
    """Whether the retraining pass has anything to do: a margin, a sample, and
    messages of both classes to weigh them by."""
    return options.retrain_margin > 0 and bool(sample) and int(np.asarray(messages).min()) > 0


def times_counted(raw: float, label: int, margin: float) -> int:
    """How many times a training message is counted: twice when the model
    scores it wrong or within `margin` of 0 (raw score), else once (see
    TrainOptions.retrain_margin).  A message with too little evidence (raw
    NaN) is counted once: the comparison is false for it, and a second
    count of its one to four known tokens would teach little."""
    return 2 if (1 if label == SPAM else -1) * raw <= margin else 1


def near_errors_by_key(columns: KeyColumns, sample: list[tuple[np.ndarray, int]], totals: np.ndarray,
                       vocabulary: int, messages: np.ndarray, options: TrainOptions
                       ) -> tuple[list[int], Run | None]:
    """Which of the sample's messages (token keys and labels) the model
    scores as near errors (times_counted, all at once), for a model given as
    the columns of the sample's keys (KeyColumns) with its totals, V and
    message counts: how many times each sample message is to be counted (1
    or 2), and the occurrences of those counted again as one keyed run
    (document and message counts stay: see TrainOptions.retrain_margin).
    The sample is every training message up to CALIBRATION_SAMPLE of them,
    else a uniform sample."""
    if not retraining_applies(options, sample, messages):
        return [1] * len(sample), None
    margin = options.retrain_margin
    documents = [keys for keys, _ in sample]
    bags = KeyBags.of(documents)
    raw = raw_scores_by_key(columns, documents, totals, vocabulary, messages, options, bags)
    copies = [times_counted(score, label, margin) for score, (_, label) in zip(raw.tolist(), sample)]
    again = np.flatnonzero(np.asarray(copies) == 2)
    if not len(again):
        return copies, None
    near = bags.select(again)
    counts = np.zeros((4, len(near.keys)), dtype=np.uint32)
    counts[np.repeat(np.asarray([sample[i][1] for i in again], dtype=np.intp), near.sizes),
           np.arange(len(near.keys))] = near.counts
    return copies, sum_counts(near.keys, counts)


def count_near_errors_again(counts: TokenCounts, sample: list[tuple[np.ndarray, int]],
                            options: TrainOptions) -> list[int]:
    """Count once more the occurrences of the sample's near errors
    (near_errors_by_key), for the whole vocabulary in memory (in key order
    or not): returns how many times each sample message is now counted (1
    or 2), which calibration takes out with its block."""
    if not retraining_applies(options, sample, counts.messages):
        return [1] * len(sample)
    model = Model.from_counts(counts, options)  # its feature selection, as scoring would see it
    assert model._selected is not None  # from_counts selects
    # The model's counts, not `counts`: the selection is in their (key) order.
    columns = KeyColumns.of_counts(model.counts, unique_keys([keys for keys, _ in sample]), model._selected)
    copies, extra = near_errors_by_key(columns, sample, counts.occurrences.sum(axis=1), len(counts),
                                       counts.messages, options)
    if extra is not None:
        assert extra.counts is not None  # a counts run
        counts.occurrences[:, places(counts.keys, extra.keys)[0]] += extra.counts[0:2]
    return copies


def expected_messages(paths: Sequence[str]) -> int:
    return sum(count_messages(path) for path in paths)


def train(spam: Sequence[str], ham: Sequence[str], options: TrainOptions | None = None,
          cutoffs: Cutoffs | None = None, progress: Callable[[str], None] | None = None,
          executor=None, workers: int = 1, budget: int = DEFAULT_BUDGET,
          directory: str | None = None, phases=None) -> tuple[Model, TrainReport]:
    """Train a model on the messages under the `spam` and `ham` paths.

    `executor` spreads the decoding, tokenizing and counting over `workers`
    processes or a Dask cluster (see workers.py); the model is the same
    count for count.  Counting stays within `budget` bytes (spilling to
    `directory`, default $TMPDIR); the model returned holds the whole
    vocabulary in memory (`train_file` writes one without).  Unreadable
    files are listed in the report and skipped.  Raises InputError when a
    path does not exist or a class ends up with no message.  `phases`
    (progress.Phases) is told when weighing and calibrating start;
    `progress` is called per message read.
    """
    options = options or TrainOptions()
    started = time.perf_counter()
    tally, report, sample = _count(spam, ham, options, progress, executor, workers, budget, directory)
    try:
        counts = tally.counts(today())
    finally:
        tally.close()
    if phases is not None:
        phases.phase("weighing tokens")
    copies = count_near_errors_again(counts, sample, options)
    model = Model.from_counts(counts, options, cutoffs)
    if phases is not None:
        phases.phase("fitting calibration and cutoffs")
    calibrate(model, sample, fit_cutoffs=cutoffs is None, copies=copies)
    report.vocabulary = model.vocabulary_size
    report.seconds = time.perf_counter() - started
    return model, report


def _count(spam, ham, options, progress, executor, workers, budget, directory, prefix=".spamnb-spill-"):
    check_paths([*spam, *ham])
    tally = Tally(budget, directory, prefix)
    report = TrainReport()
    sources = [(SPAM, path) for path in spam] + [(HAM, path) for path in ham]
    try:
        sample = count_sources(tally, sources, options, report, progress, Reservoir(CALIBRATION_SAMPLE),
                               executor, workers)
        empty = [name for name in ("spam", "ham") if report.messages[name] == 0]
        if empty:
            raise InputError(f"no {' and no '.join(empty)} messages could be read; "
                             "naive Bayes needs examples of both classes")
    except BaseException:
        tally.close()
        raise
    return tally, report, sample


def release_freed_memory() -> None:
    """Have glibc give large freed blocks back to the system at once.

    Its default raises the size above which blocks are mapped (and unmapped
    when freed) to the largest block freed so far, so once the first chunk's
    arrays are freed every later chunk comes from the heap, which is not
    given back: the process grew by a chunk's worth per chunk.  A fixed
    threshold keeps every array of 128 KiB or more mapped.
    """
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        libc.mallopt(-3, 128 << 10)  # M_MMAP_THRESHOLD
        libc.mallopt(-1, 128 << 10)  # M_TRIM_THRESHOLD
    except (OSError, AttributeError):
        pass  # not glibc: its allocator decides


def return_freed_memory() -> None:
    """Have glibc give back the free pages inside its heaps (malloc_trim):
    pages freed among blocks still in use stay resident otherwise, and each
    phase of training frees most of what the one before it made."""
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass  # not glibc: its allocator decides


class TrainHooks(Record):
    """What the caller of train_file is told, and asked, as it goes (each
    None: nothing): `progress(path)` after each message read; `phases`
    (progress.Phases) told each phase as it starts; `before_write(learned)`
    called under the model's lock, before the write, with the digests of the
    messages trained on, and may raise to leave the model there as it is
    (the CLI's refusal to drop what a user taught)."""

    __slots__ = ("progress", "phases", "before_write")
    _defaults = {"progress": None, "phases": None, "before_write": None}
    _frozen = True
    progress: Callable[[str], None] | None
    phases: Phases | None
    before_write: Callable[[LearnedDigests], None] | None


def train_file(path: str, spam: Sequence[str], ham: Sequence[str], options: TrainOptions | None = None,
               cutoffs: Cutoffs | None = None, executor=None, workers: int = 1, budget: int = DEFAULT_BUDGET,
               hooks: TrainHooks | None = None) -> TrainReport:
    """Train on the messages under `spam` and `ham` and write the model to
    `path`, in memory bounded by `budget` whatever the vocabulary: counts
    spill beside the model, and the model file is built from the merged
    counts a chunk at a time (modelbuild.py).  The file is the one `train`
    and Model.save would write, count for count and weight for weight.
    (--max-features ranks every token at once: that option trains in memory.)

    The write holds the model's lock; `hooks` (TrainHooks) follow the run
    and may stop the write.
    """
    from ..model.modelstore import check_writable, locked

    options = options or TrainOptions()
    hooks = hooks or TrainHooks()
    progress, phases, before_write = hooks.progress, hooks.phases, hooks.before_write
    if options.max_features:
        model, report = train(spam, ham, options, cutoffs, progress, executor, workers, budget, phases=phases)
        if phases is not None:
            phases.phase("writing the model")
        with locked(path):
            if before_write is not None:
                before_write(model.counts.learned)
            model.save(path)
        return report
    started = time.perf_counter()
    real = check_writable(path)
    release_freed_memory()
    try:
        tally, report, sample = _count(spam, ham, options, progress, executor, workers, budget,
                                       os.path.dirname(real), f".{os.path.basename(real)}.spill-")
        from concurrent.futures import ProcessPoolExecutor  # here: 12 ms of import `learn` need not pay

        if isinstance(executor, ProcessPoolExecutor):
            # Counting is done: the workers' memory (each keeps its decoder's and
            # tokenizer's heap, 165 MB on trec06p) goes before the model is built.
            executor.shutdown()
        return_freed_memory()
        try:
            with modelbuild.ModelBuild(path) as build:
                build.take_text(tally, phases)  # its compression starts now, beside what follows
                # The near errors, from the sample's columns of the merged counts
                # (near_errors_by_key), are counted again into what the build writes.
                gathered = build.merge_counts(tally, sample)
                copies, extra = near_errors_by_key(gathered.columns(tally.messages, options), sample,
                                                   gathered.totals, gathered.vocabulary, tally.messages, options)
                build.count_again(extra)
                del extra
                return_freed_memory()
                report.vocabulary = build.write(tally, options, cutoffs, sample, today(), phases, before_write,
                                                copies)
        finally:
            tally.close()
    except OSError as error:  # spilled runs and the build folder live beside the model
        raise ModelError(f"cannot write model {real}: {error.strerror or error}; "
                         "the previous model, if any, is unchanged") from None
    report.seconds = time.perf_counter() - started
    return report


class _Rewriting(Learner):
    """A loaded Model taught through its counts; the caller writes the whole file.
    Every message is scored by the model as loaded: the weights are
    recomputed once, after the last message."""

    def __init__(self, model: Model, day: int) -> None:
        self.scorer = self.model = model
        self.counts = model.counts
        self.day = day
        self._scorable = knows_both_classes(self.counts.messages)  # the weights (as loaded) say something

    def learned_as(self, digest: int) -> int | None:
        return self.counts.learned.get(digest)

    def count(self, tokens: list[str], label: int, sign: int) -> None:
        self.counts.add([tokens], [label], sign=sign, day=self.day)

    def record(self, digest: int, label: int) -> None:
        if label == FORGOTTEN:
            self.counts.learned.pop(digest, None)
        else:
            self.counts.learned[digest] = label

    def scorable(self) -> bool:
        return self._scorable

    def keep_score(self, raw: float, label: int) -> None:
        self.model.record_recent(raw, label)


def learn(model: Model, spam: Sequence[str] = (), ham: Sequence[str] = (), flags: LearnFlags | None = None,
          newer_than: float | None = None) -> LearnReport:
    """Add (or with `flags.forget`, remove) messages to a trained model,
    exactly, by the rule of learnrule.py, as `flags` (labelled.LearnFlags,
    none set if None) say, and recompute its weights.  Calibration and
    cutoffs are refitted from the scores learned messages had before they
    were learned (Model.refit_from_recent).
    """
    check_paths([*spam, *ham])
    flags = flags or LearnFlags()
    report = LearnReport()
    sources = [(SPAM, path) for path in spam] + [(HAM, path) for path in ham]
    learner = _Rewriting(model, today())
    learn_messages(tokenized_messages(sources, model.options, report.reading, newer_than=newer_than), learner,
                   report, flags)
    counts = learner.counts
    present = still_counted(counts.occurrences, counts.documents)
    if not present.all():
        # Tokens whose counts all went to zero leave the vocabulary, so V, and
        # with it every weight, is what it was before they were learned.
        model._counts = counts.subset(present)
    model.refresh(keep_calibration=True)
    if not flags.forget:
        model.refit_from_recent()
    return report
