"""Acceptance on the real shared corpora (skipped when ../shared/corpora is absent)."""

import json

import pytest

from conftest import corpus, run_spamnb
from spamnb import Model


@pytest.fixture(scope="module")
def sa_model(tmp_path_factory):
    folder = corpus("spamassassin")
    path = tmp_path_factory.mktemp("sa") / "sa.model"
    result = run_spamnb("train", "--spam", folder / "spam", "--ham", folder / "ham", "--model", path)
    assert result.returncode == 0 and b"Traceback" not in result.stderr, result.stderr
    assert b"trained on 1,896 spam + 4,150 ham" in result.stdout
    return path


@pytest.fixture(scope="module")
def zh_model(tmp_path_factory):
    folder = corpus("ccert_zh")
    path = tmp_path_factory.mktemp("zh") / "zh.model"
    # Content headers only: Received/Date/Message-ID give ccert_zh's labels away.
    result = run_spamnb("train", folder, "--headers", "content", "--model", path)
    assert result.returncode == 0 and b"Traceback" not in result.stderr, result.stderr
    assert b"trained on 3,987 spam + 3,628 ham" in result.stdout
    return path


def classify_dir(model, directory):
    result = run_spamnb("classify", "--model", model, "--format", "jsonl", directory)
    assert result.returncode == 0 and b"Traceback" not in result.stderr, result.stderr
    records = [json.loads(line) for line in result.stdout.decode().splitlines()]
    assert len(records) == sum(1 for _ in directory.iterdir())
    assert {r["label"] for r in records} <= {"spam", "ham", "unsure"}
    return records


def test_spamassassin_classify_directory_as_jsonl(sa_model):
    records = classify_dir(sa_model, corpus("spamassassin") / "spam")
    # Training mail: nearly all of it must come back as spam (94.5 % with the
    # cutoffs fitted on held-out blocks, which leave the rest unsure rather
    # than risk ham), and none as ham.
    assert sum(r["label"] == "spam" for r in records) / len(records) > 0.93
    assert not any(r["label"] == "ham" for r in records)


def test_ccert_classify_directory_as_jsonl_and_no_routing_tokens(zh_model):
    records = classify_dir(zh_model, corpus("ccert_zh") / "ham")
    assert sum(r["label"] == "ham" for r in records) / len(records) > 0.95
    model = Model.load(zh_model)
    assert not any(t.startswith(("received:", "date:", "message-id:")) for t in model.counts.tokens)
    assert model.lookup("发票")["spam_count"] > 1000


def test_stdin_english_and_gb2312_messages(sa_model, zh_model):
    english = (corpus("spamassassin") / "spam" / "spam__00001.7848dde101aa985090474a91ec93fcf0").read_bytes()
    chinese = (corpus("ccert_zh") / "spam" / "spam_1").read_bytes()
    assert not chinese.isascii() and "会员" in chinese.decode("gb2312")  # raw GB2312 bytes
    for model, raw in ((sa_model, english), (zh_model, chinese)):
        result = run_spamnb("classify", "--model", model, "--format", "jsonl", "--explain", "-", input=raw)
        assert result.returncode == 0, result.stderr
        record = json.loads(result.stdout)
        assert record["path"] == "-" and record["label"] == "spam"
    zh_tokens = {e["token"] for e in json.loads(
        run_spamnb("classify", "--model", zh_model, "--format", "jsonl", "--explain", "--top", "30",
                   input=chinese).stdout)["explain"]}
    assert zh_tokens & {"域名", "优惠", "注册", "会员"}  # segmented Chinese words drive the verdict
