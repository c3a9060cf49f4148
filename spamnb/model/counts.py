"""Per-class token statistics: the sufficient statistics of every event model.

For each token w and class c (0 = ham, 1 = spam, the order scikit-learn uses
for labels 0 and 1) the model keeps

    occurrences[c, w]  N_cw  how often w occurred in messages of class c
    documents[c, w]    D_cw  in how many messages of class c w occurred

and per class the number of messages M_c.  Multinomial weights need N,
Bernoulli weights need D and M; keeping both makes every event model, and
exact learning, unlearning and merging, plain addition on these arrays.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

from .labels import HAM, SPAM
from .learned import LearnedDigests


class TokenCounts:
    """Vocabulary plus occurrence and document counts per class."""

    def __init__(self) -> None:
        self.vocabulary: dict[str, int] = {}
        self.tokens: list[str] = []
        self._occurrences = np.zeros((2, 0), dtype=np.int64)
        self._documents = np.zeros((2, 0), dtype=np.int64)
        self._last_seen = np.zeros(0, dtype=np.uint32)
        self.messages = np.zeros(2, dtype=np.int64)
        self._keys = np.zeros(0, dtype=np.uint64)
        self.learned = LearnedDigests()
        """Digest (see digest.py) → class of every message counted, for
        skipping duplicates and for forgetting exactly what was learned."""

    # Views trimmed to the vocabulary; the arrays behind them grow by doubling.
    @property
    def occurrences(self) -> np.ndarray:
        return self._occurrences[:, : len(self.tokens)]

    @property
    def documents(self) -> np.ndarray:
        return self._documents[:, : len(self.tokens)]

    @property
    def last_seen(self) -> np.ndarray:
        """Day number (days since 1970-01-01, UTC) each token was last learned."""
        return self._last_seen[: len(self.tokens)]

    def __len__(self) -> int:
        return len(self.tokens)

    @property
    def keys(self) -> np.ndarray:
        """Each token's 64-bit key (_core.token_key), computed once per token:
        learning one message into a model of half a million tokens hashes its
        new tokens, not all of them again."""
        done = len(self._keys)
        if done < len(self.tokens):
            from .._core import token_keys

            new = np.frombuffer(token_keys(self.tokens[done:]), dtype="<u8").astype(np.uint64)
            self._keys = np.concatenate([self._keys, new])
        return self._keys[: len(self.tokens)]

    def _ids(self, tokens: Iterable[str]) -> list[int]:
        """Ids of distinct `tokens`, adding the new ones to the vocabulary."""
        tokens = list(tokens)
        vocabulary = self.vocabulary
        # dict.update and map run in C: merging a worker's batch of 50,000
        # distinct tokens costs milliseconds, where appending one id at a time
        # takes a third of a second per batch.
        new = [t for t in tokens if t not in vocabulary]
        if new:
            vocabulary.update(zip(new, range(len(self.tokens), len(self.tokens) + len(new))))
            self.tokens.extend(new)
            self._reserve(len(self.tokens))
        return list(map(vocabulary.__getitem__, tokens))

    def _reserve(self, size: int) -> None:
        capacity = self._occurrences.shape[1]
        if size <= capacity:
            return
        capacity = max(size, 2 * capacity, 1024)
        for name in ("_occurrences", "_documents"):
            grown = np.zeros((2, capacity), dtype=np.int64)
            old = getattr(self, name)
            grown[:, : old.shape[1]] = old
            setattr(self, name, grown)
        grown_seen = np.zeros(capacity, dtype=np.uint32)
        grown_seen[: self._last_seen.shape[0]] = self._last_seen
        self._last_seen = grown_seen

    def add(self, documents: Sequence[Sequence[str]], labels: Sequence[int],
            sign: int = 1, day: int = 0) -> None:
        """Count a batch of tokenized messages (`sign=-1` takes them back out).

        Counting is done per batch with `np.add.at` so the Python loop only
        maps tokens to ids; a batch of a few hundred messages amortises it.
        """
        ids: list[int] = []
        amounts: list[int] = []
        classes: list[int] = []
        for tokens, label in zip(documents, labels, strict=True):
            bag = Counter(tokens)
            if sign < 0:  # tokens pruned away (or never seen) have nothing to take out
                bag = Counter({t: n for t, n in bag.items() if t in self.vocabulary})
            ids.extend(self._ids(bag.keys()))
            amounts.extend(bag.values())
            classes.extend([label] * len(bag))
            self.messages[label] += sign
        if sign < 0 and self.messages.min() < 0:  # a message with no known token is taken out too
            raise ValueError("unlearning a message that was never learned: counts went negative")
        if not ids:
            return
        id_array = np.asarray(ids, dtype=np.intp)
        class_array = np.asarray(classes, dtype=np.intp)
        np.add.at(self._occurrences, (class_array, id_array), sign * np.asarray(amounts, dtype=np.int64))
        np.add.at(self._documents, (class_array, id_array), sign)
        if sign > 0 and day:
            self._last_seen[id_array] = day
        if sign < 0 and (self._occurrences.min() < 0 or self.messages.min() < 0):
            raise ValueError("unlearning a message that was never learned: counts went negative")

    def add_counted(self, occurrences: Sequence[Counter], documents: Sequence[Counter],
                    messages: Sequence[int], day: int = 0) -> None:
        """Add counts already summed per class ({token: N_cw} and {token: D_cw}
        for ham and spam, and messages per class), as a worker returns them."""
        for label in (HAM, SPAM):
            summed = occurrences[label]
            if not summed:
                continue
            ids = np.asarray(self._ids(summed.keys()), dtype=np.intp)  # distinct: plain += is safe
            self._occurrences[label, ids] += np.fromiter(summed.values(), dtype=np.int64, count=len(ids))
            self._documents[label, ids] += np.fromiter(map(documents[label].__getitem__, summed.keys()),
                                                       dtype=np.int64, count=len(ids))
            if day:
                self._last_seen[ids] = day
        self.messages += np.asarray(messages, dtype=np.int64)

    def merge(self, other: "TokenCounts") -> None:
        """Add another model's counts to these (training on A ∪ B)."""
        self.learned.update(other.learned)
        ids = np.asarray(self._ids(other.tokens), dtype=np.intp)
        self._occurrences[:, ids] += other.occurrences
        self._documents[:, ids] += other.documents
        self._last_seen[ids] = np.maximum(self._last_seen[ids], other.last_seen)
        self.messages += other.messages

    @classmethod
    def from_arrays(cls, tokens: list[str], occurrences: np.ndarray, documents: np.ndarray,
                    messages: np.ndarray, last_seen: np.ndarray | None = None,
                    keys: np.ndarray | None = None) -> "TokenCounts":
        counts = cls()
        counts.tokens = list(tokens)
        counts.vocabulary = dict(zip(counts.tokens, range(len(counts.tokens))))
        counts._occurrences = np.array(occurrences, dtype=np.int64).reshape(2, len(tokens))
        counts._documents = np.array(documents, dtype=np.int64).reshape(2, len(tokens))
        counts._last_seen = (np.zeros(len(tokens), dtype=np.uint32) if last_seen is None
                             else np.array(last_seen, dtype=np.uint32))
        counts.messages = np.array(messages, dtype=np.int64)
        if keys is not None:
            counts._keys = np.array(keys, dtype=np.uint64)
        return counts

    @classmethod
    def from_matrix(cls, tokens: list[str], X, y) -> "TokenCounts":
        """Counts from a message × token count matrix and 0/1 labels (sklearn layout).

        N_cw = Σ_{i: y_i = c} X_iw and D_cw = Σ_{i: y_i = c} [X_iw > 0].
        """
        import scipy.sparse as sp  # only here: importing it costs `learn` 0.1 s

        X = sp.csr_matrix(X)
        y = np.asarray(y)
        occurrences = np.vstack([np.asarray(X[y == c].sum(axis=0)).ravel() for c in (HAM, SPAM)])
        present = (X > 0).astype(np.int64)
        documents = np.vstack([np.asarray(present[y == c].sum(axis=0)).ravel() for c in (HAM, SPAM)])
        messages = np.array([(y == HAM).sum(), (y == SPAM).sum()])
        return cls.from_arrays(tokens, occurrences, documents, messages)

    def subset(self, keep: np.ndarray) -> "TokenCounts":
        """The counts of the tokens where `keep` is true (message counts unchanged)."""
        return self.take(np.flatnonzero(keep))

    def take(self, indices: np.ndarray) -> "TokenCounts":
        """The counts of the tokens at `indices`, in that order (message counts unchanged)."""
        counts = TokenCounts.from_arrays([self.tokens[i] for i in indices.tolist()], self.occurrences[:, indices],
                                         self.documents[:, indices], self.messages, self.last_seen[indices],
                                         self.keys[indices])
        counts.learned = self.learned.copy()
        return counts


def still_counted(occurrences: np.ndarray, documents: np.ndarray) -> np.ndarray:
    """Which tokens some count still holds (N_cw or D_cw of either class
    above 0): a token every message of which was forgotten leaves the
    vocabulary, so V, and with it every weight, is what it was before it
    was learned."""
    return (occurrences.sum(axis=0) + documents.sum(axis=0)) > 0
