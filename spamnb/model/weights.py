"""From counts to per-token log-odds weights, a vocabulary at once (numpy).

The rule itself, its maths and the order of its steps, is formula.py's;
here it is applied to whole count arrays (training, loading, held-out
scores), with the bias of the whole model and feature selection.
"""

from __future__ import annotations


import numpy as np

from . import formula
from .._core import token_keys
from ..record import Record
from .counts import TokenCounts



class Weights(Record):
    """weights: λ_w for every token of the vocabulary, float64; bias: b, the
    log-odds of a message with no known token."""

    __slots__ = ("weights", "bias")
    weights: np.ndarray
    bias: float


def token_weights(occurrences, documents, messages, totals, vocabulary, event_model, alpha,
                  robinson=0.0, min_strength=0.0) -> tuple[np.ndarray, np.ndarray | None]:
    """λ of the given token columns (formula.token_weights on count arrays, classes ×
    tokens), and the Bernoulli absent-token terms (else None).

    A λ with |λ| below `min_strength` is set to 0, which scoring skips.  Being
    part of the formula, it applies alike to the whole model and to counts
    with held-out messages taken out (calibration, online evaluation).
    """
    return formula.token_weights(occurrences, documents, messages, totals, vocabulary, event_model, alpha,
                                 robinson, min_strength, np)


def model_bias(messages: np.ndarray, absent_sum: float) -> float:
    """b: the class prior's log-odds, plus the Bernoulli absent-token terms summed
    over the vocabulary (`absent_sum`, 0 for the other event models)."""
    return float(formula.prior_log_odds(messages, np.log)) + absent_sum


def log_odds_weights(counts: TokenCounts, event_model: str, alpha: float, robinson: float = 0.0,
                     min_strength: float = 0.0) -> Weights:
    """λ and b of the formulas above, vectorised over the vocabulary.

    A model that has seen no message of one class (`learn` starting from
    nothing) has no evidence either way: every λ and b are 0, so every
    message scores log-odds 0, P(spam) 1/2, unsure, until both classes
    have examples.
    """
    return weights_of_arrays(counts.occurrences, counts.documents, counts.messages, event_model, alpha,
                             robinson, min_strength)


def weights_of_arrays(occurrences: np.ndarray, documents: np.ndarray, messages: np.ndarray, event_model: str,
                      alpha: float, robinson: float = 0.0, min_strength: float = 0.0) -> Weights:
    """log_odds_weights from the count arrays alone (N_cw and D_cw, classes × tokens, and
    the messages per class), for a model folded without decoding its tokens."""
    if not formula.knows_both_classes(messages):
        return Weights(weights=np.zeros(occurrences.shape[1]), bias=0.0)
    weights, absent = token_weights(occurrences, documents, messages, occurrences.sum(axis=1),
                                    occurrences.shape[1], event_model, alpha, robinson, min_strength)
    return Weights(weights=weights, bias=model_bias(messages, 0.0 if absent is None else float(absent.sum())))


def information_gain(documents: np.ndarray, messages: np.ndarray) -> np.ndarray:
    """Information gain of each token's presence about the class, in bits:
    IG = H(C) - P(w) H(C | w) - P(¬w) H(C | ¬w), from document counts."""
    def entropy(counts):  # rows: classes; columns: tokens
        total = counts.sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.where(total > 0, counts / np.maximum(total, 1), 0.0)
            return -np.nansum(np.where(p > 0, p * np.log2(p), 0.0), axis=0)

    n = messages.sum()
    present = documents.astype(np.float64)
    absent = messages[:, None] - present
    prior = entropy(messages[:, None].astype(np.float64))[0]
    share = present.sum(axis=0) / n
    return prior - share * entropy(present) - (1 - share) * entropy(absent)


def selected_features(documents: np.ndarray, messages: np.ndarray,
                      min_df: int = 0, max_features: int = 0) -> np.ndarray:
    """Which tokens keep their weight (a bool mask); the others get weight 0,
    which scoring skips: tokens in fewer than `min_df` training messages, and
    all but the `max_features` with the highest information gain.  Their
    counts stay in the model, so learning remains exact and a later retrain
    may select them."""
    keep = np.ones(documents.shape[1], dtype=bool)
    if min_df > 1:
        keep &= documents.sum(axis=0) >= min_df
    if 0 < max_features < keep.sum():
        gain = np.where(keep, information_gain(documents, messages), -np.inf)
        keep &= gain >= np.partition(gain, len(gain) - max_features)[len(gain) - max_features]
    return keep


def keyword_keys_of(options) -> np.ndarray | None:
    """The sorted keys of a model's keyword list (TrainOptions.keywords), if it has one."""
    if not options.keywords:
        return None
    return np.unique(np.frombuffer(token_keys(list(options.keywords)), dtype="<u8").astype(np.uint64))


def on_keyword_list(options, token: str) -> bool:
    """Whether `token` is on the model's keyword list, matched by key as
    training (selected_tokens) and a journal's live weights match it."""
    keys = keyword_keys_of(options)
    return keys is not None and bool(np.isin(np.frombuffer(token_keys([token]), dtype="<u8"), keys)[0])


def selected_tokens(documents: np.ndarray, messages: np.ndarray, keys: np.ndarray, options,
                    keyword_keys: np.ndarray | None, whole_vocabulary: bool = True) -> np.ndarray:
    """Which tokens may weigh (a bool mask): selected_features by `options.min_df` and,
    over a whole vocabulary, `options.max_features` (information gain ranks every
    token, so a chunk of the vocabulary cannot apply it), then the keyword list's
    keys (keyword_keys_of) if the model has one, matched by key so the tokens'
    text is not needed (a journal's live weights, scorer.LiveTable, match them
    by key too)."""
    selected = selected_features(documents, messages, options.min_df, options.max_features if whole_vocabulary else 0)
    if keyword_keys is not None:
        selected &= np.isin(keys, keyword_keys)
    return selected
