"""Loading the shared corpora, splitting them and putting them in arrival
order the same way for every tool, and the content-header copies."""

from __future__ import annotations

import random
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"

# ccert_zh: Received/Date/Message-ID give the label away (SOURCE.md), so it is
# judged on content headers only.  spamassassin has no delivery order and is
# shuffled with a fixed seed; ccert_zh's index is chronological per class.
SETTINGS = {
    "spamassassin": {"headers": "content", "shuffle": True},
    "ccert_zh": {"headers": "content", "shuffle": False},
}


def load_index(name: str) -> list[tuple[int, Path]]:
    """[(1 for spam / 0 for ham, path)] in index order."""
    folder = CORPORA / name
    out = []
    for line in (folder / "index").read_text().splitlines():
        label, relative = line.split("\t")
        out.append((1 if label == "spam" else 0, folder / relative))
    return out


def split(name: str, train_share: float = 0.7, seed: int = 1):
    """70/30 per class: the first 70 % of each class (by index order, or by a
    seeded shuffle for corpora with no order) trains, the rest tests."""
    items = load_index(name)
    train, test = [], []
    for label in (0, 1):
        of_class = [item for item in items if item[0] == label]
        if SETTINGS.get(name, {}).get("shuffle"):
            random.Random(seed).shuffle(of_class)
        cut = int(len(of_class) * train_share)
        train += of_class[:cut]
        test += of_class[cut:]
    return train, test


def available() -> list[str]:
    return [name for name in SETTINGS if (CORPORA / name / "index").exists()]


def present(name: str) -> bool:
    return (CORPORA / name / "index").exists()


# ------------------------------------------------ the order mail arrives in

def stream(name: str, seed: int = 1) -> list[tuple[int, Path]]:
    """Every message of a corpus in the order bench/compare.py's protocols
    deliver it.

    - trec06p: its index, which is the delivery order (SOURCE.md).
    - spamassassin: no delivery order (its index lists subsets, ham first),
      so one seeded shuffle of the whole corpus.
    - ccert_zh: its index is chronological but holds no interleaving to keep:
      all 3,628 ham (2004-09 to 2004-11) come before all 3,987 spam (2005-07),
      so "the first 70 % by position" would test on spam alone and the first
      3,000 messages would all be ham.  The two classes are merged by
      relative position instead (the i-th of n messages of a class at
      (i + 1/2) / n), each in its own index order: a stream in which both
      arrive at a steady rate and each drifts as it did.
    """
    items = load_index(name)
    if name == "spamassassin":
        random.Random(seed).shuffle(items)
        return items
    if name == "ccert_zh":
        return interleave(items)
    return items


def interleave(items: list[tuple[int, Path]]) -> list[tuple[int, Path]]:
    """Both classes merged by relative position, each kept in its order."""
    keyed = []
    for label in (0, 1):
        of_class = [item for item in items if item[0] == label]
        keyed += [((number + 0.5) / len(of_class), label, item) for number, item in enumerate(of_class)]
    return [item for _, _, item in sorted(keyed, key=lambda key: key[:2])]


# ---------------------------------------------------- the bytes each tool reads

CONTENT_FIELDS = {b"subject", b"from", b"to", b"cc", b"reply-to", b"mime-version"}


def strip_headers(data: bytes) -> bytes:
    """Keep only the content header fields (Subject, From, To, Cc, Reply-To,
    MIME-Version, Content-*); the body bytes are untouched."""
    kept = []
    keep_field = False
    position = 0
    while position < len(data):
        end = data.find(b"\n", position)
        end = len(data) if end < 0 else end + 1
        line = data[position:end]
        if line.rstrip(b"\r\n") == b"":
            break
        if line[:1] in (b" ", b"\t"):
            if keep_field:  # a folded continuation belongs to the field above
                kept.append(line)
        else:
            name, colon, _ = line.partition(b":")
            name = name.strip().lower()
            # A line with no colon (an mbox "From " envelope line) is no field.
            keep_field = bool(colon) and (name in CONTENT_FIELDS or name.startswith(b"content-"))
            if keep_field:
                kept.append(line)
        position = end
    return b"".join(kept) + data[position:]


def write_message(source: Path, target: Path, headers: str) -> None:
    """A copy of `source` at `target`: as it is ("all"), or with content headers only."""
    data = source.read_bytes()
    target.write_bytes(strip_headers(data) if headers == "content" else data)
