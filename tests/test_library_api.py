"""The README's "Library API" section, run as written, and each name it lists.

The example block is taken from README.md itself (so the README cannot drift
from the code unnoticed), run on sample_data, and its results checked: the
model it saves and loads scores as the one it trained, `Scorer.open` (the
numpy-free path) gives that score, and the lower layers it names, chained by
hand, give the model's own weights.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import re

import numpy as np
import pytest

import spamnb
from conftest import ROOT, SAMPLE

SPAM_MESSAGE = next((SAMPLE / "mail" / "spam").iterdir())


def readme_example() -> str:
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## Library API", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_readme_example_runs_and_its_objects_agree(tmp_path, monkeypatch):
    code = readme_example()
    for name in ("spamnb.train", "spamnb.TrainOptions", "spamnb.Model.load", "spamnb.Scorer.open",
                 "score_message", "lookup", "top_tokens", "model.save"):
        assert name in code  # the names this test stands for are still the README's
    (tmp_path / "mail").symlink_to(SAMPLE / "mail")
    (tmp_path / "msg.eml").write_bytes(SPAM_MESSAGE.read_bytes())
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        exec(compile(code, "README.md", "exec"), namespace)  # noqa: S102  # our own README's example
    lines = printed.getvalue().splitlines()

    model, report, score, scorer = (namespace[name] for name in ("model", "report", "score", "scorer"))
    assert isinstance(model, spamnb.Model) and isinstance(scorer, spamnb.Scorer)
    assert model.options.event_model == "bernoulli" and model.options.alpha == 0.5
    assert report.messages == {"spam": 60, "ham": 60} and model.messages.tolist() == [60, 60]
    # A spam it was trained on leans to spam; a model of 120 messages may leave it unsure.
    assert isinstance(score, spamnb.Score) and score.probability > 0.5
    assert score.label == model.cutoffs.label(score.log_odds) and score.label in ("spam", "unsure")
    assert lines[0] == f"{score.label} {score.probability} {score.log_odds}"
    assert 0.0 <= score.probability <= 1.0
    assert math.isclose(score.log_odds, sum(effect.contribution for effect in score.effects)
                        + sum(value for _, value in score.terms), rel_tol=1e-9, abs_tol=1e-9)
    # The Scorer maps the same file: the same verdict and log-odds.
    by_scorer = scorer.score_message(SPAM_MESSAGE.read_bytes())
    assert by_scorer.label == score.label and math.isclose(by_scorer.log_odds, score.log_odds, rel_tol=1e-12)
    assert lines[-1] == by_scorer.label
    top = model.top_tokens(10, spam=True)
    assert len(top) == 10 and [row["weight"] for row in top] == sorted((row["weight"] for row in top), reverse=True)
    assert all(row["weight"] > 0 for row in top)
    ham_top = model.top_tokens(3, spam=False)
    assert all(row["weight"] < 0 for row in ham_top)
    found = model.lookup(top[0]["token"])
    assert found is not None and found["weight"] == top[0]["weight"]
    assert model.lookup("a token no sample message holds") is None
    assert os.path.getsize("my.spamnb") > 0


def test_every_public_name_resolves():
    import importlib

    for name in spamnb.__all__:
        assert getattr(spamnb, name) is not None, name
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## Library API", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"`(spamnb(?:\.\w+)+)`", section)
    assert len(listed) >= 5  # the lower layers the README names (the decoder is inside message_tokens)
    for dotted in listed:
        module, _, attribute = dotted.rpartition(".")
        try:
            importlib.import_module(dotted)
        except ModuleNotFoundError:
            assert callable(getattr(importlib.import_module(module), attribute)), dotted
    assert spamnb.Cutoffs().label(0.0) == "unsure"
    assert spamnb.TokenizerOptions().bigrams in (True, False)
    with pytest.raises(AttributeError):
        spamnb.no_such_name  # noqa: B018


def test_lower_layers_chained_by_hand_give_the_models_weights():
    """sources -> tokens (decoded in the core) -> counts -> weights, as the README lists them."""
    from spamnb.model.counts import TokenCounts
    from spamnb.model.labels import HAM, SPAM
    from spamnb.app.metrics import roc_auc
    from spamnb.mail.sources import read_messages
    from spamnb.text.tokens import message_tokens
    from spamnb.model.weights import log_odds_weights

    options = spamnb.TrainOptions(retrain_margin=0.0)
    tokenizer = options.tokenizer
    counts = TokenCounts()
    for label, folder in ((SPAM, "spam"), (HAM, "ham")):
        skipped: list = []
        documents = [message_tokens(raw.data, tokenizer)  # decoded and tokenized in the core
                     for raw in read_messages(str(SAMPLE / "mail" / folder), skipped)]
        assert len(documents) == 60 and not skipped
        counts.add(documents, [label] * len(documents))
    weights = log_odds_weights(counts, options.event_model, options.alpha, options.robinson, options.min_strength)
    model, _ = spamnb.train([str(SAMPLE / "mail" / "spam")], [str(SAMPLE / "mail" / "ham")], options)
    assert sorted(counts.tokens) == sorted(model.counts.tokens)
    ours = dict(zip(counts.tokens, weights.weights.tolist()))
    theirs = {row["token"]: row["weight"] for row in model.top_tokens(50) + model.top_tokens(50, spam=False)}
    for token, weight in theirs.items():
        assert math.isclose(ours[token], weight, rel_tol=1e-6, abs_tol=1e-6), token  # stored as float32
    assert math.isclose(weights.bias, model.bias, rel_tol=1e-12)
    # metrics: a perfect ranking has AUC 1, a reversed one 0.
    assert roc_auc(np.array([0, 0, 1, 1]), np.array([0.1, 0.2, 0.8, 0.9])) == 1.0
    assert roc_auc(np.array([0, 0, 1, 1]), np.array([0.9, 0.8, 0.2, 0.1])) == 0.0
