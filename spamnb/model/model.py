"""The model: counts, training options and the weight table, loaded and saved.

This is the library API behind the command line:

    from spamnb import Model
    model = Model.load("spam.model")
    score = model.score_message(open("msg.eml", "rb").read())
    score.label, score.probability, score.log_odds
"""

from __future__ import annotations

import datetime as _dt
import os
from collections import Counter
from itertools import chain

import numpy as np

from .. import __version__
from .counts import TokenCounts
from .labels import HAM, SPAM
from ..errors import ModelError
from .modelfile import BLOCK_KEYS, FORMAT_VERSION, MAX_TOKEN_BYTES, check_u4, read_model, write_model
from .calibration import FIT_MINIMUM_HAM, fit_cutoffs, fit_platt, tune_cutoffs
from .options import TrainOptions
from .scorer import (SCORING_SECTIONS, Scorer, check_scoring_meta, check_tokenizer_version, cutoffs_from_meta,
                     options_from_meta, options_to_meta)
from .scoring import Cutoffs, ScoringRule, WeightTable, block_crcs
from .._core import distinct_keys as distinct_key_counts, key_positions as _key_positions
from ..text.tokens import TOKENIZER_VERSION
from .weights import presence_scoring, selected_features, token_weights, weights_of_arrays

# Sections read only to learn, inspect or export: stored compressed.
# Raw (mapped) besides the scoring sections: occurrences and digests, which
# `learn` reads a few entries of (spamnb/learning/incremental.py).
COMPRESSED = frozenset({"token_lengths", "token_bytes", "documents", "last_seen",
                        "recent_raw", "recent_labels"})
# `learn` keeps the raw score each of the last RECENT_SCORES messages had
# before it was learned: scores of mail the model had not seen, in the order
# it came, from which it refits calibration and cutoffs (Model.refit_from_recent).
RECENT_SCORES = 2000
# Refit once at least this many of each class are on record.
RECENT_MINIMUM = 10


def _narrow(counts: np.ndarray) -> np.ndarray:
    """Occurrence counts as 16-bit numbers when they fit (stored raw: half the bytes)."""
    if counts.size == 0 or int(counts.max()) <= 0xFFFF:
        return counts.astype("<u2")
    return counts


def _journal_changes(state, base_keys: np.ndarray):
    """A journal's changes as arrays against a base's sorted keys: (keys,
    changes [key, 4], the day each key last changed, each key's place in the
    base, whether the base holds it, whether it is new).  Raises ValueError for
    a new key whose text the journal never gave."""
    keys = np.fromiter(state.changes.keys(), dtype=np.uint64, count=len(state.changes))
    changes = np.array(list(state.changes.values()), dtype=np.int64).reshape(len(keys), 4)
    days = np.fromiter(map(state.last_day.__getitem__, state.changes.keys()), dtype=np.int64, count=len(keys))
    at = np.searchsorted(base_keys, keys)
    found = at < len(base_keys)
    found[found] = base_keys[at[found]] == keys[found]
    new = ~found
    missing = [int(key) for key in keys[new] if int(key) not in state.new_tokens]
    if missing:
        raise ValueError(f"the journal changes {len(missing)} tokens it never names")
    return keys, changes, days, at, found, new


def today() -> int:
    """Days since 1970-01-01 UTC: the unit of `last_seen`."""
    return int(_dt.datetime.now(_dt.UTC).timestamp() // 86400)


def raw_score_from_counts(counts: TokenCounts, totals: np.ndarray, tokens: list[str],
                          options: TrainOptions) -> float:
    """A message's raw score computed straight from counts, for just its tokens.

    Chunking is applied as in scoring.  Used for online evaluation, where
    rebuilding the whole weight table per message would cost O(vocabulary)
    each time.
    """
    rule = ScoringRule(options.normalize, options.top_k, chunk=options.chunk)
    presence = presence_scoring(options.event_model)

    def contributions(chunk: list[str]) -> list[float]:
        bag = Counter(token for token in chunk if token in counts.vocabulary)
        ids = np.fromiter((counts.vocabulary[t] for t in bag), dtype=np.intp, count=len(bag))
        times = np.fromiter(bag.values(), dtype=np.int64, count=len(bag))
        weights, _ = token_weights(counts.occurrences[:, ids], counts.documents[:, ids], counts.messages, totals,
                                   len(counts), options.event_model, options.alpha, options.robinson,
                                   options.min_strength)
        x = np.ones_like(times) if presence else times
        return (weights * x)[weights != 0.0].tolist()  # zero weights are skipped, as in scoring

    return rule.message_raw(tokens, contributions)


def held_out_raw_scores(counts: TokenCounts, documents: list[list[str]], labels: list[int],
                        options: TrainOptions, selected: np.ndarray | None = None,
                        copies: list[int] | None = None) -> np.ndarray:
    """Raw scores of a block of training messages from the counts without
    the whole block: what a model trained on the rest would have said of
    them.  With the block the most recent mail, that is the score of mail
    that came after the model, drift included, where leave-one-out keeps
    each message's own campaign (its neighbours in time) in the model.
    `copies`: how many times each message's occurrences were counted (2 for
    a near error counted again, TrainOptions.retrain_margin); all of them are
    taken out, else a twice-counted message would still be in the model that
    scores it (its document and message counts are counted once).
    """
    occurrences = counts.occurrences.copy()
    document_counts = counts.documents.copy()
    messages = counts.messages.copy()
    bags = [Counter(tokens) for tokens in documents]
    try:
        ids = np.array(list(map(counts.vocabulary.__getitem__, chain.from_iterable(bags))), dtype=np.intp)
    except KeyError:
        raise ValueError("held-out scores need messages the model was trained on") from None
    times = np.array(list(chain.from_iterable(bag.values() for bag in bags)), dtype=np.int64)
    sizes = np.fromiter(map(len, bags), dtype=np.intp, count=len(bags))
    label = np.repeat(np.asarray(labels, dtype=np.intp), sizes)
    copied = np.ones(len(bags), dtype=np.int64) if copies is None else np.asarray(copies, dtype=np.int64)
    np.add.at(occurrences, (label, ids), -times * np.repeat(copied, sizes))
    np.add.at(document_counts, (label, ids), -1)
    messages -= np.bincount(np.asarray(labels, dtype=np.intp), minlength=2)
    if messages.min() <= 0:
        raise ValueError("held-out scores need messages of each class outside the block")
    remaining = document_counts.sum(axis=0) > 0  # tokens only the block had leave V
    weights, _ = token_weights(occurrences, document_counts, messages, occurrences.sum(axis=1),
                               int(remaining.sum()), options.event_model, options.alpha, options.robinson,
                               options.min_strength)
    weights[~remaining] = 0.0
    if selected is not None:
        weights[~selected] = 0.0
    presence = presence_scoring(options.event_model)
    rule = ScoringRule(options.normalize, options.top_k, chunk=options.chunk)
    vocabulary = counts.vocabulary

    def contributions(chunk: list[str]) -> list[float]:
        bag = Counter(chunk)
        token_ids = np.fromiter(map(vocabulary.__getitem__, bag), dtype=np.intp, count=len(bag))
        x = np.ones(len(bag)) if presence else np.fromiter(bag.values(), dtype=np.float64, count=len(bag))
        terms = weights[token_ids] * x
        return terms[terms != 0.0].tolist()

    return np.array([rule.message_raw(tokens, contributions) for tokens in documents], dtype=np.float64)


def file_meta(meta: dict, options: TrainOptions, messages, bias: float, cutoffs: Cutoffs, vocabulary: int,
              totals) -> dict:
    """The model file's header (less its section table) for a model with these values."""
    now = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
    meta = {k: v for k, v in meta.items() if k != "sections"}
    meta.update({
        "format": "spamnb-model", "format_version": FORMAT_VERSION, "spamnb": __version__,
        "tokenizer_version": TOKENIZER_VERSION,
        "created": meta.get("created", now), "updated": now,
        **options_to_meta(options),
        "messages": [int(m) for m in messages], "bias": bias,
        "cutoffs": {"spam": cutoffs.spam, "ham": cutoffs.ham},
        "vocabulary": int(vocabulary),
        # Σ_w N_cw per class [ham, spam]: with V, the constant of every λ (scorer.LiveTable).
        "totals": [int(total) for total in totals],
    })
    return meta


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


def unique_keys(keys: np.ndarray) -> np.ndarray:
    """The distinct keys of an array, sorted: np.unique by sorting (its hash
    table took 1.25 s for 3.3 million token keys a sort does in 0.10 s)."""
    ordered = np.sort(np.asarray(keys, dtype=np.uint64))
    if len(ordered) == 0:
        return ordered
    return ordered[np.concatenate([[True], ordered[1:] != ordered[:-1]])]


def key_positions(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """np.searchsorted(sorted_keys, keys) for token keys, in the core through
    an index of their leading bits (keys are evenly spread digests): 2
    million keys among 1 million in 0.2-0.3 s where numpy took 1.6-1.8 s."""
    out = np.empty(len(keys), dtype=np.uint64)
    _key_positions(np.ascontiguousarray(sorted_keys, dtype=np.uint64), np.ascontiguousarray(keys, dtype=np.uint64),
                   out)
    return out.astype(np.intp)


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
        """The bags of messages given as arrays of token keys (in the core)."""
        lengths = np.fromiter(map(len, documents), dtype=np.uint64, count=len(documents))
        flat = np.concatenate(documents).astype(np.uint64, copy=False) if documents else np.zeros(0, np.uint64)
        flat = np.ascontiguousarray(flat)
        keys = np.empty(len(flat), dtype=np.uint64)
        counts = np.empty(len(flat), dtype=np.uint32)
        sizes = np.empty(len(documents), dtype=np.uint64)
        written = distinct_key_counts(flat, lengths, keys, counts, sizes)
        del flat
        # Copied to size: the arrays made for every key of the messages are freed.
        return cls(keys[:written].copy(), counts[:written].copy(), sizes.astype(np.int64))

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


def held_out_raw_scores_by_key(columns: KeyColumns, documents: list[np.ndarray], labels: list[int],
                               totals: np.ndarray, vocabulary: int, messages: np.ndarray,
                               options: TrainOptions, copies: list[int] | None = None) -> np.ndarray:
    """held_out_raw_scores, for messages given as token keys and a model
    given as the columns of those keys plus its per-class totals Σ_w N_cw,
    vocabulary size V and message counts.  Only the block's own tokens
    change when it is taken out, so these are the same numbers: the
    totals lose what the block held, and V loses the tokens only the block
    had (tests/learning/test_scale.py checks it against held_out_raw_scores).
    `copies`: how many times each message was counted (held_out_raw_scores)."""
    bags = KeyBags.of(documents)
    wanted = bags.keys
    times = bags.counts.astype(np.int64)
    at = key_positions(columns.keys, wanted)
    if (at >= len(columns.keys)).any() or (columns.keys[np.minimum(at, len(columns.keys) - 1)] != wanted).any():
        raise ValueError("held-out scores need messages the model was trained on")
    # Only the block's own columns change or are scored: the rest are left out
    # (a fifth of the sample's columns, not all of them, in memory at once).
    # np.unique(at, return_inverse=True) by marking: no sort.
    present = np.zeros(len(columns.keys), dtype=bool)
    present[at] = True
    mine = np.flatnonzero(present)
    ids = (np.cumsum(present) - 1)[at]
    columns = KeyColumns(columns.keys[mine], columns.occurrences[:, mine].astype(np.int64),
                         columns.documents[:, mine].astype(np.int64), columns.selected[mine])
    sizes = bags.sizes
    label = np.repeat(np.asarray(labels, dtype=np.intp), sizes)
    copied = np.ones(len(sizes), dtype=np.int64) if copies is None else np.asarray(copies, dtype=np.int64)
    per_token = np.repeat(copied, sizes)
    occurrences, document_counts = columns.occurrences, columns.documents  # copies already
    np.add.at(occurrences, (label, ids), -times * per_token)  # every copy (occurrences only)
    np.add.at(document_counts, (label, ids), -1)
    messages = np.asarray(messages, dtype=np.int64) - np.bincount(np.asarray(labels, dtype=np.intp), minlength=2)
    if messages.min() <= 0:
        raise ValueError("held-out scores need messages of each class outside the block")
    removed = np.zeros(2, dtype=np.int64)
    np.add.at(removed, label, times * per_token)
    remaining = document_counts.sum(axis=0) > 0  # tokens only the block had leave V
    held_out = KeyColumns(columns.keys, occurrences, document_counts, columns.selected & remaining)
    return _raw_scores(held_out, documents, bags, ids, np.asarray(totals, dtype=np.int64) - removed,
                       int(vocabulary) - int((~remaining).sum()), messages, options)


def raw_scores_by_key(columns: KeyColumns, documents: list[np.ndarray], totals: np.ndarray, vocabulary: int,
                      messages: np.ndarray, options: TrainOptions, bags: KeyBags | None = None) -> np.ndarray:
    """Raw scores (before calibration) of messages given as token keys, by a
    model given as the columns of those keys (every key of every message
    among them) plus its per-class totals, V and message counts; a column
    not selected weighs nothing.  What Model.raw_score gives for the same
    messages as tokens.  `bags`: the documents' KeyBags, when known."""
    bags = KeyBags.of(documents) if bags is None else bags
    return _raw_scores(columns, documents, bags, key_positions(columns.keys, bags.keys), totals, vocabulary,
                       messages, options)


# Messages whose terms are computed at once: their terms become Python
# floats (32 bytes each), so not the whole sample's (3.3 million terms on
# spamassassin: 100 MB) at a time.
SCORED_TOGETHER = 256


def _raw_scores(columns: KeyColumns, documents: list[np.ndarray], bags: KeyBags, ids: np.ndarray,
                totals: np.ndarray, vocabulary: int, messages: np.ndarray, options: TrainOptions) -> np.ndarray:
    """raw_scores_by_key, given the documents' bags and each bag entry's column (`ids`).

    Every message's terms x_w λ_w are computed at once; ScoringRule.message_raw
    then sums each message's, in the order its tokens first occur (the order
    of the sum, so the same floating-point result as a message at a time).
    A message chunking cuts (options.chunk) has its chunks' terms computed
    as it asks for them."""
    weights, _ = token_weights(columns.occurrences, columns.documents, np.asarray(messages, dtype=np.int64),
                               np.asarray(totals, dtype=np.int64), int(vocabulary), options.event_model,
                               options.alpha, options.robinson, options.min_strength)
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
        members = slice(group, group + SCORED_TOGETHER)
        last = min(group + SCORED_TOGETHER, len(documents)) - 1
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


def blocked_raw_scores_by_key(columns: KeyColumns, documents: list[np.ndarray], labels: list[int],
                              totals: np.ndarray, vocabulary: int, messages: np.ndarray,
                              options: TrainOptions, blocks: int = 5,
                              copies: list[int] | None = None) -> np.ndarray:
    """blocked_raw_scores, for messages given as token keys (see held_out_raw_scores_by_key)."""
    return each_block_held_out(labels, blocks, lambda members: held_out_raw_scores_by_key(
        columns, [documents[i] for i in members], [labels[i] for i in members], totals, vocabulary,
        messages, options, None if copies is None else [copies[i] for i in members]))


def time_blocks(labels: list[int], blocks: int = 5) -> np.ndarray:
    """The block of each message: each class's messages, in the order given,
    cut into `blocks` runs of (nearly) equal size."""
    labels_array = np.asarray(labels)
    block_of = np.zeros(len(labels), dtype=np.intp)
    for label in (HAM, SPAM):
        members = np.flatnonzero(labels_array == label)
        block_of[members] = np.arange(len(members)) * blocks // max(len(members), 1)
    return block_of


# Forward chaining scores the time blocks from this one on: the first two only
# teach.  Measured on trec06p (train on the first 5,000 / 10,000, judge every
# later message at a spam cutoff of 0.99; the best cutoff losing <= 0.1 % of
# that ham flags 94.9 / 99.4 % of the spam): calibrated on blocks 1-4, 0.058 /
# 0.000 % of the ham lost, 94.6 / 96.2 % of the spam flagged; on blocks 2-4,
# 0.019 / 0.000 % and 94.3 / 97.6 %: a model of a fifth of the mail is
# weaker than the one calibration serves.  Blocks scored by all the other
# mail, later blocks included (the rule before), lost 0.29 % at 5,000: they
# never see what drift does.
FIRST_SCORED_BLOCK = 2


def each_block_held_out(labels: list[int], blocks: int, held_out) -> np.ndarray:
    """Every message's score from a model of the mail that came before it
    (forward chaining): for each time block (time_blocks) from
    FIRST_SCORED_BLOCK on, `held_out(members)` is called with the indices of
    that block's messages followed by those of every later block, all taken
    out of the counts, and the scores of the block's own are kept.  Earlier
    blocks only teach: their messages score NaN (scoring.NO_EVIDENCE), which
    calibration leaves out as it leaves out a message with no evidence.
    The blocks are of the messages given: `train` gives its calibration
    sample, every message up to training.CALIBRATION_SAMPLE (10,000) and a
    uniform sample of a larger training set, whose messages outside the
    sample stay in the counts, later ones included (a fifth of the later
    mail at 12,500 messages, 29 % at 14,000): past 10,000 the chaining is
    forward for the sample alone."""
    block_of = time_blocks(labels, blocks)
    out = np.full(len(labels), np.nan)
    for block in range(min(FIRST_SCORED_BLOCK, blocks - 1), blocks):
        members = np.flatnonzero(block_of == block)
        if len(members):
            out[members] = held_out(np.concatenate([members, np.flatnonzero(block_of > block)]))[:len(members)]
    return out


def blocked_raw_scores(counts: TokenCounts, documents: list[list[str]], labels: list[int],
                       options: TrainOptions, selected: np.ndarray | None = None,
                       blocks: int = 5, copies: list[int] | None = None) -> np.ndarray:
    """held_out_raw_scores for every message, a block at a time: each class's
    messages, in the order given (the order they were read: delivery order
    for a Maildir or an mbox), cut into `blocks` runs, and each run scored
    by the counts without it and without every run after it
    (each_block_held_out).  Every message gets the score a model of the
    mail before it gave: what calibration and cutoffs are fitted on is how
    a model meets the mail that comes after it, drift included."""
    return each_block_held_out(labels, blocks, lambda members: held_out_raw_scores(
        counts, [documents[i] for i in members], [labels[i] for i in members], options, selected,
        None if copies is None else [copies[i] for i in members]))


class Model(Scorer):
    """A trained naive Bayes spam model: the counts, and a Scorer built on them."""

    # Set by load() for a model read from a file (declared for the type checker).
    _file_size: int
    _messages: np.ndarray

    def __init__(self, counts: TokenCounts, options: TrainOptions,
                 cutoffs: Cutoffs | None = None, meta: dict | None = None) -> None:
        super().__init__(options, cutoffs, meta)
        self._counts = counts
        self._sections: dict[str, np.ndarray] | None = None
        self._selected: np.ndarray | None = None  # feature selection of the last refresh
        self.recent_raw = np.zeros(0)  # see RECENT_SCORES
        self.recent_labels = np.zeros(0, dtype=np.uint8)

    # -- building -----------------------------------------------------------

    @classmethod
    def from_counts(cls, counts: TokenCounts, options: TrainOptions,
                    cutoffs: Cutoffs | None = None) -> "Model":
        model = cls(counts, options, cutoffs)
        model.refresh()
        return model

    @classmethod
    def empty(cls, options: TrainOptions) -> "Model":
        """A model that has learned nothing yet (`learn` into a new file):
        it scores every message unsure until it has seen spam and ham."""
        return cls.from_counts(TokenCounts(), options)

    def refresh(self, keep_calibration: bool = False) -> None:
        """Recompute weights and the scoring sections after the counts changed.

        The counts are put in key order first (modelfile.py): then row i of
        every section is the same token, and equal counts give an equal file.
        `keep_calibration`: after learning a few messages the fitted mapping
        from raw score to probability (and the cutoffs tuned with it) still
        holds; after training from scratch it is refitted.
        """
        counts = self._counts
        present = (counts.occurrences.sum(axis=0) + counts.documents.sum(axis=0)) > 0
        if not present.all():
            # A token no message holds is not in the vocabulary V (an import may
            # list one): V, and the journal's count of it, stay what learning says.
            counts = self._counts = counts.subset(present)
        keys = counts.keys
        order = np.argsort(keys, kind="stable")
        if (order != np.arange(len(order))).any():
            counts = self._counts = counts.take(order)
            keys = keys[order]
        if len(keys) > 1 and (keys[1:] == keys[:-1]).any():
            at = int(np.flatnonzero(keys[1:] == keys[:-1])[0])
            # A model with two equal keys could be written but never loaded again.
            raise ValueError(f"tokens {counts.tokens[at]!r} and {counts.tokens[at + 1]!r} share a key")
        self._selected = self._selection(counts)
        encoded = [token.encode("utf-8", "surrogatepass") for token in counts.tokens]
        digests = np.fromiter(counts.learned.keys(), dtype=np.uint64, count=len(counts.learned))
        classes = np.fromiter(counts.learned.values(), dtype=np.uint8, count=len(counts.learned))
        order = np.argsort(digests)
        self._set_sections(keys, counts.occurrences, counts.documents, counts.messages, counts.last_seen,
                           np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)),
                           np.frombuffer(b"".join(encoded), dtype=np.uint8), digests[order], classes[order],
                           keep_calibration)

    def _set_sections(self, keys, occurrences, documents, messages, last_seen, token_lengths, token_bytes,
                      digests, digest_classes, keep_calibration: bool) -> None:
        """The file's sections from the counts in key order (self._selected already set):
        the weights, the block index and checksums, and the counts as stored."""
        computed = weights_of_arrays(occurrences, documents, messages, self.options.event_model,
                                     self.options.alpha, self.options.robinson, self.options.min_strength)
        if not (np.isfinite(computed.weights).all() and np.isfinite(computed.bias)):
            raise ValueError("the weights are not finite numbers; is alpha reasonable?")
        assert self._selected is not None  # set by the caller
        weights = np.where(self._selected, computed.weights, 0.0).astype("<f4")
        keys = keys.astype("<u8")
        self._sections = {
            "keys": keys,
            "weights": weights,
            "block_first": keys[::BLOCK_KEYS].copy(),
            "block_crcs": np.array(block_crcs(keys.tobytes(), weights.tobytes(), BLOCK_KEYS), dtype="<u4"),
            "token_lengths": check_u4("token lengths", token_lengths),
            "token_bytes": token_bytes,
            "occurrences": _narrow(check_u4("occurrence counts", occurrences)),
            "documents": check_u4("document counts", documents),
            "last_seen": last_seen.astype("<u4"),
            "digests": digests.astype("<u8"),
            "digest_classes": digest_classes.astype(np.uint8),
            "recent_raw": self.recent_raw.astype("<f8"),
            "recent_labels": self.recent_labels.astype(np.uint8),
        }
        self.bias = computed.bias
        self.meta["block_size"] = BLOCK_KEYS
        if not keep_calibration:
            self.meta.pop("calibration", None)  # fitted to the old counts
        self._table = None

    def _selection(self, counts: TokenCounts) -> np.ndarray:
        """Which tokens may weigh: feature selection, then the keyword list if any."""
        selected = selected_features(counts.documents, counts.messages, self.options.min_df,
                                     self.options.max_features)
        if self.options.keywords:
            keywords = self.options.keywords
            selected &= np.fromiter((token in keywords for token in counts.tokens), dtype=bool,
                                    count=len(counts.tokens))
        return selected

    # -- reading and writing -------------------------------------------------

    @classmethod
    def open(cls, path: str | os.PathLike, model_file=None, base=None) -> "Model":
        """A Model holds every count, so opening one is loading it whole
        (Scorer.open maps a model for scoring only)."""
        return cls.load(path)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Model":
        """Read a whole model, checking every byte (scoring alone: Scorer.open)."""
        model_file = read_model(path)
        meta = model_file.meta
        try:
            check_scoring_meta(meta)
            model = cls(None, options_from_meta(meta), cutoffs_from_meta(meta), meta)  # type: ignore[arg-type]
            messages = meta["messages"]
            if not (isinstance(messages, list) and len(messages) == 2
                    and all(isinstance(m, int) and not isinstance(m, bool) and 0 <= m < 2**62 for m in messages)):
                raise ValueError("message counts are not two whole numbers")
            # Copied out of the mapping: a long-lived reader (serve) must not
            # see, or die of (SIGBUS), a file rewritten in place by `cp`.
            # token_bytes last: its stated size is checked against the
            # token lengths before it is decompressed (modelfile.check_layout).
            model._sections = {}
            for name in sorted(meta["sections"], key=lambda name: name == "token_bytes"):
                if name == "token_bytes" and "token_lengths" in model._sections:
                    lengths = model._sections["token_lengths"]
                    if lengths.size and int(lengths.max()) > MAX_TOKEN_BYTES:
                        raise ValueError("a token is longer than any token spamnb makes")
                    if int(lengths.sum(dtype=np.int64)) != meta["sections"]["token_bytes"]["shape"][0]:
                        raise ValueError("token lengths disagree with the token bytes")
                model._sections[name] = np.array(model_file.array(name))
            model._file_size = model_file.size
            model.bias = float(meta["bias"])
            model._messages = np.array(messages, dtype=np.int64)
            model._check_structure()
            model.recent_raw = model._sections.get("recent_raw", np.zeros(0)).astype(np.float64)
            model.recent_labels = model._sections.get("recent_labels", np.zeros(0, dtype=np.uint8))
            state, _torn = model_file.journal()
            if state:
                model._apply_journal(state)
            model.table  # noqa: B018 -- the property builds the lookup now, not at the first message
        except (KeyError, TypeError, ValueError, IndexError, ArithmeticError) as error:
            raise ModelError(f"model {path} is not usable ({error}); retrain it") from None
        return model

    def _apply_journal(self, state) -> None:
        """Fold the learning recorded in the journal (journal.py) into the counts,
        giving the model a full retrain on the same messages would."""
        if self._counts is None and not self.options.keywords:
            self._fold_journal(state)
            return
        counts = self.counts
        base_keys = counts.keys
        keys, changes, days, at, found, new = _journal_changes(state, base_keys)
        tokens = counts.tokens + [state.new_tokens[int(key)] for key in keys[new]]
        occurrences = np.concatenate([counts.occurrences, changes[new][:, 0:2].T], axis=1)
        documents = np.concatenate([counts.documents, changes[new][:, 2:4].T], axis=1)
        last_seen = np.concatenate([counts.last_seen, days[new]])
        occurrences[:, at[found]] += changes[found][:, 0:2].T
        documents[:, at[found]] += changes[found][:, 2:4].T
        last_seen[at[found]] = np.maximum(last_seen[at[found]], days[found])
        messages = counts.messages + np.asarray(state.messages, dtype=np.int64)
        if occurrences.min(initial=0) < 0 or documents.min(initial=0) < 0 or messages.min() < 0:
            raise ValueError("the journal takes out more than the model holds")
        merged = TokenCounts.from_arrays(tokens, occurrences, documents, messages, last_seen,
                                         np.concatenate([base_keys, keys[new]]))
        learned = dict(counts.learned)
        for digest, label in state.learned.items():
            if label < 0:
                learned.pop(digest, None)
            else:
                learned[digest] = label
        merged.learned = learned
        present = (occurrences.sum(axis=0) + documents.sum(axis=0)) > 0
        self._counts = merged if present.all() else merged.subset(present)
        if state.recent:
            raw, labels = zip(*state.recent)
            self.recent_raw = np.concatenate([self.recent_raw, raw])[-RECENT_SCORES:]
            self.recent_labels = np.concatenate([self.recent_labels,
                                                 np.asarray(labels, dtype=np.uint8)])[-RECENT_SCORES:]
        # Calibration stays the base's, as every reader of the file sees it
        # (scorer.LiveTable); incremental.compact refits.
        self.refresh(keep_calibration=True)

    def _fold_journal(self, state) -> None:
        """_apply_journal on the stored arrays, the tokens' text left as bytes:
        what `learn` does every COMPACT_BYTES of journal (incremental.compact).
        Decoding every token into a Python string and back cost a compaction
        2.9 of its 3.9 s CPU on a 25 MB model (860,000 tokens; cProfile,
        BENCHMARKS.md "Online through the command line"); here the changed
        tokens are added in place and the new ones inserted at their key's
        place, O(vocabulary) in numpy.  The sections are those the other path
        writes, byte for byte (tests/model/test_journal_fold.py).  Not with a
        keyword list, which selects tokens by their text."""
        s = self._sections
        assert s is not None  # loaded
        base_keys = s["keys"].astype(np.uint64)
        keys, changes, days, at, found, new = _journal_changes(state, base_keys)
        occurrences = s["occurrences"].astype(np.int64)
        documents = s["documents"].astype(np.int64)
        last_seen = s["last_seen"].astype(np.int64)
        occurrences[:, at[found]] += changes[found][:, 0:2].T
        documents[:, at[found]] += changes[found][:, 2:4].T
        last_seen[at[found]] = np.maximum(last_seen[at[found]], days[found])
        lengths = s["token_lengths"].astype(np.int64)
        token_bytes = s["token_bytes"]
        # The new tokens, in key order, each inserted before the first base key above it.
        order = np.argsort(keys[new], kind="stable")
        new_keys, new_changes, new_days = keys[new][order], changes[new][order], days[new][order]
        encoded = [state.new_tokens[key].encode("utf-8", "surrogatepass") for key in new_keys.tolist()]
        new_lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
        place = np.searchsorted(base_keys, new_keys)
        starts = np.concatenate([[0], np.cumsum(lengths)])
        token_bytes = np.insert(token_bytes, np.repeat(starts[place], new_lengths),
                                np.frombuffer(b"".join(encoded), dtype=np.uint8))
        keys = np.insert(base_keys, place, new_keys)
        lengths = np.insert(lengths, place, new_lengths)
        occurrences = np.insert(occurrences, place, new_changes[:, 0:2].T, axis=1)
        documents = np.insert(documents, place, new_changes[:, 2:4].T, axis=1)
        last_seen = np.insert(last_seen, place, new_days)
        messages = self._messages + np.asarray(state.messages, dtype=np.int64)
        if occurrences.min(initial=0) < 0 or documents.min(initial=0) < 0 or messages.min() < 0:
            raise ValueError("the journal takes out more than the model holds")
        present = (occurrences.sum(axis=0) + documents.sum(axis=0)) > 0
        if not present.all():  # every message that held them forgotten: they leave V
            token_bytes = token_bytes[np.repeat(present, lengths)]
            keys, lengths, last_seen = keys[present], lengths[present], last_seen[present]
            occurrences, documents = occurrences[:, present], documents[:, present]
        learned = dict(zip(s["digests"].tolist(), s["digest_classes"].tolist())) if "digests" in s else {}
        for digest, label in state.learned.items():
            if label < 0:
                learned.pop(digest, None)
            else:
                learned[digest] = label
        digests = np.fromiter(learned.keys(), dtype=np.uint64, count=len(learned))
        classes = np.fromiter(learned.values(), dtype=np.uint8, count=len(learned))
        by_digest = np.argsort(digests)
        if state.recent:
            raw, labels = zip(*state.recent)
            self.recent_raw = np.concatenate([self.recent_raw, raw])[-RECENT_SCORES:]
            self.recent_labels = np.concatenate([self.recent_labels,
                                                 np.asarray(labels, dtype=np.uint8)])[-RECENT_SCORES:]
        self._messages = messages
        self._selected = selected_features(documents, messages, self.options.min_df, self.options.max_features)
        # Calibration stays the base's, as every reader of the file sees it
        # (scorer.LiveTable); incremental.compact refits.
        self._set_sections(keys, occurrences, documents, messages, last_seen.astype(np.uint32), lengths,
                           token_bytes, digests[by_digest], classes[by_digest], keep_calibration=True)

    def _check_structure(self) -> None:
        """Section shapes and values consistent with the vocabulary size.

        The checksum proves the file is what was written; this proves what
        was written is a model (a hand-made or foreign-tool file could pass
        the checksum and still index out of range).
        """
        check_tokenizer_version(self.meta)
        assert self._sections is not None  # refreshed or loaded
        s = self._sections
        size = len(s["keys"])
        blocks = -(-size // int(self.meta["block_size"])) if int(self.meta["block_size"]) > 0 else -1
        expected = {"weights": (size,), "token_lengths": (size,), "occurrences": (2, size),
                    "documents": (2, size), "last_seen": (size,), "block_first": (blocks,),
                    "block_crcs": (blocks,)}
        for name, shape in expected.items():
            if s[name].shape != shape:
                raise ValueError(f"section {name} has shape {s[name].shape}, expected {shape}")
        if int(s["token_lengths"].sum(dtype=np.int64)) != len(s["token_bytes"]):
            raise ValueError("token lengths disagree with the token bytes")
        # Compared, not np.diff: a difference of unsigned keys wraps around
        # and is never negative, so keys in reverse order passed.
        if (s["keys"][1:] <= s["keys"][:-1]).any():
            raise ValueError("token keys out of order or repeated")
        if not np.array_equal(s["block_first"], s["keys"][::int(self.meta["block_size"])]):
            raise ValueError("the block index disagrees with the keys")
        if not np.isfinite(s["weights"]).all():
            raise ValueError("weights out of range")
        if not np.isfinite(self.bias):
            raise ValueError("bias is not a finite number")
        if "digests" in s and s["digests"].shape != s["digest_classes"].shape:
            raise ValueError("digest sections disagree")
        if s.get("recent_raw", np.zeros(0)).shape != s.get("recent_labels", np.zeros(0)).shape:
            raise ValueError("recent score sections disagree")
        if not np.isfinite(s.get("recent_raw", np.zeros(0))).all() or (s.get("recent_labels", np.zeros(0)) > 1).any():
            raise ValueError("recent scores out of range")

    def save(self, path: str | os.PathLike, level: int = 6) -> None:
        """Write the model atomically (see modelfile.write_model), its
        compressed sections at zlib `level`."""
        assert self._sections is not None
        meta = file_meta(self.meta, self.options, self.messages, self.bias, self.cutoffs,
                         len(self._sections["weights"]), self._sections["occurrences"].sum(axis=1, dtype=np.int64))
        write_model(path, meta, self._sections, COMPRESSED, level)
        self.meta = meta

    # -- what is in it -------------------------------------------------------

    @property
    def counts(self) -> TokenCounts:
        """The full counts (decodes every token; not needed for scoring)."""
        if self._counts is None:
            assert self._sections is not None  # refreshed or loaded
            s = self._sections
            raw = s["token_bytes"].tobytes()
            ends = np.cumsum(s["token_lengths"], dtype=np.int64).tolist()
            tokens = [raw[a:b].decode("utf-8", "surrogatepass") for a, b in zip([0, *ends], ends)]
            self._counts = TokenCounts.from_arrays(tokens, s["occurrences"], s["documents"],
                                                   self._messages, s["last_seen"], s["keys"])
            if "digests" in s:
                self._counts.learned = dict(zip(s["digests"].tolist(), s["digest_classes"].tolist()))
        return self._counts

    @property
    def messages(self) -> np.ndarray:
        """Messages learned per class, [ham, spam]."""
        if self._counts is not None:
            return self._counts.messages
        return self._messages

    @property
    def vocabulary_size(self) -> int:
        assert self._sections is not None  # refreshed or loaded
        return len(self._sections["weights"])

    @property
    def weights(self) -> np.ndarray:
        """λ_w in key order (as stored: 32-bit floats)."""
        assert self._sections is not None  # refreshed or loaded
        return self._sections["weights"]

    @property
    def table(self) -> WeightTable:
        if self._table is None:
            assert self._sections is not None  # refreshed or loaded
            self._table = WeightTable(*(self._sections[name] for name in SCORING_SECTIONS[:3]),  # type: ignore[misc, arg-type]  # the star fills the arrays only
                                      block_size=int(self.meta["block_size"]))
        return self._table  # type: ignore[return-value]  # a LiveTable scores as a WeightTable does

    def calibrate(self, documents: list[list[str]], labels: list[int], copies: list[int] | None = None
                  ) -> dict | None:
        """Fit P(spam) = σ(a · raw + c) on held-out scores of training messages.

        The messages (in the order read) are cut into blocks of time per
        class, and each block from the third on is scored with the counts of
        the blocks before it (blocked_raw_scores, each_block_held_out): the
        score a model gave mail that came after what it had learned, as
        tomorrow's mail will meet this one.  Blocks scored by all the other
        mail, later blocks included, never showed drift: trained on
        trec06p's first 5,000 messages, cutoffs fitted on them lost 1.30 % of
        the later ham (bench/verdicts.py).  (The Bernoulli bias's
        absent-token sum is not recomputed per block.)  `copies`: how many
        times each message was counted (see held_out_raw_scores).  None, and
        no calibration, when the scored blocks lack a class.
        """
        # The model's own feature selection.  Not `weights != 0`: a token too
        # weak for min_strength in the whole model may be strong without this
        # block, and the held-out weights are recomputed like any other.
        # (min_df and max_features select on the whole model's counts.)
        if self._selected is None:  # a loaded model: its counts, as refresh would select
            self._selected = self._selection(self.counts)
        raw = blocked_raw_scores(self.counts, documents, labels, self.options, self._selected, copies=copies)
        return self.fit_calibration(raw, labels)

    def fit_calibration(self, raw: np.ndarray, labels: list[int]) -> dict | None:
        """Fit P(spam) = σ(a · raw + c) on held-out raw scores (see calibrate);
        None, and no calibration, when they hold no scored message of one
        class (a few messages, or none with evidence, after the first blocks)."""
        raw = np.asarray(raw, dtype=np.float64)
        if len(set(np.asarray(labels)[~np.isnan(raw)].tolist())) < 2:
            self.meta.pop("calibration", None)
            self.held_out_log_odds = None
            return None
        scale, offset = fit_platt(raw, np.asarray(labels))
        self.meta["calibration"] = {"scale": scale, "offset": offset, "messages": len(labels)}
        rule = self.rule
        self.held_out_log_odds = rule.offset + rule.scale * raw  # an unscored message (NaN) stays NaN
        return self.meta["calibration"]

    def record_recent(self, raw: float, label: int) -> None:
        """Keep the score a message had before it was learned (the last
        RECENT_SCORES); one with no evidence (NaN) tells calibration nothing."""
        if raw != raw:
            return
        self.recent_raw = np.append(self.recent_raw, raw)[-RECENT_SCORES:]
        self.recent_labels = np.append(self.recent_labels, np.uint8(label))[-RECENT_SCORES:]

    def refit_from_recent(self) -> bool:
        """Refit calibration on the recorded scores of learned mail.

        Those scores came from the model before it saw each message, so they
        are what the model says of new mail, drift included: the forward
        chaining that `train` calibrates on (each_block_held_out), a message
        at a time.  A model that `learn` built from nothing refits as soon as
        it has RECENT_MINIMUM of each class on record; one calibrated by
        `train` keeps that calibration until RECENT_SCORES are on record,
        then follows them.  The cutoffs stay, unless `evaluate --tune` set
        them (`cutoffs_tuned`: tuned again at the same rates) or they were
        fitted (`cutoffs_fitted`, or a model learned from nothing: fitted
        again by the same rule, calibration.fit_cutoffs).
        """
        labels = self.recent_labels.astype(np.int64)
        if min(int((labels == HAM).sum()), int((labels == SPAM).sum())) < RECENT_MINIMUM:
            return False
        calibration = self.meta.get("calibration")
        trained = calibration is not None and calibration.get("source") != "learned"
        if trained and len(labels) < RECENT_SCORES:
            return False
        scale, offset = fit_platt(self.recent_raw, labels)
        self.meta["calibration"] = {"scale": scale, "offset": offset, "messages": len(labels),
                                    "source": "learned"}
        log_odds = self.rule.log_odds(self.recent_raw)
        tuned = self.meta.get("cutoffs_tuned")
        if tuned is not None and "by" in tuned:  # evaluate --tune's: the user's rates, kept
            max_fpr, max_fnr = tuned.get("max_fpr", 0.001), tuned.get("max_fnr", 0.005)
            spam, ham = tune_cutoffs(log_odds, labels, max_fpr, max_fnr)
            self.cutoffs = Cutoffs(spam=spam, ham=ham)
            self.meta["cutoffs_tuned"] = {**tuned, "messages": len(labels), "source": "learned"}
        # Fitted by the rule (by train, by an earlier refit, or by an older train, whose
        # tuned cutoffs carry no "by"), or a model learn built from nothing (no
        # calibration before this one).  Cutoffs a user set by hand stay: they have none
        # of these marks and a calibration of their train's.
        elif "cutoffs_fitted" in self.meta or tuned is not None or calibration is None:
            self.meta.pop("cutoffs_tuned", None)
            self._set_fitted_cutoffs(log_odds, labels, "learned")
        return True

    def fit_cutoffs(self, labels: list[int]) -> Cutoffs:
        """Set the cutoffs from the held-out scores of the last `calibrate`
        (calibration.fit_cutoffs); `learn` refits them the same way on the
        scores learned mail had (refit_from_recent)."""
        if self.held_out_log_odds is None:  # not calibrated: nothing to fit them on
            self.cutoffs = Cutoffs()
            return self.cutoffs
        self._set_fitted_cutoffs(self.held_out_log_odds, np.asarray(labels), "train")
        return self.cutoffs

    def _set_fitted_cutoffs(self, log_odds: np.ndarray, labels: np.ndarray, source: str) -> None:
        """calibration.fit_cutoffs on scores of mail the model had not seen, and
        a record of what they were fitted on: the scored messages (held-out
        blocks that only teach, and messages with no evidence, are not) and
        whether there were ham enough to fit the spam cutoff at all."""
        spam, ham = fit_cutoffs(log_odds, labels)
        self.cutoffs = Cutoffs(spam=spam, ham=ham)
        scored = ~np.isnan(np.asarray(log_odds, dtype=np.float64))
        scored_ham = int((scored & (np.asarray(labels) == HAM)).sum())
        self.meta["cutoffs_fitted"] = {"messages": int(scored.sum()), "ham": scored_ham,
                                       "spam_fitted": scored_ham >= FIT_MINIMUM_HAM, "source": source}

    def lookup(self, token: str) -> dict | None:
        """Weight and counts of one token, or None if the model never saw it."""
        index = self.table.index(token)
        return None if index < 0 else self._row(index, token)

    def weight_note(self, token: str, row: dict | None) -> str | None:
        """Why a looked-up token weighs nothing, in words (None when it weighs):
        never counted (a stop word), never seen, or the rule that set its λ
        to 0 (keyword list, feature selection, minimum strength)."""
        options = self.options
        if row is None:
            if token in options.tokenizer.stopwords:
                return "a stop word: never counted"
            return "never seen in training"
        if row["weight"] != 0:
            return None
        if self.messages.min() <= 0:
            return "the model has not seen both spam and ham yet: every weight is 0"
        if options.keywords and token not in options.keywords:
            return "not on the keyword list (--keywords): weighs 0"
        in_messages = row["spam_messages"] + row["ham_messages"]
        if options.min_df > 1 and in_messages < options.min_df:
            return f"in {in_messages:,} messages, fewer than --min-df {options.min_df}: weighs 0"
        assert self._sections is not None  # refreshed or loaded
        s = self._sections
        index = self.table.index(token)
        strength, _ = token_weights(s["occurrences"][:, [index]].astype(np.float64),
                                    s["documents"][:, [index]].astype(np.float64),
                                    self.messages.astype(np.float64),
                                    s["occurrences"].sum(axis=1, dtype=np.int64).astype(np.float64),
                                    self.vocabulary_size, options.event_model, options.alpha,
                                    options.robinson, 0.0)
        weight = float(strength[0])
        if options.min_strength > 0 and abs(weight) < options.min_strength:
            return f"|λ| = {abs(weight):.3f} < --min-strength {options.min_strength:g}"
        if options.max_features:
            return f"not among the --max-features {options.max_features:,} most informative tokens: weighs 0"
        if weight == 0:
            return "as often in spam as in ham: λ = 0"
        return None

    def _row(self, index: int, token: str) -> dict:
        assert self._sections is not None  # refreshed or loaded
        s = self._sections
        return {"token": token, "weight": float(s["weights"][index]),
                "spam_count": int(s["occurrences"][SPAM, index]),
                "ham_count": int(s["occurrences"][HAM, index]),
                "spam_messages": int(s["documents"][SPAM, index]),
                "ham_messages": int(s["documents"][HAM, index])}

    # -- inspection ------------------------------------------------------------

    def summary(self) -> dict:
        assert self._sections is not None  # refreshed or loaded
        tokenizer = self.options.tokenizer
        return {
            "messages": {"spam": int(self.messages[SPAM]), "ham": int(self.messages[HAM])},
            "vocabulary": self.vocabulary_size,
            "event_model": self.options.event_model,
            "alpha": self.options.alpha,
            "robinson": self.options.robinson,
            "normalize": self.options.normalize,
            "top_k": self.options.top_k,
            "min_strength": self.options.min_strength,
            "retrain_margin": self.options.retrain_margin,
            "bigrams": tokenizer.bigrams,
            "calibration": self.meta.get("calibration"),
            "bias": self.bias,
            "cutoffs": {"spam": self.cutoffs.spam, "ham": self.cutoffs.ham, "set_by": self.cutoffs_set_by()},
            "headers": list(tokenizer.headers),
            "stopwords": len(tokenizer.stopwords),
            "keywords": len(self.options.keywords),
            "created": self.meta.get("created"),
            "updated": self.meta.get("updated"),
            "learned_digests": len(self._sections.get("digests", ())),
            "file_bytes": getattr(self, "_file_size", None),
        }

    def cutoffs_set_by(self) -> str:
        """Where the cutoffs came from, in a few words (inspect prints them
        on the cutoffs' line, within 80 columns)."""
        tuned, fitted = self.meta.get("cutoffs_tuned"), self.meta.get("cutoffs_fitted")
        if tuned is not None and "by" in tuned:
            how = f"tuned at {100 * tuned.get('max_fpr', 0.001):g} % ham lost"
            if tuned.get("source") == "learned":
                how += f"; {tuned.get('messages', 0):,} learned"
            return how
        if tuned is not None:
            return "an older train's: retrain"
        if fitted is not None:
            kind = "learned" if fitted.get("source") == "learned" else "held-out"
            if fitted.get("spam_fitted") is False:
                return f"default: {fitted.get('ham', 0):,} {kind} ham, too few to fit"
            return f"fitted on {fitted.get('messages', 0):,} {kind} messages"
        return "set by hand" if self.meta.get("calibration") else "defaults"

    def top_tokens(self, n: int, spam: bool = True) -> list[dict]:
        """The n tokens with the largest (spam) or smallest (ham) weight."""
        weights = self.weights
        n = min(n, len(weights))
        if n <= 0:
            return []
        keys = -weights if spam else weights
        chosen = np.argpartition(keys, n - 1)[:n]
        chosen = chosen[np.argsort(keys[chosen], kind="stable")]
        tokens = self.counts.tokens
        return [self._row(index, tokens[index]) for index in chosen.tolist()]


def messages_on_record(path: str | os.PathLike) -> dict[int, int] | None:
    """The messages a model file holds, digest → class, journal included; None
    when there is no model there, or none that can be read (nothing in it can
    be kept then).  Reads only the digest sections, not the vocabulary."""
    try:
        model_file = read_model(path)
        learned: dict[int, int] = {}
        if "digests" in model_file.meta.get("sections", {}):
            learned = dict(zip(model_file.array("digests").tolist(), model_file.array("digest_classes").tolist()))
        state, _ = model_file.journal()
        for digest, label in state.learned.items():
            if label < 0:
                learned.pop(digest, None)
            else:
                learned[digest] = label
        return learned
    except (ModelError, KeyError, TypeError, ValueError, IndexError):
        return None


def messages_lost(before: dict[int, int] | None, after: dict[int, int]) -> int:
    """How many messages on record `before` are not in `after` with the same label:
    what replacing the first model by the second would make it forget."""
    if not before:
        return 0
    return sum(1 for digest, label in before.items() if after.get(digest) != label)
