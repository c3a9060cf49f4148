"""Chinese segmentation: exactly stock jieba's words, from a lazily read prefix file."""

import importlib.util
import os
import stat
import subprocess
import sys

import jieba
import pytest

from conftest import ROOT, corpus
from spamnb.text import chinese, jiebaload, prefixdict

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
    return SENTENCES + [chinese.fold_variants(s) for s in SENTENCES]


def stock_segment(stock, sentence):
    """What chinese.segment must give: jieba's cut, of the whole run up to
    chinese.MAX_RUN characters and of each PIECE-character piece past that."""
    if len(sentence) <= chinese.MAX_RUN:
        return stock.lcut(sentence)
    return [word for start in range(0, len(sentence), chinese.PIECE)
            for word in stock.lcut(sentence[start:start + chinese.PIECE])]


@pytest.fixture(scope="session")
def full(tmp_path_factory):
    """(cache directory holding a prefix file of jieba's real dictionary,
    stock jieba Tokenizer initialised the way jieba does it)."""
    base = tmp_path_factory.mktemp("xdg")
    stock = jieba.Tokenizer()
    stock.tmp_dir = str(base)
    stock.initialize()
    directory = base / "spamnb"
    directory.mkdir(mode=0o700)
    tag = jiebaload.source_tag(jiebaload.dictionary_path())
    prefixdict.write(directory / jiebaload.CACHE_NAME, tag, stock.FREQ, stock.total)
    return directory, stock


@pytest.fixture
def small(tmp_path, monkeypatch):
    """(empty cache directory, stock Tokenizer) for a 7,000-word dictionary
    (every 50th line of jieba's): file mechanics at a fraction of the cost."""
    lines = open(jiebaload.dictionary_path(), "rb").read().splitlines(keepends=True)[::50]
    path = tmp_path / "dict.txt"
    path.write_bytes(b"".join(lines))
    monkeypatch.setattr(jiebaload, "dictionary_path", lambda: str(path))
    stock = jieba.Tokenizer(str(path))
    stock.tmp_dir = str(tmp_path)
    stock.initialize()
    return tmp_path / "xdg" / "spamnb", stock


@pytest.fixture
def fresh_state():
    """chinese.py with no tokenizer loaded and no runs remembered, before and after."""
    def reset():
        chinese._tokenizer = chinese._bulk_cut = None
        chinese._cut_cached.cache_clear()
    reset()
    yield
    reset()


def point_cache(monkeypatch, directory):
    monkeypatch.setenv("XDG_CACHE_HOME", str(directory.parent))
    assert chinese.cache_dir() == directory


def same_as_stock(tokenizer, stock):
    for sentence in all_sentences():
        assert tokenizer.lcut(sentence) == stock.lcut(sentence), sentence


def test_segment_gives_stock_jieba_words(full, fresh_state, monkeypatch):
    directory, stock = full
    point_cache(monkeypatch, directory)
    for sentence in all_sentences() * 2:  # twice: the second time from the run cache
        assert chinese.segment(sentence) == stock_segment(stock, sentence), sentence
    assert isinstance(chinese._tokenizer, jiebaload.LazyTokenizer)
    assert chinese.segment("涐司岢办理正規髮票") == ["涐", "司", "岢", "办理", "正規", "髮", "票"]
    assert chinese.segment(chinese.fold_variants("涐司岢办理正規髮票")) == ["我司", "可", "办理", "正规", "发票"]


def test_each_sentence_alone_in_a_fresh_tokenizer(full):
    directory, stock = full
    for sentence in all_sentences():
        tokenizer = jiebaload.load_tokenizer(directory)
        assert isinstance(tokenizer, jiebaload.LazyTokenizer)
        assert tokenizer.lcut(sentence) == stock.lcut(sentence), sentence


def test_one_message_reads_a_sliver_then_bulk_switches_to_the_whole(full, monkeypatch):
    directory, stock = full
    tokenizer = jiebaload.load_tokenizer(directory)
    tokenizer.lcut(SENTENCES[1])
    assert 0 < len(tokenizer.FREQ) < 1_000 and tokenizer.table is not None
    monkeypatch.setattr(jiebaload, "FULL_AFTER", len(tokenizer.FREQ) + 1)
    same_as_stock(tokenizer, stock)
    assert tokenizer.table is None and len(tokenizer.FREQ) == len(stock.FREQ)


def han_runs(text):
    """The runs of Han characters the tokenizer hands to chinese.segment()."""
    from spamnb import _core
    from spamnb.text.tokens import _han_run

    runs = [run for index, run in enumerate(_han_run().split(text)) if index % 2 and run]
    assert _core._han_runs(text) == runs  # the Rust tokenizer's split (text/tokens.rs han_split)
    return runs


def test_rjieba_cuts_han_runs_as_jieba_does(full):
    """rjieba (jieba-rs) in bulk gives jieba's words, characters outside
    jieba's U+4E00..U+9FD5 (Extension A, U+9FD6.., compatibility
    ideographs, radicals) alone as jieba gives them; rjieba by itself would
    join U+9FD6.. characters.  The corpora: bench/zh_segment.py --rjieba."""
    _, stock = full
    cut = jiebaload.bulk_cutter()
    runs = [run for sentence in all_sentences() for run in han_runs(sentence)]
    runs += ["中国\u9fd6\u9fe0人", "\u9ff0\u9ff1中文", "㐀中国人民", "\u2e80中", "中国\uf900人", "代开发票㊣"]
    for run in runs:
        assert cut(run) == stock.lcut(run), run
    import rjieba

    assert rjieba.cut("\u9ff0\u9ff1中文", True) != stock.lcut("\u9ff0\u9ff1中文")  # why the split is there


def test_bulk_segmenting_goes_over_to_rjieba(full, fresh_state, monkeypatch):
    directory, stock = full
    point_cache(monkeypatch, directory)
    monkeypatch.setattr(chinese, "BULK_AFTER", 1)
    runs = [run for sentence in all_sentences() for run in han_runs(sentence)]
    assert chinese.segment(runs[0]) == stock_segment(stock, runs[0])  # the first, lazily with jieba
    assert chinese._bulk_cut is None and isinstance(chinese._tokenizer, jiebaload.LazyTokenizer)
    for run in runs[1:]:
        assert chinese.segment(run) == stock_segment(stock, run), run
    assert chinese._bulk_cut and chinese._tokenizer is None


def test_file_is_private_and_written_atomically(small, monkeypatch):
    directory, stock = small
    first = jiebaload.load_tokenizer(directory)  # builds, and writes for the next process
    assert not isinstance(first, jiebaload.LazyTokenizer)
    path = directory / jiebaload.CACHE_NAME
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert os.listdir(directory) == [jiebaload.CACHE_NAME]  # no temporary file left
    same_as_stock(first, stock)
    same_as_stock(jiebaload.load_tokenizer(directory), stock)

    good = path.read_bytes()
    monkeypatch.setattr(os, "fsync", lambda fd: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError):
        prefixdict.write(path, "another source", {"a": 1}, 1)
    assert path.read_bytes() == good and os.listdir(directory) == [jiebaload.CACHE_NAME]


def damage_header(data):
    return data[:20] + bytes([data[20] ^ 1]) + data[21:]


def damage_entries(data):
    # Every 97th byte of the second half: the pair records, frequencies and
    # words, which are read only when a run needs them.
    data = bytearray(data)
    for i in range(len(data) // 2, len(data), 97):
        data[i] ^= 0x55
    return bytes(data)


@pytest.mark.parametrize("damage", [damage_header, damage_entries, lambda d: d[: len(d) // 2],
                                    lambda d: b""], ids=["header", "entries", "truncated", "empty"])
def test_damaged_file_is_rebuilt(small, damage):
    directory, stock = small
    jiebaload.load_tokenizer(directory)
    path = directory / jiebaload.CACHE_NAME
    good = path.read_bytes()
    path.write_bytes(damage(good))
    same_as_stock(jiebaload.load_tokenizer(directory), stock)
    assert path.read_bytes() == good


def test_damage_found_while_cutting_switches_to_the_whole_dictionary(small):
    directory, stock = small
    jiebaload.load_tokenizer(directory)
    path = directory / jiebaload.CACHE_NAME
    good = path.read_bytes()
    path.write_bytes(damage_entries(good))
    tokenizer = jiebaload.LazyTokenizer(
        prefixdict.PrefixFile(path, jiebaload.source_tag(jiebaload.dictionary_path())),
        directory, jiebaload.source_tag(jiebaload.dictionary_path()))  # opens: header is fine
    same_as_stock(tokenizer, stock)
    assert tokenizer.table is None and path.read_bytes() == good


def test_file_from_another_jieba_version_is_rebuilt(small, monkeypatch):
    directory, stock = small
    jiebaload.load_tokenizer(directory)
    monkeypatch.setattr(jieba, "__version__", "0.41")
    assert not isinstance(jiebaload.load_tokenizer(directory), jiebaload.LazyTokenizer)
    tokenizer = jiebaload.load_tokenizer(directory)
    assert isinstance(tokenizer, jiebaload.LazyTokenizer)
    same_as_stock(tokenizer, stock)


def test_file_others_could_write_is_not_trusted(small):
    directory, stock = small
    jiebaload.load_tokenizer(directory)
    path = directory / jiebaload.CACHE_NAME
    path.chmod(0o666)
    assert not isinstance(jiebaload.load_tokenizer(directory), jiebaload.LazyTokenizer)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_unwritable_cache_falls_back_to_the_whole_dictionary(small, fresh_state, monkeypatch, capfd):
    _, stock = small
    blocker = small[0].parent.parent / "a-file"
    blocker.write_text("")
    directory = blocker / "spamnb"  # mkdir fails, even for root
    point_cache(monkeypatch, directory)
    for sentence in all_sentences():
        assert chinese.segment(sentence) == stock_segment(stock, sentence)
    assert not isinstance(chinese._tokenizer, jiebaload.LazyTokenizer)
    assert capfd.readouterr().err == ""  # jieba's initialize() logged a traceback here


def test_cache_that_cannot_be_written_leaves_no_file(small, monkeypatch):
    directory, stock = small
    directory.mkdir(parents=True)

    def refuse(**_):
        raise PermissionError("read-only")  # what a read-only directory does (not to root)
    monkeypatch.setattr(prefixdict.tempfile, "mkstemp", refuse)
    for _ in range(2):
        tokenizer = jiebaload.load_tokenizer(directory)
        assert not isinstance(tokenizer, jiebaload.LazyTokenizer)
        same_as_stock(tokenizer, stock)
    assert os.listdir(directory) == []


def test_jieba_loads_without_pkg_resources():
    code = "import sys, spamnb.text.jiebaload; print('pkg_resources' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.stdout.strip() == "False", result.stderr


def test_300_ccert_zh_messages_match_stock_jieba(full, fresh_state, monkeypatch):
    folder = corpus("ccert_zh")
    directory, stock = full
    point_cache(monkeypatch, directory)
    spec = importlib.util.spec_from_file_location("zh_segment", ROOT / "bench" / "zh_segment.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    runs = bench.corpus_runs(folder, 300, step=25)  # the index is ham, then spam
    assert len(runs) == 300 and sum(map(len, runs)) > 5_000
    assert bench.differences(runs, stock) == []


# The Rust core (spamnb._core.segment): jieba-rs over jieba's own dictionary,
# compiled in and loaded a few entries a run.  It must give stock jieba's
# words, with the same MAX_RUN / PIECE cuts, when the Python above is gone.

def test_core_constants_are_the_pythons():
    from spamnb import _core

    assert (_core.MAX_RUN, _core.PIECE) == (chinese.MAX_RUN, chinese.PIECE)


def test_core_segment_gives_stock_jieba_words(full):
    from spamnb import _core

    _, stock = full
    runs = [run for sentence in all_sentences() for run in han_runs(sentence)]
    runs += ["中国\u9fd6\u9fe0人", "\u9ff0\u9ff1中文", "㐀中国人民", "\u2e80中", "中国\uf900人", "代开发票㊣",
             "发" * 10_000, "B超检查", "AT&T公司"]
    for text in all_sentences() * 2 + runs:  # twice: the second time from the run cache
        assert _core.segment(text) == stock_segment(stock, text), text
    assert _core.segment("涐司岢办理正規髮票") == ["涐", "司", "岢", "办理", "正規", "髮", "票"]
    assert _core.segment(_core.fold_variants("涐司岢办理正規髮票")) == ["我司", "可", "办理", "正规", "发票"]


def test_core_segment_of_a_fresh_process_is_cheap():
    """One Chinese message in a fresh process reads a sliver of the dictionary
    (Jieba::new() would build all of it: 300 ms)."""
    code = ("import time; from spamnb import _core; t = time.perf_counter(); "
            "_core.segment('本公司长期代开各地区增值税专用发票普通发票点数优惠欢迎来电咨询'); "
            "print(time.perf_counter() - t)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert float(result.stdout) < 0.1


def test_core_agrees_on_300_ccert_zh_messages(full):
    from spamnb import _core

    folder = corpus("ccert_zh")
    _, stock = full
    spec = importlib.util.spec_from_file_location("zh_segment", ROOT / "bench" / "zh_segment.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    runs = [run for message in bench.corpus_runs(folder, 300, step=25) for run in message]
    assert len(runs) > 1_000
    assert [run for run in runs if _core.segment(run) != stock_segment(stock, run)] == []
