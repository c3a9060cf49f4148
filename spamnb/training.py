"""Training: mail sources → decoded messages → tokens → counts → model."""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from .counts import HAM, LABELS, SPAM, TokenCounts
from .digest import message_digest
from .errors import InputError
from .message import decode_message
from .model import Model, today
from .options import TrainOptions
from .scoring import Cutoffs
from .sources import Skipped, count_messages, display, looks_like_mail, read_messages
from .tokens import message_tokens

# Messages tokenized before their counts are added in one vectorised step.
BATCH_SIZE = 500
# Training messages kept (a uniform reservoir sample, fixed seed, so the same
# input gives the same model) for calibrating probabilities by leave-one-out.
CALIBRATION_SAMPLE = 10000


class Reservoir:
    """A uniform sample of at most `size` items from a stream (Vitter's algorithm R)."""

    def __init__(self, size: int, seed: int = 0) -> None:
        self.size = size
        self.items: list = []
        self.seen = 0
        self._random = random.Random(seed)

    def offer(self, item) -> None:
        self.seen += 1
        if len(self.items) < self.size:
            self.items.append(item)
        else:
            slot = self._random.randrange(self.seen)
            if slot < self.size:
                self.items[slot] = item


@dataclass
class TrainReport:
    messages: dict[str, int] = field(default_factory=lambda: {"spam": 0, "ham": 0})
    skipped: list[Skipped] = field(default_factory=list)
    duplicates: int = 0
    """Messages skipped because the same message was already counted with the same label."""
    vocabulary: int = 0
    seconds: float = 0.0


def labelled_folder(folder: str) -> tuple[list[str], list[str]]:
    """The `spam/` and `ham/` sources inside a training folder."""
    spam, ham = os.path.join(folder, "spam"), os.path.join(folder, "ham")
    missing = [p for p in (spam, ham) if not os.path.exists(p)]
    if missing:
        raise InputError(f"{display(folder)} needs spam/ and ham/ inside "
                         f"(missing: {', '.join(display(m) for m in missing)}); "
                         "or name sources with --spam PATH and --ham PATH")
    return [spam], [ham]


def count_sources(counts: TokenCounts, sources: Iterable[tuple[int, str]], options: TrainOptions,
                  report: TrainReport, progress: Callable[[str], None] | None = None,
                  sign: int = 1, sample: Reservoir | None = None) -> None:
    """Add (or with sign=-1 remove) every message under the labelled paths."""
    day = today()
    documents: list[list[str]] = []
    labels: list[int] = []

    def flush():
        counts.add(documents, labels, sign=sign, day=day)
        documents.clear()
        labels.clear()

    for label, tokens, _, digest in tokenized_messages(sources, options, report, progress):
        if counts.learned.get(digest) == label:
            report.duplicates += 1  # the same message twice teaches nothing new
            continue
        counts.learned[digest] = label
        documents.append(tokens)
        labels.append(label)
        if sample is not None:
            sample.offer((tokens, label))
        if len(documents) >= BATCH_SIZE:
            flush()
    flush()


def tokenized_messages(sources: Iterable[tuple[int, str]], options: TrainOptions, report: TrainReport,
                       progress: Callable[[str], None] | None = None
                       ) -> Iterator[tuple[int, list[str], str, int]]:
    """(label, tokens, origin, digest) of every mail message under the labelled paths.

    What is not mail is recorded in the report and skipped; messages read
    are counted per class there.
    """
    tokenizer = options.tokenizer
    for label, path in sources:
        for raw in read_messages(path, report.skipped):
            if progress:
                progress(raw.origin)
            if not looks_like_mail(raw.data):
                report.skipped.append(Skipped(display(raw.origin), "not a mail message (no header)"))
                continue
            report.messages[LABELS[label]] += 1
            yield (label, message_tokens(decode_message(raw.data, tokenizer.wants_header), tokenizer),
                   raw.origin, message_digest(raw.data))


def calibrate(model: Model, sample: list[tuple[list[str], int]], tune: bool = True) -> None:
    """Fit the model's probability calibration, and with `tune` its cutoffs,
    on leave-one-out scores of the sample, when the sample allows it."""
    labels = [label for _, label in sample]
    if labels.count(SPAM) >= 2 and labels.count(HAM) >= 2 and min(model.messages) >= 2:
        model.calibrate([tokens for tokens, _ in sample], labels)
        if tune:
            model.tune_cutoffs(labels)


def fit_tokenized(documents: Sequence[list[str]], labels: Sequence[int], options: TrainOptions,
                  calibrated: bool = True) -> Model:
    """A model trained as `train` would (calibration and tuned cutoffs included,
    unless `calibrated` is false) on messages already tokenized."""
    counts = TokenCounts()
    for start in range(0, len(documents), BATCH_SIZE):
        counts.add(documents[start:start + BATCH_SIZE], labels[start:start + BATCH_SIZE])
    model = Model.from_counts(counts, options)
    if calibrated:
        sample = Reservoir(CALIBRATION_SAMPLE)
        for pair in zip(documents, labels):
            sample.offer(pair)
        calibrate(model, sample.items)
    return model


def check_paths(paths: Sequence[str]) -> None:
    for path in paths:
        if path != "-" and not os.path.exists(path):
            raise InputError(f"no such file or directory: {display(path)}")


def expected_messages(paths: Sequence[str]) -> int:
    return sum(count_messages(path) for path in paths)


def train(spam: Sequence[str], ham: Sequence[str], options: TrainOptions | None = None,
          cutoffs: Cutoffs | None = None,
          progress: Callable[[str], None] | None = None) -> tuple[Model, TrainReport]:
    """Train a model on the messages under the `spam` and `ham` paths.

    Unreadable files are listed in the report and skipped.  Raises InputError
    when a path does not exist or a class ends up with no message.
    """
    options = options or TrainOptions()
    check_paths([*spam, *ham])
    started = time.perf_counter()
    counts = TokenCounts()
    report = TrainReport()
    sources = [(SPAM, path) for path in spam] + [(HAM, path) for path in ham]
    sample = Reservoir(CALIBRATION_SAMPLE)
    count_sources(counts, sources, options, report, progress, sample=sample)
    empty = [name for name in ("spam", "ham") if report.messages[name] == 0]
    if empty:
        raise InputError(f"no {' and no '.join(empty)} messages could be read; "
                         "naive Bayes needs examples of both classes")
    model = Model.from_counts(counts, options, cutoffs)
    calibrate(model, sample.items, tune=cutoffs is None)
    report.vocabulary = model.vocabulary_size
    report.seconds = time.perf_counter() - started
    return model, report


@dataclass
class LearnReport:
    learned: dict[str, int] = field(default_factory=lambda: {"spam": 0, "ham": 0})
    forgotten: dict[str, int] = field(default_factory=lambda: {"spam": 0, "ham": 0})
    relabelled: int = 0
    duplicates: int = 0
    """Already learned with this label (skipped unless forced)."""
    conflicts: int = 0
    """Learned before with the other label; --relabel moves them."""
    not_learned: int = 0
    """Asked to forget, but never learned with this label."""
    already_right: int = 0
    """Train-on-error: the model already classified them right."""
    reading: TrainReport = field(default_factory=TrainReport)


def learn(model: Model, spam: Sequence[str] = (), ham: Sequence[str] = (), forget: bool = False,
          relabel: bool = False, force: bool = False, on_error: bool = False) -> LearnReport:
    """Add (or with `forget`, remove) messages to a trained model, exactly.

    Each message's digest records what it was learned as, so learning it
    again is skipped, forgetting removes exactly what was added, and
    `relabel` moves a message learned with the wrong label to the right one
    (forget as the old class, learn as the new).  `on_error` learns only
    the messages the model currently gets wrong or is unsure about.  The
    model's calibration and cutoffs are kept; retrain to refit them.
    """
    check_paths([*spam, *ham])
    counts = model.counts
    report = LearnReport()
    day = today()
    sources = [(SPAM, path) for path in spam] + [(HAM, path) for path in ham]
    for label, tokens, _, digest in tokenized_messages(sources, model.options, report.reading):
        name = LABELS[label]
        previous = counts.learned.get(digest)
        if forget:
            if previous != label and not force:
                report.not_learned += 1
                continue
            counts.add([tokens], [label], sign=-1)
            counts.learned.pop(digest, None)
            report.forgotten[name] += 1
            continue
        if previous == label and not force:
            report.duplicates += 1
            continue
        if previous is not None and previous != label:
            if not relabel:
                report.conflicts += 1
                continue
            counts.add([tokens], [previous], sign=-1)
            report.relabelled += 1
        elif on_error and model.score_tokens(tokens).label == name:
            report.already_right += 1
            continue
        counts.add([tokens], [label], day=day)
        counts.learned[digest] = label
        report.learned[name] += 1
    present = (counts.occurrences.sum(axis=0) + counts.documents.sum(axis=0)) > 0
    if not present.all():
        # Tokens whose counts all went to zero leave the vocabulary, so V, and
        # with it every weight, is what it was before they were learned.
        model._counts = counts.subset(present)
    model.refresh(keep_calibration=True)
    return report
