"""From counts to per-token log-odds weights, for each event model.

Every event model here scores a message x as a sum over the tokens it holds:

    log-odds(x) = log P(spam | x) - log P(ham | x) = b + Σ_w x_w · λ_w

with a bias b and a weight λ_w per token; x_w is the token's count in the
message (multinomial) or 1 if present (Bernoulli, mixed).  Tokens the model
never saw contribute nothing, nor (with min_strength, see token_weights) do
tokens whose |λ| is below it.  With additive smoothing α (α = 1 is Laplace,
0 < α < 1 Lidstone), vocabulary size V, message counts M_c, occurrence
counts N_cw and document counts D_cw (see counts.py):

multinomial   θ_cw = (N_cw + α) / (Σ_v N_cv + α V)
              λ_w  = log θ_spam,w - log θ_ham,w
              b    = log M_spam - log M_ham

bernoulli     p_cw = (D_cw + α) / (M_c + 2α)
              log P(x | c) = Σ_w [x_w log p_cw + (1 - x_w) log(1 - p_cw)]
                           = Σ_w log(1 - p_cw) + Σ_w x_w logit(p_cw)
              λ_w  = logit p_spam,w - logit p_ham,w
              b    = log M_spam - log M_ham + Σ_w [log(1 - p_spam,w) - log(1 - p_ham,w)]
              The absent-token terms are folded into b, so scoring still
              touches only the tokens a message holds.

mixed         θ as multinomial (counts when training), x_w ∈ {0, 1} when
              scoring; λ and b as multinomial.

These equal scikit-learn's `feature_log_prob_[1] - feature_log_prob_[0]`
(MultinomialNB, BernoulliNB) and the difference of its joint log likelihoods
when min_strength is 0, which the tests check.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .counts import HAM, SPAM, TokenCounts

from .options import EVENT_MODELS, presence_scoring  # noqa: F401 (presence_scoring: re-exported)


@dataclass
class Weights:
    weights: np.ndarray
    """λ_w for every token of the vocabulary, float64."""
    bias: float
    """b: the log-odds of a message with no known token."""


def class_log_prior(messages: np.ndarray) -> np.ndarray:
    """log π_c = log M_c - log Σ M."""
    return np.log(messages) - np.log(messages.sum())


def feature_log_prob(occurrences: np.ndarray, documents: np.ndarray, messages: np.ndarray,
                     totals: np.ndarray, vocabulary: int, event_model: str,
                     alpha: float) -> tuple[np.ndarray, np.ndarray | None]:
    """(log θ or log p, log(1 - p) for Bernoulli else None), each of shape (2, tokens).

    Works on any subset of the vocabulary: `totals` (Σ_v N_cv per class) and
    `vocabulary` (V) describe the whole model, so a held-out estimate is
    these same formulas on counts with the held-out messages taken out.
    """
    if not alpha > 0:
        raise ValueError("alpha must be > 0 (1 is Laplace smoothing)")
    # Per-class totals and message counts are (2,), or (2, tokens) when each
    # column has its own, as may V.
    totals, messages = np.asarray(totals), np.asarray(messages)
    if event_model in ("multinomial", "mixed"):
        denominator = np.log(totals + alpha * np.asarray(vocabulary))
        return np.log(occurrences + alpha) - (denominator if denominator.ndim == 2 else denominator[:, None]), None
    if event_model == "bernoulli":
        per_column = messages if messages.ndim == 2 else messages[:, None]
        denominator = np.log(per_column + 2.0 * alpha)
        log_present = np.log(documents + alpha) - denominator
        # log(1 - p) computed from the complementary count, not 1 - exp(log p),
        # so a token seen in nearly every message keeps its precision.
        log_absent = np.log(per_column - documents + alpha) - denominator
        return log_present, log_absent
    raise ValueError(f"unknown event model {event_model!r}; choose one of {', '.join(EVENT_MODELS)}")


def shrink_rare(weights: np.ndarray, evidence: np.ndarray, strength: float) -> np.ndarray:
    """Robinson's smoothing of rare tokens toward "no information".

    A token's spam probability f = σ(λ) is replaced by
    f' = (s · 1/2 + n · f) / (s + n), where n is the number of training
    messages holding the token and s the strength: a token seen once moves
    most of the way back to 1/2, one seen in hundreds of messages keeps its
    estimate.  Returned as log-odds, λ' = logit f'.
    """
    if strength <= 0:
        return weights
    f = 1.0 / (1.0 + np.exp(-weights))
    shrunk = (0.5 * strength + evidence * f) / (strength + evidence)
    return np.log(shrunk) - np.log1p(-shrunk)


def token_weights(occurrences, documents, messages, totals, vocabulary, event_model, alpha,
                  robinson=0.0, min_strength=0.0) -> tuple[np.ndarray, np.ndarray | None]:
    """λ for the given token columns, and the Bernoulli absent-token terms (else None).

    A λ with |λ| below `min_strength` is set to 0, which scoring skips.  Being
    part of the formula, it applies alike to the whole model and to counts
    with held-out messages taken out (calibration, online evaluation).
    """
    log_present, log_absent = feature_log_prob(occurrences, documents, messages, totals,
                                               vocabulary, event_model, alpha)
    weights = log_present[SPAM] - log_present[HAM]
    absent = None
    if log_absent is not None:
        absent = log_absent[SPAM] - log_absent[HAM]
        weights = weights - absent
    weights = shrink_rare(weights, documents.sum(axis=0), robinson)
    if min_strength > 0:
        weights = np.where(np.abs(weights) >= min_strength, weights, 0.0)
    return weights, absent


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
    if messages.min() <= 0:
        return Weights(weights=np.zeros(occurrences.shape[1]), bias=0.0)
    weights, absent = token_weights(occurrences, documents, messages, occurrences.sum(axis=1),
                                    occurrences.shape[1], event_model, alpha, robinson, min_strength)
    log_prior = class_log_prior(messages)
    bias = float(log_prior[SPAM] - log_prior[HAM])
    if absent is not None:
        bias += float(absent.sum())
    return Weights(weights=weights, bias=bias)


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
