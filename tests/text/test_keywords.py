"""Hand-made keyword lists (`--keywords FILE`): only the listed tokens weigh."""

import numpy as np

from conftest import SAMPLE, run_spamnb
from spamnb.text.keywords import parse
from spamnb.model.model import Model
from spamnb.model.scorer import Scorer
from spamnb.text.tokens import TokenizerOptions


def test_entries_are_read_as_the_tokenizer_reads_text():
    keywords = parse("# comment\n發票  # folded\nFree\n代开 发票\nsubject:免费\n\n", TokenizerOptions())
    assert keywords == {"发票", "free", "代开 发票", "subject:免费"}
    assert parse("free money\n", TokenizerOptions(bigrams=False)) == {"free", "money"}


def test_only_keywords_weigh_in_a_trained_model_and_after_learning(tmp_path):
    listing = tmp_path / "keywords.txt"
    listing.write_text("free\nmoney\n发票\n代开\nmeeting\n", encoding="utf-8")
    path = tmp_path / "model.spamnb"
    trained = run_spamnb("train", SAMPLE / "mail", "--keywords", listing, "--min-strength", "0",
                         "--model", path, "-q")
    assert trained.returncode == 0, trained.stderr
    model = Model.load(path)
    tokens = np.array(model.counts.tokens, dtype=object)
    weighing = set(tokens[model.weights != 0])
    assert weighing and weighing <= {"free", "money", "发票", "代开", "meeting"}
    assert len(model.counts) > 1000  # every token is still counted
    message = (SAMPLE / "maildir" / "spam" / "new" / "1739205492.M2P4102.sample").read_bytes()
    explained = Scorer.open(path).score_message(message, explain=True)
    assert explained.effects and {effect.token for effect in explained.effects} <= weighing
    # Learning appends (journal) and the rule holds for the tokens it touches.
    learned = run_spamnb("learn", "--spam", SAMPLE / "maildir" / "ham", "--model", path, "-q")
    assert learned.returncode == 0, learned.stderr
    live = Scorer.open(path).score_message(message, explain=True)
    assert {effect.token for effect in live.effects} <= {"free", "money", "发票", "代开", "meeting"}
    shown = run_spamnb("inspect", "--model", path, "--word", "發票", "--word", "hello", "--format", "json")
    rows = {row["token"]: row.get("keyword") for row in __import__("json").loads(shown.stdout)["words"]}
    assert rows == {"发票": True, "hello": False}
