"""Labelled mail: what training and learning read, message by message.

(label, tokens, origin, digest) of each mail message under the paths given
as spam or ham, what was skipped and why, and the reports `train` and
`learn` give.  Standard library only: `learn` appending to a journal
(incremental.py) starts without numpy, and without `dataclasses` (the
reports are record.Record classes: record.py says why).
"""

from __future__ import annotations

import os


from ..mail.digest import message_digest
from ..errors import InputError
from ..model.labels import HAM, LABELS, SPAM
from ..model.options import TrainOptions
from ..record import Record
from ..mail.sources import RawMessage, Skipped, display, looks_like_mail, read_messages
from ..text.tokens import TokenizerOptions, message_tokens

TYPE_CHECKING = False  # mypy reads this name as true; these names are for the type checker only
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence


# A batch is the unit of work handed to a worker: big enough that sending it
# and merging its results back cost little next to tokenizing it, small
# enough that a few in flight per worker keep memory bounded.
BATCH_MESSAGES = 256
BATCH_BYTES = 4 << 20


def _per_class() -> dict[str, int]:
    return {"spam": 0, "ham": 0}


class TrainReport(Record):
    """messages: read per class; skipped: files not read as mail, with why;
    duplicates: messages skipped because the same message was already
    counted with the same label; vocabulary: tokens in the model; seconds: time taken."""

    __slots__ = ("messages", "skipped", "duplicates", "vocabulary", "seconds")
    _defaults = {"duplicates": 0, "vocabulary": 0, "seconds": 0.0}
    _factories = {"messages": _per_class, "skipped": list}
    messages: dict[str, int]
    skipped: list[Skipped]
    duplicates: int
    vocabulary: int
    seconds: float


class LearnFlags(Record):
    """How `learn` treats the messages it is given (LearnReport.decide):
    forget: take them out instead of learning them; relabel: move one learned
    with the other label to this one; force: learn (or forget) one even when
    it was learned with this label (or never was); on_error: learn only those
    the model gets wrong or is unsure of."""

    __slots__ = ("forget", "relabel", "force", "on_error")
    _defaults = {"forget": False, "relabel": False, "force": False, "on_error": False}
    _frozen = True
    forget: bool
    relabel: bool
    force: bool
    on_error: bool


class LearnReport(Record):
    """learned, forgotten: messages per class; relabelled: moved from the
    other label; duplicates: already learned with this label (skipped unless
    forced); conflicts: learned before with the other label (--relabel moves
    them); not_learned: asked to forget, but never learned with this label;
    already_right: train-on-error, the model already classified them right;
    reading: what was read, and skipped."""

    __slots__ = ("learned", "forgotten", "relabelled", "duplicates", "conflicts", "not_learned",
                 "already_right", "reading")
    _defaults = {"relabelled": 0, "duplicates": 0, "conflicts": 0, "not_learned": 0, "already_right": 0}
    _factories = {"learned": _per_class, "forgotten": _per_class, "reading": TrainReport}
    learned: dict[str, int]
    forgotten: dict[str, int]
    relabelled: int
    duplicates: int
    conflicts: int
    not_learned: int
    already_right: int
    reading: TrainReport

    @property
    def changed(self) -> bool:
        """Whether any count moved (else the model is left as it was)."""
        return bool(sum(self.learned.values()) or sum(self.forgotten.values()) or self.relabelled)


def labelled_sources(source: str) -> list[tuple[int, str]]:
    """(label, path) of the labelled mail a training or evaluation SOURCE
    names: a folder with spam/ and ham/ inside (spam/ first), or an index
    file of `spam|ham<TAB>path` lines (the TREC layout, paths relative to the
    index's folder), in the index's order.  Raises InputError."""
    if os.path.isdir(source):
        spam, ham = labelled_folder(source)
        return [(SPAM, spam[0]), (HAM, ham[0])]
    if not os.path.exists(source):
        raise InputError(f"no such file or directory: {display(source)}")
    return index_sources(source)


def labelled_folder(folder: str) -> tuple[list[str], list[str]]:
    """The `spam/` and `ham/` sources inside a training folder."""
    spam, ham = os.path.join(folder, "spam"), os.path.join(folder, "ham")
    missing = [p for p in (spam, ham) if not os.path.exists(p)]
    if missing:
        raise InputError(f"{display(folder)} needs spam/ and ham/ inside "
                         f"(missing: {', '.join(display(m) for m in missing)}); "
                         "or name sources with --spam PATH and --ham PATH")
    return [spam], [ham]


def index_sources(index_path: str) -> list[tuple[int, str]]:
    """(label, path) from a TREC-style index: `spam|ham<TAB>path` lines, paths
    relative to the index file's folder, in the index's order."""
    from ..files import open_regular

    folder = os.path.dirname(os.path.abspath(index_path))
    sources = []
    try:
        # A FIFO or device would block or never end: an index is a plain file.
        with open_regular(index_path, "r", encoding="utf-8", errors="surrogateescape") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                label, _, path = line.rstrip("\n").partition("\t")
                if label not in LABELS or not path:
                    raise InputError(f"{display(index_path)} line {number}: expected 'spam|ham<TAB>path' "
                                     "(an index file; or give a folder with spam/ and ham/ inside)")
                sources.append((LABELS.index(label), os.path.join(folder, path)))
    except OSError as error:
        raise InputError(f"cannot read index {display(index_path)}: {error.strerror or error}") from None
    return sources


def check_paths(paths: Sequence[str]) -> None:
    for path in paths:
        if path != "-" and not os.path.exists(path):
            raise InputError(f"no such file or directory: {display(path)}")


def labelled_messages(sources: Iterable[tuple[int, str]], report: TrainReport,
                      progress: Callable[[str], None] | None = None,
                      newer_than: float | None = None) -> Iterator[tuple[int, RawMessage]]:
    """(label, raw message) of every mail message under the labelled paths;
    what is not mail is recorded in the report and skipped."""
    for label, path in sources:
        for raw in read_messages(path, report.skipped, newer_than=newer_than):
            if progress:
                progress(raw.origin)
            if not looks_like_mail(raw.data):
                report.skipped.append(Skipped(display(raw.origin), "not a mail message (no header)"))
                continue
            report.messages[LABELS[label]] += 1
            yield label, raw


def tokenize_batch(batch: list[bytes], tokenizer: TokenizerOptions) -> list[list[str]]:
    """The tokens of each raw message of a batch.  Runs in a worker process
    (or here), so it takes and returns only plain, picklable data."""
    return [message_tokens(data, tokenizer) for data in batch]


def tokenized_messages(sources: Iterable[tuple[int, str]], options: TrainOptions, report: TrainReport,
                       progress: Callable[[str], None] | None = None, newer_than: float | None = None,
                       executor=None, workers: int = 1) -> Iterator[tuple[int, list[str], str, int]]:
    """(label, tokens, origin, digest) of every mail message under the labelled paths, in reading order.

    What is not mail is recorded in the report and skipped; messages read
    are counted per class there.  `executor` (a process pool of `workers`,
    see workers.py) decodes and tokenizes batches of messages; without one,
    each message is tokenized here as it is read.
    """
    if executor is None:
        # No batches: workers.py (a tenth of a millisecond of a fresh `learn`'s start) is for a pool.
        for label, raw in labelled_messages(sources, report, progress, newer_than):
            yield label, message_tokens(raw.data, options.tokenizer), raw.origin, message_digest(raw.data)
        return
    from ..workers import Batches

    ready: list = []  # results collected, oldest first, until they are handed on
    batches = Batches(tokenize_batch, lambda tags, results: ready.extend(zip(tags, results)),
                      args=(options.tokenizer,), workers=workers, executor=executor,
                      batch_items=BATCH_MESSAGES, batch_bytes=BATCH_BYTES)

    def done() -> Iterator[tuple[int, list[str], str, int]]:
        taken = ready[:]
        ready.clear()
        for (label, origin, digest), tokens in taken:
            yield label, tokens, origin, digest

    for label, raw in labelled_messages(sources, report, progress, newer_than):
        batches.add(raw.data, (label, raw.origin, message_digest(raw.data)), size=len(raw.data))
        yield from done()
    batches.finish()
    yield from done()
