"""Counting spread over workers gives the model a single process gives.

Counts are sums, the calibration sample is drawn by message number in the
reading process, and the file is in key order, so the model files must be
equal section for section, whether the work ran in this process, in local
worker processes, on a Dask cluster, or in separate runs merged after.
"""

from __future__ import annotations

import shutil

import pytest

from conftest import SAMPLE, run_spamnb
from spamnb.learning import training
from spamnb.model.modelread import read_model
from spamnb.workers import local_pool


def same_model(a, b) -> None:
    first, second = read_model(a), read_model(b)
    assert first.meta["sections"].keys() == second.meta["sections"].keys()
    for name in first.meta["sections"]:
        assert bytes(first.decoded(name)) == bytes(second.decoded(name)), name
    for key in ("messages", "bias", "cutoffs", "calibration", "vocabulary"):
        assert first.meta.get(key) == second.meta.get(key), key


def train_with(executor, workers, path, monkeypatch):
    # Batches of 5 messages: 19 batches for sample_data, so every worker
    # gets several and they come back interleaved.
    monkeypatch.setattr(training, "BATCH_MESSAGES", 5)
    model, report = training.train([str(SAMPLE / "mail" / "spam")], [str(SAMPLE / "mail" / "ham")],
                                   executor=executor, workers=workers)
    model.meta["created"] = "fixed"
    model.save(path)
    return report


def test_worker_processes_give_the_serial_model(tmp_path, monkeypatch):
    train_with(None, 1, tmp_path / "serial", monkeypatch)
    with local_pool(2) as (pool, workers):
        report = train_with(pool, workers, tmp_path / "parallel", monkeypatch)
    assert report.messages == {"spam": 60, "ham": 60}
    same_model(tmp_path / "serial", tmp_path / "parallel")


def test_command_line_jobs_give_the_same_model(tmp_path):
    for jobs in ("1", "2"):
        result = run_spamnb("train", SAMPLE / "mail", "--model", tmp_path / jobs, "-q", "-j", jobs)
        assert result.returncode == 0, result.stderr.decode()
    same_model(tmp_path / "1", tmp_path / "2")


def test_dask_cluster_gives_the_local_model(tmp_path, monkeypatch):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            train_with(client.get_executor(), 2, tmp_path / "dask", monkeypatch)
            assert len(client.scheduler_info()["workers"]) == 2
        # The command line's --scheduler, against the same cluster.
        result = run_spamnb("train", SAMPLE / "mail", "--model", tmp_path / "cli", "-q",
                            "--scheduler", cluster.scheduler_address)
        assert result.returncode == 0, result.stderr.decode()
    train_with(None, 1, tmp_path / "local", monkeypatch)
    same_model(tmp_path / "local", tmp_path / "dask")
    run_spamnb("train", SAMPLE / "mail", "--model", tmp_path / "cli-local", "-q", "-j", "1")
    same_model(tmp_path / "cli-local", tmp_path / "cli")


def test_unreachable_scheduler_is_one_line(tmp_path):
    pytest.importorskip("distributed")
    result = run_spamnb("train", SAMPLE / "mail", "--model", tmp_path / "m", "-q",
                        "--scheduler", "tcp://127.0.0.1:9")
    assert result.returncode == 4
    assert b"cannot reach the Dask scheduler" in result.stderr and b"Traceback" not in result.stderr


def split_sample(root):
    """sample_data/mail cut in two: A holds the first half of each class, B the rest."""
    for label in ("spam", "ham"):
        files = sorted((SAMPLE / "mail" / label).iterdir())
        for part, chosen in (("a", files[:23]), ("b", files[23:])):
            (root / part / label).mkdir(parents=True, exist_ok=True)
            for path in chosen:
                shutil.copy(path, root / part / label / path.name)


def test_merge_equals_training_on_the_union(tmp_path):
    # Counts add up only when training counts each message once: a retraining
    # pass (--retrain-margin) counts the near errors of the model it trained,
    # and a half's near errors are not the whole's.
    split_sample(tmp_path)
    for part in ("a", "b"):
        assert run_spamnb("train", tmp_path / part, "--model", tmp_path / f"{part}.m", "-q",
                          "--retrain-margin", "0").returncode == 0
    merged = run_spamnb("merge", tmp_path / "a.m", tmp_path / "b.m", "-o", tmp_path / "ab.m")
    assert merged.returncode == 0, merged.stderr.decode()
    assert b"60 spam + 60 ham" in merged.stdout and merged.stderr == b""
    union = run_spamnb("train", "--spam", tmp_path / "a/spam", "--spam", tmp_path / "b/spam",
                       "--ham", tmp_path / "a/ham", "--ham", tmp_path / "b/ham", "--model", tmp_path / "all.m", "-q",
                       "--retrain-margin", "0")
    assert union.returncode == 0
    first, second = read_model(tmp_path / "ab.m"), read_model(tmp_path / "all.m")
    for name in first.meta["sections"]:  # counts, digests, weights: all of it
        assert bytes(first.decoded(name)) == bytes(second.decoded(name)), name
    assert first.meta["bias"] == second.meta["bias"]


def test_merge_refuses_different_options_and_reports_shared_mail(tmp_path):
    split_sample(tmp_path)
    run_spamnb("train", tmp_path / "a", "--model", tmp_path / "a.m", "-q")
    run_spamnb("train", tmp_path / "a", "--model", tmp_path / "a2.m", "-q", "--alpha", "0.5")
    refused = run_spamnb("merge", tmp_path / "a.m", tmp_path / "a2.m", "-o", tmp_path / "x.m")
    assert refused.returncode == 3 and b"different options (alpha)" in refused.stderr
    assert not (tmp_path / "x.m").exists()
    twice = run_spamnb("merge", tmp_path / "a.m", tmp_path / "a.m", "-o", tmp_path / "aa.m")
    assert twice.returncode == 0 and b"46 messages were learned by more than one model" in twice.stderr


def _slow_square(batch: list[int], delay: float) -> list[int]:
    import time

    time.sleep(delay * (len(batch) % 3))  # batches finish out of order
    if 13 in batch:
        raise ValueError("thirteen")
    return [item * item for item in batch]


def test_batches_hand_results_back_in_order_and_start_workers_only_for_a_full_batch():
    """workers.Batches, the pipeline of classify and train: batches of 4 or
    of 10 bytes, results in the order sent though workers finish out of order,
    no more than 2 per worker away at once, and no pool for fewer than a batch."""
    from concurrent.futures import ThreadPoolExecutor

    from spamnb.workers import Batches

    collected, away, started = [], [], []

    class Pool(ThreadPoolExecutor):
        def submit(self, function, *args):
            away.append(len(batches.in_flight))
            return super().submit(function, *args)

    def start():
        started.append(True)
        return Pool(3)

    batches = Batches(_slow_square, lambda tags, result: collected.append((tags, result)), args=(0.01,),
                      workers=3, start=start, batch_items=4, batch_bytes=10)
    for item in range(1, 13):
        batches.add(item, tag=f"m{item}", size=10 if item == 6 else 1)
    batches.finish()
    assert started == [True] and max(away) <= 6
    assert [tags for tags, _ in collected] == [["m1", "m2", "m3", "m4"], ["m5", "m6"],  # 11 bytes
                                               ["m7", "m8", "m9", "m10"], ["m11", "m12"]]
    assert [value for _, result in collected for value in result] == [i * i for i in range(1, 13)]

    few: list = []
    lone = Batches(_slow_square, lambda tags, result: few.append((tags, result)), args=(0,), workers=3,
                   start=start, batch_items=4)
    lone.add(5, tag="only")
    lone.add(6, tag="other")
    lone.finish()  # fewer than a batch: here, one at a time, no pool
    assert started == [True] and few == [(["only"], [25]), (["other"], [36])]

    failing = Batches(_slow_square, lambda tags, result: None, args=(0,), workers=1, start=start, batch_items=2)
    with pytest.raises(ValueError, match="thirteen"):
        for item in range(10, 20):
            failing.add(item)
        failing.finish()
    failing.abandon()
