"""The event models' weights and scores against scikit-learn and a hand computation."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.naive_bayes import BernoulliNB, MultinomialNB

from conftest import retrained_raw_score
from spamnb.model.counts import TokenCounts
from spamnb.model.model import Model, TrainOptions
from spamnb.text.tokens import TokenizerOptions
from spamnb.model.weights import log_odds_weights



def random_corpus(n_messages=300, n_tokens=400):
    # Zipf-like token frequencies, spam and ham drawing from shifted distributions.
    # A generator of its own: the corpus is the same whichever tests ran before.
    rng = np.random.default_rng(20261121)
    X = sp.random(n_messages, n_tokens, density=0.05, random_state=7, format="csr",
                  data_rvs=lambda k: rng.integers(1, 6, size=k)).astype(np.int64)
    y = (rng.random(n_messages) < 0.4).astype(int)
    X = X.tolil()
    X[y == 1, :40] = X[y == 1, :40] + sp.random(int(y.sum()), 40, density=0.3, random_state=3,
                                                data_rvs=lambda k: rng.integers(1, 4, size=k))
    X = X.tocsr().astype(np.int64)
    X.data = np.round(X.data).astype(np.int64)
    tokens = [f"t{i}" for i in range(n_tokens)]
    return tokens, X, y


def jll_difference(estimator, X):
    jll = estimator.predict_joint_log_proba(X)
    return jll[:, 1] - jll[:, 0]


def score_rows(model: Model, X, tokens):
    out = []
    for row in X:
        bag = []
        for index, value in zip(row.indices, row.data):
            bag.extend([tokens[index]] * int(value))
        out.append(model.score_tokens(bag).log_odds)
    return np.array(out)


# The model file stores weights as 32-bit floats (modelfile.py): seven
# significant digits, so scores through a model agree to about 1e-7 of the
# sum of |weights|; the weights themselves are checked to 1e-12 above that.
STORED = {"rtol": 1e-6, "atol": 1e-5}


@pytest.mark.parametrize("alpha", [1.0, 0.1, 2.5])
def test_multinomial_matches_sklearn(alpha):
    tokens, X, y = random_corpus()
    counts = TokenCounts.from_matrix(tokens, X, y)
    ours = log_odds_weights(counts, "multinomial", alpha)
    oracle = MultinomialNB(alpha=alpha, force_alpha=True).fit(X, y)
    np.testing.assert_allclose(ours.weights, oracle.feature_log_prob_[1] - oracle.feature_log_prob_[0],
                               rtol=1e-12, atol=1e-12)
    model = Model.from_counts(counts, TrainOptions("multinomial", alpha, TokenizerOptions(), normalize="none",
                                                   min_strength=0.0))
    np.testing.assert_allclose(score_rows(model, X[:50], tokens), jll_difference(oracle, X[:50]),
                               **STORED)


@pytest.mark.parametrize("alpha", [1.0, 0.3])
def test_bernoulli_matches_sklearn_including_absent_tokens(alpha):
    tokens, X, y = random_corpus()
    counts = TokenCounts.from_matrix(tokens, X, y)
    ours = log_odds_weights(counts, "bernoulli", alpha)
    oracle = BernoulliNB(alpha=alpha, force_alpha=True, binarize=0.0).fit(X, y)
    log_p = oracle.feature_log_prob_
    log_q = np.log1p(-np.exp(log_p))
    np.testing.assert_allclose(ours.weights, (log_p[1] - log_q[1]) - (log_p[0] - log_q[0]), rtol=1e-9)
    model = Model.from_counts(counts, TrainOptions("bernoulli", alpha, TokenizerOptions(), normalize="none",
                                                   min_strength=0.0))
    # The bias folds in Σ_w log(1 - p_cw), so the sum over present tokens alone
    # must give sklearn's full joint log likelihood difference.
    np.testing.assert_allclose(score_rows(model, X[:50], tokens), jll_difference(oracle, X[:50]),
                               **STORED)


def test_mixed_is_multinomial_training_with_presence_scoring():
    tokens, X, y = random_corpus()
    counts = TokenCounts.from_matrix(tokens, X, y)
    oracle = MultinomialNB(alpha=1.0, force_alpha=True).fit(X, y)
    present = (X[:50] > 0).astype(np.int64)
    model = Model.from_counts(counts, TrainOptions("mixed", 1.0, TokenizerOptions(), normalize="none",
                                                   min_strength=0.0))
    in_model_order = [tokens.index(t) for t in model.counts.tokens]
    np.testing.assert_allclose(model.weights, (oracle.feature_log_prob_[1] - oracle.feature_log_prob_[0])[in_model_order],
                               rtol=1e-6)
    np.testing.assert_allclose(score_rows(model, X[:50], tokens), jll_difference(oracle, present), **STORED)


@pytest.mark.usefixtures("any_evidence")
def test_hand_computed_multinomial_example():
    # spam: "free money free"; ham: "money meeting"; Laplace, V = 3 (free, meeting, money)
    counts = TokenCounts()
    counts.add([["free", "money", "free"], ["money", "meeting"]], [1, 0])
    model = Model.from_counts(counts, TrainOptions("multinomial", 1.0, TokenizerOptions(), normalize="none",
                                                   min_strength=0.0))
    # θ_spam: free (2+1)/(3+3) = 1/2, money (1+1)/6 = 1/3; θ_ham: free 1/5, money 2/5
    assert model.lookup("free")["weight"] == pytest.approx(math.log(0.5) - math.log(0.2))
    assert model.lookup("money")["weight"] == pytest.approx(math.log(1 / 3) - math.log(0.4))
    score = model.score_tokens(["free", "free", "unknown"])
    assert score.log_odds == pytest.approx(0.0 + 2 * math.log(2.5))  # equal priors: b = 0
    assert score.probability == pytest.approx(6.25 / 7.25)
    assert score.tokens_known == 1 and score.tokens_distinct == 2


@pytest.mark.usefixtures("any_evidence")
def test_min_strength_gives_weak_tokens_no_weight():
    # The hand example above: λ_free = log 2.5 = 0.92, λ_money = log(5/6) = -0.18.
    counts = TokenCounts()
    counts.add([["free", "money", "free"], ["money", "meeting"]], [1, 0])
    model = Model.from_counts(counts, TrainOptions("multinomial", 1.0, TokenizerOptions(), normalize="none",
                                                   min_strength=0.5))
    assert model.lookup("free")["weight"] == pytest.approx(math.log(2.5))
    assert model.lookup("money")["weight"] == 0.0
    assert model.lookup("money")["spam_count"] == 1  # its counts stay: learning remains exact
    score = model.score_tokens(["free", "money"])
    assert score.log_odds == pytest.approx(math.log(2.5)) and score.tokens_known == 1


@pytest.mark.usefixtures("any_evidence")
def test_calibration_scores_each_time_block_by_the_mail_before_it():
    # Five of each class in reading order, five blocks: message k of each
    # class is in block k.  Blocks 0 and 1 only teach; a message of block 2,
    # 3 or 4 is scored by a model of the blocks before it, exactly as a model
    # retrained on them alone would score it.  "offer" is weak in the whole
    # model (in three spam and two ham) and strong in the first blocks' (in
    # two spam and no ham): the held-out weights are recomputed, not copied.
    spam = [["cheap", "offer"], ["offer", "pills"], ["cheap", "pills"], ["offer", "deal"], ["pills", "deal"]]
    ham = [["notes", "lunch"], ["lunch", "meeting"], ["offer", "notes"], ["meeting", "notes"], ["offer", "lunch"]]
    docs = [doc for pair in zip(spam, ham) for doc in pair]
    labels = [1, 0] * 5
    block = [k // 2 for k in range(10)]
    options = TrainOptions("mixed", 0.5, TokenizerOptions(), normalize="mean", min_strength=0.8)
    counts = TokenCounts()
    counts.add(docs, labels)
    model = Model.from_counts(counts, options)
    assert model.lookup("offer")["weight"] == 0.0
    model.calibrate(docs, labels)
    scale, offset = model.meta["calibration"]["scale"], model.meta["calibration"]["offset"]
    for i in range(10):
        if block[i] < 2:
            assert np.isnan(model.held_out_log_odds[i])
            continue
        later = [j for j in range(10) if block[j] >= block[i]]
        raw = retrained_raw_score(docs, labels, i, options, leave_out=later)
        assert model.held_out_log_odds[i] == pytest.approx(offset + scale * raw)
    first_blocks = TokenCounts()
    first_blocks.add(docs[:4], labels[:4])
    assert abs(Model.from_counts(first_blocks, options).lookup("offer")["weight"]) >= 0.8


def test_counts_match_matrix_statistics():
    tokens, X, y = random_corpus(80, 60)
    counts = TokenCounts.from_matrix(tokens, X, y)
    streamed = TokenCounts()
    documents = []
    for row in X:
        bag = []
        for index, value in zip(row.indices, row.data):
            bag.extend([tokens[index]] * int(value))
        documents.append(bag)
    streamed.add(documents, list(y))
    order = [streamed.vocabulary[t] for t in tokens if t in streamed.vocabulary]
    kept = [i for i, t in enumerate(tokens) if t in streamed.vocabulary]
    np.testing.assert_array_equal(streamed.occurrences[:, order], counts.occurrences[:, kept])
    np.testing.assert_array_equal(streamed.documents[:, order], counts.documents[:, kept])
    np.testing.assert_array_equal(streamed.messages, counts.messages)


def test_weights_with_one_class_empty_say_nothing():
    counts = TokenCounts()
    counts.add([["a", "b"], ["a"]], [1, 1])
    for event_model in ("multinomial", "bernoulli", "mixed"):
        computed = log_odds_weights(counts, event_model, 1.0)
        assert computed.bias == 0.0 and computed.weights.tolist() == [0.0, 0.0]


def test_models_from_before_min_strength_weigh_every_token():
    from spamnb.model.scorer import options_from_meta, options_to_meta

    meta = options_to_meta(TrainOptions(min_strength=1.5))
    assert options_from_meta(meta).min_strength == 1.5
    del meta["min_strength"]  # what a model file or export written before the option holds
    assert options_from_meta(meta).min_strength == 0.0


@pytest.mark.usefixtures("any_evidence")
def test_retrain_margin_counts_the_near_errors_once_more():
    """Hand computation: mixed, α 1, mean, min strength 0.  Spam [a b], [a c];
    ham [d e], [d a].  N_spam: a 2, b 1, c 1; N_ham: d 2, e 1, a 1; both
    totals 4, V 5, so both denominators are 4 + 5 = 9 and λ_a = log 3/2,
    λ_b = λ_c = log 2, λ_d = -log 3, λ_e = -log 2.  Mean raw scores: the
    spam log 3/√2 ≈ 0.549 each, ham [d e] -log √6 ≈ -0.896, ham [d a]
    -log √2 ≈ -0.347.  A margin of 0.5 counts [d a]'s occurrences once
    more; 0.6 also both spam's; 0.3 none.  Message and document counts stay
    counts of messages."""
    from spamnb.learning.training import fit_tokenized

    documents = [["a", "b"], ["a", "c"], ["d", "e"], ["d", "a"]]
    labels = [1, 1, 0, 0]
    assert math.isclose((math.log(1.5) + math.log(2)) / 2, 0.549, abs_tol=1e-3)
    expected = {
        0.3: {"a": (1, 2), "b": (0, 1), "c": (0, 1), "d": (2, 0), "e": (1, 0)},
        0.5: {"a": (2, 2), "b": (0, 1), "c": (0, 1), "d": (3, 0), "e": (1, 0)},
        0.6: {"a": (2, 4), "b": (0, 2), "c": (0, 2), "d": (3, 0), "e": (1, 0)},
    }
    in_messages = {"a": (1, 2), "b": (0, 1), "c": (0, 1), "d": (2, 0), "e": (1, 0)}
    for margin, occurrences in expected.items():
        options = TrainOptions("mixed", 1.0, TokenizerOptions(), normalize="mean", min_strength=0.0,
                               retrain_margin=margin)
        counts = fit_tokenized(documents, labels, options, calibrated=False).counts
        got = {token: tuple(int(n) for n in counts.occurrences[:, i]) for i, token in enumerate(counts.tokens)}
        assert got == occurrences, margin
        assert {token: tuple(int(n) for n in counts.documents[:, i])
                for i, token in enumerate(counts.tokens)} == in_messages, margin
        assert counts.messages.tolist() == [2, 2], margin


def test_models_from_before_retrain_margin_counted_each_message_once():
    from spamnb.model.scorer import options_from_meta, options_to_meta

    meta = options_to_meta(TrainOptions(retrain_margin=2.5))
    assert options_from_meta(meta).retrain_margin == 2.5
    del meta["retrain_margin"]
    assert options_from_meta(meta).retrain_margin == 0.0


def test_held_out_scores_take_out_every_copy_of_a_twice_counted_message():
    """A near error counted twice (retrain_margin) is held out whole: its
    held-out score equals the score of a model trained without either copy."""
    from collections import Counter

    from conftest import held_out_scores, retrained_raw_score
    from spamnb.model.counts import TokenCounts

    tokens, X, y = random_corpus(120, 200)
    docs = [[tokens[j] for j in X[i].indices for _ in range(X[i, j])] for i in range(X.shape[0])]
    labels = y.tolist()
    options = TrainOptions("mixed", 0.5, TokenizerOptions(), normalize="mean", min_strength=0.5)
    counts = TokenCounts()
    counts.add(docs, labels)
    bag = Counter(docs[3])  # message 3's occurrences counted a second time, its document count once
    counts.occurrences[labels[3], [counts.vocabulary[token] for token in bag]] += list(bag.values())
    got = held_out_scores(counts, [docs[3]], [labels[3]], options, copies=[2])[0]
    assert math.isclose(got, retrained_raw_score(docs, labels, 3, options), abs_tol=1e-6)  # float32 weights
    once = held_out_scores(counts, [docs[3]], [labels[3]], options)[0]
    assert abs(once - got) > 1e-3  # one copy left in would score it differently
