"""Turning a raw score into an honest probability: Platt scaling.

Naive Bayes log-odds are famously overconfident (they count correlated
evidence as independent), and a length-normalised score is not a log-odds at
all.  Both are mapped to P(spam) = σ(a · raw + c), with a and c fitted by
maximum likelihood on scores the model gave to training messages it had not
seen (each block of training mail judged by the blocks before it, see
Model.calibrate, or the scores learned mail had before it was learned,
Model.refit_from_recent), following Platt (1999), including his smoothed
targets (N₊ + 1)/(N₊ + 2) and 1/(N₋ + 2) that keep the fit from running to
infinity on separable data.  The same scores fit the cutoffs (fit_cutoffs);
`evaluate --tune` tunes them on a user's own labelled mail (tune_cutoffs).
"""

from __future__ import annotations

import numpy as np

from .scoring import HAM_CUTOFF, MIN_BAND, logit

# fit_cutoffs: how far above the spammiest held-out ham (in log-odds) the spam
# cutoff goes, the range it stays in, and the scored ham it needs to move at all.
DRIFT_MARGIN = 1.0
SPAM_CUTOFF_RANGE = (0.96, 0.99)
FIT_MINIMUM_HAM = 999


def fit_platt(raw: np.ndarray, labels: np.ndarray, iterations: int = 100) -> tuple[float, float]:
    """(a, c) maximising Σ log-likelihood of labels under σ(a · raw + c).

    Newton's method on standardised scores, each step halved until the
    likelihood improves (Lin, Lin and Weng's safeguard for Platt's method),
    then mapped back to the raw scale.
    """
    raw = np.asarray(raw, dtype=np.float64)
    labels = np.asarray(labels).astype(bool)
    scored = ~np.isnan(raw)  # messages with no evidence (scoring.NO_EVIDENCE) are 0.5 whatever the fit
    raw, labels = raw[scored], labels[scored]
    positives, negatives = labels.sum(), (~labels).sum()
    if positives == 0 or negatives == 0:
        raise ValueError("calibration needs both spam and ham scores")
    target = np.where(labels, (positives + 1.0) / (positives + 2.0), 1.0 / (negatives + 2.0))
    centre, spread = raw.mean(), max(raw.std(), 1e-12)
    x = (raw - centre) / spread

    def loss(a, c):
        z = a * x + c
        return float(np.sum(np.logaddexp(0, z) - target * z))

    a, c = 1.0, 0.0
    current = loss(a, c)
    for _ in range(iterations):
        z = np.clip(a * x + c, -500, 500)
        p = 1.0 / (1.0 + np.exp(-z))
        gradient = np.array([np.sum((p - target) * x), np.sum(p - target)])
        w = np.maximum(p * (1.0 - p), 1e-12)
        hessian = np.array([[np.sum(w * x * x), np.sum(w * x)], [np.sum(w * x), np.sum(w)]]) + 1e-9 * np.eye(2)
        step = np.linalg.solve(hessian, gradient)
        scale = 1.0
        while scale > 1e-10:
            trial = loss(a - scale * step[0], c - scale * step[1])
            if trial <= current:
                break
            scale /= 2
        a, c, current = a - scale * step[0], c - scale * step[1], min(current, trial)
        if np.abs(scale * step).max() < 1e-10:
            break
    return float(a / spread), float(c - a * centre / spread)


def tune_cutoffs(log_odds: np.ndarray, labels: np.ndarray, max_fpr: float = 0.001,
                 max_fnr: float = 0.005) -> tuple[float, float]:
    """(spam, ham) cutoffs as P(spam), chosen on held-out scores.

    The spam cutoff is the lowest at which a new ham is called spam with
    probability at most `max_fpr`; the ham cutoff the highest at which a new
    spam is called ham with probability at most `max_fnr`.  Between them is
    the unsure band.  With too few scores to promise that (under 999 ham at
    0.1 %, under 199 spam at 0.5 %), the cutoff lies past all of them, and
    the promise weakens to 1/(n+1).  The ham cutoff lies at least MIN_BAND
    below the spam cutoff: there is always an unsure band.

    Held-out scores and a new message's score are exchangeable, so a new ham
    scores above the (k+1)-th highest of n held-out ham with probability
    (k+1)/(n+1) (the argument of conformal prediction): the cutoff lets k =
    ⌊max_fpr (n+1)⌋ - 1 held-out ham through, never fewer than none.  2,905
    ham at 0.1 % let one through, not the ⌊0.001 n⌋ = 2 whose expected rate
    is 0.103 %; below 1,999 ham the cutoff sits above the highest of them.
    10-fold CV inside the spamassassin / ccert_zh training parts: the new
    rule lost 2 of 2,905 / 3 of 2,539 held-out ham, the old 3 / 3.
    """
    log_odds = np.asarray(log_odds, dtype=np.float64)
    labels = np.asarray(labels).astype(bool)
    scored = ~np.isnan(log_odds)  # no evidence: unsure whatever the cutoffs
    log_odds, labels = log_odds[scored], labels[scored]
    ham = np.sort(log_odds[~labels])[::-1]
    spam = np.sort(log_odds[labels])
    if len(ham) == 0 or len(spam) == 0:
        raise ValueError("tuning cutoffs needs both spam and ham scores")
    allowed_ham = _allowance(max_fpr, len(ham))
    # Just above the (allowed + 1)-th highest ham score, so that many ham stay below.
    spam_threshold = np.nextafter(ham[allowed_ham], np.inf)
    allowed_spam = _allowance(max_fnr, len(spam))
    ham_threshold = np.nextafter(spam[allowed_spam], -np.inf)
    spam_cutoff = float(_sigmoid(spam_threshold))
    return spam_cutoff, min(float(_sigmoid(ham_threshold)), max(spam_cutoff - MIN_BAND, 0.0))


def fit_cutoffs(log_odds: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """(spam, ham) cutoffs for mail to come, from scores the model gave
    mail it had not seen yet: forward-chained held-out scores (train) or the
    scores learned mail had before it was learned (learn).

    With at least FIT_MINIMUM_HAM scored ham (enough for tune_cutoffs to
    promise 0.1 % with none of them let through), the spam cutoff starts
    where tune_cutoffs at 0.1 % puts it, moves DRIFT_MARGIN up in log-odds,
    since mail further off drifts further than the next stretch did, and
    stays within SPAM_CUTOFF_RANGE: a few spam-like ham (a newsletter, a
    forwarded offer) can push it no higher than bogofilter's 0.99.  With
    fewer, it is 0.99: the spammiest of a few hundred ham says little about
    the next thousand.  The ham cutoff is HAM_CUTOFF, at least MIN_BAND
    below the spam cutoff.

    Measured by bench/verdicts.py (BENCHMARKS.md, "Verdicts"), later mail
    of trec06p trained on its first 5,000 / 10,000 / 14,000 (+ 250 hard
    ham), ccert_zh's later 30 %: the spam cutoff fixed at 0.99 flagged 94.3
    / 97.6 / 97.6 / 97.2 / 92.9 % of the spam (the best cutoff losing at
    most 0.1 % of the ham: 94.9 / 99.4 / 99.1 / 99.4 / 98.2 %).  Fitted
    with the range 0.90-0.99 it flagged 98.4 % and more, but lost 0.70 % of
    spamassassin's ham with a model of trec06p, and 1.5-2.0 % of later ham
    with models of 50 to 1,000 messages, whose few hundred ham it was fitted
    on; hence the floor of 0.96 and the 999 ham.  Half the margin lost
    0.097 % at 5,000; none, 0.136 %.
    """
    log_odds, labels = np.asarray(log_odds, dtype=np.float64), np.asarray(labels).astype(bool)
    low, high = SPAM_CUTOFF_RANGE
    spam = high
    if int((~labels & ~np.isnan(log_odds)).sum()) >= FIT_MINIMUM_HAM:
        fitted, _ = tune_cutoffs(log_odds, labels, max_fpr=0.001, max_fnr=0.005)
        spam = min(max(_sigmoid(logit(fitted) + DRIFT_MARGIN), low), high)
    return spam, min(HAM_CUTOFF, spam - MIN_BAND)


def _allowance(rate: float, n: int) -> int:
    """How many of n held-out scores may lie past a cutoff for a new one to
    land there with probability at most `rate`: (k+1)/(n+1) <= rate."""
    return min(max(int(np.floor(rate * (n + 1))) - 1, 0), n - 1)


def _sigmoid(x: float) -> float:
    return float(1.0 / (1.0 + np.exp(-np.clip(x, -700, 700))))
