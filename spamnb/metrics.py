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
