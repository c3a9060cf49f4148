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
from spamnb.model.modelfile import read_model
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
    assert report.messages == {"spam": 46, "ham": 46}
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
    assert b"46 spam + 46 ham" in merged.stdout and merged.stderr == b""
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
