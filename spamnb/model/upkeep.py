"""Model upkeep: plain-text export and import, pruning, and merging.

The export is the model's sufficient statistics in a form a person (or awk)
can read: one token a line with its counts per class and the day it was
last learned, and `#` lines carrying the options, message counts and
learned-message digests, so `import` rebuilds the same model exactly.
"""

from __future__ import annotations

import datetime as _dt
from typing import IO

import numpy as np

from .counts import TokenCounts
from .learned import LearnedDigests
from .labels import HAM, SPAM
from .. import jsoncodec
from ..errors import InputError, ModelError
from ..record import Record
from .model import Model
from .scorer import options_from_meta, options_to_meta
from .scoring import Cutoffs
from ..text.tokens import TOKENIZER_VERSION

HEADER = "# spamnb export 1"
COLUMNS = "token\tspam_count\tham_count\tspam_messages\tham_messages\tlast_seen"
_EPOCH = _dt.date(1970, 1, 1)


def _escape(token: str) -> str:
    return token.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def _unescape(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            out.append({"t": "\t", "n": "\n", "\\": "\\"}.get(text[i + 1], text[i + 1]))
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _day(number: int) -> str:
    return (_EPOCH + _dt.timedelta(days=int(number))).isoformat() if number else "-"


def export(model: Model, stream: IO[str]) -> int:
    counts = model.counts
    options = model.options
    settings = {
        **options_to_meta(options), "tokenizer_version": TOKENIZER_VERSION,
        "messages": {"spam": int(counts.messages[SPAM]), "ham": int(counts.messages[HAM])},
        "cutoffs": {"spam": model.cutoffs.spam, "ham": model.cutoffs.ham},
        "calibration": model.meta.get("calibration"),
    }
    stream.write(HEADER + "\n")
    stream.write("# settings " + jsoncodec.dumps(settings, ensure_ascii=False, sort_keys=True) + "\n")
    for digest, label in counts.learned.items():  # in digest order
        stream.write(f"# learned {digest:016x} {'spam' if label == SPAM else 'ham'}\n")
    stream.write(COLUMNS + "\n")
    occurrences, documents, last_seen = counts.occurrences, counts.documents, counts.last_seen
    tokens = counts.tokens
    # In token order (code points), not the file's key order: two exports of
    # models with the same counts are the same text, and a diff of two
    # exports lines up token by token.
    for i in sorted(range(len(tokens)), key=tokens.__getitem__):
        token = tokens[i]
        stream.write(f"{_escape(token)}\t{occurrences[SPAM, i]}\t{occurrences[HAM, i]}\t"
                     f"{documents[SPAM, i]}\t{documents[HAM, i]}\t{_day(last_seen[i])}\n")
    return len(counts.tokens)


def import_(stream: IO[str]) -> Model:
    first = stream.readline().rstrip("\n")
    if first != HEADER:
        raise InputError("not a spamnb export (its first line is not '# spamnb export 1')")
    settings, learned, tokens, rows = None, {}, [], []
    for number, line in enumerate(stream, 2):
        line = line.rstrip("\n")
        try:
            if line.startswith("# settings "):
                settings = jsoncodec.loads(line[len("# settings "):])
            elif line.startswith("# learned "):
                _, _, digest, label = line.split(" ")
                learned[int(digest, 16)] = SPAM if label == "spam" else HAM
            elif line == COLUMNS or not line:
                continue
            else:
                token, spam_count, ham_count, spam_docs, ham_docs, seen = line.split("\t")
                tokens.append(_unescape(token))
                day = 0 if seen == "-" else (_dt.date.fromisoformat(seen) - _EPOCH).days
                rows.append((int(spam_count), int(ham_count), int(spam_docs), int(ham_docs), day))
        except (ValueError, KeyError, RecursionError) as error:  # RecursionError: JSON nested past the stack
            raise InputError(f"export line {number} is malformed ({type(error).__name__}: {error})") from None
    if settings is None:
        raise InputError("the export has no '# settings' line")
    if len(set(tokens)) != len(tokens):
        met: set[str] = set()
        repeated = next(token for token in tokens if token in met or met.add(token))  # type: ignore[func-returns-value]  # None: add and go on
        raise InputError(f"the export lists token {repeated!r} more than once; "
                         "each token must be on one line")
    if settings.get("tokenizer_version") != TOKENIZER_VERSION:
        raise InputError(f"the export was made by tokenizer version {settings.get('tokenizer_version')}; "
                         f"this spamnb is version {TOKENIZER_VERSION}: retrain instead")
    table = np.array(rows, dtype=np.int64).reshape(len(rows), 5)
    counts = TokenCounts.from_arrays(
        tokens, np.vstack([table[:, 1], table[:, 0]]), np.vstack([table[:, 3], table[:, 2]]),
        np.array([settings["messages"]["ham"], settings["messages"]["spam"]]), table[:, 4])
    counts.learned = LearnedDigests.of(learned)
    options = options_from_meta(settings)
    model = Model.from_counts(counts, options, Cutoffs(**settings["cutoffs"]))
    if settings.get("calibration"):
        model.meta["calibration"] = settings["calibration"]
    return model


def prune(model: Model, min_count: int = 0, older_than_days: int | None = None,
          today: int | None = None) -> tuple[int, int]:
    """Drop tokens counted fewer than `min_count` times in all, or last learned more
    than `older_than_days` ago.  Returns (tokens removed, tokens kept)."""
    counts = model.counts
    keep = np.ones(len(counts), dtype=bool)
    if min_count > 0:
        keep &= counts.occurrences.sum(axis=0) >= min_count
    if older_than_days is not None:
        from .journal import today as today_number

        now = today_number() if today is None else today
        keep &= counts.last_seen >= now - older_than_days
    removed = int((~keep).sum())
    if removed:
        model._counts = counts.subset(keep)
        model.refresh(keep_calibration=True)
    return removed, int(keep.sum())


class MergeReport(Record):
    """shared: messages on record in more than one model with the same label,
    counted once per model; relabelled: messages on record with different
    labels, counted under each, recorded as the last."""

    __slots__ = ("shared", "relabelled")
    _defaults = {"shared": 0, "relabelled": 0}
    shared: int
    relabelled: int


def merge(models: list[Model]) -> tuple[Model, MergeReport]:
    """One model with the counts of all: what training on the union of their
    mail gives, count for count (counts are sums).

    Options must agree, since counts of differently tokenized mail do not
    add up.  A message learned by two models is in both sets of counts and
    stays so (no tokens are kept to take it out again); the report says how
    many.  Calibration and cutoffs are the first model's: they were fitted
    on its messages, which the merged model is trained on too.
    """
    first = models[0]
    for other in models[1:]:
        if other.options != first.options:
            differing = [name for name in first.options.__slots__
                         if getattr(first.options, name) != getattr(other.options, name)]
            raise ModelError(f"cannot merge models trained with different options ({', '.join(differing)}); "
                             "counts only add up when mail was tokenized and counted alike, and the "
                             "calibration fits one set of options: retrain one of them with the other's")
    counts = first.counts.take(np.arange(len(first.counts)))
    report = MergeReport()
    for other in models[1:]:
        for digest, label in other.counts.learned.items():
            earlier = counts.learned.get(digest)
            if earlier is not None:
                report.shared += earlier == label
                report.relabelled += earlier != label
        counts.merge(other.counts)
    merged = Model.from_counts(counts, first.options, first.cutoffs)
    for key in ("calibration", "cutoffs_tuned", "cutoffs_fitted"):
        if key in first.meta:
            merged.meta[key] = first.meta[key]
    return merged, report


def store_cutoffs(path: str, cutoffs: Cutoffs, tuned: dict, options=None) -> None:
    """Write `cutoffs` into the model file at `path`.

    The model is read again under its lock, so a `learn` that ran while the
    cutoffs were being worked out (an evaluation takes minutes) is kept, not
    overwritten by an older copy.  With `options`, refuses a model that was
    retrained with other options meanwhile: the cutoffs would mean another thing.
    """
    from .modelstore import locked

    with locked(path):
        model = Model.load(path)
        if options is not None and model.options != options:
            raise ModelError(f"{path} was retrained with other options while the cutoffs were tuned; "
                             "tune again")
        model.cutoffs = cutoffs
        model.meta["cutoffs_tuned"] = tuned
        model.meta.pop("cutoffs_fitted", None)
        model.save(path)
