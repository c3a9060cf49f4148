"""HTML to visible text, Python (spamnb.mail.htmltext) against Rust
(spamnb._core.html_to_text), on every HTML part of the shared corpora.

    python bench/core_html_identity.py [--limit N] [--corpus NAME ...] [--show 3]

Each message is decoded by spamnb.mail.message.decode_message as scoring
decodes it (mime.parse, transfer decoding, charsets.decode_text, the
"looks like HTML" rule for a multipart with no boundary), and every call it
makes to htmltext.html_to_text is run by both readers, each with its own
budget carried from part to part of the message as decode_message carries
its one.  Prints the count of parts compared and identical, each side's
CPU time, and the differences by kind (text, links, budget left) with a
count and one example each.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from spamnb import _core  # noqa: E402
from spamnb.mail import htmltext, message  # noqa: E402

CORPORA = ROOT.parent / "shared" / "corpora"
NAMES = ("spamassassin", "trec06p", "ccert_zh")


def messages(names, limit):
    for name in names:
        index = CORPORA / name / "index"
        if not index.exists():
            print(f"{name}: not found at {index}", file=sys.stderr)
            continue
        for count, line in enumerate(index.read_text().splitlines()):
            if limit is not None and count >= limit:
                break
            _, relative = line.split("\t")
            yield f"{name}/{relative}", (CORPORA / name / relative).read_bytes()


def first_difference(a: str, b: str) -> int:
    for index, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return index
    return min(len(a), len(b))


def excerpt(text: str, at: int, width: int = 40) -> str:
    return repr(text[max(0, at - width):at + width])


class Comparer:
    """Stands in for htmltext.html_to_text while decode_message runs."""

    def __init__(self) -> None:
        self.python_reader = htmltext.html_to_text
        self.compared = self.identical = 0
        self.python_seconds = self.rust_seconds = 0.0
        self.kinds: collections.Counter = collections.Counter()
        self.examples: dict[str, list[str]] = {}
        self.rust_budgets: dict[int, object] = {}  # id(Python budget) -> its Rust twin
        self.origin = ""

    def start_message(self, origin: str) -> None:
        self.origin = origin
        self.rust_budgets.clear()

    def __call__(self, markup: str, budget=None):
        if budget is None:
            budget = htmltext.Budget()
        twin = self.rust_budgets.get(id(budget))
        if twin is None:
            twin = self.rust_budgets[id(budget)] = _core.HtmlBudget(budget.tags, budget.scan, budget.attributes)
            self.rust_budgets[id(budget), "keep"] = budget  # id stays unique while the message is read
        started = time.process_time()
        ours = self.python_reader(markup, budget)
        middle = time.process_time()
        theirs = _core.html_to_text(markup, twin)
        self.rust_seconds += time.process_time() - middle
        self.python_seconds += middle - started
        self.compared += 1
        kinds = []
        if ours[0] != theirs[0]:
            at = first_difference(ours[0], theirs[0])
            kinds.append(("text", f"python {excerpt(ours[0], at)}\n      rust   {excerpt(theirs[0], at)}"))
        if ours[1] != theirs[1]:
            kinds.append(("links", f"python {ours[1][:5]}\n      rust   {theirs[1][:5]}"))
        left = (budget.tags, budget.scan, budget.attributes)
        twin_left = (twin.tags, twin.scan, twin.attributes)
        if left != twin_left:
            kinds.append(("budget left", f"python {left}, rust {twin_left}"))
            twin.tags, twin.scan, twin.attributes = left  # the next part starts level
        if not kinds:
            self.identical += 1
        for kind, example in kinds:
            self.kinds[kind] += 1
            self.examples.setdefault(kind, [])
            if len(self.examples[kind]) < self.show:
                self.examples[kind].append(f"{self.origin} ({len(markup)} characters)\n      {example}")
        return ours

    show = 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="messages per corpus")
    parser.add_argument("--corpus", nargs="*", default=list(NAMES))
    parser.add_argument("--show", type=int, default=1, help="examples per kind")
    args = parser.parse_args()
    comparer = Comparer()
    comparer.show = args.show
    htmltext.html_to_text = comparer  # decode_message imports it from the module when a part needs it
    count = 0
    started = time.time()
    for origin, raw in messages(args.corpus, args.limit):
        comparer.start_message(origin)
        message.decode_message(raw)
        count += 1
    print(f"messages read: {count} ({', '.join(args.corpus)}), {time.time() - started:.0f} s")
    print(f"HTML parts compared: {comparer.compared}")
    print(f"identical (text, links and budget left): {comparer.identical}")
    print(f"CPU seconds in html_to_text: python {comparer.python_seconds:.2f}, rust {comparer.rust_seconds:.2f}")
    if not comparer.kinds:
        print("differences: none")
    for kind, number in comparer.kinds.most_common():
        print(f"difference: {kind}: {number}")
        for example in comparer.examples[kind]:
            print(f"  e.g. {example}")
    return 0 if not comparer.kinds else 1


if __name__ == "__main__":
    sys.exit(main())
