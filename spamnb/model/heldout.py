"""Raw scores of training messages as a model without them gives them: what
calibration and cutoffs are fitted on.

A message a model was trained on scores surer than new mail will.  So each
is scored by the counts without it (held_out_raw_scores_by_key), and, since
tomorrow's mail meets a model of yesterday's, without the mail that came
after it either: each class's messages, in the order read, are cut into time
blocks and each block is scored by the blocks before it (forward chaining:
time_blocks, each_block_held_out, blocked_raw_scores_by_key).  Messages are
given as token keys and scored by keyscores.py, at any vocabulary size:
`train`'s sample as its workers keyed it, token lists by their keys
(keyscores.keys_of).
"""

from __future__ import annotations

import numpy as np

from .keyscores import SCORED_TOGETHER, KeyBags, KeyColumns, key_positions, raw_scores_of_bags
from .labels import HAM, SPAM
from .options import TrainOptions


def held_out_raw_scores_by_key(columns: KeyColumns, documents: list[np.ndarray], labels: list[int],
                               totals: np.ndarray, vocabulary: int, messages: np.ndarray,
                               options: TrainOptions, copies: list[int] | None = None,
                               scored: int | None = None) -> np.ndarray:
    """Raw scores of a block of training messages (as token keys) from the
    counts without the whole block: what a model trained on the rest would
    have said of them.  With the block the most recent mail, that is the
    score of mail that came after the model, drift included, where
    leave-one-out keeps each message's own campaign (its neighbours in time)
    in the model.  The model is given as the columns of the block's keys
    (KeyColumns) plus its per-class totals Σ_w N_cw, vocabulary size V and
    message counts: only the block's own tokens change when it is taken
    out, the totals lose what the block held, and V loses the tokens only
    the block had (tests/model/test_calibration.py checks the scores
    against retraining without the block).
    `copies`: how many times each message's occurrences were counted (2 for
    a near error counted again, TrainOptions.retrain_margin); all of them are
    taken out, else a twice-counted message would still be in the model that
    scores it (its document and message counts are counted once).
    `scored`: only the first `scored` documents are scored (None: all); the
    rest are taken out of the counts alone (each_block_held_out's later
    blocks, whose scores forward chaining does not keep)."""
    bags = KeyBags.of(documents)
    # What is made here for each entry of the bags (millions for a sample's
    # first held-out block) is the largest part of calibration's memory: one
    # array at a time, and the counts taken out a group of messages at a time.
    at = key_positions(columns.keys, bags.keys)
    for part in range(0, len(at), SCORED_TOGETHER * 1024):
        piece = at[part:part + SCORED_TOGETHER * 1024]
        if (piece >= len(columns.keys)).any() or \
                (columns.keys[np.minimum(piece, len(columns.keys) - 1)] != bags.keys[part:part + len(piece)]).any():
            raise ValueError("held-out scores need messages the model was trained on")
    # Only the block's own columns change or are scored: the rest are left out
    # (a fifth of the sample's columns, not all of them, in memory at once).
    # np.unique(at, return_inverse=True) by marking: no sort.
    present = np.zeros(len(columns.keys), dtype=bool)
    present[at] = True
    mine = np.flatnonzero(present)
    # Each entry's place among the block's columns, 4 bytes an entry where that
    # is room enough; the running count made in that type and shifted in place
    # (cumsum's default int64 and its copies were 20 bytes a column at once).
    places = np.cumsum(present, dtype=np.int32 if len(present) < 2**31 else np.intp)
    np.subtract(places, 1, out=places)
    ids = places[at]
    del places
    del at
    # Copies in the counts' own type (32 bits from training's store): every
    # count holds what the block took out of it, so none goes below 0, and
    # raw_scores_of_bags weighs them as 64-bit integers a piece at a time.
    # ndarray.take, not [:, mine]: a row-major copy (fancy indexing makes it
    # column-major), so that the flat views below are views, not a third copy.
    columns = KeyColumns(columns.keys[mine], columns.occurrences.take(mine, axis=1),
                         columns.documents.take(mine, axis=1), columns.selected[mine])
    del mine
    label = np.asarray(labels, dtype=np.intp)
    copied = np.ones(len(bags), dtype=np.int64) if copies is None else np.asarray(copies, dtype=np.int64)
    occurrences, document_counts = columns.occurrences, columns.documents  # copies already
    # Taken out through flat views, by flat index (row × width + column), with
    # an array of amounts of the array's own type: numpy's fast path of
    # ufunc.at, which a (row, column) index or a scalar amount misses (10 to
    # 25 times slower).
    width = len(columns.keys)
    flat_occurrences, flat_documents = occurrences.reshape(-1), document_counts.reshape(-1)
    assert occurrences.flags.c_contiguous and document_counts.flags.c_contiguous  # so the flat ones are views
    removed = np.zeros(2, dtype=np.int64)
    for group in range(0, len(bags), SCORED_TOGETHER):
        members = slice(group, group + SCORED_TOGETHER)
        last = min(group + SCORED_TOGETHER, len(bags)) - 1
        entries = slice(int(bags.starts[group]), int(bags.starts[last] + bags.sizes[last]))
        sizes = bags.sizes[members]
        entry_label = np.repeat(label[members], sizes)
        taken = bags.counts[entries].astype(np.int64) * np.repeat(copied[members], sizes)  # every copy
        flat = entry_label * width + ids[entries]
        np.subtract.at(flat_occurrences, flat, taken.astype(occurrences.dtype))  # (occurrences only)
        np.subtract.at(flat_documents, flat, np.ones(len(flat), dtype=document_counts.dtype))
        spam_taken = int(taken[entry_label == SPAM].sum())
        removed[SPAM] += spam_taken
        removed[HAM] += int(taken.sum()) - spam_taken
    messages = np.asarray(messages, dtype=np.int64) - np.bincount(label, minlength=2)
    if messages.min() <= 0:
        raise ValueError("held-out scores need messages of each class outside the block")
    remaining = document_counts.sum(axis=0) > 0  # tokens only the block had leave V
    held_out = KeyColumns(columns.keys, occurrences, document_counts, columns.selected & remaining)
    return raw_scores_of_bags(held_out, documents[:scored], bags, ids, np.asarray(totals, dtype=np.int64) - removed,
                              int(vocabulary) - int((~remaining).sum()), messages, options)



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
    FIRST_SCORED_BLOCK on, `held_out(members, scored)` is called with the
    indices of that block's messages followed by those of every later block,
    all taken out of the counts, and gives the scores of the first `scored`
    of them: the block's own (scoring the later blocks' messages too, and
    throwing their scores away, was half of calibration's scoring).  Earlier
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
            out[members] = held_out(np.concatenate([members, np.flatnonzero(block_of > block)]), len(members))
    return out


def blocked_raw_scores_by_key(columns: KeyColumns, documents: list[np.ndarray], labels: list[int],
                              totals: np.ndarray, vocabulary: int, messages: np.ndarray,
                              options: TrainOptions, blocks: int = 5,
                              copies: list[int] | None = None) -> np.ndarray:
    """held_out_raw_scores_by_key for every message, a block at a time:
    each class's messages, in the order given (the order they were read:
    delivery order for a Maildir or an mbox), cut into `blocks` runs, and
    each run scored by the counts without it and without every run after
    it (each_block_held_out).  Every message gets the score a model of the
    mail before it gave: what calibration and cutoffs are fitted on is how
    a model meets the mail that comes after it, drift included."""
    return each_block_held_out(labels, blocks, lambda members, scored: held_out_raw_scores_by_key(
        columns, [documents[i] for i in members], [labels[i] for i in members], totals, vocabulary,
        messages, options, None if copies is None else [copies[i] for i in members], scored))
