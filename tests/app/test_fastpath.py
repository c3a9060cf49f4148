"""The entry point's fast path scores as the click command line does, and
pays for nothing scoring does not need."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import SAMPLE, run_spamnb
from spamnb.app.fastpath import parse_classify

MESSAGES = SAMPLE / "mail"


def full_cli(*args, input=None, env=None):
    """The click command line itself, bypassing the fast path."""
    full_env = dict(os.environ)
    full_env.pop("SPAMNB_MODEL", None)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-c", "import sys; from spamnb.app.cli import main; main(sys.argv[1:])",
                           *map(str, args)], input=input, capture_output=True, env=full_env,
                          stdin=None if input is not None else subprocess.DEVNULL)


@pytest.mark.parametrize("args", [
    ["--format", "jsonl"], ["--format=tsv"], ["--format", "json"], [], ["--exit-code"], ["-j", "1"], ["-j", "2"],
    ["--timeout", "5"], ["--timeout=0", "--format", "tsv"],
])
def test_fast_path_prints_what_the_full_cli_prints(sample_model, args):
    fast = run_spamnb("classify", "--model", sample_model, *args, MESSAGES / "spam", MESSAGES / "ham")
    full = full_cli("classify", "--model", sample_model, *args, MESSAGES / "spam", MESSAGES / "ham")
    assert fast.returncode == full.returncode
    assert fast.stdout == full.stdout and fast.stdout.count(b"\n") >= 92
    assert fast.stderr == full.stderr


def test_fast_path_errors_and_stdin_match_the_full_cli(sample_model, tmp_path):
    message = (MESSAGES / "spam").iterdir().__next__().read_bytes()
    for args, data in ((["classify", "--model", sample_model, "-"], message),
                       (["classify", "--model", sample_model, "--exit-code"], message),
                       (["classify", "--model", tmp_path / "missing.spamnb", "-"], message),
                       (["classify", "--model", sample_model, tmp_path / "nothing-here"], None),
                       (["classify", "--model", tmp_path, "-"], message),  # a directory: usage error
                       (["classify", "--model", sample_model, "--timeout", "-1", "-"], message),
                       (["classify", "--model", sample_model, "--timeout", "0.000001", "-"], message),
                       (["classify", "--server", tmp_path, "-"], message),
                       # Values the two parsers once read differently: click's bounds and int() hold on both.
                       (["classify", "--model", sample_model, "--timeout", "1e10", "-"], message),
                       (["classify", "--model", sample_model, "-j", "\u00b2", "-"], message),
                       (["classify", "--model", sample_model, "-j", "+1", "-"], message),
                       # Options that do not go together: one rule, one message, from either parser.
                       (["classify", "--server", tmp_path / "sock", "--model", sample_model, "-"], message),
                       (["classify", "--server", tmp_path / "sock", "-j", "2", "-"], message)):
        fast, full = run_spamnb(*args, input=data), full_cli(*args, input=data)
        assert (fast.returncode, fast.stdout, fast.stderr) == (full.returncode, full.stdout, full.stderr), args


def test_other_command_lines_go_to_the_full_cli():
    assert parse_classify(["classify", "--model", "m", "a.eml"])["paths"] == ["a.eml"]
    assert parse_classify(["classify", "-m=m", "--", "-odd-name"])["paths"] == ["-odd-name"]
    for args in (["train", "x"], ["classify", "--explain", "a"], ["classify", "--format", "xml"],
                 ["classify", "-j", "0"], ["classify", "-j", "\u00b2"], ["classify", "--timeout", "1e10"],
                 ["classify", "--model"], ["classify", "--exit-code=yes"], ["classify", "--spam-cutoff", "0.9"]):
        assert parse_classify(args) is None, args


def test_learn_command_line_errors_match_the_full_cli(sample_model, tmp_path):
    model = tmp_path / "model.spamnb"
    model.write_bytes(open(sample_model, "rb").read())
    message = next((MESSAGES / "spam").iterdir())
    for args in (["--model", model, message],  # no label
                 ["--model", model, "--spam", message, "--ham", message, message],
                 ["--model", model],
                 ["--model", model, "--forget", "--relabel", "--spam", message],
                 ["--model", model, "--forget", "--on-error", "--ham", message],
                 ["--server", tmp_path / "sock", "--model", model, "--spam", message]):
        fast, full = run_spamnb("learn", *args), full_cli("learn", *args)
        assert full.returncode == 64 and full.stderr.startswith(b"spamnb: "), args
        assert (fast.returncode, fast.stdout, fast.stderr) == (full.returncode, full.stdout, full.stderr), args
    assert model.read_bytes() == open(sample_model, "rb").read()  # nothing was learned


def test_settings_send_classify_to_the_full_cli(sample_model, tmp_path):
    # A config file may change defaults, so the fast path steps aside: the
    # cutoff set there must still apply.
    config = tmp_path / "config.toml"
    config.write_text('spam-cutoff = 0.0\nham-cutoff = 0.0\n')
    result = run_spamnb("classify", "--model", sample_model, "--format", "tsv", MESSAGES / "ham",
                        env={"SPAMNB_CONFIG": str(config)})
    labels = {line.split("\t")[1] for line in result.stdout.decode().splitlines()[1:]}
    assert labels == {"spam"}


def test_scoring_one_message_imports_no_heavy_module(sample_model):
    message = sorted((MESSAGES / "ham").glob("en-plain-*"))[0].read_bytes()
    result = run_spamnb("classify", "--model", sample_model, "-", input=message,
                        env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert result.returncode == 0
    imported = {line.split("|")[-1].strip() for line in result.stderr.decode().splitlines()
                if line.startswith("import time:")}
    assert "spamnb.model.scorer" in imported
    heavy = {"numpy", "click", "rich", "email", "email.parser", "dataclasses", "inspect", "pathlib", "jieba",
             "tempfile", "html.parser", "multiprocessing"}
    assert not heavy & imported, heavy & imported
