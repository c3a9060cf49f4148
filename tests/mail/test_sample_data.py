"""Every message in sample_data decodes to the phrase and subject its manifest names."""

import csv
import unicodedata

import pytest

from conftest import SAMPLE
from spamnb.mail.message import decode_message
from spamnb.mail.sources import read_messages

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


def test_sample_covers_what_the_issue_asks_for():
    assert sum(r["label"] == "spam" and r["path"].startswith("mail/") for r in ROWS) >= 40
    assert sum(r["label"] == "ham" and r["path"].startswith("mail/") for r in ROWS) >= 40
    for column, values in (("lang", {"en", "zh"}),
                           ("structure", {"plain", "html", "alternative", "mixed-attachment"}),
                           ("transfer_encoding", {"base64", "quoted-printable", "8bit", "7bit"})):
        assert values <= {r[column] for r in ROWS}, column
    charsets = {r["charset"].lower() for r in ROWS}
    assert {"gb2312", "gbk", "utf-8", "big5", "iso-8859-1"} <= charsets
