"""Commands a user can trust, each through the real command line:
nothing taught is lost without asking, errors name their cause, explanations
add up, inspect says why a token weighs nothing, filter's header is never
evidence, exports are canonical, long work shows its phases, ROC plots read."""

import json
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import CORPORA, SAMPLE, run_spamnb

SPAM_FILE = SAMPLE / "maildir" / "spam" / "new" / "1739205492.M2P4102.sample"
ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (mounts, dropping capabilities)")


def counts_of(model) -> tuple[int, int]:
    summary = json.loads(run_spamnb("inspect", "--model", model, "--format", "json", "--top", "0").stdout)["summary"]
    return summary["messages"]["spam"], summary["messages"]["ham"]


def one_line(result) -> str:
    lines = result.stderr.decode().strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


# -- nothing a user taught is lost without asking ------------------------------------------------

def test_train_twice_with_learn_between_keeps_what_was_learned(tmp_path, sample_model):
    model = tmp_path / "m.spamnb"
    shutil.copy(sample_model, model)
    assert counts_of(model) == (60, 60)
    assert run_spamnb("learn", "--spam", SAMPLE / "maildir" / "spam", "--model", model, "-q").returncode == 0
    assert counts_of(model) == (67, 60)
    before = model.read_bytes()
    again = run_spamnb("train", SAMPLE / "mail", "--model", model, "-q")
    assert again.returncode == 64
    line = one_line(again)
    assert str(model) in line and "7 message(s)" in line and "--replace" in line
    assert model.read_bytes() == before  # the learned messages survive, untouched
    assert run_spamnb("train", SAMPLE / "mail", "--model", model, "-q", "--replace").returncode == 0
    assert counts_of(model) == (60, 60)
    # Training again on the same mail loses nothing, so it needs no --replace.
    assert run_spamnb("train", SAMPLE / "mail", "--model", model, "-q").returncode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [".m.spamnb.lock", "m.spamnb"]  # the lock is hidden


def test_import_and_merge_refuse_to_drop_messages_and_prune_keeps_a_named_backup(tmp_path, sample_model):
    taught = tmp_path / "taught.spamnb"
    shutil.copy(sample_model, taught)
    assert run_spamnb("learn", "--spam", SPAM_FILE, "--model", taught, "-q").returncode == 0
    export = tmp_path / "plain.tsv"
    assert run_spamnb("export", export, "--model", sample_model).returncode == 0
    refused = run_spamnb("import", export, "--model", taught)
    assert refused.returncode == 64 and "--replace" in one_line(refused)
    assert counts_of(taught) == (61, 60)
    assert run_spamnb("import", export, "--model", taught, "--replace").returncode == 0
    assert counts_of(taught) == (60, 60)

    other = tmp_path / "other.spamnb"
    assert run_spamnb("learn", "--ham", SPAM_FILE, "--model", other, "-q").returncode == 0
    refused = run_spamnb("merge", sample_model, sample_model, "-o", other)
    assert refused.returncode == 64 and str(other) in one_line(refused)
    assert counts_of(other) == (0, 1)
    # Naming the output among the models keeps its messages: no refusal.
    merged = run_spamnb("merge", other, sample_model, "-o", other)
    assert merged.returncode == 0, merged.stderr
    assert counts_of(other) == (60, 61)

    pruned = tmp_path / "pruned.spamnb"
    shutil.copy(sample_model, pruned)
    done = run_spamnb("prune", "--min-count", "2", "--model", pruned)
    assert done.returncode == 0
    backup = tmp_path / "pruned.spamnb.bak"
    assert str(backup) in done.stdout.decode()
    assert backup.read_bytes() == sample_model.read_bytes()


def test_learn_that_changes_nothing_leaves_the_file_alone(tmp_path, sample_model):
    model = tmp_path / "m.spamnb"
    shutil.copy(sample_model, model)
    stamp = model.stat().st_mtime_ns
    done = run_spamnb("learn", "--spam", SAMPLE / "mail" / "spam", "--model", model)
    assert done.returncode == 0 and done.stdout.decode().splitlines()[-1] == f"model unchanged: {model}"
    assert model.stat().st_mtime_ns == stamp and model.read_bytes() == sample_model.read_bytes()


# -- errors that name their cause --------------------------------------------------------------------

def test_a_missing_folder_or_a_full_disk_is_one_line_naming_the_path_exit_3(tmp_path, sample_model):
    missing = tmp_path / "no" / "such" / "folder"
    cases = [
        ["export", missing / "x.tsv", "--model", sample_model],
        ["evaluate", SAMPLE / "mail", "--plot", missing / "roc.svg"],
    ]
    for args in cases:
        result = run_spamnb(*args)
        assert result.returncode == 3, (args, result.stderr)
        assert str(missing) in one_line(result) and "internal error" not in one_line(result)
    for args in (["export", "--model", sample_model], ["classify", "--model", sample_model, SPAM_FILE],
                 ["classify", "--model", sample_model, "--format", "json", SPAM_FILE],
                 ["inspect", "--model", sample_model]):
        with open("/dev/full", "wb") as full:
            result = subprocess.run([sys.executable, "-m", "spamnb", *map(str, args)], stdout=full,
                                    stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=120)
        assert result.returncode == 3, (args, result.stderr)
        assert one_line(result) == "spamnb: cannot write standard output: No space left on device"
    # A device given as the output file is written into, never replaced by a file.
    result = run_spamnb("export", "/dev/full", "--model", sample_model)
    assert result.returncode == 3 and one_line(result) == "spamnb: cannot write /dev/full: No space left on device"
    assert Path("/dev/full").is_char_device()


@ROOT_ONLY
def test_read_only_full_and_forbidden_places_are_one_line_exit_3(tmp_path, sample_model):
    # In a mount namespace of its own, so no one else sees the small file systems.
    export = tmp_path / "e.tsv"
    assert run_spamnb("export", export, "--model", sample_model).returncode == 0
    script = tmp_path / "places.sh"
    python = f"{sys.executable} -m spamnb"
    script.write_text(f"""
set -u
mkdir -p {tmp_path}/full {tmp_path}/ro
mount -t tmpfs -o size=256k tmpfs {tmp_path}/full
cp {sample_model} {tmp_path}/full/m.spamnb 2>/dev/null
head -c 2000000 /dev/zero > {tmp_path}/full/fill 2>/dev/null
mount -t tmpfs -o size=1m tmpfs {tmp_path}/ro && mount -o remount,ro {tmp_path}/ro
for place in full ro; do
  {python} train {SAMPLE / 'mail'} --model {tmp_path}/$place/new.spamnb -q; echo "train $place $?"
  {python} learn --spam {SPAM_FILE} --model {tmp_path}/$place/new.spamnb -q; echo "learn $place $?"
  {python} import {export} --model {tmp_path}/$place/i.spamnb; echo "import $place $?"
  {python} export {tmp_path}/$place/x.tsv --model {sample_model}; echo "export $place $?"
done
{python} classify --model {sample_model} {SPAM_FILE} > {tmp_path}/full/out; echo "classify full $?"
""")
    result = subprocess.run(["unshare", "-m", "sh", str(script)], capture_output=True, timeout=600)
    statuses = [line.split() for line in result.stdout.decode().splitlines()]
    assert len(statuses) == 9, result.stdout + result.stderr
    errors = result.stderr.decode().splitlines()
    assert all(status == "3" for _, _, status in statuses), "\n".join(map(str, statuses + errors))
    assert len(errors) == 9 and not any("internal error" in line for line in errors), errors
    assert all(f"{tmp_path}/full" in line or f"{tmp_path}/ro" in line or "standard output" in line
               for line in errors), errors
    assert sum("No space left on device" in line for line in errors) == 5
    assert sum("read-only file system" in line.lower() for line in errors) == 4

    # Permission: root without its override of file modes.
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    drop = ["setpriv", "--bounding-set=-dac_override,-dac_read_search",
            "--inh-caps=-dac_override,-dac_read_search", sys.executable, "-m", "spamnb"]
    for args in (["export", locked / "x.tsv", "--model", sample_model],
                 ["train", SAMPLE / "mail", "--model", locked / "m.spamnb", "-q"]):
        done = subprocess.run(drop + [str(a) for a in args], capture_output=True, timeout=120)
        assert done.returncode == 3, (args, done.stderr)
        assert str(locked) in one_line(done) and "ermission denied" in one_line(done)


def test_a_misspelt_headers_value_is_refused_wherever_it_comes_from(tmp_path, sample_model):
    settings = tmp_path / "config.toml"
    settings.write_text('[train]\nheaders = "contnet"\n')
    cases = [
        (["train", SAMPLE / "mail", "--model", tmp_path / "m", "--headers", "contnet"], {}, "'--headers'"),
        (["train", SAMPLE / "mail", "--model", tmp_path / "m", "--headers", "subject,frmo"], {}, "'from'"),
        (["train", SAMPLE / "mail", "--model", tmp_path / "m"], {"SPAMNB_HEADERS": "contnet"}, "$SPAMNB_HEADERS"),
        (["--config", settings, "train", SAMPLE / "mail", "--model", tmp_path / "m"], {}, str(settings)),
    ]
    for args, env, source in cases:
        result = run_spamnb(*args, env=env)
        assert result.returncode == 64, (args, result.stderr)
        assert source in result.stderr.decode() and "did you mean" in result.stderr.decode()
        assert not (tmp_path / "m").exists()
    assert run_spamnb("train", SAMPLE / "mail", "--model", tmp_path / "m", "-q",
                      "--headers", "Subject,X-Mailer,content-*,thread-topic").returncode == 0


def test_input_that_is_not_mail_is_flagged_and_scored_unsure(tmp_path, sample_model):
    binary = tmp_path / "program"
    binary.write_bytes(bytes(range(256)) * 20)
    text = tmp_path / "notes.txt"
    text.write_text("hello there, this is just text\nwith no header line at all\n")
    result = run_spamnb("classify", "--model", sample_model, "--format", "jsonl", "--exit-code", binary, text)
    records = [json.loads(line) for line in result.stdout.decode().splitlines()]
    assert result.returncode == 2  # unsure
    assert [(r["label"], r["score"], r["log_odds"]) for r in records] == [("unsure", 0.5, 0.0)] * 2
    assert all(r["reason"].startswith("not mail") for r in records)
    said = result.stderr.decode()
    assert f"{binary}: not mail" in said and f"{text}: not mail" in said
    piped = run_spamnb("classify", "--model", sample_model, "--format", "json", "-", input=text.read_bytes())
    assert json.loads(piped.stdout)[0]["reason"].startswith("not mail") and "-: not mail" in piped.stderr.decode()
    mail = run_spamnb("classify", "--model", sample_model, "--format", "jsonl", SPAM_FILE)
    assert "reason" not in json.loads(mail.stdout) and mail.stderr == b""


# -- explanations that add up -------------------------------------------------------------------------

def explained(model, paths, top=100000) -> list[dict]:
    result = run_spamnb("classify", "--model", model, "--explain", "--top", top, "--format", "jsonl", *paths)
    assert result.returncode in (0, 4), result.stderr
    return [json.loads(line) for line in result.stdout.decode().splitlines()]


def assert_sums(records) -> None:
    assert records
    for record in records:
        shown = (sum(e["contribution"] for e in record["explain"])
                 + sum(t["contribution"] for t in record["explain_terms"]))
        assert abs(shown - record["log_odds"]) <= 1e-6, record["path"]


@pytest.fixture(scope="module")
def variant_models(tmp_path_factory, sample_model):
    """The sample model, and models whose sums have other terms: the bias (a
    model `learn` built, not calibrated before ten of each class), top-k, chunks."""
    folder = tmp_path_factory.mktemp("variants")
    models = {"default": sample_model, "bias": folder / "bias.spamnb", "top": folder / "top.spamnb"}
    spam, ham = sorted((SAMPLE / "mail" / "spam").iterdir())[:4], sorted((SAMPLE / "mail" / "ham").iterdir())[:4]
    assert run_spamnb("learn", "--model", models["bias"], "-q", "--normalize", "none",
                      *[a for p in spam for a in ("--spam", p)], *[a for p in ham for a in ("--ham", p)]).returncode == 0
    assert run_spamnb("train", SAMPLE / "mail", "--model", models["top"], "-q", "--top-k", "5",
                      "--chunk", "40").returncode == 0
    return models


def test_explain_lines_add_up_to_the_log_odds(variant_models):
    sources = [SAMPLE / "maildir", SAMPLE / "mbox" / "spam.mbox"]
    for name, model in variant_models.items():
        records = explained(model, sources)
        assert_sums(records)
        terms = {t["term"] for r in records for t in r["explain_terms"]}
        assert terms >= ({"bias (prior log-odds)"} if name == "bias" else {"calibration offset"})
    # With a short list, the unlisted tokens are one line, and the lines still add up.
    short = explained(variant_models["default"], sources, top=3)
    assert_sums(short)
    assert all(len(r["explain"]) <= 3 for r in short)
    assert any(t["term"] == "other tokens" for r in short for t in r["explain_terms"])
    text = run_spamnb("classify", "--model", variant_models["default"], "--explain", "--top", "3", SPAM_FILE)
    lines = text.stdout.decode().splitlines()
    rule = lines.index("        ────────")
    assert lines[1].endswith("calibration offset") and "more tokens (" in lines[rule - 1]
    assert "log-odds: the lines above added up" in lines[rule + 1]
    verdict_log_odds = float(lines[0].split()[2])
    assert abs(float(lines[rule + 1].split()[0]) - verdict_log_odds) < 0.006  # both printed rounded


@pytest.mark.parametrize("name", ["spamassassin", "trec06p", "ccert_zh"])
def test_explain_lines_add_up_over_a_sample_of_each_corpus(name, sample_model, tmp_path):
    """A few hundred messages of each corpus, one classify process each (the
    whole corpora: bench/explain_sums.py)."""
    index = CORPORA / name / "index"
    if not index.exists():
        pytest.skip(f"corpus {name} not present at {CORPORA / name}")
    lines = index.read_text().splitlines()
    paths = [CORPORA / name / line.split("\t")[1] for line in lines[:: max(1, len(lines) // 150)]]
    assert_sums(explained(sample_model, paths))


# -- inspect and variants ------------------------------------------------------------------------------

def test_inspect_word_reads_as_the_tokenizer_and_names_the_rule_that_zeroes_it(tmp_path, sample_model):
    words = json.loads(run_spamnb("inspect", "--model", sample_model, "--format", "json", "--word", "發票",
                                  "--word", "THE", "--word", "zzzqqq", "--word", "公司").stdout)["words"]
    assert [w["token"] for w in words] == ["发票", "the", "zzzqqq", "公司"]
    assert words[0]["weight"] == 0 and words[0]["spam_count"] > 0
    assert re.fullmatch(r"\|λ\| = 0\.\d+ < --min-strength 1\.25", words[0]["note"])
    assert words[1]["note"] == "a stop word: never counted"
    assert words[2]["note"] == "never seen in training"
    assert words[3]["weight"] != 0 and "note" not in words[3]
    # The λ shown is the one the rule cut: with --min-strength 0 it is the weight.
    # (Each message counted once, so that both models hold the same counts: the
    # retraining pass picks its near errors by the weights min strength gives.)
    cut, plain = tmp_path / "cut.spamnb", tmp_path / "plain.spamnb"
    for model, strength in ((cut, "1.25"), (plain, "0")):
        assert run_spamnb("train", SAMPLE / "mail", "--model", model, "-q", "--min-strength", strength,
                          "--retrain-margin", "0").returncode == 0
    note = json.loads(run_spamnb("inspect", "--model", cut, "--format", "json", "--word", "发票").stdout)
    weight = json.loads(run_spamnb("inspect", "--model", plain, "--format", "json", "--word", "发票").stdout)
    assert f"{abs(weight['words'][0]['weight']):.3f}" in note["words"][0]["note"]
    keyworded = tmp_path / "kw.spamnb"
    assert run_spamnb("train", SAMPLE / "mail", "--model", keyworded, "-q",
                      "--keywords", SAMPLE / "keywords.txt").returncode == 0
    row = json.loads(run_spamnb("inspect", "--model", keyworded, "--format", "json", "--word", "received:helo").stdout)
    assert row["words"][0]["keyword"] is False and "keyword list" in row["words"][0]["note"]
    shown = run_spamnb("inspect", "--model", sample_model, "--word", "發票").stdout.decode()
    assert "min-strength" in shown


def test_variant_forms_spam_uses_are_looked_up_as_their_plain_words(sample_model):
    words = json.loads(run_spamnb("inspect", "--model", sample_model, "--format", "json", "--word", "増値税",
                                  "--word", "嚸数", "--word", "优蕙").stdout)["words"]
    assert [w["token"] for w in words] == ["增值税", "点数", "优惠"]
    assert all(w["weight"] is not None for w in words)  # each is in the model under its plain form


# -- filter's header, exports -------------------------------------------------------------------------

def test_filters_header_of_any_name_is_not_in_the_digest_nor_a_token(tmp_path, sample_model):
    model = tmp_path / "m.spamnb"
    shutil.copy(sample_model, model)
    filtered = run_spamnb("filter", "--model", model, "--header", "X-Custom", input=SPAM_FILE.read_bytes())
    assert filtered.returncode == 0 and b"\nX-Custom: " in filtered.stdout
    tagged = tmp_path / "tagged.eml"
    tagged.write_bytes(filtered.stdout)
    assert run_spamnb("learn", "--spam", SPAM_FILE, "--model", model, "-q").returncode == 0
    again = run_spamnb("learn", "--spam", tagged, "--model", model)
    assert "1 already learned" in again.stdout.decode()
    assert json.loads(run_spamnb("inspect", "--model", model, "--format", "json",
                                 "--word", "x-custom:yes").stdout)["words"][0]["weight"] is None
    assert counts_of(model) == (61, 60)


def test_export_is_utf8_sorted_and_the_same_every_time(tmp_path, sample_model):
    first, second = tmp_path / "a.tsv", tmp_path / "b.tsv"
    assert run_spamnb("export", first, "--model", sample_model).returncode == 0
    piped = run_spamnb("export", "--model", sample_model, env={"LC_ALL": "C", "LANG": "C",
                                                              "PYTHONIOENCODING": "latin-1"})
    assert run_spamnb("export", second, "--model", sample_model).returncode == 0
    assert first.read_bytes() == second.read_bytes() == piped.stdout
    text = first.read_bytes().decode("utf-8")
    tokens = [line.split("\t")[0] for line in text.splitlines()[1:] if not line.startswith("#")][1:]
    assert tokens == sorted(tokens) and "发票" in tokens
    restored = tmp_path / "r.spamnb"
    assert run_spamnb("import", first, "--model", restored).returncode == 0
    assert run_spamnb("export", "--model", restored).stdout == first.read_bytes()


# -- long work shows what it does ------------------------------------------------------------------

def on_a_terminal(args, timeout=300) -> list[tuple[float, bytes]]:
    """Run spamnb with stderr on a pseudo-terminal; (time, bytes) as drawn."""
    master, slave = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "spamnb", *map(str, args)], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    chunks, ends = [], time.monotonic() + timeout
    while time.monotonic() < ends:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append((time.monotonic(), data))
        elif process.poll() is not None:
            break
    process.wait(timeout=60)
    os.close(master)
    assert process.returncode == 0
    return chunks


def test_train_and_evaluate_name_each_phase_and_never_sit_still(tmp_path):
    drawn = on_a_terminal(["train", SAMPLE / "mail", "--model", tmp_path / "m.spamnb"])
    text = b"".join(data for _, data in drawn).decode("utf-8", "replace")
    for phase in ("reading and counting", "weighing tokens", "fitting calibration and cutoffs",
                  "writing the model"):
        assert phase in text, phase
    times = [at for at, data in drawn if b"\r" in data or b"\x1b[" in data]
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert gaps and max(gaps) < 1.0, max(gaps)
    drawn = on_a_terminal(["evaluate", SAMPLE / "mail", "--folds", "2", "--format", "json"])
    text = b"".join(data for _, data in drawn).decode("utf-8", "replace")
    for phase in ("reading and tokenizing", "training and calibrating on", "(fold 2 of 2)", "scoring"):
        assert phase in text, phase
    # On a pipe, or with -q on a terminal, nothing is drawn.
    piped = run_spamnb("train", SAMPLE / "mail", "--model", tmp_path / "p.spamnb", "--replace")
    assert piped.returncode == 0 and piped.stderr == b""
    quiet = on_a_terminal(["train", SAMPLE / "mail", "--model", tmp_path / "q.spamnb", "-q"])
    assert b"".join(data for _, data in quiet) == b""


def test_roc_plots_have_logit_axes_and_labelled_ticks_on_both(tmp_path):
    result = run_spamnb("evaluate", SAMPLE / "mail", "--plot", tmp_path / "roc.svg")  # the stem "roc"
    assert result.returncode == 0
    svg = (tmp_path / "roc-roc.svg").read_text()
    for label in (">0.01%<", ">0.1%<", ">1%<", ">10%<", ">50%<", ">90%<", ">99.99%<",
                  "% of ham misclassified (logit scale)", "% of spam misclassified (logit scale)"):
        assert label in svg, label
    text = result.stdout.decode()
    assert "both on a logit scale as TREC draws them" in text
    assert "  0.01% ┤" in text and " 99.99% ┤" in text and "0.01%   0.1%     1%" in text


# -- the README's figures come from BENCHMARKS.md --------------------------------------------------

def first_number(cell: str) -> str:
    return re.search(r"[0-9]+\.[0-9]+", cell).group()


def table_rows(text: str, header: str) -> list[list[str]]:
    lines = text[text.index(header):].splitlines()[2:]
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_readme_accuracy_figures_agree_with_benchmarks():
    root = SAMPLE.parent
    readme, benchmarks = (root / "README.md").read_text(), (root / "BENCHMARKS.md").read_text()
    ours = table_rows(readme, "| test part | spamnb | bogofilter 1.2.5 | CRM114 | scikit-learn MultinomialNB |")
    # The defaults' run (spamnb, bogofilter, CRM114), and the earlier run that has scikit-learn's column.
    now = {row[0]: row for row in table_rows(
        benchmarks, "| protocol (test part) | spamnb new default | spamnb old default (below) |")}
    earlier = {row[0].split(":")[0]: row for row in table_rows(
        benchmarks, "| protocol (test part) | spamnb default | spamnb, min strength 1 |")}
    source = {"trec06p": "trec06p split", "spamassassin": "spamassassin split", "ccert_zh": "ccert_zh split",
              "all of spamassassin (2002) → trec06p's last 6": "cross sa→trec",
              "all of trec06p → all of spamassassin": "cross trec→sa"}
    assert len(ours) == 5
    for row in ours:
        name = source[row[0].split(",")[0].split(":")[0]]
        # README columns: spamnb, bogofilter, CRM114, sklearn.
        measured = [now[name][1], now[name][3], now[name][4], earlier[name][5]]
        for shown, figure in zip(row[1:], measured):
            if shown == "–":
                continue
            shown_value = first_number(shown)
            decimals = len(shown_value.split(".")[1])
            assert f"{float(first_number(figure)):.{decimals}f}" == shown_value, (row[0], shown, figure)
    # What to learn: the table moved from the README to BENCHMARKS.md, beside the runs it comes from.
    learned = table_rows(benchmarks, "| what is learned | messages learned | 1-ROCA % |")
    assert [first_number(row[2]) for row in learned] == ["0.022", "0.020", "0.050", "0.218"]
    assert "0.022 |" in benchmarks.split("min strength 2, blocked calibration")[1].splitlines()[0]
    assert all(f"{figure}" in benchmarks for figure in ("1,538 and 0.020", "492\nand 0.050", "0.218"))


def test_readme_speed_figures_agree_with_benchmarks():
    root = SAMPLE.parent
    readme, benchmarks = (root / "README.md").read_text(), (root / "BENCHMARKS.md").read_text()
    architecture = (root / "ARCHITECTURE.md").read_text()  # the daemon's description, with its figure
    serve = re.search(r"serve.*?median ([0-9.]+) ms", benchmarks).group(1)
    assert f"answers in {serve} ms a message" in readme and f"pays {serve} ms a message" in architecture
    bulk = re.search(r"bulk classify, spamassassin \(-j 2\) \|[^|]*\|[^|]*\| ([0-9.]+)× bogofilter", benchmarks).group(1)
    train = re.search(r"train, spamassassin \(-j 2\) \|[^|]*\|[^|]*\| ([0-9.]+)× bogofilter", benchmarks).group(1)
    assert f"run at {bulk}× and {train}×" in readme
    before = re.search(r"\(target ≤ 300 MB; ([0-9,]+), [0-9,]+ and [0-9,]+ MB before\)", benchmarks).group(1)
    # The dict-based counting's figure, in the README's former speed section (now in BENCHMARKS.md).
    assert f"{float(before.replace(',', '')) / 1000:.1f} GB for 75,000" in benchmarks.split("## From the README")[1]
    # The README quotes the latest speed table's training memory.
    table = re.search(r"train peak memory, 75,000 synthetic messages \(-j 2\) \| ([0-9.]+) MB", benchmarks).group(1)
    assert f"{round(float(table))} MB for 75,000 synthetic messages" in readme
