"""`learn` by appending to the model's journal: one message costs milliseconds.

`training.learn` loads every count, adds a message and writes the whole
model back: O(vocabulary) per run, seconds for a large model.  Here `learn`
maps the model, reads only the keys and occurrence counts of the message's
own tokens (and the digests of messages learned), and appends one journal
record (journal.py) with what changed.  What to do with each message
(duplicates, relabelling, forgetting, train on error, the scores kept for
refitting) is learnrule.py's, as for training.learn, so the counts are
those a whole rewrite gives, count for count (tests/learning/test_incremental.py).
One difference, on purpose: within one run of several messages, each is
scored (for --on-error, and for the score kept for refitting) by the model
with the run's earlier messages already in it, as if they had come one
`learn` at a time; training.learn scores a run with the model as loaded.

The journal is folded into a new base, with calibration and cutoffs refitted
from the recorded scores, once it holds more than COMPACT_BYTES: readers
add the journal up when they open the model, so it is kept small.

Models whose weights are not a token's own count term plus one constant
(scorer.journal_scoring: the Bernoulli model, Robinson's shrinking, feature
selection), version 2 files and a journal torn by a killed writer are
rewritten whole, as before.
"""

from __future__ import annotations

import os
import time

from .._core import sorted_position
from ..model.labels import HAM, SPAM
from .learnrule import Learner, learn_messages

TYPE_CHECKING = False  # mypy reads this name as true; typing stays unimported on learn's fast path
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from .labelled import LearnFlags

COMPACT_BYTES = 512 << 10
"""Journal size past which `learn` folds it into the base: a reader adds up at most this
(about 12 ms of a cold classify at the limit)."""

class _Warm:
    """What one learn leaves for the same process's next learn into the same
    model (serve's workers: `learn --server`), valid while the file's base is
    the one read: same device, inode and header (which holds the checksums).
    The base is never written in place (appends go after it, compaction
    renames a new file in).

    - `base`: its WeightTable, so each block is checked once, not at every
      learn.  That check (a CRC and the key order of each 512-key block a
      message's tokens fall in), made at every learn, would be a large part of
      a served learn's CPU (BENCHMARKS.md "Online through the command
      line").
    - `seen`, `state`: the journal bytes read and their JournalState, so the
      next learn reads only the records appended since and looks tokens up
      in sums added up once, instead of reading and searching the whole
      journal afresh at every learn."""

    __slots__ = ("identity", "base", "seen", "state")

    def __init__(self, identity, base, seen: bytearray, state) -> None:
        self.identity, self.base, self.seen, self.state = identity, base, seen, state


_warm: dict[str, _Warm] = {}
"""path → _Warm: one model at a time, so a process learning into many keeps no old ones mapped."""


def _read_journal(model_file, base_identity) -> _Warm:
    """Have model_file.journal() give a copy of the state this process added
    up before (if the journal still starts with the same bytes), the records
    appended since added to it.  Returns what is kept for the next learn
    (its `base` still the earlier one, or None)."""
    from ..model.journal import JournalState, read_records

    view = model_file.journal_view()
    warm = _warm.get(model_file.path)
    _warm.clear()  # put back only once all is read: a failure leaves none
    first = warm is None or warm.identity != base_identity
    if warm is None or warm.identity != base_identity:
        warm = _Warm(base_identity, None, bytearray(), JournalState())
    elif len(view) < len(warm.seen) or view[:len(warm.seen)] != warm.seen:  # compared in C, byte for byte
        warm.seen, warm.state = bytearray(), JournalState()
    more, used = read_records(view[len(warm.seen):])
    if more:
        warm.state.extend(more)
    # The new records' bytes only: not a copy of the whole journal at each learn.
    warm.seen += view[len(warm.seen):len(warm.seen) + used]
    _warm[model_file.path] = warm
    model_file.use_journal(warm.state.learner_copy(first), len(warm.seen) < len(view))
    return warm


class _Digests:
    """Messages learned: the base's sorted digests, then the journal's changes."""

    def __init__(self, model_file, state) -> None:
        from ..model.scoring import _as_native

        sections = model_file.meta["sections"]
        if "digests" in sections and sections["digests"].get("codec") is None:
            self._keys = _as_native(model_file.stored("digests"), "Q")
            self._classes = model_file.stored("digest_classes")
        else:
            self._keys, self._classes = (), ()
        self._changed = state.learned

    def label(self, digest: int) -> int | None:
        changed = self._changed.get(digest)
        if changed is not None:
            return None if changed < 0 else changed
        at = sorted_position(self._keys, digest) if self._keys else 0
        if at < len(self._keys) and self._keys[at] == digest:
            label = self._classes[at]
            if label not in (HAM, SPAM):
                from ..errors import ModelError

                raise ModelError("the model's record of learned messages holds a class that is "
                                 "neither spam nor ham; not usable, retrain it")
            return label
        return None


class _Appending(Learner):
    """A model taught by a journal record (learnrule.py decides what to teach
    it): each message's changes go to the record being made and to the
    journal state the LiveTable reads, so the next message is scored with
    it learned."""

    def __init__(self, scorer, table, state, digests: _Digests) -> None:
        self.scorer, self._table, self._state, self._digests = scorer, table, state, digests
        self.changes: dict[int, list[int]] = {}
        self.new_tokens: dict[int, str] = {}
        self.learned: dict[int, int] = {}
        self.recent: list[list] = []
        self.moved: dict[str, Any] = {"messages": [0, 0], "totals": [0, 0], "vocabulary": 0}

    def learned_as(self, digest: int) -> int | None:
        return self._digests.label(digest)  # the journal's changes, this run's included, then the base

    def count(self, tokens: list[str], label: int, sign: int) -> None:
        table, state, moved, mine = self._table, self._state, self.moved, self.changes
        distinct, counts, indexes, keys = table.bag(tokens)
        # The journal's sums of this message's keys, looked up at once; `made`:
        # those this loop added to the state (two tokens of one key would meet it).
        made: dict[int, list[int]] = {}
        total = vocabulary = 0  # the message's moves of T_label and V, added once after the loop
        for token, times, index, key, journaled in zip(distinct, counts, indexes, keys, table.changes_of(keys)):
            journaled = made.get(key, journaled)
            found = table.counts_at(index, journaled)
            if sign < 0 and found is None:
                continue  # never seen (or pruned): nothing to take out
            step = sign * times
            before = 0 if found is None else found[0] + found[1]
            if before + step < 0 or (found is not None and found[label] + step < 0):
                raise ValueError("unlearning a message that was never learned: counts went negative")
            if journaled is None:
                journaled = made[key] = state.changes.start(key)
                if found is None and index < 0:
                    self.new_tokens[key] = token
                    state.new_tokens[key] = token
            change = mine.get(key)
            if change is None:
                change = mine[key] = [0, 0, 0, 0]
            change[label] += step
            change[2 + label] += sign
            journaled[label] += step
            journaled[2 + label] += sign
            total += step
            if (before > 0) != (before + step > 0):
                vocabulary += 1 if before + step > 0 else -1
        moved["totals"][label] += total
        state.totals[label] += total
        moved["vocabulary"] += vocabulary
        state.vocabulary += vocabulary
        if table.messages(label) + sign < 0:
            raise ValueError("unlearning a message that was never learned: counts went negative")
        moved["messages"][label] += sign
        state.messages[label] += sign
        table.refresh()

    def record(self, digest: int, label: int) -> None:
        self.learned[digest] = label
        self._state.learned[digest] = label

    def scorable(self) -> bool:
        return self._table.scorable

    def keep_score(self, raw: float, label: int) -> None:
        self.recent.append([raw, label])


def learn_appending(path: str, spam: Sequence[str] = (), ham: Sequence[str] = (), flags: LearnFlags | None = None,
                    newer_than: float | None = None):
    """Learn into the model at `path` (the caller holds its lock) by appending a
    journal record, as `flags` (labelled.LearnFlags, none set if None) say.
    Returns the LearnReport, or None when this model must be rewritten whole
    instead (see the module docstring); then nothing was read from the
    messages and nothing written."""
    from ..model.journal import JournalState, encode, today
    from ..model.modelread import read_model
    from ..model.modelstore import append_record
    from ..model.scorer import LiveTable, NeedsWholeLoad, Scorer, journal_scoring
    from .labelled import LearnFlags, LearnReport, check_paths, tokenized_messages

    model_file = read_model(path, verify=False)
    if model_file.version < 3 or "totals" not in model_file.meta:
        return None
    base_identity = (model_file.identity, model_file.prefix)
    try:
        warm = _read_journal(model_file, base_identity)
    except ValueError as error:  # as open_scorer reports a journal that does not add up
        from ..errors import ModelError

        raise ModelError(f"model {path} is not usable ({error}); retrain it") from None
    try:
        scorer = Scorer.open(path, model_file, base=warm.base)
    except NeedsWholeLoad:
        return None  # a journal only the whole load can fold in: so is this learn
    if not journal_scoring(scorer.options):
        return None
    state, torn = model_file.journal()
    if torn or model_file.journal_bytes > COMPACT_BYTES:
        return None
    check_paths([*spam, *ham])
    if not isinstance(scorer.table, LiveTable):
        state = JournalState()
        scorer._table = LiveTable(scorer.table, model_file, state, scorer.options, model_file.meta)
    table = scorer.table
    assert isinstance(table, LiveTable)  # made just above when it was not one
    warm.base = table._base
    digests = _Digests(model_file, state)
    identity = model_file.identity  # the file read: a record is never appended to another

    report = LearnReport()
    learner = _Appending(scorer, table, state, digests)
    sources = [(SPAM, p) for p in spam] + [(HAM, p) for p in ham]
    learn_messages(tokenized_messages(sources, scorer.options, report.reading, newer_than=newer_than), learner,
                   report, flags or LearnFlags())

    learned, recent = learner.learned, learner.recent
    if learned:
        header = dict(learner.moved, day=today(), learned=[[digest, label] for digest, label in learned.items()],
                      recent=recent)
        record = encode(header, {key: change for key, change in learner.changes.items() if any(change)},
                        learner.new_tokens)
        assert identity is not None  # read_model records it
        append_record(path, record, identity)
        if model_file.journal_bytes + len(record) > COMPACT_BYTES or _first_fit_due(model_file, state, recent):
            compact(path)
    return report


def learn_file(path: str, spam: Sequence[str] = (), ham: Sequence[str] = (), flags: LearnFlags | None = None, *,
               options=None, options_given: Sequence[str] = (), stamp: str | None = None,
               lock_wait: float | None = None):
    """`spamnb learn`: teach the model at `path`, creating it (with `options`,
    default options if None) when it does not exist.  Returns (LearnReport,
    created).  Holds the model's lock; appends where the model allows,
    rewrites it whole otherwise; a run that changes nothing writes nothing.
    `flags` (labelled.LearnFlags, none set if None): forget, relabel, force, on error.
    `options_given`: the names of training options the user gave, refused
    (OptionError) when they differ from an existing model's.  `stamp`: read
    only files modified since this file's time, and set it to this run's
    start (a cron job over a honeypot Maildir reads only what is new);
    `lock_wait`: seconds to wait for another writer (BusyError past them)."""
    from ..errors import OptionError
    from ..model.modelstore import locked
    from .labelled import LearnFlags

    started = time.time()
    newer_than = None
    if stamp is not None:
        try:
            newer_than = os.stat(stamp).st_mtime
        except FileNotFoundError:
            pass
        except OSError as error:
            raise OptionError(f"--since-stamp {stamp}: {error.strerror or error}") from None
    with locked(path, wait=lock_wait):
        report, created = _learn_locked(path, spam, ham, flags or LearnFlags(), options, options_given,
                                        newer_than)
    if stamp is not None:
        try:
            # Its folder is made as `mkdir -p` would (private): a first run of a
            # cron recipe such as the README's ~/.cache/spamnb/honeypot.stamp
            # must not fail on a fresh account.
            os.makedirs(os.path.dirname(os.path.abspath(stamp)), mode=0o700, exist_ok=True)
            with open(stamp, "a"):
                pass
            os.utime(stamp, (started, started))
        except OSError as error:
            raise OptionError(f"--since-stamp {stamp}: cannot set it ({error.strerror or error}); "
                              "the messages were learned") from None
    return report, created


def _learn_locked(path, spam, ham, flags, options, options_given, newer_than):
    """learn_file's work, under the model's lock: (LearnReport, created)."""
    from ..errors import ModelError, OptionError
    from ..model.modelstore import check_writable

    created = not os.path.exists(path)
    if options is None and (created or options_given):
        # Built only where used: the default stop-word lists are a file read (and
        # importlib.resources, 12 ms of a fresh `learn`), for a model learn creates.
        from ..model.options import TrainOptions

        options = TrainOptions()
    if not created:
        if options_given:
            from ..model.opening import open_scorer

            if options != open_scorer(path).options:
                raise OptionError(f"{', '.join(options_given)}: training options apply only when learn creates "
                                  f"a model, and {path} has others (retrain it with `spamnb train` to change them)")
        report = learn_appending(path, spam, ham, flags, newer_than=newer_than)
        if report is not None:
            return report, False
        from ..model.model import Model  # numpy: only where the model is rewritten whole

        model = Model.load(path)
    else:
        from ..model.model import Model

        if flags.forget:
            raise ModelError(f"no model at {path}: there is nothing to forget")
        check_writable(path)
        model = Model.empty(options)
    from .training import learn

    report = learn(model, spam, ham, flags, newer_than=newer_than)
    if report.changed or created:
        model.save(path)
    return report, created


def _first_fit_due(model_file, state, recent) -> bool:
    """A model `learn` built from nothing has no calibration until RECENT_MINIMUM
    scores of each class are on record; the first fit is made then (by folding
    the journal in), not at the next compaction, so its verdicts mean
    something from then on.  Refits after it come with compactions."""
    from ..model.journal import RECENT_MINIMUM

    if model_file.meta.get("calibration") is not None:
        return False
    counts = [0, 0]
    if "recent_labels" in model_file.meta["sections"]:
        labels = bytes(model_file.decoded("recent_labels"))  # at most RECENT_SCORES bytes
        counts = [labels.count(b"\x00"), labels.count(b"\x01")]
    for _, label in state.recent + [tuple(item) for item in recent]:  # earlier records, then this run
        counts[label] += 1
    return min(counts) >= RECENT_MINIMUM


def compact(path: str) -> None:
    """Fold the journal into a new base (the caller holds the lock): Model.load
    applies it, calibration and cutoffs are refitted from the recorded scores
    (model.refit_from_recent), Model.save renames the result into place.
    Readers that opened the old file keep it whole.  Between compactions every
    reader, `classify` and `serve` alike, uses the base's calibration."""
    from ..model.model import Model

    model = Model.load(path)
    model.refit_from_recent()
    # zlib level 1, not train's 6: 0.52 s of CPU instead of 1.20 s to write a
    # 25 MB model, for a file 3 % larger (860,000 tokens learned from trec06p;
    # BENCHMARKS.md "Online through the command line").  A served model folds
    # every few dozen messages; the next `train` writes it small again.
    model.save(path, level=1)
