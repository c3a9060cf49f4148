"""Raw scores of messages given as token keys, by a model given as the
columns of just those keys (KeyColumns) plus its per-class totals, V and
message counts: `train` scores and calibrates on its sample of up to 10,000
messages (learning/training.py, learning/modelbuild.py) without a weight
table of the whole vocabulary or the tokens' text.  Messages given as tokens
are scored the same way, by their keys (keys_of): one pipeline, whatever
holds the counts (KeyColumns.of_counts for counts in memory).
"""

from __future__ import annotations

import numpy as np

from .counts import TokenCounts
from .options import TrainOptions, presence_scoring
from .scoring import ScoringRule
from .._core import distinct_keys as distinct_key_counts, key_positions as _key_positions, token_keys
from .weights import token_weights


class KeyColumns:
    """The counts of some tokens, by key: keys (sorted), N (2, m), D (2, m),
    and whether each is selected to weigh.  What held-out scoring of a
    sample needs of a model, without the rest of its vocabulary."""

    __slots__ = ("keys", "occurrences", "documents", "selected")

    def __init__(self, keys: np.ndarray, occurrences: np.ndarray, documents: np.ndarray,
                 selected: np.ndarray) -> None:
        self.keys = keys
        self.occurrences = occurrences
        self.documents = documents
        self.selected = np.asarray(selected, dtype=bool)

    @classmethod
    def of_counts(cls, counts: TokenCounts, keys: np.ndarray, selected: np.ndarray | None = None,
                  unknown: bool = False) -> "KeyColumns":
        """The columns of `keys` (sorted, distinct) in `counts`, whose tokens
        may be in any order (key order from `train`, first seen from
        TokenCounts.add); selected where `selected` (in the counts' order;
        None: every token) is.  A key the counts do not hold is left out,
        or with `unknown` kept with counts of 0, weighing nothing (a token
        the model never saw)."""
        at, known = places(counts.keys, keys)
        if not known.all():
            if unknown:
                return cls(keys, np.where(known, counts.occurrences[:, at], 0),
                           np.where(known, counts.documents[:, at], 0),
                           known & (True if selected is None else selected[at]))
            keys, at = keys[known], at[known]
        return cls(keys, counts.occurrences[:, at], counts.documents[:, at],
                   np.ones(len(at), dtype=bool) if selected is None else selected[at])


def places(keys: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each of `wanted` is in `keys` (sorted, as `train`'s counts are,
    or not), and whether it is there at all."""
    if len(keys) == 0:
        return np.zeros(len(wanted), dtype=np.intp), np.zeros(len(wanted), dtype=bool)
    if (keys[1:] > keys[:-1]).all():
        at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
    else:
        order = np.argsort(keys, kind="stable")
        at = order[np.minimum(np.searchsorted(keys[order], wanted), len(keys) - 1)]
    return at, keys[at] == wanted


def keys_of(tokens: list[str]) -> np.ndarray:
    """A message's tokens as their keys, in token order: what `train`'s
    workers keep of a sampled message (training.count_batch)."""
    return np.frombuffer(token_keys(tokens), dtype="<u8").astype(np.uint64)


def unique_keys(arrays: list[np.ndarray]) -> np.ndarray:
    """The distinct keys of some arrays, sorted: np.unique by sorting (its
    hash table takes over ten times as long as a sort on token keys), in
    place in their concatenation (not a second copy of them)."""
    ordered = np.concatenate(arrays).astype(np.uint64, copy=False) if arrays else np.zeros(0, dtype=np.uint64)
    ordered.sort()
    if len(ordered) == 0:
        return ordered
    return ordered[np.concatenate([[True], ordered[1:] != ordered[:-1]])]


def key_positions(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """np.searchsorted(sorted_keys, keys) for token keys, in the core through
    an index of their leading bits (keys are evenly spread digests): 2
    million keys among 1 million in a sixth of numpy's time."""
    out = np.empty(len(keys), dtype=np.uint64)
    _key_positions(np.ascontiguousarray(sorted_keys, dtype=np.uint64), np.ascontiguousarray(keys, dtype=np.uint64),
                   out)
    return out.view(np.intp)  # positions fit: no copy of the (millions of) entries


# Messages whose keys KeyBags.of puts end to end at once.
BAGGED_TOGETHER = 256


class KeyBags:
    """Messages given as token keys, as Counter(keys) of each would hold
    them, in flat arrays: each message's distinct keys in the order they
    first occur (`keys`), how often each occurs (`counts`), and how many
    distinct keys each message has (`sizes`).  10,000 sampled messages held
    as Counters took 250 MB; counting them a message at a time in numpy
    (np.unique and an argsort each) took most of calibration's time."""

    __slots__ = ("keys", "counts", "sizes", "starts")

    def __init__(self, keys: np.ndarray, counts: np.ndarray, sizes: np.ndarray) -> None:
        self.keys, self.counts, self.sizes = keys, counts, sizes
        self.starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64) if len(sizes) else \
            np.zeros(0, dtype=np.int64)

    @classmethod
    def of(cls, documents: list[np.ndarray]) -> "KeyBags":
        """The bags of messages given as arrays of token keys (in the core),
        BAGGED_TOGETHER messages at a time: the keys of all of them end to
        end, with the outputs cut to size by a copy, would take 2.5 times
        the bags' own size at once."""
        lengths = np.fromiter(map(len, documents), dtype=np.uint64, count=len(documents))
        total = int(lengths.sum())
        keys = np.empty(total, dtype=np.uint64)
        counts = np.empty(total, dtype=np.uint32)
        sizes = np.empty(len(documents), dtype=np.uint64)
        written = 0
        for start in range(0, len(documents), BAGGED_TOGETHER):
            group = slice(start, start + BAGGED_TOGETHER)
            flat = np.ascontiguousarray(np.concatenate(documents[group]), dtype=np.uint64)
            written += distinct_key_counts(flat, lengths[group], keys[written:], counts[written:], sizes[group])
        # Cut to size in place (realloc): no second copy of the bags.
        keys.resize(written, refcheck=False)
        counts.resize(written, refcheck=False)
        return cls(keys, counts, sizes.astype(np.int64))

    def __len__(self) -> int:
        return len(self.sizes)

    def entries(self, members: np.ndarray) -> np.ndarray:
        """The flat positions of the members' entries, member after member."""
        sizes = self.sizes[members]
        ends = np.cumsum(sizes)
        return np.repeat(self.starts[members] - (ends - sizes), sizes) + np.arange(int(ends[-1]) if len(ends) else 0)

    def select(self, members: np.ndarray) -> "KeyBags":
        """The bags of the messages `members` (indices), in that order."""
        at = self.entries(members)
        return KeyBags(self.keys[at], self.counts[at], self.sizes[members])


def distinct_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A message's distinct token keys in the order they first occur, and
    how often each occurs: Counter(keys) as two arrays (KeyBags of one)."""
    bags = KeyBags.of([keys])
    return bags.keys, bags.counts


def raw_scores_by_key(columns: KeyColumns, documents: list[np.ndarray], totals: np.ndarray, vocabulary: int,
                      messages: np.ndarray, options: TrainOptions, bags: KeyBags | None = None) -> np.ndarray:
    """Raw scores (before calibration) of messages given as token keys, by a
    model given as the columns of those keys (every key of every message
    among them) plus its per-class totals, V and message counts; a column
    not selected weighs nothing.  What Model.raw_score gives for the same
    messages as tokens.  `bags`: the documents' KeyBags, when known."""
    bags = KeyBags.of(documents) if bags is None else bags
    return raw_scores_of_bags(columns, documents, bags, key_positions(columns.keys, bags.keys), totals, vocabulary,
                              messages, options)


def raw_score_from_counts(counts: TokenCounts, totals: np.ndarray, tokens: list[str],
                          options: TrainOptions) -> float:
    """A message's raw score computed straight from counts, for just its
    tokens (raw_scores_by_key on their columns; a token the counts do not
    hold weighs nothing).  Used for online evaluation, where rebuilding the
    whole weight table per message would cost O(vocabulary) each time: its
    tokens are found by the vocabulary, not by searching the keys of every
    token counted."""
    distinct = list(dict.fromkeys(tokens))
    keys = keys_of(distinct)
    order = np.argsort(keys)
    ids = np.fromiter((counts.vocabulary.get(token, -1) for token in distinct), dtype=np.intp,
                      count=len(distinct))[order]
    known = ids >= 0
    occurrences, documents = np.zeros((2, len(ids)), dtype=np.int64), np.zeros((2, len(ids)), dtype=np.int64)
    occurrences[:, known] = counts.occurrences[:, ids[known]]
    documents[:, known] = counts.documents[:, ids[known]]
    columns = KeyColumns(keys[order], occurrences, documents, known)
    return float(raw_scores_by_key(columns, [keys_of(tokens)], totals, len(counts), counts.messages, options)[0])


# Messages whose terms are computed at once: their terms become Python
# floats (32 bytes each), so not the whole sample's (3.3 million terms on
# spamassassin: 100 MB) at a time.
SCORED_TOGETHER = 256
# Columns weighed at once by raw_scores_of_bags.
WEIGHED_TOGETHER = 1 << 16


def raw_scores_of_bags(columns: KeyColumns, documents: list[np.ndarray], bags: KeyBags, ids: np.ndarray,
                       totals: np.ndarray, vocabulary: int, messages: np.ndarray, options: TrainOptions) -> np.ndarray:
    """raw_scores_by_key, given the documents' bags and each bag entry's column
    (`ids`); the bags may go on past the documents (messages only taken out:
    heldout.held_out_raw_scores_by_key), and only the documents are scored.

    Every message's terms x_w λ_w are computed at once; ScoringRule.message_raw
    then sums each message's, in the order its tokens first occur (the order
    of the sum, so the same floating-point result as a message at a time).
    A message chunking cuts (options.chunk) has its chunks' terms computed
    as it asks for them."""
    weights = np.empty(len(columns.keys), dtype=np.float64)
    # A piece of the columns at a time: the formula's temporaries, several
    # floats a column, were the peak of calibration's memory.  It is element
    # by element, so the weights are the same.
    for start in range(0, len(weights), WEIGHED_TOGETHER):
        piece = slice(start, start + WEIGHED_TOGETHER)
        weights[piece], _ = token_weights(columns.occurrences[:, piece].astype(np.int64),
                                          columns.documents[:, piece].astype(np.int64),
                                          np.asarray(messages, dtype=np.int64), np.asarray(totals, dtype=np.int64),
                                          int(vocabulary), options.event_model, options.alpha, options.robinson,
                                          options.min_strength)
    weights[~columns.selected] = 0.0
    presence = presence_scoring(options.event_model)
    rule = ScoringRule(options.normalize, options.top_k, chunk=options.chunk)
    keys_sorted = columns.keys

    def chunk_terms(chunk: np.ndarray) -> list[float]:
        distinct, counted = distinct_keys(chunk)
        x = np.ones(len(distinct)) if presence else counted.astype(np.float64)
        terms = weights[np.searchsorted(keys_sorted, distinct)] * x
        return terms[terms != 0.0].tolist()

    scores = np.empty(len(documents), dtype=np.float64)
    for group in range(0, len(documents), SCORED_TOGETHER):
        end = min(group + SCORED_TOGETHER, len(documents))  # the bags may hold more messages than are scored
        members, last = slice(group, end), end - 1
        entries = slice(int(bags.starts[group]), int(bags.starts[last] + bags.sizes[last]))
        x = np.ones(entries.stop - entries.start) if presence else bags.counts[entries].astype(np.float64)
        terms = weights[ids[entries]] * x
        nonzero = terms != 0.0
        flat = terms[nonzero].tolist()
        kept_before = np.concatenate([[0], np.cumsum(nonzero)])  # nonzero terms before each entry
        starts = bags.starts[members] - entries.start
        firsts, lasts = kept_before[starts].tolist(), kept_before[starts + bags.sizes[members]].tolist()
        for index, (keys, first, last) in enumerate(zip(documents[members], firsts, lasts), group):
            whole = flat[first:last]
            scores[index] = rule.message_raw(keys, lambda chunk, keys=keys, whole=whole:
                                             whole if chunk is keys else chunk_terms(chunk))
    return scores
