"""Calibration (spamnb/model/calibration.py) by hand and on known curves, and the
held-out scores it is fitted on (spamnb/model/model.py), against retraining."""

import numpy as np
import pytest

from conftest import held_out_scores, retrained_raw_score
from spamnb.model.calibration import fit_platt, tune_cutoffs
from spamnb.model.scoring import MIN_BAND
from spamnb.model.counts import TokenCounts
from spamnb.model.options import TrainOptions


def test_platt_fit_recovers_a_known_logistic():
    rng = np.random.default_rng(3)
    raw = rng.normal(size=20000)
    labels = rng.random(20000) < 1 / (1 + np.exp(-(2.0 * raw - 0.5)))
    a, c = fit_platt(raw, labels)
    assert a == pytest.approx(2.0, abs=0.1) and c == pytest.approx(-0.5, abs=0.1)


def test_tune_cutoffs_by_hand():
    # ham log-odds 0.01..10.00 (1000 ham), spam 5.00..14.99 (1000 spam)
    ham = np.arange(1, 1001, dtype=float) / 100
    spam = np.arange(500, 1500, dtype=float) / 100
    scores = np.concatenate([ham, spam])
    labels = np.r_[np.zeros(1000), np.ones(1000)]
    spam_cut, ham_cut = tune_cutoffs(scores, labels, max_fpr=0.001, max_fnr=0.005)
    # A new ham passes the (k+1)-th highest of 1000 with probability (k+1)/1001:
    # at 0.1 % only k = 0 meets it, so the cutoff sits just above the highest, 10.00.
    assert np.log(spam_cut / (1 - spam_cut)) == pytest.approx(10.00, abs=1e-9)
    # 0.5 %: (k+1)/1001 <= 0.005 for k <= 4, so 5.00..5.03 may be called ham
    # and the cutoff would sit just below the fifth lowest spam, 5.04 (P 0.9936),
    # but the unsure band is at least MIN_BAND wide: the ham cutoff comes down to
    # σ(10.00) - 0.25.
    assert ham_cut == pytest.approx(1 / (1 + np.exp(-10.0)) - MIN_BAND, abs=1e-12)
    assert ham_cut < 1 / (1 + np.exp(-5.04))
    # Where the fitted cutoffs lie further apart than that, they stand: ham
    # -9.99..0.00 puts the spam cutoff at σ(0) = 0.5, spam -3.00..6.99 the ham
    # cutoff just below its fifth lowest, σ(-2.96) = 0.049 < 0.5 - 0.25.
    spam_cut, ham_cut = tune_cutoffs(np.r_[np.arange(-999, 1) / 100, np.arange(-300, 700) / 100], labels,
                                     max_fpr=0.001, max_fnr=0.005)
    assert spam_cut == pytest.approx(0.5) and np.log(ham_cut / (1 - ham_cut)) == pytest.approx(-2.96, abs=1e-9)
    # 3,000 ham at 0.1 %: (k+1)/3001 <= 0.001 for k <= 2, so 2 of them pass.
    ham = np.arange(1, 3001, dtype=float) / 1000
    spam_cut, _ = tune_cutoffs(np.r_[ham, spam], np.r_[np.zeros(3000), np.ones(1000)], max_fpr=0.001)
    assert np.log(spam_cut / (1 - spam_cut)) == pytest.approx(2.998, abs=1e-9)


def test_platt_fit_does_not_diverge_on_offset_scores():
    rng = np.random.default_rng(7)
    labels = rng.random(3000) < 0.4
    noise = rng.normal(size=3000)
    for shift in (0.0, 5.0, 50.0):
        a, c = fit_platt(shift + 0.1 * (noise + 2 * labels), labels)
        assert 5 < a < 50 and np.isfinite(c)


@pytest.mark.usefixtures("any_evidence")
def test_held_out_block_scores_equal_retraining_without_the_block():
    docs = [["cheap", "pills", "now"], ["meeting", "notes"], ["cheap", "offer", "unique1"],
            ["lunch", "notes", "today"], ["pills", "offer"], ["notes", "unique2"], ["cheap", "lunch"],
            ["meeting", "today"]]
    labels = [1, 0, 1, 0, 1, 0, 1, 0]
    full = TokenCounts()
    full.add(docs, labels)
    block = [2, 3, 5]  # "unique1" and "unique2" leave the vocabulary with it
    # The default min_strength gives every token of this tiny corpus weight 0;
    # 0.5 keeps some and drops others, so the threshold itself is checked.
    for event_model in ("multinomial", "bernoulli", "mixed"):
        for normalize, min_strength in (("none", 0.0), ("sqrt", 0.0), ("mean", 0.0), ("mean", 0.5)):
            options = TrainOptions(event_model, 0.5, normalize=normalize, robinson=0.3, min_strength=min_strength)
            expected = [retrained_raw_score(docs, labels, i, options, leave_out=block) for i in block]
            got = held_out_scores(full, [docs[i] for i in block], [labels[i] for i in block], options)
            assert got == pytest.approx(expected), (event_model, normalize, min_strength)
            assert len(set(np.round(got, 9))) > 1 or min_strength > 0


def test_fit_cutoffs_by_hand():
    from spamnb.model.calibration import fit_cutoffs

    def logit(p):
        return np.log(p / (1 - p))

    spam = np.linspace(3, 12, 500)
    # 998 ham, the spammiest at log-odds 2: too few to promise 0.1 %, so bogofilter's 0.99.
    ham = np.r_[np.linspace(-12, 1, 997), 2.0]
    assert fit_cutoffs(np.r_[ham, spam], np.r_[np.zeros(998), np.ones(500)]) == (0.99, 0.2)
    # 1,000 ham: one log-odds above the spammiest, within 0.96..0.99.
    for top, expected in ((2.5, 1 / (1 + np.exp(-3.5))), (1.0, 0.96), (4.0, 0.99)):
        ham = np.r_[np.linspace(-12, 0, 999), top]
        spam_cut, ham_cut = fit_cutoffs(np.r_[ham, spam], np.r_[np.zeros(1000), np.ones(500)])
        assert spam_cut == pytest.approx(expected, abs=1e-9) and ham_cut == 0.2, top
    # Unscored messages (NaN: no evidence, or a block that only teaches) do not count.
    ham = np.r_[np.linspace(-12, 0, 999), 2.5, np.full(50, np.nan)]
    assert fit_cutoffs(np.r_[ham, spam], np.r_[np.zeros(1050), np.ones(500)])[0] == pytest.approx(
        1 / (1 + np.exp(-3.5)))
    assert fit_cutoffs(np.r_[ham[:998], ham[-50:], spam], np.r_[np.zeros(1048), np.ones(500)]) == (0.99, 0.2)
    assert logit(0.96) < 3.5 < logit(0.99)


@pytest.mark.usefixtures("any_evidence")
def test_scoring_the_first_messages_of_a_block_gives_their_scores_of_the_whole_block():
    """held_out_raw_scores_by_key's `scored`: the messages after the first
    `scored` are taken out of the counts but not scored (forward chaining's
    later blocks), and the first are scored as when every one is."""
    from spamnb.model.heldout import held_out_raw_scores_by_key
    from spamnb.model.keyscores import KeyColumns, keys_of, unique_keys

    docs = [["cheap", "pills", "now", "offer", "cheap"], ["meeting", "notes", "lunch", "today", "agenda"],
            ["cheap", "offer", "unique1", "pills", "now"], ["lunch", "notes", "today", "agenda", "room"],
            ["pills", "offer", "now", "cheap", "free"], ["notes", "unique2", "room", "agenda", "lunch"]] * 3
    labels = [1, 0] * 9
    full = TokenCounts()
    full.add(docs, labels)
    block = list(range(6, 18))
    keyed = [keys_of(docs[i]) for i in block]
    columns = KeyColumns.of_counts(full, unique_keys(keyed))
    options = TrainOptions("mixed", 0.5, normalize="mean", min_strength=0.0)
    totals = full.occurrences.sum(axis=1)
    every = held_out_raw_scores_by_key(columns, keyed, [labels[i] for i in block], totals, len(full),
                                       full.messages, options)
    first = held_out_raw_scores_by_key(columns, keyed, [labels[i] for i in block], totals, len(full),
                                       full.messages, options, scored=5)
    assert len(first) == 5 and np.array_equal(first, every[:5]) and np.isfinite(first).all()
