"""Raw scores of training messages as a model without them gives them: what
calibration and cutoffs are fitted on.

A message a model was trained on scores surer than new mail will.  So each
is scored by the counts without it (held_out_raw_scores), and, since
tomorrow's mail meets a model of yesterday's, without the mail that came
after it either: each class's messages, in the order read, are cut into time
blocks and each block is scored by the blocks before it (forward chaining:
time_blocks, each_block_held_out, blocked_raw_scores).  raw_score_from_counts
scores one message straight from counts, for online evaluation.  keyscores.py
does the same for messages given as token keys, at any vocabulary size.
"""

from __future__ import annotations

from collections import Counter
from itertools import chain

import numpy as np

from .counts import TokenCounts
from .labels import HAM, SPAM
from .options import TrainOptions, presence_scoring
from .scoring import ScoringRule
from .weights import token_weights


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
# mail, later blocks included, lost 0.29 % at 5,000: they
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
