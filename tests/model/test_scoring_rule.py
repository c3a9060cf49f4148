"""Every path that scores a message follows the one scoring rule.

The rule (spamnb/model/scoring.py): a message's raw score is that of its spammiest
chunk, Σ_{kept w} x_w λ_w / n^γ (ScoringRule.message_raw); its log-odds is
offset + scale · raw and its verdict that log-odds against the cutoffs
(scoring.judge).  Two paths hold the weights differently and share that
code: the model file's weight table (classify, filter, serve, the fast
path: Scorer.raw_score, float32 weights) and counts weighed for just a
message's token keys (keyscores: online evaluation's
raw_score_from_counts, training's calibration sample and near errors).
Here they score the same messages, on sample_data and on a slice of a real
corpus, and must agree.
"""

from __future__ import annotations

import math

import pytest

from conftest import SAMPLE, corpus
from spamnb.model.labels import HAM, SPAM
from spamnb.learning.labelled import TrainReport, tokenized_messages
from spamnb.model.keyscores import raw_score_from_counts
from spamnb.model.options import TrainOptions
from spamnb.model.scoring import Cutoffs, judge
from spamnb.learning.training import fit_tokenized

OPTIONS = [TrainOptions(),
           TrainOptions(event_model="multinomial", chunk=40, top_k=30, normalize="sqrt", min_strength=0.0),
           TrainOptions(event_model="bernoulli", normalize="none")]


def messages(which: str) -> tuple[list[list[str]], list[int]]:
    if which == "sample":
        sources = [(SPAM, str(SAMPLE / "mail" / "spam")), (HAM, str(SAMPLE / "mail" / "ham"))]
    else:  # every 25th message of the index: ~240, both classes (the index lists ham, then spam)
        root = corpus(which)
        lines = (root / "index").read_text().splitlines()[::25]
        sources = [(SPAM if label == "spam" else HAM, str(root / path))
                   for label, path in (line.split("\t") for line in lines)]
    docs, labels = [], []
    for label, tokens, _, _ in tokenized_messages(sources, TrainOptions(), TrainReport()):
        docs.append(tokens)
        labels.append(label)
    return docs, labels


@pytest.fixture(scope="module", params=["sample", "spamassassin"])
def mail(request):
    return messages(request.param)


@pytest.mark.parametrize("options", OPTIONS, ids=["default", "chunked-top-k", "bernoulli"])
def test_weight_table_and_counts_by_key_give_one_raw_score(mail, options):
    docs, labels = mail
    train = [i for i in range(len(docs)) if i % 3]
    scored = [docs[i] for i in range(len(docs)) if not i % 3]
    model = fit_tokenized([docs[i] for i in train], [labels[i] for i in train], options, calibrated=False)
    counts = model.counts
    totals = counts.occurrences.sum(axis=1)

    by_table = [model.raw_score(tokens) for tokens in scored]
    # raw_score_from_counts selects no tokens beyond min_strength (the formula
    # applies it): these options set no min_df, max_features or keywords.
    by_keys = [raw_score_from_counts(counts, totals, tokens, options) for tokens in scored]

    assert len(scored) > 20 and len({round(raw, 3) for raw in by_table}) > 10  # real, varied scores
    assert any(token not in counts.vocabulary for tokens in scored for token in tokens)  # unseen ones weigh 0
    for table_raw, keys_raw in zip(by_table, by_keys):
        assert math.isclose(table_raw, keys_raw, rel_tol=1e-5, abs_tol=1e-5)  # the table's λ are float32
    # The verdict of each: the model's own, by the one log-odds -> P(spam) -> label step.
    rule, cutoffs = model.rule, Cutoffs(spam=0.9, ham=0.1)
    for tokens, keys_raw in zip(scored, by_keys):
        score = model.score_tokens(tokens, cutoffs=cutoffs)
        log_odds, probability, label = judge(keys_raw, rule, cutoffs)
        assert (score.label, round(score.probability, 4)) == (label, round(probability, 4))
        assert math.isclose(score.log_odds, log_odds, rel_tol=1e-5, abs_tol=1e-5)
