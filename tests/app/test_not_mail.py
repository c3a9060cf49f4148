"""Input that is not mail gets one answer from every front end: unsure at
P(spam) 0.5, log-odds 0, with the reason (app/verdict.py).  Real processes:
`classify` (fast path and click), `filter`, `classify --server` and the
server's own protocol, and SpamAssassin's `spamc` against `serve --spamd`."""

import json
import math
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import SAMPLE, run_spamnb
from test_spamd import SPAMC, SpamdServer, free_port

REASON = "not mail (no header line at its start: binary data or plain text?); not scored, marked unsure"
# Plain text, and the head of a program (ELF bytes with the odd newline).
INPUTS = {"text": b"hello\n", "binary": Path(shutil.which("ls") or "/bin/ls").read_bytes()[:3000]}
HAM_FILE = SAMPLE / "maildir" / "ham" / "cur" / "1739174744.M1P4101.sample:2,S"


@pytest.fixture(scope="module")
def daemon(sample_model):
    port = free_port()
    server = SpamdServer(sample_model, "--spamd", f"127.0.0.1:{port}")
    server.port = port
    yield server
    server.stop()


def spam_cutoff(model) -> float:
    summary = json.loads(run_spamnb("inspect", "--model", model, "--format", "json").stdout)["summary"]
    return summary["cutoffs"]["spam"]


@pytest.mark.parametrize("kind", list(INPUTS))
def test_classify_says_unsure_with_the_reason_and_exits_with_the_input_error_status(sample_model, kind):
    data = INPUTS[kind]
    # The fast path, and the click command line (a cutoff option sends it there).
    for extra in ((), ("--spam-cutoff", "0.99")):
        result = run_spamnb("classify", "--model", sample_model, "--format", "jsonl", *extra, "-", input=data)
        record = json.loads(result.stdout)
        assert (record["label"], record["score"], record["log_odds"], record["reason"]) == \
            ("unsure", 0.5, 0.0, REASON), extra
        assert result.stderr.decode() == f"spamnb: -: {REASON}\n"
        assert result.returncode == 4, extra  # not every message given was scored
        text = run_spamnb("classify", "--model", sample_model, *extra, "-", input=data)
        assert text.stdout.decode().split() == ["unsure", "0.5000", "+0.00", "-"] and text.returncode == 4
        # bogofilter's codes: the verdict, unsure.
        assert run_spamnb("classify", "--model", sample_model, "--exit-code", *extra, "-",
                          input=data).returncode == 2


@pytest.mark.parametrize("kind", list(INPUTS))
def test_filter_delivers_it_marked_unsure_with_the_reason(sample_model, kind):
    data = INPUTS[kind]
    result = run_spamnb("filter", "--model", sample_model, input=data)
    header = (f'X-Spamnb-Status: Unsure, score=0.5000, log-odds=0.00, model=sample.spamnb, '
              f'reason="{REASON}"').encode()
    # First, ended as the input's first line is (a bare CR in the program); nothing else changed.
    assert result.returncode == 0 and result.stdout.startswith(header)
    assert result.stdout[len(header):] in (b"\n" + data, b"\r" + data)
    assert result.stderr.decode() == f"spamnb: {REASON}\n"
    assert run_spamnb("filter", "--model", sample_model, "--exit-code", input=data).returncode == 2
    assassin = run_spamnb("filter", "--model", sample_model, "--header-style", "spamassassin", input=data)
    assert b"X-Spam-Flag: NO" in assassin.stdout and b"tests=SPAMNB_UNSURE,SPAMNB_NOT_MAIL " in assassin.stdout


@pytest.mark.parametrize("kind", list(INPUTS))
def test_the_server_and_classify_server_say_the_same(daemon, sample_model, kind):
    from spamnb.app.server import Client

    data = INPUTS[kind]
    socket_path = str(daemon.directory / "serve.sock")
    # The server itself (any client of its protocol), not only classify's check before sending.
    with Client(socket_path) as client:
        reply = client.score(data)
    assert (reply["label"], reply["exact"], reply["reason"]) == \
        ("unsure", {"probability": 0.5, "log_odds": 0.0}, REASON)
    remote = run_spamnb("classify", "--server", socket_path, "--format", "jsonl", "-", input=data)
    local = run_spamnb("classify", "--model", sample_model, "--format", "jsonl", "-", input=data)
    assert remote.stdout == local.stdout and remote.stderr == local.stderr
    assert remote.returncode == local.returncode == 4


@pytest.mark.skipif(SPAMC is None, reason="spamc is not installed (apt-get install spamc)")
@pytest.mark.parametrize("kind", list(INPUTS))
def test_spamc_gets_not_spam_with_a_symbol_saying_why(daemon, sample_model, kind):
    data = INPUTS[kind]

    def spamc(*args):
        return subprocess.run([SPAMC, "-d", "127.0.0.1", "-p", str(daemon.port), *args], input=data,
                              capture_output=True, timeout=60)

    checked = spamc("-c")
    points, threshold = checked.stdout.decode().strip().split("/")
    assert checked.returncode == 0 and threshold == "5.0"  # Spam: False
    # Log-odds 0 on SpamAssassin's scale, kept under the threshold whatever the cutoffs.
    cutoff = spam_cutoff(sample_model)
    assert float(points) == min(round(5.0 - math.log(cutoff / (1 - cutoff)), 1), 4.9)
    assert spamc("-y").stdout.strip() == b"SPAMNB_UNSURE,SPAMNB_NOT_MAIL"
    processed = spamc().stdout
    assert b"X-Spam-Flag: NO" in processed and b"tests=SPAMNB_UNSURE,SPAMNB_NOT_MAIL " in processed
    assert processed.endswith(data)
    # Mail is scored as ever, with no reason symbol.
    mail = subprocess.run([SPAMC, "-d", "127.0.0.1", "-p", str(daemon.port), "-y"], input=HAM_FILE.read_bytes(),
                          capture_output=True, timeout=60)
    assert mail.stdout.strip() in (b"SPAMNB_HAM", b"SPAMNB_SPAM", b"SPAMNB_UNSURE")
