"""The command line, run as a real subprocess on sample_data."""

import json
import os
import re

import pytest

from conftest import SAMPLE, run_spamnb

MAIL = SAMPLE / "mail"


def lines(result):
    return result.stdout.decode().splitlines()


def test_train_summary_and_model_location(tmp_path):
    model = tmp_path / "m.spamnb"
    result = run_spamnb("train", MAIL, "--model", model)
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode()
    n_spam = len(list((MAIL / "spam").iterdir()))
    n_ham = len(list((MAIL / "ham").iterdir()))
    assert f"trained on {n_spam:,} spam + {n_ham:,} ham messages (0 skipped)" in out
    assert f"model written to {model}" in out
    assert model.stat().st_size > 0
    assert "\x1b[" not in result.stderr.decode()  # no progress bar when not a terminal


def test_default_model_path_from_environment(tmp_path):
    env = {"XDG_DATA_HOME": str(tmp_path / "xdg")}
    assert run_spamnb("train", MAIL, "-q", env=env).returncode == 0
    assert (tmp_path / "xdg" / "spamnb" / "model.spamnb").is_file()
    explicit = tmp_path / "elsewhere.spamnb"
    result = run_spamnb("train", MAIL, env={**env, "SPAMNB_MODEL": str(explicit)})
    assert explicit.is_file() and str(explicit) in result.stdout.decode()
    assert run_spamnb("inspect", env=env).returncode == 0


def test_train_from_mbox_and_maildir_sources(tmp_path):
    model = tmp_path / "m.spamnb"
    result = run_spamnb("train", "--spam", SAMPLE / "mbox" / "spam.mbox", "--spam", SAMPLE / "maildir" / "spam",
                        "--ham", SAMPLE / "mbox" / "ham.mbox", "--ham", SAMPLE / "maildir" / "ham",
                        "--model", model, "--event-model", "bernoulli", "--alpha", "0.5", "--min-strength", "1.5")
    assert result.returncode == 0, result.stderr
    summary = json.loads(run_spamnb("inspect", "--model", model, "--format", "json").stdout)["summary"]
    assert summary["min_strength"] == 1.5
    assert "min strength: 1.5" in run_spamnb("inspect", "--model", model).stdout.decode()
    spam_expected = _count(SAMPLE / "mbox" / "spam.mbox") + _files(SAMPLE / "maildir" / "spam")
    ham_expected = _count(SAMPLE / "mbox" / "ham.mbox") + _files(SAMPLE / "maildir" / "ham")
    assert summary["messages"] == {"spam": spam_expected, "ham": ham_expected}
    assert summary["event_model"] == "bernoulli" and summary["alpha"] == 0.5


def _count(mbox):
    return sum(1 for line in mbox.read_bytes().splitlines() if line.startswith(b"From ") and b":" in line[5:])


def _files(maildir):
    return sum(1 for sub in ("cur", "new") for p in (maildir / sub).iterdir() if not p.name.startswith("."))


def test_classify_jsonl_gives_one_valid_line_per_message(sample_model):
    result = run_spamnb("classify", "--model", sample_model, "--format", "jsonl",
                        SAMPLE / "mbox" / "spam.mbox", SAMPLE / "maildir" / "ham")
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in lines(result)]
    assert len(records) == _count(SAMPLE / "mbox" / "spam.mbox") + _files(SAMPLE / "maildir" / "ham")
    for record in records:
        assert record["label"] in ("spam", "ham", "unsure")
        assert 0.0 <= record["score"] <= 1.0 and isinstance(record["log_odds"], float)
    spam_scores = [r["score"] for r in records if "spam.mbox" in r["path"]]
    ham_scores = [r["score"] for r in records if "maildir" in r["path"]]
    # Mail the model never saw: spam must on average look spammier than ham.
    assert sum(spam_scores) / len(spam_scores) > sum(ham_scores) / len(ham_scores)


def test_classify_formats_agree(sample_model):
    args = ("classify", "--model", sample_model, SAMPLE / "maildir" / "ham")
    jsonl = [json.loads(line) for line in lines(run_spamnb(*args, "--format", "jsonl"))]
    as_json = json.loads(run_spamnb(*args, "--format", "json").stdout)
    assert as_json == jsonl
    tsv = lines(run_spamnb(*args, "--format", "tsv"))
    assert tsv[0] == "path\tlabel\tscore\tlog_odds"
    assert [row.split("\t")[1] for row in tsv[1:]] == [r["label"] for r in jsonl]
    text = lines(run_spamnb(*args))
    assert [row.split()[0] for row in text] == [r["label"] for r in jsonl]


def test_stdin_exit_codes_and_explain(sample_model):
    spam = next((MAIL / "spam").iterdir()).read_bytes()
    ham = next((MAIL / "ham").iterdir()).read_bytes()
    for raw, label, status in ((spam, "spam", 0), (ham, "ham", 1)):
        for path_args in ((), ("-",)):
            result = run_spamnb("classify", "--model", sample_model, "--exit-code", "--format", "jsonl",
                                *path_args, input=raw)
            assert result.returncode == status, result.stderr
            assert json.loads(result.stdout)["label"] == label
            assert json.loads(result.stdout)["path"] == "-"
    explained = run_spamnb("classify", "--model", sample_model, "--explain", "--top", "3",
                           "--format", "jsonl", input=spam)
    record = json.loads(explained.stdout)
    assert len(record["explain"]) == 3
    contributions = [abs(e["contribution"]) for e in record["explain"]]
    assert contributions == sorted(contributions, reverse=True)
    # Each contribution is the token's weight × count × one factor shared by the
    # message (calibration scale / length normaliser), so the ratios agree.
    factors = {round(e["contribution"] / (e["weight"] * e["count"]), 3) for e in record["explain"]}
    assert len(factors) == 1 and factors.pop() > 0


def test_cutoffs_make_the_unsure_band(sample_model):
    raw = next((MAIL / "spam").iterdir()).read_bytes()
    everything_unsure = run_spamnb("classify", "--model", sample_model, "--spam-cutoff", "1",
                                   "--ham-cutoff", "0", "--exit-code", input=raw)
    assert everything_unsure.returncode == 2 and everything_unsure.stdout.startswith(b"unsure")
    bad = run_spamnb("classify", "--model", sample_model, "--spam-cutoff", "0.2", "--ham-cutoff", "0.5", input=raw)
    assert bad.returncode == 64 and b"cutoffs" in bad.stderr


def test_a_cutoff_given_alone_moves_the_other_the_same_way_in_classify_and_filter(sample_model):
    # The sample model's cutoffs are 0.9 and 0.2: a spam cutoff of 0.1 takes
    # the ham cutoff down to 0.1 with it, so nothing is unsure.
    for raw in (path.read_bytes() for label in ("spam", "ham") for path in sorted((MAIL / label).iterdir())[:3]):
        classified = run_spamnb("classify", "--model", sample_model, "--spam-cutoff", "0.1", "--exit-code",
                                input=raw)
        filtered = run_spamnb("filter", "--model", sample_model, "--spam-cutoff", "0.1", "--exit-code", input=raw)
        assert classified.returncode in (0, 1), classified.stderr
        assert filtered.returncode == classified.returncode, filtered.stderr


def test_inspect_formats_and_word_lookup(sample_model):
    text = run_spamnb("inspect", "--model", sample_model, "--top", "5")
    assert text.returncode == 0 and "top spam keywords" in text.stdout.decode()
    data = json.loads(run_spamnb("inspect", "--model", sample_model, "--top", "5", "--format", "json").stdout)
    assert len(data["spam"]) == 5 and len(data["ham"]) == 5
    assert data["spam"][0]["weight"] >= data["spam"][-1]["weight"] > 0 > data["ham"][-1]["weight"] >= data["ham"][0]["weight"]
    assert data["summary"]["messages"]["spam"] == len(list((MAIL / "spam").iterdir()))
    looked = json.loads(run_spamnb("inspect", "--model", sample_model, "--word", "发票",
                                   "--word", "NoSuchTokenAtAll", "--format", "json").stdout)["words"]
    assert looked[0]["token"] == "发票" and looked[0]["spam_count"] > 0
    assert looked[1] == {"token": "nosuchtokenatall", "weight": None, "note": "never seen in training"}
    tsv = lines(run_spamnb("inspect", "--model", sample_model, "--top", "2", "--format", "tsv"))
    assert tsv[0].split("\t")[:3] == ["list", "token", "weight"] and len(tsv) == 5


def test_bad_input_gives_clear_errors_not_tracebacks(tmp_path, sample_model):
    junk_dir = tmp_path / "mail"
    (junk_dir / "spam").mkdir(parents=True)
    (junk_dir / "ham").mkdir()
    for label in ("spam", "ham"):
        for path in list((MAIL / label).iterdir())[:3]:
            (junk_dir / label / path.name).write_bytes(path.read_bytes())
    (junk_dir / "spam" / "empty.eml").write_bytes(b"")
    (junk_dir / "ham" / "junk.bin").write_bytes(os.urandom(4096))
    (junk_dir / "ham" / "dangling").symlink_to(tmp_path / "gone")
    result = run_spamnb("train", junk_dir, "--model", tmp_path / "m.spamnb")
    err = result.stderr.decode()
    assert result.returncode == 0 and "Traceback" not in err
    assert "skipped 3 file(s)" in err and "empty file" in err and "not a mail message" in err
    assert "(3 skipped)" in result.stdout.decode()

    # Not mail: unsure, one line saying so, and the input-error status (it was not scored).
    classify_junk = run_spamnb("classify", "--model", sample_model, "--format", "jsonl",
                               junk_dir / "ham" / "junk.bin")
    assert classify_junk.returncode == 4 and json.loads(classify_junk.stdout)["label"] == "unsure"
    assert classify_junk.stderr.decode().count("\n") == 1 and "junk.bin: not mail" in classify_junk.stderr.decode()

    cases = [
        (("train", junk_dir / "spam"), 4, "needs spam/ and ham/"),
        (("train", tmp_path / "nowhere"), 4, "no such file"),
        (("train", "--spam", tmp_path / "nowhere", "--ham", MAIL / "ham"), 4, "no such file"),
        (("train", "--spam", MAIL / "spam"), 64, "need spam and ham"),
        (("train", MAIL, "--alpha", "0"), 64, "alpha"),
        (("train", MAIL, "--no-stopwords", "--stopwords", __file__), 64, "do not go together"),
        (("classify", "--model", sample_model, tmp_path / "nowhere"), 4, "no such file"),
        (("classify", "--model", sample_model, "--format", "xml"), 64, "xml"),
        (("frobnicate",), 64, "No such command"),
    ]
    for args, status, message in cases:
        result = run_spamnb(*args)
        err = result.stderr.decode()
        assert result.returncode == status, (args, err)
        assert message in err and "Traceback" not in err, (args, err)


def test_empty_class_is_an_input_error(tmp_path):
    (tmp_path / "spam").mkdir()
    (tmp_path / "ham").mkdir()
    (tmp_path / "spam" / "x.eml").write_bytes(b"Subject: hi\n\nbuy now\n")
    (tmp_path / "ham" / "empty.eml").write_bytes(b"")
    result = run_spamnb("train", tmp_path, "--model", tmp_path / "m.spamnb")
    assert result.returncode == 4 and b"no ham messages" in result.stderr
    assert not (tmp_path / "m.spamnb").exists()


def test_help_documents_exit_statuses_and_examples():
    top = run_spamnb("--help").stdout.decode()
    assert "Exit status" in top and "bogofilter" in top
    for command in ("train", "classify", "inspect", "evaluate", "learn", "filter"):
        text = run_spamnb(command, "--help").stdout.decode()
        assert "Examples:" in text and "--model" in text


def test_progress_bar_shows_on_a_terminal_and_not_with_quiet(tmp_path):
    import pty
    import subprocess
    import sys

    def stderr_on_terminal(*extra):
        master, slave = pty.openpty()
        process = subprocess.Popen([sys.executable, "-m", "spamnb", "train", str(MAIL),
                                    "--model", str(tmp_path / "m.spamnb"), *extra],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave,
                                   env={**os.environ, "TERM": "xterm", "COLUMNS": "100"})
        os.close(slave)
        output = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO once the child closed the terminal
                break
            if not chunk:
                break
            output += chunk
        os.close(master)
        assert process.wait(timeout=120) == 0
        return output.decode("utf-8", "replace")

    assert "reading and counting" in stderr_on_terminal()
    assert "reading and counting" not in stderr_on_terminal("-q")


def test_inspect_survives_tokens_that_look_like_rich_markup(tmp_path):
    (tmp_path / "spam").mkdir()
    (tmp_path / "ham").mkdir()
    attachment = (b"Subject: x\nContent-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: text/plain\n\n"
                  b"buy now\n--B\nContent-Type: application/octet-stream; name=\"a.[/red]\"\n\nxx\n--B--\n")
    for i in range(3):
        (tmp_path / "spam" / f"{i}.eml").write_bytes(attachment)
        (tmp_path / "ham" / f"{i}.eml").write_bytes(b"Subject: lunch\n\nsee you at noon\n")
    model = tmp_path / "m[/b].spamnb"
    model.parent.mkdir()  # "m[": a folder spamnb does not create for a model path given
    assert run_spamnb("train", tmp_path, "--model", model, "-q").returncode == 0
    for args in (("--word", "attach:ext:[/red]"), ("--top", "50")):
        result = run_spamnb("inspect", "--model", model, *args)
        assert result.returncode == 0, result.stderr
        assert "[/red]" in result.stdout.decode()


def test_classify_exit_statuses_for_empty_and_mixed_inputs(tmp_path, sample_model):
    empty_dir = tmp_path / "empty"
    empty_dir.mkdir()
    result = run_spamnb("classify", "--model", sample_model, empty_dir)
    assert result.returncode == 4 and b"no messages found" in result.stderr
    assert run_spamnb("classify", "--model", sample_model, "--exit-code", empty_dir).returncode == 4
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    (mixed / "empty.eml").write_bytes(b"")
    (mixed / "spam.eml").write_bytes((MAIL / "spam" / "zh-plain-gb2312-b64-024.eml").read_bytes())
    verdict = run_spamnb("classify", "--model", sample_model, "--exit-code", mixed)
    assert verdict.returncode == 0 and b"empty file" in verdict.stderr  # the verdict wins, the problem is told
    assert run_spamnb("classify", "--model", sample_model, mixed).returncode == 4


def test_absurd_alpha_is_a_usage_error():
    for alpha in ("inf", "nan", "0", "-1"):
        result = run_spamnb("train", MAIL, "--alpha", alpha, "--model", "/tmp/never-written.spamnb")
        assert result.returncode == 64, (alpha, result.stderr)


def test_same_source_as_spam_and_ham_is_refused():
    result = run_spamnb("train", "--spam", MAIL / "spam", "--ham", MAIL / "spam")
    assert result.returncode == 64 and b"both spam and ham" in result.stderr


def explanation(text: str):
    """(verdict line, the lines of the sum, the total line, the lines after it)
    of one message's text explanation."""
    lines = [line.strip() for line in text.splitlines()]
    rule = lines.index("────────")
    return lines[0], lines[1:rule], lines[rule + 1], lines[rule + 2:]


def test_explain_text_adds_up_and_says_the_rule_in_words(sample_model):
    from spamnb.text.tokens import token_part

    for folder in ("spam", "ham"):
        raw = sorted((MAIL / folder).iterdir())[0].read_bytes()
        result = run_spamnb("classify", "--model", sample_model, "--explain", "--top", "6", input=raw)
        verdict, terms, total, words = explanation(result.stdout.decode())
        printed = float(total.split()[0])
        assert verdict.split()[2] == f"{printed:+.2f}"
        # Every line of the sum, rounded to 3 decimals, adds up to the printed log-odds.
        values = [float(line.split()[0]) for line in terms]
        assert sum(values) == pytest.approx(printed, abs=0.0005 * len(values) + 0.0005)
        assert total.endswith(f"= {verdict.split()[1]}") and "the lines above added up" in total
        # Each token is marked with the part of the message it comes from.
        tokens = [line.split() for line in terms if "(weight" in line]
        assert len(tokens) == 6 and all(part == token_part(token) for _, part, token, *_ in tokens)
        # (Which parts the six strongest come from is the mail's: token_part's own test covers each.)
        # The rule in words, with numbers that give the printed log-odds back.
        said = re.fullmatch(r"that is: calibration offset ([+-][\d.]+) \+ ([\d.]+) × the average weight of "
                            r"the (\d+) tokens the model knows here, ([+-][\d.]+)", words[0])
        offset, scale, known, average = float(said[1]), float(said[2]), int(said[3]), float(said[4])
        assert offset == values[0] and offset + scale * average == pytest.approx(printed, abs=0.003)
        assert words[1] == f"(so each token's line is its weight × {scale:g} ÷ {known})"
        for contribution, _, _, _, weight in tokens:
            assert float(weight.rstrip(")")) * scale / known == pytest.approx(float(contribution), abs=0.0006)
        parts = re.findall(r"(header fields|subject|body) ([+-][\d.]+) \((\d+) tokens?\)", words[2])
        assert [name for name, _, _ in parts] == ["header fields", "subject", "body"]
        assert sum(int(n) for _, _, n in parts) == known
        assert sum(float(value) for _, value, _ in parts) == pytest.approx(printed - offset, abs=0.002)


def test_explanation_takes_any_term_and_a_reason():
    import io

    from spamnb.app.render import ScoreWriter, score_record
    from spamnb.model.scoring import Score, TokenEffect, probability

    # scale 1.5, 4 tokens averaged: each adds weight × 1.5 ÷ 4.
    effects = [TokenEffect(token, weight, 1, weight * 1.5 / 4) for token, weight in
               (("received:esmtp", 6.0), ("subject:free", 4.0), ("money", 2.0), ("url:example.com", -1.0))]
    terms = [("calibration offset", 0.25), ("a term the rule may add", -1.0)]
    log_odds = 0.25 - 1.0 + 1.5 * (6 + 4 + 2 - 1) / 4
    scored = Score(log_odds=log_odds, probability=probability(log_odds), label="spam", tokens_known=4,
                   tokens_distinct=9, effects=effects, terms=terms, factor=(1.5, 4.0, 4), reason="why, in words")
    record = score_record("m.eml", scored, 2)
    assert [e["part"] for e in record["explain"]] == ["header", "subject"]
    assert record["explain_parts"] == {"header": {"tokens": 1, "contribution": 2.25},
                                       "subject": {"tokens": 1, "contribution": 1.5},
                                       "body": {"tokens": 2, "contribution": 0.375}}
    out = io.StringIO()
    ScoreWriter(out, "text", 2).write("m.eml", scored)
    verdict, lines, total, words = explanation(out.getvalue())
    assert lines == ["+0.250  calibration offset", "-1.000  a term the rule may add",
                     "+2.250  header   received:esmtp  (weight +6.000)",
                     "+1.500  subject  subject:free  (weight +4.000)", "+0.375  2 more tokens (2 body)"]
    assert total.startswith("+3.375  log-odds: the lines above added up")
    assert words[0] == ("that is: calibration offset +0.250 + a term the rule may add -1.000 + 1.5 × the average "
                        "weight of the 4 tokens the model knows here, +2.750")
    assert words[-1] == "not scored by its tokens: why, in words"
    # A score a rule set without its tokens: the lines are shown, but not said to add up.
    ruled = Score(log_odds=0.0, probability=0.5, label="unsure", tokens_known=4, tokens_distinct=9,
                  effects=effects, terms=terms[:1], factor=(1.5, 4.0, 4), reason="too few known tokens")
    out = io.StringIO()
    ScoreWriter(out, "text", 2).write("m.eml", ruled)
    _, _, total, words = explanation(out.getvalue())
    assert total.startswith("+0.000  log-odds, not the lines above added up")
    assert words == ["not scored by its tokens: too few known tokens"]


def test_classify_of_what_is_not_mail_exits_with_the_input_error_status(tmp_path, sample_model):
    # 0 means every message given was scored: a binary file, or a folder with no mail, was not.
    binary = tmp_path / "program"
    binary.write_bytes(bytes(range(256)) * 12)
    no_mail = tmp_path / "notes"
    no_mail.mkdir()
    (no_mail / "a.txt").write_bytes(b"shopping list\n")
    (no_mail / "b.txt").write_bytes(b"\x7fELF\x02\x01\x01" + bytes(500))
    for path, count in ((binary, 1), (no_mail, 2)):
        for extra in ((), ("--spam-cutoff", "0.9")):  # the fast path, and click
            result = run_spamnb("classify", "--model", sample_model, *extra, path)
            said = result.stderr.decode().splitlines()
            assert result.returncode == 4, (path, extra, said)
            assert len(said) == count and all(": not mail (" in line for line in said), said
            assert [line.split()[0] for line in lines(result)] == ["unsure"] * count
    # Mail beside it is scored; the status still says not everything was.
    (no_mail / "c.eml").write_bytes((MAIL / "spam" / "zh-plain-gb2312-b64-024.eml").read_bytes())
    assert run_spamnb("classify", "--model", sample_model, no_mail).returncode == 4
    assert run_spamnb("classify", "--model", sample_model, no_mail / "c.eml").returncode == 0
    assert run_spamnb("classify", "--model", sample_model, "--exit-code", no_mail).returncode in (0, 1, 2)


def test_a_model_path_in_a_missing_folder_is_refused_and_no_folder_is_made(tmp_path, sample_model):
    model = tmp_path / "nonexistent" / "dir" / "x.spamnb"
    counts = tmp_path / "counts.txt"
    assert run_spamnb("export", "--model", sample_model, counts).returncode == 0
    for args in (("train", MAIL), ("learn", "--spam", MAIL / "spam"), ("import", counts)):
        result = run_spamnb(*args, "--model", model)
        assert result.returncode == 3, (args, result.stderr)
        assert result.stderr.decode() == f"spamnb: cannot write {model}: its folder {model.parent} does not exist\n"
        assert not (tmp_path / "nonexistent").exists() and result.stdout == b""
    # The default model's own folder is still made where it is missing (XDG's data home).
    env = {"XDG_DATA_HOME": str(tmp_path / "xdg")}
    assert run_spamnb("learn", "--spam", MAIL / "spam", "-q", env=env).returncode == 0
    assert (tmp_path / "xdg" / "spamnb" / "model.spamnb").is_file()


def test_train_reads_an_index_file_as_evaluate_does(tmp_path):
    # TREC's layout: `spam|ham<TAB>path`, paths relative to the index's folder.
    index = tmp_path / "corpus" / "index"
    index.parent.mkdir()
    mail = os.path.relpath(MAIL, index.parent)
    rows = [f"{label}\t{mail}/{label}/{name}" for label in ("ham", "spam")
            for name in sorted(os.listdir(MAIL / label))]
    index.write_text("\n".join(rows) + "\n")
    result = run_spamnb("train", index, "--model", tmp_path / "by-index.spamnb")
    assert result.returncode == 0, result.stderr
    assert "trained on 60 spam + 60 ham messages (0 skipped)" in result.stdout.decode()
    assert run_spamnb("train", MAIL, "--model", tmp_path / "by-folder.spamnb", "-q").returncode == 0
    exported = [run_spamnb("export", "--model", tmp_path / name).stdout for name in ("by-index.spamnb",
                                                                                     "by-folder.spamnb")]
    assert exported[0] == exported[1] and len(exported[0].splitlines()) > 1000
    not_index = run_spamnb("train", MAIL / "spam" / "zh-plain-gb2312-b64-024.eml", "--model", tmp_path / "m")
    assert not_index.returncode == 4 and b"expected 'spam|ham<TAB>path'" in not_index.stderr
