"""The messages a model has learned, by digest, and what replacing a model
file would forget: `train`, `import` and `merge` refuse to drop what a user
taught unless told to (app/commands/options.py keep_what_was_taught).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, MutableMapping

import numpy as np

from .._core import sorted_position
from ..errors import ModelError
from .modelread import read_model

# Changes kept as a dict before they are folded into the sorted arrays: a dict
# entry costs about 75 bytes (two int objects and its slot) where the arrays
# cost 9, so the million messages of a large training run held 75 MB in a dict.
# A fold copies the arrays, so the dict may grow to 1/FOLD_SHARE of them
# (copying stays linear in the messages: 10 million cost seconds, not
# minutes), and to FOLD_AT changes below that (2 MB).
FOLD_AT = 1 << 14
FOLD_SHARE = 64

_FORGOTTEN = -1   # a change that takes the message off the record
_ITEMS_AT_ONCE = 1 << 16   # items() turns this many into Python ints at a time


class LearnedDigests(MutableMapping):
    """Digest (mail/digest.py) → class of every message on record.

    Held as sorted arrays, u8 digests and u1 classes (what a model file's
    `digests` and `digest_classes` sections hold), looked up by binary search,
    and a small dict of the latest changes, folded into the arrays now and
    then (FOLD_AT).  Iterating gives the digests in order."""

    __slots__ = ("_digests", "_classes", "_changes", "_digest_list", "_class_list")

    def __init__(self, digests: np.ndarray | None = None, classes: np.ndarray | None = None) -> None:
        """From a file's sections (sorted by digest; any order is put right,
        the last of equal digests winning, as a dict built from them would)."""
        self._changes: dict[int, int] = {}
        self._hold(np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.uint8))
        if digests is not None:
            digests = np.asarray(digests, dtype=np.uint64)
            classes = np.asarray(classes, dtype=np.uint8)
            if digests.shape != classes.shape or digests.ndim != 1:
                raise ValueError("learned digests and their classes differ in length")
            if len(digests) > 1 and not (digests[1:] > digests[:-1]).all():
                order = np.argsort(digests, kind="stable")
                digests, classes = digests[order], classes[order]
                last = np.append(digests[1:] != digests[:-1], True)
                digests, classes = digests[last], classes[last]
            self._hold(digests, classes)

    def _hold(self, digests: np.ndarray, classes: np.ndarray) -> None:
        self._digests, self._classes = np.ascontiguousarray(digests), np.ascontiguousarray(classes)
        # Looked up through memoryviews by the core's sorted_position (as a
        # learn appending looks its digest up in the mapped file): one call,
        # where np.searchsorted's on one digest costs ten times more (a
        # training run looks up every message it reads).
        self._digest_list = self._digests.data.cast("B").cast("Q")
        self._class_list = self._classes.data.cast("B")

    @classmethod
    def of(cls, pairs: Mapping[int, int] | Iterable[tuple[int, int]]) -> "LearnedDigests":
        record = cls()
        record.update(pairs)
        return record

    # -- reading -------------------------------------------------------------

    def get(self, digest: int, default=None):
        label = self._changes.get(digest)
        if label is not None:
            return default if label == _FORGOTTEN else label
        digests = self._digest_list
        try:
            at = sorted_position(digests, digest) if len(digests) else 0
        except (OverflowError, TypeError):  # no u64: on no record, as a dict would answer
            return default
        if at < len(digests) and digests[at] == digest:
            return self._class_list[at]
        return default

    def __getitem__(self, digest: int) -> int:
        label = self.get(digest)
        if label is None:
            raise KeyError(digest)
        return label

    def __contains__(self, digest: object) -> bool:
        return isinstance(digest, int) and self.get(digest) is not None

    def __len__(self) -> int:
        self._fold()
        return len(self._digests)

    def __iter__(self) -> Iterator[int]:
        return (digest for digest, _ in self.items())

    def items(self) -> Iterator[tuple[int, int]]:  # type: ignore[override]
        """(digest, class) in digest order."""
        digests, classes = self.arrays()
        for start in range(0, len(digests), _ITEMS_AT_ONCE):
            end = start + _ITEMS_AT_ONCE
            yield from zip(digests[start:end].tolist(), classes[start:end].tolist())

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The record as a file holds it: digests (u8, sorted) and their classes
        (u1).  Not to be written into: the next change makes new arrays."""
        self._fold()
        return self._digests, self._classes

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LearnedDigests):
            (mine, my_classes), (theirs, their_classes) = self.arrays(), other.arrays()
            return np.array_equal(mine, theirs) and np.array_equal(my_classes, their_classes)
        if isinstance(other, Mapping):
            return dict(self.items()) == dict(other.items())
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable

    def copy(self) -> "LearnedDigests":
        copied = LearnedDigests()
        copied._hold(*self.arrays())  # never written into: shared safely
        return copied

    # -- changing ------------------------------------------------------------

    def __setitem__(self, digest: int, label: int) -> None:
        self._changes[digest] = label
        if len(self._changes) >= max(FOLD_AT, len(self._digests) // FOLD_SHARE):
            self._fold()

    def __delitem__(self, digest: int) -> None:
        if digest not in self:
            raise KeyError(digest)
        self[digest] = _FORGOTTEN

    def update(self, other=(), /, **ignored) -> None:
        """Add `other`'s messages (a LearnedDigests, a mapping or pairs), its
        classes winning over these."""
        if isinstance(other, LearnedDigests):
            self._fold()
            self._apply(*other.arrays())
            return
        for digest, label in (other.items() if isinstance(other, Mapping) else other):
            self[digest] = label

    def _fold(self) -> None:
        changes = self._changes
        if not changes:
            return
        digests = np.fromiter(changes.keys(), dtype=np.uint64, count=len(changes))
        labels = np.fromiter(changes.values(), dtype=np.int64, count=len(changes))
        order = np.argsort(digests)
        digests, labels = digests[order], labels[order]
        if (labels > np.iinfo(np.uint8).max).any():
            raise ValueError("a learned message's class does not fit the record")
        on_record = labels != _FORGOTTEN
        self._apply(digests, labels.astype(np.uint8), on_record)
        self._changes = {}

    def _apply(self, digests: np.ndarray, classes: np.ndarray, on_record: np.ndarray | None = None) -> None:
        """Put sorted, distinct `digests` with `classes` on the record, in place
        of what it holds for them; those not `on_record` are taken off it."""
        held, held_classes = self._digests, self._classes
        at = np.searchsorted(held, digests)
        found = at < len(held)
        found[found] = held[at[found]] == digests[found]
        if on_record is None:
            on_record = np.ones(len(digests), dtype=bool)
        if found.any():  # a message on record again (relabelled) or forgotten: rare while training
            held_classes = held_classes.copy()
            staying = found & on_record
            held_classes[at[staying]] = classes[staying]
            leaving = found & ~on_record
            if leaving.any():
                kept = np.ones(len(held), dtype=bool)
                kept[at[leaving]] = False
                held, held_classes = held[kept], held_classes[kept]
        new = ~found & on_record
        digests, classes = digests[new], classes[new]
        places = np.searchsorted(held, digests)
        self._hold(np.insert(held, places, digests), np.insert(held_classes, places, classes))


def learned_after_journal(learned: LearnedDigests, state) -> LearnedDigests:
    """The messages on record once the journal's are added to `learned` and
    its forgotten ones (class -1) taken out of it."""
    for digest, label in state.learned.items():
        if label < 0:
            learned.pop(digest, None)
        else:
            learned[digest] = label
    return learned


def messages_on_record(path: str | os.PathLike) -> LearnedDigests | None:
    """The messages a model file holds, journal included; None when there is
    no model there, or none that can be read (nothing in it can be kept
    then).  Reads and checks only the digest sections (each has its own
    checksum) and the journal, not the vocabulary: retraining over a model
    of a million messages (2.6 GB) checked the whole file, and every page of
    it was counted in the process's resident memory."""
    try:
        model_file = read_model(path, verify=False)
        learned = LearnedDigests()
        if "digests" in model_file.meta.get("sections", {}):
            model_file.check_section("digests")
            model_file.check_section("digest_classes")
            learned = LearnedDigests(model_file.array("digests"), model_file.array("digest_classes"))
        state, _ = model_file.journal()
        return learned_after_journal(learned, state)
    except (ModelError, KeyError, TypeError, ValueError, IndexError):
        return None


def messages_lost(before: LearnedDigests | None, after: LearnedDigests) -> int:
    """How many messages on record `before` are not in `after` with the same label:
    what replacing the first model by the second would make it forget."""
    if not before:
        return 0
    digests, classes = before.arrays()
    theirs, their_classes = after.arrays()
    at = np.minimum(np.searchsorted(theirs, digests), max(len(theirs) - 1, 0))
    if not len(theirs):
        return len(digests)
    kept = (theirs[at] == digests) & (their_classes[at] == classes)
    return int(len(digests) - np.count_nonzero(kept))
