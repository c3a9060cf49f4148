"""Metrics against scikit-learn and hand computations; evaluate end to end; exact unlearning."""

import json
import math

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from conftest import SAMPLE, corpus, run_spamnb
from spamnb.model.counts import TokenCounts
from spamnb.app.metrics import lam_percent, miss_at_fpr, one_minus_roca_percent, roc_auc, summarise


def test_roc_auc_matches_sklearn_with_ties():
    rng = np.random.default_rng(5)
    labels = rng.random(3000) < 0.3
    scores = np.round(rng.normal(size=3000) + labels * 1.2, 1)  # rounding makes many ties
    assert roc_auc(labels, scores) == pytest.approx(roc_auc_score(labels, scores), abs=1e-12)
    assert one_minus_roca_percent(labels, scores) == pytest.approx(100 * (1 - roc_auc_score(labels, scores)))


def test_roc_auc_by_hand():
    # spam scores 3, 1; ham scores 2, 0: pairs (3>2, 3>0, 1<2, 1>0) → 3 of 4 ordered right
    assert roc_auc([1, 1, 0, 0], [3, 1, 2, 0]) == 0.75
    assert roc_auc([1, 0], [5, 5]) == 0.5  # a tie counts half


def test_lam_and_miss_at_fpr_by_hand():
    # lam of equal rates is that rate; with the half-message smoothing of TREC:
    # ham 1/1000 → (1 + .5)/1001, spam 1/1000 → the same; lam = that rate.
    assert lam_percent(0.001, 0.001, 1000, 1000) == pytest.approx(100 * 1.5 / 1001)
    z = (math.log(0.5 / 101 / (1 - 0.5 / 101)) + math.log(10.5 / 101 / (1 - 10.5 / 101))) / 2
    assert lam_percent(0.0, 0.1, 100, 100) == pytest.approx(100 / (1 + math.exp(-z)))
    # 1000 ham scored 0..999; 0.1 % (one ham, the 999) may pass, so the
    # threshold sits just above 998: of spam at 500, 998.5 and 1500 only the
    # 500 falls below it.
    labels = [0] * 1000 + [1, 1, 1]
    scores = list(range(1000)) + [500, 998.5, 1500]
    assert miss_at_fpr(labels, scores, 0.001) == pytest.approx(100 / 3)


def test_summarise_confusion_and_rates():
    labels = [1, 1, 1, 1, 0, 0, 0, 0]
    verdicts = ["spam", "spam", "unsure", "ham", "ham", "ham", "unsure", "spam"]
    result = summarise(labels, [4, 3, 2, 1, 0, -1, -2, 3.5], verdicts)
    assert result["confusion"] == {"spam": {"spam": 2, "ham": 1, "unsure": 1},
                                   "ham": {"spam": 1, "ham": 2, "unsure": 1}}
    assert result["precision"] == pytest.approx(2 / 3) and result["recall"] == 0.5
    assert result["false_positive_rate"] == 0.25 and result["false_negative_rate"] == 0.25
    assert result["unsure_rate"] == 0.25 and result["accuracy"] == 0.5


def test_learn_then_unlearn_restores_counts_exactly():
    counts = TokenCounts()
    counts.add([["a", "b", "a"], ["c"], ["b", "发票"]], [1, 0, 1])
    before = (counts.occurrences.copy(), counts.documents.copy(), counts.messages.copy())
    message = ["发票", "new", "a", "new"]
    counts.add([message], [0])
    assert counts.occurrences[0, counts.vocabulary["new"]] == 2
    counts.add([message], [0], sign=-1)
    n = len(before[0][0])
    np.testing.assert_array_equal(counts.occurrences[:, :n], before[0])
    np.testing.assert_array_equal(counts.documents[:, :n], before[1])
    np.testing.assert_array_equal(counts.messages, before[2])
    assert not counts.occurrences[:, n:].any() and not counts.documents[:, n:].any()
    with pytest.raises(ValueError, match="never learned"):
        counts.add([["c"]], [1], sign=-1)


def test_evaluate_on_sample_data_every_protocol():
    for args in ((), ("--split", "0.6", "--shuffle", "--seed", "3"), ("--folds", "3"), ("--online", "--shuffle")):
        result = run_spamnb("evaluate", SAMPLE / "mail", "--format", "json", *args)
        assert result.returncode == 0, (args, result.stderr)
        data = json.loads(result.stdout)
        assert 0 <= data["one_minus_roca_percent"] <= 100 and 0 <= data["roc_auc"] <= 1
        total = sum(sum(row.values()) for row in data["confusion"].values())
        assert total == data["messages"]["spam"] + data["messages"]["ham"]
    text = run_spamnb("evaluate", SAMPLE / "mail").stdout.decode()
    assert "1-ROCA %" in text and "confusion" in text
    assert run_spamnb("evaluate", SAMPLE / "mail", "--online", "--folds", "2").returncode == 64
    # A folder is read spam/ then ham/: online learning in that order is meaningless.
    grouped = run_spamnb("evaluate", SAMPLE / "mail", "--online")
    assert grouped.returncode == 64 and b"grouped by class" in grouped.stderr


def test_evaluate_reads_an_index_file(tmp_path):
    index = tmp_path / "index"
    lines = [f"spam\t{p}" for p in sorted((SAMPLE / "mail" / "spam").iterdir())]
    lines += [f"ham\t{p}" for p in sorted((SAMPLE / "mail" / "ham").iterdir())]
    index.write_text("\n".join(lines) + "\n")
    result = run_spamnb("evaluate", index, "--online", "--shuffle", "--format", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["messages"] == {"spam": 60, "ham": 60}
    bad = tmp_path / "bad-index"
    bad.write_text("maybe\tx\n")
    failed = run_spamnb("evaluate", bad)
    assert failed.returncode == 4 and b"expected 'spam|ham<TAB>path'" in failed.stderr


def test_online_on_whole_spamassassin_is_quick_and_reports_trec_measures():
    index = corpus("spamassassin") / "index"
    result = run_spamnb("evaluate", index, "--online", "--shuffle", "--format", "json", timeout=300)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["messages"] == {"spam": 1896, "ham": 4150}
    assert data["one_minus_roca_percent"] < 1.0 and data["lam_percent"] < 5.0


def test_evaluate_tune_stores_cutoffs_and_plot(tmp_path, sample_model):
    model = tmp_path / "m.spamnb"
    model.write_bytes(sample_model.read_bytes())
    result = run_spamnb("evaluate", SAMPLE / "mail", "--tune", "--max-fpr", "0.05", "--model", model,
                        "--plot", tmp_path / "roc.svg", "--format", "json")
    assert result.returncode == 0, result.stderr
    tuned = json.loads(result.stdout)["tuned_cutoffs"]
    inspect = json.loads(run_spamnb("inspect", "--model", model, "--format", "json").stdout)
    assert inspect["summary"]["cutoffs"] == {"spam": tuned["spam"], "ham": tuned["ham"],
                                             "set_by": "tuned at 5 % ham lost"}
    assert (tmp_path / "roc-roc.svg").read_text().startswith("<svg")
    assert "tuned spam cutoff" in (tmp_path / "roc-scores.svg").read_text()


def drifting_stream(periods: int, per_class: int, seed: int = 1):
    """Synthetic mail whose words drift: a third of each message's words
    belong to its class for good, two fifths to its period only (campaigns and
    topics that come and go), the rest to both classes; each with 10 % noise."""
    import random

    rng = random.Random(seed)
    docs, labels, periods_of = [], [], []
    for period in range(periods):
        for i in range(per_class * 2):
            label = i % 2
            words = []
            for _ in range(30):
                r = rng.random()
                side = label if rng.random() < 0.9 else 1 - label
                if r < 0.35:
                    words.append(f"common{rng.randrange(300)}")
                elif r < 0.6:
                    words.append(f"c{side}w{rng.randrange(200)}")
                else:
                    words.append(f"p{period}c{side}w{rng.randrange(150)}")
            docs.append(words)
            labels.append(label)
            periods_of.append(period)
    return docs, labels, periods_of


def test_cutoffs_fitted_on_blocked_held_out_scores_hold_on_later_mail():
    """Trained on eight periods, judged on the two after: the stored cutoffs
    (fitted on each fifth of the training mail scored without it) lose at
    most 0.25 % of the later ham; cutoffs fitted the same way on the
    training mail's own scores lose over five times as many."""
    from spamnb.model.calibration import tune_cutoffs
    from spamnb.model.options import TrainOptions
    from spamnb.model.scoring import Cutoffs
    from spamnb.learning.training import fit_tokenized

    docs, labels, periods_of = drifting_stream(10, 600)
    cut = periods_of.index(8)
    model = fit_tokenized(docs[:cut], labels[:cut], TrainOptions())
    later = [(model.score_tokens(doc), label) for doc, label in zip(docs[cut:], labels[cut:])]
    ham_lost = sum(score.label == "spam" for score, label in later if label == 0)
    assert ham_lost <= 0.0025 * sum(label == 0 for _, label in later)
    inside = np.array([model.score_tokens(doc).log_odds for doc in docs[:cut]])
    naive = Cutoffs(*tune_cutoffs(inside, np.array(labels[:cut])))
    naive_lost = sum(naive.label(score.log_odds) == "spam" for score, label in later if label == 0)
    assert naive_lost >= 5 * max(ham_lost, 1)


def test_evaluate_takes_jobs_and_gives_the_same_result():
    assert "-j, --jobs" in run_spamnb("evaluate", "--help").stdout.decode()
    results = [run_spamnb("evaluate", SAMPLE / "mail", "--folds", "3", "--format", "json", "-j", jobs)
               for jobs in ("1", "2")]
    assert [r.returncode for r in results] == [0, 0], results[1].stderr
    assert results[0].stdout == results[1].stdout and json.loads(results[1].stdout)["messages"]["spam"] == 60
