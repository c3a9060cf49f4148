"""Chinese segmentation (spamnb._core.segment: jieba-rs over jieba's own
dictionary, compiled in and loaded a few entries a run): exactly stock
jieba's words, with stock jieba (the [test] extra) as the oracle."""

import os
import subprocess
import sys

import jieba
import pytest

from conftest import ROOT, corpus
from spamnb import _core

SENTENCES = [
    "我司可办理正规发票增值税",
    "本公司长期代开各地区增值税专用发票普通发票点数优惠欢迎来电咨询",
    "涐司岢办理正規髮票",  # homoglyphs and Traditional, as they arrive
    "頭髮乾燥皇后著名於菟乾隆臺灣",  # Traditional
    "马上就要过年了小明和小红去北京天安门广场看升旗",  # names: the HMM's unknown words
    "中华人民共和国",
    "的",
    "",
    "㐀㐁中文\u9fa6\u9fff测试\uf900",  # Extension A, the block's end, a compatibility ideograph
    "我们在2024年办理ABC发票，请联系QQ",  # mixed: jieba's own splitting of Latin and digits
    "欢迎来电咨询正规发票" * 300,  # a long run
]


def all_sentences():
    return SENTENCES + [_core.fold_variants(s) for s in SENTENCES]


def stock_segment(stock, sentence):
    """What _core.segment must give: jieba's cut, of the whole run up to
    MAX_RUN characters and of each PIECE-character piece past that."""
    if len(sentence) <= _core.MAX_RUN:
        return stock.lcut(sentence)
    return [word for start in range(0, len(sentence), _core.PIECE)
            for word in stock.lcut(sentence[start:start + _core.PIECE])]


@pytest.fixture(scope="session")
def stock(tmp_path_factory):
    """Stock jieba Tokenizer initialised the way jieba does it (its marshal
    cache in a temporary directory)."""
    jieba.setLogLevel(40)
    tokenizer = jieba.Tokenizer()
    tokenizer.tmp_dir = str(tmp_path_factory.mktemp("jieba"))
    tokenizer.initialize()
    return tokenizer


def han_runs(text):
    """The runs of Han characters the tokenizer segments."""
    return _core._han_runs(text)


def test_core_constants():
    # A run is cut only past MAX_RUN characters, into PIECE-character pieces
    # (the values the Python segmenter had, which the models were trained with).
    assert (_core.MAX_RUN, _core.PIECE) == (256, 64)
    long = "欢迎来电咨询正规发票" * 30  # 300 characters
    words = _core.segment(long)
    assert "".join(words) == long
    assert words == [word for start in range(0, len(long), 64) for word in _core.segment(long[start:start + 64])]


def test_core_segment_gives_stock_jieba_words(stock):
    runs = [run for sentence in all_sentences() for run in han_runs(sentence)]
    runs += ["中国\u9fd6\u9fe0人", "\u9ff0\u9ff1中文", "㐀中国人民", "\u2e80中", "中国\uf900人", "代开发票㊣",
             "发" * 10_000, "B超检查", "AT&T公司"]
    for text in all_sentences() * 2 + runs:  # twice: the second time from the run cache
        assert _core.segment(text) == stock_segment(stock, text), text
    assert _core.segment("涐司岢办理正規髮票") == ["涐", "司", "岢", "办理", "正規", "髮", "票"]
    assert _core.segment(_core.fold_variants("涐司岢办理正規髮票")) == ["我司", "可", "办理", "正规", "发票"]


def test_characters_outside_jiebas_range_stand_alone_as_jieba_gives_them(stock):
    # jieba's Han class is U+4E00..U+9FD5: Extension A, U+9FD6.., compatibility
    # ideographs and radicals come out as jieba gives them (jieba-rs by
    # itself would join U+9FD6.. characters).
    for run in ["中国\u9fd6\u9fe0人", "\u9ff0\u9ff1中文", "㐀中国人民", "\u2e80中", "中国\uf900人"]:
        assert _core.segment(run) == stock.lcut(run), run
    assert _core.segment("\u9ff0\u9ff1中文") == ["\u9ff0", "\u9ff1", "中文"]


def test_core_segment_of_a_fresh_process_is_cheap():
    """One Chinese message in a fresh process reads a sliver of the dictionary
    (Jieba::new() would build all of it: 300 ms)."""
    code = ("import time; from spamnb import _core; t = time.perf_counter(); "
            "_core.segment('本公司长期代开各地区增值税专用发票普通发票点数优惠欢迎来电咨询'); "
            "print(time.perf_counter() - t)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert float(result.stdout) < 0.1


def test_tokenizing_chinese_imports_no_jieba_and_writes_no_cache(tmp_path):
    # jieba, rjieba and OpenCC are no longer runtime dependencies: the
    # dictionary is compiled in, nothing is read or written in a cache.
    code = ("import sys; from spamnb.text.tokens import TokenizerOptions, message_tokens; "
            "raw = 'Subject: 发票\\nContent-Type: text/plain; charset=utf-8\\n\\n本公司代开發票'.encode(); "
            "print(message_tokens(raw, TokenizerOptions())); "
            "print(sorted(m for m in ('jieba', 'rjieba', 'opencc', 'pkg_resources') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(tmp_path),
                                 "HOME": str(tmp_path)})
    tokens, imported = result.stdout.splitlines()
    assert "'subject:发票'" in tokens and "'开发票'" in tokens  # 發 folded
    assert imported == "[]"
    assert os.listdir(tmp_path) == []


def corpus_runs(folder, limit, step):
    """Per message (every `step`th of the index, at most `limit`), the Han
    runs of its header fields and texts, normalised and folded as the
    tokenizer does before it segments them."""
    lines = (folder / "index").read_text().splitlines()[::step][:limit]
    out = []
    for line in lines:
        headers, _, texts, *_ = _core.decode_message((folder / line.split("\t")[1]).read_bytes())
        runs = []
        for text in [value for _, value in headers] + list(texts):
            runs += [_core.fold_variants(run) for run in han_runs(_core.normalise(text))]
        out.append(runs)
    return out


def test_core_agrees_on_300_ccert_zh_messages(stock):
    folder = corpus("ccert_zh")
    messages = corpus_runs(folder, 300, step=25)  # the index is ham, then spam
    runs = [run for message in messages for run in message]
    assert len(messages) == 300 and len(runs) > 1_000 and sum(map(len, runs)) > 5_000
    assert [run for run in runs if _core.segment(run) != stock_segment(stock, run)] == []
