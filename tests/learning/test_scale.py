"""Counting in bounded memory gives the model counting in memory gives.

Training counts tokens as 64-bit keys in sorted runs, spilled to disk past a
memory budget and merged k ways (spamnb/learning/countruns.py), and writes the model
a chunk at a time (spamnb/learning/modelbuild.py).  Counts are sums: a budget so
small that every few batches spill must give the same file, section for
section, as the whole vocabulary held in a TokenCounts and saved.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from conftest import SAMPLE, run_spamnb
from spamnb.learning import countruns, modelbuild, training
from spamnb.model.counts import TokenCounts
from spamnb.learning.labelled import TrainReport, tokenized_messages
from spamnb.model.keyscores import BAGGED_TOGETHER, KeyBags
from spamnb.model.model import Model
from spamnb.model.modelread import read_model
from spamnb.model.options import TrainOptions
from spamnb._core import token_key

SPAM, HAM = [str(SAMPLE / "mail" / "spam")], [str(SAMPLE / "mail" / "ham")]


def sections_equal(a, b) -> None:
    first, second = read_model(a), read_model(b)
    assert list(first.meta["sections"]) == list(second.meta["sections"])
    for name in first.meta["sections"]:
        assert bytes(first.stored(name)) == bytes(second.stored(name)), name
    for key in set(first.meta) | set(second.meta):
        if key not in ("created", "updated", "sections"):
            assert first.meta.get(key) == second.meta.get(key), key


def test_runs_merged_k_ways_in_small_chunks_equal_one_sum():
    random = np.random.default_rng(7)
    runs, everything = [], Counter()
    for _ in range(9):
        keys = random.integers(0, 300, size=random.integers(0, 200)).astype(np.uint64)
        counts = random.integers(0, 5, size=(4, len(keys))).astype(np.uint32)
        runs.append(countruns.sum_counts(keys, counts))
        for key, column in zip(keys.tolist(), counts.T.tolist()):
            everything[key] = [a + b for a, b in zip(everything.get(key, [0] * 4), column)]
    merged = list(countruns.merge_runs(runs, chunk=7))
    keys = np.concatenate([m.keys for m in merged])
    assert (keys[1:] > keys[:-1]).all() and sorted(everything) == keys.tolist()
    assert np.concatenate([m.counts for m in merged], axis=1).T.tolist() == [everything[k] for k in keys.tolist()]


def test_sorted_runs_merged_in_the_core_equal_the_sorting_sum():
    random = np.random.default_rng(11)
    runs = []
    for _ in range(6):
        keys = random.integers(0, 2**64 - 1, size=random.integers(0, 300), dtype=np.uint64)
        keys[: len(keys) // 2] = random.integers(0, 50, size=len(keys) // 2)  # shared keys too
        runs.append(countruns.sum_counts(keys, random.integers(0, 9, size=(4, len(keys))).astype(np.uint32)))
    merged = countruns.merged_in_core(runs)
    assert merged is not None
    whole = countruns.concatenate(runs)
    order = np.argsort(whole.keys, kind="stable")
    keys, first = whole.keys[order], np.unique(whole.keys[order], return_index=True)[1]
    assert merged.keys.tolist() == keys[first].tolist()
    assert merged.counts.tolist() == np.add.reduceat(whole.counts[:, order], first, axis=1).tolist()
    assert countruns.merged_in_core([countruns.Run(np.array([2, 1], dtype=np.uint64),
                                                   np.zeros((4, 2), dtype=np.uint32))]) is None  # not sorted
    full = countruns.Run(np.array([5], dtype=np.uint64), np.full((4, 1), 2**32 - 1, dtype=np.uint32))
    with pytest.raises(ValueError, match="a count past 4,294,967,295"):
        countruns.combine([full, full])


def test_text_runs_keep_one_text_per_key_and_refuse_a_shared_key():
    def run(tokens):
        encoded = [t.encode() for t in tokens]
        return countruns.Run(np.array([token_key(t) for t in tokens], dtype=np.uint64),
                             lengths=np.array([len(e) for e in encoded], dtype=np.uint32),
                             text=np.frombuffer(b"".join(encoded), dtype=np.uint8))
    merged = list(countruns.merge_runs([run(["b", "aa", "ccc"]), run(["ccc", "dddd", "b"])], chunk=1))
    texts = {}
    for part in merged:
        raw, at = part.text.tobytes(), 0
        for key, length in zip(part.keys.tolist(), part.lengths.tolist()):
            texts[key], at = raw[at:at + length].decode(), at + length
    assert texts == {token_key(t): t for t in ["b", "aa", "ccc", "dddd"]}
    forged = run(["b"])
    forged.keys[:] = token_key("aa")  # "b" under the key of "aa"
    with pytest.raises(ValueError, match="share a 64-bit key"):
        countruns.combine([run(["aa"]), forged])


def test_a_tiny_budget_spills_and_gives_the_in_memory_counts(tmp_path, monkeypatch):
    monkeypatch.setattr(training, "BATCH_MESSAGES", 5)  # 19 batches
    options = TrainOptions()
    report = TrainReport()
    reference = TokenCounts()
    sources = [(1, SPAM[0]), (0, HAM[0])]
    for label, tokens, _, _ in tokenized_messages(sources, options, report):
        reference.add([tokens], [label])
    tally = training.Tally(budget=1, directory=str(tmp_path))  # the floor: 64 KiB
    training.count_sources(tally, sources, options, TrainReport())
    try:
        spilled = tally.store.spills
        counts = tally.counts()
    finally:
        tally.close()
    assert spilled >= 3
    assert list(tmp_path.iterdir()) == []  # spill files removed
    order = np.argsort(reference.keys)
    assert counts.tokens == [reference.tokens[i] for i in order]
    assert np.array_equal(counts.occurrences, reference.occurrences[:, order])
    assert np.array_equal(counts.documents, reference.documents[:, order])
    assert counts.messages.tolist() == reference.messages.tolist()


def test_file_built_from_spilled_runs_equals_the_saved_in_memory_model(tmp_path, monkeypatch):
    monkeypatch.setattr(training, "BATCH_MESSAGES", 5)
    monkeypatch.setattr(modelbuild, "BUILD_CHUNK", 2 * 512)  # several chunks of blocks
    model, _ = training.train(SPAM, HAM)
    model.save(tmp_path / "memory.spamnb")
    report = training.train_file(str(tmp_path / "spilled.spamnb"), SPAM, HAM, budget=1)
    assert report.vocabulary == model.vocabulary_size
    sections_equal(tmp_path / "memory.spamnb", tmp_path / "spilled.spamnb")
    loaded = Model.load(tmp_path / "spilled.spamnb")  # every check a full load makes
    message = (SAMPLE / "mail" / "spam").iterdir().__next__().read_bytes()
    assert loaded.score_message(message) == model.score_message(message)
    # Scratch removed; the writers' hidden lock stays (modelstore.locked says why).
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == [".spilled.spamnb.lock"]


def test_command_line_budget_changes_memory_not_the_model(tmp_path):
    for budget in ("1", "16"):
        result = run_spamnb("train", SAMPLE / "mail", "--model", tmp_path / budget, "-q", "-j", "1",
                            "--memory-budget", budget)
        assert result.returncode == 0, result.stderr.decode()
    sections_equal(tmp_path / "1", tmp_path / "16")
    # A file the chunked writer made is checked like any other: one damaged byte, exit 3.
    damaged = bytearray((tmp_path / "1").read_bytes())
    damaged[len(damaged) // 2] ^= 0x40
    (tmp_path / "damaged").write_bytes(bytes(damaged))
    result = run_spamnb("inspect", "--model", tmp_path / "damaged")
    assert result.returncode == 3 and b"Traceback" not in result.stderr
    assert len(result.stderr.decode().strip().splitlines()) == 1


def test_folders_a_killed_training_left_are_swept_once_a_day_old(tmp_path):
    import os

    from spamnb.model.modelstore import _sweep_stale_temporaries

    old, fresh = tmp_path / ".m.spamnb.spill-old.tmp", tmp_path / ".m.spamnb.build-new.tmp"
    for folder in (old, fresh):
        folder.mkdir()
        (folder / "run-00001-counts.keys").write_bytes(b"\0" * 8)
    os.utime(old, (0, 0))
    _sweep_stale_temporaries(tmp_path / "m.spamnb")
    assert not old.exists() and fresh.exists()


@pytest.mark.parametrize("margin, min_df", [(0.0, 0), (3.0, 0), (50.0, 0), (3.0, 2)])
def test_tokenized_messages_train_the_model_train_counts_from_files(margin, min_df):
    # train() reads files in workers, which keep the calibration sample as
    # token keys; fit_tokenized (the benches' in-process path) is given token
    # lists in a vocabulary of its own order and keys them itself.  With every
    # message in the sample (sample_data), both must count the same events,
    # near errors included, and fit the same calibration.  50 counts every
    # message's occurrences twice.  min_df selects in the model's key order,
    # which fit_tokenized's vocabulary is not in.
    options = TrainOptions(retrain_margin=margin, min_df=min_df)
    model, report = training.train(SPAM, HAM, options)
    tokenized = list(tokenized_messages([(1, path) for path in SPAM] + [(0, path) for path in HAM],
                                        options, TrainReport()))
    assert report.duplicates == 0 and len(tokenized) == sum(model.messages)
    by_token = training.fit_tokenized([tokens for _, tokens, _, _ in tokenized],
                                      [label for label, _, _, _ in tokenized], options)
    assert model.messages.tolist() == by_token.messages.tolist()
    for counts in (model.counts, by_token.counts):
        assert counts.documents.max() <= max(model.messages)  # documents stay messages
    order = np.argsort(by_token.counts.keys)
    assert np.array_equal(model.counts.keys, by_token.counts.keys[order])
    assert np.array_equal(model.counts.occurrences, by_token.counts.occurrences[:, order])
    assert np.array_equal(model.counts.documents, by_token.counts.documents[:, order])
    assert model.meta["calibration"] == pytest.approx(by_token.meta["calibration"], rel=1e-9)
    assert (model.cutoffs.spam, model.cutoffs.ham) == pytest.approx((by_token.cutoffs.spam, by_token.cutoffs.ham))
    if margin == 50.0:  # every message a near error: every occurrence counted twice
        once, _ = training.train(SPAM, HAM, TrainOptions(retrain_margin=0.0))
        assert np.array_equal(model.counts.occurrences, 2 * once.counts.occurrences)
        assert np.array_equal(model.counts.documents, once.counts.documents)


def test_reservoir_names_the_item_each_offer_puts_out():
    reservoir, shadow = training.Reservoir(5, seed=3), []
    for item in range(200):
        before = list(reservoir.items)
        kept = reservoir.offer(item)
        assert (item in reservoir.items) == kept
        gone = set(before) - set(reservoir.items)
        assert gone == ({reservoir.dropped} if reservoir.dropped is not None else set())
        shadow = [x for x in shadow if x not in gone] + ([item] if kept else [])
        assert sorted(shadow) == sorted(reservoir.items)  # what a follower of `dropped` holds is the sample


def test_key_bags_across_groups_equal_counters():
    rng = np.random.default_rng(5)
    documents = [rng.integers(0, 40, size=int(rng.integers(0, 30))).astype(np.uint64) for _ in range(600)]
    bags = KeyBags.of(documents)  # more messages than one group of BAGGED_TOGETHER
    assert len(documents) > BAGGED_TOGETHER and len(bags) == len(documents)
    for index, document in enumerate(documents):
        at = slice(int(bags.starts[index]), int(bags.starts[index] + bags.sizes[index]))
        assert dict(zip(bags.keys[at].tolist(), bags.counts[at].tolist())) == Counter(document.tolist())
        assert bags.keys[at].tolist() == list(dict.fromkeys(document.tolist()))  # first-occurrence order


def test_compact_sample_keeps_keys_and_labels_in_one_array():
    sample = [(np.array([3, 1, 3], dtype=np.uint64), 1), (np.zeros(0, dtype=np.uint64), 0),
              (np.array([7], dtype=np.uint64), 0)]
    compact = training.compact_sample(sample)
    assert [(keys.tolist(), label) for keys, label in compact] == [([3, 1, 3], 1), ([], 0), ([7], 0)]
    assert all(keys.base is compact[0][0].base for keys, _ in compact)
