"""Every message in sample_data decodes to the phrase and subject its manifest names, and its
spam and ham differ in what they say, not in the relays and mail programs that carried them."""

import csv
import json
import re
import unicodedata
from collections import Counter

import pytest

from conftest import SAMPLE, run_spamnb
from spamnb import _core
from spamnb.mail.sources import read_messages
from spamnb.text.tokens import TokenizerOptions, registered_domain

from core_mail import decode_message

ROWS = list(csv.DictReader((SAMPLE / "MANIFEST.tsv").open(encoding="utf-8"), delimiter="\t"))


def _message(path: str) -> bytes:
    file, _, number = path.partition("#")
    messages = list(read_messages(str(SAMPLE / file), []))
    return messages[int(number) - 1].data if number else messages[0].data


def _squash(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).split())


@pytest.mark.parametrize("row", ROWS, ids=[row["path"] for row in ROWS])
def test_message_decodes_to_its_phrase_and_subject(row):
    decoded = decode_message(_message(row["path"]))
    assert not decoded.parse_failed
    assert _squash(row["phrase"]) in _squash(" ".join(decoded.texts))
    assert dict(decoded.headers)["subject"] == row["subject"]


def test_the_sample_holds_both_classes_both_languages_every_structure_encoding_and_charset():
    assert sum(r["label"] == "spam" and r["path"].startswith("mail/") for r in ROWS) >= 40
    assert sum(r["label"] == "ham" and r["path"].startswith("mail/") for r in ROWS) >= 40
    for column, values in (("lang", {"en", "zh"}),
                           ("structure", {"plain", "html", "alternative", "mixed-attachment"}),
                           ("transfer_encoding", {"base64", "quoted-printable", "8bit", "7bit"})):
        assert values <= {r[column] for r in ROWS}, column
    charsets = {r["charset"].lower() for r in ROWS}
    assert {"gb2312", "gbk", "utf-8", "big5", "iso-8859-1"} <= charsets


# -- spam and ham travel the same roads ------------------------------------------------------------
# The sample's headers follow a message's route and mail program, never its label: a model trained
# on it must learn from what the mail says, not from a relay or a mailer only one class used.

RELAY = re.compile(r"\b(?:from|by)\s+([a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:example|com|net|org|test|invalid))\b", re.I)
NETWORK = re.compile(r"\[(\d+\.\d+\.\d+)\.\d+\]")


def _decoded_by_label() -> dict[str, list]:
    by_label: dict[str, list] = {"spam": [], "ham": []}
    for row in ROWS:
        by_label[row["label"]].append(decode_message(_message(row["path"])))
    return by_label


def test_spam_and_ham_pass_through_the_same_relays():
    relays = {label: Counter() for label in ("spam", "ham")}
    networks = {label: set() for label in ("spam", "ham")}
    for label, messages in _decoded_by_label().items():
        for decoded in messages:
            received = [value for name, value in decoded.headers if name == "received"]
            assert received, "every sample message has Received lines"
            relays[label].update({registered_domain(host.lower()) for line in received for host in RELAY.findall(line)})
            networks[label].update(net for line in received for net in NETWORK.findall(line))
    assert networks["spam"] == networks["ham"] == {"192.0.2", "198.51.100", "203.0.113"}
    # A relay that carries several messages of one class carries the other's too: only a
    # spammer's own one-off host (a bot saying HELO with its domain) is in one class alone.
    for label, other in (("spam", "ham"), ("ham", "spam")):
        one_sided = {domain for domain, count in relays[label].items() if count >= 3 and not relays[other][domain]}
        assert not one_sided, (label, one_sided)
    shared = set(relays["spam"]) & set(relays["ham"])
    assert {"example.com", "example.net", "example.org", "xinmail.example"} <= shared


def test_no_received_or_mailer_token_tells_spam_from_ham():
    share: dict[str, dict[str, float]] = {}
    for label, messages in _decoded_by_label().items():
        counts: Counter = Counter()
        for decoded in messages:
            counts.update({token for token in _core.message_tokens(decoded, TokenizerOptions())
                           if token.startswith(("received:", "x-mailer:", "user-agent:"))})
        share[label] = {token: count / len(messages) for token, count in counts.items()}
    for token in share["spam"].keys() | share["ham"].keys():
        spam, ham = share["spam"].get(token, 0.0), share["ham"].get(token, 0.0)
        assert abs(spam - ham) <= 1 / 3, (token, spam, ham)


def test_the_sample_models_top_keywords_are_words(sample_model):
    shown = run_spamnb("inspect", "--model", sample_model, "--top", "12", "--format", "json")
    assert shown.returncode == 0, shown.stderr
    listed = json.loads(shown.stdout)
    for side in ("spam", "ham"):
        tokens = [row["token"] for row in listed[side]]
        assert len(tokens) == 12
        # A word of the text or of the Subject, not a `received:`, `x-mailer:`, `from:`, `url:` ... token.
        fingerprints = [t for t in tokens if re.match(r"[a-z][a-z0-9-]*:", t) and not t.startswith("subject:")]
        assert not fingerprints, (side, tokens)
