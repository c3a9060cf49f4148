"""The model file: round trip, atomic replacement, and refusal of damaged files."""

import json
import os
import struct
import time
import zlib

import numpy as np
import pytest

from conftest import SAMPLE, run_spamnb
from spamnb.model import modelfile
from spamnb.model.counts import TokenCounts
from spamnb.errors import ModelError
from spamnb.model.model import Model, TrainOptions
from spamnb.model.journal import encode
from spamnb.model.modelfile import MAGIC, PREFIX
from spamnb.model.modelread import read_model
from spamnb.model.opening import open_scorer
from spamnb.model.scorer import LiveTable, NeedsWholeLoad, Scorer
from spamnb._core import block_crcs
from spamnb._core import token_key
from spamnb.model.scoring import Cutoffs, WeightTable
from spamnb.text.tokens import TokenizerOptions

MAIL = SAMPLE / "mail"


def small_model(extra_token="viagra"):
    counts = TokenCounts()
    counts.add([["cheap", extra_token, "发票", "cheap"], ["meeting", "notes", "发票"], ["lunch"]], [1, 0, 0])
    options = TrainOptions("bernoulli", 0.5, TokenizerOptions(headers=("subject",), stopwords=frozenset({"the"})))
    return Model.from_counts(counts, options, Cutoffs(spam=0.9, ham=0.2))


def test_round_trip_keeps_counts_options_weights_and_cutoffs(tmp_path):
    model = small_model()
    path = tmp_path / "m.spamnb"
    model.save(path)
    loaded = Model.load(path)
    assert loaded.options == model.options
    assert loaded.cutoffs == Cutoffs(spam=0.9, ham=0.2)
    assert loaded.bias == model.bias
    np.testing.assert_array_equal(loaded.weights, model.weights)
    np.testing.assert_array_equal(loaded.counts.occurrences, model.counts.occurrences)
    np.testing.assert_array_equal(loaded.counts.documents, model.counts.documents)
    np.testing.assert_array_equal(loaded.counts.messages, [2, 1])
    assert loaded.counts.tokens == model.counts.tokens
    for token in ("cheap", "发票", "lunch"):
        assert loaded.lookup(token) == model.lookup(token)
    assert loaded.lookup("absent") is None
    tokens = ["cheap", "发票", "nothing"]
    assert loaded.score_tokens(tokens).log_odds == model.score_tokens(tokens).log_odds


def test_model_open_is_a_whole_load(tmp_path):
    # Model.open once inherited Scorer.open and built a Model from the wrong
    # arguments: its .messages raised AttributeError.
    path = tmp_path / "m.spamnb"
    small_model().save(path)
    opened = Model.open(path)
    assert type(opened) is Model
    assert list(opened.messages) == [2, 1]
    assert opened.score_message(b"Subject: cheap\n\ncheap viagra") == Model.load(path).score_message(
        b"Subject: cheap\n\ncheap viagra")
    assert type(Scorer.open(path)) is Scorer


def test_a_mapped_model_is_read_only_and_keeps_the_file_it_mapped(tmp_path):
    """The core's mapping (read_model) lends read-only bytes, and a reader keeps
    the file it opened when a writer renames a new model into place."""
    path = tmp_path / "m.spamnb"
    small_model().save(path)
    before = path.read_bytes()
    model_file = read_model(path)
    keys = model_file.stored("keys")
    keys_bytes = bytes(keys)
    with pytest.raises(TypeError):
        memoryview(model_file.data)[0:1] = b"x"
    small_model(extra_token="lottery").save(path)  # a new file renamed over it
    assert path.read_bytes() != before
    assert bytes(memoryview(model_file.data)) == before and len(model_file.data) == len(before)
    del model_file
    assert bytes(keys) == keys_bytes  # a view alone keeps the mapping


def test_a_journal_scoring_cannot_apply_is_folded_in_by_a_whole_load(tmp_path):
    # A Bernoulli model's λ is not a token's count term plus one constant, so
    # a journal on one (not this spamnb's: its learn rewrites such a model
    # whole) is scored only once the whole load has folded it into the counts.
    path = tmp_path / "m.spamnb"
    small_model().save(path)
    header = {"messages": [0, 1], "totals": [0, 2], "vocabulary": 0, "day": 1, "learned": [], "recent": []}
    with open(path, "ab") as file:
        file.write(encode(header, {token_key("cheap"): [0, 2, 0, 1]}, {}))
    with pytest.raises(NeedsWholeLoad):
        Scorer.open(path)
    opened = open_scorer(path)
    assert type(opened) is Model and list(opened.messages) == [2, 2]
    assert opened.lookup("cheap")["spam_count"] == 4
    assert opened.lookup("cheap") == Model.load(path).lookup("cheap") != small_model().lookup("cheap")


def test_key_index_finds_every_token_of_a_large_vocabulary():
    tokens = [f"token{i}" for i in range(20000)] + ["发票", "subject:免费", ""]
    keys = np.array(sorted(map(token_key, tokens)), dtype="<u8")
    weights = np.arange(len(tokens), dtype="<f4")
    block = 64
    table = WeightTable(keys, weights, keys[::block].copy(),
                        np.array(block_crcs(keys.tobytes(), weights.tobytes(), block), dtype="<u4"), block)
    position = {key: i for i, key in enumerate(keys.tolist())}
    assert all(table.index(t) == position[token_key(t)] for t in tokens)
    assert table.index("token20000") == -1 and table.index("发") == -1
    assert table.weight(table.index("发票")) == position[token_key("发票")]


def test_a_bag_is_what_counting_and_looking_up_each_token_give():
    from collections import Counter

    tokens = [f"token{i}" for i in range(3000)] + ["发票", ""]
    keys = np.array(sorted(map(token_key, tokens)), dtype="<u8")
    weights = np.arange(len(tokens), dtype="<f4")
    table = WeightTable(keys, weights, keys[::64].copy(),
                        np.array(block_crcs(keys.tobytes(), weights.tobytes(), 64), dtype="<u4"), 64)
    # Repeats, tokens the model lacks, and a lone surrogate (a token read back from an old model).
    message = ["发票", "token7", "unseen", "token7", "\udc80x", "", "发票", "\udc80x", "token2999", "token7"]
    distinct, counts, indexes, found_keys = table.bag(message)
    bag = Counter(message)
    assert distinct == list(bag) and counts == list(bag.values())
    assert indexes == [table.index(token) for token in bag]
    assert found_keys == [token_key(token) for token in bag]
    assert table.bag([]) == ([], [], [], [])
    weights = [None if index < 0 else table.weight(index) for index in indexes]
    for _ in range(2):  # looked up, then answered from the tokens remembered
        assert table.weighed_bag(message) == (distinct, counts, weights)


def test_same_counts_give_the_same_file_whatever_the_order_learned(tmp_path):
    first, second = TokenCounts(), TokenCounts()
    first.add([["cheap", "pills"], ["lunch", "notes"]], [1, 0])
    second.add([["lunch", "notes"]], [0])
    second.add([["pills", "cheap"]], [1])
    for counts, name in ((first, "a"), (second, "b")):
        model = Model.from_counts(counts, TrainOptions())
        model.meta["created"] = "fixed"
        model.save(tmp_path / name)
    a, b = read_model(tmp_path / "a"), read_model(tmp_path / "b")
    for name in a.meta["sections"]:
        assert bytes(a.decoded(name)) == bytes(b.decoded(name)), name


def test_scoring_checks_each_block_it_reads(tmp_path):
    """A damaged weight is refused by classify (which reads only the blocks a
    message needs) and by a full load; an undamaged model scores alike both ways."""
    counts = TokenCounts()
    counts.add([[f"spam{i}" for i in range(3000)], [f"ham{i}" for i in range(3000)]], [1, 0])
    path = tmp_path / "m.spamnb"
    Model.from_counts(counts, TrainOptions(tokenizer=TokenizerOptions(headers=()))).save(path)
    message = b"Subject: x\n\nspam1 spam2 ham3\n"
    assert Scorer.open(path).score_message(message) == Model.load(path).score_message(message)
    data = bytearray(path.read_bytes())
    meta_length = PREFIX.unpack_from(data)[3]
    start = PREFIX.size + meta_length + read_model(path).meta["sections"]["weights"]["offset"]
    data[start + 4 * 1000] ^= 0x01  # one weight, in the second block of 512
    bad = tmp_path / "bad.spamnb"
    bad.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="corrupt"):
        Model.load(bad)
    scorer = Scorer.open(bad)  # opening reads no weight
    good = Model.load(path)
    damaged_token = next(t for t in counts.tokens if 512 <= good.table.index(t) < 1024)
    sound_token = next(t for t in counts.tokens if good.table.index(t) < 512)
    assert scorer.table.index(sound_token) == good.table.index(sound_token)
    with pytest.raises(ModelError, match="checksum mismatch in block 1"):
        scorer.table.index(damaged_token)
    result = run_spamnb("classify", "--model", bad, input=b"Subject: x\n\n" + damaged_token.encode() + b"\n")
    assert result.returncode == 3 and b"corrupt" in result.stderr and b"Traceback" not in result.stderr


def _journal_model(tmp_path, sections_dropped=()):
    """A multinomial model of 6,000 tokens (12 blocks) with one journal record,
    as a learn leaves it; `sections_dropped` are left out of the file."""
    counts = TokenCounts()
    counts.add([[f"spam{i}" for i in range(3000)], [f"ham{i}" for i in range(3000)]], [1, 0])
    model = Model.from_counts(counts, TrainOptions(tokenizer=TokenizerOptions(headers=())))
    for name in sections_dropped:
        del model._sections[name]
    path = tmp_path / f"journal{len(sections_dropped)}.spamnb"
    model.save(path)
    header = {"messages": [1, 0], "totals": [1, 0], "vocabulary": 0, "day": 1, "learned": [], "recent": []}
    with open(path, "ab") as file:
        file.write(encode(header, {token_key("ham7"): [1, 0, 1, 0]}, {}))
    return path, model


def test_scoring_with_a_journal_checks_each_block_of_counts_it_reads(tmp_path):
    """With a journal, λ comes from the occurrence counts: a damaged count is
    refused when a message needs its block (not before: opening reads no
    count), and the blocks it does not touch score as the whole load does."""
    path, model = _journal_model(tmp_path)
    assert "occurrence_crcs" in read_model(path).meta["sections"]
    damaged_token = next(t for t in model.counts.tokens if 512 <= model.table.index(t) < 1024)
    sound_token = next(t for t in model.counts.tokens if model.table.index(t) < 512)
    data = bytearray(path.read_bytes())
    section = read_model(path).meta["sections"]["occurrences"]
    itemsize = int(section["dtype"][2:])
    start = PREFIX.size + PREFIX.unpack_from(data)[3] + section["offset"]
    data[start + itemsize * (len(model.counts.tokens) + model.table.index(damaged_token))] ^= 0x01  # its spam count
    bad = tmp_path / "bad.spamnb"
    bad.write_bytes(bytes(data))
    scorer = Scorer.open(bad)
    assert type(scorer.table) is LiveTable
    message = b"Subject: x\n\n" + sound_token.encode() + b" ham7\n"
    assert scorer.score_message(message) == Model.load(path).score_message(message)
    with pytest.raises(ModelError, match="checksum mismatch in occurrences"):
        scorer.score_message(b"Subject: x\n\n" + damaged_token.encode() + b"\n")
    result = run_spamnb("classify", "--model", bad, input=b"Subject: x\n\n" + damaged_token.encode() + b"\n")
    assert result.returncode == 3 and b"corrupt" in result.stderr and b"Traceback" not in result.stderr


def test_occurrence_checksums_that_disagree_with_the_counts_are_refused_by_a_full_load(tmp_path):
    """A file whose checksums are its own (a foreign writer's) but whose
    per-block checksums of counts do not match them is no model."""
    counts = TokenCounts()
    counts.add([[f"spam{i}" for i in range(600)], ["ham"]], [1, 0])
    model = Model.from_counts(counts, TrainOptions())
    model._sections["occurrence_crcs"][1] ^= 1
    model.save(tmp_path / "m.spamnb")
    with pytest.raises(ModelError, match="occurrence checksums disagree"):
        Model.load(tmp_path / "m.spamnb")


def test_a_model_without_occurrence_checksums_checks_its_counts_whole(tmp_path):
    """A model written before the per-block checksums: its occurrence counts are
    checked whole when a journal makes scoring read them, and score alike."""
    path, _ = _journal_model(tmp_path, sections_dropped=("occurrence_crcs",))
    assert "occurrence_crcs" not in read_model(path).meta["sections"]
    message = b"Subject: x\n\nspam1 ham7 ham2000\n"
    assert Scorer.open(path).score_message(message) == Model.load(path).score_message(message)
    data = bytearray(path.read_bytes())
    section = read_model(path).meta["sections"]["occurrences"]
    data[PREFIX.size + PREFIX.unpack_from(data)[3] + section["offset"] + 2 * section["length"] // 3] ^= 0x01
    bad = tmp_path / "bad.spamnb"
    bad.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="checksum mismatch in occurrences"):
        Scorer.open(bad)


def test_failed_write_leaves_the_old_model_and_no_temp_file(tmp_path, monkeypatch):
    path = tmp_path / "m.spamnb"
    small_model().save(path)
    before = path.read_bytes()

    def exploding_fsync(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", exploding_fsync)  # files.replace_atomically's
    with pytest.raises(ModelError, match="No space left on device.*previous model.*unchanged"):
        small_model("lottery").save(path)
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["m.spamnb"]
    assert Model.load(path).lookup("viagra") is not None


def test_replacing_keeps_permissions_and_new_models_are_private(tmp_path):
    path = tmp_path / "m.spamnb"
    small_model().save(path)
    assert (path.stat().st_mode & 0o777) == 0o600
    os.chmod(path, 0o640)
    small_model("lottery").save(path)
    assert (path.stat().st_mode & 0o777) == 0o640


def damaged(tmp_path, name, mutate):
    path = tmp_path / "m.spamnb"
    small_model().save(path)
    data = bytearray(path.read_bytes())
    bad = tmp_path / name
    bad.write_bytes(bytes(mutate(data)))
    return bad


def flip_last_byte(data):
    data[-3] ^= 0x10
    return data


def newer_version(data):
    data[8:12] = struct.pack("<I", 99)
    return data


@pytest.mark.parametrize("name,mutate,message", [
    ("truncated", lambda d: d[: len(d) // 2], "truncated"),
    ("bitflip", flip_last_byte, "corrupt"),
    ("header-flip", lambda d: d[:40] + bytes([d[40] ^ 1]) + d[41:], "corrupt"),
    ("foreign", lambda d: b"SQLite format 3\0" + d[16:], "not a spamnb model"),
    ("empty", lambda d: b"", "not a spamnb model"),
    ("newer", newer_version, "newer than this spamnb"),
])
def test_damaged_files_are_refused_with_one_line(tmp_path, name, mutate, message):
    bad = damaged(tmp_path, name, mutate)
    with pytest.raises(ModelError, match=message):
        Model.load(bad)
    result = run_spamnb("inspect", "--model", bad)
    assert result.returncode == 3
    stderr = result.stderr.decode()
    assert message in stderr and stderr.count("\n") == 1 and "Traceback" not in stderr


def test_missing_model_is_a_model_error(tmp_path):
    result = run_spamnb("classify", "--model", tmp_path / "nope.spamnb", input=b"Subject: hi\n\nhello\n")
    assert result.returncode == 3
    assert b"no model at" in result.stderr and b"spamnb train" in result.stderr


def test_prefix_layout_is_stable():
    # Readers in other languages rely on this: magic, version, flags, lengths, CRCs.
    assert PREFIX.size == 32 and modelfile.MAGIC == b"SPAMNB\x1a\n"


def test_writing_sweeps_temporary_files_that_killed_writers_left(tmp_path):
    path = tmp_path / "m.spamnb"
    stale, fresh, other = (tmp_path / ".m.spamnb.abc123.tmp", tmp_path / ".m.spamnb.def456.tmp",
                           tmp_path / ".other.spamnb.abc123.tmp")
    for leftover in (stale, fresh, other):
        leftover.write_bytes(b"half a model")
    two_hours_ago = time.time() - 7200
    os.utime(stale, (two_hours_ago, two_hours_ago))
    os.utime(other, (two_hours_ago, two_hours_ago))
    small_model().save(path)
    assert not stale.exists()  # a killed writer's, long ago
    assert fresh.exists()  # perhaps a writer at work right now
    assert other.exists()  # another model's
    assert Model.load(path).lookup("cheap") is not None


def test_unwritable_model_location_fails_before_training_with_a_model_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    for target in (blocker / "model.spamnb", f"{tmp_path}/newdir/", tmp_path):
        result = run_spamnb("train", MAIL, "--model", target)
        assert result.returncode in (3, 64), (target, result.stderr)
        assert b"Traceback" not in result.stderr and b"internal error" not in result.stderr
        assert b"trained on" not in result.stdout  # refused before the work, not after


def test_symlinked_model_is_replaced_at_its_target(tmp_path):
    target = tmp_path / "real.spamnb"
    link = tmp_path / "link.spamnb"
    link.symlink_to(target)
    assert run_spamnb("train", MAIL, "--model", link, "-q").returncode == 0
    assert link.is_symlink() and target.is_file()


def rewrite_meta(path, change):
    data = path.read_bytes()
    _, version, flags, meta_length, _, body_crc = PREFIX.unpack_from(data)
    meta = json.loads(data[PREFIX.size:PREFIX.size + meta_length])
    change(meta)
    meta_bytes = json.dumps(meta).encode()
    meta_bytes += b" " * (-(PREFIX.size + len(meta_bytes)) % 8)
    body = data[PREFIX.size + meta_length:]
    path.write_bytes(PREFIX.pack(MAGIC, version, flags, len(meta_bytes), zlib.crc32(meta_bytes), body_crc)
                     + meta_bytes + body)


@pytest.mark.parametrize("change,message", [
    (lambda m: m.update(block_size=0), "block size"),  # caught with the section table now
    (lambda m: m["sections"]["weights"].update(shape=[1], length=8), "section"),
    (lambda m: m.update(tokenizer_version=0), "tokenizer version"),
])
def test_consistent_checksums_but_inconsistent_contents_are_refused(tmp_path, sample_model, change, message):
    bad = tmp_path / "bad.spamnb"
    bad.write_bytes(sample_model.read_bytes())
    rewrite_meta(bad, change)
    result = run_spamnb("inspect", "--model", bad)
    assert result.returncode == 3, result.stderr
    assert message in result.stderr.decode() and b"Traceback" not in result.stderr


def test_sections_compressed_ahead_give_the_same_file(tmp_path):
    """write_model_streamed given sections already deflated (deflate_to_file,
    as training compresses them in threads) writes the bytes it writes when
    it deflates them itself; a set stop event ends a compression early."""
    import threading
    from concurrent.futures import CancelledError, ThreadPoolExecutor

    rng = np.random.default_rng(7)
    lengths = rng.integers(1, 9, 50_000).astype("<u4")
    text = rng.integers(97, 123, int(lengths.sum())).astype(np.uint8)
    (tmp_path / "text").write_bytes(text.tobytes())
    sections = [("keys", "<u8", [3], [np.arange(3, dtype="<u8")]),
                ("token_lengths", "<u4", [len(lengths)], [lengths[:20_000], lengths[20_000:]]),
                ("token_bytes", "|u1", [len(text)], [str(tmp_path / "text")])]
    compressed = frozenset({"token_lengths", "token_bytes"})
    meta = {"messages": [1, 1]}
    modelfile.write_model_streamed(tmp_path / "inline.spamnb", meta, sections, compressed, str(tmp_path))
    with ThreadPoolExecutor(2) as threads:
        ahead = {name: threads.submit(modelfile.deflate_to_file, parts, dtype, str(tmp_path / f"{name}.z"))
                 for name, dtype, _, parts in sections if name in compressed}
        modelfile.write_model_streamed(tmp_path / "ahead.spamnb", meta, sections, compressed, str(tmp_path), ahead)
    assert (tmp_path / "ahead.spamnb").read_bytes() == (tmp_path / "inline.spamnb").read_bytes()
    stopped = threading.Event()
    stopped.set()
    with pytest.raises(CancelledError):
        modelfile.deflate_to_file([str(tmp_path / "text")], "|u1", str(tmp_path / "stopped.z"), stopped)


def test_a_mapping_that_fails_is_an_oserror_with_its_errno(tmp_path):
    """read_model reports `strerror`, as it did with the mmap module."""
    import errno

    from spamnb._core import map_file

    folder = os.open(tmp_path, os.O_RDONLY)
    try:
        with pytest.raises(OSError) as raised:
            map_file(folder)
    finally:
        os.close(folder)
    assert (raised.value.errno, raised.value.strerror) == (errno.ENODEV, os.strerror(errno.ENODEV))
