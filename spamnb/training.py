"""Training: mail sources → decoded messages → tokens → counts → model."""

from __future__ import annotations

import os
import random
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from .counts import HAM, LABELS, SPAM, TokenCounts
from .labelled import LearnReport, TrainReport, check_paths, labelled_messages, tokenized_messages  # noqa: F401
from .digest import message_digest
from .errors import InputError
from .message import decode_message
from .model import Model, today
from .options import TrainOptions
from .scoring import Cutoffs
from .sources import count_messages, display
from .tokens import TokenizerOptions, message_tokens

# A batch is the unit of work handed to a worker: big enough that sending it
# and merging its counts back cost little next to tokenizing it, small enough
# that a few in flight per worker keep memory bounded.
BATCH_MESSAGES = 256
BATCH_BYTES = 4 << 20
IN_FLIGHT_PER_WORKER = 2
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
        self._random = random.Random(seed)

    def offer(self, item) -> bool:
        """Offer one item; true if it is in the sample now."""
        self.seen += 1
        if len(self.items) < self.size:
            self.items.append(item)
            return True
        slot = self._random.randrange(self.seen)
        if slot < self.size:
            self.items[slot] = item
            return True
        return False


def labelled_folder(folder: str) -> tuple[list[str], list[str]]:
    """The `spam/` and `ham/` sources inside a training folder."""
    spam, ham = os.path.join(folder, "spam"), os.path.join(folder, "ham")
    missing = [p for p in (spam, ham) if not os.path.exists(p)]
    if missing:
        raise InputError(f"{display(folder)} needs spam/ and ham/ inside "
                         f"(missing: {', '.join(display(m) for m in missing)}); "
                         "or name sources with --spam PATH and --ham PATH")
    return [spam], [ham]


@dataclass
class BatchCounts:
    """What a worker sends back for one batch: per-class counts and the
    tokens of the messages picked for the calibration sample."""

    occurrences: tuple[Counter, Counter]
    documents: tuple[Counter, Counter]
    messages: list[int]
    sample: dict[int, list[str]]


def count_batch(batch: list[tuple[int, int, bytes, bool]], tokenizer: TokenizerOptions) -> BatchCounts:
    """Decode, tokenize and count a batch of (number, label, raw bytes, keep
    tokens) messages.  Runs in a worker process (or a Dask worker), so it
    takes and returns only plain, picklable data."""
    occurrences: tuple[Counter, Counter] = (Counter(), Counter())
    documents: tuple[Counter, Counter] = (Counter(), Counter())
    messages = [0, 0]
    sample = {}
    for number, label, data, keep in batch:
        tokens = message_tokens(decode_message(data, tokenizer.wants_header), tokenizer)
        # update() with a list or set counts in C; with a Counter it would loop in Python.
        occurrences[label].update(tokens)
        documents[label].update(set(tokens))
        messages[label] += 1
        if keep:
            sample[number] = tokens
    return BatchCounts(occurrences, documents, messages, sample)


class _InProcess:
    """The executor interface run in this process: training without workers."""

    def submit(self, function, *args):
        return _Done(function(*args))


class _Done:
    def __init__(self, value) -> None:
        self._value = value

    def result(self):
        return self._value


def count_sources(counts: TokenCounts, sources: Iterable[tuple[int, str]], options: TrainOptions,
                  report: TrainReport, progress: Callable[[str], None] | None = None,
                  sample: Reservoir | None = None, executor=None, workers: int = 1
                  ) -> list[tuple[list[str], int]]:
    """Count every message under the labelled paths into `counts`.

    This process reads the sources, skips messages already counted with the
    same label (by digest) and draws the calibration sample; `executor` (any
    object with concurrent.futures' `submit`, such as a process pool or a
    Dask client's executor) decodes, tokenizes and counts batches.  Counts
    are sums, so the result does not depend on how the work was split.
    Returns the (tokens, label) pairs of the sample.
    """
    executor = executor or _InProcess()
    day = today()
    tokenizer = options.tokenizer
    in_flight: deque = deque()
    kept: dict[int, tuple[list[str], int]] = {}
    labels: dict[int, int] = {}
    batch: list[tuple[int, int, bytes, bool]] = []
    batch_bytes = 0

    def collect(future) -> None:
        result: BatchCounts = future.result()
        counts.add_counted(result.occurrences, result.documents, result.messages, day)
        sampled = set(sample.items) if sample is not None and result.sample else ()
        for number, tokens in result.sample.items():
            if number in sampled:  # not replaced while the batch was away
                kept[number] = (tokens, labels[number])

    def send() -> None:
        nonlocal batch, batch_bytes
        if batch:
            in_flight.append(executor.submit(count_batch, batch, tokenizer))
            batch, batch_bytes = [], 0
        while len(in_flight) > IN_FLIGHT_PER_WORKER * workers:
            collect(in_flight.popleft())

    number = 0
    for label, raw in labelled_messages(sources, report, progress):
        digest = message_digest(raw.data)
        if counts.learned.get(digest) == label:
            report.duplicates += 1  # the same message twice teaches nothing new
            continue
        counts.learned[digest] = label
        number += 1
        keep = sample.offer(number) if sample is not None else False
        if keep:
            labels[number] = label
        batch.append((number, label, raw.data, keep))
        batch_bytes += len(raw.data)
        if len(batch) >= BATCH_MESSAGES or batch_bytes >= BATCH_BYTES:
            send()
    send()
    while in_flight:
        collect(in_flight.popleft())
    return [kept[number] for number in sorted(sample.items)] if sample is not None else []  # reading order


def calibrate(model: Model, sample: list[tuple[list[str], int]], tune: bool = True,
              copies: list[int] | None = None) -> None:
    """Fit the model's probability calibration, and with `tune` its cutoffs,
    on held-out scores of the sample (in reading order), when the sample
    allows it; `copies`: how many times each was counted (Model.calibrate)."""
    labels = [label for _, label in sample]
    if labels.count(SPAM) >= 2 and labels.count(HAM) >= 2 and min(model.messages) >= 2:
        model.calibrate([tokens for tokens, _ in sample], labels, copies)
        if tune:
            model.tune_cutoffs(labels)


def fit_tokenized(documents: Sequence[list[str]], labels: Sequence[int], options: TrainOptions,
                  calibrated: bool = True) -> Model:
    """A model trained as `train` would (calibration and tuned cutoffs included,
    unless `calibrated` is false) on messages already tokenized."""
    counts = TokenCounts()
    for start in range(0, len(documents), BATCH_MESSAGES):
        counts.add(documents[start:start + BATCH_MESSAGES], labels[start:start + BATCH_MESSAGES])
    sample = Reservoir(CALIBRATION_SAMPLE)
    for index in range(len(documents)):
        sample.offer(index)
    sample = [(documents[i], labels[i]) for i in sorted(sample.items)]  # in reading order
    copies = count_near_errors_again(counts, sample, options)
    model = Model.from_counts(counts, options)
    if calibrated:
        calibrate(model, sample, copies=copies)
    return model


def count_near_errors_again(counts: TokenCounts, sample: list[tuple[list[str], int]],
                            options: TrainOptions) -> list[int]:
    """Count once more the sample's messages that the model of `counts` scores
    wrong or within `options.retrain_margin` of 0 (raw score), all at once
    (see TrainOptions.retrain_margin).  Returns how many times each sample
    message is now counted (1 or 2), which calibration takes out with its
    block.  The sample is every training message up to CALIBRATION_SAMPLE
    of them, else a uniform sample."""
    margin = options.retrain_margin
    if margin <= 0 or not sample or counts.messages.min() <= 0:
        return [1] * len(sample)
    model = Model.from_counts(counts, options)
    copies = [2 if (1 if label == SPAM else -1) * model.raw_score(tokens) <= margin else 1
              for tokens, label in sample]
    near = [message for message, times in zip(sample, copies) if times == 2]
    counts.add([tokens for tokens, _ in near], [label for _, label in near])
    return copies


def expected_messages(paths: Sequence[str]) -> int:
    return sum(count_messages(path) for path in paths)


def train(spam: Sequence[str], ham: Sequence[str], options: TrainOptions | None = None,
          cutoffs: Cutoffs | None = None, progress: Callable[[str], None] | None = None,
          executor=None, workers: int = 1) -> tuple[Model, TrainReport]:
    """Train a model on the messages under the `spam` and `ham` paths.

    `executor` spreads the decoding, tokenizing and counting over `workers`
    processes or a Dask cluster (see workers.py); the model is the same
    count for count.  Unreadable files are listed in the report and
    skipped.  Raises InputError when a path does not exist or a class ends
    up with no message.
    """
    options = options or TrainOptions()
    check_paths([*spam, *ham])
    started = time.perf_counter()
    counts = TokenCounts()
    report = TrainReport()
    sources = [(SPAM, path) for path in spam] + [(HAM, path) for path in ham]
    sample = count_sources(counts, sources, options, report, progress, Reservoir(CALIBRATION_SAMPLE),
                           executor, workers)
    empty = [name for name in ("spam", "ham") if report.messages[name] == 0]
    if empty:
        raise InputError(f"no {' and no '.join(empty)} messages could be read; "
                         "naive Bayes needs examples of both classes")
    copies = count_near_errors_again(counts, sample, options)
    model = Model.from_counts(counts, options, cutoffs)
    calibrate(model, sample, tune=cutoffs is None, copies=copies)
    report.vocabulary = model.vocabulary_size
    report.seconds = time.perf_counter() - started
    return model, report


def learn(model: Model, spam: Sequence[str] = (), ham: Sequence[str] = (), forget: bool = False,
          relabel: bool = False, force: bool = False, on_error: bool = False,
          newer_than: float | None = None) -> LearnReport:
    """Add (or with `forget`, remove) messages to a trained model, exactly.

    Each message's digest records what it was learned as, so learning it
    again is skipped, forgetting removes exactly what was added, and
    `relabel` moves a message learned with the wrong label to the right one
    (forget as the old class, learn as the new).  `on_error` learns only
    the messages the model currently gets wrong or is unsure about.
    Calibration and cutoffs are refitted from the scores learned messages
    had before they were learned (Model.refit_from_recent).
    """
    check_paths([*spam, *ham])
    counts = model.counts
    report = LearnReport()
    day = today()
    sources = [(SPAM, path) for path in spam] + [(HAM, path) for path in ham]
    scorable = bool(counts.messages.min() > 0)  # the weights (as loaded) say something
    for label, tokens, _, digest in tokenized_messages(sources, model.options, report.reading,
                                                       newer_than=newer_than):
        name = LABELS[label]
        previous = counts.learned.get(digest)
        action = report.decide(previous, label, forget, relabel, force)
        if action == "skip":
            continue
        if action == "forget":
            counts.add([tokens], [label], sign=-1)
            counts.learned.pop(digest, None)
            report.forgotten[name] += 1
            continue
        if action == "relabel":
            counts.add([tokens], [previous], sign=-1)
            report.relabelled += 1
        elif on_error and model.score_tokens(tokens).label == name:
            report.already_right += 1
            continue
        elif not on_error and scorable:
            # Its score before learning, on record for refitting.  Train on
            # error's messages are not a sample of the mail, so they are not.
            model.record_recent(model.raw_score(tokens), label)
        counts.add([tokens], [label], day=day)
        counts.learned[digest] = label
        report.learned[name] += 1
    present = (counts.occurrences.sum(axis=0) + counts.documents.sum(axis=0)) > 0
    if not present.all():
        # Tokens whose counts all went to zero leave the vocabulary, so V, and
        # with it every weight, is what it was before they were learned.
        model._counts = counts.subset(present)
    model.refresh(keep_calibration=True)
    if not forget:
        model.refit_from_recent()
    return report
