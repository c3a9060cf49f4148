"""Accuracy measures for a spam filter's scores.

`scores` are any continuous spamminess (P(spam) or log-odds), `labels` are 1
for spam and 0 for ham.  Following the TREC spam track, 1-ROCA % is
100 × (1 - area under the ROC curve): the percentage of (spam, ham) pairs the
filter orders wrongly, ties counting half.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import rankdata


def roc_auc(labels, scores) -> float:
    """Area under the ROC curve by the rank-sum (Mann-Whitney U) identity.

    AUC = (R_spam - n_spam (n_spam + 1) / 2) / (n_spam · n_ham), where R_spam
    is the sum of the spam scores' ranks among all scores (ties get their
    average rank, which counts a tied pair as one half).
    """
    labels = np.asarray(labels).astype(bool)
    scores = np.asarray(scores, dtype=np.float64)
    n_spam = int(labels.sum())
    n_ham = len(labels) - n_spam
    if n_spam == 0 or n_ham == 0:
        raise ValueError("ROC AUC needs both spam and ham")
    ranks = rankdata(scores)
    return float((ranks[labels].sum() - n_spam * (n_spam + 1) / 2) / (n_spam * n_ham))


def one_minus_roca_percent(labels, scores) -> float:
    return 100.0 * (1.0 - roc_auc(labels, scores))


def miss_at_fpr(labels, scores, fpr: float = 0.001) -> float:
    """Spam miss rate (%) at the strictest threshold letting through at most
    `fpr` of the ham: the ROC curve read at one point."""
    labels = np.asarray(labels).astype(bool)
    scores = np.asarray(scores, dtype=np.float64)
    ham = np.sort(scores[~labels])[::-1]
    allowed = int(np.floor(fpr * len(ham)))
    threshold = np.nextafter(ham[allowed], np.inf) if allowed < len(ham) else -np.inf
    return 100.0 * float(np.mean(scores[labels] < threshold))


def lam_percent(fpr: float, fnr: float, n_ham: int, n_spam: int) -> float:
    """TREC's logistic average misclassification: logit⁻¹ of the mean of
    logit(ham misclassification) and logit(spam misclassification), with half
    a message added to each count so that zero errors stay finite."""
    def logit(p):
        return np.log(p) - np.log1p(-p)
    ham_rate = (fpr * n_ham + 0.5) / (n_ham + 1.0)
    spam_rate = (fnr * n_spam + 0.5) / (n_spam + 1.0)
    z = (logit(ham_rate) + logit(spam_rate)) / 2.0
    return 100.0 / (1.0 + np.exp(-z))


def summarise(labels, log_odds, verdicts) -> dict:
    """Every measure `spamnb evaluate` reports, from true labels (1 spam),
    continuous scores and the verdicts ("spam", "ham", "unsure") at the cutoffs.

    Unsure counts as not flagged: precision, recall and F1 are about the
    spam verdict; ham misclassification (FPR) is ham called spam, spam
    misclassification (FNR) is spam called ham, and the unsure rate is apart.
    lam % follows TREC's binary view of a filter: a message is filed as spam
    or not, so unsure ham is not lost (it is not in the spam folder) while
    unsure spam is missed (it is not either); the asymmetry is deliberate.
    """
    labels = np.asarray(labels).astype(bool)
    verdicts = np.asarray(verdicts)
    n_spam, n_ham = int(labels.sum()), int((~labels).sum())
    matrix = {truth: {v: int(np.sum((labels == (truth == "spam")) & (verdicts == v)))
                      for v in ("spam", "ham", "unsure")} for truth in ("spam", "ham")}
    tp, fp = matrix["spam"]["spam"], matrix["ham"]["spam"]
    fn_strict = matrix["spam"]["ham"]
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / n_spam if n_spam else 0.0
    fpr = fp / n_ham if n_ham else 0.0
    fnr = fn_strict / n_spam if n_spam else 0.0
    missed = (n_spam - tp) / n_spam if n_spam else 0.0  # spam not flagged: called ham or unsure
    return {
        "messages": {"spam": n_spam, "ham": n_ham},
        "confusion": matrix,
        "accuracy": (tp + matrix["ham"]["ham"]) / max(len(labels), 1),
        "precision": precision,
        "recall": recall,
        "f1": 2 * precision * recall / (precision + recall) if precision + recall else 0.0,
        "false_positive_rate": fpr,
        "false_negative_rate": fnr,
        "unsure_rate": float(np.mean(verdicts == "unsure")) if len(verdicts) else 0.0,
        "roc_auc": roc_auc(labels, log_odds),
        "one_minus_roca_percent": one_minus_roca_percent(labels, log_odds),
        "lam_percent": float(lam_percent(fpr, missed, n_ham, n_spam)),
        "spam_miss_at_0.1%_fpr": miss_at_fpr(labels, log_odds, 0.001),
    }
