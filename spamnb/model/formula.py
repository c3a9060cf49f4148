"""The weight rule: a token's log-odds weight λ and a model's bias b, from counts.

Every event model here scores a message x as a sum over the tokens it holds:

    log-odds(x) = log P(spam | x) - log P(ham | x) = b + Σ_w x_w · λ_w

with a bias b and a weight λ_w per token; x_w is the token's count in the
message (multinomial) or 1 if present (Bernoulli, mixed).  Tokens the model
never saw contribute nothing, nor (with min_strength) do tokens whose |λ| is
below it.  With additive smoothing α (α = 1 is Laplace, 0 < α < 1 Lidstone),
vocabulary size V, message counts M_c, occurrence counts N_cw and document
counts D_cw (see counts.py):

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

Then, in this order: Robinson's smoothing of rare tokens (shrink_rare), and
min_strength: a λ with |λ| below it is set to 0, which scoring skips.  A
model that has seen no message of one class has no evidence either way:
every λ and b are 0 (knows_both_classes).

These equal scikit-learn's `feature_log_prob_[1] - feature_log_prob_[0]`
(MultinomialNB, BernoulliNB) and the difference of its joint log likelihoods
when min_strength is 0, which tests/model/test_weights.py checks.

This module is the rule's only statement, for both ways it is computed: a
vocabulary at once in numpy (weights.py: training, loading, held-out
scores) and one token at a time in plain floats (scorer.LiveTable: scoring
a model with a journal, whose cold start must not import numpy).  So it is
written as arithmetic over per-class pairs, each indexed [HAM] and [SPAM]
and holding numpy rows or numbers alike, and takes the few functions that
are not arithmetic from `xp`: the numpy module for arrays, SCALARS for
numbers.  Both give one operation for one operation in the same order, so
the two ways agree to the last bit wherever their logarithms do.
"""

from __future__ import annotations

import math

from .labels import HAM, SPAM
from .options import EVENT_MODELS



class SCALARS:
    """What the rule needs beyond arithmetic, for plain numbers: math's
    functions under the names numpy gives its own."""

    log = staticmethod(math.log)
    log1p = staticmethod(math.log1p)
    exp = staticmethod(math.exp)

    @staticmethod
    def where(condition, value, otherwise):
        return value if condition else otherwise


def knows_both_classes(messages) -> bool:
    """Whether the model has seen a message of each class: else every λ and b are 0."""
    return bool(min(messages[HAM], messages[SPAM]) > 0)


def token_weights(occurrences, documents, messages, totals, vocabulary, event_model: str, alpha: float,
                  robinson: float, min_strength: float, xp):
    """(λ, the Bernoulli absent-token term log(1 - p_spam,w) - log(1 - p_ham,w) or None).

    `occurrences` (N_cw), `documents` (D_cw), `messages` (M_c) and `totals`
    (Σ_v N_cv) are per-class pairs; `vocabulary` is V.  The totals and V
    describe the whole model, so the tokens weighed may be any subset of
    it, and a held-out estimate is this same rule on counts with the
    held-out messages taken out.  `documents` is read only by the Bernoulli
    model and by Robinson's smoothing.
    """
    if not alpha > 0:
        raise ValueError("alpha must be > 0 (1 is Laplace smoothing)")
    log = xp.log
    if event_model in ("multinomial", "mixed"):
        log_theta_spam = log(occurrences[SPAM] + alpha) - log(totals[SPAM] + alpha * vocabulary)
        log_theta_ham = log(occurrences[HAM] + alpha) - log(totals[HAM] + alpha * vocabulary)
        weights, absent = log_theta_spam - log_theta_ham, None
    elif event_model == "bernoulli":
        log_p, log_not_p = [], []
        for c in (HAM, SPAM):
            denominator = log(messages[c] + 2.0 * alpha)
            log_p.append(log(documents[c] + alpha) - denominator)
            # log(1 - p) computed from the complementary count, not 1 - exp(log p),
            # so a token seen in nearly every message keeps its precision.
            log_not_p.append(log(messages[c] - documents[c] + alpha) - denominator)
        absent = log_not_p[SPAM] - log_not_p[HAM]
        weights = (log_p[SPAM] - log_p[HAM]) - absent
    else:
        raise ValueError(f"unknown event model {event_model!r}; choose one of {', '.join(EVENT_MODELS)}")
    if robinson > 0:
        weights = shrink_rare(weights, documents[HAM] + documents[SPAM], robinson, xp)
    if min_strength > 0:
        weights = xp.where(abs(weights) >= min_strength, weights, 0.0)
    return weights, absent


def shrink_rare(weights, evidence, strength: float, xp):
    """Robinson's smoothing of rare tokens toward "no information".

    A token's spam probability f = σ(λ) is replaced by
    f' = (s · 1/2 + n · f) / (s + n), where n is the number of training
    messages holding the token and s the strength: a token seen once moves
    most of the way back to 1/2, one seen in hundreds of messages keeps its
    estimate.  Returned as log-odds, λ' = logit f'.
    """
    f = 1.0 / (1.0 + xp.exp(-weights))
    shrunk = (0.5 * strength + evidence * f) / (strength + evidence)
    return xp.log(shrunk) - xp.log1p(-shrunk)


def prior_log_odds(messages, log):
    """log π_spam - log π_ham, with log π_c = log M_c - log Σ M: the bias b
    before the Bernoulli model's absent-token terms are added to it."""
    whole = log(messages[HAM] + messages[SPAM])
    return (log(messages[SPAM]) - whole) - (log(messages[HAM]) - whole)
