"""Loading the shared corpora and splitting them the same way for every tool."""

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
